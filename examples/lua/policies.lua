-- policies.lua: the four clock policies side by side, on manual clocks
-- that are set to the same readings, one of them a step backwards (an NTP
-- correction, a VM restored from a snapshot).  No sleeping, no real clock:
-- the manual source is how tests replay such things deterministically.
local monostamp = require "monostamp"
local testing = require "monostamp.testing"

local POLICIES = {
  "acceptPlatformTime",                  -- the reading as is
  "monotonicAllowDuplicates",            -- never backwards, may repeat
  "monotonicForceMicrosecondIncrement",  -- strictly increasing, whole microseconds
  "monotonicForceNanosecondIncrement",   -- strictly increasing (the default)
}

-- Readings in ns after 2000-01-01T00:00:00Z: two equal ones, then the
-- clock steps back by 1.5 µs, then it catches up.
local START = testing.EPOCH_2000_NS
local READINGS = { 1500, 1500, 0, 1800, 2500, 4000 }

-- One manual clock per policy, all starting at 2000-01-01T00:00:00Z, UTC.
local clocks = {}
for i, policy in ipairs(POLICIES) do
  clocks[i] = testing.manual_clock{ policy = policy }
end

local function short(policy)
  return policy:gsub("^monotonic", ""):gsub("Increment$", "")
end

print("stamps in ns after " .. monostamp.isoformat(START, 0, 0, true)
      .. "; * marks a stamp that repeats or goes back")
local header = { string.format("%8s", "reading") }
for i, policy in ipairs(POLICIES) do header[i + 1] = string.format("%20s", short(policy)) end
print(table.concat(header, " "))

local last = {}
for _, reading in ipairs(READINGS) do
  local row = { string.format("%8d", reading) }
  for i, mc in ipairs(clocks) do
    mc:set(START + reading)
    local ns = mc:time_ns() - START
    local mark = (last[i] and ns <= last[i]) and "*" or " "
    row[i + 1] = string.format("%19d%s", ns, mark)
    last[i] = ns
  end
  print((table.concat(row, " "):gsub(" +$", "")))
end

-- Each clock counted the backward step and what it did about it.
local row = { string.format("%8s", "forced") }
for i, mc in ipairs(clocks) do
  row[i + 1] = string.format("%20d", mc:stats().forced_increments)
end
print(table.concat(row, " "))
