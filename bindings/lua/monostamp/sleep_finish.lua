-- monostamp/sleep_finish.lua: the end of every sleep_ns and sleep_until_ns,
-- in Lua (issue 23, docs/sleep.md), for the C module (Lua 5.3-5.5:
-- monostamp.lua registers it) and for monostamp.ffi (LuaJIT): written in
-- the Lua both understand.
--
-- The core plans each sleep (csrc/sleep_finish.c: naps to a lead it has
-- learned before the deadline, per band of lengths) and the binding begins
-- the plan in C, then calls finish(deadline, plan, what) with its first
-- step.  What must run in Lua is here, because after a long sleep the
-- caller's Lua code runs late (the way back into the interpreter is cold):
--
--   * the naps one by one, so that lua.c's Ctrl-C hook, which fires only
--     in Lua code, runs between them (the core resumes a sleep after a
--     signal; a nap is at most 50 ms);
--   * the reading after the core's part, taken in Lua: the plan learns from
--     it how late Lua had control;
--   * one call of the binding's sleep_until_ns with a past deadline: the
--     path the sleep's end will take (the binding's C function or Lua
--     wrapper, this finish, their returns), cold after milliseconds of other
--     processes on the CPU, is warm when the spin ends (at 30 ms: a median
--     1.3-1.8 us late -> 0.9-1.4 us);
--   * the spin on monotonic_ns() until the deadline.  Its only exit is a
--     reading at or past the deadline: never early.
local M = {}

-- The steps: monostamp.h's MONOSTAMP_SLEEP_* (tests/luajit/sleep_spec.lua
-- holds them to the header).
M.DONE, M.NAP, M.SPIN, M.WARM = 0, 1, 2, 3

local JIT = rawget(_G, "jit")  -- LuaJIT's jit library, else nil

-- A finish over `now` (the monotonic clock in ns), `nap(plan)` (the core's
-- nap the plan says: true, or the binding's failure results), `step(plan,
-- reading)` (the plan's next step) and `warm` (the path of the sleep's end).
function M.new(now, nap, step, warm)
  local NAP, WARM, DONE = M.NAP, M.WARM, M.DONE
  local function finish(deadline, plan, what)
    while what == NAP do
      local ok, why, code = nap(plan)
      if not ok then return ok, why, code end
      what = step(plan, now())
    end
    if what == DONE then return true end
    if what == WARM then warm() end
    while now() < deadline do end
    return true
  end
  -- LuaJIT: the finish runs in the interpreter, as under Lua 5.x.
  -- Compiled, every spin ends in a side exit of its trace, and until that
  -- exit has been taken 10 times (and gets a side trace of its own) it is
  -- the slow, and after a long sleep cold, exit handler: the first ~10
  -- sleeps of 30 ms of a process ended 2.5-3.5 us late against 0.5-1 us
  -- interpreted.
  if JIT then JIT.off(finish) end
  return finish
end

-- The C module (Lua 5.3+): registers a finish with monostamp.core, once
-- per module table, and returns it.
local registered = setmetatable({}, { __mode = "k" })

function M.register(core)
  if not registered[core] then
    local sleep_until_ns = core.sleep_until_ns
    registered[core] = M.new(core.monotonic_ns, core._sleep_nap, core._sleep_step,
                             function() sleep_until_ns(0) end)
    core._sleep_finish(registered[core])
  end
  return registered[core]
end

return M
