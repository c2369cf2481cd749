-- patch_spec.lua: testing.patch(clock), which makes os.time(), os.date(fmt)
-- and LuaSocket's socket.gettime() draw from a monostamp clock until its
-- restore function is called.  Errors first, then each function's values,
-- restoring, nesting, a clock stepped back, and determinism.  Lua 5.3-5.5
-- only: monostamp.testing is built on the C module (require "monostamp").
local monostamp = require "monostamp"
local testing = require "monostamp.testing"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
helper.pinned_zones()  -- named zones from tests/vectors/zoneinfo

local has_socket, socket = pcall(require, "socket")

-- The originals, taken before any patch.
local original = { time = os.time, date = os.date }
if has_socket then original.gettime = socket.gettime end

local N = 10000
local S = 1000000000

-- Asserts that f raises an error containing `text`, at the caller's line
-- rather than inside the module.
local function raises(text, f, ...)
  local err = helper.raises(text, f, ...)
  assert(not err:find("testing.lua:", 1, true), "error points into the module:\n  " .. err)
  return err
end

-- Marks the test pending when LuaSocket is absent; true when present.
local function need_socket()
  if not has_socket then
    pending("LuaSocket is not installed (Debian: lua-socket)")
  end
  return has_socket
end

describe("testing.patch", function()
  after_each(function()
    local leaked = testing.restore_all()
    assert.equal(0, leaked, "a test left " .. leaked .. " patch(es) active")
    assert.equal(original.time, os.time)
    assert.equal(original.date, os.date)
  end)

  describe("bad arguments", function()
    it("refuse what is not a clock, naming patch, at the caller's line", function()
      raises("bad argument #1 to 'patch' (monostamp.Clock, manual clock or nil expected, got number)",
             testing.patch, 1)
      raises("bad argument #1 to 'patch' (monostamp.Clock, manual clock or nil expected, got table)",
             testing.patch, {})
      raises("got string", testing.patch, "realtime")
      assert.equal(original.time, os.time)
    end)

    it("refuse a closed clock", function()
      local c = assert(monostamp.clock{ source = "manual" })
      c:close()
      raises("bad argument #1 to 'patch' (the clock is closed)", testing.patch, c)
      local mc = testing.manual_clock()
      mc:close()
      raises("(the clock is closed)", testing.patch, mc)
    end)

    it("a stamp the clock refuses raises from the patched function", function()
      local c = assert(monostamp.clock{ source = "manual", max_lead_ns = 1, on_lead = "error" })
      local restore = testing.patch(c)
      finally(restore)
      os.time(); os.time()
      raises("monostamp.testing.patch: os.time(): time_ns: the next stamp would lead the manual "
             .. "source by more than max_lead_ns=1", os.time)
      raises("monostamp.testing.patch: os.date(): now: the next stamp would lead", os.date, "%H")
      raises("monostamp.testing.patch: os.date(): time_ns: the next stamp would lead", os.date,
             "!%H")
    end)
  end)

  describe("os.time()", function()
    it("is whole seconds near real time, never going back, over 10,000 calls", function()
      local restore = testing.patch(testing.strict_clock())
      finally(restore)
      local first = os.time()
      assert.equal("integer", math.type(first))
      assert.is_true(math.abs(first - original.time()) <= 2)
      local last = first
      for i = 1, N do
        local t = os.time()
        assert(t >= last, "call " .. i .. ": " .. t .. " below " .. last)
        last = t
      end
      assert.is_true(last - first <= 2)
    end)

    it("is monotonic, not unique: a frozen manual clock gives one second 10,000 times", function()
      local mc = testing.manual_clock()
      local restore = testing.patch(mc)
      finally(restore)
      for _ = 1, N do
        assert.equal(946684800, os.time())
      end
      -- The stamps behind it were unique all the same.
      assert.equal(testing.EPOCH_2000_NS + N, mc:time_ns())
    end)

    it("with a table argument is the original's", function()
      local restore = testing.patch(testing.manual_clock())
      finally(restore)
      local fields = { year = 2021, month = 3, day = 28, hour = 12 }
      assert.equal(original.time(fields), os.time(fields))
      assert.equal(946684800, os.time(nil))  -- nil is no argument, as for the original
    end)

    it("never goes back on a manual clock stepped back", function()
      local mc = testing.manual_clock{ start = "2021-06-01T12:00:00Z" }
      local restore = testing.patch(mc)
      finally(restore)
      local before = os.time()
      assert.equal(1622548800, before)
      mc:step_back(3600 * S)
      for _ = 1, 1000 do
        assert.equal(before, os.time())
      end
      mc:advance(3600 * S + 2 * S)
      assert.equal(before + 2, os.time())
    end)

    it("follows the clock's policy: acceptPlatformTime goes back with its source", function()
      local mc = testing.manual_clock{ start = 10 * S, policy = "acceptPlatformTime" }
      local restore = testing.patch(mc)
      finally(restore)
      assert.equal(10, os.time())
      mc:step_back(5 * S)
      assert.equal(5, os.time())
    end)
  end)

  describe("os.date(fmt)", function()
    it("'!' formats are the stamp's UTC second", function()
      local mc = testing.manual_clock{ start = "2021-03-28T00:59:59.999999999Z" }
      local restore = testing.patch(mc)
      finally(restore)
      assert.equal("2021-03-28T00:59:59Z", os.date("!%Y-%m-%dT%H:%M:%SZ"))
      -- That drew ...999999999; the next stamp is the next second.
      assert.equal("2021-03-28T01:00:00Z", os.date("!%Y-%m-%dT%H:%M:%SZ"))
      local t = os.date("!*t")
      assert.same({ 2021, 3, 28, 1, 0, 0, false }, { t.year, t.month, t.day, t.hour, t.min,
                                                      t.sec, t.isdst })
    end)

    it("local formats are the stamp's own local time, in the clock's zone", function()
      local mc = testing.manual_clock{ start = "2021-03-28T00:59:59Z", zone = "Europe/Berlin" }
      local restore = testing.patch(mc)
      finally(restore)
      assert.equal("2021-03-28 01:59:59 +0100 +01", os.date("%Y-%m-%d %H:%M:%S %z %Z"))
      mc:advance(S)
      assert.equal("2021-03-28 03:00:00 +0200 +02", os.date("%Y-%m-%d %H:%M:%S %z %Z"))
      -- %% stays a literal percent, so %%z is the text %z.
      assert.equal("%z %Z 100%", os.date("%%z %%Z 100%%"))
      -- No format: %c, as for the original.
      assert.equal("Sun Mar 28 03:00:00 2021", os.date())
      local t = os.date("*t")
      assert.same({ 2021, 3, 28, 3, 0, 0 }, { t.year, t.month, t.day, t.hour, t.min, t.sec })
      assert.is_nil(t.isdst)  -- the core's zones do not say
    end)

    it("writes %Z as tzdata does for zones without an abbreviation", function()
      local cases = {
        { "UTC", "+0000 UTC" },
        { "Asia/Kolkata", "+0530 +0530" },
        { "America/Sao_Paulo", "-0300 -03" },
        { "<-0930>9:30", "-0930 -0930" },
      }
      for _, case in ipairs(cases) do
        local restore = testing.patch(testing.manual_clock{ start = "2022-01-01T00:00:00Z",
                                                            zone = case[1] })
        local got = os.date("%z %Z")
        restore()
        assert.equal(case[2], got, case[1])
      end
    end)

    it("with a time argument is the original's, invalid formats raise as there", function()
      local restore = testing.patch(testing.manual_clock())
      finally(restore)
      assert.equal(original.date("%Y-%m-%d %H:%M", 86400 * 365), os.date("%Y-%m-%d %H:%M", 86400 * 365))
      assert.equal("1970-01-02", os.date("!%Y-%m-%d", 86400))
      assert.equal(original.date(nil, 0), os.date(nil, 0))
      raises("invalid conversion specifier '%Q'", os.date, "%Q")
      raises("invalid conversion specifier '%Q'", os.date, "!%Q")
      raises("bad argument #1 to 'date' (string expected, got table)", os.date, {})
      assert.equal("2000", os.date(2000))  -- a number is a format, as for the original
      raises("field 'day' missing in date table", os.time, { year = 2000, month = 1 })
      -- Errors point at the caller's line, as the original's do.
      local line = debug.getinfo(1, "l").currentline
      local ok, err = pcall(function() return os.date("%Q") .. "" end)
      assert.is_false(ok)
      assert.matches("patch_spec%.lua:" .. (line + 1) .. ": bad argument #1 to 'date'", err)
    end)

    it("never goes back over 10,000 calls, nor on a clock stepped back", function()
      local restore = testing.patch(testing.strict_clock())
      local last = ""
      for i = 1, N do
        local d = os.date("!%Y%m%d%H%M%S")
        assert(d >= last, "call " .. i .. ": " .. d .. " before " .. last)
        last = d
      end
      restore()
      local mc = testing.manual_clock{ start = "2021-06-01T12:00:00Z" }
      restore = testing.patch(mc)
      finally(restore)
      assert.equal("12:00:00", os.date("%H:%M:%S"))
      mc:step_back(3600 * S)
      assert.equal("12:00:00", os.date("%H:%M:%S"))
      assert.equal("12:00:00", os.date("!%H:%M:%S"))
    end)
  end)

  describe("socket.gettime()", function()
    it("gives unique, increasing floats over 10,000 calls", function()
      if not need_socket() then return end
      local restore = testing.patch(testing.strict_clock())
      finally(restore)
      local first = socket.gettime()
      assert.equal("float", math.type(first))
      assert.is_true(math.abs(first - original.gettime()) < 2)
      local seen, last = { [first] = true }, first
      for i = 1, N do
        local t = socket.gettime()
        assert(t > last, string.format("call %d: %.6f not above %.6f", i, t, last))
        assert(not seen[t])
        seen[t], last = true, t
      end
    end)

    it("on the default clock too, and in package.loaded['socket.core']", function()
      if not need_socket() then return end
      local restore = testing.patch()
      finally(restore)
      local core = package.loaded["socket.core"]
      assert.equal(socket.gettime, core.gettime)
      local last = core.gettime()
      for _ = 1, N do
        local t = socket.gettime()
        assert(t > last)
        last = t
      end
    end)

    it("on a frozen manual clock steps by one µs, also when stepped back", function()
      if not need_socket() then return end
      local mc = testing.manual_clock()
      local restore = testing.patch(mc)
      finally(restore)
      assert.equal(946684800.0, socket.gettime())
      assert.equal(946684800.000001, socket.gettime())
      mc:step_back(S)
      assert.equal(946684800.000002, socket.gettime())
      assert.equal(946684800, os.time())
    end)

    it("is left alone when LuaSocket is not loaded at patch time", function()
      if not need_socket() then return end
      local saved = { package.loaded.socket, package.loaded["socket.core"] }
      package.loaded.socket, package.loaded["socket.core"] = nil, nil
      local ok, err = pcall(function()
        local restore = testing.patch(testing.manual_clock())
        local untouched = socket.gettime == original.gettime
        restore()
        assert(untouched, "socket.gettime was patched")
      end)
      package.loaded.socket, package.loaded["socket.core"] = saved[1], saved[2]
      assert(ok, err)
    end)
  end)

  describe("restore", function()
    it("brings back the very functions, and a second call is harmless", function()
      local restore = testing.patch(testing.manual_clock())
      assert.are_not.equal(original.time, os.time)
      assert.equal(os.time, package.loaded.os.time)
      if has_socket then assert.are_not.equal(original.gettime, socket.gettime) end
      assert.same({ true }, { restore() })
      assert.equal(original.time, os.time)
      assert.equal(original.date, os.date)
      assert.equal(original.time, package.loaded.os.time)
      if has_socket then
        assert.equal(original.gettime, socket.gettime)
        assert.equal(original.gettime, package.loaded["socket.core"].gettime)
      end
      assert.same({ true }, { restore() })
      assert.equal(original.time, os.time)
      assert.is_true(math.abs(os.time() - monostamp.time_ns() // S) <= 2)
    end)

    it("does not reach a reference taken before patching", function()
      local time = os.time
      local restore = testing.patch(testing.manual_clock())
      finally(restore)
      assert.equal(original.time, time)
      assert.is_true(time() > 946684800 + 86400)  -- real time, not the clock's 2000
    end)

    it("nests: restoring the inner patch brings back the outer one", function()
      local outer = testing.patch(testing.manual_clock{ start = 1000 * S })
      local outer_time = os.time
      local inner = testing.patch(testing.manual_clock{ start = 2000 * S })
      assert.equal(2000, os.time())
      assert.equal("00:33:20", os.date("!%H:%M:%S"))
      assert.same({ true }, { inner() })
      assert.equal(outer_time, os.time)
      assert.equal(1000, os.time())
      assert.equal("00:16:40", os.date("!%H:%M:%S"))
      assert.same({ true }, { outer() })
      assert.equal(original.time, os.time)
    end)

    it("out of order is an error that says which patch to restore first", function()
      local outer = testing.patch(testing.manual_clock{ start = 1000 * S })
      local inner = testing.patch(testing.manual_clock{ start = 2000 * S })
      local err = raises("monostamp.testing.patch: restore out of order: the patch made at ", outer)
      assert.matches("patch_spec%.lua:%d+ is still active inside the one made at .*patch_spec%.lua:%d+; "
                     .. "restore it first", err)
      assert.equal(2000, os.time())  -- nothing was restored
      inner()
      assert.equal(1000, os.time())
      outer()
      assert.equal(original.time, os.time)
      inner()  -- still harmless
      assert.equal(original.time, os.time)
    end)

    it("restore_all restores every patch, innermost first, and counts them", function()
      testing.patch(testing.manual_clock())
      testing.patch()
      assert.equal(2, testing.restore_all())
      assert.equal(original.time, os.time)
      assert.equal(0, testing.restore_all())
    end)
  end)

  it("is deterministic on a manual clock: two runs give identical values", function()
    local function run()
      local mc = testing.manual_clock{ start = "2021-10-31T00:30:00Z", zone = "Europe/Berlin" }
      local restore = testing.patch(mc)
      local out = {}
      for i = 1, 2000 do
        out[#out + 1] = os.time()
        out[#out + 1] = os.date("%Y-%m-%d %H:%M:%S %z")
        out[#out + 1] = os.date("!%c")
        if has_socket then out[#out + 1] = socket.gettime() end
        mc:advance(i * 1234567)  -- uneven steps across the DST change
      end
      restore()
      return out
    end
    local a, b = run(), run()
    assert.equal(#a, #b)
    assert.same(a, b)
    assert.equal("2021-10-31 02:30:00 +0200", a[2])
    assert.equal("2021-10-31 02:", b[#b - (has_socket and 2 or 1)]:sub(1, 14))
    assert.matches("%+0100$", b[#b - (has_socket and 2 or 1)])
  end)
end)
