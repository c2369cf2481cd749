-- rockspec_spec.lua: the builtin rockspec lists exactly the binding's and
-- the core's C files, so `luarocks make` builds what `make lua` builds.
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

describe("the rockspec", function()
  it("lists every bindings/lua/*.c and csrc/*.c file, and nothing else; every Lua module", function()
    local out = helper.sh("cd " .. helper.q(helper.root) .. " && ls monostamp-*.rockspec")
    local name = out:match("[^\n]+")
    assert(name and not out:match("\n[^\n]"), "expected one monostamp-*.rockspec, found:\n" .. out)
    local spec = {}
    assert(loadfile(helper.root .. "/" .. name, "t", spec))()
    assert.equal("builtin", spec.build.type)
    assert.equal(name, spec.package .. "-" .. spec.version .. ".rockspec")
    local listed = {}
    for _, source in ipairs(spec.build.modules.monostamp.sources) do listed[source] = true end
    local files = helper.sh("cd " .. helper.q(helper.root) .. " && ls bindings/lua/*.c csrc/*.c")
    for file in files:gmatch("[^\n]+") do
      assert(listed[file], name .. " does not list " .. file)
      listed[file] = nil
    end
    assert.same({}, listed, name .. " lists files that do not exist")
    -- The pure-Lua modules: each bindings/lua/monostamp/*.lua installed
    -- under its module name, and no module whose file is missing.
    local lua_files = helper.sh("cd " .. helper.q(helper.root) .. " && ls bindings/lua/monostamp/*.lua")
    for file in lua_files:gmatch("[^\n]+") do
      local module = file:match("^bindings/lua/(.*)%.lua$"):gsub("/", ".")
      assert.equal(file, spec.build.modules[module], name .. " does not install " .. file)
    end
    for module, entry in pairs(spec.build.modules) do
      if type(entry) == "string" then
        assert(io.open(helper.root .. "/" .. entry), name .. ": " .. module .. "'s " .. entry
               .. " does not exist"):close()
      end
    end
    local version = io.open(helper.root .. "/csrc/monostamp.h"):read("a")
                      :match('#define MONOSTAMP_VERSION "([^"]+)"')
    assert.equal(version, spec.version:match("^(.*)%-%d+$"))
  end)
end)
