-- against_ffi.lua: monostamp.ffi against another tree of it, in one luajit process.
--   MONOSTAMP_LIBRARY=build/libmonostamp.so \
--   luajit bench/lua/against_ffi.lua OLD/bindings/lua bindings/lua [rounds]
-- The counterpart of against.lua for the FFI binding: both trees' Lua
-- files are loaded side by side over one library, each call timed in paired
-- rounds, old and new back to back, which goes first alternating; the
-- figure is the median of the paired new/old ratios (< 1: the new tree is
-- faster), ns each side's best round.  Benchmark only.
local function load_tree(dir)
  for _, k in ipairs{ "monostamp.ffi", "monostamp.ffi_clock", "monostamp.cdef", "monostamp.sleep_finish" } do
    package.loaded[k] = nil
  end
  local saved = package.path
  package.path = dir .. "/?.lua;" .. saved
  local m = require "monostamp.ffi"
  package.path = saved
  return m
end
local old, new = load_tree(arg[1]), load_tree(arg[2])
assert(old ~= new and old.now ~= new.now)
local ROUNDS = tonumber(arg[3]) or 21
local N = 300000
local mono = new.monotonic_ns
local subjects = {
  { "monostamp.now()", "local f = m.now", "f()" },
  { "monostamp.time_ns()", "local f = m.time_ns", "f()" },
  { "monostamp.time_us()", "local f = m.time_us", "f()" },
  { "c:now()", "local c = m.clock{}", "c:now()" },
  { "c:time_ns()", "local c = m.clock{}", "c:time_ns()" },
  { "c:time_ns() coarse", "local c = m.clock{ source = 'realtime_coarse' }", "c:time_ns()" },
  { "c:take(1)", "local c = m.clock{}", "c:take(1)" },
}
print("| call | old ns | new ns | new/old (median of " .. ROUNDS .. " pairs) |")
print("|---|---:|---:|---:|")
for _, s in ipairs(subjects) do
  local function mk(m)
    local code = "local m, n, mono = ...\n" .. s[2] .. "\nlocal t0 = mono()\nlocal r\n" ..
                 "for _ = 1, n do r = " .. s[3] .. " end\nreturn tonumber(mono() - t0) / n\n"
    local f = assert(loadstring(code, "=" .. s[1]))
    return function(n) return f(m, n, mono) end
  end
  local lo, ln = mk(old), mk(new)
  lo(N / 10); ln(N / 10)
  local bo, bn, ratios = math.huge, math.huge, {}
  for r = 1, ROUNDS do
    local a, b
    if r % 2 == 0 then a = lo(N); b = ln(N) else b = ln(N); a = lo(N) end
    bo, bn = math.min(bo, a), math.min(bn, b)
    ratios[#ratios + 1] = b / a
  end
  table.sort(ratios)
  print(string.format("| %s | %.1f | %.1f | %.3f |", s[1], bo, bn, ratios[(ROUNDS + 1) / 2]))
end
