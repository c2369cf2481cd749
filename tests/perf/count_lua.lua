-- count_lua.lua: Lua's now() and time_ns() as users call them (a field of
-- the module table), for the perf gate: LUA_CPATH finds the C module.
--   lua5.4 tests/perf/count_lua.lua now|time_ns|empty N
-- The gate runs it under callgrind at N and 2N; the difference over N is
-- one call's count, the interpreter's start cancelled.
local monostamp = require "monostamp"
local what, n = arg[1], tonumber(arg[2])
if what == "empty" then
  for _ = 1, n do end
elseif what == "now" then
  for _ = 1, n do local _ = monostamp.now() end
else
  for _ = 1, n do local _ = monostamp.time_ns() end
end
