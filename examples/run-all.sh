#!/bin/sh
# make demo: runs every example, from C, C++, Python, Lua, LuaJIT and nginx.  $1 is the build
# folder, where the library was built; it is installed into $1/prefix so
# that the C example is compiled exactly as a user would, with pkg-config.
set -eu
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# BUILD may be relative to the checkout (the default) or absolute.
case "$build" in /*) ;; *) build="$top/$build" ;; esac
prefix="$build/prefix"

echo "== C (examples/c, linked with pkg-config; make install into $prefix, inside the build folder)"
make --no-print-directory -s install BUILD="$build" PREFIX="$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
for src in examples/c/*.c; do
    bin="$build/examples/$(basename "$src" .c)"
    mkdir -p "$(dirname "$bin")"
    # shellcheck disable=SC2046
    cc -std=c11 -Wall -Wextra -Werror "$src" $(pkg-config --cflags monostamp) \
        $(pkg-config --libs --static monostamp) -Wl,-rpath,"$prefix/lib" -o "$bin"
    echo "-- $src"
    "$bin"
done

echo "== C++ (examples/cpp, linked with pkg-config)"
for src in examples/cpp/*.cpp; do
    bin="$build/examples/$(basename "$src" .cpp)"
    # shellcheck disable=SC2046
    c++ -std=c++17 -Wall -Wextra -Werror "$src" $(pkg-config --cflags --libs monostamp) \
        -Wl,-rpath,"$prefix/lib" -o "$bin"
    echo "-- $src"
    "$bin"
done

if command -v luajit >/dev/null 2>&1 && ls examples/luajit/*.lua >/dev/null 2>&1; then
    echo "== LuaJIT (examples/luajit, monostamp.ffi over the installed library)"
    for ex in examples/luajit/*.lua; do
        echo "-- $ex"
        MONOSTAMP_LIBRARY="$prefix/lib/libmonostamp.so" LUA_PATH="$top/bindings/lua/?.lua;;" luajit "$ex"
    done
fi

if [ -f examples/openresty/nginx.conf ]; then
    modules=/usr/lib/nginx/modules
    if [ -x /usr/sbin/nginx ] && [ -e $modules/ndk_http_module.so ] &&
       [ -e $modules/ngx_http_lua_module.so ]; then
        ng="$build/openresty"
        echo "== OpenResty (examples/openresty: nginx with the Lua module, 4 workers, prefix $ng)"
        # The prefix as the example's header describes it: the rock's layout
        # for monostamp.ffi and the library (copied from this checkout and
        # the library installed above), logs/ and tmp/.
        rm -rf "$ng"
        mkdir -p "$ng/logs" "$ng/tmp" "$ng/lua" "$ng/share/lua/5.4/monostamp" "$ng/lib/lua/5.4/monostamp"
        cp examples/openresty/nginx.conf "$ng/"
        cp examples/openresty/lua/*.lua "$ng/lua/"
        cp bindings/lua/monostamp/ffi.lua bindings/lua/monostamp/ffi_clock.lua bindings/lua/monostamp/cdef.lua \
            bindings/lua/monostamp/sleep_finish.lua "$ng/share/lua/5.4/monostamp/"
        cp -L "$prefix/lib/libmonostamp.so" "$ng/lib/lua/5.4/monostamp/"
        chmod -R a+rX "$ng"
        port=8080
        if ! python3 -c 'import socket; socket.socket().bind(("127.0.0.1", 8080))' 2>/dev/null; then
            port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
            echo "   (8080 is taken here: listening on $port instead)"
            sed -i "s/127.0.0.1:8080/127.0.0.1:$port/" "$ng/nginx.conf"
        fi
        nginx -p "$ng" -c nginx.conf -e logs/error.log -g 'daemon off;' &
        ng_pid=$!
        trap 'kill -QUIT $ng_pid 2>/dev/null || true' EXIT
        ng_ok=0
        python3 - "$port" <<'EOF' || ng_ok=1
import sys, time, urllib.request
base = "http://127.0.0.1:%s" % sys.argv[1]
deadline = time.monotonic() + 15
while True:
    try:
        urllib.request.urlopen(base + "/stamp", timeout=2).read()
        break
    except OSError:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.05)
for path in ["/stamp", "/stamp", "/id"]:
    print("-- GET %s: %s" % (path, urllib.request.urlopen(base + path, timeout=5).read().decode().strip()))
EOF
        kill -QUIT $ng_pid 2>/dev/null || true
        wait $ng_pid || true
        trap - EXIT
        if grep -E '\[(error|crit|alert|emerg)\]' "$ng/logs/error.log"; then ng_ok=1; fi
        [ $ng_ok = 0 ] || { echo "examples/openresty failed: $ng/logs/error.log" >&2; exit 1; }
    else
        echo "== OpenResty (examples/openresty): skipped, needs Debian's nginx and libnginx-mod-http-lua" \
             "(make test-nginx installs them)"
    fi
fi

if [ -f setup.py ] && ls examples/python/*.py >/dev/null 2>&1; then
    echo "== Python (examples/python)"
    echo "   installing this checkout for python3 (pip install .) into $(python3 -c 'import sys; print(sys.prefix)')"
    python3 -m pip install --quiet --no-build-isolation . >/dev/null
    for ex in examples/python/*.py; do
        echo "-- $ex"
        python3 "$ex"
    done
    if [ -f examples/capi/setup.py ]; then
        echo "-- examples/capi (an extension of its own on monostamp's C API, built in $build/examples/capi)"
        rm -rf "$build/examples/capi"
        mkdir -p "$build/examples"
        cp -R examples/capi "$build/examples/capi"
        (cd "$build/examples/capi" &&
            python3 setup.py -q build_ext --build-lib lib --build-temp tmp >/dev/null &&
            PYTHONPATH=lib python3 demo.py)
    fi
fi

if ls bindings/lua/*.c >/dev/null 2>&1 && ls examples/lua/*.lua >/dev/null 2>&1; then
    echo "== Lua 5.4 (examples/lua)"
    make --no-print-directory -s lua BUILD="$build" >/dev/null
    for ex in examples/lua/*.lua; do
        echo "-- $ex"
        LUA_CPATH="$build/lua/?.so;;" LUA_PATH="$top/bindings/lua/?.lua;;" lua5.4 "$ex"
    done
fi

if [ -d examples/pytest ] && [ -f setup.py ]; then
    echo "== pytest fixtures (examples/pytest, two workers)"
    (cd examples/pytest && python3 -m pytest -q -n 2 -p no:cacheprovider)
fi
