-- shared_spec.lua: clocks on one state file, in one process, across Lua
-- processes, through a child's default clock, and between a Lua process
-- and a Python process.  Runs against the module this interpreter loads
-- (helper.lua): the C module under Lua 5.3-5.5, monostamp.ffi under
-- LuaJIT; the children run the same interpreter and module.
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")
local monostamp = helper.monostamp
local int, text = helper.int, helper.text

local COUNT = 50000

-- A sh command that runs Lua child `id` of `total`: it opens the file at
-- `path`, meets the others (meet.lua: a barrier over files named
-- `meet`..phase..id), takes COUNT / 2 stamps, meets them again and takes
-- the rest, one per line into `out`.  The two barriers, rather than a
-- deadline or luck, make the overlap certain: every child stamps both
-- before and after every other child's middle, on a loaded machine too.
local function lua_child(path, meet, id, total, out)
  local script = string.format([[
    local m = require %q
    local meet = dofile(%q)
    local c = assert(m.clock{ shared = %q })
    assert(c:is_shared())
    local prefix, id, total, count = %q, %d, %d, %d
    local function nap() m.sleep_ns(100000) end
    local t, half = {}, math.floor(count / 2)
    meet(prefix .. "start", id, total, nap)
    for i = 1, half do t[i] = c:time_ns() end
    meet(prefix .. "half", id, total, nap)
    for i = half + 1, count do t[i] = c:time_ns() end
    local f = assert(io.open(%q, "w"))
    for _, v in ipairs(t) do f:write((tostring(v):gsub("LL$", "")), "\n") end
    f:close()
  ]], helper.module_name, helper.root .. "/tests/lua/meet.lua", path, meet, id, total, COUNT, out)
  return helper.interpreter .. " -e " .. helper.q(script)
end

