-- api_spec.lua: the module's surface, the default clock, private clocks
-- (every policy, source, a named zone), ISO 8601 and UUIDv7 ids against the
-- shared vectors, sleeping, take() and clocks' lifetime.  Runs against the
-- module this interpreter loads (helper.lua): the C module under Lua
-- 5.3-5.5, monostamp.ffi under LuaJIT.
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
local monostamp = helper.monostamp
helper.pinned_zones()  -- named zones from tests/vectors/zoneinfo
local int, is_int, text = helper.int, helper.is_int, helper.text
local ZERO = int(0)
local INT64_MIN = int("-9223372036854775808")

-- An offset in seconds: a Lua integer from the C module, a number (with no
-- fraction) from monostamp.ffi, which reads it from an int32_t.
local function assert_offset(offset)
  if helper.ffi then
    assert.equal("number", type(offset))
    assert.equal(math.floor(offset), offset)
  else
    assert.equal("integer", math.type(offset))
  end
end

describe("the module", function()
  it("has its name, version and constants", function()
    assert.equal("monostamp", monostamp._NAME)
    assert.matches("^%d+%.%d+%.%d+$", monostamp._VERSION)
    assert.equal("monotonicForceNanosecondIncrement", monostamp.DEFAULT_POLICY)
    assert.equal(50000, monostamp.DEFAULT_SLEEP_TOLERANCE_NS)
    assert.equal(-1, monostamp.EINVAL)
    assert.equal(-4, monostamp.ELEAD)
    assert.equal(-6, monostamp.EFOREIGN)
    assert.equal(-9, monostamp.ESYNTAX)
    -- OS failures return the OS's own (positive) error number instead.
    assert.is_nil(monostamp.ESYSTEM)
  end)

  it("has the header's version, sleep tolerance and every error code", function()
    local header = io.open(helper.root .. "/csrc/monostamp.h"):read("*a")
    assert.equal(header:match('#define MONOSTAMP_VERSION "([^"]+)"'), monostamp._VERSION)
    assert.equal(tonumber(header:match("#define MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS (%d+)")),
                 monostamp.DEFAULT_SLEEP_TOLERANCE_NS)
    -- Every MONOSTAMP_E* code of the header, with its value.
    for name, value in header:gmatch("MONOSTAMP_(E%u+) = (%-%d+)") do
      assert.equal(tonumber(value), monostamp[name], "monostamp." .. name)
    end
  end)

  it("touches no globals", function()
    assert.is_nil(rawget(_G, "monostamp"))
  end)

  it("returns the same table from a second require", function()
    assert.equal(monostamp, require(helper.module_name))
  end)
end)

