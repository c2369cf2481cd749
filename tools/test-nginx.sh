#!/bin/sh
# test-nginx.sh [BUILD]: monostamp.ffi inside a real nginx (Debian's nginx
# with libnginx-mod-http-lua), as docs/lua.md's OpenResty section sets it up.
#
# Installs nginx, libnginx-mod-http-lua, luajit2 and wrk when missing (one
# apt command: the Lua module needs libluajit2, which conflicts with
# Debian's luajit, so luajit2 must come in the same transaction to keep
# /usr/bin/luajit).  Then, for each setup, starts nginx on 127.0.0.1 (a free
# port) with 4 workers, its own config, pid file, temp paths and error log
# under BUILD/nginx-test/<setup>/, workers as nobody:nogroup when run as root,
# and has wrk record NGINX_RESPONSES (default 50,000) response bodies
# "<whole-µs stamp> <worker pid> <worker's count>" from /stamp:
#
#   init      monostamp.ffi required in init_by_lua, before the workers fork
#   shared    required by each worker, MONOSTAMP_SHARED (via `env`) naming a
#             state file in a directory the worker user owns
#   control   required by each worker, no state file: the workers' sequences
#             are independent, so this run must find duplicates
#
# The checks: no stamp twice among the responses (control: some twice, or
# the check could not fail), and each worker's stamps strictly increasing in
# the order it made them (its own count, which a worker's single thread
# advances with each stamp).  init and shared run a second time with an
# `nginx -s reload` mid-run, the same checks over old and new workers, and
# the time the two generations overlapped (certain: /hold requests keep old
# workers stamping for 3 s after the reload).  Any [error], [crit], [alert]
# or [emerg] in a run's error log fails it.  nginx is always stopped (trap).
# Last, make test-luajit runs under the luajit that stays beside the module.
#
# bench/nginx.sh sources this file with MONOSTAMP_NGINX_LIB=1, from the
# checkout's root, for the functions alone.
set -eu
if [ "${MONOSTAMP_NGINX_LIB:-}" = 1 ]; then
    top=$(pwd)  # sourced from the checkout's root
else
    top=$(cd "$(dirname "$0")/.." && pwd)
fi

# {================================================= functions

NGINX_MODULES=/usr/lib/nginx/modules
NGINX_MASTER=""

# The Debian packages, when missing.  luajit2 is named whenever the module
# is installed, so /usr/bin/luajit stays (tools/install-deps.sh keeps to
# luajit2 once its library is there, for the same reason).
nginx_install_deps() {
    missing=""
    [ -x /usr/sbin/nginx ] || missing="$missing nginx"
    [ -e "$NGINX_MODULES/ngx_http_lua_module.so" ] || missing="$missing libnginx-mod-http-lua"
    dpkg-query -W -f='${Status}\n' luajit2 2>/dev/null | grep -q 'ok installed' ||
        missing="$missing luajit2"
    command -v wrk >/dev/null 2>&1 || missing="$missing wrk"
    [ -n "$missing" ] || return 0
    echo "test-nginx: installing Debian packages:$missing"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $missing >/dev/null
}

# Whether nginx and its Lua module are here (for callers that skip).
nginx_present() {
    [ -x /usr/sbin/nginx ] && [ -e "$NGINX_MODULES/ndk_http_module.so" ] &&
        [ -e "$NGINX_MODULES/ngx_http_lua_module.so" ]
}

nginx_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The worker user: nobody when run as root (as Debian's www-data would be),
# else the caller, since only root can switch.
nginx_worker_user() {
    if [ "$(id -u)" = 0 ]; then echo nobody; else id -un; fi
}
nginx_worker_group() {
    if [ "$(id -u)" = 0 ]; then echo nogroup; else id -gn; fi
}

# nginx_conf PREFIX PORT MAIN HTTP LOCATIONS: PREFIX/nginx.conf, everything
# under PREFIX; MAIN goes at the top level (env lines), HTTP into http{},
# LOCATIONS into the server.
nginx_conf() {
    mkdir -p "$1/logs" "$1/tmp"
    if [ "$(id -u)" = 0 ]; then user="user nobody nogroup;"; else user=""; fi
    cat >"$1/nginx.conf" <<EOF
# Written by tools/test-nginx.sh.
$user
worker_processes 4;
daemon off;
pid $1/nginx.pid;
error_log $1/logs/error.log notice;
# The Lua module needs NDK's symbols: ndk_http_module.so first.
load_module $NGINX_MODULES/ndk_http_module.so;
load_module $NGINX_MODULES/ngx_http_lua_module.so;
$3
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path $1/tmp/body;
    proxy_temp_path $1/tmp/proxy;
    fastcgi_temp_path $1/tmp/fastcgi;
    uwsgi_temp_path $1/tmp/uwsgi;
    scgi_temp_path $1/tmp/scgi;
    keepalive_requests 1000000;
    lua_package_path "$top/bindings/lua/?.lua;$1/../lua/?.lua;;";
$4
    server {
        # reuseport: the kernel spreads wrk's connections over the workers.
        listen 127.0.0.1:$2 reuseport;
$5
    }
}
EOF
}

