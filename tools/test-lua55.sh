#!/bin/sh
# test-lua55.sh [BUILD]: builds Lua 5.5 and require "monostamp" against it
# in BUILD/lua55/ and runs every tests/lua/*_spec.lua under it.
#
# Debian 12 packages no Lua 5.5, and nothing but Debian and PyPI can be
# fetched here, so the sources come from PyPI: lupa 2.8's sdist carries
# Lua's own 5.5 tree in third-party/lua55 (Lua 5.5.1).  `pip download`
# fetches it (LUPA_NO_BUNDLE keeps lupa's metadata step from building its
# bundled LuaJIT); nothing of lupa is built or installed.  LUA55_SRC=dir
# (a tree with lua.h) takes another source instead.  The tarball, the
# interpreter and the module are kept in BUILD/lua55 between runs.
#
# busted needs C modules (lfs, term, system) that Debian builds for 5.1 to
# 5.4 only, so the specs run under tools/lua-spec-runner.lua, which gives
# them describe/it/finally/... over luassert (pure Lua, from lua-busted's
# dependencies).  Child processes the specs start run lua5.5 too
# (MONOSTAMP_LUA).  The module is built as `make lua` builds it, with
# -Werror and without -fvisibility=hidden, and must export
# luaopen_monostamp_core alone.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
OUT="$BUILD/lua55"
mkdir -p "$OUT/monostamp"

src=${LUA55_SRC:-}
if [ -z "$src" ]; then
    src="$OUT/src/lupa-2.8/third-party/lua55"
    if [ ! -f "$src/lua.h" ]; then
        if [ ! -f "$OUT/lupa-2.8.tar.gz" ]; then
            echo "test-lua55: fetching Lua 5.5's sources (lupa 2.8's sdist) with pip"
            LUPA_NO_BUNDLE=true "$PYTHON" -m pip download --quiet --disable-pip-version-check \
                --no-deps --no-binary lupa -d "$OUT" lupa==2.8
        fi
        mkdir -p "$OUT/src"
        tar -xzf "$OUT/lupa-2.8.tar.gz" -C "$OUT/src" lupa-2.8/third-party/lua55
    fi
fi
if ! grep -q '#define LUA_VERSION_MINOR_N[[:space:]]*5' "$src/lua.h"; then
    echo "test-lua55: $src/lua.h is not Lua 5.5" >&2
    exit 1
fi

# The interpreter: Lua's own sources less its test library (ltests.c),
# the one-file build and the compiler; -Wl,-E exports the C API to modules.
LUA55="$OUT/lua5.5"
if [ ! -x "$LUA55" ] || [ "$src/lua.h" -nt "$LUA55" ]; then
    echo "test-lua55: building $LUA55"
    # shellcheck disable=SC2046
    $CC -std=gnu99 -O2 -DLUA_USE_LINUX -w -Wl,-E -o "$LUA55" \
        $(ls "$src"/*.c | grep -v -e '/ltests\.c$' -e '/onelua\.c$' -e '/luac\.c$') -lm -ldl
fi
"$LUA55" -v

$CC -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
    -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
    -O2 -g -fPIC -Icsrc -I"$src" -shared \
    bindings/lua/*.c csrc/*.c -o "$OUT/monostamp/core.so" -lpthread
exported=$(nm -D --defined-only "$OUT/monostamp/core.so" | awk '{print $3}')
if [ "$exported" != "luaopen_monostamp_core" ]; then
    echo "test-lua55: exports other than luaopen_monostamp_core:" $exported >&2
    exit 1
fi

# luassert and say (pure Lua) from Debian's lua-busted for 5.4; the specs'
# own modules from the checkout; the C module from $OUT.
MONOSTAMP_BUILD="$BUILD" MONOSTAMP_LUA="$LUA55" \
LUA_PATH="/usr/share/lua/5.4/?.lua;/usr/share/lua/5.4/?/init.lua;$ROOT/bindings/lua/?.lua" \
LUA_CPATH="$OUT/?.so" \
    "$LUA55" tools/lua-spec-runner.lua tests/lua/*_spec.lua
