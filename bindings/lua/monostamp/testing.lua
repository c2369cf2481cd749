-- monostamp/testing.lua: require "monostamp.testing", clocks for busted.
--
-- The Lua counterpart of the pytest plugin, in pure Lua over the binding:
--
--   testing.strict_clock()     the run's strict clock: unique, increasing
--                              stamps, joined to MONOSTAMP_SHARED when set,
--                              so pytest workers, Lua subprocesses and this
--                              process draw from one sequence
--   testing.manual_clock{...}  a manual clock for deterministic tests: start
--                              2000-01-01T00:00:00Z, zone "UTC", with set,
--                              advance and step_back
--   testing.patch(clock)       os.time(), os.date(fmt) and LuaSocket's
--                              socket.gettime() drawn from a clock until the
--                              restore function it returns is called
--
-- It adds no policy of its own; the core decides every stamp.  Unlike the
-- binding, whose runtime failures return nil, message, code, these helpers
-- raise on every failure: in a test's setup there is nothing to fall back
-- to, and an error at the caller's line is what one wants to read.  Their
-- setters return true, as the binding's do.
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

-- Raises `bad argument #1 to 'fname' (why)`, as luaL_argerror words it, at
-- the line that called the public function: `depth` is how many of this
-- module's functions stand between (1: argerror's caller is that function).
local function argerror(depth, fname, why)
  error(string.format("bad argument #1 to '%s' (%s)", fname, why), depth + 2)
end

-- `v` as integer nanoseconds or, if `text_ok`, an instant in ISO 8601 text
-- (its offset only locates the instant: the clock's zone gives the stamps'
-- offsets); else an argument error of `fname` at depth 2, the reason
-- prefixed by `what` for an option ("start: ...").
local function ns_or_raise(fname, what, v, text_ok)
  if math.type(v) == "integer" then
    return v
  elseif text_ok and type(v) == "string" then
    local ns, err = monostamp.parse(v)
    -- The text itself is the better context than parse's name.
    if ns then return ns end
    argerror(2, fname, string.format("%s%q: %s", what, v, (err:gsub("^parse: ", ""))))
  end
  local got = math.type(v) == "float" and ("float " .. tostring(v)) or type(v)
  argerror(2, fname, string.format("%sinteger nanoseconds%s expected, got %s", what,
                                   text_ok and " or ISO 8601 text" or "", got))
end

-- Calls the binding's `f`; re-raises its argument error (whose C function
-- carries no position, and numbers the clock's argument too) as one of
-- `fname` at the user's line, keeping its reason.  `depth` as for argerror.
local function call_raising(depth, fname, f, ...)
  local ok, r, err = pcall(f, ...)
  if ok then return r, err end
  r = tostring(r)
  argerror(depth + 1, fname, r:match("^bad argument #%d+ to '[^']*' %((.*)%)$") or r)
end


