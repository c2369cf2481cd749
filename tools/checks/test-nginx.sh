#!/bin/sh
# test-nginx.sh [BUILD]: runs tests/integration/test_nginx.py (make
# test-nginx, whose tools/install-deps.sh test-nginx installs nginx,
# libnginx-mod-http-lua, luajit2 and wrk): monostamp.ffi inside a real
# nginx, Debian's with libnginx-mod-http-lua, as docs/lua.md's OpenResty
# section sets it up.
# The test says what it checks; NGINX_RESPONSES (default 50,000) sets its
# length, PYTHON the interpreter that runs pytest (python3).

set -eu
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$(pwd)/$BUILD" ;; esac
PYTHON=${PYTHON:-python3}

for f in /usr/sbin/nginx /usr/lib/nginx/modules/ndk_http_module.so \
         /usr/lib/nginx/modules/ngx_http_lua_module.so; do
    [ -e "$f" ] || { echo "test-nginx: $f missing (tools/install-deps.sh test-nginx installs it)" >&2; exit 1; }
done
make --no-print-directory -s lib BUILD="$BUILD"

# The installed monostamp's pytest plugin has no part here (-p no:monostamp).
NGINX_RESPONSES=${NGINX_RESPONSES:-50000} MONOSTAMP_BUILD="$BUILD" \
    exec "$PYTHON" -m pytest -p no:cacheprovider -p no:monostamp -v \
    tests/integration/test_nginx.py
