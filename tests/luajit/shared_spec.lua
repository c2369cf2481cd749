-- shared_spec.lua: monostamp.ffi clocks on a shared state file: two in one
-- process, the default clock through MONOSTAMP_SHARED, and a LuaJIT
-- process stamping at the same time as a Lua 5.4 process on the C module.
local ffi = require "ffi"
local monostamp = require "monostamp.ffi"
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

describe("a shared state file", function()
  after_each(helper.cleanup)

  it("joins two clocks of one process into one sequence", function()
    local path = helper.tmpdir() .. "/state"
    -- Unbounded: frozen at 0, they lead their source by the file's decades.
    local a = assert(monostamp.clock { shared = path, source = "manual", start_ns = 0, max_lead_ns = 0 })
    local b = assert(monostamp.clock { shared = path, source = "manual", start_ns = 0, max_lead_ns = 0 })
    assert.is_true(a:is_shared())
    assert.matches(", shared%)", tostring(a))
    local first = a:time_ns()
    local last = first
    for i = 1, 1000 do
      local t = (i % 2 == 0 and a or b):time_ns()
      assert.is_true(t > last)
      last = t
    end
    -- Frozen manual readings below the file's sequence: each stamp the next ns.
    assert.equal(1000LL, last - first)
  end)

  it("is joined by the default clock of a child through MONOSTAMP_SHARED", function()
    local path = helper.tmpdir() .. "/state"
    -- A manual clock 0.8 s ahead (the child's default clock is bounded at
    -- 1 s; this one's 1 ms bound makes the file it creates start 1 ms
    -- ahead, below that), frozen there.
    local ahead = monostamp.time_ns() + 800000000LL
    local c = assert(monostamp.clock { shared = path, source = "manual", start_ns = ahead,
                                       max_lead_ns = 1000000 })
    assert.equal(ahead, c:time_ns())
    local out, ok = helper.sh("MONOSTAMP_SHARED=" .. helper.q(path) .. " LUA_PATH="
      .. helper.q(helper.root .. "/bindings/lua/?.lua;;") .. " " .. helper.luajit
      .. " -e 'local m = require \"monostamp.ffi\"; io.write(tostring(m.time_ns()))' 2>&1")
    assert.is_true(ok, out)
    assert.matches("^%d+LL$", out)
    local child = loadstring("return " .. out)()  -- an int64 literal, exact
    -- The child's stamp is above this one's (the file's sequence; its own
    -- reading too, should it have started later than 0.8 s), and this
    -- frozen clock's next stamp comes right after the child's: the child
    -- wrote it into the file.
    assert.is_true(child > ahead, out)
    assert.equal(tostring(child + 1), tostring(c:time_ns()))
  end)

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
    local path = helper.tmpdir() .. "/child"
    local n = 20000
    local pid = ffi.C.fork()
    assert(pid >= 0, "fork failed")
    if pid == 0 then
      local f = io.open(path, "w")
      for _ = 1, n do f:write((tostring(monostamp.time_us()):gsub("LL$", "")), "\n") end
      f:close()
      ffi.C._exit(0)
    end
    local mine = {}
    for i = 1, n do mine[i] = monostamp.time_us() end
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
  end)

  it("gives no stamp twice to a LuaJIT and a Lua 5.4 process stamping at once", function()
    -- Whole-µs stamps, as above: unshared, the two would collide by the thousand.
    assert(helper.build, "MONOSTAMP_BUILD is not set: make test-luajit sets it (the C module is built by make lua)")
    local dir = helper.tmpdir()
    local path = dir .. "/state"
    local n = 20000
    local script = [[
      local m = require(arg[1])
      local c = assert(m.clock{ shared = arg[2] })
      local f = assert(io.open(arg[3], "w"))
      for _ = 1, tonumber(arg[4]) do f:write((tostring(c:time_us()):gsub("LL$", "")), "\n") end
      f:close()
    ]]
    local sf = assert(io.open(dir .. "/stamp.lua", "w"))
    sf:write(script)
    sf:close()
    local lua_path = helper.q(helper.root .. "/bindings/lua/?.lua;;")
    local cmd = "LUA_PATH=" .. lua_path .. " " .. helper.luajit .. " " .. helper.q(dir .. "/stamp.lua")
      .. " monostamp.ffi " .. helper.q(path) .. " " .. helper.q(dir .. "/jit") .. " " .. n .. " & "
      .. "LUA_PATH=" .. lua_path .. " LUA_CPATH=" .. helper.q(helper.build .. "/lua/?.so;;")
      .. " lua5.4 " .. helper.q(dir .. "/stamp.lua") .. " monostamp " .. helper.q(path) .. " "
      .. helper.q(dir .. "/c54") .. " " .. n .. "; wait $!"
    local out, ok = helper.sh(cmd .. " 2>&1")
    assert.is_true(ok, out)
    local seen, count = {}, 0
    for _, name in ipairs { "jit", "c54" } do
      local stamps = helper.read_i64(dir .. "/" .. name)
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
  end)
end)