# nginx_start PREFIX PORT: starts nginx in the background (daemon off, so it
# is our child and its pid the master's) and waits until PORT answers.
nginx_start() {
    nginx -p "$1" -c "$1/nginx.conf" -e "$1/logs/error.log" &
    NGINX_MASTER=$!
    if ! python3 - "$2" "$NGINX_MASTER" <<'EOF'; then
import os, socket, sys, time
deadline = time.monotonic() + 15
while time.monotonic() < deadline:
    try:
        os.kill(int(sys.argv[2]), 0)  # nginx gave up (its log says why)
    except ProcessLookupError:
        sys.exit(1)
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
EOF
        echo "test-nginx: nginx did not answer on 127.0.0.1:$2; $1/logs/error.log:" >&2
        cat "$1/logs/error.log" >&2 || true
        return 1
    fi
}

# The master's current workers, one pid a line.
nginx_workers() {
    ps -o pid= --ppid "$NGINX_MASTER" | tr -d ' '
}

# Stops the nginx we started, gracefully, then for sure.
nginx_stop() {
    [ -n "$NGINX_MASTER" ] || return 0
    kill -QUIT "$NGINX_MASTER" 2>/dev/null || true
    i=0
    while kill -0 "$NGINX_MASTER" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$NGINX_MASTER" 2>/dev/null; then
        echo "test-nginx: nginx $NGINX_MASTER ignored QUIT for 10 s; killing it" >&2
        kill -KILL "$NGINX_MASTER" 2>/dev/null || true
        pkill -KILL -P "$NGINX_MASTER" 2>/dev/null || true
    fi
    wait "$NGINX_MASTER" 2>/dev/null || true
    NGINX_MASTER=""
}

# Fails on what an error log must not hold.
nginx_log_clean() {
    if grep -qE '\[(error|crit|alert|emerg)\]' "$1/logs/error.log"; then
        grep -E '\[(error|crit|alert|emerg)\]' "$1/logs/error.log" | head -5 >&2
        echo "test-nginx: $(grep -cE '\[(error|crit|alert|emerg)\]' "$1/logs/error.log")" \
            "errors in $1/logs/error.log, the first 5 above" >&2
        return 1
    fi
}

# }=================================================

[ "${MONOSTAMP_NGINX_LIB:-}" = 1 ] && return 0

cd "$top"
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$top/$BUILD" ;; esac
RESPONSES=${NGINX_RESPONSES:-50000}
THREADS=2
BURST=10
CONNECTIONS=16

nginx_install_deps
nginx_present || { echo "test-nginx: nginx or its Lua module missing after install" >&2; exit 1; }
make --no-print-directory -s lib BUILD="$BUILD"

dir="$BUILD/nginx-test"
rm -rf "$dir"
mkdir -p "$dir/lua"
wuser=$(nginx_worker_user)
wgroup=$(nginx_worker_group)
# The worker user reads the handler, the Lua files and the library.
chmod 755 "$dir" "$dir/lua"

