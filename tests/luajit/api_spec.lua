-- api_spec.lua: monostamp.ffi under LuaJIT: the default clock, private
-- clocks (every policy, source, a named zone), ISO 8601 against the shared
-- vectors, sleeping, UUIDv7 ids and take().
local ffi = require "ffi"
local monostamp = require "monostamp.ffi"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
helper.pinned_zones()  -- named zones from tests/vectors/zoneinfo
local i64, is_i64 = helper.i64, helper.is_i64

describe("monostamp.ffi", function()
  it("loads the library make test-luajit names, and says which", function()
    assert.equal(helper.library, monostamp.library)
    assert.equal("monostamp", monostamp._NAME)
    local header = io.open(helper.root .. "/csrc/monostamp.h"):read("*a")
    assert.equal(header:match('#define MONOSTAMP_VERSION "([^"]+)"'), monostamp._VERSION)
    assert.equal(tonumber(header:match("#define MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS (%d+)")),
                 monostamp.DEFAULT_SLEEP_TOLERANCE_NS)
    -- Every MONOSTAMP_E* code of the header, with its value.
    for name, value in header:gmatch("MONOSTAMP_(E%u+) = (%-%d+)") do
      assert.equal(tonumber(value), monostamp[name], "monostamp." .. name)
    end
  end)
end)

describe("the default clock", function()
  it("gives int64_t ns and a number offset", function()
    local ns, offset = monostamp.now()
    assert.is_true(is_i64(ns))
    assert.equal("number", type(offset))
    assert.is_true(ns > i64("1700000000000000000"))
  end)

  it("hands out strictly increasing stamps, ns and µs in one sequence", function()
    local last = monostamp.time_ns()
    for i = 1, 20000 do
      local t = (i % 3 == 0) and monostamp.time_us() or monostamp.time_ns()
      if t <= last then error("stamp " .. tostring(t) .. " after " .. tostring(last)) end
      if i % 3 == 0 then assert.equal(0LL, t % 1000) end
      last = t
    end
    local ns = monostamp.now_us()
    assert.is_true(ns > last and ns % 1000 == 0LL)
  end)

  it("gets and sets the policy by its Squeak name", function()
    assert.equal(monostamp.DEFAULT_POLICY, monostamp.get_policy())
    assert.is_true(monostamp.set_policy("monotonicAllowDuplicates"))
    assert.equal("monotonicAllowDuplicates", monostamp.get_policy())
    assert.is_true(monostamp.set_policy(monostamp.DEFAULT_POLICY))
    assert.equal(monostamp.DEFAULT_POLICY, monostamp.get_policy())
  end)
end)

describe("private clocks", function()
  -- tests/vectors/policies.tsv, exactly as int64_t (the stamps pass 2^53):
  -- each case on a fresh manual clock started at its first reading, the
  -- source set to each reading before each stamp.
  it("follow the shared vectors", function()
    local function integers(list)
      local out = {}
      for v in list:gmatch("[^,]+") do out[#out + 1] = helper.i64(v) end
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
                                                row.line, row[1], row[4], i, tostring(ns),
                                                tostring(expected[i])))
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
    assert.equal(1000LL, c:max_lead_ns())
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
                                start_ns = i64("1774745999000000000") }  -- 2026-03-29T00:59:59Z
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
    assert.equal(10001LL, c:time_ns())
    local st = c:stats()
    assert.equal(2, st.readings)
    assert.equal(1, st.backward_steps)
    assert.equal(3000LL, st.largest_backward_ns)
    assert.equal(1, st.forced_increments)
  end)

  it("refuse a manual reading past int64, naming the amount", function()
    local c = monostamp.clock { source = "manual", start_ns = 9223372036854775000LL }
    helper.raises("bad argument #1 to 'advance' (ns=1000 would move the reading past the int64 "
                  .. "nanosecond range (years 1677..2262) -- give a smaller step)",
                  function() c:advance(1000) end)
    assert.is_true(c:advance(807))
    assert.equal(9223372036854775807LL, c:time_ns())
  end)

  it("read the coarse and the precise wall clock", function()
    for _, source in ipairs { "realtime", "realtime_coarse" } do
      local c = monostamp.clock { source = source }
      local a, b = c:time_ns(), c:time_ns()
      assert.is_true(b > a, source)
      local info = monostamp.clock_info(source)
      assert.equal(source, info.name)
      assert.is_true(is_i64(info.resolution_ns) and info.resolution_ns > 0LL)
      assert.equal("boolean", type(info.adjustable))
      c:close()
    end
  end)

  it("fail with ELEAD under the lead bound's error action", function()
    local c = monostamp.clock { source = "manual", start_ns = 0, max_lead_ns = 2, on_lead = "error" }
    assert.equal(0LL, c:time_ns())
    assert.equal(1LL, c:time_ns())
    assert.equal(2LL, c:time_ns())
    local ns, msg, code = c:time_ns()
    assert.is_nil(ns)
    assert.equal(monostamp.ELEAD, code)
    assert.matches("^time_ns: ", msg)
  end)

  it("reserve blocks with take(n)", function()
    local c = monostamp.clock { source = "manual", start_ns = 100 }
    local first, n, step = c:take(10)
    assert.equal(100LL, first)
    assert.equal(10, n)
    assert.equal(1, step)
    assert.equal(110LL, c:time_ns())
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
    local none, msg, code = c:take(2^53)
    assert.is_nil(none)
    assert.equal(monostamp.ELEAD, code, msg)
    local after = c:time_ns()
    assert.is_true(after > before)
    assert.is_true(after <= monostamp.clock { source = "realtime" }:time_ns())
  end)
