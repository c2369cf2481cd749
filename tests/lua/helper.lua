-- helper.lua: what the monostamp specs share (loaded with dofile, not a spec).
-- One helper for Lua 5.3-5.5 and LuaJIT, so it is written in the syntax
-- they all read (no //, no 0LL): the specs of both modules load it.
--
-- helper.monostamp is the module this interpreter loads: the C module
-- (require "monostamp") under Lua 5.3+, monostamp.ffi under LuaJIT, where
-- the C module cannot load (it needs Lua 5.3's integers).  A spec written
-- against helper.monostamp runs against both; helper.int, helper.is_int,
-- helper.idiv and helper.read_integers hide the one difference between them
-- that a spec sees: ns are Lua integers from the C module, int64_t cdata
-- from the FFI module.
local helper = {}

helper.ffi = rawget(_G, "jit") ~= nil
helper.module_name = helper.ffi and "monostamp.ffi" or "monostamp"
-- Loaded when a spec first asks, so that loading the helper loads no module.
setmetatable(helper, { __index = function(_, key)
  if key == "monostamp" then return require(helper.module_name) end
end })

-- The repository root, absolute (busted runs from anywhere, and specs run
-- children from other folders).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
do
  local p = io.popen("cd '" .. here:gsub("'", "'\\''") .. "/../..' && pwd")
  helper.root = p:read("*l")
  p:close()
end

-- The interpreters for child processes, as the Makefile named them: this
-- one (MONOSTAMP_LUA under Lua 5.3+, MONOSTAMP_LUAJIT under LuaJIT).
helper.lua = os.getenv("MONOSTAMP_LUA") or "lua5.4"
helper.luajit = os.getenv("MONOSTAMP_LUAJIT") or "luajit"
helper.interpreter = helper.ffi and helper.luajit or helper.lua
-- The library monostamp.ffi loads (make test-luajit sets it), and the BUILD
-- where the Makefile built the C module (make test-lua and test-luajit set it).
helper.library = os.getenv("MONOSTAMP_LIBRARY")
helper.build = os.getenv("MONOSTAMP_BUILD")
-- The Python child runs from / whatever the spec's directory is: with
-- `python -c`, the working directory comes first on sys.path, and a
-- checkout's root (a build output, a monostamp/ folder) must not decide
-- what `import monostamp` finds.  PYTHONSAFEPATH (3.11+) keeps it off
-- sys.path too.  Every path handed to the child is absolute.
helper.python = "cd / && PYTHONSAFEPATH=1 " .. (os.getenv("PYTHON") or "python3")

-- ------------------------------------------------------------- integers
local ffi = helper.ffi and require("ffi") or nil

-- An int64_t from decimal text, exactly (tonumber would round past 2^53).
local function i64_from_text(s)
  local neg, digits = s:match("^(%-?)(%d+)$")
  assert(digits, "not an integer: " .. tostring(s))
  local v = ffi.new("int64_t", 0)
  for d in digits:gmatch("%d") do v = v * 10 - tonumber(d) end  -- negative: reaches INT64_MIN
  return neg == "-" and v or -v
end

-- The module's integer for v (decimal text, or a number that is an exact
-- integer): a Lua integer for the C module, an int64_t for the FFI module.
function helper.int(v)
  if helper.ffi then
    if type(v) == "string" then return i64_from_text((v:gsub("LL$", ""))) end
    return ffi.new("int64_t", v)
  end
  local n = math.tointeger(type(v) == "string" and tonumber(v) or v)
  assert(n, "not an integer: " .. tostring(v))
  return n
end
helper.i64 = helper.int

-- Whether v is an integer as the module gives ns.
function helper.is_int(v)
  if helper.ffi then return type(v) == "cdata" and ffi.istype("int64_t", v) end
  return math.type(v) == "integer"
end
helper.is_i64 = helper.is_int

-- a // b for the module's integers (b > 0).  LuaJIT's int64_t division
-- truncates toward zero, as C's does: floored here, as Lua's // is.
local lua_idiv = not helper.ffi and load("return function(a, b) return a // b end")() or nil
function helper.idiv(a, b)
  if lua_idiv then return lua_idiv(a, b) end
  local q = a / b
  if q * b > a then q = q - 1 end
  return q
end

-- a % b floored (b > 0), as Lua's % is on integers; LuaJIT's int64_t %
-- truncates toward zero, as C's does.
function helper.floor_mod(a, b)
  local r = a % b
  if r < helper.int(0) then r = r + b end
  return r
end

-- An integer as decimal text, without LuaJIT's LL suffix.
function helper.text(v)
  return (tostring(v):gsub("U?LL$", ""))
end

-- Source text of an exact integer literal for v, for a child's script:
-- 123 for the C module, 123LL for monostamp.ffi (a double would round).
function helper.literal(v)
  return helper.text(v) .. (helper.ffi and "LL" or "")
end

-- The lines of a file as the module's integers.
function helper.read_integers(path)
  local t = {}
  for line in io.lines(path) do t[#t + 1] = helper.int(line) end
  return t
end
helper.read_i64 = helper.read_integers

-- ns since the epoch of a UTC date and time, as the core reads it
-- (monostamp.parse): the specs carry no calendar of their own.
function helper.utc_ns(y, m, d, hh, mm, ss, frac_ns)
  local text = string.format("%04d-%02d-%02dT%02d:%02d:%02d.%09dZ", y, m, d, hh or 0, mm or 0,
                             ss or 0, frac_ns or 0)
  local ns, err = helper.monostamp.parse(text)
  return assert(ns, err)
end

-- -------------------------------------------------------------- vectors
-- Rows of tests/vectors/<name> (a path relative to tests/vectors, or an
-- absolute one): '#' lines and blank lines skipped, each row a list of
-- tab-separated fields with its line number as .line.  Raises, naming the
-- file, when it is missing or holds no row: the shared vectors are part of
-- the suite, and a reader that passed on nothing would prove nothing.
function helper.vectors(name)
  local path = name:sub(1, 1) == "/" and name or helper.root .. "/tests/vectors/" .. name
  local f, err = io.open(path, "r")
  if not f then
    error("shared vectors missing: " .. path .. " (" .. tostring(err) .. ")", 2)
  end
  local rows, lineno = {}, 0
  for line in f:lines() do
    lineno = lineno + 1
    if line ~= "" and not line:match("^#") then
      local fields = { line = lineno }
      for field in (line .. "\t"):gmatch("([^\t]*)\t") do fields[#fields + 1] = field end
      rows[#rows + 1] = fields
    end
  end
  f:close()
  if #rows == 0 then
    error("shared vectors empty: " .. path .. " holds no row", 2)
  end
  return rows, path
end

-- Named zones come from tests/vectors/zoneinfo, the TZif files the vectors
-- and the offsets written into the specs were computed from, so the specs
-- give the same result whatever tzdata the machine has.  Lua cannot set
-- TZDIR for itself, so the runner does (the Makefile's Lua targets export
-- it); each spec of named zones calls this first, and fails, saying so,
-- when TZDIR is not that folder.
function helper.pinned_zones()
  local function real(dir)
    local out, ok = helper.sh("cd " .. helper.q(dir) .. " 2>/dev/null && pwd -P")
    return ok and (out:gsub("\n$", "")) or nil
  end
  local want = real(helper.root .. "/tests/vectors/zoneinfo")
  local tzdir = os.getenv("TZDIR")
  assert(want, "pinned zones missing: " .. helper.root .. "/tests/vectors/zoneinfo")
  assert(tzdir and real(tzdir) == want, "named zones must come from the pinned copy: "
         .. "run the specs with TZDIR=" .. want .. " (as make test-lua and test-luajit do), "
         .. "not TZDIR=" .. tostring(tzdir))
end

-- ------------------------------------------------------- files, shells
-- A fresh path in a fresh private directory; removed by helper.cleanup().
local dirs = {}
function helper.tmpdir()
  local p = io.popen("mktemp -d")
  local dir = p:read("*l")
  p:close()
  dirs[#dirs + 1] = dir
  return dir
end

function helper.cleanup()
  for _, dir in ipairs(dirs) do os.execute("rm -rf '" .. dir .. "'") end
  dirs = {}
end

-- Quotes a string for sh.
function helper.q(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- Runs a sh command line; its stdout and whether it exited 0.  LuaJIT's
-- close() of a popen file does not give the status (Lua 5.1's does not),
-- so the shell prints it last.
function helper.sh(cmd)
  local p = io.popen("( " .. cmd .. " ); echo \"monostamp-rc=$?\"", "r")
  local out = p:read("*a")
  p:close()
  local body, rc = out:match("^(.-)monostamp%-rc=(%d+)%s*$")
  return body or out, rc == "0"
end

-- Asserts that f raises an error containing `text` (plain, not a pattern);
-- returns the error text for further checks.
function helper.raises(text, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "no error; expected: " .. text)
  err = tostring(err)
  assert(err:find(text, 1, true), "error\n  " .. err .. "\nlacks\n  " .. text)
  return err
end

return helper
