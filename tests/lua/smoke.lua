-- smoke.lua: a quick check of require "monostamp" without busted, for any
-- Lua with 64-bit integers (tools/checks/test-lua53.sh runs it under Lua 5.3).
--   LUA_CPATH='build/lua53/?.so' lua5.3 tests/lua/smoke.lua
local monostamp = require "monostamp"
local passed = 0

local function check(cond, ...)
  if not cond then error(table.concat({ "smoke: ", ... }), 2) end
  passed = passed + 1
end

local function eq(want, got, what)
  check(want == got, what, ": expected ", tostring(want), ", got ", tostring(got))
end

-- The default clock.
local ns, offset = monostamp.now()
eq("integer", math.type(ns), "now() ns")
eq("integer", math.type(offset), "now() offset")
local last = monostamp.time_ns()
for _ = 1, 10000 do
  local t = monostamp.time_ns()
  if t <= last then error("smoke: time_ns() not increasing") end
  last = t
end
eq("monotonicForceNanosecondIncrement", monostamp.get_policy(), "get_policy()")
-- Whole-µs stamps: distinct, and one sequence with the ns ones.
for _ = 1, 1000 do
  local t = monostamp.time_us()
  if t <= last or t % 1000 ~= 0 then error("smoke: time_us() " .. t .. " after " .. last) end
  last = monostamp.time_ns()
end

-- Every policy on a manual clock.
local function stamps(policy, readings)
  local c = assert(monostamp.clock{ source = "manual", policy = policy, zone = "UTC" })
  local out = {}
  for i, r in ipairs(readings) do c:set(r); out[i] = c:time_ns() end
  return table.concat(out, " ")
end
local readings = { 1500, 1500, 500, 3000 }
eq("1500 1500 500 3000", stamps("acceptPlatformTime", readings), "acceptPlatformTime")
eq("1500 1500 1500 3000", stamps("monotonicAllowDuplicates", readings), "monotonicAllowDuplicates")
eq("1000 2000 3000 4000", stamps("monotonicForceMicrosecondIncrement", readings), "microseconds")
eq("1500 1501 1502 3000", stamps("monotonicForceNanosecondIncrement", readings), "nanoseconds")
do
  local m = assert(monostamp.clock{ source = "manual", start_ns = 5000500, zone = "UTC" })
  eq("5000000 5001000 5001001 5002000 0",
     table.concat({ m:time_us(), m:time_us(), m:time_ns(), m:now_us() }, " "), "time_us/now_us")
end

-- A zone, ISO 8601 both ways.
local c = assert(monostamp.clock{ source = "manual", zone = "Europe/Berlin",
                                  start_ns = 1798000000 * 1000000000 })
local s = monostamp.isoformat(c:now())
local back, back_offset = monostamp.parse(s)
eq(1798000000 * 1000000000, back, "parse(isoformat()) ns")
eq(3600, back_offset, "Berlin's offset in winter")
eq("1970-01-01T00:00:00Z", monostamp.isoformat(0, 0, 0, true), "isoformat Z")

-- The two kinds of error.
local ok, err = pcall(monostamp.set_policy, "nope")
check(not ok and err:find("policy='nope' must be one of", 1, true), "bad policy: ", tostring(err))
ok, err = pcall(monostamp.clock, { max_lead_ns = -1 })
check(not ok and err:find("(max_lead_ns=-1 must be >= 0)", 1, true), "bad field: ", tostring(err))
local nc, nmsg, ncode = monostamp.clock{ shared = "/nonexistent-monostamp-dir/state" }
-- The hint for a missing directory is POSIX's; Windows names the fault in
-- its own words after the same prefix (os_windows_dirs.c looks for no
-- directory).
local windows = package.config:sub(1, 1) == "\\"
local said = windows and "shared='/nonexistent-monostamp-dir/state': "
             or "shared='/nonexistent-monostamp-dir/state': its directory does not exist"
check(nc == nil and nmsg:find(said, 1, true) == 1 and ncode == 2,
      "OS error: ", tostring(nmsg), " ", tostring(ncode))
ok, err = pcall(c.set, c, 1.5)
check(not ok and err:find("integer nanoseconds expected, got float", 1, true), "float ns: ", tostring(err))
local r, msg, code = monostamp.parse("not a time")
check(r == nil and type(msg) == "string" and code == monostamp.ESYNTAX, "parse failure")

-- A shared file, close and collection.
local dir = os.tmpname()
os.remove(dir)
local shared = dir .. ".state"
local a = assert(monostamp.clock{ shared = shared })
local b = assert(monostamp.clock{ shared = shared })
local x = a:time_ns()
check(b:time_ns() > x, "shared clocks not one sequence")
a:close()
ok, err = pcall(a.time_ns, a)
check(not ok and err:find("closed clock", 1, true), "closed clock: ", tostring(err))
a, b = nil, nil
collectgarbage("collect")
os.remove(shared)

check(monostamp.sleep_ns(100000) == true, "sleep_ns")
check(monostamp.sleep == nil, "no sleep without a unit")
check(monostamp.set_policy("monotonicForceNanosecondIncrement") == true, "set_policy returns true")
check(c:set_policy("acceptPlatformTime") == true and c:set(0) == true and c:advance(1) == true,
      "methods return true")
check(monostamp.monotonic_ns() > 0, "monotonic_ns")

print(string.format("smoke: %s, monostamp %s: %d checks passed", _VERSION, monostamp._VERSION, passed))
