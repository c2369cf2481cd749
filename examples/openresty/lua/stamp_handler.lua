-- stamp_handler.lua: monostamp.ffi behind nginx (examples/openresty/nginx.conf).
--   GET /stamp  {"ns": <integer ns>, "iso": "<ISO 8601 with offset>", "worker": <pid>}
--   GET /id     {"id": "<UUIDv7>"}
local monostamp = require "monostamp.ffi"

local M = {}

-- A runtime failure is nil, message, code (a state file the worker user
-- cannot open, for one): log it and answer 500, rather than fail later on
-- a nil.
local function failed(message)
  ngx.log(ngx.ERR, "monostamp: ", message)
  return ngx.exit(ngx.HTTP_INTERNAL_SERVER_ERROR)
end

function M.stamp()
  local ns, offset = monostamp.now()
  if not ns then return failed(offset) end
  -- ns is int64_t cdata: ngx.say(ns) refuses it and tostring(ns) ends in
  -- "LL"; string.format's %d writes all its digits.
  ngx.say(string.format('{"ns": %d, "iso": "%s", "worker": %d}',
                        ns, monostamp.isoformat(ns, offset), ngx.worker.pid()))
end

function M.id()
  local id, message = monostamp.uuid7()
  if not id then return failed(message) end
  ngx.say(string.format('{"id": "%s"}', id))
end

return M
