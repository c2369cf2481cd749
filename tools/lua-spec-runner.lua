-- lua-spec-runner.lua SPEC...: runs busted-style spec files with luassert
-- alone, for a Lua that has no busted (busted needs C modules, lfs, term
-- and system, that Debian builds for 5.1 to 5.4 only; luassert and say are
-- pure Lua).  tools/test-lua55.sh uses it to run tests/lua under Lua 5.5.
--
-- What the specs use and this provides: describe (nested), it, pending,
-- before_each, after_each, finally, and luassert's assert.  Each `it`
-- runs in order; a failure is reported with its message and the run goes
-- on.  Prints "N passed, N failed, N skipped" and exits non-zero on any
-- failure.
local assert_module = require "luassert"

local passed, failed, skipped = 0, 0, 0
local stack = {}          -- the describe blocks we are in: { name, before = {}, after = {} }
local finalizers = nil    -- the current it's finally() functions

local function fullname(name)
  local parts = {}
  for _, d in ipairs(stack) do parts[#parts + 1] = d.name end
  parts[#parts + 1] = name
  return table.concat(parts, " ")
end

local env = setmetatable({}, { __index = _G })
env.assert = assert_module

function env.describe(name, fn)
  stack[#stack + 1] = { name = name, before = {}, after = {} }
  local ok, err = pcall(fn)
  if not ok then
    failed = failed + 1
    io.write("FAIL (describe) ", fullname(""), "\n  ", tostring(err), "\n")
  end
  stack[#stack] = nil
end

function env.before_each(fn) table.insert(stack[#stack].before, fn) end
function env.after_each(fn) table.insert(stack[#stack].after, fn) end
function env.finally(fn) table.insert(finalizers, fn) end

function env.pending(name)
  skipped = skipped + 1
  io.write("pending ", fullname(name or ""), "\n")
end

function env.it(name, fn)
  finalizers = {}
  local ok, err = true, nil
  for _, d in ipairs(stack) do
    for _, b in ipairs(d.before) do
      if ok then ok, err = xpcall(b, debug.traceback) end
    end
  end
  if ok then ok, err = xpcall(fn, debug.traceback) end
  for i = #finalizers, 1, -1 do
    local fok, ferr = xpcall(finalizers[i], debug.traceback)
    if ok and not fok then ok, err = false, ferr end
  end
  for i = #stack, 1, -1 do
    for _, a in ipairs(stack[i].after) do
      local aok, aerr = xpcall(a, debug.traceback)
      if ok and not aok then ok, err = false, aerr end
    end
  end
  finalizers = nil
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    io.write("FAIL ", fullname(name), "\n  ", tostring(err), "\n")
  end
end

for _, path in ipairs(arg) do
  local chunk, err = loadfile(path, "t", env)
  if not chunk then
    failed = failed + 1
    io.write("FAIL (load) ", path, "\n  ", err, "\n")
  else
    local ok, rerr = xpcall(chunk, debug.traceback)
    if not ok then
      failed = failed + 1
      io.write("FAIL (run) ", path, "\n  ", tostring(rerr), "\n")
    end
  end
end

io.write(string.format("%s: %d passed, %d failed, %d skipped\n", _VERSION, passed, failed, skipped))
os.exit(failed == 0 and 0 or 1)
