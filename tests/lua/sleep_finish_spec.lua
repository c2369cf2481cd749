-- sleep_finish_spec.lua: the C module's sleep_ns and sleep_until_ns with
-- their Lua finish (monostamp/sleep_finish.lua), through the hooks only the
-- C module has (_sleep_finish, _sleep_nap, _sleep_step: monostamp.ffi
-- builds its finish over the library's plan, ffi_sleep_spec.lua): the
-- core's plan (its rules are tests/c/test_sleep_finish.c's) sleeps to a
-- learned lead before the deadline, a Lua spin ends the sleep.  No timed
-- assertion; these hold what load cannot change -- which path the tolerance
-- picks, Ctrl-C in the spin, errors.  What both modules share is
-- sleep_spec.lua's (never early, Ctrl-C in a long sleep).
local monostamp = require "monostamp"
local finishing = require "monostamp.sleep_finish"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

local MS = 1000000
-- MONOSTAMP_SLEEP_LEAD_MAX_NS (monostamp.h): a tolerance above it covers
-- every lead, however the machine has taught it.
local LEAD_MAX_NS = 250000

local run_interrupted = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "interrupt.lua")
local function interrupted(interp, script) return run_interrupted(helper, interp, script) end
local registered = finishing.register(monostamp)

-- A finish of its own, registered for the test: it counts the naps it
-- makes (and makes them), its clock readings and its warming calls.
local function spied()
  local rec = { naps = 0, reads = 0, warms = 0 }
  -- What a nap does, which a spec may wrap (kept out of rec's counts).
  local hook = { nap = monostamp._sleep_nap }
  monostamp._sleep_finish(finishing.new(function()
    rec.reads = rec.reads + 1
    return monostamp.monotonic_ns()
  end, function(plan)
    rec.naps = rec.naps + 1
    return hook.nap(plan)
  end, monostamp._sleep_step, function() rec.warms = rec.warms + 1 end))
  return rec, hook
end

describe("the sleep finish", function()
  after_each(function() monostamp._sleep_finish(registered) end)

  it("is registered once by require 'monostamp', and both sleeps go through it", function()
    assert.equal(registered, finishing.register(monostamp))
    local calls = {}
    monostamp._sleep_finish(function(deadline, plan, what)
      calls[#calls + 1] = { deadline, plan, what }
      return true
    end)
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_ns(5 * MS, 7))
    local deadline = monostamp.monotonic_ns() + 5 * MS
    assert.is_true(monostamp.sleep_until_ns(deadline))
    assert.equal(2, #calls)
    -- sleep_ns's deadline is its clock reading, taken first, plus ns; the
    -- core has a part of both: the plan comes along.
    assert.is_true(calls[1][1] >= t0 + 5 * MS)
    assert.same({ deadline, "userdata", finishing.NAP }, { calls[2][1], type(calls[2][2]), calls[2][3] })
  end)

  it("returns what the finish returns, a failure included", function()
    monostamp._sleep_finish(function() return nil, "sleep_until_ns: broken", 5 end)
    local ok, why, code = monostamp.sleep_ns(MS, 0)
    assert.is_nil(ok)
    assert.equal("sleep_until_ns: broken", why)
    assert.equal(5, code)
  end)

  it("returns at once for a deadline already past, the earliest integer included", function()
    local rec = spied()
    assert.is_true(monostamp.sleep_until_ns(math.mininteger, 0))
    assert.is_true(monostamp.sleep_until_ns(monostamp.monotonic_ns() - 1, 0))
    assert.is_true(monostamp.sleep_ns(0, 0))
    assert.same({ naps = 0, reads = 0, warms = 0 }, rec)
  end)

  it("warms the path of the sleep's end once, after the core's part", function()
    local rec = spied()
    assert.is_true(monostamp.sleep_ns(3 * MS, 0))  -- the core's part, then the spin
    assert.is_true(monostamp.sleep_ns(1000, 0))    -- the spin alone
    assert.is_true(monostamp.sleep_ns(3 * MS, 1 * MS))  -- the core alone
    assert.equal(1, rec.warms)
  end)

  it("at a tight tolerance, sleeps in the core, then spins", function()
    local rec = spied()
    local deadline = monostamp.monotonic_ns() + 3 * MS
    assert.is_true(monostamp.sleep_until_ns(deadline, 0))
    assert.is_true(monostamp.monotonic_ns() >= deadline)
    -- The reading the plan learns from, then the spin's.
    assert.same({ 1, 1 }, { rec.naps, rec.warms })
    assert.is_true(rec.reads >= 2)
  end)

  it("with a tolerance that covers the lead, is the core's alone", function()
    local rec = spied()
    assert.is_true(monostamp.sleep_until_ns(monostamp.monotonic_ns() + 3 * MS, LEAD_MAX_NS + 7000))
    assert.same({ naps = 1, reads = 1, warms = 0 }, rec)  -- the plan's reading: no spin
  end)

  it("sleeps in the core in naps of at most 50 ms", function()
    local rec, hook = spied()
    local longest = 0
    local nap = hook.nap
    hook.nap = function(plan)
      local t = monostamp.monotonic_ns()
      local r = nap(plan)
      local took = monostamp.monotonic_ns() - t
      if took > longest then longest = took end
      return r
    end
    local deadline = monostamp.monotonic_ns() + 120 * MS
    assert.is_true(monostamp.sleep_until_ns(deadline, 0))
    assert.is_true(monostamp.monotonic_ns() >= deadline)
    -- 120 ms takes three naps of 50 ms; on a busy machine a nap may end
    -- late, and two then reach the deadline.  One nap is never enough.
    assert.is_true(rec.naps == 3 or (rec.naps == 2 and longest > 50 * MS),
                   ("%d naps, the longest %d ns"):format(rec.naps, longest))
  end)

  it("for less than any lead, is the spin's alone", function()
    local rec = spied()
    assert.is_true(monostamp.sleep_ns(7500, 0))
    assert.is_true(monostamp.sleep_ns(1, 0))
    assert.same({ 0, 0 }, { rec.naps, rec.warms })
  end)

  it("lets Ctrl-C interrupt the spin (lua.c's hook runs in a Lua loop)", function()
    -- A child whose finish is given a 30 s sleep that is all spin.
    -- It writes a file just before the sleep; the shell waits for it and
    -- sends SIGINT; lua.c turns that into an "interrupted!" error.
    local dir = helper.tmpdir()
    local script = dir .. "/spin.lua"
    local f = assert(io.open(script, "w"))
    f:write([[
local monostamp = require "monostamp"
local finishing = require "monostamp.sleep_finish"
local finish = finishing.register(monostamp)
local ready = assert(io.open(arg[1], "w")); ready:close()
finish(monostamp.monotonic_ns() + 30000000000, nil, finishing.SPIN)
print("not interrupted")
]])
    f:close()
    local out = interrupted(helper.lua, script)
    helper.cleanup()
    assert.matches("interrupted!", out, 1, true)
    assert.matches("rc=1", out, 1, true)
    assert.not_matches("not interrupted", out, 1, true)
  end)

  it("refuses a finish that is not a function, and a plan that is not one", function()
    helper.raises("bad argument #1 to '_sleep_finish' (function expected, got number)",
                  function() monostamp._sleep_finish(5) end)
    helper.raises("bad argument #1 to '_sleep_nap' (monostamp.sleep_plan expected, got number)",
                  function() monostamp._sleep_nap(5) end)
    helper.raises("bad argument #1 to '_sleep_step' (monostamp.sleep_plan expected, got table)",
                  function() monostamp._sleep_step({}, 0) end)
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp._sleep_finish(nil))  -- none: the core sleeps alone
    assert.is_true(monostamp.sleep_ns(MS, 0))
    assert.is_true(monostamp.monotonic_ns() - t0 >= MS)
  end)
end)
