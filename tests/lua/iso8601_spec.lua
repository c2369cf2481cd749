-- iso8601_spec.lua: isoformat and parse, by hand, as round trips and
-- against the shared vectors.  Runs against the module this interpreter
-- loads (helper.lua): the C module under Lua 5.3-5.5, monostamp.ffi under
-- LuaJIT.
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
local monostamp = helper.monostamp
helper.pinned_zones()  -- named zones from tests/vectors/zoneinfo
local utc_ns, text_of = helper.utc_ns, helper.text

-- 2026-12-02T14:11:20.123456789Z, written out: parse and isoformat are what
-- these specs test, so neither may make their expected values.
local DEC2 = helper.int("1796220680123456789")

-- A 64-bit LCG that wraps, and its state >> 2 (0 .. 2^62) as the module's
-- integer: Lua 5.3+'s integers wrap; under LuaJIT, uint64_t cdata do.
local lcg
if helper.ffi then
  local ffi, bit = require "ffi", require "bit"
  local A = ffi.cast("uint64_t", helper.int("6364136223846793005"))
  local C = ffi.cast("uint64_t", helper.int("1442695040888963407"))
  lcg = function(seed)
    seed = ffi.cast("uint64_t", seed) * A + C
    return seed, ffi.cast("int64_t", bit.rshift(seed, 2))
  end
else
  lcg = load([[return function(seed)
    seed = seed * 6364136223846793005 + 1442695040888963407
    return seed, seed >> 2
  end]])()
end

describe("isoformat", function()
  local ns = DEC2

  it("writes the local time at the offset, nine digits by default", function()
    assert.equal("2026-12-02T15:11:20.123456789+01:00", monostamp.isoformat(ns, 3600))
    assert.equal("2026-12-02T09:11:20.123456789-05:00", monostamp.isoformat(ns, -18000))
    assert.equal("2026-12-02T19:56:20.123456789+05:45", monostamp.isoformat(ns, 20700))
  end)

  it("truncates to the digits asked for", function()
    assert.equal("2026-12-02T15:11:20+01:00", monostamp.isoformat(ns, 3600, 0))
    assert.equal("2026-12-02T15:11:20.123+01:00", monostamp.isoformat(ns, 3600, 3))
    assert.equal("2026-12-02T15:11:20.123456+01:00", monostamp.isoformat(ns, 3600, 6))
  end)

  it("writes +00:00, or Z when asked", function()
    assert.equal("1970-01-01T00:00:00.000000000+00:00", monostamp.isoformat(0, 0))
    assert.equal("1970-01-01T00:00:00Z", monostamp.isoformat(0, 0, 0, true))
    assert.equal("1970-01-01T01:00:00+01:00", monostamp.isoformat(0, 3600, 0, true))
  end)

  it("handles instants before 1970", function()
    assert.equal("1969-12-31T23:59:59.999999999+00:00", monostamp.isoformat(-1, 0))
    assert.equal("1969-12-31T23:59:59+00:00", monostamp.isoformat(-1, 0, 0))
  end)

  it("formats what now() returns", function()
    local s = monostamp.isoformat(monostamp.now())
    assert.matches("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d%d%d%d%d%d%d%d%d[+-]%d%d:%d%d$", s)
  end)
end)

describe("parse", function()
  it("reads back an instant and its offset exactly", function()
    local ns, offset = monostamp.parse("2026-12-02T15:11:20.123456789+01:00")
    assert.equal(DEC2, ns)
    assert.equal(3600, offset)
    assert.is_true(helper.is_int(ns))
    if not helper.ffi then assert.equal("integer", math.type(ns)) end
  end)

  it("takes Z, +hhmm, fewer digits, 't' and ' '", function()
    assert.same({ 0, 0 }, { monostamp.parse("1970-01-01T00:00:00Z") })
    assert.same({ 0, 3600 }, { monostamp.parse("1970-01-01T01:00:00+0100") })
    assert.same({ 500000000, -1800 }, { monostamp.parse("1969-12-31t23:30:00.5-00:30") })
    assert.same({ 0, 0 }, { monostamp.parse("1970-01-01 00:00:00+00:00") })
  end)

  it("fails with nil, a message with the position, and ESYNTAX", function()
    local ns, msg, code = monostamp.parse("2026-12-02T15-11:20Z")
    assert.is_nil(ns)
    assert.equal(monostamp.ESYNTAX, code)
    assert.equal("parse: '2026-12-02T15-11:20Z' at character 14: expected ':' between hour and "
                 .. "minute -- give RFC 3339 text as isoformat writes it, such as "
                 .. "'2026-12-02T15:11:20.123456789+01:00'", msg)
    for _, bad in ipairs{ "", "2026", "2026-12-02", "2026-12-02T15:11:20",
                          "2026-12-02T15:11:20+01:00 ", "2026-12-02T15:11:20.1234567891Z",
                          "x2026-12-02T15:11:20Z", "2026-12-02T15:11:20\0Z" } do
      local r, m, c = monostamp.parse(bad)
      assert(r == nil and type(m) == "string" and (c == monostamp.ESYNTAX or c == monostamp.ERANGE),
             string.format("%q parsed: %s %s %s", bad, tostring(r), tostring(m), tostring(c)))
    end
  end)

  it("refuses out-of-range fields", function()
    for _, bad in ipairs{ "2026-13-02T15:11:20Z", "2026-02-30T15:11:20Z",
                          "2026-12-02T24:11:20Z", "2026-12-02T15:60:20Z" } do
      local r, m, c = monostamp.parse(bad)
      assert(r == nil and type(m) == "string" and (c == monostamp.ESYNTAX or c == monostamp.ERANGE),
             string.format("%q parsed: %s %s %s", bad, tostring(r), tostring(m), tostring(c)))
    end
  end)
end)