describe("the default clock", function()
  local saved
  before_each(function() saved = monostamp.get_policy() end)
  after_each(function() monostamp.set_policy(saved) end)

  it("now() gives integer ns near the system clock and an integer offset", function()
    local ns, offset = monostamp.now()
    assert.is_true(is_int(ns))
    assert_offset(offset)
    local secs = tonumber(helper.idiv(ns, int(1000000000)))
    assert.is_true(math.abs(secs - os.time()) <= 2,
                   "now() = " .. text(ns) .. " is far from os.time() = " .. os.time())
    assert.is_true(offset > -86400 and offset < 86400, "offset " .. offset)
    assert.is_true(ns > int("1700000000000000000"))
  end)

  it("now() and time_ns() are one strictly increasing sequence", function()
    local last = monostamp.time_ns()
    for i = 1, 20000 do
      local ns
      if i % 2 == 0 then ns = monostamp.now() else ns = monostamp.time_ns() end
      if not (ns > last) then error("stamp " .. i .. ": " .. text(ns) .. " not above " .. text(last)) end
      last = ns
    end
  end)

  it("now_us() and time_us() give whole µs, distinct and interleaved with time_ns()", function()
    local ns, offset = monostamp.now_us()
    assert.is_true(is_int(ns))
    assert_offset(offset)
    assert.equal(ZERO, ns % 1000)
    local last = ns
    for i = 1, 20000 do
      local t
      if i % 3 == 0 then t = monostamp.time_ns()
      elseif i % 3 == 1 then t = monostamp.time_us(); assert.equal(ZERO, t % 1000)
      else t = monostamp.now_us(); assert.equal(ZERO, t % 1000) end
      if not (t > last) then error("stamp " .. i .. ": " .. text(t) .. " not above " .. text(last)) end
      last = t
    end
  end)

  it("hands out strictly increasing stamps, ns and µs in one sequence", function()
    local last = monostamp.time_ns()
    for i = 1, 20000 do
      local t = (i % 3 == 0) and monostamp.time_us() or monostamp.time_ns()
      if t <= last then error("stamp " .. text(t) .. " after " .. text(last)) end
      if i % 3 == 0 then assert.equal(ZERO, t % 1000) end
      last = t
    end
    local ns = monostamp.now_us()
    assert.is_true(ns > last and ns % 1000 == ZERO)
  end)

  it("starts with the default policy and switches by name", function()
    assert.equal("monotonicForceNanosecondIncrement", monostamp.get_policy())
    for _, name in ipairs{ "acceptPlatformTime", "monotonicAllowDuplicates",
                           "monotonicForceMicrosecondIncrement",
                           "monotonicForceNanosecondIncrement" } do
      assert.same({ true }, { monostamp.set_policy(name) })
      assert.equal(name, monostamp.get_policy())
    end
  end)

  it("gets and sets the policy by its Squeak name", function()
    assert.equal(monostamp.DEFAULT_POLICY, monostamp.get_policy())
    assert.is_true(monostamp.set_policy("monotonicAllowDuplicates"))
    assert.equal("monotonicAllowDuplicates", monostamp.get_policy())
    assert.is_true(monostamp.set_policy(monostamp.DEFAULT_POLICY))
    assert.equal(monostamp.DEFAULT_POLICY, monostamp.get_policy())
  end)

  it("under monotonicForceMicrosecondIncrement hands out whole, distinct microseconds", function()
    monostamp.set_policy("monotonicForceMicrosecondIncrement")
    local last = monostamp.time_ns()
    for _ = 1, 5000 do
      local ns = monostamp.time_ns()
      assert.equal(ZERO, ns % 1000)
      if not (ns > last) then error(text(ns) .. " not above " .. text(last)) end
      last = ns
    end
  end)

  it("under monotonicAllowDuplicates never goes backwards", function()
    monostamp.set_policy("monotonicAllowDuplicates")
    local last = monostamp.time_ns()
    for _ = 1, 5000 do
      local ns = monostamp.time_ns()
      if not (ns >= last) then error(text(ns) .. " below " .. text(last)) end
      last = ns
    end
  end)
end)

describe("clock_info", function()
  it("describes realtime", function()
    local info = monostamp.clock_info("realtime")
    assert.equal("realtime", info.name)
    assert.matches("CLOCK_REALTIME", info.implementation)
    assert.is_true(is_int(info.resolution_ns))
    assert.is_true(info.resolution_ns >= int(1))
    assert.is_true(info.adjustable)
    assert.is_false(info.monotonic)
  end)

  it("describes realtime_coarse and manual", function()
    local coarse = monostamp.clock_info("realtime_coarse")
    assert.equal("realtime_coarse", coarse.name)
    assert.is_true(coarse.resolution_ns >= monostamp.clock_info("realtime").resolution_ns)
    local manual = monostamp.clock_info("manual")
    assert.equal("manual", manual.name)
    assert.equal(int(1), manual.resolution_ns)
  end)
end)

