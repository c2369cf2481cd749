-- monostamp/testing.lua: require "monostamp.testing", clocks for busted
-- (docs/lua.md): strict_clock(), manual_clock{...} and patch(clock) of
-- os.time, os.date and socket.gettime.  Pure Lua over the binding, no
-- policy of its own.  Every failure raises: in a test's setup there is
-- nothing to fall back to.
local monostamp = require "monostamp"

local testing = {
  _NAME = "monostamp.testing",
  _VERSION = monostamp._VERSION,
  -- 2000-01-01T00:00:00Z in ns since the Unix epoch: the manual clock's start.
  EPOCH_2000_NS = 946684800 * 1000000000,
  STRICT_POLICY = "monotonicForceNanosecondIncrement",
  DEFAULT_ZONE = "UTC",
}

local STRICT = testing.STRICT_POLICY

-- Raises `bad argument #1 to 'fname' (why)` at the public function's
-- caller: `depth` 1 when argerror's caller is the public function.
local function argerror(depth, fname, why)
  error(string.format("bad argument #1 to '%s' (%s)", fname, why), depth + 2)
end

-- Integer ns or, if `text_ok`, ISO 8601 text (its offset only locates the
-- instant); else an argument error at depth 2, prefixed by `what`.
local function ns_or_raise(fname, what, v, text_ok)
  if math.type(v) == "integer" then
    return v
  elseif text_ok and type(v) == "string" then
    local ns, err = monostamp.parse(v)
    if ns then return ns end
    argerror(2, fname, what .. err:gsub("^parse: ", ""))  -- the core's sentence quotes v
  end
  local got = math.type(v) == "float" and ("float " .. tostring(v)) or type(v)
  argerror(2, fname, string.format("%sinteger nanoseconds%s expected, got %s", what,
                                   text_ok and " or ISO 8601 text" or "", got))
end

-- Calls the binding's `f`; its argument error (no position, and the clock
-- counted) is raised again as one of `fname` at the user's line.
local function call_raising(depth, fname, f, ...)
  local ok, r, err = pcall(f, ...)
  if ok then return r, err end
  r = tostring(r)
  argerror(depth + 1, fname, r:match("^bad argument #%d+ to '[^']*' %((.*)%)$") or r)
end

-- ---- the strict clock ----

function testing.shared_path()
  local path = os.getenv("MONOSTAMP_SHARED")
  return path ~= "" and path or nil
end

-- One per process and state file: two private clocks would be two sequences.
local strict_clocks = {}

function testing.strict_clock(...)
  if select("#", ...) > 0 then
    argerror(1, "strict_clock", "no arguments expected; for other options use monostamp.clock{}")
  end
  local path = testing.shared_path()
  local key = path or ""
  local c = strict_clocks[key]
  -- A test that closed it, or changed its policy, must not spoil the run.
  if c ~= nil and tostring(c):find("(closed)", 1, true) then
    c = nil
  end
  if c == nil then
    local err
    c, err = monostamp.clock{ policy = STRICT, shared = path }
    if c == nil then
      -- The core's sentence names the option ("shared='path': why"), whose
      -- value came from MONOSTAMP_SHARED: the message names that.
      error("monostamp.testing.strict_clock: " .. err:gsub("^shared=", "MONOSTAMP_SHARED="), 2)
    end
    strict_clocks[key] = c
  elseif c:policy() ~= STRICT then
    c:set_policy(STRICT)
  end
  return c, path
end

-- ---- the manual clock ----

-- The binding's clock as `clock`, and its methods: the ones below, and any
-- other key the clock's method of that name.
local ManualClock = { __name = "monostamp.testing.ManualClock" }
local methods = {}

ManualClock.__index = function(self, key)
  local m = methods[key]
  if m == nil and type(key) == "string" and rawget(self, "clock")[key] ~= nil then
    m = function(mc, ...)
      local c = mc.clock
      return c[key](c, ...)
    end
    methods[key] = m
  end
  return m
end

function ManualClock.__tostring(self)
  return "monostamp.testing.ManualClock: " .. tostring(self.clock)
end

function ManualClock.__close(self)
  self.clock:close()
