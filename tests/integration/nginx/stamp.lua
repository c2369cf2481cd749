-- stamp.lua: the handler of tests/integration/test_nginx.py, monostamp.ffi
-- in an nginx worker.  Each response carries `burst` lines
-- "<whole-µs stamp> <worker pid> <worker's count>" taken back to back, so
-- that a worker's stamps run some µs ahead of the clock: with separate
-- sequences, the next worker to stamp within those µs repeats them, and two
-- workers need not run at the same instant to collide.  The count orders a
-- worker's stamps as it made them (a worker runs one handler at a time, and
-- nothing yields between a stamp and its count).
local monostamp = require "monostamp.ffi"
local format, concat, worker_pid = string.format, table.concat, ngx.worker.pid
local count = 0

local function burst(n)
  local lines, pid = {}, worker_pid()
  for i = 1, n do
    local us, err = monostamp.time_us()
    if not us then
      ngx.log(ngx.ERR, "monostamp: ", err)
      return ngx.exit(500)
    end
    count = count + 1
    lines[i] = format("%d %d %d\n", us, pid, count)
  end
  return concat(lines)
end

return {
  -- location = /stamp: one burst.
  stamp = function(n) ngx.print(burst(n)) end,
  -- location = /hold?ms=N: a burst every ms for N ms, flushed as it goes:
  -- a request that keeps an old worker stamping across a reload.
  hold = function(n)
    for _ = 1, tonumber(ngx.var.arg_ms) do
      ngx.print(burst(n))
      ngx.flush(true)
      ngx.sleep(0.001)
    end
  end,
}