# What a run leaves when it fails early: wrk, the /hold client, nginx.
wrk_pid="" hold_pid=""
cleanup() {
    [ -z "$wrk_pid" ] || kill "$wrk_pid" 2>/dev/null || true
    [ -z "$hold_pid" ] || kill "$hold_pid" 2>/dev/null || true
    wrk_pid="" hold_pid=""
    nginx_stop
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The handler.  Each response carries BURST stamps taken back to back, so
# that a worker's stamps run some µs ahead of the clock: with separate
# sequences, the next worker to stamp within those µs repeats them, two
# workers need not run at the same instant to collide.  Each worker's count
# orders its stamps as it made them (a worker runs one handler at a time,
# and nothing yields between a stamp and its count).  /hold?ms=N stamps a
# burst every ms for N ms, flushed as it goes: a request that keeps an old
# worker stamping across a reload.
cat >"$dir/lua/stamp.lua" <<'EOF'
local monostamp = require "monostamp.ffi"
local format, concat, worker_pid = string.format, table.concat, ngx.worker.pid
local BURST = @BURST@
local count = 0

local function burst()
  local lines, pid = {}, worker_pid()
  for i = 1, BURST do
    local ns, err = monostamp.time_us()
    if not ns then
      ngx.log(ngx.ERR, "monostamp: ", err)
      return ngx.exit(500)
    end
    count = count + 1
    lines[i] = format("%d %d %d\n", ns, pid, count)
  end
  return concat(lines)
end

return {
  stamp = function() ngx.print(burst()) end,
  hold = function()
    for _ = 1, tonumber(ngx.var.arg_ms) do
      ngx.print(burst())
      ngx.flush(true)
      ngx.sleep(0.001)
    end
  end,
}
EOF
sed -i "s/@BURST@/$BURST/" "$dir/lua/stamp.lua"

# hold.py PORT OUT N MS: N /hold requests at once, each body to
# OUT/responses.hold<i>; OUT/held appears once every one is streaming.
cat >"$dir/hold.py" <<'EOF'
import http.client, sys, threading
port, out, n, ms = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
streaming = threading.Barrier(n + 1, timeout=20)
def hold(i):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", "/hold?ms=" + ms)
    resp = conn.getresponse()
    first = resp.readline()
    streaming.wait()
    with open("%s/responses.hold%d" % (out, i), "wb") as f:
        f.write(first + resp.read() if resp.status == 200 else b"status %d\n" % resp.status)
threads = [threading.Thread(target=hold, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
streaming.wait()
open(out + "/held", "w").close()
for t in threads:
    t.join()
EOF

# wrk's script: each thread writes the bodies it receives to
# OUT/responses.<thread>, flushed every 1000, and stops after WANT,
# leaving OUT/done.<thread>.
cat >"$dir/record.lua" <<'EOF'
local made = 0
function setup(thread)
  made = made + 1
  thread:set("id", made)
end
local args_out, out, want, got, buf
function init(args)
  args_out = args[1]
  out = assert(io.open(args_out .. "/responses." .. id, "w"))
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
    io.open(args_out .. "/done." .. id, "w"):close()
    wrk.thread:stop()
  end
end
EOF

# check.py OUT WANT BURST EXPECT [OLD_PIDS]: the checks over one run's
# bodies: wrk's in OUT/responses.<thread>, /hold's in OUT/responses.hold<i>.
cat >"$dir/check.py" <<'EOF'
import glob, sys
out, want, burst, expect = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
old = set(int(p) for p in sys.argv[5].split()) if len(sys.argv) > 5 else None
rows, bad, from_wrk = [], [], 0
for name in sorted(glob.glob(out + "/responses.*")):
    for line in open(name):
        fields = line.split()
        if len(fields) == 3 and all(f.isdigit() for f in fields):
            rows.append(tuple(int(f) for f in fields) + ("hold" not in name,))
        else:
            bad.append(line.rstrip())
failures = []
if bad:
    failures.append("%d bad lines, e.g. %r" % (len(bad), bad[0]))
responses = sum(1 for r in rows if r[3]) // burst
if responses < want:
    failures.append("%d responses recorded, %d wanted" % (responses, want))
stamps = [r[0] for r in rows]
duplicates = len(stamps) - len(set(stamps))
not_us = sum(1 for ns in stamps if ns % 1000)
if not_us:
    failures.append("%d stamps are not whole microseconds" % not_us)
by_pid = {}
for ns, pid, count, _ in rows:
    by_pid.setdefault(pid, []).append((count, ns))
out_of_order = 0
for pid, made in by_pid.items():
    made.sort()
    counts = [c for c, _ in made]
    if len(set(counts)) != len(counts):
        failures.append("worker %d: a count recorded twice" % pid)
    out_of_order += sum(1 for a, b in zip(made, made[1:]) if b[1] <= a[1])
if out_of_order:
    failures.append("%d stamps not above their worker's previous one" % out_of_order)
if len(by_pid) < 2:
    failures.append("only %d worker answered: nothing crossed workers" % len(by_pid))
line = ("%d responses, %d stamps from %d workers (%s), %d duplicate stamps,"
        " %d out of order within a worker") % (
    responses, len(rows), len(by_pid), " ".join(str(len(by_pid[p])) for p in sorted(by_pid)),
    duplicates, out_of_order)

def overlap_ms(rows):
    """How long old and new workers both stamped: the old ones' last stamp
    less the new ones' first (negative: a gap)."""
    old_ns = [r[0] for r in rows if r[1] in old]
    new_ns = [r[0] for r in rows if r[1] not in old]
    if not old_ns or not new_ns:
        return None, len(old_ns), len(new_ns)
    return (max(old_ns) - min(new_ns)) / 1e6, len(old_ns), len(new_ns)

if old is not None:
    overlap, n_old, n_new = overlap_ms(rows)
    if overlap is None or overlap <= 0:
        failures.append("old and new workers did not both stamp: %d stamps from old, %d from"
                        " new, overlap %s ms" % (n_old, n_new, overlap))
    else:
        line += "; %d stamps from old workers, %d from new, overlapping %.1f ms" % (
            n_old, n_new, overlap)
    wrk_overlap = overlap_ms([r for r in rows if r[3]])[0]
    if wrk_overlap is not None:
        line += " (%.1f ms in wrk's requests alone)" % wrk_overlap
if expect == "unique" and duplicates:
    failures.append("%d duplicate stamps" % duplicates)
if expect == "duplicates" and not duplicates:
    failures.append("no duplicates where the workers' sequences are independent:"
                    " this check could not fail")
print("   " + line)
for f in failures:
    print("   FAILED: " + f)
sys.exit(1 if failures else 0)
EOF

# run_setup NAME EXPECT RELOAD: one nginx, one recorded run.  Called in an
# `||` list, where set -e does not act: each step that matters says so.
summary=""
run_setup() {
    cleanup
    name=$1 expect=$2 reload=$3
    p="$dir/$name" title=$name
    [ "$reload" = no ] || p="$p-reload" title="$name, nginx -s reload mid-run"
    mkdir -p "$p/out"
    main="env MONOSTAMP_LIBRARY=$BUILD/libmonostamp.so;"
    http=""
    case "$name" in
        init) http="    init_by_lua_block { require \"monostamp.ffi\" }" ;;
        shared)
            # The state file's directory belongs to the worker user: the
            # workers create the file, and monostamp accepts only a file of
            # the process's own user.
            mkdir -p "$p/state"
            chown "$wuser:$wgroup" "$p/state" && chmod 700 "$p/state" || return 1
            main="$main
env MONOSTAMP_SHARED=$p/state/monostamp.state;" ;;
    esac
    port=$(nginx_free_port)
    nginx_conf "$p" "$port" "$main" "$http" \
        "        location = /stamp { content_by_lua_block { require(\"stamp\").stamp() } }
        location = /hold { content_by_lua_block { require(\"stamp\").hold() } }"
    total=$RESPONSES
    [ "$reload" = no ] || total=$((RESPONSES * 2))
    per_thread=$(( (total + THREADS - 1) / THREADS ))
    total=$((per_thread * THREADS))
    # Across a reload wrk runs until the old workers' /hold requests are
    # over (and total is in), however long the reload takes.
    [ "$reload" = no ] || per_thread=1000000000
    nginx_start "$p" "$port" || return 1
    workers=$(nginx_workers | wc -l)
    users=$(ps -o user= --ppid "$NGINX_MASTER" | sort -u | tr '\n' ' ')
    echo "== $title: nginx $NGINX_MASTER on 127.0.0.1:$port, $workers workers as $users"
    [ "$workers" = 4 ] || { echo "   FAILED: $workers workers, not 4" >&2; return 1; }
    [ "$users" = "$wuser " ] || { echo "   FAILED: workers run as $users, not $wuser" >&2; return 1; }
    started=$(date +%s.%N)
    # wrk runs for a time, not a count: its threads stop themselves at
    # their share, and it is interrupted once every share is in.
    timeout 300 wrk -t$THREADS -c$CONNECTIONS -d240s --timeout 10s -s "$dir/record.lua" \
        "http://127.0.0.1:$port/stamp" -- "$p/out" "$per_thread" >"$p/wrk.txt" 2>&1 &
    wrk_pid=$!
    old=""
    reload_at=$((total / 10))
    while kill -0 "$wrk_pid" 2>/dev/null; do
        [ "$(ls "$p/out" | grep -c '^done\.')" -lt $THREADS ] || break
        got=$(($(cat "$p"/out/responses.[0-9]* 2>/dev/null | wc -l) / BURST))
        if [ "$reload" = reload ] && [ -z "$old" ] && [ "$got" -ge "$reload_at" ]; then
            # Mid-run, with /hold requests keeping the old workers stamping
            # for 3 s while the new ones take over wrk's connections (an old
            # worker closes each after its current request).
            old=$(nginx_workers | tr '\n' ' ')
            python3 "$dir/hold.py" "$port" "$p/out" 4 3000 &
            hold_pid=$!
            i=0
            while [ ! -e "$p/out/held" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
            nginx -p "$p" -c "$p/nginx.conf" -e "$p/logs/error.log" -s reload ||
                { echo "   FAILED: nginx -s reload" >&2; return 1; }
        fi
        if [ -n "$hold_pid" ] && ! kill -0 "$hold_pid" 2>/dev/null && [ "$got" -ge "$total" ]; then
            break
        fi
        sleep 0.05
    done
    kill -INT "$wrk_pid" 2>/dev/null || true
    if ! wait "$wrk_pid"; then
        cat "$p/wrk.txt" >&2
        echo "   FAILED: wrk, or its bound of 240 s" >&2
        wrk_pid=""
        return 1
    fi
    wrk_pid=""
    recorded=$(($(cat "$p"/out/responses.[0-9]* | wc -l) / BURST))
    rate=$(awk -v a="$started" -v b="$(date +%s.%N)" -v n="$recorded" \
        'BEGIN { printf "%.1f s, %.0f responses/s", b - a, n / (b - a) }')
    echo "   wrk: $rate (-t$THREADS -c$CONNECTIONS, recording every body)"
    if [ "$reload" = reload ]; then
        [ -n "$old" ] || { echo "   FAILED: no reload was sent" >&2; return 1; }
        wait "$hold_pid" || { echo "   FAILED: the /hold requests" >&2; return 1; }
        hold_pid=""
        # wrk has closed its connections: the old workers must be gone.
        i=0
        while [ $i -lt 100 ] && nginx_workers | grep -qxF "$(echo $old | tr ' ' '\n')"; do
            sleep 0.1; i=$((i + 1))
        done
        if nginx_workers | grep -qxF "$(echo $old | tr ' ' '\n')"; then
            echo "   FAILED: old workers still running 10 s after the run" >&2; return 1
        fi
    fi
    result=0
    python3 "$dir/check.py" "$p/out" "$total" "$BURST" "$expect" ${old:+"$old"} >"$p/check.txt" || result=1
    # The bodies (~35 bytes a stamp, 100 MB across a reload) stay only for a failure.
    [ $result = 1 ] || rm -rf "$p/out"
    cat "$p/check.txt"
    if [ "$name" = shared ]; then
        echo "   state file: $(stat -c '%U:%G %a' "$p/state/monostamp.state" 2>&1)"
    fi
    nginx_stop
    nginx_log_clean "$p" || result=1
    summary="$summary
$title: $(sed -n 1p "$p/check.txt" | sed 's/^ *//')"
    return $result
}

began=$(date +%s)
status=0
run() {
    run_setup "$@" || { status=1; summary="$summary
$title: FAILED (above)"; }
}
run init unique no
run shared unique no
run control duplicates no
run init unique reload
run shared unique reload

# The Lua module and the luajit command side by side: monostamp.ffi's own
# suite under the luajit that stays.
echo "== make test-luajit beside the nginx Lua module ($(luajit -v 2>&1 | cut -d' ' -f1-2), $(dpkg-query -W -f='${Package} ${Version}' luajit2))"
make --no-print-directory -s test-luajit BUILD="$BUILD" >"$dir/test-luajit.txt" 2>&1 ||
    { cat "$dir/test-luajit.txt" >&2; echo "   FAILED: make test-luajit" >&2; status=1; }
tail -1 "$dir/test-luajit.txt" | sed 's/^/   /'
echo "== test-nginx summary ($(($(date +%s) - began)) s)$summary"
if [ $status = 0 ]; then echo "test-nginx: passed"; else echo "test-nginx: FAILED" >&2; fi
exit $status
