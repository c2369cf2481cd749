-- errors_spec.lua: the two kinds of error.  Bad arguments raise, naming the
-- argument and the bad value; runtime failures return nil, message, code.
-- The C module's (Lua 5.3-5.5): monostamp.ffi is held to these same texts
-- call by call by ffi_parity_spec.lua, which lists the few differences
-- LuaJIT forces (a missing argument reads "nil", 1e9 is an integer).
local monostamp = require "monostamp"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

local raises = helper.raises

describe("bad arguments raise", function()
  it("unknown names, listing the names the core knows", function()
    -- The rule comes from the core (monostamp_options_rule), which lists
    -- the names it knows.
    local policies = "must be one of 'acceptPlatformTime', 'monotonicAllowDuplicates', "
                     .. "'monotonicForceMicrosecondIncrement', 'monotonicForceNanosecondIncrement'"
    raises("bad argument #1 to 'set_policy' (policy='monotonicForceFemtosecond' " .. policies .. ")",
           function() monostamp.set_policy("monotonicForceFemtosecond") end)
    raises("bad argument #1 to 'clock' (policy='nope' " .. policies .. ")",
           function() monostamp.clock{ policy = "nope" } end)
    raises("bad argument #1 to 'clock' (source='sundial' must be one of 'realtime', "
           .. "'realtime_coarse', 'manual')", function() monostamp.clock{ source = "sundial" } end)
    raises("bad argument #1 to 'clock' (on_lead='panic' must be one of 'wait', 'error')",
           function() monostamp.clock{ on_lead = "panic" } end)
    raises("bad argument #1 to 'clock_info' (source='sundial' must be one of 'realtime', "
           .. "'realtime_coarse', 'manual')", function() monostamp.clock_info("sundial") end)
    raises("bad argument #1 to 'clock' (unknown option 'polcy' -- did you mean 'policy'?)",
           function() monostamp.clock{ polcy = "acceptPlatformTime" } end)
    local c = assert(monostamp.clock{ source = "manual" })
    raises("bad argument #1 to 'set_policy' (policy='x' " .. policies .. ")",
           function() c:set_policy("x") end)
  end)

  it("strings with an embedded NUL are refused, never cut short", function()
    local nul = " has a NUL character at byte %d -- give text without NUL characters)"
    raises("bad argument #1 to 'clock' (shared" .. nul:format(7),
           function() monostamp.clock{ shared = "/x/nul\0byte" } end)
    raises("bad argument #1 to 'clock' (zone" .. nul:format(14),
           function() monostamp.clock{ zone = "Europe/Berlin\0junk" } end)
    raises("bad argument #1 to 'clock' (policy" .. nul:format(19),
           function() monostamp.clock{ policy = "acceptPlatformTime\0x" } end)
    raises("bad argument #1 to 'set_policy' (policy" .. nul:format(19),
           function() monostamp.set_policy("acceptPlatformTime\0x") end)
    raises("bad argument #1 to 'clock_info' (source" .. nul:format(9),
           function() monostamp.clock_info("realtime\0") end)
    raises("bad argument #1 to 'clock' (trust_group: boolean expected, got number)",
           function() monostamp.clock{ trust_group = 1 } end)
  end)

  it("wrong types", function()
    raises("bad argument #1 to 'set_policy' (string expected, got no value)",
           function() monostamp.set_policy() end)
    raises("bad argument #1 to 'clock' (table expected, got string)",
           function() monostamp.clock("manual") end)
    raises("bad argument #1 to 'clock' (zone: string expected, got number)",
           function() monostamp.clock{ zone = 1 } end)
    raises("bad argument #1 to 'clock' (policy: string expected, got boolean)",
           function() monostamp.clock{ policy = true } end)
    raises("bad argument #1 to 'clock' (option names are strings, got number)",
           function() monostamp.clock{ "manual" } end)
    raises("bad argument #1 to 'parse' (string expected, got nil)",
           function() monostamp.parse(nil) end)
  end)

  it("a float, or anything else but an integer, where nanoseconds are needed", function()
    local c = assert(monostamp.clock{ source = "manual" })
    raises("bad argument #1 to 'set' (integer nanoseconds expected, got float 1.5)",
           function() c:set(1.5) end)
    raises("bad argument #1 to 'advance' (integer nanoseconds expected, got float 1000000000.0)",
           function() c:advance(1e9) end)
    raises("bad argument #1 to 'set' (integer expected, got string)", function() c:set("5") end)
    raises("bad argument #1 to 'set' (integer expected, got no value)", function() c:set() end)
    raises("bad argument #1 to 'isoformat' (integer nanoseconds expected, got float 0.5)",
           function() monostamp.isoformat(0.5, 0) end)
    raises("bad argument #1 to 'sleep_ns' (integer nanoseconds expected, got float 1000.0)",
           function() monostamp.sleep_ns(1000.0) end)
    raises("bad argument #1 to 'sleep_until_ns' (integer nanoseconds expected, got float 0.0)",
           function() monostamp.sleep_until_ns(0.0) end)
    raises("bad argument #1 to 'clock' (max_lead_ns: integer nanoseconds expected, got float 1.5)",
           function() monostamp.clock{ max_lead_ns = 1.5 } end)
    raises("bad argument #1 to 'clock' (start_ns: integer expected, got string)",
           function() monostamp.clock{ source = "manual", start_ns = "0" } end)
  end)

  it("values outside their domain: the core names the one bad field, the error its value", function()
    raises("bad argument #1 to 'clock' (max_lead_ns=-1 must be >= 0)",
           function() monostamp.clock{ max_lead_ns = -1 } end)
    raises("bad argument #1 to 'clock' (start_ns=0 is only for the manual source)",
           function() monostamp.clock{ start_ns = 0 } end)
    raises("bad argument #1 to 'clock' (start_ns=5 is only for the manual source)",
           function() monostamp.clock{ source = "realtime_coarse", start_ns = 5 } end)
    raises("bad argument #1 to 'clock' (zone='"
           .. ("x"):rep(40) .. "...' (300 bytes) must be a zone name of at most 255 bytes)",
           function() monostamp.clock{ zone = ("x"):rep(300) } end)
    raises("bad argument #1 to 'clock' (shared='' must be a non-empty path)",
           function() monostamp.clock{ shared = "" } end)
    -- One field at a time, whichever the core checks first; a good table
    -- after a bad one builds.
    local err = raises("bad argument #1 to 'clock' (", function()
      monostamp.clock{ policy = "nope", max_lead_ns = -1 }
    end)
    assert.is_nil(err:find("must be.*must be"), err)
    assert(monostamp.clock{ policy = "acceptPlatformTime", max_lead_ns = 1 })
    raises("bad argument #3 to 'isoformat' (digits=10 is out of range -- give 0..9, the digits "
           .. "of the fraction of a second)",
           function() monostamp.isoformat(0, 0, 10) end)
    raises("bad argument #2 to 'isoformat' (offset=4294967296 is out of range -- give seconds "
           .. "east of UTC within +-86399)", function() monostamp.isoformat(0, 1 << 32) end)
    raises("bad argument #2 to 'isoformat' (offset=86400 is out of range -- give seconds east of "
           .. "UTC within +-86399)", function() monostamp.isoformat(0, 86400) end)
    -- int64 ns span the years 1677..2262, so the core's ERANGE for a year
    -- outside 1..9999 cannot be reached from here.
    assert.equal("2262-04-11T23:47:16.854775807+00:00", monostamp.isoformat(math.maxinteger, 0))
    assert.equal("1677-09-21T00:12:43.145224192+00:00", monostamp.isoformat(math.mininteger, 0))
    raises("bad argument #1 to 'sleep_ns' (ns must be >= 0, not -1)",
           function() monostamp.sleep_ns(-1) end)
    raises("bad argument #2 to 'sleep_ns' (tolerance_ns must be >= 0, not -1)",
           function() monostamp.sleep_ns(0, -1) end)
    raises("bad argument #2 to 'sleep_until_ns' (tolerance_ns must be >= 0, not -7)",
           function() monostamp.sleep_until_ns(0, -7) end)
    raises("bad argument #1 to 'sleep_ns' (a sleep of " .. math.maxinteger
           .. " ns ends past the monotonic clock's range)",
           function() monostamp.sleep_ns(math.maxinteger) end)
    local c = assert(monostamp.clock{ source = "manual", start_ns = math.maxinteger })
    raises("bad argument #1 to 'advance' (ns=1 would move the reading past the int64 "
           .. "nanosecond range (years 1677..2262) -- give a smaller step)",
           function() c:advance(1) end)
  end)

  it("set and advance on a clock whose source is not manual", function()
    local c = assert(monostamp.clock{ source = "realtime_coarse" })
    raises("calling 'set' on bad self (set needs a clock with source 'manual', this one's is "
           .. "'realtime_coarse' -- make the clock with source='manual')",
           function() c:set(0) end)
    raises("set needs a clock with source 'manual'",
           function() local set = c.set; set(c, 0) end)
  end)

  it("a method on something that is not a clock names the type", function()
    local c = assert(monostamp.clock())
    raises("monostamp.Clock expected, got table", function() c.now({}) end)
    raises("monostamp.Clock expected, got no value", function() c.time_ns() end)
  end)
end)

