-- rockspec_spec.lua: the rockspec builds its C parts with
-- tools/lua/build-rock.sh from every binding and core C file (so `luarocks
-- make` builds what `make lua` builds, and the plain library monostamp.ffi
-- loads from exactly the core's), into build/luarocks/, and installs them
-- and every Lua file of the binding.  It reads files and
-- loads no module, so it runs once, under Lua 5.3-5.5.
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

describe("the rockspec", function()
  it("builds the C parts with tools/lua/build-rock.sh and installs what it builds", function()
    local spec, name = load_spec()
    assert.equal("command", spec.build.type)
    assert.equal(name, spec.package .. "-" .. spec.version .. ".rockspec")
    assert.truthy(spec.build.build_command:find("sh tools/lua/build-rock.sh", 1, true),
                  name .. ": build_command runs tools/lua/build-rock.sh")
    local script = assert(io.open(helper.root .. "/tools/lua/build-rock.sh")):read("a")
    -- Every binding and core file, by glob: no list to fall behind csrc/.
    assert.truthy(script:find("bindings/lua/*.c csrc/*.c", 1, true))
    assert.truthy(script:find("-DMONOSTAMP_EXPORTS -Icsrc csrc/*.c", 1, true),
                  "the plain library must define MONOSTAMP_EXPORTS, or it exports nothing")
    assert.same({ ["monostamp.core"] = "build/luarocks/monostamp/core.so",
                  ["monostamp.libmonostamp"] = "build/luarocks/monostamp/libmonostamp.so" },
                spec.build.install.lib)
    for module, file in pairs(spec.build.install.lib) do
      local out = file:match("^build/luarocks/(.*)%.so$")
      assert.equal(module:gsub("%.", "/"), out, name .. ": " .. module .. " installed from " .. file)
      assert.truthy(script:find('"$out/' .. out:match("[^/]+$") .. '.so"', 1, true),
                    "build-rock.sh does not build " .. file)
    end
  end)

  it("installs monostamp.lua as monostamp, every bindings/lua/monostamp/*.lua, and no module without a file", function()
    local spec, name = load_spec()
    local lua = spec.build.install.lua
    assert.equal("bindings/lua/monostamp.lua", lua.monostamp)
    -- The pure-Lua modules: each bindings/lua/monostamp/*.lua installed
    -- under its module name, and no module whose file is missing.
    for _, file in ipairs(ls("bindings/lua/monostamp/*.lua")) do
      local module = file:match("^bindings/lua/(.*)%.lua$"):gsub("/", ".")
      assert.equal(file, lua[module], name .. " does not install " .. file)
    end
    for module, entry in pairs(lua) do
      assert(io.open(helper.root .. "/" .. entry), name .. ": " .. module .. "'s " .. entry
             .. " does not exist"):close()
    end
  end)

  it("has the version of csrc/monostamp.h", function()
    local spec = load_spec()
    local version = io.open(helper.root .. "/csrc/monostamp.h"):read("a")
                      :match('#define MONOSTAMP_VERSION "([^"]+)"')
    assert.equal(version, spec.version:match("^(.*)%-%d+$"))
  end)
end)
