-- record.lua: wrk's script for tests/integration/test_nginx.py.  Each wrk
-- thread writes the bodies it receives to OUT/responses.<thread>, flushed
-- every 1000, and stops after WANT of them, leaving OUT/done.<thread>.
-- Arguments (after wrk's `--`): OUT WANT.
local made = 0
function setup(thread)
  made = made + 1
  thread:set("id", made)
end

local out_dir, out, want, got, buf
function init(args)
  out_dir = args[1]
  out = assert(io.open(out_dir .. "/responses." .. id, "w"))
  want, got, buf = tonumber(args[2]), 0, {}
end

function response(status, headers, body)
  if got >= want then return end
  got = got + 1
  if status ~= 200 then body = "status " .. status .. ": " .. body:gsub("\n", " ") .. "\n" end
  buf[#buf + 1] = body
  if #buf >= 1000 or got >= want then
    out:write(table.concat(buf))
    out:flush()
    buf = {}
  end
  if got >= want then
    io.open(out_dir .. "/done." .. id, "w"):close()
    wrk.thread:stop()
  end
end
