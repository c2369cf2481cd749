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

-- Re-raises an argument error of the binding (whose C functions carry no
-- position) as one of `fname` at the user's line, keeping its reason.
local function reraise(fname, err)
  err = tostring(err)
  error(string.format("bad argument #1 to '%s' (%s)", fname,
                      err:match("^bad argument #%d+ to '[^']*' %((.*)%)$") or err), 3)
end

-- `v` as integer nanoseconds, or an argument error naming it; `what`
-- prefixes the reason for an option ("start: ...").
local function ns_or_raise(fname, what, v)
  if math.type(v) == "integer" then
    return v
  end
  local got = math.type(v) == "float" and ("float " .. tostring(v)) or type(v)
  argerror(2, fname, string.format("%sinteger nanoseconds expected, got %s", what, got))
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
-- mc:policy(), mc:stats(), mc:zone(), mc:close() ... work as on the clock.
local ManualClock = { __name = "monostamp.testing.ManualClock" }
local methods = {}
local forwarded = {}  -- name -> function(self, ...) calling self.clock's

ManualClock.__index = function(self, key)
  local m = methods[key]
  if m == nil and type(key) == "string" and rawget(self, "clock")[key] ~= nil then
    m = forwarded[key]
    if m == nil then
      m = function(self, ...)
        local c = self.clock
        return c[key](c, ...)
      end
      forwarded[key] = m
    end
  end
  return m
end

function ManualClock.__tostring(self)
  return "monostamp.testing.ManualClock: " .. tostring(self.clock)
end

function ManualClock.__close(self)
  self.clock:close()
end

-- An instant: integer ns, or ISO 8601 text (its offset only locates the
-- instant: the clock's zone gives the stamps' offsets).
local function instant_or_raise(fname, what, v)
  if type(v) == "string" then
    local ns, err = monostamp.parse(v)
    if ns == nil then
      -- The text itself is the better context than parse's name.
      argerror(2, fname, string.format("%s%q: %s", what, v, (err:gsub("^parse: ", ""))))
    end
    return ns
  end
  local got = math.type(v) == "float" and ("float " .. tostring(v)) or type(v)
  if math.type(v) ~= "integer" then
    argerror(2, fname, string.format("%sinteger nanoseconds or ISO 8601 text expected, got %s",
                                  what, got))
  end
  return v
end

-- The next stamp and the zone's offset at it.
function methods.now(self)
  return self.clock:now()
end

-- The next stamp, ns only (one sequence with now()).
function methods.time_ns(self)
  return self.clock:time_ns()
end

-- Sets the reading: integer ns, or ISO 8601 text.
function methods.set(self, t)
  local ns = instant_or_raise("set", "", t)
  local ok, err = pcall(self.clock.set, self.clock, ns)
  if not ok then reraise("set", err) end
  return true
end

-- Moves the reading by `delta_ns` (negative: back).
function methods.advance(self, delta_ns)
  delta_ns = ns_or_raise("advance", "", delta_ns)
  local ok, err = pcall(self.clock.advance, self.clock, delta_ns)
  if not ok then reraise("advance", err) end
  return true
end

-- Moves the reading back by `ns` (>= 0): an NTP step, a VM restore.
function methods.step_back(self, ns)
  ns = ns_or_raise("step_back", "", ns)
  if ns < 0 then
    argerror(1, "step_back",
             string.format("ns must be >= 0, not %d; advance moves forward", ns))
  end
  local ok, err = pcall(self.clock.advance, self.clock, -ns)
  if not ok then reraise("step_back", err) end
  return true
end

local manual_options = {
  start = true, zone = true, policy = true, max_lead_ns = true, on_lead = true,
}

-- testing.manual_clock{ start =, zone =, policy =, max_lead_ns =, on_lead = }:
-- every field optional; start (integer ns or ISO 8601 text) defaults to
-- EPOCH_2000_NS, zone to "UTC", the rest to monostamp.clock's defaults.
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
    start = instant_or_raise("manual_clock", "start: ", options.start)
  end
  local zone = options.zone
  if zone == nil then zone = testing.DEFAULT_ZONE end
  local ok, c, err = pcall(monostamp.clock, {
    source = "manual",
    start_ns = start,
    zone = zone,
    policy = options.policy,
    max_lead_ns = options.max_lead_ns,
    on_lead = options.on_lead,
  })
  if not ok then
    reraise("manual_clock", c)
  end
  if c == nil then  -- a runtime failure: an unknown zone
    error("monostamp.testing.manual_clock: " .. err, 2)
  end
  return setmetatable({ clock = c }, ManualClock)
end

-- }====================================================

return testing
