-- monostamp.lua: require "monostamp", for Lua 5.3, 5.4 and 5.5.
--
-- The functions live in the C part, monostamp.core (bindings/lua/*.c and
-- the core); this file gives it its public name and registers the finish
-- of its sleeps, the Lua spin that ends each sleep_ns and sleep_until_ns on
-- time for the caller (monostamp/sleep_finish.lua, docs/sleep.md).  Why
-- two names: the builtin rockspec backend writes a C module named
-- `monostamp` to monostamp.so in the source root, where `import monostamp`
-- (Python) and a `./?.so` search path would find it; as monostamp.core it
-- is built to monostamp/core.so, which neither picks up for the name
-- "monostamp".
--
-- LuaJIT has no 64-bit integers for the C part: it uses monostamp.ffi.
local core = require "monostamp.core"
require("monostamp.sleep_finish").register(core)
-- One name in messages: Lua names a function it cannot name from the call
-- (pcall(monostamp.clock, ...)) by the first package.loaded entry that
-- holds it, in a hash order that changes from run to run.  The entry
-- "monostamp.core" becomes a view that holds none of them itself, so the
-- name is always monostamp.<function>.
package.loaded["monostamp.core"] = setmetatable({}, { __index = core })
return core
