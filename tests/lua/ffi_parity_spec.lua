-- ffi_parity_spec.lua: monostamp.ffi keeps the C module's error conventions
-- (LuaJIT only: it runs both modules, each in a child of its interpreter).
-- The same calls run in a lua5.4 child on require "monostamp" (the C
-- module make lua built) and in a luajit child on monostamp.ffi; what each
-- raised or returned must read the same, call by call.  Positions ("x:1: ")
-- are left out: C functions raise without one, the FFI module at the
-- caller's line.  Known differences are listed in docs/lua.md and not here:
-- a float such as 1e9 is an exact integer to LuaJIT, ns come back as
-- int64_t cdata (printed without LL here), and a missing argument reads
-- "nil", not "no value".
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

-- Each case an expression over m (the module) and tmp (a private folder).
local CASES = {
  -- bad arguments raise
  "m.clock{ polcy = 'x' }",
  "m.clock{ policy = 'nope' }",
  "m.clock{ source = 'sundial' }",
  "m.clock{ on_lead = 'panic' }",
  "m.clock{ max_lead_ns = -1 }",
  "m.clock{ start_ns = 0 }",
  "m.clock{ zone = string.rep('x', 300) }",
  "m.clock{ shared = '' }",
  "m.clock{ shared = 'a\\0b' }",
  "m.clock{ zone = 5 }",
  "m.clock{ trust_group = 1 }",
  "m.clock{ max_lead_ns = 1.5 }",
  "m.clock{ max_lead_ns = 'x' }",
  "m.clock{ [1] = 2 }",
  "m.clock(5)",
  "m.set_policy('nope')",
  "m.set_policy(5)",
  "m.clock_info('sundial')",
  "m.isoformat(0, 86400)",
  "m.isoformat(0, 0, 10)",
  "m.isoformat(1.5, 0)",
  "m.isoformat('x', 0)",
  "m.isoformat(0, 1.5)",
  "m.isoformat(0, {})",
  "m.sleep_ns(-1)",
  "m.sleep_ns(0, -1)",
  "m.sleep_ns(1.5)",
  "m.sleep_until_ns(0, -1)",
  "m.parse({})",
  "m.clock{ source = 'manual' }:set(1.5)",
  "m.clock{ source = 'manual' }:advance('x')",
  "m.clock{}:set(5)",
  "m.clock{}:advance(5)",
  "m.clock{}.set(m.clock{}, 5)",
  "m.clock{}.now({})",
  "m.clock{}.now(5)",
  "m.clock{}:set_policy('nope')",
  "(function() local c = m.clock{}; c:close(); return c:now() end)()",
  "(function() local c = m.clock{}; c:close(); return c:close() end)()",
  "(function() local c = m.clock{ source = 'manual', start_ns = 9007199254740992 };"
    .. " c:set(9007199254740992); return c:advance(9007199254740992) end)()",
  -- runtime failures return nil, message, code
  "m.parse('2026')",
  "m.parse('2026-12-02T15-11:20Z')",
  "m.parse(5)",
  "m.clock{ zone = 'Mars/Olympus_Mons' }",
  "m.clock{ shared = tmp .. '/no/such/dir/state' }",
  "m.clock{ shared = tmp .. '/foreign' }",
  "m.clock{ shared = tmp .. '/short' }",
  "m.clock{ shared = tmp .. '/world' }",
  "(function() local c = m.clock{ source = 'manual', max_lead_ns = 1, on_lead = 'error' };"
    .. " c:time_ns(); c:time_ns(); return c:time_ns() end)()",
  "m.clock{ source = 'manual' }:take(0)",
  "m.clock{ source = 'manual' }:take(1.5)",
  "m.clock{ source = 'manual', start_ns = 0, max_lead_ns = 5, on_lead = 'error' }:take(10)",
  "m.clock{ source = 'manual', policy = 'monotonicAllowDuplicates' }:take(2)",
  "m.take(0)",
  "m.take('x')",
  "m.uuid7_ns('nope')",
  "m.uuid7_ns('00000000-0000-4000-8000-000000000000')",
  "m.uuid7_ns({})",
  -- and what works reads the same too
  "m.clock{ source = 'manual', start_ns = 100 }:take(3)",
  "m.clock{ source = 'manual', start_ns = 100, policy = 'monotonicForceMicrosecondIncrement' }:take(3)",
  "m.uuid7_ns('01937ed9-7200-7000-8030-7c87cb68c99c')",
  "#m.uuid7()",
  "m.isoformat(0, 3600, 3, true)",
  "m.parse('2026-12-02T15:11:20.123456789+01:00')",
  "m.clock{ source = 'manual', start_ns = 5 }:time_ns()",
  "m.set_policy('monotonicAllowDuplicates')",
  "m.get_policy()",
  "m.zone_changed()",
}

