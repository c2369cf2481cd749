-- monostamp/sleep_finish.lua: the end of every sleep, in Lua, for the C
-- module and monostamp.ffi (docs/sleep.md).  The binding begins the core's
-- plan and calls finish(deadline, plan, what).  Here, because after a long
-- sleep the caller's Lua code runs late: the naps one by one (Ctrl-C hooks
-- fire only in Lua code), the reading after them (the plan learns how late
-- Lua had control), one warming call of sleep_until_ns(0) (the path of the
-- sleep's end, cold after the nap), and the spin, whose only exit is a
-- reading at or past the deadline.
local M = {}

-- monostamp.h's MONOSTAMP_SLEEP_* (tests/lua/ffi_sleep_spec.lua checks).
M.DONE, M.NAP, M.SPIN, M.WARM = 0, 1, 2, 3

local JIT = rawget(_G, "jit")  -- LuaJIT's jit library, else nil

-- now(): the monotonic clock; nap(plan): true or the binding's failure;
-- step(plan, reading): the next step; warm(): the path of the sleep's end.
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
  -- LuaJIT: interpreted.  Compiled, each spin ends in a side exit, slow
  -- and cold until it has been taken 10 times (docs/sleep.md).
  if JIT then JIT.off(finish) end
  return finish
end

-- The C module's finish, registered once per module table.
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