describe("runtime failures return nil, 'context: reason', code", function()
  after_each(helper.cleanup)

  it("a shared file that is not monostamp's", function()
    local path = helper.tmpdir() .. "/foreign"
    local f = assert(io.open(path, "w"))
    f:write(("not a state file\n"):rep(16))
    f:close()
    local c, msg, code = monostamp.clock{ shared = path }
    assert.is_nil(c)
    assert.equal("shared='" .. path .. "': not a monostamp state file, or truncated", msg)
    assert.equal(monostamp.EFOREIGN, code)
  end)

  it("a shared file another user could write, or a link to one", function()
    local path = helper.tmpdir() .. "/world"
    assert(monostamp.clock{ shared = path })  -- a good file of ours
    assert(os.execute("chmod 666 '" .. path .. "'"))
    local c, msg, code = monostamp.clock{ shared = path }
    assert.is_nil(c)
    assert.equal("shared='" .. path .. "': state file another user could write (a symbolic "
                 .. "link, not owned by you, or writable by group or others)", msg)
    assert.equal(monostamp.EUNSAFE, code)
    -- trust_group widens the rule to the group, never to others.
    assert.same({ nil, monostamp.EUNSAFE },
                { select(1, monostamp.clock{ shared = path, trust_group = true }),
                  select(3, monostamp.clock{ shared = path, trust_group = true }) })
    assert(os.execute("chmod 660 '" .. path .. "'"))
    assert.is_nil((monostamp.clock{ shared = path }))
    assert(monostamp.clock{ shared = path, trust_group = true })
    local link = helper.tmpdir() .. "/link"
    assert(os.execute("chmod 600 '" .. path .. "' && ln -s '" .. path .. "' '" .. link .. "'"))
    assert.equal(monostamp.EUNSAFE, select(3, monostamp.clock{ shared = link }))
  end)

  it("a truncated shared file", function()
    local path = helper.tmpdir() .. "/short"
    assert(io.open(path, "w")):close()
    local c, msg, code = monostamp.clock{ shared = path }
    assert.same({ nil, "shared='" .. path .. "': not a monostamp state file, or truncated",
                  monostamp.EFOREIGN },
                { c, msg, code })
  end)

  it("a shared file the system refuses: the OS's error number is the code", function()
    local path = helper.tmpdir() .. "/no/such/dir/state"
    local c, msg, code, extra = monostamp.clock{ shared = path }
    assert.is_nil(c)
    -- The core's sentence, as every binding shows it; the code as io.open's.
    assert.equal("shared='" .. path .. "': its directory does not exist -- create the "
                 .. "directory first; the state file itself is created if absent", msg)
    assert.equal(2, code)  -- ENOENT, as io.open(path) returns it
    assert.is_nil(extra)
    assert.equal(select(3, io.open(path)), code)
    -- A path through a regular file: ENOTDIR (20 on Linux), not ENOENT.
    local file = helper.tmpdir() .. "/plain"
    assert(io.open(file, "w")):close()
    local d, msg2, code2 = monostamp.clock{ shared = file .. "/state" }
    assert.same({ nil, "shared='" .. file .. "/state': Not a directory", 20 }, { d, msg2, code2 })
  end)

  it("the default clock on a MONOSTAMP_SHARED file in no directory: errno, in every call", function()
    local path = helper.tmpdir() .. "/no/such/dir/state"
    local script = [[
      local m = require "monostamp"
      for _, f in ipairs{ m.now, m.time_ns, m.now_us, m.time_us } do
        local a, b, c = f()
        io.write(tostring(a), "|", b, "|", c, "\n")
      end
      local a, b, c = m.set_policy("acceptPlatformTime")
      io.write(tostring(a), "|", b, "|", c, "\n")
    ]]
    local out, ok = helper.sh("MONOSTAMP_SHARED=" .. helper.q(path) .. " " .. helper.lua
                              .. " -e " .. helper.q(script))
    assert.is_true(ok, out)
    assert.equal(("nil|MONOSTAMP_SHARED='" .. path .. "': its directory does not exist -- create "
                  .. "the directory first; the state file itself is created if absent|2\n"):rep(5),
                 out)
  end)

  it("the default clock on a foreign MONOSTAMP_SHARED file, in every call", function()
    local path = helper.tmpdir() .. "/foreign"
    local f = assert(io.open(path, "w"))
    f:write(("x"):rep(4096))
    f:close()
    local script = [[
      local m = require "monostamp"
      local a, b, c = m.now()
      local d, e, f = m.time_ns()
      local g, h, i = m.set_policy("acceptPlatformTime")
      io.write(tostring(a), "|", b, "|", c, "\n", tostring(d), "|", e, "|", f, "\n",
               tostring(g), "|", h, "|", i, "\n")
    ]]
    local out, ok = helper.sh("MONOSTAMP_SHARED=" .. helper.q(path) .. " " .. helper.lua
                              .. " -e " .. helper.q(script))
    assert.is_true(ok, out)
    local line = "nil|MONOSTAMP_SHARED='" .. path .. "': not a monostamp state file, or truncated|"
                 .. monostamp.EFOREIGN .. "\n"
    assert.equal(line:rep(3), out)
  end)

  it("the lead bound's error action (see clock_spec) and an unknown zone (see zone_spec)", function()
    local c = assert(monostamp.clock{ source = "manual", max_lead_ns = 1, on_lead = "error" })
    c:time_ns(); c:time_ns()
    local ns, msg, code = c:time_ns()
    local lead = ": the next stamp would lead the manual source by more than max_lead_ns=1 -- "
                 .. "advance it, or make the clock with a larger max_lead_ns"
    assert.same({ nil, "time_ns" .. lead, monostamp.ELEAD }, { ns, msg, code })
    assert.same({ nil, "now" .. lead, monostamp.ELEAD }, { c:now() })
    assert.same({ nil, "time_us" .. lead, monostamp.ELEAD }, { c:time_us() })
    assert.same({ nil, "now_us" .. lead, monostamp.ELEAD }, { c:now_us() })
  end)

  it("a stamp past the end of int64", function()
    local c = assert(monostamp.clock{ source = "manual", start_ns = math.maxinteger })
    assert.equal(math.maxinteger, c:time_ns())
    local ns, msg, code = c:time_ns()
    local past = ": the next stamp would pass the largest int64 nanosecond "
                 .. "(2262-04-11T23:47:16.854775807Z)"
    assert.same({ nil, "time_ns" .. past, monostamp.ERANGE }, { ns, msg, code })
    assert.same({ nil, "time_us" .. past, monostamp.ERANGE }, { c:time_us() })
  end)

  it("names a function the call cannot name by its public name, in every process", function()
    -- Lua seeds its string hashes afresh in each process, which used to
    -- pick monostamp.clock or monostamp.core.clock by chance: 12 processes.
    local script = 'local m = require "monostamp"; '
      .. 'print(select(2, pcall(m.clock, { policy = "nope" })))'
    for _ = 1, 12 do
      local out, ok = helper.sh(helper.lua .. " -e " .. helper.q(script))
      assert.is_true(ok)
      assert.matches("bad argument #1 to 'monostamp.clock'", out, 1, true)
    end
    -- monostamp.core still gives the same functions.
    assert.equal(monostamp.clock, require("monostamp.core").clock)
  end)
end)
