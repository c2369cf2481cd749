-- monostamp/sleep_finish.lua: the end of every sleep_ns and sleep_until_ns,
-- spun in Lua (issue 23, docs/sleep.md).  For the C module (Lua 5.3-5.5:
-- monostamp.lua registers it) and for monostamp.ffi (LuaJIT), so it is
-- written in the Lua both understand: no integer division, no math.type.
--
-- Why: the core wakes within a fraction of a microsecond of its deadline,
-- but the caller's Lua code runs later than that: after a long sleep the
-- way back into the interpreter is cold (measured from Lua, a 30 ms sleep
-- at tolerance 0 ended a median 9.2 us late).  A sleep's contract -- asked
-- for X with tolerance D, the caller runs between X and X + D -- is about
-- the caller's code, so the binding checks its arguments and reads the
-- clock, then calls finish(deadline, tolerance), which
--
--   * has the core sleep to a *lead* before the deadline, at tolerance 0,
--     so the core returns exactly there;
--   * calls the binding's sleep_until_ns once with a past deadline: the
--     very path the sleep's end will take (the binding's C function or Lua
--     wrapper, this finish, their returns), last run before the sleep and
--     cold after milliseconds of other processes on the CPU, is warm when
--     the spin ends (at 30 ms: a median 1.3-1.8 us late -> 0.9-1.4 us,
--     against an empty Lua call in each turn of the spin);
--   * spins in Lua on monotonic_ns() until the deadline.  The only exit is
--     a reading at or past the deadline: never early.  lua.c's Ctrl-C hook
--     interrupts a Lua loop, so the spin is interruptible too; the core's
--     part is made in slices of 50 ms for the same reason.
--
-- When the tolerance is at least the lead, the core alone lands inside it:
-- it sleeps to the deadline with tolerance D - lead, and no spin follows.
--
-- The lead is learned per band of lengths (the time left at the call, by
-- powers of 10 from 10 us to 1 s), as the core learns its margin.  Each
-- sleep that spins observes x, how late after the core's return Lua got
-- control; the lead covers x + x/4 + 2 us at once (at most 4x per step) and
-- comes down by 1/32 of the gap, so it tracks the recent worst case.  It is
-- clamped to [15 us, 250 us]; a band not observed yet starts from the
-- nearest shorter band's observed lead when that is higher.
--
-- Numbers: under Lua 5.3+ every value here is an integer (math.floor of an
-- integer-valued float is an integer).  Under LuaJIT a deadline may be
-- int64_t cdata; only differences (small) become numbers, by tonumber.
local M = {}

M.LEAD_MIN_NS = 15000
M.LEAD_MAX_NS = 250000
local HEADROOM_NS = 2000
local DECAY = 32
local JUMP_MAX = 4
-- Band b (1-based) takes sleeps with less than LIMITS[b] ns left.
local LIMITS = { 10000, 100000, 1000000, 10000000, 100000000, 1000000000 }
local BANDS = #LIMITS + 1
-- Starting leads: several times the median x Lua showed here from fresh
-- processes (issue 23: 0.3 / 3.8 / 9.2 us at 0.3 / 3 / 30 ms), so a
-- process's first sleeps are on time before it has learned anything; the
-- first two bands spin whole anyway.
local START = { 15000, 15000, 25000, 40000, 80000, 150000, 200000 }

-- The core sleeps in slices of at most this, so that Lua code runs between
-- them: the core resumes its sleep after a signal, and lua.c's Ctrl-C hook
-- fires only in Lua code.  Only the last slice takes the caller's tolerance.
local SLICE_NS, SLICE_TOLERANCE_NS = 50000000, 5000000

local floor, tonumber = math.floor, tonumber
local JIT = rawget(_G, "jit")  -- LuaJIT's jit library, else nil

local function clamp(ns)
  if ns < M.LEAD_MIN_NS then return M.LEAD_MIN_NS end
  if ns > M.LEAD_MAX_NS then return M.LEAD_MAX_NS end
  return ns
end

local function band_of(left)
  for b = 1, BANDS - 1 do
    if left < LIMITS[b] then return b end
  end
  return BANDS
end

