-- sleep_spec.lua: monostamp.ffi's sleep_ns and sleep_until_ns end in the
-- Lua spin of monostamp/sleep_finish.lua (issue 23), the module the C
-- module shares: here under LuaJIT, with int64_t cdata deadlines.  No timed
-- assertion (bench/lua/bench_sleep_ffi.lua measures lateness).
local ffi = require "ffi"
local monostamp = require "monostamp.ffi"
local finishing = require "monostamp.sleep_finish"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

local MS = 1000000

local run_interrupted = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "../lua/interrupt.lua")
local function interrupted(interp, script) return run_interrupted(helper, interp, script) end
local state = monostamp._sleep_state

-- A finisher over the library's clock whose core sleeps are recorded (and
-- made), and whose clock readings are counted.
local function spied()
  local rec = { core = {}, reads = 0 }
  local finish, st = finishing.new(function()
    rec.reads = rec.reads + 1
    return monostamp.monotonic_ns()
  end, function(deadline, tolerance)
    rec.core[#rec.core + 1] = { deadline, tolerance }
    return monostamp._sleep_until_core(deadline, tolerance)
  end)
  return finish, rec, st
end

describe("monostamp.ffi's sleep finish", function()
  after_each(function() state.reset() end)

  it("never ends a sleep early, with number and int64_t cdata arguments", function()
    local early = {}
    for _, tolerance in ipairs { 0, 1000, 20000, 50000LL, 300000, 2 * MS } do
      for _ = 1, 4 do
        for _, length in ipairs { 1, 1000, 14000, 16000LL, 50000, 120000, 300000, 1200000LL } do
          local deadline = monostamp.monotonic_ns() + length
          assert.is_true(monostamp.sleep_until_ns(deadline, tolerance))
          local woke = monostamp.monotonic_ns()
          if woke < deadline then early[#early + 1] = tostring(length) .. " until: " .. tostring(deadline - woke) end
          local t0 = monostamp.monotonic_ns()
          assert.is_true(monostamp.sleep_ns(length, tolerance))
          if monostamp.monotonic_ns() - t0 < length then early[#early + 1] = tostring(length) .. " sleep_ns" end
        end
      end
    end
    assert.same({}, early)
  end)

  it("sleeps in the core to the lead at a tight tolerance, with cdata deadlines", function()
    local finish, rec, st = spied()
    st.set_lead(3 * MS, 200000)
    local deadline = monostamp.monotonic_ns() + 3 * MS
    assert.is_true(finish(deadline, 10000))
    assert.equal(1, #rec.core)
    assert.is_true(rec.core[1][1] == deadline - 200000 and rec.core[1][2] == 0)
    assert.is_true(monostamp.monotonic_ns() >= deadline)
    assert.equal("number", type(st.lead_ns(3 * MS)))  -- observations are numbers
  end)

  it("leaves a covering tolerance to the core alone, less the lead", function()
    local finish, rec, st = spied()
    local lead = st.lead_ns(3 * MS)
    local deadline = monostamp.monotonic_ns() + 3 * MS
    assert.is_true(finish(deadline, ffi.new("int64_t", lead + 7000)))
    assert.equal(1, #rec.core)
    assert.is_true(rec.core[1][1] == deadline and rec.core[1][2] == 7000)
    assert.equal(2, rec.reads)  -- the start and the observation: no spin
  end)

  it("returns at once for a past deadline, the earliest int64_t included", function()
    local finish, rec = spied()
    assert.is_true(finish(-9223372036854775807LL - 1, 0))
    assert.is_true(finish(0, 0))
    assert.is_true(monostamp.sleep_until_ns(-9223372036854775807LL - 1, 0))
    assert.same({}, rec.core)
  end)

  it("passes the core's failure on", function()
    local finish = finishing.new(monostamp.monotonic_ns, function() return nil, "sleep_until_ns: broken", 5 end)
    local ok, why, code = finish(monostamp.monotonic_ns() + 3 * MS, 0)
    assert.is_nil(ok)
    assert.equal("sleep_until_ns: broken", why)
    assert.equal(5, code)
  end)

  it("keeps the learned lead within its bounds and its band", function()
    for _ = 1, 40 do assert.is_true(monostamp.sleep_ns(300000, 0)) end
    local lead = state.lead_ns(300000)
    assert.is_true(lead >= finishing.LEAD_MIN_NS and lead <= finishing.LEAD_MAX_NS, tostring(lead))
    assert.same({ false, false, true, false, false, false, false }, state.seen)
  end)

  it("lets Ctrl-C interrupt a long sleep: the finish runs in the interpreter, which runs hooks", function()
    -- An hour's sleep, SIGINT after 0.2 s: luajit's hook fires between two
    -- of the core's 50 ms slices.  One that goes on is killed after 20 s
    -- (rc=137, no "interrupted!").
    local dir = helper.tmpdir()
    local script = dir .. "/long.lua"
    local f = assert(io.open(script, "w"))
    f:write([[
local monostamp = require "monostamp.ffi"
local ready = assert(io.open(arg[1], "w")); ready:close()
monostamp.sleep_ns(3600000000000, 0)
print("not interrupted")
]])
    f:close()
    local out = interrupted(helper.luajit, script)
    helper.cleanup()
    assert.truthy(out:find("interrupted!", 1, true), out)
    assert.truthy(out:find("rc=1", 1, true), out)
  end)

  it("refuses a sleep that ends past the clock's range, naming it", function()
    local ok, err = pcall(function() monostamp.sleep_ns(9223372036854775807LL) end)
    assert.is_false(ok)
    assert.matches("bad argument #1 to 'sleep_ns' (a sleep of 9223372036854775807 ns ends past "
                   .. "the monotonic clock's range)", err, 1, true)
  end)
end)