end

function methods.set(self, t)
  call_raising(1, "set", self.clock.set, self.clock, ns_or_raise("set", "", t, true))
  return true
end

function methods.advance(self, delta_ns)
  delta_ns = ns_or_raise("advance", "", delta_ns)
  call_raising(1, "advance", self.clock.advance, self.clock, delta_ns)
  return true
end

-- An NTP step, a VM restore.
function methods.step_back(self, ns)
  ns = ns_or_raise("step_back", "", ns)
  if ns < 0 then
    argerror(1, "step_back",
             string.format("ns must be >= 0, not %d; advance moves forward", ns))
  end
  call_raising(1, "step_back", self.clock.advance, self.clock, -ns)
  return true
end

local manual_options = {
  start = true, zone = true, policy = true, max_lead_ns = true, on_lead = true,
}

-- max_lead_ns defaults to 0, no bound: a test draws as fast as it likes.
function testing.manual_clock(options)
  if options == nil then
    options = {}
  elseif type(options) ~= "table" then
    argerror(1, "manual_clock", "table expected, got " .. type(options))
  end
  for key in pairs(options) do
    if not manual_options[key] then
      argerror(1, "manual_clock", type(key) == "string"
               and string.format("unknown option '%s'", key)
               or "option names are strings, got " .. type(key))
    end
  end
  local c, err = call_raising(1, "manual_clock", monostamp.clock, {
    source = "manual",
    start_ns = options.start == nil and testing.EPOCH_2000_NS
               or ns_or_raise("manual_clock", "start: ", options.start, true),
    zone = options.zone == nil and testing.DEFAULT_ZONE or options.zone,
    policy = options.policy,
    max_lead_ns = options.max_lead_ns or 0,
    on_lead = options.on_lead,
  })
  if c == nil then  -- a runtime failure: an unknown zone
    error("monostamp.testing.manual_clock: " .. err, 2)
  end
  return setmetatable({ clock = c }, ManualClock)
end

-- ---- patch ----

-- Functions drawing from a clock go into the tables' fields; a reference
-- taken before (`local time = os.time`) keeps the original (docs/lua.md).
-- The patches in force, outermost first: { saved = { {tbl, key, value},
-- ... }, where = "file:line", restored = bool }.
local active = {}

