-- rockspec_spec.lua: the builtin rockspec lists exactly the binding's and
-- the core's C files, so `luarocks make` builds what `make lua` builds, and
-- the plain library monostamp.ffi loads from exactly the core's.  It reads
-- files and loads no module, so it runs once, under Lua 5.3-5.5.
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

-- The one monostamp-*.rockspec at the root, loaded as data, and its name.
local function load_spec()
  local out = helper.sh("cd " .. helper.q(helper.root) .. " && ls monostamp-*.rockspec")
  local name = out:match("[^\n]+")
  assert(name and not out:match("\n[^\n]"), "expected one monostamp-*.rockspec, found:\n" .. out)
  local spec = {}
  assert(loadfile(helper.root .. "/" .. name, "t", spec))()
  return spec, name
end

-- The files a shell glob (from the root) names, sorted.
local function ls(glob)
  local files = {}
  for file in helper.sh("cd " .. helper.q(helper.root) .. " && ls " .. glob):gmatch("[^\n]+") do
    files[#files + 1] = file
  end
  table.sort(files)
  return files
end

local function sorted(list)
  local copy = { table.unpack(list) }
  table.sort(copy)
  return copy
end

describe("the rockspec", function()
  it("builds monostamp.core from every bindings/lua/*.c and csrc/*.c file, and nothing else", function()
    local spec, name = load_spec()
    assert.equal("builtin", spec.build.type)
    assert.equal(name, spec.package .. "-" .. spec.version .. ".rockspec")
    assert.same(ls("bindings/lua/*.c csrc/*.c"), sorted(spec.build.modules["monostamp.core"].sources),
                name .. ": monostamp.core's sources")
  end)

  it("builds monostamp.libmonostamp, the plain library for LuaJIT, from every csrc/*.c file", function()
    local spec, name = load_spec()
    local lib = spec.build.modules["monostamp.libmonostamp"]
    assert.same(ls("csrc/*.c"), sorted(lib.sources), name .. ": monostamp.libmonostamp's sources")
    local exports = false
    for _, define in ipairs(lib.defines) do exports = exports or define == "MONOSTAMP_EXPORTS" end
    assert(exports, name .. ": monostamp.libmonostamp must define MONOSTAMP_EXPORTS, or it exports nothing")
  end)

  it("installs monostamp.lua as monostamp, every bindings/lua/monostamp/*.lua, and no module without a file", function()
    local spec, name = load_spec()
    assert.equal("bindings/lua/monostamp.lua", spec.build.modules.monostamp)
    -- The pure-Lua modules: each bindings/lua/monostamp/*.lua installed
    -- under its module name, and no module whose file is missing.
    for _, file in ipairs(ls("bindings/lua/monostamp/*.lua")) do
      local module = file:match("^bindings/lua/(.*)%.lua$"):gsub("/", ".")
      assert.equal(file, spec.build.modules[module], name .. " does not install " .. file)
    end
    for module, entry in pairs(spec.build.modules) do
      if type(entry) == "string" then
        assert(io.open(helper.root .. "/" .. entry), name .. ": " .. module .. "'s " .. entry
               .. " does not exist"):close()
      end
    end
  end)

  it("has the version of csrc/monostamp.h", function()
    local spec = load_spec()
    local version = io.open(helper.root .. "/csrc/monostamp.h"):read("a")
                      :match('#define MONOSTAMP_VERSION "([^"]+)"')
    assert.equal(version, spec.version:match("^(.*)%-%d+$"))
  end)
end)
