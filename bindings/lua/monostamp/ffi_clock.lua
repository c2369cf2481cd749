-- monostamp/ffi_clock.lua: the clocks of monostamp.ffi, and the module's
-- functions on the default clock, made from the same bodies.  Loaded by
-- monostamp.ffi with its internals; sets M.clock and the default clock's
-- functions, and returns the Clock metatable.  A clock is a table holding
-- the core's clock pointer (monostamp_clock_new, freed by close() or the
-- collector); what it was made with is asked of the core each time.
local ffi = require "ffi"

return function(M, I)
  local C = I.C
  local argerror, failure = I.argerror, I.failure
  local tons = I.tons
  local stamp, ns_out, ns_out2, buf = I.stamp, I.ns_out, I.ns_out2, I.text_buf
  local str = ffi.string

  local TYPE = "monostamp.Clock"
  local Clock = { __name = TYPE }
  Clock.__index = Clock

  -- Self as an open clock's pointer; raises at the method's caller.
  local function toclock(self, fname)
    if getmetatable(self) ~= Clock then
      local got = type(self)
      if got == "cdata" then got = tostring(ffi.typeof(self)) end
      argerror(1, fname, TYPE .. " expected, got " .. got, 1)
    end
    local p = self._p
    if p == nil then error("attempt to use a closed clock", 3) end
    return p
  end

  -- Returns its arguments: `return pass(f())` keeps the frame that calls f,
  -- which argerror needs to tell a method call.
  local function pass(...) return ... end

  -- ---- the constructor ----

  local out = ffi.new("monostamp_clock *[1]")

  -- Types here, values by the core.
  local function tooptions(t, o)
    if type(t) ~= "table" then
      argerror(1, "clock", "table expected, got " .. type(t), 1)
    end
    for k in pairs(t) do
      if type(k) ~= "string" then
        argerror(1, "clock", "option names are strings, got " .. type(k), 1)
      elseif C.monostamp_option_unknown(k, buf, 256) ~= 0 then
        argerror(1, "clock", str(buf), 1)
      end
    end
    for _, field in ipairs { "policy", "source", "on_lead", "zone", "shared" } do
      if t[field] ~= nil then I.checkname(t[field], 1, "clock", field, 2) end
    end
    if t.trust_group ~= nil and type(t.trust_group) ~= "boolean" then
      argerror(1, "clock", "trust_group: boolean expected, got " .. type(t.trust_group), 1)
    end
    for _, field in ipairs { "policy", "source", "on_lead" } do
      if t[field] ~= nil then o[field] = I.checkoption(field, t[field], 1, "clock", 2) end
    end
    o.zone = t.zone      -- the table keeps the strings alive during the call
    o.shared_path = t.shared
    o.trust_group = t.trust_group and 1 or 0
    if t.max_lead_ns ~= nil then o.max_lead_ns = tons(t.max_lead_ns, 1, "clock", "max_lead_ns", 2) end
    if t.start_ns ~= nil then
      o.start_ns = tons(t.start_ns, 1, "clock", "start_ns", 2)
      o.has_start_ns = 1
    end
  end

  function M.clock(t)
    local o = ffi.new("monostamp_options")
    C.monostamp_options_init(o)
    if t ~= nil then tooptions(t, o) end
    if C.monostamp_options_text(o, buf, 256) ~= 0 then argerror(1, "clock", str(buf)) end
    local rc = C.monostamp_clock_new(o, out)
    if rc == M.EINVAL then argerror(1, "clock", str(C.monostamp_strerror(rc))) end
    if rc ~= 0 then  -- the core's sentence when the zone or the state file is to blame
      local n = C.monostamp_clock_init_fault(rc, o, buf, 4352)
      return failure(rc, n > 0 and { str(buf, n) } or rc == M.ENOZONE and "local zone" or "clock")
    end
    return setmetatable({ _p = ffi.gc(out[0], C.monostamp_clock_free) }, Clock)
  end

  -- ---- the calls a clock and the module share ----

  -- body(p, context, name, arg, x): `context(rc, call)` names a failure
  -- (MONOSTAMP_SHARED=path too for the default clock); `arg` numbers x as
  -- the caller wrote it: 2 for a method, 1 for a module function.
  -- A call refused: the core's sentence, and the argument it blames (1: the
  -- clock, 2: the value); `arg` as for the bodies below.
  local function clock_fault(p, rc, context, call, arg, value)
    local blamed = C.monostamp_clock_fault(p, call, rc, value, buf, 256)
    if blamed > 0 then argerror(blamed + arg - 2, call, str(buf), 1) end  -- tail-called
    return failure(rc, context, buf[0] ~= 0 and str(buf) or nil)
  end
  local function stamp_call(fn)
    return function(p, context, name)
      local rc = fn(p, stamp)
      if rc ~= 0 then return clock_fault(p, rc, context(rc, name), name, 1, 0) end
      return stamp.utc_ns, stamp.offset_s
    end
  end
  local function ns_call(fn)
    return function(p, context, name)
      local rc = fn(p, ns_out)
      if rc ~= 0 then return clock_fault(p, rc, context(rc, name), name, 1, 0) end
      return ns_out[0]
    end
  end
  local SHARED = {
    now = stamp_call(C.monostamp_now),
    now_us = stamp_call(C.monostamp_now_us),
    time_ns = ns_call(C.monostamp_time_ns),
    time_us = ns_call(C.monostamp_time_us),
    policy = function(p) return str(C.monostamp_policy_name(C.monostamp_clock_policy(p))) end,
    uuid7 = function(p, context)
      local rc = C.monostamp_uuid7(p, I.uuid_bytes)
      if rc ~= 0 then return clock_fault(p, rc, context(rc, "uuid7"), "uuid7", 1, 0) end
      C.monostamp_uuid_format(I.uuid_bytes, buf)
      return str(buf, 36)
    end,
    -- first (int64_t cdata), n and step of n stamps reserved at once.
    take = function(p, context, _, arg, n)
      n = tons(n, arg, "take", nil, 2)
      local rc = C.monostamp_clock_take(p, n, ns_out, ns_out2)
      if rc ~= 0 then return clock_fault(p, rc, context(rc, "take"), "take", arg, n) end
      return ns_out[0], tonumber(n), tonumber(ns_out2[0])
    end,
    set_policy = function(p, context, _, arg, name)
      local rc = C.monostamp_clock_set_policy(p, I.checkoption("policy", name, arg, "set_policy", 2))
      if rc ~= 0 then return failure(rc, context(rc, "set_policy")) end
      return true
    end,
  }

  local function own_context(_, call) return call end
  local dclock, default_context = I.dclock, I.default_context
  for name, body in pairs(SHARED) do
    Clock[name] = function(self, x)
      return pass(body(toclock(self, name), own_context, name, 2, x))
    end
    M[name] = function(x)
      if dclock == nil then  -- the default clock's error, each call
        local rc = C.monostamp_default_time_ns(ns_out)
        return failure(rc, default_context(rc, name))
      end
      return pass(body(dclock, default_context, name, 1, x))
    end
  end
  M.get_policy, M.policy = M.policy, nil  -- Squeak's `Time clockPolicy`

  -- ---- the other methods ----

  local GETTERS = {
    source = function(p) return str(C.monostamp_source_name(C.monostamp_clock_source(p))) end,
    zone = function(p) return str(C.monostamp_zone_name(C.monostamp_clock_zone(p))) end,
    max_lead_ns = C.monostamp_clock_max_lead_ns,
    on_lead = function(p) return str(C.monostamp_on_lead_name(C.monostamp_clock_on_lead(p))) end,
    is_shared = function(p) return C.monostamp_clock_is_shared(p) ~= 0 end,
  }
  for name, get in pairs(GETTERS) do
    Clock[name] = function(self) return get(toclock(self, name)) end
  end

  -- Counts are numbers (exact below 2^53); ns fields int64_t cdata.
  local NS_STATS = { largest_backward_ns = true, lead_ns = true, max_lead_ns = true }
  function Clock:stats()
    local st = ffi.new("monostamp_stats")
    C.monostamp_clock_stats(toclock(self, "stats"), st)
    local t = {}
    for _, f in ipairs { "readings", "backward_steps", "largest_backward_ns", "duplicates",
                         "forced_increments", "lead_ns", "max_lead_ns", "lead_waits",
                         "lead_errors" } do
      t[f] = NS_STATS[f] and st[f] or tonumber(st[f])
    end
    return t
  end

  -- set/advance: true, or an argument error.
  local function manual(self, what, fn, ns)
    local p = toclock(self, what)
    ns = tons(ns, 2, what, nil, 2)
    local rc = fn(p, ns)
    if rc ~= 0 then return clock_fault(p, rc, what, what, 2, ns) end
    return true
  end
  for what, fn in pairs { set = C.monostamp_manual_set, advance = C.monostamp_manual_advance } do
    Clock[what] = function(self, ns) return pass(manual(self, what, fn, ns)) end
  end

  -- close(): true; frees the clock now (idempotent).  Later calls raise.
  function Clock:close()
    if getmetatable(self) ~= Clock then argerror(1, "close", TYPE .. " expected, got " .. type(self)) end
    local p = self._p
    if p ~= nil then
      self._p = nil
      ffi.gc(p, nil)
      C.monostamp_clock_free(p)
    end
    return true
  end

  function Clock:__tostring()
    local p = self._p
    if p == nil then return TYPE .. " (closed)" end
    return string.format("%s (%s): %s", TYPE, str(buf, C.monostamp_clock_describe(p, buf, 768)),
                         tostring(p):match("0x%x+") or "?")
  end

  return Clock
end
