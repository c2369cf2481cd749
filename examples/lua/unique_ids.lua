-- unique_ids.lua: event ids made in a tight loop, each a distinct,
-- increasing timestamp.  A loop is faster than most clocks tick: os.time()
-- gives whole seconds, and the coarse wall clock used here moves only every
-- millisecond or so, so it reads the same instant many times over.  The
-- default policy, monotonicForceNanosecondIncrement, then hands out one ns
-- past the last stamp instead, so no two ids are ever equal.
local monostamp = require "monostamp"

-- A clock of our own, to read its counters at the end.  monostamp.time_ns()
-- (the process-wide clock, precise source) would do as well.  In a busted
-- spec use require("monostamp.testing").strict_clock(): one sequence for the
-- whole test run, across processes when MONOSTAMP_SHARED is set.
local clock = assert(monostamp.clock{ source = "realtime_coarse" })

local events = {}
for i = 1, 100000 do
  events[i] = { id = clock:time_ns(), name = "event " .. i }
end

-- Check what the policy promises: every id above the one before it.
local seen = {}
for i, event in ipairs(events) do
  assert(not seen[event.id], "duplicate id")
  assert(i == 1 or event.id > events[i - 1].id, "id went backwards")
  seen[event.id] = true
end

print(string.format("%d events, %d distinct ids, each above the last:", #events, #events))
for i = 1, 3 do
  print(string.format("  %s  id %d  %s", events[i].name, events[i].id,
                      monostamp.isoformat(events[i].id, 0, 9, true)))
end
local stats = clock:stats()
print(string.format("the coarse clock repeated a reading %d times; each time the policy",
                    stats.duplicates))
print(string.format("handed out the next ns instead (%d forced increments)",
                    stats.forced_increments))
local seconds = {}
for _, event in ipairs(events) do seconds[event.id // 1000000000] = true end
local n = 0
for _ in pairs(seconds) do n = n + 1 end
print(string.format("ids from os.time() (whole seconds) would have had %d distinct value%s",
                    n, n == 1 and "" or "s"))
