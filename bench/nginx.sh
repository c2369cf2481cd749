#!/bin/sh
# bench/nginx.sh [BUILD]: what monostamp adds to an nginx request, in
# requests/s against a baseline handler timed in the same run.
#
# One nginx (4 workers, 127.0.0.1, the config of make test-nginx) with two
# handlers that differ only in the clock, both content_by_lua and writing
# one line with string.format:
#   /now     ngx.now()             (nginx's cached time: no clock read)
#   /stamp   monostamp.time_ns()   (monostamp.ffi loaded in init_by_lua)
# wrk (no Lua script: its own fast path) runs ROUNDS alternating rounds of
# SECONDS each on the two, after a warm-up of each.  Printed: each round's
# requests/s, the median, the spread (min..max) of each handler, each pair's
# ratio, and the difference of the medians as µs of server time per
# request.  Skips, saying so, without nginx, its Lua module or wrk (it
# installs nothing; make test-nginx does).
#
#   NGINX_BENCH_ROUNDS=7 NGINX_BENCH_SECONDS=1 sh bench/nginx.sh build
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$(pwd)/$BUILD" ;; esac
ROUNDS=${NGINX_BENCH_ROUNDS:-7}
SECONDS_EACH=${NGINX_BENCH_SECONDS:-1}

# The config is the integration tests' (tests/integration/nginx/nginx.conf.in,
# rendered by tests/integration/nginx_server.py).
nginx_present() {
    [ -x /usr/sbin/nginx ] && [ -e /usr/lib/nginx/modules/ndk_http_module.so ] &&
        [ -e /usr/lib/nginx/modules/ngx_http_lua_module.so ]
}
NGINX_MASTER=""
# nginx_start PREFIX PORT: nginx in the background (daemon off: our child,
# its pid the master's), once PORT answers.
nginx_start() {
    mkdir -p "$1/logs" "$1/tmp"
    nginx -p "$1" -c "$1/nginx.conf" -e "$1/logs/error.log" &
    NGINX_MASTER=$!
    i=0
    until python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()' "$2" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 150 ] || ! kill -0 "$NGINX_MASTER" 2>/dev/null; then
            echo "nginx bench: nginx did not answer on 127.0.0.1:$2; $1/logs/error.log:" >&2
            cat "$1/logs/error.log" >&2 || true
            return 1
        fi
        sleep 0.1
    done
}
# Stops the nginx we started, gracefully (QUIT).
nginx_stop() {
    [ -n "$NGINX_MASTER" ] || return 0
    kill -QUIT "$NGINX_MASTER" 2>/dev/null || true
    wait "$NGINX_MASTER" 2>/dev/null || true
    NGINX_MASTER=""
}
# Fails on what an error log must not hold.
nginx_log_clean() {
    if grep -E '\[(error|crit|alert|emerg)\]' "$1/logs/error.log" >&2; then
        echo "nginx bench: errors in $1/logs/error.log (above)" >&2
        return 1
    fi
}

if ! nginx_present || ! command -v wrk >/dev/null 2>&1; then
    echo "nginx bench: skipped (needs nginx, libnginx-mod-http-lua and wrk: make test-nginx installs them)"
    exit 0
fi
${MAKE:-make} --no-print-directory -s lib BUILD="$BUILD" >/dev/null

p="$BUILD/nginx-bench"
rm -rf "$p"
mkdir -p "$p"
chmod 755 "$p"
trap 'nginx_stop' EXIT
trap 'exit 1' INT TERM HUP
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 tests/integration/nginx_server.py "$p" "$port" "env MONOSTAMP_LIBRARY=$BUILD/libmonostamp.so;" \
    '    init_by_lua_block { monostamp = require "monostamp.ffi" }' \
    '        location = /now { content_by_lua_block { ngx.print(string.format("%.3f\n", ngx.now())) } }
        location = /stamp { content_by_lua_block { ngx.print(string.format("%d\n", monostamp.time_ns())) } }' \
    >"$p/nginx.conf"
nginx_start "$p" "$port"

# rps PATH SECONDS: wrk's requests/s on PATH.
rps() {
    wrk -t2 -c16 -d"$2"s "http://127.0.0.1:$port$1" >"$p/wrk.txt" 2>&1 || { cat "$p/wrk.txt" >&2; return 1; }
    if grep -q 'Non-2xx\|Socket errors' "$p/wrk.txt"; then cat "$p/wrk.txt" >&2; return 1; fi
    sed -n 's/^Requests\/sec: *//p' "$p/wrk.txt"
}

echo "== nginx: ngx.now() against monostamp.time_ns() per request (nginx $(nginx -v 2>&1 | sed 's/.*\///'), 4 workers, wrk -t2 -c16, $ROUNDS rounds of ${SECONDS_EACH} s each, alternating)"
rps /now 1 >/dev/null
rps /stamp 1 >/dev/null
results=""
i=1
while [ $i -le "$ROUNDS" ]; do
    now=$(rps /now "$SECONDS_EACH")
    stamp=$(rps /stamp "$SECONDS_EACH")
    echo "   round $i: /now $now requests/s, /stamp $stamp requests/s"
    results="$results $now:$stamp"
    i=$((i + 1))
done
nginx_stop
nginx_log_clean "$p"

python3 - $results <<'EOF'
import statistics, sys
pairs = [tuple(float(x) for x in arg.split(":")) for arg in sys.argv[1:]]
now = [a for a, _ in pairs]
stamp = [b for _, b in pairs]
m_now, m_stamp = statistics.median(now), statistics.median(stamp)
print("   %-8s median %9.0f requests/s, spread %.0f..%.0f (%.1f%% of the median)" % (
    "/now", m_now, min(now), max(now), 100 * (max(now) - min(now)) / m_now))
print("   %-8s median %9.0f requests/s, spread %.0f..%.0f (%.1f%% of the median)" % (
    "/stamp", m_stamp, min(stamp), max(stamp), 100 * (max(stamp) - min(stamp)) / m_stamp))
ratios = [b / a for a, b in pairs]
print("   /stamp / /now per round: %s; median %.3f" % (
    " ".join("%.3f" % r for r in ratios), statistics.median(ratios)))
print("   difference of the medians: %+.2f us per request (%.2f us against %.2f us)" % (
    1e6 / m_stamp - 1e6 / m_now, 1e6 / m_stamp, 1e6 / m_now))
EOF
