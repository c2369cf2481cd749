-- clock_spec.lua: every policy on a manual clock, the counters, the lead bound.
-- Runs against the module this interpreter loads (helper.lua): the C
-- module under Lua 5.3-5.5, monostamp.ffi under LuaJIT.
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
local monostamp = helper.monostamp
local int = helper.int
helper.pinned_zones()  -- named zones from tests/vectors/zoneinfo

local function manual(policy, start_ns, extra)
  local options = { source = "manual", policy = policy, start_ns = start_ns, zone = "UTC" }
  for k, v in pairs(extra or {}) do options[k] = v end
  return assert(monostamp.clock(options))
end

-- Takes one stamp per reading in `readings` and returns the stamps.
local function run(c, readings)
  local out = {}
  for i, r in ipairs(readings) do
    c:set(r)
    out[i] = c:time_ns()
  end
  return out
end

describe("a manual clock", function()
  it("reports what it was made with", function()
    local c = manual("monotonicAllowDuplicates", 5)
    assert.equal("manual", c:source())
    assert.equal("monotonicAllowDuplicates", c:policy())
    assert.equal("UTC", c:zone())
    assert.is_false(c:is_shared())
    assert.equal(1000000000, c:max_lead_ns())  -- the default bound: 1 s
    assert.equal("wait", c:on_lead())
    assert.equal(5, c:time_ns())
  end)

  it("reports its lead bound from the core", function()
    local c = manual("monotonicForceNanosecondIncrement", 0, { max_lead_ns = 1500, on_lead = "error" })
    assert.equal(1500, c:max_lead_ns())
    assert.equal("error", c:on_lead())
    assert.matches(", max_lead_ns 1500 error%)", tostring(c))
  end)

  it("setters and other calls made for their effect all return true", function()
    local c = manual("acceptPlatformTime", 0)
    assert.same({ true }, { c:set(10) })
    assert.same({ true }, { c:advance(1) })
    assert.same({ true }, { c:set_policy("monotonicAllowDuplicates") })
    assert.same({ true }, { c:close() })
    assert.same({ true }, { c:close() })
  end)

  it("takes a policy by its constant's name too, as the core names it", function()
    local c = assert(monostamp.clock{ policy = "MONOTONIC_ALLOW_DUPLICATES" })
    assert.equal("monotonicAllowDuplicates", c:policy())
    assert.is_true(c:set_policy("ACCEPT_PLATFORM_TIME"))
    assert.equal("acceptPlatformTime", c:policy())
    helper.raises("policy='accept_platform_time' must be one of", c.set_policy, c,
                  "accept_platform_time")
  end)

  it("defaults to the nanosecond policy, a 0 start and the local zone", function()
    local c = assert(monostamp.clock{ source = "manual" })
    assert.equal("monotonicForceNanosecondIncrement", c:policy())
    assert.equal("", c:zone())
    assert.equal(0, c:time_ns())
    assert.equal(1, c:time_ns())
  end)

  it("set and advance move the reading, backwards too", function()
    local c = manual("acceptPlatformTime", 1000)
    assert.equal(1000, c:time_ns())
    assert.same({ true }, { c:advance(500) })
    assert.equal(1500, c:time_ns())
    c:advance(-700)
    assert.equal(800, c:time_ns())
    assert.same({ true }, { c:set(-5) })
    assert.equal(-5, c:time_ns())
  end)

  it("time_us()/now_us() under the ns policy: whole µs, distinct, one sequence with ns", function()
    local c = manual("monotonicForceNanosecondIncrement", 5000500)
    assert.equal(5000000, c:time_us())  -- the reading floored
    assert.equal(5001000, c:time_us())  -- frozen: the next whole µs
    assert.equal(5001001, c:time_ns())
    assert.same({ 5002000, 0 }, { c:now_us() })
    assert.equal(5002001, c:time_ns())
    assert.equal("monotonicForceNanosecondIncrement", c:policy())
    -- The offset is the zone's, as now() gives it.
    local berlin = manual("monotonicForceNanosecondIncrement", int("1782864000000000999"),
                          { zone = "Europe/Berlin" })
    assert.same({ int("1782864000000000000"), 7200 }, { berlin:now_us() })
    assert.same({ int("1782864000000001000"), 7200 }, { berlin:now_us() })
  end)

  it("time_us() under the other policies floors their stamp: no more than they promise", function()
    local c = manual("acceptPlatformTime", 7999)
    assert.same({ 7000, 7000 }, { c:time_us(), c:time_us() })
    c:set(-1)
    assert.equal(-1000, c:time_us())  -- floored, also before 1970
    c = manual("monotonicAllowDuplicates", 9500)
    assert.equal(9500, c:time_ns())
    assert.equal(9000, c:time_us())
    c:set(2000)
    assert.equal(9000, c:time_us())
    c = manual("monotonicForceMicrosecondIncrement", 1500)
    assert.same({ 1000, 2000, 3000 }, { c:time_us(), c:time_ns(), c:time_us() })
  end)

  it("now() gives the zone's offset with the same sequence as time_ns()", function()
    local c = manual("monotonicForceNanosecondIncrement", 10)
    local ns, offset = c:now()
    assert.same({ 10, 0 }, { ns, offset })
    assert.equal(11, c:time_ns())
    assert.same({ 12, 0 }, { c:now() })
  end)
end)