describe("private clocks", function()
  -- tests/vectors/policies.tsv, exactly (the stamps pass 2^53): each case
  -- on a fresh manual clock started at its first reading, the source set
  -- to each reading before each stamp.
  it("follow the shared vectors", function()
    local function integers(list)
      local out = {}
      for v in list:gmatch("[^,]+") do out[#out + 1] = int(v) end
      return out
    end
    local cases = 0
    for _, row in ipairs(helper.vectors("policies.tsv")) do
      local readings, expected = integers(row[2]), integers(row[3])
      local c = monostamp.clock { source = "manual", policy = row[1], zone = "UTC",
                                  start_ns = readings[1] }
      for i, r in ipairs(readings) do
        assert.is_true(c:set(r))
        local ns = c:time_ns()
        assert(ns == expected[i], string.format("policies.tsv:%d: %s, %s: stamp %d is %s, not %s",
                                                row.line, row[1], row[4], i, text(ns),
                                                text(expected[i])))
      end
      c:close()
      cases = cases + 1
    end
    assert(cases > 20, "policies.tsv: " .. cases .. " cases")
  end)

  it("say what they were made with", function()
    local c = monostamp.clock { source = "manual", zone = "Europe/Berlin", max_lead_ns = 1000,
                                on_lead = "error", policy = "monotonicAllowDuplicates" }
    assert.equal("manual", c:source())
    assert.equal("Europe/Berlin", c:zone())
    assert.equal(int(1000), c:max_lead_ns())
    assert.equal("error", c:on_lead())
    assert.equal("monotonicAllowDuplicates", c:policy())
    assert.is_false(c:is_shared())
    assert.matches("^monostamp%.Clock %(manual, monotonicAllowDuplicates, zone 'Europe/Berlin', "
                   .. "max_lead_ns 1000 error%): 0x%x+$", tostring(c))
    assert.is_true(c:set_policy("acceptPlatformTime"))
    assert.equal("acceptPlatformTime", c:policy())
    -- A policy's constant's name too, as the core names it.
    assert.is_true(c:set_policy("MONOTONIC_FORCE_MICROSECOND_INCREMENT"))
    assert.equal("monotonicForceMicrosecondIncrement", c:policy())
    assert.equal("monotonicAllowDuplicates",
                 monostamp.clock{ policy = "MONOTONIC_ALLOW_DUPLICATES" }:policy())
  end)

  it("give a named zone's offset at each instant, across a DST change", function()
    local c = monostamp.clock { source = "manual", zone = "Europe/Berlin",
                                start_ns = int("1774745999000000000") }  -- 2026-03-29T00:59:59Z
    local ns, offset = c:now()
    assert.equal(3600, offset)
    assert.equal("2026-03-29T01:59:59+01:00", monostamp.isoformat(ns, offset, 0))
    c:advance(1000000000)
    ns, offset = c:now()
    assert.equal(7200, offset)
    assert.equal("2026-03-29T03:00:00+02:00", monostamp.isoformat(ns, offset, 0))
  end)

  it("step back on a manual clock, and the counters see it", function()
    local c = monostamp.clock { source = "manual", start_ns = 10000 }
    c:time_ns()
    c:advance(-3000)
    assert.equal(int(10001), c:time_ns())
    local st = c:stats()
    assert.equal(2, st.readings)
    assert.equal(1, st.backward_steps)
    assert.equal(int(3000), st.largest_backward_ns)
    assert.equal(1, st.forced_increments)
  end)

  it("refuse a manual reading past int64, naming the amount", function()
    local c = monostamp.clock { source = "manual", start_ns = int("9223372036854775000") }
    helper.raises("bad argument #1 to 'advance' (ns=1000 would move the reading past the int64 "
                  .. "nanosecond range (years 1677..2262) -- give a smaller step)",
                  function() c:advance(1000) end)
    assert.is_true(c:advance(807))
    assert.equal(int("9223372036854775807"), c:time_ns())
  end)

  it("read the coarse and the precise wall clock", function()
    for _, source in ipairs { "realtime", "realtime_coarse" } do
      local c = monostamp.clock { source = source }
      local a, b = c:time_ns(), c:time_ns()
      assert.is_true(b > a, source)
      local info = monostamp.clock_info(source)
      assert.equal(source, info.name)
      assert.is_true(is_int(info.resolution_ns) and info.resolution_ns > ZERO)
      assert.equal("boolean", type(info.adjustable))
      c:close()
    end
  end)

  it("fail with ELEAD under the lead bound's error action", function()
    local c = monostamp.clock { source = "manual", start_ns = 0, max_lead_ns = 2, on_lead = "error" }
    assert.equal(int(0), c:time_ns())
    assert.equal(int(1), c:time_ns())
    assert.equal(int(2), c:time_ns())
    local ns, msg, code = c:time_ns()
    assert.is_nil(ns)
    assert.equal(monostamp.ELEAD, code)
    assert.matches("^time_ns: ", msg)
  end)

  it("reserve blocks with take(n)", function()
    local c = monostamp.clock { source = "manual", start_ns = 100 }
    local first, n, step = c:take(10)
    assert.equal(int(100), first)
    assert.equal(10, n)
    assert.equal(1, step)
    assert.equal(int(110), c:time_ns())
    c:set_policy("monotonicAllowDuplicates")
    local none, msg, code = c:take(2)
    assert.is_nil(none)
    assert.equal(monostamp.EPOLICY, code, msg)
  end)

  it("refuse take(2^53) on a default clock, and move nothing", function()
    -- Unbounded, this moved the clock (and a shared file's every joiner)
    -- 104 days ahead.
    local c = monostamp.clock {}
    local before = c:time_ns()
    -- 2^53 is a float in Lua 5.3+, which the C module refuses for a count;
    -- LuaJIT has one number type, and monostamp.ffi takes it.
    local none, msg, code = c:take(helper.ffi and 2^53 or int(2^53))
    assert.is_nil(none)
    assert.equal(monostamp.ELEAD, code, msg)
    local after = c:time_ns()
    assert.is_true(after > before)
    assert.is_true(after <= monostamp.clock { source = "realtime" }:time_ns())
  end)
end)

describe("UUIDv7 ids", function()
  it("are canonical text that gives back the stamp, increasing", function()
    local c = monostamp.clock { source = "manual", start_ns = int("1733000000000000000") }
    local a, b = c:uuid7(), c:uuid7()
    assert.matches("^%x%x%x%x%x%x%x%x%-%x%x%x%x%-7%x%x%x%-[89ab]%x%x%x%-%x+$", a)
    assert.equal(36, #a)
    assert.is_true(b > a)
    assert.equal(int("1733000000000000000"), monostamp.uuid7_ns(a))
    assert.equal(int("1733000000000000001"), monostamp.uuid7_ns(b))
    local d = monostamp.uuid7()
    assert.is_true(monostamp.uuid7_ns(d) > int("1733000000000000000"))
  end)

  it("read the shared vectors' ids back to their stamps", function()
    for _, row in ipairs(helper.vectors("uuid7.tsv")) do
      assert.equal(int(row[1]), monostamp.uuid7_ns(row[4]), "uuid7.tsv line " .. row.line)
    end
  end)
end)

describe("isoformat and parse", function()
  it("match tests/vectors/iso8601.tsv both ways", function()
    for _, row in ipairs(helper.vectors("iso8601.tsv")) do
      local ns, offset, digits = int(row[1]), tonumber(row[3]), tonumber(row[4])
      local where = "iso8601.tsv line " .. row.line
      assert.equal(row[6], monostamp.isoformat(ns, offset, digits, row[5] == "1"), where)
      local back, off = monostamp.parse(row[6])
      local unit = int(1)
      for _ = 1, 9 - digits do unit = unit * 10 end
      local r = ns % unit   -- int64_t % truncates, as C does: floor it, as the vectors do
      if r < ZERO then r = r + unit end
      assert.equal(ns - r, back, where)
      assert.equal(offset, off, where)
    end
  end)

  it("parse tests/vectors/iso8601_parse.tsv", function()
    for _, row in ipairs(helper.vectors("iso8601_parse.tsv")) do
      local ns, off = monostamp.parse(row[1])
      assert.equal(int(row[2]), ns, "line " .. row.line)
      assert.equal(tonumber(row[3]), off, "line " .. row.line)
    end
  end)

  it("refuse tests/vectors/iso8601_bad.tsv with the position and reason", function()
    for _, row in ipairs(helper.vectors("iso8601_bad.tsv")) do
      local ns, msg, code = monostamp.parse(row[1])
      local where = "iso8601_bad.tsv line " .. row.line
      assert.is_nil(ns, where)
      assert.equal(monostamp[row[3]], code, where)
      assert.truthy(msg:find("at character " .. (tonumber(row[2]) + 1) .. ": ", 1, true), where .. ": " .. msg)
      assert.truthy(msg:find(row[4], 1, true), where .. ": " .. msg)
    end
  end)
end)

describe("monotonic_ns, sleep_ns and sleep_until_ns", function()
  it("monotonic_ns is an integer that never goes back", function()
    local a = monostamp.monotonic_ns()
    local b = monostamp.monotonic_ns()
    assert.is_true(is_int(a))
    assert.is_true(b >= a)
  end)

  it("the unit is in the name: sleep_ns takes ns, and there is no bare sleep", function()
    -- Python's monostamp.sleep(1) sleeps a second; a Lua sleep(1) that
    -- slept a nanosecond would surprise, so there is none.
    assert.is_nil(monostamp.sleep)
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_ns(1000000))  -- 1 ms
    local slept = monostamp.monotonic_ns() - t0
    assert.is_true(slept >= int(1000000), "slept only " .. text(slept) .. " ns")
    assert.is_true(slept < int(500000000), "1000000 ns took " .. text(slept) .. " ns: not nanoseconds?")
  end)

  it("sleep_ns waits at least the duration, with the default tolerance", function()
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_ns(2000000))
    local slept = monostamp.monotonic_ns() - t0
    assert.is_true(slept >= int(2000000), "slept only " .. text(slept) .. " ns")
  end)

  it("sleep_ns takes an explicit tolerance and zero", function()
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_ns(500000, 1000000))
    assert.is_true(monostamp.monotonic_ns() - t0 >= int(500000))
    assert.is_true(monostamp.sleep_ns(0))
  end)

  it("sleep_until_ns waits for a monotonic_ns() deadline; a past one returns at once", function()
    local deadline = monostamp.monotonic_ns() + 2000000
    assert.is_true(monostamp.sleep_until_ns(deadline))
    assert.is_true(monostamp.monotonic_ns() >= deadline)
    assert.is_true(monostamp.sleep_until_ns(monostamp.monotonic_ns() + 100000, 0))
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_until_ns(0))
    assert.is_true(monostamp.sleep_until_ns(INT64_MIN))
    assert.is_true(monostamp.monotonic_ns() - t0 < int(100000000))
  end)

  it("sleep_until_ns reaches the deadline, and returns at once for a past one", function()
    local deadline = monostamp.monotonic_ns() + 1000000
    assert.is_true(monostamp.sleep_until_ns(deadline, 0))
    assert.is_true(monostamp.monotonic_ns() >= deadline)
    assert.is_true(monostamp.sleep_until_ns(0))
  end)

  it("many short sleeps never end early, at every tolerance", function()
    local early = {}
    for _, tolerance in ipairs{ 0, 1000, monostamp.DEFAULT_SLEEP_TOLERANCE_NS } do
      for _ = 1, 20 do
        for _, length in ipairs{ 0, 1, 1000, 20000, 100000 } do
          local t0 = monostamp.monotonic_ns()
          assert.is_true(monostamp.sleep_ns(length, tolerance))
          local slept = monostamp.monotonic_ns() - t0
          if slept < int(length) then
            early[#early + 1] = string.format("%d ns (tolerance %d) ended after %s", length,
                                              tolerance, text(slept))
          end
        end
      end
    end
    assert.same({}, early)
  end)