-- The child: runs each case, one line of output per case.
local RUNNER = [=[
local m = require(arg[1])
local tmp = arg[2]
local load = loadstring or load
local function show(v)
  return (tostring(v):gsub("^(%-?%d+)U?LL$", "%1"))
end
-- Each call is an argument of pack(), never a tail call: a tail call
-- loses the frame that says the function was called as a method.
local function pack(...) return { n = select("#", ...), ... } end
for line in io.lines(arg[3]) do
  local f = assert(load("local m, tmp, pack = ...; local r = pack(" .. line .. "); return r"))
  local ok, r = pcall(f, m, tmp, pack)
  local out = {}
  if not ok then
    out[1] = "raises: " .. tostring(r):gsub("^[^\n]-:%d+: ", "")
  else
    out[1] = "returns:"
    for i = 1, r.n do out[#out + 1] = show(r[i]) end
  end
  io.write((table.concat(out, " | "):gsub("\n", "\\n")), "\n")
end
]=]

describe("monostamp.ffi against the C module", function()
  local lua54 = "lua5.4"
  local cpath = helper.build and (helper.build .. "/lua/?.so") or nil

  it("raises and returns the same for each call", function()
    assert(cpath, "MONOSTAMP_BUILD is not set: make test-luajit sets it (the C module is built by make lua)")
    local tmp = helper.tmpdir()
    local f = assert(io.open(tmp .. "/cases", "w"))
    f:write(table.concat(CASES, "\n"), "\n")
    f:close()
    f = assert(io.open(tmp .. "/runner.lua", "w"))
    f:write(RUNNER)
    f:close()
    -- The files the failure cases need: foreign, truncated, world-writable.
    f = assert(io.open(tmp .. "/foreign", "w"))
    f:write(("x"):rep(4096))
    f:close()
    assert(io.open(tmp .. "/short", "w")):close()
    assert(io.open(tmp .. "/world", "w")):close()
    assert(os.execute("chmod 666 " .. helper.q(tmp .. "/world")) == 0)

    local function run(interp, module, path, env)
      local out, ok = helper.sh("cd / && env -u MONOSTAMP_SHARED " .. env .. " " .. interp .. " "
        .. helper.q(tmp .. "/runner.lua") .. " " .. module .. " " .. helper.q(tmp) .. " "
        .. helper.q(tmp .. "/cases") .. " 2>&1")
      assert(ok, interp .. " failed:\n" .. out)
      local lines = {}
      for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
      assert.equal(#CASES, #lines, interp .. " printed:\n" .. out)
      return lines
    end
    local lua_path = helper.q(helper.root .. "/bindings/lua/?.lua;;")
    local c_lines = run(lua54, "monostamp", nil,
      "LUA_PATH=" .. lua_path .. " LUA_CPATH=" .. helper.q(cpath .. ";;"))
    local ffi_lines = run(helper.luajit, "monostamp.ffi", nil,
      "LUA_PATH=" .. lua_path .. " MONOSTAMP_LIBRARY=" .. helper.q(helper.library))
    local differ = {}
    for i, case in ipairs(CASES) do
      if c_lines[i] ~= ffi_lines[i] then
        differ[#differ + 1] = case .. "\n    C module: " .. c_lines[i] .. "\n    ffi:      " .. ffi_lines[i]
      end
    end
    assert(#differ == 0, #differ .. " of " .. #CASES .. " calls differ:\n  " .. table.concat(differ, "\n  "))
    helper.cleanup()
  end)
end)