-- The same in Python, through the Python binding's Clock(shared=...).
local PY_CHILD = [[
import os, sys, time, monostamp
path, prefix, my_id, total, count, out = sys.argv[1:7]
count = int(count)

def meet(phase):  # as tests/lua/meet.lua
    open(prefix + phase + my_id, "w").close()
    give_up = time.monotonic() + 60  # a sibling that died
    while not all(os.path.exists(prefix + phase + str(i)) for i in range(1, int(total) + 1)):
        assert time.monotonic() < give_up, "the other children never reached " + phase
        time.sleep(0.0001)

c = monostamp.Clock(shared=path)
meet("start")
t = [c.time_ns() for _ in range(count // 2)]
meet("half")
t += [c.time_ns() for _ in range(count - count // 2)]
with open(out, "w") as f:
    f.write("\n".join(map(str, t)) + "\n")
]]

local function python_child(path, meet, id, total, out)
  return table.concat({ helper.python, "-c", helper.q(PY_CHILD), helper.q(path), helper.q(meet),
                        tostring(id), tostring(total), tostring(COUNT), helper.q(out) }, " ")
end

-- Runs the children at once and checks: each strictly increasing, no
-- stamp twice across all, and the sequences interleaved, or the test
-- proved nothing (the barriers make sure of that; the check keeps them
-- honest).
local function run_together(makers)
  local dir = helper.tmpdir()
  local path = dir .. "/state"
  local meet = dir .. "/meet-"
  local parts, outs = {}, {}
  for i, make in ipairs(makers) do
    outs[i] = dir .. "/out" .. i
    parts[i] = "( " .. make(path, meet, i, #makers, outs[i]) .. " ) &"
  end
  local log, ok = helper.sh("{ " .. table.concat(parts, " ") .. " wait; } 2>&1")
  local seen, ranges = {}, {}
  for i, out in ipairs(outs) do
    local f = io.open(out)
    assert(f, "child " .. i .. " wrote nothing; its output:\n" .. log)
    f:close()
    local stamps = helper.read_integers(out)
    assert.equal(COUNT, #stamps, "child " .. i .. " output:\n" .. log)
    for j, ns in ipairs(stamps) do
      local key = text(ns)  -- int64_t cdata are distinct table keys: the text is not
      if not (j == 1 or ns > stamps[j - 1]) then
        error(string.format("child %d: stamp %d (%s) not above %s", i, j, key, text(stamps[j - 1])))
      end
      if seen[key] then error(string.format("%s handed out to child %d and child %d", key, seen[key], i)) end
      seen[key] = i
    end
    ranges[i] = { stamps[1], stamps[#stamps] }
  end
  assert(ok, log)
  -- Interleaving: each child's range overlaps another's.
  for i, r in ipairs(ranges) do
    local overlaps = false
    for j, s in ipairs(ranges) do
      if i ~= j and r[1] < s[2] and s[1] < r[2] then overlaps = true end
    end
    assert(overlaps, "child " .. i .. " ran alone; the test proved nothing")
  end
  return seen
end

describe("a shared state file", function()
  after_each(helper.cleanup)

  it("joins two clocks of one process into one sequence", function()
    local path = helper.tmpdir() .. "/state"
    local a = assert(monostamp.clock{ shared = path })
    local b = assert(monostamp.clock{ shared = path, policy = "monotonicForceNanosecondIncrement" })
    assert.is_true(a:is_shared())
    assert.matches(", shared%)", tostring(a))
    local last = a:time_ns()
    for i = 1, 10000 do
      local ns = (i % 2 == 0) and a:time_ns() or b:time_ns()
      assert(ns > last)
      last = ns
    end
  end)

  it("joins two frozen manual clocks of one process into one sequence, one ns apart", function()
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
    assert.equal(int(1000), last - first)
  end)

  it("carries the sequence to a clock opened later", function()
    local path = helper.tmpdir() .. "/state"
    local a = assert(monostamp.clock{ shared = path })
    local last = a:time_ns()
    a:close()
    -- Unbounded: its reading of 0 leads nothing the default bound allows.
    local b = assert(monostamp.clock{ shared = path, source = "manual", max_lead_ns = 0 })
    -- A manual reading of 0 is far below the last stamp: forced past it.
    assert.equal(last + 1, b:time_ns())
  end)

  it("is joined by the default clock of a child through MONOSTAMP_SHARED", function()
    local path = helper.tmpdir() .. "/state"
    -- A manual clock 0.8 s ahead (the child's default clock is bounded at
    -- 1 s; this one's 100 ms bound makes the file it creates start 100 ms
    -- ahead, below that, and leaves room for the few ms a newcomer on a
    -- leading file raises it by: docs/clock-core.md), frozen there.
    local ahead = monostamp.time_ns() + 800000000
    local c = assert(monostamp.clock { shared = path, source = "manual", start_ns = ahead,
                                       max_lead_ns = 100000000 })
    assert.equal(ahead, c:time_ns())
    local out, ok = helper.sh("MONOSTAMP_SHARED=" .. helper.q(path) .. " " .. helper.interpreter
      .. " -e 'local m = require \"" .. helper.module_name .. "\"; io.write(tostring(m.time_ns()))' 2>&1")
    assert.is_true(ok, out)
    assert.matches("^%d+" .. (helper.ffi and "LL" or "") .. "$", out)
    local child = int(out)  -- exact, past 2^53
    -- The child's stamp is above this one's (the file's sequence; its own
    -- reading too, should it have started later than 0.8 s), and this
    -- frozen clock's next stamp comes right after the child's: the child
    -- wrote it into the file.
    assert.is_true(child > ahead, out)
    assert.equal(text(child + 1), text((assert(c:time_ns()))))
  end)

  it("gives no stamp twice to three Lua processes", function()
    run_together{ lua_child, lua_child, lua_child }
  end)

  it("gives no stamp twice to a Lua process and a Python process", function()
    local out, ok = helper.sh(helper.python .. " -c 'import monostamp; monostamp.Clock' 2>&1")
    assert(ok, "this spec needs the Python binding: `" .. helper.python
               .. " -c 'import monostamp'` failed (make test-lua puts this tree's on PYTHONPATH;"
               .. " elsewhere install it with `pip install .`):\n" .. out)
    run_together{ lua_child, python_child }
  end)

  it("starts its Python child the same from any directory", function()
    -- A directory whose monostamp.py would be imported if the child's
    -- sys.path held the working directory: the child must not see it.
    local dir = helper.tmpdir()
    local f = assert(io.open(dir .. "/monostamp.py", "w"))
    f:write("raise SystemExit('the monostamp.py of the working directory was imported')\n")
    f:close()
    local out, ok = helper.sh("cd " .. helper.q(dir) .. " && ( " .. helper.python
                              .. " -c 'import monostamp; monostamp.Clock' ) 2>&1")
    assert(ok, out)
  end)
end)
