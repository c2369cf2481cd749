-- A soak worker (test_soak.py): stamps in bursts on the shared state file
-- until the stop file appears, appending each burst to its output file.
--
-- Usage: lua5.4 worker.lua PATH OUT MODE BURST PAUSE_MS STOP, started in the
-- soak directory (PATH is relative to it).  MODE "clock" draws from
-- clock{shared=PATH}; "default" from the default clock, which
-- MONOSTAMP_SHARED=PATH joins to the file.  (Lua has no chdir: only the
-- Python workers wander.)
local m = require "monostamp"
local path, out, mode, burst, pause_ms, stop = ...
burst, pause_ms = math.tointeger(burst), math.tointeger(pause_ms)
local src = m
if mode == "clock" then
  src = assert(m.clock{ shared = path })
else
  assert(os.getenv("MONOSTAMP_SHARED") == path)
end
local function stopped()
  local f = io.open(stop, "r")
  if f then f:close() end
  return f ~= nil
end
local f = assert(io.open(out, "a"))
local batch = {}
while not stopped() do
  for i = 1, burst do
    local ns
    if i % 3 == 1 then ns = assert(src.now(src ~= m and src or nil))
    else ns = assert(src.time_ns(src ~= m and src or nil)) end
    batch[i] = string.format("%d", ns)
  end
  f:write(table.concat(batch, "\n", 1, burst), "\n")
  f:flush()
  assert(m.sleep_ns(pause_ms * 1000000))
end
f:close()
