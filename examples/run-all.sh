#!/bin/sh
# make demo: runs every example, from C, C++, Python, Lua and LuaJIT.  $1 is the build
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

if [ -f setup.py ] && ls examples/python/*.py >/dev/null 2>&1; then
    echo "== Python (examples/python)"
    echo "   installing this checkout for python3 (pip install .) into $(python3 -c 'import sys; print(sys.prefix)')"
    python3 -m pip install --quiet --no-build-isolation . >/dev/null
    for ex in examples/python/*.py; do
        echo "-- $ex"
        python3 "$ex"
    done
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
