-- lifetime_spec.lua: clocks as userdata: __gc, __close, close(), __tostring,
-- __name, and no leaked mappings after many clocks.  The C module's
-- (Lua 5.3-5.5): monostamp.ffi's clocks are cdata, whose close and
-- collection api_spec.lua checks under both.
local monostamp = require "monostamp"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

-- Lines of /proc/self/maps that map `path`.
local function mappings_of(path)
  local n = 0
  for line in io.lines("/proc/self/maps") do
    if line:sub(-#path) == path then n = n + 1 end
  end
  return n
end

describe("a clock userdata", function()
  after_each(helper.cleanup)

  it("has a named metatable with __gc, __close, __tostring and __index", function()
    local c = assert(monostamp.clock())
    local mt = getmetatable(c)
    assert.equal("monostamp.Clock", mt.__name)
    assert.is_function(mt.__gc)
    assert.is_function(mt.__close)
    assert.is_function(mt.__tostring)
    assert.is_table(mt.__index)
    assert.equal("userdata", type(c))
  end)

  it("prints its source, policy and zone", function()
    local c = assert(monostamp.clock{ source = "manual", zone = "UTC",
                                      policy = "monotonicAllowDuplicates", max_lead_ns = 0 })
    assert.matches("^monostamp%.Clock %(manual, monotonicAllowDuplicates, zone 'UTC'%): 0x%x+$",
                   tostring(c))
    -- The default bound is shown as any bound is.
    c = assert(monostamp.clock{ source = "manual", zone = "UTC" })
    assert.matches(", max_lead_ns 1000000000 wait%): 0x%x+$", tostring(c))
    assert.matches("zone 'local'", tostring(assert(monostamp.clock())))
  end)

  it("close() releases it once; later calls raise, close again is fine", function()
    local c = assert(monostamp.clock{ source = "manual" })
    c:close()
    c:close()
    assert.matches("^monostamp%.Clock %(closed%)", tostring(c))
    assert.error_matches(function() c:time_ns() end, "attempt to use a closed clock")
    assert.error_matches(function() c:now() end, "attempt to use a closed clock")
    assert.error_matches(function() c:time_us() end, "attempt to use a closed clock")
    assert.error_matches(function() c:now_us() end, "attempt to use a closed clock")
    assert.error_matches(function() c:set(1) end, "attempt to use a closed clock")
    assert.error_matches(function() c:stats() end, "attempt to use a closed clock")
  end)

  it("is closed by a <close> variable at the end of its scope, errors too", function()
    -- The syntax is Lua 5.4's: compiled at run time so the file loads anywhere.
    if _VERSION == "Lua 5.3" then
      pending("to-be-closed variables (<close>) are Lua 5.4's")
      return
    end
    local chunk = assert(load([[
      local monostamp, path = ...
      local escaped, inner
      do
        local c <close> = assert(monostamp.clock{ shared = path })
        escaped = c
        assert(c:time_ns())
      end
      local ok = pcall(function()
        local d <close> = assert(monostamp.clock{ shared = path })
        inner = d
        error("boom")
      end)
      assert(not ok)
      return escaped, inner
    ]]))
    local path = helper.tmpdir() .. "/state"
    local before = mappings_of(path)
    local c, d = chunk(monostamp, path)
    assert.matches("%(closed%)", tostring(c))
    assert.matches("%(closed%)", tostring(d))
    assert.error_matches(function() c:time_ns() end, "attempt to use a closed clock")
    assert.equal(0, mappings_of(path) - before)
  end)

  it("releases its shared mapping when collected", function()
    local path = helper.tmpdir() .. "/state"
    do
      local clocks = {}
      for i = 1, 200 do
        clocks[i] = assert(monostamp.clock{ shared = path })
        clocks[i]:time_ns()
      end
      assert.equal(200, mappings_of(path))
    end
    collectgarbage("collect")
    collectgarbage("collect")
    assert.equal(0, mappings_of(path))
  end)

  it("survives many short-lived clocks of every kind without growing", function()
    local path = helper.tmpdir() .. "/state"
    local function churn(n)
      for i = 1, n do
        local c = assert(monostamp.clock{ source = (i % 2 == 0) and "manual" or "realtime",
                                          zone = (i % 3 == 0) and "Europe/Berlin" or nil,
                                          shared = (i % 5 == 0) and path or nil })
        c:now()
        if i % 7 == 0 then c:close() end
        -- Failed constructions leave nothing to collect either.
        assert.is_nil((monostamp.clock{ zone = "No/Such_Zone" }))
      end
    end
    churn(2000)
    collectgarbage("collect")
    local base = collectgarbage("count")
    churn(20000)
    collectgarbage("collect")
    collectgarbage("collect")
    local grown = collectgarbage("count") - base
    assert.is_true(grown < 64, "Lua heap grew by " .. grown .. " KiB")
    assert.equal(0, mappings_of(path))
  end)
end)
