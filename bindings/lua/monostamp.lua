-- monostamp.lua: require "monostamp" (Lua 5.3-5.5; LuaJIT: monostamp.ffi).
-- The C part is monostamp.core, never a monostamp.so in the source root,
-- where Python's `import monostamp` or a `./?.so` path would find it.
local core = require "monostamp.core"
require("monostamp.sleep_finish").register(core)
-- Lua names a function it cannot name from the call by the first
-- package.loaded entry holding it, in hash order: an entry that holds none
-- keeps the name monostamp.<function>.
package.loaded["monostamp.core"] = setmetatable({}, { __index = core })
return core