end)

describe("UUIDv7 ids", function()
  it("are canonical text that gives back the stamp, increasing", function()
    local c = monostamp.clock { source = "manual", start_ns = i64("1733000000000000000") }
    local a, b = c:uuid7(), c:uuid7()
    assert.matches("^%x%x%x%x%x%x%x%x%-%x%x%x%x%-7%x%x%x%-[89ab]%x%x%x%-%x+$", a)
    assert.equal(36, #a)
    assert.is_true(b > a)
    assert.equal(i64("1733000000000000000"), monostamp.uuid7_ns(a))
    assert.equal(i64("1733000000000000001"), monostamp.uuid7_ns(b))
    local d = monostamp.uuid7()
    assert.is_true(monostamp.uuid7_ns(d) > i64("1733000000000000000"))
  end)

  it("read the shared vectors' ids back to their stamps", function()
    for _, row in ipairs(helper.vectors("uuid7.tsv")) do
      assert.equal(i64(row[1]), monostamp.uuid7_ns(row[4]), "uuid7.tsv line " .. row.line)
    end
  end)
end)

describe("isoformat and parse", function()
  it("match tests/vectors/iso8601.tsv both ways", function()
    for _, row in ipairs(helper.vectors("iso8601.tsv")) do
      local ns, offset, digits = i64(row[1]), tonumber(row[3]), tonumber(row[4])
      local where = "iso8601.tsv line " .. row.line
      assert.equal(row[6], monostamp.isoformat(ns, offset, digits, row[5] == "1"), where)
      local back, off = monostamp.parse(row[6])
      local unit = 1LL
      for _ = 1, 9 - digits do unit = unit * 10 end
      local r = ns % unit   -- int64_t % truncates, as C does: floor it, as the vectors do
      if r < 0 then r = r + unit end
      assert.equal(ns - r, back, where)
      assert.equal(offset, off, where)
    end
  end)

  it("parse tests/vectors/iso8601_parse.tsv", function()
    for _, row in ipairs(helper.vectors("iso8601_parse.tsv")) do
      local ns, off = monostamp.parse(row[1])
      assert.equal(i64(row[2]), ns, "line " .. row.line)
      assert.equal(tonumber(row[3]), off, "line " .. row.line)
    end
  end)

  it("refuse tests/vectors/iso8601_bad.tsv with the position and reason", function()
    for _, row in ipairs(helper.vectors("iso8601_bad.tsv")) do
      local ns, msg, code = monostamp.parse(row[1])
      local where = "iso8601_bad.tsv line " .. row.line
      assert.is_nil(ns, where)
      assert.equal(monostamp[row[3]], code, where)
      assert.truthy(msg:find("at byte " .. (tonumber(row[2]) + 1) .. ": ", 1, true), where .. ": " .. msg)
      assert.truthy(msg:find(row[4], 1, true), where .. ": " .. msg)
    end
  end)
end)

describe("sleeping", function()
  it("sleep_ns sleeps at least that long on monotonic_ns()", function()
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_ns(2000000))
    assert.is_true(monostamp.monotonic_ns() - t0 >= 2000000LL)
  end)

  it("sleep_until_ns reaches the deadline, and returns at once for a past one", function()
    local deadline = monostamp.monotonic_ns() + 1000000
    assert.is_true(monostamp.sleep_until_ns(deadline, 0))
    assert.is_true(monostamp.monotonic_ns() >= deadline)
    assert.is_true(monostamp.sleep_until_ns(0))
  end)
end)

describe("clocks' lifetime", function()
  it("close() is idempotent and later calls raise", function()
    local c = monostamp.clock()
    assert.is_true(c:close())
    assert.is_true(c:close())
    assert.equal("monostamp.Clock (closed)", tostring(c))
    helper.raises("attempt to use a closed clock", c.now, c)
  end)

  it("the collector frees clocks nobody closed (no growth over 20,000)", function()
    local function rss_kb()
      local f = io.open("/proc/self/statm")
      if not f then return nil end
      local pages = f:read("*n")
      f:close()
      return pages * 4
    end
    for _ = 1, 2000 do monostamp.clock { source = "manual" } end
    collectgarbage()
    collectgarbage()
    local before = rss_kb()
    for _ = 1, 20000 do monostamp.clock { source = "manual" } end
    collectgarbage()
    collectgarbage()
    local after = rss_kb()
    if before then  -- 20,000 leaked clocks would be > 10 MB
      assert.is_true(after - before < 4096, "RSS grew by " .. (after - before) .. " kB")
    end
  end)
end)
