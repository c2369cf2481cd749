-- unique_ids.lua: monostamp under LuaJIT (or OpenResty), through the FFI.
-- 100,000 ids from the coarse clock, all distinct and increasing, as int64_t
-- cdata; then one stamp as ISO 8601 text, and a UUIDv7.
--
--   MONOSTAMP_LIBRARY=/usr/local/lib/libmonostamp.so \
--   LUA_PATH='bindings/lua/?.lua;;' luajit examples/luajit/unique_ids.lua
local monostamp = require "monostamp.ffi"

local clock = assert(monostamp.clock { source = "realtime_coarse" })
local ids = {}
for i = 1, 100000 do ids[i] = clock:time_ns() end
for i = 2, #ids do
  assert(ids[i] > ids[i - 1], "not increasing at " .. i)
end
local stats = clock:stats()
print(string.format("%d ids, first %s, last %s: %d readings, %d forced increments",
                    #ids, tostring(ids[1]), tostring(ids[#ids]), stats.readings,
                    stats.forced_increments))
print("now:   " .. monostamp.isoformat(monostamp.now()))
print("uuid7: " .. monostamp.uuid7())
print("library: " .. monostamp.library)
clock:close()
