-- bench_sleep.lua: sleep lateness measured from Lua, in fresh processes;
-- under Lua 5.3+ the C module, under LuaJIT monostamp.ffi.
--
--   LUA_CPATH='build/lua/?.so;;' LUA_PATH='bindings/lua/?.lua;;' lua5.4 bench/lua/bench_sleep.lua
--   MONOSTAMP_LIBRARY=build/libmonostamp.so LUA_PATH='bindings/lua/?.lua;;' luajit bench/lua/bench_sleep.lua
--   MONOSTAMP_BENCH_QUICK=1 (3 runs, fewer samples), MONOSTAMP_FRESH_RUNS=n (n runs; default 8)
--
-- For each length (1 us, 300 us, 3 ms, 30 ms) the parent starts this script
-- again once per run (the same interpreter, arg[-1]), so every child begins
-- with nothing learned.  The child sleeps the length S times by two methods,
-- interleaved sample by sample with the order alternating:
--
--   finish  sleep_ns(x, 0) as shipped: the core sleeps to a learned lead,
--           a Lua spin ends the sleep (monostamp/sleep_finish.lua);
--   core    the path every sleep took before, the baseline: the C module's
--           sleep_ns with the finish unregistered; under LuaJIT the bare
--           monostamp_sleep_for(x, 0) the FFI module called.
--
-- Lateness = monotonic_ns() after the call - (monotonic_ns() before + x),
-- as the caller's code sees it; CPU = os.clock() (the process's CPU time)
-- over the call.  Printed per length and method: median and p99 (nearest
-- rank), the range of the runs' medians, the median of each process's
-- first 5 sleeps, early samples (must be 0), CPU us per sleep; then the
-- ratio core median / finish median.  No assertion: a busy machine is
-- noisy, so the load average is printed before and after.
local is_jit = rawget(_G, "jit") ~= nil
local LENGTHS_US = { 1, 300, 3000, 30000 }
local FIRST = 5
local METHODS = { "finish", "core" }

local function load_monostamp()
  if is_jit then return require "monostamp.ffi" end
  return require "monostamp"
end

local function child(length_us, n)
  local monostamp = load_monostamp()
  local now, clock = monostamp.monotonic_ns, os.clock
  local length_ns = length_us * 1000
  -- sleeps[m] sleeps; prepare[m] runs before the clock is read.
  local sleeps, prepare = {}, {}
  if is_jit then
    local C = require("ffi").load(monostamp.library)
    sleeps[0] = monostamp.sleep_ns
    sleeps[1] = function(ns, tol) return C.monostamp_sleep_for(ns, tol) == 0 end
    prepare[0], prepare[1] = function() end, function() end
  else
    local finish = require("monostamp.sleep_finish").register(monostamp)
    local register = monostamp._sleep_finish
    sleeps[0], sleeps[1] = monostamp.sleep_ns, monostamp.sleep_ns
    prepare[0] = function() register(finish) end
    prepare[1] = function() register(nil) end
  end
  local out = {}
  for s = 0, n - 1 do
    for k = 0, 1 do
      local m = (s + k) % 2  -- alternate which goes first
      local sleep = sleeps[m]
      prepare[m]()
      local c0 = clock()
      local t0 = now()
      sleep(length_ns, 0)
      local t1 = now()
      local c1 = clock()
      out[#out + 1] = string.format("%d %d %.0f %.0f", m, s, tonumber(t1 - (t0 + length_ns)),
                                    (c1 - c0) * 1e9)
    end
  end
  prepare[0]()
  io.write(table.concat(out, "\n"), "\n")
end

local function median(v)
  local s = {}
  for i = 1, #v do s[i] = v[i] end
  table.sort(s)
  local n = #s
  if n % 2 == 1 then return s[(n + 1) / 2] end
  return (s[n / 2] + s[n / 2 + 1]) / 2
end

