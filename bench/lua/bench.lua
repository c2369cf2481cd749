-- bench.lua: ns per call of monostamp's Lua functions against LuaSocket's
-- socket.gettime(), the wall clock Lua users know, in one run.
--   LUA_CPATH='build/lua/?.so;;' lua5.4 bench/lua/bench.lua [iterations] [repeats]
-- Each figure is the minimum over `repeats` rounds of `iterations` calls
-- (defaults 200000 and 60: short rounds, so few are preempted on a busy
-- machine; the rounds interleave the subjects, so drift hits all alike),
-- timed with CLOCK_MONOTONIC; it includes the loop and the call, as a
-- caller pays them.
-- Targets: now() <= 1.10 x gettime(), time_ns() <= 1.00 x gettime().
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
os.exit(verdict == 0 or os.getenv("MONOSTAMP_BENCH_STRICT") == nil)
