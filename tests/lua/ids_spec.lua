-- ids_spec.lua: UUIDv7 ids (monostamp.uuid7, clock:uuid7, uuid7_ns) and
-- blocks of stamps (monostamp.take, clock:take).  Processes of both
-- languages on one state file are tested from Python (tests/python/test_ids.py).
-- Runs against the module this interpreter loads (helper.lua): the C
-- module under Lua 5.3-5.5, monostamp.ffi under LuaJIT.
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
local monostamp = helper.monostamp
local int, idiv = helper.int, helper.idiv
local INT64_MAX = int("9223372036854775807")

local CANONICAL = "^%x%x%x%x%x%x%x%x%-%x%x%x%x%-7%x%x%x%-[89ab]%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x$"

local function manual(start_ns, extra)
  local options = { source = "manual", start_ns = start_ns }
  for k, v in pairs(extra or {}) do options[k] = v end
  return assert(monostamp.clock(options))
end

-- The 12 bits after the version nibble: RFC 9562's method-3 field.
local function method3_field(text)
  return tonumber(text:sub(16, 18), 16)
end

describe("uuid7", function()
  it("gives canonical lowercase text of version 7 and the RFC variant", function()
    local u = monostamp.uuid7()
    assert.is_string(u)
    assert.equal(36, #u)
    assert.matches(CANONICAL, u)
    assert.equal(u:lower(), u)
  end)

  it("carries the stamp exactly: ms, the method-3 field, and uuid7_ns back", function()
    local start = int("1764777600123456789")
    local c = manual(start)
    local u = c:uuid7()
    assert.equal(idiv(start, 1000000), tonumber(u:sub(1, 8) .. u:sub(10, 13), 16))
    assert.equal(idiv((start % 1000000) * 4096, 1000000), method3_field(u))
    assert.equal(start, monostamp.uuid7_ns(u))
    assert.equal(start, monostamp.uuid7_ns(u:upper()))
    assert.equal(start + 1, monostamp.uuid7_ns(c:uuid7()))
  end)

  it("from the default clock lies between its neighbouring stamps", function()
    local before = monostamp.time_ns()
    local ns = monostamp.uuid7_ns(monostamp.uuid7())
    assert.is_true(before < ns and ns < monostamp.time_ns())
  end)

  it("increases on a manual clock stepped back, as the stamps do", function()
    -- Bounded (1 s) or not, stepped back an hour it goes on from its last stamp.
    local c = manual(int("1764777600000000000"), {})
    local a = c:uuid7()
    assert.is_true(c:advance(-3600 * 1000000000))
    local b, d = c:uuid7(), c:uuid7()
    assert.is_true(a < b and b < d)
    assert.equal(int("1764777600000000002"), monostamp.uuid7_ns(d))
  end)

  it("of 20,000 from one clock are distinct and increasing", function()
    local c = assert(monostamp.clock{})
    local seen, previous = {}, ""
    for _ = 1, 20000 do
      local u = c:uuid7()
      assert(u > previous and not seen[u], u)
      seen[u], previous = true, u
    end
  end)

  it("has none before 1970", function()
    local c = manual(-1, { policy = "acceptPlatformTime" })
    local ok, err, code = c:uuid7()
    assert.is_nil(ok)
    assert.matches("^uuid7: ", err)
    assert.equal(monostamp.ERANGE, code)
  end)

  it("matches the shared vectors", function()
    local rows = helper.vectors("uuid7.tsv")
    assert.is_true(#rows >= 20)
    for _, row in ipairs(rows) do
      local ns, m3, text = int(row[1]), tonumber(row[3]), row[4]
      assert.matches(CANONICAL, text)
      assert.equal(m3, method3_field(text))
      assert.equal(ns, monostamp.uuid7_ns(text))
    end
  end)

  it("uuid7_ns refuses the bad vectors, naming the text", function()
    local rows = helper.vectors("uuid7_bad.tsv")
    assert.is_true(#rows >= 15)
    for _, row in ipairs(rows) do
      local err = helper.raises("uuid7_ns' (", monostamp.uuid7_ns, row[1])
      assert(err:find("'" .. row[1] .. "'", 1, true), err)
    end
    helper.raises("'5' is not a UUID", monostamp.uuid7_ns, 5)
    -- monostamp.ffi cannot tell a missing argument from nil (docs/lua.md).
    helper.raises("string expected, got " .. (helper.ffi and "nil" or "no value"), monostamp.uuid7_ns)
  end)
end)

describe("take", function()
  it("reserves a block by the policy's step and moves the clock past it", function()
    local c = manual(1000000)
    local first, n, step = c:take(5)
    assert.same({ 1000000, 5, 1 }, { first, n, step })
    assert.equal(1000005, c:time_ns())
    assert.is_true(c:set_policy("monotonicForceMicrosecondIncrement"))
    first, n, step = c:take(3)
    assert.same({ 1001000, 3, 1000 }, { first, n, step })
    assert.equal(1004000, c:time_ns())
    assert.equal(5 + 1 + 3 + 1, c:stats().readings)
  end)

  it("on the default clock hands out a million stamps at once", function()
    local first, n = monostamp.take(1000000)
    assert.equal(1000000, n)
    assert.is_true(monostamp.time_ns() > first + n - 1)
  end)

  it("refuses bad n naming it, and leaves the state", function()
    local c = manual(1000)
    assert.equal(1000, c:time_ns())
    helper.raises("n=0 must be >= 1", c.take, c, 0)
    helper.raises("n=-3 must be >= 1", c.take, c, -3)
    helper.raises("integer nanoseconds expected, got float", c.take, c, 2.5)
    helper.raises("integer expected, got string", c.take, c, "x")
    helper.raises("take' (n=0", monostamp.take, 0)
    assert.equal(1001, c:time_ns())
  end)

  it("refuses take(1 << 62) on a default clock, and moves nothing", function()
    local c = assert(monostamp.clock{})
    local before = c:time_ns()
    local none, why, rc = c:take(int("4611686018427387904"))  -- 1 << 62
    assert.is_nil(none)
    assert.matches("^take: ", why)
    assert.equal(monostamp.ELEAD, rc)
    local after = c:time_ns()
    assert.is_true(after > before)
    assert.is_true(after <= assert(monostamp.clock{}):time_ns())
  end)

  it("refuses a block past int64 or longer than the lead bound", function()
    local c = manual(INT64_MAX - 10)
    helper.raises("n=12 stamps would pass", c.take, c, 12)
    local first = c:take(11)
    assert.equal(INT64_MAX, first + 10)
    local bounded = manual(0, { max_lead_ns = 1000, on_lead = "error" })
    -- Longer than the bound: the lead error, as a stamp past it gets, and
    -- nothing taken.
    local none, why, rc = bounded:take(1002)
    assert.is_nil(none)
    assert.matches("^take: ", why)
    assert.equal(monostamp.ELEAD, rc)
    assert.equal(0, (bounded:take(1001)))
    local ok, err, code = bounded:take(1)
    assert.is_nil(ok)
    assert.matches("^take: ", err)
    assert.equal(monostamp.ELEAD, code)
  end)

  it("fails under the policies that allow equal stamps", function()
    for _, policy in ipairs{ "acceptPlatformTime", "monotonicAllowDuplicates" } do
      local c = manual(10, { policy = policy })
      local ok, err, code = c:take(2)
      assert.is_nil(ok)
      assert.matches(policy, err, 1, true)
      assert.equal(monostamp.EPOLICY, code)
    end
  end)
end)