local function rank(sorted, pct)
  local r = math.floor((pct * #sorted + 99) / 100)
  return sorted[r < 1 and 1 or r]
end

local function loadavg()
  local f = io.open("/proc/loadavg")
  if not f then return "unknown" end
  local line = f:read("*l")
  f:close()
  return line:match("^(%S+ %S+ %S+)")
end

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function main()
  local quick = os.getenv("MONOSTAMP_BENCH_QUICK") == "1"
  local runs = tonumber(os.getenv("MONOSTAMP_FRESH_RUNS") or "") or (quick and 3 or 8)
  local per_run = quick and { 100, 100, 50, 15 } or { 200, 200, 100, 30 }
  local interp, script = arg[-1], arg[0]
  print("load average before: " .. loadavg())
  print(string.format("%s, %s; %d fresh processes per length, finish and core interleaved; "
                      .. "samples per process: %s", is_jit and jit.version or _VERSION,
                      is_jit and "monostamp.ffi" or "monostamp (C module)", runs,
                      table.concat(per_run, " / ")))
  local acc = {}
  for l = 1, #LENGTHS_US do
    acc[l] = {}
    for m = 0, 1 do acc[l][m] = { late = {}, cpu = {}, first = {}, medians = {} } end
  end
  for _ = 1, runs do  -- runs outermost: a noisy minute spreads over every length
    for l, us in ipairs(LENGTHS_US) do
      local p = assert(io.popen(table.concat({ q(interp), q(script), "child", us, per_run[l] }, " ")))
      local this = { [0] = {}, [1] = {} }
      for line in p:lines() do
        local m, s, late, cpu = line:match("^(%d) (%d+) (%-?%d+) (%-?%d+)$")
        if m then
          m, s, late, cpu = tonumber(m), tonumber(s), tonumber(late), tonumber(cpu)
          local a = acc[l][m]
          a.late[#a.late + 1] = late
          a.cpu[#a.cpu + 1] = cpu
          this[m][#this[m] + 1] = late
          if s < FIRST then a.first[#a.first + 1] = late end
        end
      end
      local ok = p:close()
      if not ok or #this[0] ~= per_run[l] or #this[1] ~= per_run[l] then
        error("child for " .. us .. " us failed")
      end
      for m = 0, 1 do table.insert(acc[l][m].medians, median(this[m])) end
    end
  end

  print(string.format("\nLateness in us measured from Lua in a fresh process; median and p99 over "
                      .. "every sample, the range of the %d runs' medians, the median of each "
                      .. "process's first %d sleeps; early = samples before the deadline.\n", runs, FIRST))
  print(string.format("| requested (us) | method | samples | median | p99 | run medians | first %d median "
                      .. "| early | CPU us/sleep |", FIRST))
  print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
  local summary = {}
  for l, us in ipairs(LENGTHS_US) do
    local meds = {}
    for m = 0, 1 do
      local a = acc[l][m]
      local late = {}
      for i, v in ipairs(a.late) do late[i] = v end
      table.sort(late)
      local early, cpu = 0, 0
      for _, v in ipairs(late) do if v < 0 then early = early + 1 end end
      for _, v in ipairs(a.cpu) do cpu = cpu + v end
      local meds_sorted = {}
      for i, v in ipairs(a.medians) do meds_sorted[i] = v end
      table.sort(meds_sorted)
      meds[m] = median(late) / 1000
      print(string.format("| %d | %s | %d | %.1f | %.1f | %.1f–%.1f | %.1f | %d | %.1f |", us, METHODS[m + 1],
                          #late, meds[m], rank(late, 99) / 1000, meds_sorted[1] / 1000,
                          meds_sorted[#meds_sorted] / 1000, median(a.first) / 1000, early,
                          cpu / #a.cpu / 1000))
    end
    summary[#summary + 1] = string.format("%d us: median %.1f us (core alone %.1f us, %.1fx)", us, meds[0],
                                          meds[1], meds[0] > 0 and meds[1] / meds[0] or math.huge)
  end
  print("\nfinish against the core alone, median lateness:")
  for _, line in ipairs(summary) do print("  " .. line) end
  print("load average after: " .. loadavg())
end

if arg[1] == "child" then
  child(tonumber(arg[2]), tonumber(arg[3]))
else
  main()
end
