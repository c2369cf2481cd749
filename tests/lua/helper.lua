-- helper.lua: what the monostamp specs share (loaded with dofile, not a spec).
local helper = {}

-- The repository root, from this file's own path (busted runs from anywhere).
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
helper.root = here .. "/../.."

-- The Lua interpreter for child processes: this one, as the Makefile named it.
helper.lua = os.getenv("MONOSTAMP_LUA") or "lua5.4"
-- The Python child runs from / whatever the spec's directory is: with
-- `python -c`, the working directory comes first on sys.path, and a
-- checkout's root (a build output, a monostamp/ folder) must not decide
-- what `import monostamp` finds.  PYTHONSAFEPATH (3.11+) keeps it off
-- sys.path too.  Every path handed to the child is absolute.
helper.python = "cd / && PYTHONSAFEPATH=1 " .. (os.getenv("PYTHON") or "python3")

-- ns since the epoch of a UTC date and time, as the core reads it
-- (monostamp.parse): the specs carry no calendar of their own.
function helper.utc_ns(y, m, d, hh, mm, ss, frac_ns)
  local text = string.format("%04d-%02d-%02dT%02d:%02d:%02d.%09dZ", y, m, d, hh or 0, mm or 0,
                             ss or 0, frac_ns or 0)
  local ns, err = require("monostamp").parse(text)
  return assert(ns, err)
end

-- Rows of tests/vectors/<name>.tsv: '#' lines and blank lines skipped, each
-- row a list of tab-separated fields.  Raises when the file is missing: the
-- shared vectors are part of the suite, not optional.
function helper.vectors(name)
  local path = helper.root .. "/tests/vectors/" .. name
  local f, err = io.open(path, "r")
  if not f then
    error("shared vectors missing: " .. err, 2)
  end
  local rows = {}
  local lineno = 0
  for line in f:lines() do
    lineno = lineno + 1
    if line ~= "" and not line:match("^#") then
      local fields = {}
      for field in (line .. "\t"):gmatch("([^\t]*)\t") do
        fields[#fields + 1] = field
      end
      fields.line = lineno
      rows[#rows + 1] = fields
    end
  end
  f:close()
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
    return ok and out:gsub("\n$", "") or nil
  end
  local want = real(helper.root .. "/tests/vectors/zoneinfo")
  local tzdir = os.getenv("TZDIR")
  assert(want, "pinned zones missing: " .. helper.root .. "/tests/vectors/zoneinfo")
  assert(tzdir and real(tzdir) == want, "named zones must come from the pinned copy: "
         .. "run the specs with TZDIR=" .. want .. " (as make test-lua does), not TZDIR="
         .. tostring(tzdir))
end

-- A fresh path in a fresh private directory; removed by helper.cleanup().
local dirs = {}
function helper.tmpdir()
  local p = io.popen("mktemp -d")
  local dir = p:read("l")
  p:close()
  dirs[#dirs + 1] = dir
  return dir
end

function helper.cleanup()
  for _, dir in ipairs(dirs) do
    os.execute("rm -rf '" .. dir .. "'")
  end
  dirs = {}
end

-- Quotes a string for sh.
function helper.q(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- Runs a sh command line and returns its stdout and whether it succeeded.
function helper.sh(cmd)
  local p = io.popen(cmd, "r")
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end

-- The lines of a file as integers.
function helper.read_integers(path)
  local t = {}
  for line in io.lines(path) do
    t[#t + 1] = math.tointeger(tonumber(line))
  end
  return t
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
