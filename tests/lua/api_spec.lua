-- api_spec.lua: the module's surface and the default clock.
local monostamp = require "monostamp"

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

  it("touches no globals", function()
    assert.is_nil(rawget(_G, "monostamp"))
  end)

  it("returns the same table from a second require", function()
    assert.equal(monostamp, require "monostamp")
  end)
end)

describe("the default clock", function()
  local saved
  before_each(function() saved = monostamp.get_policy() end)
  after_each(function() monostamp.set_policy(saved) end)

  it("now() gives integer ns near the system clock and an integer offset", function()
    local ns, offset = monostamp.now()
    assert.equal("integer", math.type(ns))
    assert.equal("integer", math.type(offset))
    assert.is_true(math.abs(ns // 1000000000 - os.time()) <= 2,
                   "now() = " .. ns .. " is far from os.time() = " .. os.time())
    assert.is_true(offset > -86400 and offset < 86400, "offset " .. offset)
  end)

  it("now() and time_ns() are one strictly increasing sequence", function()
    local last = monostamp.time_ns()
    for i = 1, 20000 do
      local ns
      if i % 2 == 0 then ns = monostamp.now() else ns = monostamp.time_ns() end
      assert(ns > last, "stamp " .. i .. ": " .. ns .. " not above " .. last)
      last = ns
    end
  end)

  it("now_us() and time_us() give whole µs, distinct and interleaved with time_ns()", function()
    local ns, offset = monostamp.now_us()
    assert.equal("integer", math.type(ns))
    assert.equal("integer", math.type(offset))
    assert.equal(0, ns % 1000)
    local last = ns
    for i = 1, 20000 do
      local t
      if i % 3 == 0 then t = monostamp.time_ns()
      elseif i % 3 == 1 then t = monostamp.time_us(); assert.equal(0, t % 1000)
      else t = monostamp.now_us(); assert.equal(0, t % 1000) end
      assert(t > last, "stamp " .. i .. ": " .. t .. " not above " .. last)
      last = t
    end
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

  it("under monotonicForceMicrosecondIncrement hands out whole, distinct microseconds", function()
    monostamp.set_policy("monotonicForceMicrosecondIncrement")
    local last = monostamp.time_ns()
    for _ = 1, 5000 do
      local ns = monostamp.time_ns()
      assert.equal(0, ns % 1000)
      assert(ns > last, ns .. " not above " .. last)
      last = ns
    end
  end)

  it("under monotonicAllowDuplicates never goes backwards", function()
    monostamp.set_policy("monotonicAllowDuplicates")
    local last = monostamp.time_ns()
    for _ = 1, 5000 do
      local ns = monostamp.time_ns()
      assert(ns >= last, ns .. " below " .. last)
      last = ns
    end
  end)
end)

describe("clock_info", function()
  it("describes realtime", function()
    local info = monostamp.clock_info("realtime")
    assert.equal("realtime", info.name)
    assert.matches("CLOCK_REALTIME", info.implementation)
    assert.equal("integer", math.type(info.resolution_ns))
    assert.is_true(info.resolution_ns >= 1)
    assert.is_true(info.adjustable)
    assert.is_false(info.monotonic)
  end)

  it("describes realtime_coarse and manual", function()
    local coarse = monostamp.clock_info("realtime_coarse")
    assert.equal("realtime_coarse", coarse.name)
    assert.is_true(coarse.resolution_ns >= monostamp.clock_info("realtime").resolution_ns)
    local manual = monostamp.clock_info("manual")
    assert.equal("manual", manual.name)
    assert.equal(1, manual.resolution_ns)
  end)
end)

describe("monotonic_ns, sleep_ns and sleep_until_ns", function()
  it("monotonic_ns is an integer that never goes back", function()
    local a = monostamp.monotonic_ns()
    local b = monostamp.monotonic_ns()
    assert.equal("integer", math.type(a))
    assert.is_true(b >= a)
  end)

  it("the unit is in the name: sleep_ns takes ns, and there is no bare sleep", function()
    -- Python's monostamp.sleep(1) sleeps a second; a Lua sleep(1) that
    -- slept a nanosecond would surprise, so there is none.
    assert.is_nil(monostamp.sleep)
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_ns(1000000))  -- 1 ms
    local slept = monostamp.monotonic_ns() - t0
    assert.is_true(slept >= 1000000, "slept only " .. slept .. " ns")
    assert.is_true(slept < 500000000, "1000000 ns took " .. slept .. " ns: not nanoseconds?")
  end)

  it("sleep_ns waits at least the duration, with the default tolerance", function()
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_ns(2000000))
    local slept = monostamp.monotonic_ns() - t0
    assert.is_true(slept >= 2000000, "slept only " .. slept .. " ns")
  end)

  it("sleep_ns takes an explicit tolerance and zero", function()
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_ns(500000, 1000000))
    assert.is_true(monostamp.monotonic_ns() - t0 >= 500000)
    assert.is_true(monostamp.sleep_ns(0))
  end)

  it("sleep_until_ns waits for a monotonic_ns() deadline; a past one returns at once", function()
    local deadline = monostamp.monotonic_ns() + 2000000
    assert.is_true(monostamp.sleep_until_ns(deadline))
    assert.is_true(monostamp.monotonic_ns() >= deadline)
    assert.is_true(monostamp.sleep_until_ns(monostamp.monotonic_ns() + 100000, 0))
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_until_ns(0))
    assert.is_true(monostamp.sleep_until_ns(math.mininteger))
    assert.is_true(monostamp.monotonic_ns() - t0 < 100000000)
  end)

  it("many short sleeps never end early, at every tolerance", function()
    local early = {}
    for _, tolerance in ipairs{ 0, 1000, monostamp.DEFAULT_SLEEP_TOLERANCE_NS } do
      for _ = 1, 20 do
        for _, length in ipairs{ 0, 1, 1000, 20000, 100000 } do
          local t0 = monostamp.monotonic_ns()
          assert.is_true(monostamp.sleep_ns(length, tolerance))
          local slept = monostamp.monotonic_ns() - t0
          if slept < length then
            early[#early + 1] = string.format("%d ns (tolerance %d) ended after %d", length,
                                              tolerance, slept)
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
    assert.equal("integer", math.type((monostamp.now())))
  end)
end)