-- {==================================================== the strict clock

-- MONOSTAMP_SHARED's path, or nil when it is unset or empty.
function testing.shared_path()
  local path = os.getenv("MONOSTAMP_SHARED")
  if path == nil or path == "" then
    return nil
  end
  return path
end

-- One strict clock per process and state file: every strict_clock() of a
-- busted run returns the same clock, so stamps are unique across tests even
-- without MONOSTAMP_SHARED (two private clocks would be two sequences).
local strict_clocks = {}

function testing.strict_clock(...)
  if select("#", ...) > 0 then
    argerror(1, "strict_clock", "no arguments expected; for other options use monostamp.clock{}")
  end
  local path = testing.shared_path()
  local key = path or ""
  local c = strict_clocks[key]
  -- A test that closed it, or changed its policy, spoils it for the rest of
  -- the run: repair it here rather than hand out a broken clock.
  if c ~= nil and tostring(c):find("(closed)", 1, true) then
    c = nil
  end
  if c == nil then
    local err
    c, err = monostamp.clock{ policy = STRICT, shared = path }
    if c == nil then
      -- The file, or (rarely) a local zone the core cannot read.
      local what = (path and err:sub(1, #path + 1) == path .. ":") and "MONOSTAMP_SHARED=" or ""
      error("monostamp.testing.strict_clock: " .. what .. err, 2)
    end
    strict_clocks[key] = c
  elseif c:policy() ~= STRICT then
    c:set_policy(STRICT)
  end
  return c, path
end

-- }====================================================


-- {==================================================== the manual clock

-- A manual clock: a table holding the binding's clock as `clock`.  Its own
-- methods below; every other key is the clock's method of that name, so
-- mc:now(), mc:policy(), mc:stats(), mc:close() ... work as on the clock.
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

-- Sets the reading: integer ns, or ISO 8601 text.
function methods.set(self, t)
  call_raising(1, "set", self.clock.set, self.clock, ns_or_raise("set", "", t, true))
  return true
end

-- Moves the reading by `delta_ns` (negative: back).
function methods.advance(self, delta_ns)
  delta_ns = ns_or_raise("advance", "", delta_ns)
  call_raising(1, "advance", self.clock.advance, self.clock, delta_ns)
  return true
end

-- Moves the reading back by `ns` (>= 0): an NTP step, a VM restore.
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

-- testing.manual_clock{ start =, zone =, policy =, max_lead_ns =, on_lead = }:
-- every field optional; start (integer ns or ISO 8601 text) defaults to
-- EPOCH_2000_NS, zone to "UTC", max_lead_ns to 0 (no bound: the test draws
-- as fast as it likes; steps back need none, the core goes on from the last
-- stamp either way), the rest to monostamp.clock's defaults.
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
  local start = testing.EPOCH_2000_NS
  if options.start ~= nil then
    start = ns_or_raise("manual_clock", "start: ", options.start, true)
  end
  local zone = options.zone
  if zone == nil then zone = testing.DEFAULT_ZONE end
  local c, err = call_raising(1, "manual_clock", monostamp.clock, {
    source = "manual",
    start_ns = start,
    zone = zone,
    policy = options.policy,
    max_lead_ns = options.max_lead_ns or 0,
    on_lead = options.on_lead,
  })
  if c == nil then  -- a runtime failure: an unknown zone
    error("monostamp.testing.manual_clock: " .. err, 2)
  end
  return setmetatable({ clock = c }, ManualClock)
end

-- }====================================================


-- {==================================================== patch

-- Code under test calls os.time(), os.date() and socket.gettime() itself,
-- not monostamp: patch() puts functions drawing from a clock in their
-- tables' fields, and its restore function puts back what was there.  Lua
-- cannot swap a C function in place, so a reference taken before (`local
-- time = os.time`) keeps the original: that is the limit of this approach,
-- and the docs say so.

-- The patches in force, outermost first.  Each is a record:
-- { saved = { {tbl, key, value}, ... }, where = "file:line", restored = bool }.
local active = {}

-- Puts back what the innermost patch replaced, and drops it.
local function undo_top()
  local record = active[#active]
  for i = #record.saved, 1, -1 do
    local e = record.saved[i]
    e[1][e[2]] = e[3]
  end
  record.restored = true
  active[#active] = nil
end

-- Seconds of a stamp, floored (before 1970 too).
local NS_PER_S = 1000000000

-- %z and %Z of an offset: "+hhmm" as strftime writes it (seconds
-- dropped), and the zone abbreviation.  The core's zones carry no
-- abbreviations, so it is written as tzdata writes zones that have none:
-- "+01", "+0530", "-03"; and "UTC" at offset 0.
local function offset_texts(offset)
  local a = offset < 0 and -offset or offset
  local hh = string.format("%s%02d", offset < 0 and "-" or "+", a // 3600)
  local mm = string.format("%02d", a % 3600 // 60)
  return hh .. mm, offset == 0 and "UTC" or mm == "00" and hh or hh .. mm
end

-- `fmt` (a local format, no "!") with %z and %Z written out for `offset`,
-- every other conversion left for os.date.  Pairs are taken left to right,
-- so "%%z" stays the literal text "%z".
local function local_format(fmt, offset)
  if not fmt:find("%", 1, true) then
    return fmt
  end
  local z, abbr = offset_texts(offset)
  return (fmt:gsub("%%(.)", function(c)
    return c == "z" and z or c == "Z" and abbr or "%" .. c
  end))
end

-- Calls the original `f` (os.`name`) and returns its one result.  Called
-- directly from here, the original's errors would point at this module's
-- line; called through pcall, an argument error names no function ('?').
-- So it is called through pcall, its argument error named as Lua names it
-- unpatched, and re-raised at the line that called the patched function
-- (which must not tail-call this, or that line is gone).
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

-- A clock's stamp or a raise: the patched functions have no nil, message
-- to return (os.time() never fails), so a refused stamp (the lead bound's
-- "error" action, the end of int64) is an error at the caller's line.
local function stamp_failed(what, msg)
  error("monostamp.testing.patch: " .. what .. ": " .. tostring(msg), 3)
end

-- The clock argument of patch(): nil (the default clock), the binding's
-- clock, or a testing.manual_clock (its `clock`).
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

-- The LuaSocket tables loaded now ("socket" and "socket.core" are usually
-- one table), each once.
local function socket_tables()
  local out, seen = {}, {}
  for _, name in ipairs{ "socket", "socket.core" } do
    local t = package.loaded[name]
    if type(t) == "table" and not seen[t] and type(t.gettime) == "function" then
      seen[t] = true
      out[#out + 1] = t
    end
  end
  return out
end

-- testing.patch([clock]) -> restore: see docs/lua.md, "Patching os.time,
-- os.date and socket.gettime".
function testing.patch(clock)
  local c = patch_clock(clock)
  -- One call shape for both: the default clock's functions ignore their
  -- argument, so f(c) is monostamp.time_ns() when c is nil.
  local time_ns, now, time_us
  if c == nil then
    time_ns, now, time_us = monostamp.time_ns, monostamp.now, monostamp.time_us
  else
    time_ns, now, time_us = c.time_ns, c.now, c.time_us
  end

  -- What is there now: the originals, or an outer patch's functions.
  local os_tables = { os }
  if package.loaded.os ~= os and type(package.loaded.os) == "table" then
    os_tables[2] = package.loaded.os
  end
  local time, date = os.time, os.date

  -- os.time(): whole seconds of the next stamp.  Monotonic under the
  -- forcing policies and monotonicAllowDuplicates, never unique: every
  -- stamp within one second gives the same value.
  local function patched_time(t, ...)
    if t ~= nil then
      local r = call_original("time", time, t, ...)
      return r
    end
    local ns, msg = time_ns(c)
    if ns == nil then stamp_failed("os.time()", msg) end
    return ns // NS_PER_S
  end

  -- os.date(fmt): the next stamp's whole second, formatted by the original
  -- os.date.  "!" formats are UTC; local ones are the stamp's own local
  -- time (its offset added, then formatted as UTC), so the clock's zone
  -- decides, not the C library's; %z and %Z are written from the offset.
  local function patched_date(fmt, t, ...)
    if t ~= nil then
      local r = call_original("date", date, fmt, t, ...)
      return r
    end
    local f = fmt
    if f == nil then
      f = "%c"
    elseif type(f) == "number" then
      f = tostring(f)  -- as luaL_optstring converts it
    elseif type(f) ~= "string" then
      local r = call_original("date", date, fmt)  -- the original's argument error
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
      -- The core's zones do not say whether an offset is daylight time:
      -- isdst is left nil, and os.time(t) lets mktime decide, as for -1.
      local fields = call_original("date", date, "!*t", wall)
      fields.isdst = nil
      return fields
    end
    local r = call_original("date", date, "!" .. local_format(f, offset), wall)
    return r
  end

  local saved = {}
  local function swap(tbl, key, value)
    saved[#saved + 1] = { tbl, key, tbl[key] }
    tbl[key] = value
  end

  for _, tbl in ipairs(os_tables) do
    swap(tbl, "time", patched_time)
    swap(tbl, "date", patched_date)
  end

  -- socket.gettime(): seconds as a float from a whole-µs stamp.  Near
  -- today a double holds instants some 240 ns apart, so distinct µs stamps
  -- stay distinct floats; ns // 1000 is exact, and one rounding follows.
  local socks = socket_tables()
  if #socks > 0 then
    local function patched_gettime()
      local ns, msg = time_us(c)
      if ns == nil then stamp_failed("socket.gettime()", msg) end
      return (ns // 1000) / 1e6
    end
    for _, tbl in ipairs(socks) do
      swap(tbl, "gettime", patched_gettime)
    end
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

-- Restores every active patch, innermost first (for an after_each that
-- must not let one test's forgotten patch leak into the next); returns
-- how many there were.
function testing.restore_all()
  local n = #active
  for _ = 1, n do
    undo_top()
  end
  return n
end

-- }====================================================

return testing
