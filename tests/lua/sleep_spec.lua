-- sleep_spec.lua: sleep_ns and sleep_until_ns with their Lua finish
-- (monostamp/sleep_finish.lua, issue 23): the core sleeps to a learned lead
-- before the deadline, a Lua spin ends the sleep.  No timed assertion: how
-- late a sleep is, is the benchmark's (bench/lua/bench_sleep.lua); these
-- hold what load cannot change -- never early, which path the tolerance
-- picks, the lead's learning, Ctrl-C, errors.
local monostamp = require "monostamp"
local finishing = require "monostamp.sleep_finish"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

local MS = 1000000

local run_interrupted = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "interrupt.lua")
local function interrupted(interp, script) return run_interrupted(helper, interp, script) end
local state = assert(finishing.state(monostamp), "monostamp.lua registers the finish")

-- A finisher of its own, registered for the test: it records the core
-- sleeps it asks for (and makes them), and counts clock readings (the
-- spin's turns).  Returns the record and the finisher's state.
local function spied()
  local rec = { core = {}, reads = 0 }
  local finish, st = finishing.new(function()
    rec.reads = rec.reads + 1
    return monostamp.monotonic_ns()
  end, function(deadline, tolerance)
    rec.core[#rec.core + 1] = { deadline, tolerance }
    return monostamp._sleep_until_core(deadline, tolerance)
  end)
  monostamp._sleep_finish(finish)
  return rec, st
end

describe("the sleep finish", function()
  after_each(function()
    monostamp._sleep_finish(state.finish)
    state.reset()
  end)

  it("is registered once by require 'monostamp', and both sleeps go through it", function()
    assert.equal(state, finishing.register(monostamp))
    local calls = {}
    monostamp._sleep_finish(function(deadline, tolerance)
      calls[#calls + 1] = { deadline, tolerance }
      return true
    end)
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp.sleep_ns(5 * MS, 7))
    local deadline = monostamp.monotonic_ns() + 5 * MS
    assert.is_true(monostamp.sleep_until_ns(deadline))
    assert.equal(2, #calls)
    -- sleep_ns's deadline is its clock reading, taken first, plus ns.
    assert.is_true(calls[1][1] >= t0 + 5 * MS and calls[1][2] == 7)
    assert.same({ deadline, monostamp.DEFAULT_SLEEP_TOLERANCE_NS }, calls[2])
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
    assert.same({}, rec.core)
    assert.equal(3, rec.reads)  -- one reading each: past, return
  end)

  it("warms the path of the sleep's end once, after the core's part", function()
    local warmed = 0
    local finish, st = finishing.new(monostamp.monotonic_ns, monostamp._sleep_until_core,
                                     function() warmed = warmed + 1 end)
    monostamp._sleep_finish(finish)
    st.set_lead(3 * MS, 100000)
    assert.is_true(monostamp.sleep_ns(3 * MS, 0))  -- the core's part, then the spin
    assert.is_true(monostamp.sleep_ns(1000, 0))    -- the spin alone
    assert.is_true(monostamp.sleep_ns(3 * MS, 1 * MS))  -- the core alone
    assert.equal(1, warmed)
  end)

  it("never ends a sleep early, at every tolerance", function()
    local early = {}
    for _, tolerance in ipairs { 0, 1000, 20000, monostamp.DEFAULT_SLEEP_TOLERANCE_NS, 300000, 2 * MS } do
      for _ = 1, 4 do
        for _, length in ipairs { 1, 1000, 14000, 16000, 50000, 120000, 300000, 1200000 } do
          local deadline = monostamp.monotonic_ns() + length
          assert.is_true(monostamp.sleep_until_ns(deadline, tolerance))
          local woke = monostamp.monotonic_ns()
          if woke < deadline then early[#early + 1] = ("until %d/%d: %d early"):format(length, tolerance, deadline - woke) end
          local t0 = monostamp.monotonic_ns()
          assert.is_true(monostamp.sleep_ns(length, tolerance))
          local slept = monostamp.monotonic_ns() - t0
          if slept < length then early[#early + 1] = ("sleep_ns %d/%d: %d"):format(length, tolerance, slept) end
        end
      end
    end
    assert.same({}, early)
  end)

  it("at a tight tolerance, sleeps in the core to the lead, then spins", function()
    local rec, st = spied()
    st.set_lead(3 * MS, 200000)
    local deadline = monostamp.monotonic_ns() + 3 * MS
    assert.is_true(monostamp.sleep_until_ns(deadline, 10000))
    assert.same({ { deadline - 200000, 0 } }, rec.core)
    assert.is_true(monostamp.monotonic_ns() >= deadline)
    -- Two readings before the spin; the spin reads until the deadline
    -- (unless this process lost the CPU for the whole lead).
    assert.is_true(rec.reads >= 3 or monostamp.monotonic_ns() - (deadline - 200000) > 200000)
  end)

  it("with a tolerance that covers the lead, is the core's alone", function()
    local rec, st = spied()
    local lead = st.lead_ns(3 * MS)
    local deadline = monostamp.monotonic_ns() + 3 * MS
    assert.is_true(monostamp.sleep_until_ns(deadline, lead + 7000))
    assert.same({ { deadline, 7000 } }, rec.core)
    assert.equal(2, rec.reads)  -- the start and the observation: no spin
  end)

  it("sleeps in the core in slices of 50 ms, the caller's tolerance on the last", function()
    local rec, st = spied()
    local lead = st.lead_ns(120 * MS)
    local deadline = monostamp.monotonic_ns() + 120 * MS
    assert.is_true(monostamp.sleep_until_ns(deadline, 0))
    assert.equal(3, #rec.core)
    for i = 1, 2 do assert.equal(5 * MS, rec.core[i][2]) end
    assert.same({ deadline - lead, 0 }, rec.core[3])
  end)

  it("for less than any lead, is the spin's alone", function()
    local rec = spied()
    assert.is_true(monostamp.sleep_ns(finishing.LEAD_MIN_NS // 2, 0))
    assert.is_true(monostamp.sleep_ns(1, 0))
    assert.same({}, rec.core)
  end)

  it("keeps the learned lead within its bounds and its band", function()
    for _ = 1, 40 do assert.is_true(monostamp.sleep_ns(300000, 0)) end
    local lead = state.lead_ns(300000)
    assert.is_true(lead >= finishing.LEAD_MIN_NS and lead <= finishing.LEAD_MAX_NS, lead)
    assert.equal("integer", math.type(lead))
    assert.same({ false, false, true, false, false, false, false }, state.seen)
    local bands = {}
    for _, n in ipairs { 9999, 10000, 99999, 100000, 999999, MS, 10 * MS, 100 * MS, 1000 * MS, 10^12 // 1 } do
      bands[#bands + 1] = state.band_of(n)
    end
    assert.same({ 1, 2, 2, 3, 3, 4, 5, 6, 7, 7 }, bands)
  end)

  it("raises the lead at once by at most 4 times, and lowers it by 1/32 of the gap", function()
    local b = state.band_of(3 * MS)
    local start = state.lead_of_band(b)
    state.observe(b, 40000, true)  -- wants 40 + 10 + 2 us
    assert.equal(math.max(start, 52000), state.lead_of_band(b))
    state.observe(b, 10^9 // 1, true)  -- a preemption: clamped, and at most 4x
    local high = state.lead_of_band(b)
    assert.equal(math.min(4 * 52000, finishing.LEAD_MAX_NS), high)
    state.observe(b, 0, true)
    assert.equal(high - -(-(high - finishing.LEAD_MIN_NS) // 32), state.lead_of_band(b))
    local lowered = state.lead_of_band(b)
    state.observe(b, 0, false)  -- a lower bound only: never lowers
    assert.equal(lowered, state.lead_of_band(b))
    for _ = 1, 2000 do state.observe(b, 0, true) end
    assert.equal(finishing.LEAD_MIN_NS, state.lead_of_band(b))
  end)

  it("starts a band not seen yet from a longer lead seen below it", function()
    local b = state.band_of(30 * MS)
    local own = state.lead_of_band(b)
    state.set_lead(3 * MS, own + 50000)
    assert.equal(own + 50000, state.lead_of_band(b))
    state.set_lead(3 * MS, finishing.LEAD_MIN_NS)
    assert.equal(own, state.lead_of_band(b))
  end)

  it("lets Ctrl-C interrupt the spin (lua.c's hook runs in a Lua loop)", function()
    -- A child whose core sleeps are no-ops: its 30 s sleep is all spin.
    -- It writes a file just before the sleep; the shell waits for it and
    -- sends SIGINT; lua.c turns that into an "interrupted!" error.
    local dir = helper.tmpdir()
    local script = dir .. "/spin.lua"
    local f = assert(io.open(script, "w"))
    f:write([[
local monostamp = require "monostamp"
local finishing = require "monostamp.sleep_finish"
monostamp._sleep_finish((finishing.new(monostamp.monotonic_ns, function() return true end)))
local ready = assert(io.open(arg[1], "w")); ready:close()
monostamp.sleep_ns(30000000000, 0)
print("not interrupted")
]])
    f:close()
    local out = interrupted(helper.lua, script)
    helper.cleanup()
    assert.matches("interrupted!", out, 1, true)
    assert.matches("rc=1", out, 1, true)
    assert.not_matches("not interrupted", out, 1, true)
  end)

  it("lets Ctrl-C interrupt a long sleep within a slice of the core's part", function()
    -- The core resumes its sleep after a signal, and lua.c's hook runs only
    -- in Lua code: the finish sleeps in the core in 50 ms slices.  An hour's
    -- sleep, SIGINT after 0.2 s; one that goes on is killed after 20 s
    -- (rc=137, no "interrupted!").
    local dir = helper.tmpdir()
    local script = dir .. "/long.lua"
    local f = assert(io.open(script, "w"))
    f:write([[
local monostamp = require "monostamp"
local ready = assert(io.open(arg[1], "w")); ready:close()
monostamp.sleep_ns(3600000000000, 0)
print("not interrupted")
]])
    f:close()
    local out = interrupted(helper.lua, script)
    helper.cleanup()
    assert.matches("interrupted!", out, 1, true)
    assert.matches("rc=1", out, 1, true)
  end)

  it("refuses a finish that is not a function, naming what it got", function()
    helper.raises("bad argument #1 to '_sleep_finish' (function expected, got number)",
                  function() monostamp._sleep_finish(5) end)
    local t0 = monostamp.monotonic_ns()
    assert.is_true(monostamp._sleep_finish(nil))  -- none: the core sleeps alone
    assert.is_true(monostamp.sleep_ns(MS, 0))
    assert.is_true(monostamp.monotonic_ns() - t0 >= MS)
  end)
end)
