-- helper.lua: what the LuaJIT specs share (loaded with dofile, not a spec).
-- tests/lua/helper.lua is Lua 5.3 syntax (//), which LuaJIT cannot read.
local ffi = require "ffi"
local helper = {}

-- The repository root, absolute (specs run children from other folders).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
do
  local p = io.popen("cd '" .. here:gsub("'", "'\\''") .. "/../..' && pwd")
  helper.root = p:read("*l")
  p:close()
end
helper.luajit = os.getenv("MONOSTAMP_LUAJIT") or "luajit"
-- The library the specs load (make test-luajit sets it), and where the
-- Makefile built the Lua 5.4 C module (for the cross-binding spec).
helper.library = os.getenv("MONOSTAMP_LIBRARY")
helper.build = os.getenv("MONOSTAMP_BUILD")

-- An int64_t from decimal text, exactly (tonumber would round).
function helper.i64(s)
  local neg, digits = s:match("^(%-?)(%d+)$")
  assert(digits, "not an integer: " .. tostring(s))
  local v = 0LL
  for d in digits:gmatch("%d") do v = v * 10 - tonumber(d) end  -- negative: reaches INT64_MIN
  return neg == "-" and v or -v
end

-- Rows of tests/vectors/<name>: '#' and blank lines skipped, fields split
-- on TAB.  Raises when the file is missing.
function helper.vectors(name)
  local path = helper.root .. "/tests/vectors/" .. name
  local f = assert(io.open(path, "r"), "shared vectors missing: " .. path)
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
  return rows
end

-- Named zones come from tests/vectors/zoneinfo, the TZif files the vectors
-- and the offsets written into the specs were computed from (see
-- tests/lua/helper.lua): the runner sets TZDIR to it (make test-luajit
-- does), and each spec of named zones calls this first.
function helper.pinned_zones()
  local function real(dir)
    local out, ok = helper.sh("cd " .. helper.q(dir) .. " 2>/dev/null && pwd -P")
    return ok and (out:gsub("\n$", "")) or nil
  end
  local want = real(helper.root .. "/tests/vectors/zoneinfo")
  local tzdir = os.getenv("TZDIR")
  assert(want, "pinned zones missing: " .. helper.root .. "/tests/vectors/zoneinfo")
  assert(tzdir and real(tzdir) == want, "named zones must come from the pinned copy: "
         .. "run the specs with TZDIR=" .. want .. " (as make test-luajit does), not TZDIR="
         .. tostring(tzdir))
end

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

-- Asserts that f raises an error containing `text` (plain); returns it.
function helper.raises(text, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "no error; expected: " .. text)
  err = tostring(err)
  assert(err:find(text, 1, true), "error\n  " .. err .. "\nlacks\n  " .. text)
  return err
end

-- The lines of a file as int64_t.
function helper.read_i64(path)
  local t = {}
  for line in io.lines(path) do t[#t + 1] = helper.i64(line:gsub("LL$", "")) end
  return t
end

helper.is_i64 = function(v) return type(v) == "cdata" and ffi.istype("int64_t", v) end

return helper
