-- monostamp/ffi.lua: require "monostamp.ffi", monostamp for LuaJIT (and
-- OpenResty), whose numbers cannot hold 64-bit integers: LuaJIT's FFI over
-- libmonostamp.so, with the C module's conventions (docs/lua.md).
-- Nanoseconds come back as int64_t cdata; as arguments, int64_t cdata or
-- a number that is an exact integer (|n| <= 2^53).
local ffi = require "ffi"

-- The declarations shared with PyPy's cffi binding (monostamp/cdef.lua).
-- Guarded: a host may load this file twice, ffi.cdef define once.
local CDEF = require "monostamp.cdef"
if not pcall(ffi.typeof, "monostamp_options") then ffi.cdef(CDEF) end

local M = {
  _NAME = "monostamp",
  _VERSION = "0.1.0",
  DEFAULT_POLICY = "monotonicForceNanosecondIncrement",
  DEFAULT_SLEEP_TOLERANCE_NS = 50000,
}

-- ---- the library ----

-- The rock's copy: this file is <tree>/share/lua/<v>/monostamp/ffi.lua,
-- the library <tree>/lib/lua/<v>/monostamp/libmonostamp.so; else one in a
-- tree on package.cpath (luarocks path, OpenResty's lua_package_cpath).
local function rock_copy()
  local source = debug.getinfo(1, "S").source
  local tree, version = source:match("^@(.*)/share/lua/([^/]+)/monostamp/ffi%.lua$")
  local path = tree and tree .. "/lib/lua/" .. version .. "/monostamp/libmonostamp.so"
  local f = path and io.open(path, "rb")
  if f then
    f:close()
    return path
  end
  return package.searchpath and package.searchpath("monostamp.libmonostamp", package.cpath)
end

-- The library and the name it was loaded by: MONOSTAMP_LIBRARY (a path,
-- and nothing else if set), the rock's copy, or the system's; else an error
-- that says what was tried.
local function find_library()
  local env = os.getenv("MONOSTAMP_LIBRARY")
  if env == "" then env = nil end
  if env and not env:find("/", 1, true) then
    error("monostamp.ffi: MONOSTAMP_LIBRARY=" .. env .. " must be a path to libmonostamp.so"
          .. " (with a '/'), such as /usr/local/lib/libmonostamp.so", 0)
  end
  -- The library named, or the rock's own copy: if it is broken, say so and
  -- try no other.
  local path = env or rock_copy()
  if path then
    local ok, lib = pcall(ffi.load, path)
    if not ok then
      error("monostamp.ffi: " .. (env and "MONOSTAMP_LIBRARY=" or "") .. path .. ": "
            .. tostring(lib), 0)
    end
    return lib, path
  end
  local tried = {}
  for _, name in ipairs { "monostamp", "libmonostamp.so.0" } do
    local ok, lib = pcall(ffi.load, name)
    if ok then return lib, name end
    tried[#tried + 1] = tostring(lib)
  end
  error("monostamp.ffi: libmonostamp not found: MONOSTAMP_LIBRARY is not set, no rock copy"
        .. " beside " .. tostring(debug.getinfo(1, "S").source:sub(2)) .. ", and the system's: "
        .. table.concat(tried, "; "), 0)
end

local C, library = find_library()
M.library = library

-- An older library: say what it lacks of the functions above now, not at
-- the first call.
do
  local missing = {}
  for name in CDEF:gmatch("(monostamp_[%w_]+)%(") do
    if not pcall(function() return C[name] end) then missing[#missing + 1] = name end
  end
  if #missing > 0 then
    error("monostamp.ffi: " .. library .. " lacks " .. table.concat(missing, ", ")
          .. ": a libmonostamp older than " .. M._VERSION, 0)
  end
end

-- The core's own codes, returned third by runtime failures.
do
  local i, code = 0, C.monostamp_error_code(0)
  while code ~= 0 do
    M[ffi.string(C.monostamp_error_name(code))] = code
    i = i + 1
    code = C.monostamp_error_code(i)
  end
end

-- ---- errors and converters ----

-- Raises "bad argument #arg to 'fname' (msg)" at the public function's
-- caller, as luaL_argerror does: `level` counts this file's frames between
-- the public function and argerror's caller (0: it is the public function).
-- Called as a method, self is not counted, and a bad self is "calling 'f'
-- on bad self".
local function argerror(arg, fname, msg, level)
  local lvl = 3 + (level or 0)
  local info = debug.getinfo(lvl - 1, "n")
  if info and info.namewhat == "method" then
    arg = arg - 1
    if arg == 0 then error(string.format("calling '%s' on bad self (%s)", fname, msg), lvl) end
  end
  error(string.format("bad argument #%d to '%s' (%s)", arg, fname, msg), lvl)
end

-- nil, "context: reason", code: the OS's errno if the core carried one.
-- A context in a table is the core's whole sentence, said as it is.
local function failure(rc, context, why)
  local os_errno = C.monostamp_errno_of(rc)
  local msg = type(context) == "table" and context[1]
    or context .. ": " .. (why or ffi.string(C.monostamp_strerror(rc)))
  return nil, msg, os_errno ~= 0 and os_errno or rc
end

-- Scratch for out-parameters: nothing here yields, and a LuaJIT state runs
-- one coroutine at a time.  Room for MONOSTAMP_SHARED=path.
local stamp = ffi.new("monostamp_stamp")
local ns_out = ffi.new("int64_t[1]")
local ns_out2 = ffi.new("int64_t[1]")
local int_out = ffi.new("int[1]")
local text_buf = ffi.new("char[?]", 4352)
local uuid_bytes = ffi.new("uint8_t[16]")

-- A default-clock failure is the core's sentence for MONOSTAMP_SHARED='path'
-- when the file is to blame (the core says when), else names the call.
local function default_context(rc, call)
  local n = C.monostamp_default_context(rc, text_buf, 4352)
  return n > 0 and { ffi.string(text_buf, n) } or call
end

local int64_t = ffi.typeof("int64_t")
local TWO53 = 2 ^ 53

-- A float is refused rather than rounded, and so is a number beyond 2^53,
-- which may already have been rounded.  `level` as for argerror, plus one.
local function tons(v, arg, fname, field, level)
  local pre = field and (field .. ": ") or ""
  level = level or 1
  if type(v) == "number" then
    if v ~= v or v ~= math.floor(v) or v == math.huge or v == -math.huge then
      argerror(arg, fname, pre .. "integer nanoseconds expected, got float " .. tostring(v), level)
    end
    if v > TWO53 or v < -TWO53 then
      argerror(arg, fname, pre .. "integer nanoseconds beyond 2^53 must be int64_t cdata"
               .. " (such as 1800000000000000000LL), got number " .. string.format("%.17g", v), level)
    end
    return v
  end
  if type(v) == "cdata" and ffi.istype(int64_t, v) then return v end
  local got = type(v) == "cdata" and tostring(ffi.typeof(v)) or type(v)
  argerror(arg, fname, pre .. "integer expected, got " .. got, level)
end

-- A string for the core: one with a NUL inside is refused, never cut.  A
-- plain argument (the option `option`'s) takes a number as its text (as
-- luaL_checklstring), a table field does not (as the C module's options).
local function checkname(v, arg, fname, field, level, option)
  local pre = field and (field .. ": ") or ""
  level = level or 1
  if type(v) == "number" and not field then v = tostring(v) end
  if type(v) ~= "string" then
    argerror(arg, fname, pre .. "string expected, got " .. type(v), level)
  end
  local nul = v:find("\0", 1, true)
  if nul then  -- the core's sentence
    argerror(arg, fname, ffi.string(text_buf, C.monostamp_rule_text(C.MONOSTAMP_RULE_NUL,
             field or option, tostring(nul), text_buf, 256)), level)
  end
  return v
end

-- As luaL_checkinteger takes it.
local function checkinteger(v, arg, fname)
  if type(v) == "string" then v = tonumber(v) or v end
  if type(v) ~= "number" then
    argerror(arg, fname, "number expected, got " .. (v == nil and "no value" or type(v)), 1)
  end
  if v ~= math.floor(v) or v ~= v or v >= 2 ^ 63 or v < -2 ^ 63 then
    argerror(arg, fname, "number has no integer representation", 1)
  end
  return v
end

-- The core's value for the name of an option `field` ("policy", "source",
-- "on_lead"), else its rule raised.
local function checkoption(field, v, arg, fname, level)
  level = level or 1
  v = checkname(v, arg, fname, nil, level + 1, field)
  if C.monostamp_option_from_name(field, v, int_out) ~= 0 then
    argerror(arg, fname, field .. "='" .. v .. "' " .. ffi.string(C.monostamp_options_rule(field)),
             level)
  end
  return int_out[0]
end

-- The default clock (one address for the process's life), nil if unusable.
local dclock
do
  local out = ffi.new("monostamp_clock *[1]")
  if C.monostamp_default_clock(out) == 0 then dclock = out[0] end
end

-- ---- free functions ----

function M.monotonic_ns()
  return C.monostamp_monotonic_ns()
end

function M.zone_changed()
  C.monostamp_zone_changed()
  return true
end

-- Anything that is no id of ours is a bad argument.
function M.uuid7_ns(text)
  if type(text) == "number" then text = tostring(text) end
  if type(text) ~= "string" then
    argerror(1, "uuid7_ns", "string expected, got " .. type(text))
  end
  if C.monostamp_uuid7_text_ns(text, #text, ns_out, text_buf, 192) ~= 0 then
    argerror(1, "uuid7_ns", ffi.string(text_buf))
  end
  return ns_out[0]
end

-- The core's plan carried out by the Lua finish (monostamp/sleep_finish.lua).
local sleep_finish = require("monostamp.sleep_finish").new(
  function() return C.monostamp_monotonic_ns() end,
  function(plan)
    local rc = C.monostamp_sleep_until(plan.until_ns, plan.until_tolerance_ns)
    if rc ~= 0 then return failure(rc, "sleep_until_ns") end
    return true
  end,
  function(plan, now) return C.monostamp_sleep_step(plan, now) end,
  function() M.sleep_until_ns(0) end)
local plan_t = ffi.typeof("monostamp_sleep_plan")
local begun = plan_t()  -- copied when it has naps: a plan of its own
local NAP = C.MONOSTAMP_SLEEP_NAP

-- The core checks the arguments and plans.  A tail call: argerror counts no
-- frame.
local function sleep(fname, is_duration, ns, tolerance_ns)
  local now = C.monostamp_monotonic_ns()  -- first: what runs before is lateness
  ns = tons(ns, 1, fname)
  local tol = tolerance_ns == nil and M.DEFAULT_SLEEP_TOLERANCE_NS or tons(tolerance_ns, 2, fname)
  local what = C.monostamp_sleep_start(begun, now, ns, is_duration, tol, 1, int_out, text_buf, 96)
  if what < 0 then argerror(int_out[0], fname, ffi.string(text_buf)) end
  return sleep_finish(begun.deadline_ns, what == NAP and plan_t(begun) or nil, what)
end

function M.sleep_ns(ns, tolerance_ns)
  return sleep("sleep_ns", 1, ns, tolerance_ns)
end

function M.sleep_until_ns(deadline_ns, tolerance_ns)
  return sleep("sleep_until_ns", 0, deadline_ns, tolerance_ns)
end

function M.clock_info(name)
  local source = checkoption("source", name, 1, "clock_info")
  local info = ffi.new("monostamp_clock_info")
  local rc = C.monostamp_clock_info_get(source, info)
  if rc ~= 0 then return failure(rc, name) end
  return {
    name = ffi.string(info.name),
    implementation = ffi.string(info.implementation),
    resolution_ns = info.resolution_ns,
    adjustable = info.adjustable ~= 0,
    monotonic = info.monotonic ~= 0,
  }
end

function M.isoformat(utc_ns, offset_s, digits, use_z)
  utc_ns = tons(utc_ns, 1, "isoformat")
  offset_s = checkinteger(offset_s, 2, "isoformat")
  digits = digits == nil and 9 or checkinteger(digits, 3, "isoformat")
  local why = text_buf + 64  -- the text is at most 35 bytes
  local n = C.monostamp_isoformat(text_buf, 36, utc_ns, offset_s, digits, use_z and 1 or 0,
                                  int_out, why, 160)
  if n >= 0 then return ffi.string(text_buf, n) end
  if int_out[0] > 0 then argerror(int_out[0], "isoformat", ffi.string(why)) end
  return failure(n, "isoformat")
end

function M.parse(text)
  if type(text) == "number" then text = tostring(text) end  -- as luaL_checklstring
  if type(text) ~= "string" then
    argerror(1, "parse", "string expected, got " .. type(text))
  end
  local offset = ffi.new("int32_t[1]")
  local err = ffi.new("monostamp_parse_error")
  local rc = C.monostamp_parse_iso8601(text, #text, ns_out, offset, err)
  if rc ~= 0 then  -- the core's sentence, where in characters
    return failure(rc, "parse", ffi.string(text_buf, C.monostamp_parse_fault(text, #text, rc, err,
                                                                           text_buf, 320)))
  end
  return ns_out[0], offset[0]
end

M.Clock = require("monostamp.ffi_clock")(M, {
  C = C, argerror = argerror, failure = failure, tons = tons, checkname = checkname,
  checkoption = checkoption, stamp = stamp, ns_out = ns_out,
  ns_out2 = ns_out2, int_out = int_out, uuid_bytes = uuid_bytes, text_buf = text_buf,
  dclock = dclock, default_context = default_context,
})

return M
