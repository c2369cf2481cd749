-- ffi_sleep_spec.lua: monostamp.ffi's sleep_ns and sleep_until_ns follow
-- the core's plan (csrc/sleep_finish.c; its rules are
-- tests/c/test_sleep_finish.c's) and end in the Lua spin of
-- monostamp/sleep_finish.lua, the module the C module shares.  LuaJIT only:
-- the finish is driven here over the library's own plan through the FFI,
-- with int64_t cdata deadlines (the C module's hooks are
-- sleep_finish_spec.lua's; what both share, sleep_spec.lua's).  No timed
-- assertion (bench/lua/bench_sleep.lua measures lateness).
local ffi = require "ffi"
local monostamp = require "monostamp.ffi"
local finishing = require "monostamp.sleep_finish"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
local C = ffi.load(monostamp.library)

local MS = 1000000
local LEAD_MIN_NS, LEAD_MAX_NS = 15000, 250000  -- monostamp.h's MONOSTAMP_SLEEP_LEAD_*

-- A finish over the library's plan whose naps are recorded (and made) and
-- whose clock readings are counted; and a plan begun for it.
local function spied()
  local rec = { naps = {}, reads = 0 }
  local finish = finishing.new(function()
    rec.reads = rec.reads + 1
    return monostamp.monotonic_ns()
  end, function(plan)
    rec.naps[#rec.naps + 1] = { plan.until_ns, plan.until_tolerance_ns }
    return C.monostamp_sleep_until(plan.until_ns, plan.until_tolerance_ns) == 0
  end, function(plan, now) return C.monostamp_sleep_step(plan, now) end, function() end)
  local function sleep(deadline, tolerance)
    local plan = ffi.new("monostamp_sleep_plan")
    local what = C.monostamp_sleep_start(plan, monostamp.monotonic_ns(), deadline, 0, tolerance, 1,
                                         nil, nil, 0)
    return finish(deadline, plan, what)
  end
  return sleep, rec
end

describe("monostamp.ffi's sleep finish", function()
  it("has the header's steps", function()
    assert.same({ C.MONOSTAMP_SLEEP_DONE, C.MONOSTAMP_SLEEP_NAP, C.MONOSTAMP_SLEEP_SPIN, C.MONOSTAMP_SLEEP_WARM },
                { finishing.DONE, finishing.NAP, finishing.SPIN, finishing.WARM })
  end)

  it("sleeps in the core to the lead at a tight tolerance, with cdata deadlines", function()
    local sleep, rec = spied()
    local deadline = monostamp.monotonic_ns() + 3 * MS
    assert.is_true(sleep(deadline, 10000))
    assert.equal(1, #rec.naps)
    local lead = deadline - rec.naps[1][1]
    assert.is_true(lead >= LEAD_MIN_NS and lead <= LEAD_MAX_NS and rec.naps[1][2] == 0, tostring(lead))
    assert.is_true(monostamp.monotonic_ns() >= deadline)
  end)

  it("leaves a covering tolerance to the core alone, less the lead", function()
    local sleep, rec = spied()
    local deadline = monostamp.monotonic_ns() + 3 * MS
    assert.is_true(sleep(deadline, ffi.new("int64_t", LEAD_MAX_NS + 7000)))
    assert.equal(1, #rec.naps)
    assert.is_true(rec.naps[1][1] == deadline and rec.naps[1][2] >= 7000)
    assert.equal(1, rec.reads)  -- the plan's reading: no spin
  end)

  it("returns at once for a past deadline, the earliest int64_t included", function()
    local sleep, rec = spied()
    assert.is_true(sleep(-9223372036854775807LL - 1, 0))
    assert.is_true(sleep(0, 0))
    assert.is_true(monostamp.sleep_until_ns(-9223372036854775807LL - 1, 0))
    assert.same({ naps = {}, reads = 0 }, rec)
  end)
end)
