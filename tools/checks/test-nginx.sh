#!/bin/sh
# test-nginx.sh [BUILD]: installs what tests/integration/test_nginx.py needs
# and runs it (make test-nginx): monostamp.ffi inside a real nginx, Debian's
# with libnginx-mod-http-lua, as docs/lua.md's OpenResty section sets it up.
# The test says what it checks; NGINX_RESPONSES (default 50,000) sets its
# length, PYTHON the interpreter that runs pytest (python3).
#
# The Debian packages, when missing: nginx, libnginx-mod-http-lua, luajit2
# and wrk, in one apt command.  The Lua module needs libluajit2, which
# conflicts with Debian's luajit, so luajit2 must come in the same
# transaction to keep /usr/bin/luajit (tools/install-deps.sh keeps to
# luajit2 once its library is there, for the same reason).
set -eu
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$(pwd)/$BUILD" ;; esac
PYTHON=${PYTHON:-python3}

missing=""
[ -x /usr/sbin/nginx ] || missing="$missing nginx"
[ -e /usr/lib/nginx/modules/ngx_http_lua_module.so ] || missing="$missing libnginx-mod-http-lua"
dpkg-query -W -f='${Status}\n' luajit2 2>/dev/null | grep -q 'ok installed' ||
    missing="$missing luajit2"
command -v wrk >/dev/null 2>&1 || missing="$missing wrk"
if [ -n "$missing" ]; then
    echo "test-nginx: installing Debian packages:$missing"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $missing >/dev/null
fi
for f in /usr/sbin/nginx /usr/lib/nginx/modules/ndk_http_module.so \
         /usr/lib/nginx/modules/ngx_http_lua_module.so; do
    [ -e "$f" ] || { echo "test-nginx: $f missing after the install" >&2; exit 1; }
done
make --no-print-directory -s lib BUILD="$BUILD"

# The installed monostamp's pytest plugin has no part here (-p no:monostamp).
NGINX_RESPONSES=${NGINX_RESPONSES:-50000} MONOSTAMP_BUILD="$BUILD" \
    exec "$PYTHON" -m pytest -p no:cacheprovider -p no:monostamp -v \
    tests/integration/test_nginx.py
