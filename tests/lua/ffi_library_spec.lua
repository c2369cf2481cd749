-- ffi_library_spec.lua: which libmonostamp.so monostamp.ffi loads, each
-- way, in a child luajit whose environment the spec controls:
-- MONOSTAMP_LIBRARY, the rock's copy beside the module, the system's
-- search, and the errors when none will do (LuaJIT only: the C module
-- links the core in and loads no library).
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

-- Runs `script` in a child luajit from /, with exactly the variables given
-- (plus PATH and LUA_PATH = lua_path); its output and success.
local function child(vars, lua_path, script)
  local env = { "PATH=" .. helper.q(os.getenv("PATH")), "LUA_PATH=" .. helper.q(lua_path), "LUA_CPATH=''" }
  for k, v in pairs(vars) do env[#env + 1] = k .. "=" .. helper.q(v) end
  return helper.sh("cd / && env -i " .. table.concat(env, " ") .. " " .. helper.luajit
                   .. " -e " .. helper.q(script) .. " 2>&1")
end

local SOURCE_PATH = helper.root .. "/bindings/lua/?.lua"
local REPORT = [[
  local m = require "monostamp.ffi"
  local a, b = m.time_ns(), m.time_ns()
  assert(b > a)
  io.write(m.library)
]]

describe("monostamp.ffi finds libmonostamp", function()
  after_each(helper.cleanup)

  it("loads the library make test-luajit names, and says which", function()
    local monostamp = require "monostamp.ffi"
    assert.equal(helper.library, monostamp.library)
    assert.equal("monostamp", monostamp._NAME)
  end)

  it("at MONOSTAMP_LIBRARY when set", function()
    local out, ok = child({ MONOSTAMP_LIBRARY = helper.library }, SOURCE_PATH, REPORT)
    assert.is_true(ok, out)
    assert.equal(helper.library, out)
  end)

  it("and only there: a MONOSTAMP_LIBRARY that does not load is an error naming it", function()
    local bad = helper.tmpdir() .. "/nothing.so"
    local out, ok = child({ MONOSTAMP_LIBRARY = bad }, SOURCE_PATH, REPORT)
    assert.is_false(ok)
    assert.truthy(out:find("monostamp.ffi: MONOSTAMP_LIBRARY=" .. bad .. ": ", 1, true), out)
    out, ok = child({ MONOSTAMP_LIBRARY = "libmonostamp.so" }, SOURCE_PATH, REPORT)
    assert.is_false(ok)
    assert.truthy(out:find("MONOSTAMP_LIBRARY=libmonostamp.so must be a path to libmonostamp.so", 1, true), out)
  end)

  it("refuses a library that lacks the API it declares", function()
    local dir = helper.tmpdir()
    local so = dir .. "/libold.so"
    local out, ok = helper.sh("printf 'int monostamp_now(void){return 0;}\\n' | cc -shared -fPIC -x c - -o "
                              .. helper.q(so) .. " 2>&1")
    assert.is_true(ok, out)
    out, ok = child({ MONOSTAMP_LIBRARY = so }, SOURCE_PATH, REPORT)
    assert.is_false(ok)
    -- Each function ffi.lua declares that the library lacks, in one message.
    assert.truthy(out:find(so .. " lacks monostamp_os_errno, ", 1, true), out)
    assert.truthy(out:find(", monostamp_clock_new, ", 1, true), out)
    assert.truthy(out:find(", monostamp_isoformat", 1, true), out)
  end)

  it("beside itself in a rock tree, when MONOSTAMP_LIBRARY is not set (or empty)", function()
    local tree = helper.tmpdir()
    local share, lib = tree .. "/share/lua/5.1/monostamp", tree .. "/lib/lua/5.1/monostamp"
    local _, ok = helper.sh("mkdir -p " .. helper.q(share) .. " " .. helper.q(lib) .. " && cp "
      .. helper.q(helper.root .. "/bindings/lua/monostamp/") .. "ffi*.lua " .. helper.q(helper.root .. "/bindings/lua/monostamp/cdef.lua") .. " "
      .. helper.q(helper.root .. "/bindings/lua/monostamp/sleep_finish.lua") .. " " .. helper.q(share)
      .. " && cp " .. helper.q(helper.library) .. " " .. helper.q(lib .. "/libmonostamp.so"))
    assert.is_true(ok)
    for _, vars in ipairs { {}, { MONOSTAMP_LIBRARY = "" } } do
      local out, ran = child(vars, tree .. "/share/lua/5.1/?.lua", REPORT)
      assert.is_true(ran, out)
      assert.equal(lib .. "/libmonostamp.so", out)
    end
  end)

  it("on package.cpath as monostamp.libmonostamp (luarocks path, lua_package_cpath)", function()
    local dir = helper.tmpdir()
    local _, ok = helper.sh("mkdir -p " .. helper.q(dir .. "/monostamp") .. " && cp "
      .. helper.q(helper.library) .. " " .. helper.q(dir .. "/monostamp/libmonostamp.so"))
    assert.is_true(ok)
    local out, ran = child({}, SOURCE_PATH, "package.cpath = " .. string.format("%q", dir .. "/?.so")
                           .. "\n" .. REPORT)
    assert.is_true(ran, out)
    assert.equal(dir .. "/monostamp/libmonostamp.so", out)
  end)

  it("through the dynamic linker's search otherwise (LD_LIBRARY_PATH, ldconfig)", function()
    local dir = helper.tmpdir()
    local _, ok = helper.sh("cp " .. helper.q(helper.library) .. " " .. helper.q(dir .. "/libmonostamp.so"))
    assert.is_true(ok)
    local out, ran = child({ LD_LIBRARY_PATH = dir }, SOURCE_PATH, REPORT)
    assert.is_true(ran, out)
    assert.equal("monostamp", out)
  end)

  it("and says what it tried when nothing is found", function()
    local out, ok = child({ LD_LIBRARY_PATH = helper.tmpdir() }, SOURCE_PATH, REPORT)
    if ok then  -- a system copy (make install + ldconfig) answered: nothing to test here
      pending("a libmonostamp is installed system-wide: " .. out)
      return
    end
    assert.truthy(out:find("monostamp.ffi: libmonostamp not found: MONOSTAMP_LIBRARY is not set", 1, true), out)
  end)
end)
