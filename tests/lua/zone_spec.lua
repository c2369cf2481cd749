-- zone_spec.lua: offsets through named zones on a manual clock (DST changes
-- without waiting for one), the local zone from TZ, and the shared vectors.
-- Runs against the module this interpreter loads (helper.lua): the C
-- module under Lua 5.3-5.5, monostamp.ffi under LuaJIT.
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
local monostamp = helper.monostamp
helper.pinned_zones()  -- named zones from tests/vectors/zoneinfo
local utc_ns = helper.utc_ns
local S = 1000000000

local function offset_at(zone, ns)
  local c = assert(monostamp.clock{ source = "manual", zone = zone, start_ns = ns,
                                    policy = "acceptPlatformTime" })
  local got_ns, offset = c:now()
  assert.equal(ns, got_ns)
  return offset
end

describe("a named zone", function()
  it("follows Europe/Berlin into and out of summer time", function()
    local c = assert(monostamp.clock{ source = "manual", zone = "Europe/Berlin",
                                      start_ns = utc_ns(2026, 3, 29, 0, 59, 59) })
    assert.equal("Europe/Berlin", c:zone())
    assert.same({ utc_ns(2026, 3, 29, 0, 59, 59), 3600 }, { c:now() })
    c:set(utc_ns(2026, 3, 29, 1, 0, 0) - 1)
    assert.same({ utc_ns(2026, 3, 29, 1, 0, 0) - 1, 3600 }, { c:now() })
    assert.same({ utc_ns(2026, 3, 29, 1, 0, 0), 7200 }, { c:now() })
    c:set(utc_ns(2026, 10, 25, 0, 59, 59))
    assert.same({ utc_ns(2026, 10, 25, 0, 59, 59), 7200 }, { c:now() })
    c:set(utc_ns(2026, 10, 25, 1, 0, 0))
    assert.same({ utc_ns(2026, 10, 25, 1, 0, 0), 3600 }, { c:now() })
  end)

  it("gives the offset at the stamp handed out, not at the reading", function()
    -- The reading stays 1 ns before the change; the forced increment crosses it.
    local change = utc_ns(2026, 3, 29, 1, 0, 0)
    local c = assert(monostamp.clock{ source = "manual", zone = "Europe/Berlin",
                                      start_ns = change - 1 })
    assert.same({ change - 1, 3600 }, { c:now() })
    assert.same({ change, 7200 }, { c:now() })
  end)

  it("knows America/New_York, Lord Howe's half hour and Kathmandu's 5:45", function()
    assert.equal(-18000, offset_at("America/New_York", utc_ns(2026, 3, 8, 7) - 1))
    assert.equal(-14400, offset_at("America/New_York", utc_ns(2026, 3, 8, 7)))
    assert.equal(-14400, offset_at("America/New_York", utc_ns(2026, 11, 1, 6) - 1))
    assert.equal(-18000, offset_at("America/New_York", utc_ns(2026, 11, 1, 6)))
    assert.equal(39600, offset_at("Australia/Lord_Howe", utc_ns(2026, 4, 4, 15) - 1))
    assert.equal(37800, offset_at("Australia/Lord_Howe", utc_ns(2026, 4, 4, 15)))
    assert.equal(20700, offset_at("Asia/Kathmandu", utc_ns(2026, 6, 1)))
  end)

  it("takes a POSIX TZ string", function()
    local rule = "CET-1CEST,M3.5.0,M10.5.0/3"
    assert.equal(3600, offset_at(rule, utc_ns(2026, 3, 29, 1) - 1))
    assert.equal(7200, offset_at(rule, utc_ns(2026, 3, 29, 1)))
  end)

  it("UTC is 0 everywhere", function()
    assert.equal(0, offset_at("UTC", utc_ns(2026, 7, 1)))
    assert.equal(0, offset_at("UTC", -S))
  end)

  it("an unknown zone is a runtime failure: nil, message, ENOZONE", function()
    local c, msg, code = monostamp.clock{ zone = "Mars/Olympus_Mons" }
    assert.is_nil(c)
    assert.equal("zone='Mars/Olympus_Mons' is not a zone this machine knows -- give 'UTC', an "
                 .. "IANA name such as 'Europe/Berlin' (from TZDIR, else the system's database) "
                 .. "or a POSIX TZ string such as 'CET-1CEST,M3.5.0,M10.5.0/3'", msg)
    assert.equal(monostamp.ENOZONE, code)
  end)

  it("a slip in a zone name gets the core's 'did you mean', as in Python", function()
    local c, msg, code = monostamp.clock{ zone = "Europe/Berln" }
    assert.is_nil(c)
    assert.equal("zone='Europe/Berln' is not a zone this machine knows -- "
                 .. "did you mean 'Europe/Berlin'?", msg)
    assert.equal(monostamp.ENOZONE, code)
    -- 'utc' is UTC, named as such
    assert.equal("UTC", monostamp.clock{ zone = "utc" }:zone())
  end)
end)

describe("the local zone", function()
  it("follows TZ in a process started with it", function()
    local script = [[
      local m = require "]] .. helper.module_name .. [["
      local c = assert(m.clock{ source = "manual", policy = "acceptPlatformTime",
                                start_ns = ]] .. helper.literal(utc_ns(2026, 7, 1)) .. [[ })
      local _, summer = c:now()
      c:set(]] .. helper.literal(utc_ns(2026, 1, 1)) .. [[)
      local _, winter = c:now()
      local _, default = m.now()
      io.write(summer, " ", winter, " ", c:zone() == "" and "local" or c:zone())
    ]]
    local out, ok = helper.sh("TZ=America/New_York " .. helper.interpreter .. " -e " .. helper.q(script))
    assert.is_true(ok, out)
    assert.equal("-14400 -18000 local", out)
  end)

  -- glibc reads TZ=AAA-24 as +24:00, which the engine
  -- refuses; the localtime_r fallback used to pass the +-86400 on.  Now such
  -- a zone is UTC, so stamps carry 0 and isoformat writes them.
  for _, tz in ipairs{ "AAA-24", "AAA+24", "AAA24" } do
    it("TZ=" .. tz .. ", an offset of a whole day to libc, is UTC", function()
      local script = [[
        local m = require "]] .. helper.module_name .. [["
        local ns, offset = m.now()
        local c = assert(m.clock())
        local _, clock_offset = c:now()
        io.write(offset, " ", clock_offset, " ", assert(m.isoformat(ns, offset)):sub(-6))
      ]]
      local out, ok = helper.sh("TZ=" .. tz .. " " .. helper.interpreter .. " -e " .. helper.q(script))
      assert.is_true(ok, out)
      assert.equal("0 0 +00:00", out)
    end)
  end
end)

-- tests/vectors/zone_offsets.tsv: utc_ns, zone, offset_s (see its header).
describe("the shared offset vectors", function()
  it("agree with the core through a manual clock's now()", function()
    local rows, path = helper.vectors("zone_offsets.tsv")
    assert.is_true(#rows > 0, path .. " has no rows")
    for _, row in ipairs(rows) do
      local ns, zone, offset = helper.int(row[1]), row[2], tonumber(row[3])
      assert(ns and zone and offset, path .. ":" .. row.line .. ": cannot read this row")
      local got = offset_at(zone, ns)
      assert(got == offset, string.format("%s:%d: %s at %s: expected %d, got %d",
                                          path, row.line, zone, helper.text(ns), offset, got))
    end
  end)
end)