local function undo_top()
  local record = active[#active]
  for i = #record.saved, 1, -1 do
    local e = record.saved[i]
    e[1][e[2]] = e[3]
  end
  record.restored = true
  active[#active] = nil
end

local NS_PER_S = 1000000000

-- %z ("+hhmm", seconds dropped) and %Z of an offset.  The core's zones
-- carry no abbreviations: as tzdata writes zones that have none ("+01",
-- "+0530"), and "UTC" at 0.
local function offset_texts(offset)
  local a = offset < 0 and -offset or offset
  local hh = string.format("%s%02d", offset < 0 and "-" or "+", a // 3600)
  local mm = string.format("%02d", a % 3600 // 60)
  return hh .. mm, offset == 0 and "UTC" or mm == "00" and hh or hh .. mm
end

-- %z and %Z written out, the rest left for os.date ("%%z" stays "%z").
local function local_format(fmt, offset)
  local z, abbr = offset_texts(offset)
  return (fmt:gsub("%%(.)", function(c)
    return c == "z" and z or c == "Z" and abbr or "%" .. c
  end))
end

-- The original os.`name`'s one result; its error raised again at the line
-- that called the patched function (which must not tail-call this), named
-- as unpatched (through pcall it names no function: '?').
local function call_original(name, f, ...)
  local ok, r = pcall(f, ...)
  if ok then
    return r
  end
  if type(r) == "string" then
    r = r:gsub("^bad argument #(%d+) to '%?'", "bad argument #%1 to '" .. name .. "'", 1)
  end
  error(r, 3)
end

-- os.time() never fails: a refused stamp raises at the caller's line.
local function stamp_failed(what, msg)
  error("monostamp.testing.patch: " .. what .. ": " .. tostring(msg), 3)
end

-- nil (the default clock), the binding's clock or a manual clock.
local function patch_clock(c)
  if c == nil then
    return nil
  end
  if getmetatable(c) == ManualClock then
    c = rawget(c, "clock")
  end
  local mt = getmetatable(c)
  if type(c) ~= "userdata" or type(mt) ~= "table" or mt.__name ~= "monostamp.Clock" then
    argerror(2, "patch", "monostamp.Clock, manual clock or nil expected, got " .. type(c))
  end
  if tostring(c):find("(closed)", 1, true) then
    argerror(2, "patch", "the clock is closed")
  end
  return c
end

-- Of the tables `a` and `b`, each once (LuaSocket's "socket" and
-- "socket.core" are usually one), those holding a function `key`.
local function holders(key, a, b)
  local out = {}
  if type(a) == "table" and type(a[key]) == "function" then out[1] = a end
  if type(b) == "table" and b ~= a and type(b[key]) == "function" then out[#out + 1] = b end
  return out
end

function testing.patch(clock)
  local c = patch_clock(clock)
  -- The default clock's functions ignore their argument: f(c) for both.
  local from = c or monostamp
  local time_ns, now, time_us = from.time_ns, from.now, from.time_us
  local time, date = os.time, os.date

  local function patched_time(t, ...)
    if t ~= nil then
      local r = call_original("time", time, t, ...)
      return r
    end
    local ns, msg = time_ns(c)
    if ns == nil then stamp_failed("os.time()", msg) end
    return ns // NS_PER_S
  end

  -- Local formats are the stamp's local time formatted as UTC: the clock's
  -- zone decides, not the C library's.
  local function patched_date(fmt, t, ...)
    -- The format as luaL_optstring takes it.
    local f = fmt == nil and "%c" or type(fmt) == "number" and tostring(fmt) or fmt
    if t ~= nil or type(f) ~= "string" then  -- the original's result, or its argument error
      local r = call_original("date", date, fmt, t, ...)
      return r
    end
    if f:sub(1, 1) == "!" then
      local ns, msg = time_ns(c)
      if ns == nil then stamp_failed("os.date()", msg) end
      local r = call_original("date", date, f, ns // NS_PER_S)
      return r
    end
    local ns, offset = now(c)
    if ns == nil then stamp_failed("os.date()", offset) end
    local wall = ns // NS_PER_S + offset
    if f == "*t" then
      -- isdst unknown: nil, and os.time(t) lets mktime decide.
      local fields = call_original("date", date, "!*t", wall)
      fields.isdst = nil
      return fields
    end
    local r = call_original("date", date, "!" .. local_format(f, offset), wall)
    return r
  end

  -- From a whole-µs stamp: distinct µs stay distinct doubles (~240 ns apart
  -- today), with one rounding.
  local function patched_gettime()
    local ns, msg = time_us(c)
    if ns == nil then stamp_failed("socket.gettime()", msg) end
    return (ns // 1000) / 1e6
  end

  local saved = {}
  local function swap(tbl, key, value)
    saved[#saved + 1] = { tbl, key, tbl[key] }
    tbl[key] = value
  end
  for _, tbl in ipairs(holders("time", os, package.loaded.os)) do
    swap(tbl, "time", patched_time)
    swap(tbl, "date", patched_date)
  end
  for _, tbl in ipairs(holders("gettime", package.loaded.socket, package.loaded["socket.core"])) do
    swap(tbl, "gettime", patched_gettime)
  end

  local info = debug.getinfo(2, "Sl")
  local record = {
    saved = saved,
    where = info and (info.short_src .. ":" .. (info.currentline or "?")) or "?",
    restored = false,
    clock = c,  -- held: the clock lives as long as the patch
  }
  active[#active + 1] = record

  return function()
    if record.restored then
      return true
    end
    local top = active[#active]
    if top ~= record then
      error(string.format("monostamp.testing.patch: restore out of order: the patch made at %s "
                          .. "is still active inside the one made at %s; restore it first",
                          top.where, record.where), 2)
    end
    undo_top()
    return true
  end
end

-- For an after_each: every patch undone, innermost first; how many.
function testing.restore_all()
  local n = #active
  for _ = 1, n do
    undo_top()
  end
  return n
end

return testing