end)

describe("zone_changed", function()
  it("can be called at any time and returns true, as every call made for its effect", function()
    assert.same({ true }, { monostamp.zone_changed() })
    assert.is_true(is_int((monostamp.now())))
  end)
end)

describe("clocks' lifetime", function()
  it("close() is idempotent and later calls raise", function()
    local c = monostamp.clock()
    assert.is_true(c:close())
    assert.is_true(c:close())
    -- The C module's userdata adds its address, as an open clock's does.
    assert.matches("^monostamp%.Clock %(closed%)" .. (helper.ffi and "$" or ": 0x%x+$"), tostring(c))
    helper.raises("attempt to use a closed clock", c.now, c)
  end)

  it("the collector frees clocks nobody closed (no growth over 20,000)", function()
    if (os.getenv("LD_PRELOAD") or ""):find("libasan", 1, true) then
      -- make test-lua-asan: ASan holds freed memory in quarantine, so the
      -- resident size grows with nothing leaked; it checks the frees itself.
      pending("under ASan, whose quarantine keeps freed memory resident")
      return
    end
    local function rss_kb()
      local f = io.open("/proc/self/statm")
      if not f then return nil end
      -- statm's second field, resident pages: the first is the virtual
      -- size, which an allocator's new arena grows with nothing leaked.
      local _, pages = f:read("*n", "*n")
      f:close()
      return pages * 4
    end
    -- Garbage collected every 1,000 clocks, so what the collector has not
    -- yet freed stays small whatever its pace (Lua 5.3 frees a finalized
    -- userdata a cycle after its __gc, and sets that pace by the size of
    -- the whole suite's heap): only a leak grows the heap by the 20,000.
    local function make(n)
      for i = 1, n do
        monostamp.clock { source = "manual" }
        if i % 1000 == 0 then collectgarbage() end
      end
      collectgarbage()
      collectgarbage()
    end
    make(2000)
    local before = rss_kb()
    make(20000)
    local after = rss_kb()
    if before then  -- 20,000 leaked clocks would be > 10 MB
      assert.is_true(after - before < 4096, "RSS grew by " .. (after - before) .. " kB")
    end
  end)
end)
