-- against.lua: this tree's Lua module against another build of it, in one process.
--   lua5.4 bench/lua/against.lua OLD/monostamp/core.so NEW/monostamp/core.so [rounds]
-- Both C modules are loaded side by side (package.loadlib: each has its own
-- copy of the core, so its own default clock), and each call is timed in
-- paired rounds, old and new back to back, which of the two goes first
-- alternating.  The figure is the median of the paired new/old ratios, which
-- a busy machine disturbs far less than two separate runs of bench.lua (< 1:
-- the new build is faster); ns are each side's best round.  Benchmark only.
local old = assert(package.loadlib(assert(arg[1], "OLD core.so"), "luaopen_monostamp_core"))()
local new = assert(package.loadlib(assert(arg[2], "NEW core.so"), "luaopen_monostamp_core"))()
local ROUNDS = math.tointeger(tonumber(arg[3])) or 41
local N = 200000
local mono = new.monotonic_ns

-- Each subject is a loop compiled as a caller's hot loop has it: the
-- function or the clock in a local, a method called with ':'.
local subjects = {
  { "monostamp.now()", "local f = m.now", "f()" },
  { "monostamp.time_ns()", "local f = m.time_ns", "f()" },
  { "monostamp.take(1)", "local f = m.take", "f(1)" },
  { "c:now()", "local c = m.clock{}", "c:now()" },
  { "c:time_ns()", "local c = m.clock{}", "c:time_ns()" },
}

print(string.format("ns per call (best round of %d calls); new/old: the median of %d paired ratios",
                    N, ROUNDS))
print("")
print("| call | old ns | new ns | new/old |")
print("|---|---:|---:|---:|")
for _, s in ipairs(subjects) do
  local code = "local m, n, mono = ...\n" .. s[2] .. "\nlocal t0 = mono()\n" ..
               "for _ = 1, n do " .. s[3] .. " end\nreturn (mono() - t0) / n\n"
  local loop = assert(load(code, "=" .. s[1]))
  local best_old, best_new, ratios = math.huge, math.huge, {}
  for r = 1, ROUNDS do
    local a, b
    if r % 2 == 0 then
      a = loop(old, N, mono); b = loop(new, N, mono)
    else
      b = loop(new, N, mono); a = loop(old, N, mono)
    end
    best_old, best_new = math.min(best_old, a), math.min(best_new, b)
    ratios[#ratios + 1] = b / a
  end
  table.sort(ratios)
  print(string.format("| %s | %.1f | %.1f | %.2f |", s[1], best_old, best_new,
                      ratios[(ROUNDS + 1) // 2]))
end