describe("policies on a manual clock", function()
  -- tests/vectors/policies.tsv: each case on a fresh manual clock started at
  -- its first reading, the source set to each reading before each stamp.
  it("follow the shared vectors", function()
    local function integers(list)
      local out = {}
      for v in list:gmatch("[^,]+") do out[#out + 1] = int(v) end
      return out
    end
    local rows, path = helper.vectors("policies.tsv")
    local seen = {}
    for _, row in ipairs(rows) do
      local policy, readings, expected = row[1], integers(row[2]), integers(row[3])
      assert.same(expected, run(manual(policy, readings[1]), readings),
                  string.format("%s:%d: %s, %s", path, row.line, policy, row[4]))
      seen[policy] = (seen[policy] or 0) + 1
    end
    for _, policy in ipairs{ "acceptPlatformTime", "monotonicAllowDuplicates",
                             "monotonicForceMicrosecondIncrement",
                             "monotonicForceNanosecondIncrement" } do
      assert(seen[policy] and seen[policy] > 3, policy .. ": too few cases in " .. path)
    end
  end)

  it("a policy change takes effect at the next stamp, with the same last value", function()
    local c = manual("monotonicForceNanosecondIncrement", 100)
    assert.equal(100, c:time_ns())
    assert.equal(101, c:time_ns())
    assert.same({ true }, { c:set_policy("monotonicAllowDuplicates") })
    assert.equal("monotonicAllowDuplicates", c:policy())
    assert.equal(101, c:time_ns())
    c:set_policy("acceptPlatformTime")
    assert.equal(100, c:time_ns())
    c:set_policy("monotonicForceMicrosecondIncrement")
    assert.equal(1000, c:time_ns())
  end)

  it("every policy on many readings keeps its promise", function()
    local readings = {}
    local seed = 12345
    for i = 1, 3000 do  -- a wandering source with steps back and repeats
      seed = (seed * 1103515245 + 12345) % 2147483648
      readings[i] = (readings[i - 1] or 1000000) + (seed % 3000) - 1000
    end
    for _, policy in ipairs{ "monotonicAllowDuplicates", "monotonicForceMicrosecondIncrement",
                             "monotonicForceNanosecondIncrement" } do
      local stamps = run(manual(policy, 0), readings)
      for i = 2, #stamps do
        if policy == "monotonicAllowDuplicates" then
          assert(stamps[i] >= stamps[i - 1], policy .. " went back at " .. i)
          assert(stamps[i] >= readings[i], policy .. " below its reading at " .. i)
        else
          assert(stamps[i] > stamps[i - 1], policy .. " repeated at " .. i)
        end
        if policy == "monotonicForceMicrosecondIncrement" then
          assert.equal(0, stamps[i] % 1000)
        end
      end
    end
  end)
end)

describe("stats", function()
  it("counts readings, duplicates, backward steps and forced increments", function()
    local c = manual("monotonicForceNanosecondIncrement", 1000)
    assert.same({ 1000, 1001, 1002 }, run(c, { 1000, 1000, 500 }))
    local st = c:stats()
    assert.same({
      readings = 3, duplicates = 2, backward_steps = 1, largest_backward_ns = 500,
      forced_increments = 2, lead_ns = 502, max_lead_ns = 502, lead_waits = 0,
      lead_errors = 0,
    }, st)
    -- Integers all: Lua integers from the C module; from monostamp.ffi, the
    -- ns as int64_t and the counts as whole numbers.
    for k, v in pairs(st) do
      if helper.ffi then
        assert.is_true(helper.is_int(v) or (type(v) == "number" and v == math.floor(v)), k)
      else
        assert.equal("integer", math.type(v), k)
      end
    end
    c:set(5000)
    c:time_ns()
    assert.equal(0, c:stats().lead_ns)
  end)
end)

describe("the lead bound", function()
  it("on a manual clock fails with nil, message, ELEAD and leaves the state", function()
    local c = manual("monotonicForceNanosecondIncrement", 100, { max_lead_ns = 2 })
    assert.same({ 100, 101, 102 }, { c:time_ns(), c:time_ns(), c:time_ns() })
    local ns, msg, code = c:time_ns()
    assert.is_nil(ns)
    assert.matches("max_lead_ns", msg)
    assert.equal(monostamp.ELEAD, code)
    local lead = ": the next stamp would lead the manual source by more than max_lead_ns=2 -- "
                 .. "advance it, or make the clock with a larger max_lead_ns"
    assert.equal("time_ns" .. lead, msg)
    local a, b, d = c:now()
    assert.same({ nil, "now" .. lead, monostamp.ELEAD }, { a, b, d })
    assert.equal(2, c:stats().lead_errors)
    c:advance(1)
    assert.equal(103, c:time_ns())
  end)

  it("with on_lead = 'error' fails on a realtime_coarse clock", function()
    local c = assert(monostamp.clock{ source = "realtime_coarse", max_lead_ns = 1000,
                                      on_lead = "error" })
    local ok, msg, code
    for _ = 1, 100000 do
      ok, msg, code = c:time_ns()
      if not ok then break end
    end
    assert.is_nil(ok, "1e5 coarse stamps never led by 1 us")
    assert.equal(monostamp.ELEAD, code)
    assert.is_string(msg)
    assert.is_true(c:stats().lead_errors >= 1)
  end)

  it("with on_lead = 'wait' waits for the source and stays within the bound", function()
    local c = assert(monostamp.clock{ source = "realtime_coarse", max_lead_ns = 1000,
                                      on_lead = "wait" })
    local last = c:time_ns()
    for _ = 1, 3000 do
      local ns = assert(c:time_ns())
      assert(ns > last)
      last = ns
    end
    local st = c:stats()
    assert.is_true(st.lead_waits >= 1, "no waits")
    assert.is_true(st.max_lead_ns <= 1000, "lead " .. helper.text(st.max_lead_ns))
  end)
end)

describe("a realtime clock", function()
  it("is strictly increasing and near the default clock", function()
    local c = assert(monostamp.clock())
    assert.equal("realtime", c:source())
    local last = c:time_ns()
    for _ = 1, 10000 do
      local ns = c:time_ns()
      assert(ns > last)
      last = ns
    end
    assert.is_true(math.abs(tonumber(last - monostamp.time_ns())) < 1000000000)
  end)

  it("set and advance are refused", function()
    local c = assert(monostamp.clock{ source = "realtime" })
    assert.error_matches(function() c:set(0) end,
      "set needs a clock with source 'manual', this one's is 'realtime'")
    assert.error_matches(function() c:advance(1) end, "advance needs a clock with source 'manual'")
  end)
end)