describe("round trips", function()
  it("parse(isoformat(ns, offset)) == ns, offset over many instants and offsets", function()
    local offsets = { 0, 3600, -18000, 20700, 45900, -34200, 50400, -43200, 60 }
    local seed = 42
    for i = 1, 5000 do
      local ns
      seed, ns = lcg(seed)  -- ns: 0 .. 2^62, up to the year 2116
      if i % 2 == 0 then ns = -(ns % -utc_ns(1678, 1, 1)) end  -- back to 1678, int64's first year
      local offset = offsets[i % #offsets + 1]
      local text = monostamp.isoformat(ns, offset)
      local back, back_offset = monostamp.parse(text)
      assert(back == ns and back_offset == offset,
             string.format("%s at %d -> %s -> %s %s", text_of(ns), offset, text, tostring(back),
                           tostring(back_offset)))
    end
  end)

  it("every stamp of a clock survives a round trip", function()
    local c = assert(monostamp.clock{ zone = "Europe/Berlin" })
    for _ = 1, 1000 do
      local ns, offset = c:now()
      assert.same({ ns, offset }, { monostamp.parse(monostamp.isoformat(ns, offset)) })
    end
  end)
end)

-- The shared vectors; each file's header names its columns.
describe("the shared ISO 8601 vectors", function()
  local int = helper.int

  it("iso8601.tsv: the zone's offset, isoformat, and parse back truncated", function()
    local rows, path = helper.vectors("iso8601.tsv")
    assert.is_true(#rows > 0, path .. " has no rows")
    for _, row in ipairs(rows) do
      local where = path .. ":" .. row.line
      local ns, zone, offset, digits, use_z, text =
        int(row[1]), row[2], tonumber(row[3]), tonumber(row[4]), row[5] == "1", row[6]
      assert(ns and zone and offset and digits and text, where .. ": cannot read this row")
      local c = assert(monostamp.clock{ source = "manual", zone = zone, start_ns = ns,
                                        policy = "acceptPlatformTime" })
      assert.same({ ns, offset }, { c:now() }, where)
      assert.equal(text, monostamp.isoformat(ns, offset, digits, use_z), where)
      local unit = int(1)
      for _ = 1, 9 - digits do unit = unit * 10 end
      assert.same({ ns - helper.floor_mod(ns, unit), offset }, { monostamp.parse(text) }, where)
    end
  end)

  it("iso8601_parse.tsv: every accepted form", function()
    local rows, path = helper.vectors("iso8601_parse.tsv")
    assert.is_true(#rows > 0, path .. " has no rows")
    for _, row in ipairs(rows) do
      local where = path .. ":" .. row.line
      assert.same({ int(row[2]), tonumber(row[3]) }, { monostamp.parse(row[1]) }, where)
    end
  end)

  it("iso8601_bad.tsv: nil, a message with the 1-based character and the reason, the code", function()
    local rows, path = helper.vectors("iso8601_bad.tsv")
    assert.is_true(#rows > 0, path .. " has no rows")
    for _, row in ipairs(rows) do
      local where = path .. ":" .. row.line .. ": " .. row[1]
      local ns, msg, code = monostamp.parse(row[1])
      assert(ns == nil, where .. ": parsed")
      assert.equal(monostamp[row[3]], code, where)
      local want = " at character " .. (tonumber(row[2]) + 1) .. ": "  -- ASCII: a byte each
      assert(msg:find(want, 1, true), where .. ": message '" .. msg .. "' lacks '" .. want .. "'")
      assert(msg:find(row[4], 1, true), where .. ": message '" .. msg .. "' lacks '" .. row[4] .. "'")
    end
  end)
end)
