#!/bin/sh
# Sleep lateness measured from each host language in fresh processes
# (docs/sleep.md):
#   sh bench/run-sleep.sh BUILD     (make bench-sleep; make bench runs the
#                                    same scripts from bench/run-bindings.sh)
# First Python and Lua side by side (bench/python/sleep_side_by_side.py):
# one row per length, the median and p90 of each binding, their children
# interleaved in the same run.  Then each binding alone, the finish against
# the core alone: bench/python/bench_sleep.py under $PYTHON, which must
# have this checkout's monostamp installed (make test-python, or pip
# install .); bench/lua/bench_sleep.lua under $LUA over $BUILD/lua (make
# lua) and under $LUAJIT over $BUILD/libmonostamp.so (make lib).  Each
# takes about a minute (MONOSTAMP_BENCH_QUICK=1: about 20 s).
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
BUILD_ABS=$(cd "$BUILD" && pwd) || exit 1
PYTHON=${PYTHON:-python3}
LUA=${LUA:-lua5.4}
LUAJIT=${LUAJIT:-luajit}
status=0
uptime

echo "== Python ($PYTHON) and Lua ($LUA) side by side: bench/python/sleep_side_by_side.py"
if ! (cd / && "$PYTHON" -c 'import monostamp._sleep') 2>/dev/null; then
    echo "side by side: skipped ($PYTHON lacks monostamp: make test-python or pip install .)"
elif ! command -v "$LUA" >/dev/null 2>&1; then
    echo "side by side: skipped (no $LUA)"
else
    "$PYTHON" bench/python/sleep_side_by_side.py "$LUA" "$BUILD_ABS/lua/?.so;;" \
        "$(pwd)/bindings/lua/?.lua;;" || status=1
fi

echo "== Python ($PYTHON): bench/python/bench_sleep.py"
if (cd / && "$PYTHON" -c 'import monostamp._sleep') 2>/dev/null; then
    (cd / && "$PYTHON" "$OLDPWD/bench/python/bench_sleep.py") || status=1
else
    echo "python sleep bench: skipped ($PYTHON lacks monostamp: make test-python or pip install .)"
fi

echo "== Lua ($LUA): bench/lua/bench_sleep.lua"
if command -v "$LUA" >/dev/null 2>&1; then
    LUA_CPATH="$BUILD_ABS/lua/?.so;;" LUA_PATH="bindings/lua/?.lua;;" "$LUA" bench/lua/bench_sleep.lua ||
        status=1
else
    echo "lua sleep bench: skipped (no $LUA)"
fi

echo "== LuaJIT ($LUAJIT): bench/lua/bench_sleep.lua over monostamp.ffi"
if command -v "$LUAJIT" >/dev/null 2>&1; then
    MONOSTAMP_LIBRARY="$BUILD_ABS/libmonostamp.so" LUA_PATH="bindings/lua/?.lua;;" \
        "$LUAJIT" bench/lua/bench_sleep.lua || status=1
else
    echo "luajit sleep bench: skipped (no $LUAJIT)"
fi
exit $status
