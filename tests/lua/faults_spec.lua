-- faults_spec.lua: every fault of tests/vectors/faults.tsv through the Lua
-- C module (Lua 5.3-5.5, make test-lua) and the LuaJIT FFI module (make
-- test-luajit), one of the shared specs: inside Lua's own frame ("bad
-- argument #n to 'f' (...)", or nil and the message) the very text the
-- Python extension shows after its prefix (tests/python/test_faults.py);
-- a row whose Lua call is - is Python's alone.
-- Lua 5.1 syntax, so that LuaJIT reads it too.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local m = require(jit and "monostamp.ffi" or "monostamp")

-- The rows; a missing or empty file fails.
local function rows()
  local path = here .. "/../vectors/faults.tsv"
  local f = assert(io.open(path, "r"), "shared vectors missing: " .. path)
  local out = {}
  for line in f:lines() do
    if line ~= "" and not line:match("^#") then
      local fields = {}
      for field in (line .. "\t"):gmatch("([^\t]*)\t") do fields[#fields + 1] = field end
      assert(#fields == 7, path .. ": a row of " .. #fields .. " fields: " .. line)
      out[#out + 1] = fields
    end
  end
  f:close()
  assert(#out > 0, path .. " has no rows")
  return out
end

-- A private folder: {missing} in a directory that does not exist, {foreign}
-- a file that is not a state file.
local function folder()
  local p = io.popen("mktemp -d")
  local dir = p:read("*l")
  p:close()
  local f = assert(io.open(dir .. "/junk", "wb"))
  f:write(string.rep("#", 4096))
  f:close()
  return dir
end

local function run(code)
  local chunk = assert(loadstring and loadstring("return " .. code) or load("return " .. code))
  if setfenv then setfenv(chunk, { m = m }) else
    chunk = assert(load("return " .. code, "=fault", "t", { m = m }))
  end
  return pcall(chunk)
end

describe("every fault in the core's words", function()
  local dir = folder()
  teardown(function() os.execute("rm -rf '" .. dir .. "'") end)
  local places = { missing = dir .. "/gone/state", foreign = dir .. "/junk" }
  for _, row in ipairs(rows()) do
    local name, call, kind, text = row[1], row[5], row[6], row[7]
    for key, path in pairs(places) do
      call = call:gsub("{" .. key .. "}", function() return "'" .. path .. "'" end)
      text = text:gsub("{" .. key .. "}", function() return path end)
    end
    it(name, function()
      if call == "-" then return end  -- a fault only Python can commit
      local ok, a, b = run(call)
      if kind == "arg" then
        assert.is_false(ok, "no error for " .. call)
        local inner = tostring(a):match("bad argument #%d+ to '[%w_]+' %((.*)%)$")
          or tostring(a):match("calling '[%w_]+' on bad self %((.*)%)$")
        assert.equal(text, inner)
      else
        assert.is_true(ok, tostring(a))
        assert.is_nil(a)
        local f = kind:match("^nil:(.+)$")
        assert.equal(f and f .. ": " .. text or text, b)
      end
      assert.is_nil(tostring(ok and b or a):find("[\128-\255]"))  -- ASCII only
    end)
  end
end)
