-- faults_spec.lua: tests/lua/faults_spec.lua, the one spec of every fault's
-- text, run on monostamp.ffi under LuaJIT (it picks the module by `jit`),
-- in this spec's environment, where busted put describe and it.
local spec = assert(loadfile(debug.getinfo(1, "S").source:match("^@(.*/)")
                             .. "../lua/faults_spec.lua"))
setfenv(spec, getfenv(1))
spec()