-- A finisher over `now` (returns the monotonic clock in ns), `core`
-- (core(deadline, tolerance): the core's sleep alone; returns true, or the
-- binding's failure results) and `warm` (optional: called once after the
-- core's part, it should take the path the sleep's end will take, e.g. the
-- binding's sleep_until_ns with a past deadline).  Returns the finish
-- function and a table of the lead's state for tests and benchmarks.
function M.new(now, core, warm)
  local leads, seen = {}, {}
  local state = {}

  function state.reset()
    for b = 1, BANDS do leads[b], seen[b] = START[b], false end
  end
  state.reset()

  local function lead_of(b)
    local lead = leads[b]
    if seen[b] then return lead end
    for s = b - 1, 1, -1 do
      if seen[s] then return leads[s] > lead and leads[s] or lead end
    end
    return lead
  end

  -- One observed return lateness for band b.  `exact`: after a core sleep
  -- at tolerance 0, so it may lower the lead; else only raise it.
  local function observe(b, late, exact)
    if late < 0 then late = 0 elseif late > M.LEAD_MAX_NS then late = M.LEAD_MAX_NS end
    local want = clamp(late + floor(late / 4) + HEADROOM_NS)
    local lead = lead_of(b)
    if want > lead then
      lead = want < lead * JUMP_MAX and want or lead * JUMP_MAX
    elseif exact then
      lead = lead - floor((lead - want + DECAY - 1) / DECAY)  -- rounded up: it gets there
    end
    leads[b], seen[b] = clamp(lead), true
  end

  -- The core's sleep to `target`, in slices (see SLICE_NS); t: a reading
  -- of the clock taken just before.
  local function core_to(target, tolerance, t)
    while target - t > SLICE_NS do
      local ok, why, code = core(t + SLICE_NS, SLICE_TOLERANCE_NS)
      if not ok then return ok, why, code end
      t = now()
    end
    return core(target, tolerance)
  end

  local function finish(deadline, tolerance)
    local t = now()
    if t >= deadline then return true end  -- also: a far past one, never subtracted from
    local left = tonumber(deadline - t)
    if left > M.LEAD_MIN_NS then  -- else shorter than any lead: the spin alone
      local b = band_of(left)
      local lead = lead_of(b)
      if tolerance >= lead then
        -- The core alone lands in [T, T + D - lead]; Lua follows within
        -- the lead.  Its lateness less that allowance is a lower bound.
        local core_tolerance = tolerance - lead
        local ok, why, code = core_to(deadline, core_tolerance, t)
        if not ok then return ok, why, code end
        observe(b, tonumber(now() - deadline - core_tolerance), false)
        return true
      end
      if left > lead then
        local target = deadline - lead
        local ok, why, code = core_to(target, 0, t)
        if not ok then return ok, why, code end
        observe(b, tonumber(now() - target), true)
        if warm then warm() end
      end
    end
    while now() < deadline do end
    return true
  end

  -- LuaJIT: the spin runs in the interpreter, as under Lua 5.x.  Compiled,
  -- every spin ends in a side exit of its trace, and until that exit has
  -- been taken 10 times (and gets a side trace of its own) it is the slow,
  -- and after a long sleep cold, exit handler: the first ~10 sleeps of
  -- 30 ms of a process ended 2.5-3.5 us late against 0.5-1 us interpreted.
  if JIT then JIT.off(finish) end

  function state.lead_ns(length_ns) return lead_of(band_of(length_ns)) end
  function state.set_lead(length_ns, lead)
    local b = band_of(length_ns)
    leads[b], seen[b] = clamp(lead), true
  end
  state.band_of, state.observe, state.seen, state.finish = band_of, observe, seen, finish
  function state.lead_of_band(b) return lead_of(b) end
  return finish, state
end

-- The C module (Lua 5.3+): registers a finisher with monostamp.core, once
-- per module table, and returns its state.
local registered = setmetatable({}, { __mode = "k" })

function M.register(core)
  if registered[core] then return registered[core] end
  local sleep_until_ns = core.sleep_until_ns
  local finish, state = M.new(core.monotonic_ns, core._sleep_until_core,
                              function() sleep_until_ns(0) end)
  core._sleep_finish(finish)
  registered[core] = state
  return state
end

-- The state of the finisher registered with `core`, or nil.
function M.state(core)
  return registered[core]
end

return M
