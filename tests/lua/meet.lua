-- meet.lua: a barrier for the specs' child processes (Lua 5.1 to 5.5,
-- LuaJIT), loaded with dofile; not a spec.
--
--   local meet = dofile(".../tests/lua/meet.lua")
--   meet(prefix, id, total, sleep)
--
-- Child `id` of `total` makes the file prefix..id, then waits until every
-- prefix..1 .. prefix..total exists, calling sleep() between looks.  A
-- barrier makes an overlap certain where a deadline or a head start only
-- makes it likely: children that meet before they stamp, and again half
-- way, each take stamps both before and after every other one's middle,
-- however the machine schedules them.  Gives up (raises) after 60 s: a
-- sibling that died never arrives.
return function(prefix, id, total, sleep)
  assert(io.open(prefix .. id, "w")):close()
  local give_up = os.time() + 60
  for i = 1, total do
    while true do
      local f = io.open(prefix .. i, "r")
      if f then f:close() break end
      assert(os.time() < give_up, "child " .. i .. " never reached " .. prefix)
      sleep()
    end
  end
end
