#!/bin/sh
# The bindings' benchmarks, run by `make bench` as: sh bench/run-bindings.sh BUILD
# Each binding has one delimited block; a block that cannot run says why
# and the others still run.
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
status=0

# ---------------------------------------------------------------- Python
# Installs the binding for $PYTHON (default python3) and runs
# bench/python/bench.py, bench_stamp.py (Stamp against datetime) and
# bench_ids.py (uuid7 and take against their peers), bench_patch.py
# (patched calls, a start+stop cycle, the lead bound), none part of the
# wheel: ns per call and the target ratios, each against a baseline timed
# in the same run; and bench_cli.py, python -m monostamp's stamps/s and
# peak memory (its --against FILE, for a ratio to another version, is for
# a hand-run: docs/benchmarks.md).  They run from $BUILD so that the
# installed package is the one imported.
PYTHON=${PYTHON:-python3}
if [ -f setup.py ] && command -v "$PYTHON" >/dev/null 2>&1; then
    echo "== Python binding ($PYTHON)"
    benches="$(pwd)/bench/python"
    if "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-build-isolation \
            --force-reinstall --no-deps . &&
       (cd "$BUILD" 2>/dev/null || cd /tmp; "$PYTHON" "$benches/bench.py" &&
        echo "== Python: Stamp against datetime (bench_stamp.py)" &&
        "$PYTHON" "$benches/bench_stamp.py" &&
        echo "== Python: ids and blocks against their peers (bench_ids.py)" &&
        "$PYTHON" "$benches/bench_ids.py" &&
        echo "== Python: monostamp.patch() (bench_patch.py)" &&
        "$PYTHON" "$benches/bench_patch.py" &&
        echo "== Python: the command line (bench_cli.py)" &&
        "$PYTHON" "$benches/bench_cli.py"); then
        :
    else
        echo "python bench: failed"; status=1
    fi
else
    echo "== Python binding: skipped (no setup.py or no $PYTHON)"
fi
# ------------------------------------------------------------ end Python

# --- Lua ---
# Builds the module into $BUILD/lua (make lua) and runs bench/lua/bench.lua
# under lua5.4: ns per call and the target ratios against LuaSocket's
# socket.gettime(), timed in the same run.
LUA=${LUA:-lua5.4}
if command -v "$LUA" >/dev/null 2>&1 && [ -f bench/lua/bench.lua ]; then
    echo "== Lua binding ($LUA)"
    if ! "$LUA" -e 'require "socket"' 2>/dev/null; then
        echo "lua bench: skipped (LuaSocket, the baseline, is missing: apt-get install lua-socket)"
    elif ${MAKE:-make} --no-print-directory lua BUILD="$BUILD" >/dev/null &&
         LUA_CPATH="$BUILD/lua/?.so;;" LUA_PATH="bindings/lua/?.lua;;" "$LUA" bench/lua/bench.lua; then
        :
    else
        echo "lua bench: failed"; status=1
    fi
else
    echo "== Lua binding: skipped (no $LUA)"
fi
# --- end Lua ---

# --- LuaJIT ---
# monostamp.ffi over $BUILD/libmonostamp.so (make lib): bench/lua/bench_ffi.lua
# under luajit, ns per call against os.time() and LuaSocket's
# socket.gettime() (when LuaSocket is installed for LuaJIT), one run.
LUAJIT=${LUAJIT:-luajit}
if command -v "$LUAJIT" >/dev/null 2>&1 && [ -f bench/lua/bench_ffi.lua ]; then
    echo "== LuaJIT FFI binding ($LUAJIT)"
    if ${MAKE:-make} --no-print-directory lib BUILD="$BUILD" >/dev/null &&
       MONOSTAMP_LIBRARY="$(cd "$BUILD" && pwd)/libmonostamp.so" LUA_PATH="bindings/lua/?.lua;;" \
           "$LUAJIT" bench/lua/bench_ffi.lua; then
        :
    else
        echo "luajit bench: failed"; status=1
    fi
else
    echo "== LuaJIT FFI binding: skipped (no $LUAJIT)"
fi
# --- end LuaJIT ---

exit $status
