-- bench_ffi.lua: ns per call of monostamp.ffi under LuaJIT, against
-- LuaJIT's os.time() and LuaSocket's socket.gettime(), timed in one run.
--   MONOSTAMP_LIBRARY=build/libmonostamp.so LUA_PATH='bindings/lua/?.lua;;' \
--   luajit bench/lua/bench_ffi.lua [iterations] [repeats]
-- Each figure is the minimum over `repeats` rounds of `iterations` calls
-- (defaults 1000000 and 30; the rounds interleave the subjects, so drift
-- hits all alike), timed with monostamp.monotonic_ns() (CLOCK_MONOTONIC);
-- it includes the loop and the call as a caller pays them, after the JIT
-- has compiled each loop (the first round warms up and is not counted).
-- No targets: the rows are figures, with their ratios to the baselines.
local monostamp = require "monostamp.ffi"
local ok_socket, socket = pcall(require, "socket")

local N = tonumber(arg and arg[1]) or 1000000
local REPEATS = tonumber(arg and arg[2]) or 30
local mono = monostamp.monotonic_ns

-- Each subject is its own chunk, so each loop is its own trace.  The
-- results are kept in a local that the loop overwrites, as a caller
-- would use them; LuaJIT still cannot drop a C call it cannot prove pure.
local function compile(prelude, call, env)
  local code = "local n, mono = ...\n" .. prelude .. "\n" ..
               "local t0 = mono()\n" ..
               "local r\n" ..
               "for _ = 1, n do r = " .. call .. " end\n" ..
               "return tonumber(mono() - t0) / n, r\n"
  local chunk = assert(loadstring(code, "=" .. call))
  setfenv(chunk, env)
  return function(n) return (chunk(n, mono)) end
end

local ffi = require "ffi"
local env = {
  monostamp = monostamp, os = os, tonumber = tonumber, socket = socket,
  realtime = assert(monostamp.clock { source = "realtime" }),
  coarse = assert(monostamp.clock { source = "realtime_coarse" }),
  -- The bare C call into a reused int64_t[1], for the split between the
  -- call and the int64_t box every ns result is (a GC allocation).
  C = ffi.load(monostamp.library), buf = ffi.new("int64_t[1]"),
}
env.coarse_p = env.coarse._p

local subjects = {
  { "os.time()", "local f = os.time", "f()" },
  { "monostamp.now()", "local f = monostamp.now", "f()" },
  { "monostamp.time_ns()", "local f = monostamp.time_ns", "f()" },
  { "c:now() (realtime)", "local c = realtime", "c:now()" },
  { "c:time_ns() (realtime)", "local c = realtime", "c:time_ns()" },
  { "c:time_ns() (realtime_coarse)", "local c = coarse", "c:time_ns()" },
  { "monostamp.time_us()", "local f = monostamp.time_us", "f()" },
  { "C.monostamp_time_ns(p, buf) (coarse; no box)", "local p, b = coarse_p, buf",
    "C.monostamp_time_ns(p, b)" },
}
if ok_socket then
  table.insert(subjects, 1, { "socket.gettime()", "local f = socket.gettime", "f()" })
end
for _, s in ipairs(subjects) do s[2] = compile(s[2], s[3], env) end

for _, s in ipairs(subjects) do s[2](N / 10) end  -- warm up: the JIT compiles each loop
local best = {}
for _ = 1, REPEATS do
  for i, s in ipairs(subjects) do
    local t = s[2](N)
    if not best[i] or t < best[i] then best[i] = t end
  end
end

local function index(name)
  for i, s in ipairs(subjects) do if s[1] == name then return i end end
end
local gettime, ostime = index("socket.gettime()"), index("os.time()")

print(string.format("LuaJIT FFI binding: %s, monostamp.ffi over %s, %d calls x %d rounds, min ns/call",
                    jit and jit.version or _VERSION, monostamp.library, N, REPEATS))
print("| call | ns/call | x os.time() | x socket.gettime() |")
print("|---|---:|---:|---:|")
for i, s in ipairs(subjects) do
  print(string.format("| %s | %.1f | %.2f | %s |", s[1], best[i], best[i] / best[ostime],
                      gettime and string.format("%.2f", best[i] / best[gettime]) or "n/a"))
end
if not gettime then
  print("(LuaSocket is missing for LuaJIT: no socket.gettime() column; apt-get install lua-socket)")
end
