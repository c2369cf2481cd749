-- bench.lua: ns per call of monostamp's Lua functions against LuaSocket's
-- socket.gettime(), the wall clock Lua users know, in one run.
--   LUA_CPATH='build/lua/?.so;;' LUA_PATH='bindings/lua/?.lua;;' lua5.4 bench/lua/bench.lua [iterations] [repeats]
-- Each figure is the minimum over `repeats` rounds of `iterations` calls
-- (defaults 200000 and 60: short rounds, so few are preempted on a busy
-- machine; the rounds interleave the subjects, so drift hits all alike),
-- timed with CLOCK_MONOTONIC; it includes the loop and the call, as a
-- caller pays them.
-- Targets: now() <= 1.10 x gettime(), time_ns() <= 1.00 x gettime().
-- uuid7() (an id as its 36-character string) and take(1000) (a block of a
-- thousand stamps) are reported, with no target.
local monostamp = require "monostamp"
local socket = require "socket"

local N = math.tointeger(tonumber(arg and arg[1])) or 200000
local REPEATS = math.tointeger(tonumber(arg and arg[2])) or 60
local mono = monostamp.monotonic_ns

-- Each subject is a loop compiled from its call as a caller's hot loop
-- has it: the function or the clock in a local, a method called with ':'
-- (so through the metatable's __index).
local function compile(prelude, call, env)
  local code = "local n, mono = ...\n" .. prelude .. "\n" ..
               "local t0 = mono()\n" ..
               "for _ = 1, n do " .. call .. " end\n" ..
               "return (mono() - t0) / n\n"
  local chunk = assert(load(code, "=" .. call, "t", env))
  return function(n) return chunk(n, mono) end
end

local env = {
  socket = socket,
  monostamp = monostamp,
  os = os,
  realtime = assert(monostamp.clock{ source = "realtime" }),
  coarse = assert(monostamp.clock{ source = "realtime_coarse" }),
}

local subjects = {
  { "socket.gettime()", "local f = socket.gettime", "f()" },
  { "monostamp.now()", "local f = monostamp.now", "f()" },
  { "monostamp.time_ns()", "local f = monostamp.time_ns", "f()" },
  { "c:now() (realtime)", "local c = realtime", "c:now()" },
  { "c:time_ns() (realtime)", "local c = realtime", "c:time_ns()" },
  { "c:time_ns() (realtime_coarse)", "local c = coarse", "c:time_ns()" },
  { "monostamp.uuid7()", "local f = monostamp.uuid7", "f()" },
  { "c:uuid7() (realtime)", "local c = realtime", "c:uuid7()" },
  { "monostamp.take(1000)", "local f = monostamp.take", "f(1000)" },
  { "os.time()", "local f = os.time", "f()" },
  { "an empty Lua function", "local f = function() end", "f()" },
}
for _, s in ipairs(subjects) do s[2] = compile(s[2], s[3], env) end

for _, s in ipairs(subjects) do s[2](N // 10) end  -- warm up
local best = {}
for _ = 1, REPEATS do
  for i, s in ipairs(subjects) do
    local t = s[2](N)
    if not best[i] or t < best[i] then best[i] = t end
  end
end

local base = best[1]
print(string.format("Lua binding: %s, %d calls x %d rounds, min ns/call", _VERSION, N, REPEATS))
print("| call | ns/call | x socket.gettime() |")
print("|---|---:|---:|")
for i, s in ipairs(subjects) do
  print(string.format("| %s | %.1f | %.2f |", s[1], best[i], best[i] / base))
end

local verdict = 0
local function target(name, ratio, limit)
  local ok = ratio <= limit
  print(string.format("%s / socket.gettime() = %.3f (target <= %.2f): %s",
                      name, ratio, limit, ok and "ok" or "OVER"))
  if not ok then verdict = 1 end
end
target("monostamp.now()", best[2] / base, 1.10)
target("monostamp.time_ns()", best[3] / base, 1.00)

-- Sampling from Lua (the squeak-dev thread's measurement, May 2020), by
-- the method of bench/c/bench_sampling.c.  1. Sampling: each row calls in a
-- tight loop for 1 s of CLOCK_MONOTONIC time (monostamp.monotonic_ns(),
-- checked every 256 samples) and counts on the fly, storing nothing:
-- samples, distinct values (strict increases + 1, exact for a sequence
-- that never went backwards), distinct values floored to whole
-- microseconds, and the last value minus CLOCK_REALTIME read just after.
-- Should a sequence go backwards, the row says so and gives the distinct
-- counts as bounds: at least the new running maxima, at most the
-- changes + 1.  2. The time for 10 M stamps per source x policy: 1 M
-- timed, scaled.  MONOSTAMP_BENCH_QUICK=1: 0.2 s windows and 100 k timed
-- stamps, figures scaled to 1 s and 10 M.
local quick = os.getenv("MONOSTAMP_BENCH_QUICK") == "1"
local WINDOW = quick and 200000000 or 1000000000
local SCALE = 1e9 / WINDOW
local STAMPS = quick and 100000 or 1000000
local STAMP_SCALE = 10000000 / STAMPS
local POLICIES = { "acceptPlatformTime", "monotonicAllowDuplicates",
                   "monotonicForceMicrosecondIncrement", "monotonicForceNanosecondIncrement" }
local SOURCES = { "realtime", "realtime_coarse" }
local plain = assert(monostamp.clock{ source = "realtime", policy = "acceptPlatformTime" })
local function realtime_ns() return plain:time_ns() end  -- clock_gettime(CLOCK_REALTIME)

-- One sampling loop per subject, compiled from its call as above.  US is
-- the value in whole microseconds (floored), or the value itself where its
-- resolution is 1 us or coarser.  `top` is the running maximum as of the
-- last step back (the running maximum is max(top, prev)), so an increase
-- to v <= top is one that may repeat an earlier value; a step back may
-- reach a new value.
local SAMPLER = [[
local window, mono, realtime = ...
PRELUDE
local prev = CALL
local v = prev
local prev_us = US
local top, top_us = prev, prev_us
local samples, unique, unique_us, below, below_us, down, down_us = 1, 1, 1, 0, 0, 0, 0
local backwards = false
local stop = mono() + window
repeat
  for _ = 1, 256 do
    v = CALL
    if v > prev then
      unique = unique + 1
      if v <= top then below = below + 1 end
    elseif v < prev then
      backwards = true
      down = down + 1
      if prev > top then top = prev end
    end
    local us = US
    if us > prev_us then
      unique_us = unique_us + 1
      if us <= top_us then below_us = below_us + 1 end
    elseif us < prev_us then
      down_us = down_us + 1
      if prev_us > top_us then top_us = prev_us end
    end
    prev_us = us
    prev = v
  end
  samples = samples + 256
until mono() >= stop
local now = realtime()
return samples, unique + down, unique_us + down_us, unique - below, unique_us - below_us,
  backwards, prev, now
]]

local function sampler(prelude, call, us)
  local code = SAMPLER:gsub("PRELUDE", prelude):gsub("CALL", call):gsub("US", us)
  return assert(load(code, "=sample " .. call, "t", env))
end

local function sampling_row(name, prelude, call, us, to_ns)
  local samples, unique, unique_us, low, low_us, backwards, last, now =
    sampler(prelude, call, us)(WINDOW, mono, realtime_ns)
  local lead = (to_ns(last) - now) / 1000
  if backwards then
    return string.format("| %s | %.0f | %.0f–%.0f | %.0f–%.0f | %.1f | went backwards: distinct counts are bounds |",
      name, samples * SCALE, low * SCALE, unique * SCALE, low_us * SCALE, unique_us * SCALE, lead)
  end
  return string.format("| %s | %.0f | %.0f | %.0f | %.1f | |",
    name, samples * SCALE, unique * SCALE, unique_us * SCALE, lead)
end

local function load_average()
  local f = io.open("/proc/loadavg")
  local s = f and f:read("l")
  if f then f:close() end
  return s or "unknown"
end

local function ns_ident(v) return v end
-- socket.gettime(): float seconds from gettimeofday (whole us); rounding
-- to the nearest us undoes the float's error, which is far below 0.5 us.
local US_GETTIME = "((v * 1e6 + 0.5) // 1)"
local function gettime_ns(v) return math.floor(v * 1e6 + 0.5) * 1000 end
local function ostime_ns(v) return v * 1000000000 end

local clocks = {}
for _, source in ipairs(SOURCES) do
  for _, policy in ipairs(POLICIES) do
    local name = string.format("c:time_ns() [%s, %s]", source, policy)
    clocks[#clocks + 1] = { name = name, source = source,
                            clock = assert(monostamp.clock{ source = source, policy = policy }) }
  end
end

print("")
print(string.format("Sampling from Lua (%s): load average before: %s", _VERSION, load_average()))
print(string.format("Sampling for %s s%s: samples, distinct ns values, distinct us values.",
                    quick and "0.2" or "1", quick and " (figures scaled to 1 s)" or ""))
print("")
print("| sampled | samples | distinct (ns) | distinct (us) | last - realtime (us) | note |")
print("|---|---:|---:|---:|---:|---|")
print(sampling_row("socket.gettime()", "local f = socket.gettime", "f()", US_GETTIME, gettime_ns))
print(sampling_row("os.time()", "local f = os.time", "f()", "v", ostime_ns))
for _, c in ipairs(clocks) do
  env.sampled = c.clock
  print(sampling_row(c.name, "local c = sampled", "c:time_ns()", "(v // 1000)", ns_ident))
end

-- ms for STAMPS calls (after STAMPS // 10 unrecorded), scaled to 10 M.
local function time_stamps(prelude, call)
  local loop = compile(prelude, call, env)
  loop(STAMPS // 10)
  return loop(STAMPS) * STAMPS / 1e6 * STAMP_SCALE
end

print("")
print(string.format("Time for 10 M stamps (%s timed, scaled), ms; ratio against acceptPlatformTime on the same source.",
                    quick and "100 k" or "1 M"))
print("")
print("| stamps taken with | ms for 10 M | ns/stamp | ratio |")
print("|---|---:|---:|---:|")
for _, b in ipairs{ { "socket.gettime()", "local f = socket.gettime" }, { "os.time()", "local f = os.time" } } do
  local ms = time_stamps(b[2], "f()")
  print(string.format("| %s | %.0f | %.1f | |", b[1], ms, ms * 1e6 / 1e7))
end
local base = {}
for _, c in ipairs(clocks) do
  env.sampled = c.clock
  local ms = time_stamps("local c = sampled", "c:time_ns()")
  base[c.source] = base[c.source] or ms  -- acceptPlatformTime comes first
  print(string.format("| %s | %.0f | %.1f | %.2f |", c.name, ms, ms * 1e6 / 1e7, ms / base[c.source]))
end
print("load average after: " .. load_average())

os.exit(verdict == 0 or os.getenv("MONOSTAMP_BENCH_STRICT") == nil)
