-- monostamp/ffi_clock.lua: the clocks of monostamp.ffi (LuaJIT).  Not for
-- require by users: monostamp.ffi loads it and hands it its internals, and
-- it returns the Clock metatable after setting M.clock.
--
-- A clock is a table holding the core's clock pointer, made by
-- monostamp_clock_new() (LuaJIT cannot promise a C struct never moves... it
-- does, but the header's contract for FFI hosts is new/free, so that is
-- what is used) and freed by close() or, through ffi.gc, by the collector.
-- What the clock was made with is asked of the core each time, as the C
-- module's userdata does: one truth, no copy.
local ffi = require "ffi"

return function(M, I)
  local C = I.C
  local argerror, selferror, failure = I.argerror, I.selferror, I.failure
  local tons, checkname, shown, nstr = I.tons, I.checkname, I.shown, I.nstr
  local stamp, ns_out, ns_out2 = I.stamp, I.ns_out, I.ns_out2

  local Clock = { __name = "monostamp.Clock" }
  Clock.__index = Clock
  local TYPE = "monostamp.Clock"

  -- The one checked accessor: self as an open clock's pointer.  Raises at
  -- the caller of the method (two frames up from here: the method).
  local function toclock(self, fname)
    if getmetatable(self) ~= Clock then
      local got = type(self)
      if got == "cdata" then got = tostring(ffi.typeof(self)) end
      selferror(fname, TYPE .. " expected, got " .. got, 1)
    end
    local p = self._p
    if p == nil then error("attempt to use a closed clock", 3) end
    return p
  end

  -- {=============================================== the constructor

  local OPTIONS = {
    max_lead_ns = true, on_lead = true, policy = true, shared = true, source = true,
    start_ns = true, trust_group = true, zone = true,
  }
  local out = ffi.new("monostamp_clock *[1]")
  local bad_field = ffi.new("const char *[1]")

  -- A name the core does not know becomes -1, which is no policy, source or
  -- action, so monostamp_options_check() names that field.
  local function lookup(fn, name, cell)
    if name == nil then return nil end
    return fn(name, cell) == 0 and tonumber(cell[0]) or -1
  end

  -- Fills `o` from the table `t`: types here, values by the core.  Called
  -- from M.clock (so argument errors are level 1).
  local function tooptions(t, o)
    if type(t) ~= "table" then
      argerror(1, "clock", "table expected, got " .. type(t), 1)
    end
    for k in pairs(t) do
      if type(k) ~= "string" then
        argerror(1, "clock", "option names are strings, got " .. type(k), 1)
      elseif not OPTIONS[k] then
        argerror(1, "clock", "unknown option '" .. k .. "'", 1)
      end
    end
    for _, field in ipairs { "policy", "source", "on_lead", "zone", "shared" } do
      if t[field] ~= nil then checkname(t[field], 1, "clock", field, 2) end
    end
    if t.trust_group ~= nil and type(t.trust_group) ~= "boolean" then
      argerror(1, "clock", "trust_group: boolean expected, got " .. type(t.trust_group), 1)
    end
    local v = lookup(C.monostamp_policy_from_name, t.policy, I.policy_out)
    if v then o.policy = v end
    v = lookup(C.monostamp_source_from_name, t.source, I.source_out)
    if v then o.source = v end
    v = lookup(C.monostamp_on_lead_from_name, t.on_lead, I.on_lead_out)
    if v then o.on_lead = v end
    o.zone = t.zone      -- the table keeps the strings alive during the call
    o.shared_path = t.shared
    o.trust_group = t.trust_group and 1 or 0
    if t.max_lead_ns ~= nil then o.max_lead_ns = tons(t.max_lead_ns, 1, "clock", "max_lead_ns", 2) end
    if t.start_ns ~= nil then
      o.start_ns = tons(t.start_ns, 1, "clock", "start_ns", 2)
      o.has_start_ns = 1
    end
  end

  -- clock{...}: as the C module's, from monostamp_clock_new.
  function M.clock(t)
    local o = ffi.new("monostamp_options")
    C.monostamp_options_init(o)
    if t ~= nil then tooptions(t, o) end
    local rc = C.monostamp_options_check(o, bad_field)
    if rc ~= 0 then
      local field = bad_field[0] ~= nil and ffi.string(bad_field[0]) or nil
      if field == nil then argerror(1, "clock", ffi.string(C.monostamp_strerror(rc))) end
      local rule = C.monostamp_options_rule(field)
      local option = field == "shared_path" and "shared" or field
      argerror(1, "clock", option .. "=" .. shown(t and t[option]) .. " "
               .. (rule ~= nil and ffi.string(rule) or "is not accepted"))
    end
    rc = C.monostamp_clock_new(o, out)
    if rc ~= 0 then
      if rc == M.EINVAL then argerror(1, "clock", ffi.string(C.monostamp_strerror(rc))) end
      local context
      if rc == M.ENOZONE and t and t.zone then
        -- The core's "did you mean", worded as the C module words it.
        local near = ffi.new("char[256]")
        local said = "zone '" .. t.zone .. "' is not a zone this machine knows \u{2014} "
        if C.monostamp_zone_suggest(t.zone, near, 256) == 0 then
          said = said .. "did you mean '" .. ffi.string(near) .. "'?"
        else
          said = said .. "give 'UTC', an IANA name such as 'Europe/Berlin' or a POSIX TZ string"
        end
        return nil, said, rc
      elseif rc == M.ENOZONE then
        context = "local zone"
      else
        context = t and t.shared or "clock"
      end
      return failure(rc, context)
    end
    return setmetatable({ _p = ffi.gc(out[0], C.monostamp_clock_free) }, Clock)
  end

  -- }===============================================

  -- {=============================================== methods

  function Clock:now()
    local rc = C.monostamp_now(toclock(self, "now"), stamp)
    if rc ~= 0 then return failure(rc, "now") end
    return stamp.utc_ns, stamp.offset_s
  end

  function Clock:time_ns()
    local rc = C.monostamp_time_ns(toclock(self, "time_ns"), ns_out)
    if rc ~= 0 then return failure(rc, "time_ns") end
    return ns_out[0]
  end

  function Clock:now_us()
    local rc = C.monostamp_now_us(toclock(self, "now_us"), stamp)
    if rc ~= 0 then return failure(rc, "now_us") end
    return stamp.utc_ns, stamp.offset_s
  end

  function Clock:time_us()
    local rc = C.monostamp_time_us(toclock(self, "time_us"), ns_out)
    if rc ~= 0 then return failure(rc, "time_us") end
    return ns_out[0]
  end

  -- take(n): n consecutive stamps reserved at once; returns the first
  -- (int64_t cdata), n and the step (1, or 1000 under the µs policy), as
  -- the C module's lids.c does.  Shared with monostamp.take (arg 1).
  function I.take(p, n, arg, context)
    n = tons(n, arg, "take", nil, 2)
    if n < 1 then argerror(arg, "take", "n=" .. nstr(n) .. " must be >= 1", 1) end
    local rc = C.monostamp_clock_take(p, n, ns_out, ns_out2)
    if rc == M.ERANGE then
      argerror(arg, "take", "n=" .. nstr(n) .. " stamps would pass the int64 range", 1)
    elseif rc == M.EPOLICY then
      return failure(rc, context, "the clock's policy "
                     .. ffi.string(C.monostamp_policy_name(C.monostamp_clock_policy(p)))
                     .. " allows equal stamps, so it has no blocks")
    elseif rc ~= 0 then
      return failure(rc, context)
    end
    return ns_out[0], tonumber(n), tonumber(ns_out2[0])
  end

  function Clock:take(n)
    local first, count, step = I.take(toclock(self, "take"), n, 2, "take")
    return first, count, step
  end

  function Clock:uuid7()
    local rc = C.monostamp_uuid7(toclock(self, "uuid7"), I.uuid_bytes)
    if rc ~= 0 then return failure(rc, "uuid7") end
    C.monostamp_uuid_format(I.uuid_bytes, I.uuid_text)
    return ffi.string(I.uuid_text, 36)
  end

  function Clock:policy()
    return ffi.string(C.monostamp_policy_name(C.monostamp_clock_policy(toclock(self, "policy"))))
  end

  function Clock:set_policy(name)
    local p = toclock(self, "set_policy")
    local rc = C.monostamp_clock_set_policy(p, I.checkpolicy(name, 2, "set_policy"))
    if rc ~= 0 then return failure(rc, "set_policy") end
    return true
  end

  function Clock:source()
    return ffi.string(C.monostamp_source_name(C.monostamp_clock_source(toclock(self, "source"))))
  end

  function Clock:zone()
    return ffi.string(C.monostamp_zone_name(C.monostamp_clock_zone(toclock(self, "zone"))))
  end

  function Clock:max_lead_ns()
    return C.monostamp_clock_max_lead_ns(toclock(self, "max_lead_ns"))
  end

  function Clock:on_lead()
    return ffi.string(C.monostamp_on_lead_name(C.monostamp_clock_on_lead(toclock(self, "on_lead"))))
  end

  function Clock:is_shared()
    return C.monostamp_clock_is_shared(toclock(self, "is_shared")) ~= 0
  end

  -- Counts are numbers (exact below 2^53); ns fields int64_t cdata.
  function Clock:stats()
    local st = ffi.new("monostamp_stats")
    C.monostamp_clock_stats(toclock(self, "stats"), st)
    return {
      readings = tonumber(st.readings), backward_steps = tonumber(st.backward_steps),
      largest_backward_ns = st.largest_backward_ns, duplicates = tonumber(st.duplicates),
      forced_increments = tonumber(st.forced_increments), lead_ns = st.lead_ns,
      max_lead_ns = st.max_lead_ns, lead_waits = tonumber(st.lead_waits),
      lead_errors = tonumber(st.lead_errors),
    }
  end

  -- set/advance: true, or an argument error (ENOTSUP: the clock is the bad
  -- value; ERANGE: the amount).
  local function manual(self, what, fn, ns)
    local p = toclock(self, what)
    ns = tons(ns, 2, what, nil, 2)
    local rc = fn(p, ns)
    if rc == M.ENOTSUP then
      selferror(what, what .. " needs a clock with source 'manual', this one's is '"
                .. ffi.string(C.monostamp_source_name(C.monostamp_clock_source(p))) .. "'", 1)
    elseif rc == M.ERANGE then
      argerror(2, what, what .. " by " .. nstr(ns) .. " ns would overflow the manual reading", 1)
    elseif rc ~= 0 then
      return failure(rc, what)
    end
    return true
  end

  -- Not `return manual(...)`: a tail call would drop the frame that tells
  -- argerror this was called as a method.
  function Clock:set(ns)
    local ok, msg, code = manual(self, "set", C.monostamp_manual_set, ns)
    if ok then return true end
    return ok, msg, code
  end

  function Clock:advance(ns)
    local ok, msg, code = manual(self, "advance", C.monostamp_manual_advance, ns)
    if ok then return true end
    return ok, msg, code
  end

  -- close(): true; frees the clock now (idempotent).  Later calls raise.
  function Clock:close()
    if getmetatable(self) ~= Clock then selferror("close", TYPE .. " expected, got " .. type(self)) end
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
    local zone = ffi.string(C.monostamp_zone_name(C.monostamp_clock_zone(p)))
    local lead = C.monostamp_clock_max_lead_ns(p)
    return string.format("%s (%s, %s, zone '%s'%s%s): %s", TYPE,
      ffi.string(C.monostamp_source_name(C.monostamp_clock_source(p))),
      ffi.string(C.monostamp_policy_name(C.monostamp_clock_policy(p))),
      zone ~= "" and zone or "local",
      lead > 0 and (", max_lead_ns " .. nstr(lead) .. " "
                    .. ffi.string(C.monostamp_on_lead_name(C.monostamp_clock_on_lead(p)))) or "",
      C.monostamp_clock_is_shared(p) ~= 0 and ", shared" or "",
      tostring(p):match("0x%x+") or "?")
  end

  -- }===============================================

  return Clock
end
