-- testing_spec.lua: monostamp.testing, the helpers for busted: the strict
-- clock (alone, and joined to MONOSTAMP_SHARED by a child Lua process) and
-- the manual clock (defaults, set/advance/step_back, marker-like options,
-- bad options).  Lua 5.3-5.5 only: monostamp.testing is built on the C
-- module (require "monostamp").
local monostamp = require "monostamp"
local testing = require "monostamp.testing"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
helper.pinned_zones()  -- named zones from tests/vectors/zoneinfo

-- Asserts that f raises an error containing `text` (plain, not a pattern),
-- and that the error names the caller's line, not the module's.
local function raises(text, f, ...)
  local err = helper.raises(text, f, ...)
  assert(not err:find("testing.lua:", 1, true), "error points into the module:\n  " .. err)
end

-- The sh prefix that runs `helper.lua` with this process's module paths and
-- MONOSTAMP_SHARED=`shared` (false: unset).
local function child_command(shared, script)
  local env = {}
  for _, name in ipairs{ "LUA_CPATH", "LUA_PATH" } do
    local value = os.getenv(name)
    if value then env[#env + 1] = name .. "=" .. helper.q(value) end
  end
  local unset = ""
  if shared then
    env[#env + 1] = "MONOSTAMP_SHARED=" .. helper.q(shared)
  else
    unset = "unset MONOSTAMP_SHARED; "
  end
  return unset .. "env " .. table.concat(env, " ") .. " " .. helper.lua .. " -e "
         .. helper.q(script) .. " 2>&1"
end

-- A child that takes `count` stamps from testing.strict_clock(), printing
-- first the path it joined ("-" for none), then each stamp as it takes it.
local function stamping_child(shared, count)
  return child_command(shared, string.format([[
    local testing = require "monostamp.testing"
    local c, path = testing.strict_clock()
    assert(c:is_shared() == (path ~= nil))
    print(path or "-")
    for _ = 1, %d do
      print(c:time_ns())
      io.stdout:flush()
    end
  ]], count))
end

describe("testing.strict_clock()", function()
  after_each(helper.cleanup)

  it("hands out unique, strictly increasing stamps", function()
    local c = testing.strict_clock()
    assert.equal("monotonicForceNanosecondIncrement", c:policy())
    assert.equal("realtime", c:source())
    local seen, last = {}, c:time_ns()
    for i = 1, 100000 do
      local ns = (i % 2 == 0) and c:time_ns() or (c:now())
      assert(ns > last, string.format("stamp %d (%d) not above %d", i, ns, last))
      assert(not seen[ns], string.format("stamp %d handed out twice", ns))
      seen[ns], last = true, ns
    end
  end)

  it("is one clock for the whole process, joined to MONOSTAMP_SHARED if set", function()
    local c, path = testing.strict_clock()
    assert.equal(c, (testing.strict_clock()))
    assert.equal(testing.shared_path(), path)
    local env = os.getenv("MONOSTAMP_SHARED")
    assert.equal((env ~= nil and env ~= "") and env or nil, path)
    assert.equal(path ~= nil, c:is_shared())
  end)

  it("repairs a clock a test closed or changed", function()
    local c = testing.strict_clock()
    local last = c:time_ns()
    c:set_policy("acceptPlatformTime")
    assert.equal(c, (testing.strict_clock()))
    assert.equal("monotonicForceNanosecondIncrement", c:policy())
    c:close()
    local fresh = testing.strict_clock()
    assert.are_not.equal(c, fresh)
    assert.equal("monotonicForceNanosecondIncrement", fresh:policy())
    assert(fresh:time_ns() > last)
  end)

  it("takes no options", function()
    raises("bad argument #1 to 'strict_clock' (no arguments expected", function()
      testing.strict_clock{ zone = "UTC" }
    end)
  end)

  it("in a child Lua process joins MONOSTAMP_SHARED, one sequence with this one", function()
    local path = helper.tmpdir() .. "/state"
    -- This side's clock on the same file: a manual source 0.8 s ahead of
    -- now (within the child's default 1 s lead bound; its own 100 ms bound
    -- makes the file it creates start 100 ms ahead, below that, and leaves
    -- room for the few ms a newcomer on a leading file raises it by, as the
    -- child does: docs/clock-core.md; the manual reading stays put).  Its first
    -- stamp puts the file's sequence 0.8 s ahead, so the child's realtime
    -- stamps, if it starts within that, are above it only if the child
    -- joined the file; its later stamps are last + 1 (the reading stays
    -- put), so each is above the child's stamp read just before only if
    -- this side sees the child's.
    local ahead = monostamp.time_ns() + 800000000
    local mine = assert(monostamp.clock{ shared = path, source = "manual", start_ns = ahead,
                                         max_lead_ns = 100000000 })
    local first = mine:time_ns()
    assert.equal(ahead, first)

    local count = 2000
    local p = assert(io.popen(stamping_child(path, count), "r"))
    -- The rest of the child's output, for a failure's message only (an
    -- argument to assert would be read, and consumed, before the check).
    local function rest() return p:read("a") or "" end
    local joined = p:read("l")
    if joined ~= path then
      error("the child did not report the shared file; it said:\n" .. tostring(joined) .. "\n"
            .. rest())
    end
    local seen = { [first] = "this process" }
    local child_last, mine_last = first, first
    for i = 1, count do
      local line = p:read("l")
      local ns = math.tointeger(tonumber(line))
      if not ns then
        error("child line " .. i .. " is not a stamp: " .. tostring(line) .. "\n" .. rest())
      end
      assert(ns > child_last, string.format("child stamp %d (%d) not above %d (%s)", i, ns,
                                            child_last, i == 1 and "this side's first" or "its last"))
      assert(not seen[ns], string.format("%d handed out twice (child, %s)", ns, tostring(seen[ns])))
      seen[ns], child_last = "child", ns
      -- In between, a stamp of our own: above the child's, never equal.
      local m = mine:time_ns()
      assert(m > ns, string.format("this side's stamp %d not above the child's %d", m, ns))
      assert(m > mine_last)
      assert(not seen[m], string.format("%d handed out twice (this process, %s)", m, tostring(seen[m])))
      seen[m], mine_last = "this process", m
    end
    assert(p:close(), "the child failed")
    -- The child's realtime clock ran ahead of its source to stay above ours.
    assert(child_last > ahead)
  end)

  it("in a child with MONOSTAMP_SHARED empty or unset is private", function()
    for _, shared in ipairs{ "", false } do
      local out, ok = helper.sh(stamping_child(shared, 3))
      assert(ok, out)
      local lines = {}
      for line in out:gmatch("[^\n]+") do lines[#lines + 1] = line end
      assert.equal("-", lines[1], out)
      assert.equal(4, #lines, out)
    end
  end)

  it("raises, naming MONOSTAMP_SHARED, when the file cannot be used", function()
    local dir = helper.tmpdir()
    local out, ok = helper.sh(child_command(dir .. "/no/such/dir/state", [[
      local testing = require "monostamp.testing"
      local ok, err = pcall(testing.strict_clock)
      assert(not ok)
      io.write(err)
    ]]))
    assert(ok, out)
    assert.equal("MONOSTAMP_SHARED='" .. dir .. "/no/such/dir/state': its directory does not "
                 .. "exist -- create the directory first; the state file itself is created if "
                 .. "absent", out:match("monostamp%.testing%.strict_clock: (.*)$"), out)
  end)
end)

describe("testing.manual_clock()", function()
  it("defaults to 2000-01-01T00:00:00Z, zone UTC and the strict policy", function()
    assert.equal(946684800 * 1000000000, testing.EPOCH_2000_NS)
    local mc = testing.manual_clock()
    assert.equal("manual", mc:source())
    assert.equal("UTC", mc:zone())
    assert.equal("monotonicForceNanosecondIncrement", mc:policy())
    assert.is_false(mc:is_shared())
    local ns, offset = mc:now()
    assert.equal(testing.EPOCH_2000_NS, ns)
    assert.equal(0, offset)
    assert.equal("2000-01-01T00:00:00Z", monostamp.isoformat(ns, offset, 0, true))
    -- The reading stays put: forced increments.
    assert.equal(testing.EPOCH_2000_NS + 1, mc:time_ns())
    assert.equal(1, mc:stats().forced_increments)
    assert.equal("manual", mc.clock:source())
    assert.matches("^monostamp%.testing%.ManualClock: monostamp%.Clock %(manual", tostring(mc))
    assert.is_nil(mc.no_such_method)
  end)

  it("set and advance move the reading; set takes ISO 8601 text too", function()
    local mc = testing.manual_clock{ policy = "acceptPlatformTime" }
    assert.same({ true }, { mc:advance(1500) })
    assert.equal(testing.EPOCH_2000_NS + 1500, mc:time_ns())
    mc:advance(-500)
    assert.equal(testing.EPOCH_2000_NS + 1000, mc:time_ns())
    assert.same({ true }, { mc:set(42) })
    assert.equal(42, mc:time_ns())
    mc:set("2000-01-01T01:00:00+01:00")  -- the instant, whatever the offset
    assert.same({ testing.EPOCH_2000_NS, 0 }, { mc:now() })
  end)

  it("step_back replays a backward step, which each policy meets its own way", function()
    local expected = {
      acceptPlatformTime = { 1000, 0 },
      monotonicAllowDuplicates = { 1000, 1000 },
      monotonicForceMicrosecondIncrement = { 1000, 2000 },
      monotonicForceNanosecondIncrement = { 1000, 1001 },
    }
    for policy, want in pairs(expected) do
      local mc = testing.manual_clock{ start = 1000, policy = policy }
      local got = { mc:time_ns() }
      assert.same({ true }, { mc:step_back(1000) })
      got[2] = mc:time_ns()
      assert.same(want, got, policy)
    end
    local mc = testing.manual_clock{ start = 5 }
    mc:step_back(0)
    assert.equal(5, mc:time_ns())
  end)

  it("takes a marker-like configuration: an ISO start and a named zone", function()
    -- One second before Berlin's clocks went forward in 2021.
    local mc = testing.manual_clock{ start = "2021-03-28T00:59:59Z", zone = "Europe/Berlin",
                                     policy = "monotonicAllowDuplicates" }
    assert.equal("Europe/Berlin", mc:zone())
    assert.equal("monotonicAllowDuplicates", mc:policy())
    local before, offset_before = mc:now()
    assert.equal(3600, offset_before)
    assert.equal("2021-03-28T01:59:59+01:00", monostamp.isoformat(before, offset_before, 0))
    mc:advance(1000000000)
    local ns, offset = mc:now()
    assert.equal(7200, offset)
    assert.equal("2021-03-28T03:00:00+02:00", monostamp.isoformat(ns, offset, 0))
    mc:step_back(1000000000)
    assert.same({ ns, offset }, { mc:now() })  -- never backwards, may repeat
  end)

  it("passes the lead bound through", function()
    local mc = testing.manual_clock{ max_lead_ns = 1, on_lead = "error" }
    assert.equal(testing.EPOCH_2000_NS, mc:time_ns())
    assert.equal(testing.EPOCH_2000_NS + 1, mc:time_ns())
    local ns, err, code = mc:time_ns()
    assert.is_nil(ns)
    assert.equal(monostamp.ELEAD, code, err)
  end)

  it("closes with <close> and close()", function()
    -- <close> is Lua 5.4's syntax: compiled at run time, so that this file
    -- loads under Lua 5.3 too, where close() alone is checked.
    if _VERSION ~= "Lua 5.3" then
      local inner = assert(load([[
        local testing, EPOCH_2000_NS = ...
        local inner
        do
          local mc <close> = testing.manual_clock()
          inner = mc.clock
          assert(mc:time_ns() == EPOCH_2000_NS)
        end
        return inner
      ]]))(testing, testing.EPOCH_2000_NS)
      assert.matches("%(closed%)", tostring(inner))
    end
    local mc = testing.manual_clock()
    mc:close()
    mc:close()
    assert.has_error(function() mc:time_ns() end, "attempt to use a closed clock")
  end)

  it("raises on bad options, naming the bad value", function()
    raises("bad argument #1 to 'manual_clock' (table expected, got string)",
           function() testing.manual_clock("UTC") end)
    raises("bad argument #1 to 'manual_clock' (unknown option 'strat')",
           function() testing.manual_clock{ strat = 0 } end)
    raises("bad argument #1 to 'manual_clock' (unknown option 'start_ns')",
           function() testing.manual_clock{ start_ns = 0 } end)
    raises("bad argument #1 to 'manual_clock' (unknown option 'source')",
           function() testing.manual_clock{ source = "realtime" } end)
    raises("bad argument #1 to 'manual_clock' (start: integer nanoseconds or ISO 8601 text "
           .. "expected, got float 1.5)", function() testing.manual_clock{ start = 1.5 } end)
    raises("bad argument #1 to 'manual_clock' (start: '2000-01-01' at character 11: expected 'T', "
           .. "'t' or ' ' between date and time -- give RFC 3339 text",
           function() testing.manual_clock{ start = "2000-01-01" } end)
    raises("bad argument #1 to 'manual_clock' (policy='nope' must be one of "
           .. "'acceptPlatformTime', 'monotonicAllowDuplicates', "
           .. "'monotonicForceMicrosecondIncrement', 'monotonicForceNanosecondIncrement')",
           function() testing.manual_clock{ policy = "nope" } end)
    raises("bad argument #1 to 'manual_clock' (zone: string expected, got number)",
           function() testing.manual_clock{ zone = 1 } end)
    raises("bad argument #1 to 'manual_clock' (max_lead_ns=-1 must be >= 0)",
           function() testing.manual_clock{ max_lead_ns = -1 } end)
    raises("bad argument #1 to 'manual_clock' (on_lead='later' must be one of 'wait', 'error')",
           function() testing.manual_clock{ on_lead = "later" } end)
    raises("(256 bytes) must be a zone name of at most 255 bytes)",
           function() testing.manual_clock{ zone = ("x"):rep(256) } end)
    raises("monostamp.testing.manual_clock: zone='Mars/Olympus_Mons' is not a zone this "
           .. "machine knows",
           function() testing.manual_clock{ zone = "Mars/Olympus_Mons" } end)
  end)

  it("raises on bad arguments to set, advance and step_back", function()
    local mc = testing.manual_clock()
    raises("bad argument #1 to 'set' (integer nanoseconds or ISO 8601 text expected, got float 1.0)",
           function() mc:set(1.0) end)
    raises("bad argument #1 to 'set' ('yesterday' at character 1: expected a 4-digit year",
           function() mc:set("yesterday") end)
    raises("bad argument #1 to 'advance' (integer nanoseconds expected, got nil)",
           function() mc:advance() end)
    raises("bad argument #1 to 'step_back' (integer nanoseconds expected, got float 1000000000.0)",
           function() mc:step_back(1e9) end)
    raises("bad argument #1 to 'step_back' (ns must be >= 0, not -1",
           function() mc:step_back(-1) end)
    mc:set(math.maxinteger)
    raises("bad argument #1 to 'advance' (ns=1 would move the reading past the int64 "
           .. "nanosecond range (years 1677..2262) -- give a smaller step)",
           function() mc:advance(1) end)
    -- A failed call leaves the reading where it was.
    assert.equal(math.maxinteger, mc:time_ns())
  end)
end)

-- make demo runs the examples too; here they run with every make test-lua,
-- and policies.lua's table is checked against what the policies promise.
describe("examples/lua", function()
  local function run(name)
    local out, ok = helper.sh(child_command(os.getenv("MONOSTAMP_SHARED") or false,
      "dofile(" .. string.format("%q", helper.root .. "/examples/lua/" .. name) .. ")"))
    assert(ok, name .. " failed:\n" .. out)
    return out
  end

  it("unique_ids.lua and iso8601.lua run", function()
    assert.matches("100000 events, 100000 distinct ids", run("unique_ids.lua"))
    assert.matches("parse%(.*%) = %-?%d+, %-?%d+ %(the same stamp%)", run("iso8601.lua"))
  end)

  it("policies.lua prints the four policies meeting a backward step", function()
    local rows = {}
    for line in run("policies.lua"):gmatch("[^\n]+") do
      local reading, rest = line:match("^%s*(%d+)%s(.*)$")
      if reading then
        local row = {}
        for ns in rest:gmatch("%d+") do row[#row + 1] = math.tointeger(ns) end
        rows[#rows + 1] = row
      end
    end
    assert.same({ 1500, 1500, 1000, 1500 }, rows[1])
    assert.same({ 0, 1500, 3000, 1502 }, rows[3])  -- the step back
  end)
end)
