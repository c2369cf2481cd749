-- sleep_spec.lua: sleep_ns and sleep_until_ns end in the Lua finish
-- (monostamp/sleep_finish.lua) that both modules share: the core's plan
-- (its rules are tests/c/test_sleep_finish.c's) sleeps to a learned lead
-- before the deadline, a Lua spin ends the sleep.  Runs against the module
-- this interpreter loads (helper.lua): the C module under Lua 5.3-5.5,
-- monostamp.ffi under LuaJIT.  No timed assertion: how late a sleep is, is
-- the benchmark's (bench/lua/bench_sleep.lua); these hold what load cannot
-- change -- never early, Ctrl-C, errors.  How each module hands its plan to
-- the finish is sleep_finish_spec.lua's (the C module's hooks) and
-- ffi_sleep_spec.lua's (the library's plan through the FFI).
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
local monostamp = helper.monostamp
local finishing = require "monostamp.sleep_finish"
local int = helper.int

local MS = 1000000

local run_interrupted = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "interrupt.lua")
local function interrupted(interp, script) return run_interrupted(helper, interp, script) end

describe("sleep_ns and sleep_until_ns", function()
  it("never end a sleep early, at every tolerance, with plain and 64-bit integer arguments", function()
    -- int(): an int64_t cdata under LuaJIT, where other numbers are doubles.
    local early = {}
    for _, tolerance in ipairs { 0, 1000, 20000, int(monostamp.DEFAULT_SLEEP_TOLERANCE_NS), 300000, 2 * MS } do
      for _ = 1, 4 do
        for _, length in ipairs { 1, 1000, 14000, int(16000), 50000, 120000, 300000, int(1200000) } do
          local deadline = monostamp.monotonic_ns() + length
          assert.is_true(monostamp.sleep_until_ns(deadline, tolerance))
          local woke = monostamp.monotonic_ns()
          if woke < deadline then
            early[#early + 1] = ("until %s/%s: %s early"):format(helper.text(length), helper.text(tolerance),
                                                                 helper.text(deadline - woke))
          end
          local t0 = monostamp.monotonic_ns()
          assert.is_true(monostamp.sleep_ns(length, tolerance))
          local slept = monostamp.monotonic_ns() - t0
          if slept < length then
            early[#early + 1] = ("sleep_ns %s/%s: %s"):format(helper.text(length), helper.text(tolerance),
                                                              helper.text(slept))
          end
        end
      end
    end
    assert.same({}, early)
  end)

  it("pass the core's failure on from the finish", function()
    local finish = finishing.new(monostamp.monotonic_ns, function() return nil, "sleep_until_ns: broken", 5 end)
    local ok, why, code = finish(monostamp.monotonic_ns() + 3 * MS, nil, finishing.NAP)
    assert.is_nil(ok)
    assert.equal("sleep_until_ns: broken", why)
    assert.equal(5, code)
  end)

  it("let Ctrl-C interrupt a long sleep within a slice of the core's part", function()
    -- The core resumes its sleep after a signal, and the interpreter's hook
    -- runs only in Lua code: the finish sleeps in the core in 50 ms slices.
    -- An hour's sleep, SIGINT after 0.2 s; one that goes on is killed after
    -- 20 s (rc=137, no "interrupted!").
    local dir = helper.tmpdir()
    local script = dir .. "/long.lua"
    local f = assert(io.open(script, "w"))
    f:write(([[
local monostamp = require %q
local ready = assert(io.open(arg[1], "w")); ready:close()
monostamp.sleep_ns(3600000000000, 0)
print("not interrupted")
]]):format(helper.module_name))
    f:close()
    local out = interrupted(helper.interpreter, script)
    helper.cleanup()
    assert.truthy(out:find("interrupted!", 1, true), out)
    assert.truthy(out:find("rc=1", 1, true), out)
    assert.falsy(out:find("not interrupted", 1, true), out)
  end)

  it("refuse a sleep that ends past the clock's range, naming it", function()
    local ok, err = pcall(function() monostamp.sleep_ns(int("9223372036854775807")) end)
    assert.is_false(ok)
    assert.matches("bad argument #1 to 'sleep_ns' (a sleep of 9223372036854775807 ns ends past "
                   .. "the monotonic clock's range)", err, 1, true)
  end)
end)
