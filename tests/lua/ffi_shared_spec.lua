-- ffi_shared_spec.lua: monostamp.ffi's default clock shared with a child
-- fork()ed after require, and a LuaJIT process stamping at the same time as
-- a Lua 5.4 process on the C module (LuaJIT only: plain Lua has no fork(),
-- which the FFI declares here, and the pair of interpreters is run once,
-- from the LuaJIT suite).  What both modules do on a shared file is
-- shared_spec.lua's.
local ffi = require "ffi"
local monostamp = require "monostamp.ffi"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

-- The barrier the children and forks meet at (see there).
local MEET = helper.root .. "/tests/lua/meet.lua"
local meet = dofile(MEET)
local function nap() monostamp.sleep_ns(100000) end

-- Each list's stamps span a time that another list's span overlaps, or the
-- test proved nothing: stamps taken one process after the other would be
-- unique with no sharing at all.  The barriers make this certain; the
-- check keeps them honest.
local function assert_overlap(lists)
  for name, a in pairs(lists) do
    local overlaps = false
    for other, b in pairs(lists) do
      if other ~= name and a[1] < b[#b] and b[1] < a[#a] then overlaps = true end
    end
    assert(overlaps, name .. " ran alone; the test proved nothing")
  end
end

describe("a shared state file", function()
  after_each(helper.cleanup)

  it("shares the default clock's sequence with a child fork()ed after require", function()
    -- As nginx workers forked after init_by_lua's require: no state file,
    -- only the page the library mapped when it loaded.  Whole-µs stamps:
    -- each process's run ahead of the clock 1 µs a call, so two processes
    -- that did not share the sequence would hand out the same µs by the
    -- thousand.
    if not pcall(ffi.typeof, "struct monostamp_spec_fork") then
      ffi.cdef [[
        struct monostamp_spec_fork { int unused; };
        int fork(void);
        int waitpid(int pid, int *status, int options);
        void _exit(int status);
      ]]
    end
    -- Parent (1) and child (2) meet before they stamp and again half way,
    -- so their stamps certainly interleave (tests/lua/meet.lua).
    local dir = helper.tmpdir()
    local path = dir .. "/child"
    local n = 20000
    local function stamps(id)
      local t = {}
      meet(dir .. "/start", id, 2, nap)
      for i = 1, n / 2 do t[i] = monostamp.time_us() end
      meet(dir .. "/half", id, 2, nap)
      for i = n / 2 + 1, n do t[i] = monostamp.time_us() end
      return t
    end
    local pid = ffi.C.fork()
    assert(pid >= 0, "fork failed")
    if pid == 0 then
      local ok = pcall(function()
        local f = assert(io.open(path, "w"))
        for _, t in ipairs(stamps(2)) do f:write((tostring(t):gsub("LL$", "")), "\n") end
        f:close()
      end)
      ffi.C._exit(ok and 0 or 1)
    end
    local mine = stamps(1)
    local status = ffi.new("int[1]")
    assert.equal(pid, ffi.C.waitpid(pid, status, 0))
    assert.equal(0, status[0])
    local seen = {}
    for _, t in ipairs(mine) do seen[tostring(t)] = true end
    local theirs = helper.read_i64(path)
    assert.equal(n, #theirs)
    for _, t in ipairs(theirs) do
      assert(not seen[tostring(t)], "stamp " .. tostring(t) .. " in parent and child")
    end
    assert_overlap { parent = mine, child = theirs }
  end)

  it("gives no stamp twice to a LuaJIT and a Lua 5.4 process stamping at once", function()
    -- Whole-µs stamps, as above: unshared, the two would collide by the thousand.
    assert(helper.build, "MONOSTAMP_BUILD is not set: make test-luajit sets it (the C module is built by make lua)")
    local dir = helper.tmpdir()
    local path = dir .. "/state"
    local n = 20000
    -- Each meets the other before it stamps and again half way
    -- (tests/lua/meet.lua), so their stamps certainly interleave.
    local script = [[
      local m = require(arg[1])
      local meet = dofile(arg[5])
      local prefix, id = arg[6], tonumber(arg[7])
      local function nap() m.sleep_ns(100000) end
      local c = assert(m.clock{ shared = arg[2] })
      local n, t = tonumber(arg[4]), {}
      meet(prefix .. "start", id, 2, nap)
      for i = 1, n / 2 do t[i] = c:time_us() end
      meet(prefix .. "half", id, 2, nap)
      for i = n / 2 + 1, n do t[i] = c:time_us() end
      local f = assert(io.open(arg[3], "w"))
      for _, v in ipairs(t) do f:write((tostring(v):gsub("LL$", "")), "\n") end
      f:close()
    ]]
    local sf = assert(io.open(dir .. "/stamp.lua", "w"))
    sf:write(script)
    sf:close()
    local lua_path = helper.q(helper.root .. "/bindings/lua/?.lua;;")
    local cmd = "LUA_PATH=" .. lua_path .. " " .. helper.luajit .. " " .. helper.q(dir .. "/stamp.lua")
      .. " monostamp.ffi " .. helper.q(path) .. " " .. helper.q(dir .. "/jit") .. " " .. n
      .. " " .. helper.q(MEET) .. " " .. helper.q(dir .. "/") .. " 1 & "
      .. "LUA_PATH=" .. lua_path .. " LUA_CPATH=" .. helper.q(helper.build .. "/lua/?.so;;")
      .. " lua5.4 " .. helper.q(dir .. "/stamp.lua") .. " monostamp " .. helper.q(path) .. " "
      .. helper.q(dir .. "/c54") .. " " .. n .. " " .. helper.q(MEET) .. " " .. helper.q(dir .. "/")
      .. " 2; wait $!"
    local out, ok = helper.sh(cmd .. " 2>&1")
    assert.is_true(ok, out)
    local seen, count, lists = {}, 0, {}
    for _, name in ipairs { "jit", "c54" } do
      local stamps = helper.read_i64(dir .. "/" .. name)
      lists[name] = stamps
      assert.equal(n, #stamps, name)
      for i, t in ipairs(stamps) do
        if i > 1 then assert(t > stamps[i - 1], name .. ": not increasing at " .. i) end
        local key = tostring(t)
        assert(not seen[key], "stamp " .. key .. " handed out twice")
        seen[key] = true
        count = count + 1
      end
    end
    assert.equal(2 * n, count)
    assert_overlap(lists)
  end)
end)
