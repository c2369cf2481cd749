#!/bin/sh
# check-lua-exports.sh BUILD: builds the Lua rock as a user would, with a
# plain `luarocks --lua-version=5.4 make` and luarocks' own flags (no
# -fvisibility=hidden), and fails unless
#   - the C part it installs (monostamp/core.so) exports luaopen_* alone,
#     and the plain library for LuaJIT (monostamp/libmonostamp.so)
#     monostamp_* alone;
#   - the build left nothing in the source root but build/luarocks/ (no
#     object file, no monostamp/), `require "monostamp"` from the root, on
#     the root's paths alone, fails, and a Python started there finds no
#     monostamp of the root's but imports the installed one
#     (MONOSTAMP_PYTHON_SITE: the wheel's package, as pip installs it);
#   - the installed tree works from elsewhere: tests/lua/smoke.lua under
#     lua5.4, and monostamp.ffi under luajit finding the library beside
#     itself (no MONOSTAMP_LIBRARY), when luajit is installed.
#
# Why: the core is compiled into both the Lua and the Python module, which
# may share a process with each other or with libmonostamp.so; an exported
# monostamp_* symbol could then bind one module's calls to another copy.
#
# The rock is built in a scratch copy of the tree under BUILD (tracked
# files plus new, unignored ones, so uncommitted work is checked too),
# never in the checkout, whose build/luarocks/ it would replace.  The copy is removed afterwards; the log is kept on failure.
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
build=$(cd "$1" && pwd)
LUAROCKS=${LUAROCKS:-luarocks}

work=$(mktemp -d "$build/rockcheck.XXXXXX")
keep=0
cleanup() { [ "$keep" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT

# Only files that exist: a file deleted in the worktree but not yet in the
# index is still listed by git.  tar rather than cpio, which Debian does
# not install by default.  Outside a git checkout (a release tarball),
# the whole tree but its build folders.
mkdir "$work/src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$top" && git ls-files --cached --others --exclude-standard |
        while IFS= read -r f; do if [ -f "$f" ]; then printf '%s\n' "$f"; fi; done |
        tar -cf - -T -) | tar -xf - -C "$work/src"
else
    (cd "$top" && tar -cf - --exclude=./build --exclude='./build-*' \
        --exclude="./$(basename "$build")" .) | tar -xf - -C "$work/src"
fi

rockspec=$(cd "$work/src" && ls monostamp-*.rockspec)
sleep 1 && touch "$work/before" && sleep 1  # what the build writes is newer than this
if ! (cd "$work/src" &&
      "$LUAROCKS" --lua-version=5.4 make --tree="$work/tree" "$rockspec") \
        >"$work/luarocks.log" 2>&1; then
    keep=1
    echo "check-lua-exports: luarocks make failed; its log, $work/luarocks.log:" >&2
    cat "$work/luarocks.log" >&2
    exit 1
fi

so=$(find "$work/tree" -name 'core.so' -path '*/lib/lua/*/monostamp/*' | head -n 1)
lib=$(find "$work/tree" -name 'libmonostamp.so' -path '*/lib/lua/*/monostamp/*' | head -n 1)
if [ -z "$so" ] || [ -z "$lib" ]; then
    keep=1
    echo "check-lua-exports: the rock installed no monostamp/core.so or monostamp/libmonostamp.so (see $work)" >&2
    exit 1
fi

exported=$(nm -D --defined-only "$so" | awk 'NF >= 3 { print $3 }' | sort)
others=$(printf '%s\n' "$exported" | grep -v '^luaopen_' || true)
echo "check-lua-exports: $rockspec built by a plain luarocks make exports:"
printf '  %s\n' $exported
if [ -n "$others" ]; then
    echo "check-lua-exports: FAIL: exports besides luaopen_*:" >&2
    printf '  %s\n' $others >&2
    exit 1
fi
echo "check-lua-exports: ok (luaopen_* only)"
"$top/tools/checks/check-exports.sh" monostamp_ "$lib"

# The source root after the build: nothing new but build/ (build-rock.sh's
# build/luarocks/, no object file), and nothing there that answers to
# require "monostamp" or Python's import monostamp.
left=$(cd "$work/src" && find . -path ./build -prune -o -newer "$work/before" -print | sed 's|^\./||' | grep -v '^\.$' || true)
if [ -n "$left" ]; then
    keep=1
    echo "check-lua-exports: FAIL: luarocks make left these outside build/:" >&2
    printf '  %s\n' $left >&2
    exit 1
fi
for f in monostamp.so monostamp.lua monostamp/init.lua monostamp; do
    if [ -e "$work/src/$f" ]; then
        keep=1
        echo "check-lua-exports: FAIL: luarocks make left $f in the source root" >&2
        exit 1
    fi
done
if (cd "$work/src" && LUA_PATH='./?.lua;./?/init.lua' LUA_CPATH='./?.so' \
        lua5.4 -e 'require "monostamp"') >/dev/null 2>&1; then
    keep=1
    echo "check-lua-exports: FAIL: require \"monostamp\" loads something from the source root" >&2
    exit 1
fi
# Python started in the root: with the root alone on its path, no
# monostamp at all (not even an empty namespace package); with the wheel's
# package on PYTHONPATH (MONOSTAMP_PYTHON_SITE, as pip would install it),
# that package, working.
PYTHON=${PYTHON:-python3}
if ! (cd "$work/src" && "$PYTHON" -c 'import sys; sys.path[:] = [""]
import importlib.util
sys.exit(importlib.util.find_spec("monostamp") is not None)'); then
    keep=1
    echo "check-lua-exports: FAIL: Python started in the source root finds a monostamp there" >&2
    exit 1
fi
if [ -n "${MONOSTAMP_PYTHON_SITE:-}" ]; then
    (cd "$work/src" && PYTHONPATH="$MONOSTAMP_PYTHON_SITE" "$PYTHON" -c 'import monostamp, os
assert monostamp.time_ns() < monostamp.time_ns()
assert not monostamp.__file__.startswith(os.getcwd() + os.sep), monostamp.__file__') || {
        keep=1
        echo "check-lua-exports: FAIL: import monostamp in the source root after luarocks make" >&2
        exit 1
    }
fi
echo "check-lua-exports: ok (the source root holds nothing new but build/, nothing named monostamp; Python there imports the installed package)"

# The installed tree, used from elsewhere, as `luarocks path` would set it.
share=$(dirname "$(find "$work/tree" -name 'testing.lua' -path '*/share/lua/*/monostamp/*' | head -n 1)")
share=$(dirname "$share")
libdir=$(dirname "$(dirname "$so")")
(cd / && LUA_PATH="$share/?.lua" LUA_CPATH="$libdir/?.so" lua5.4 "$top/tests/lua/smoke.lua")
if command -v luajit >/dev/null 2>&1; then
    (cd / && env -u MONOSTAMP_LIBRARY LUA_PATH="$share/?.lua" LUA_CPATH="" luajit -e '
        local m = require "monostamp.ffi"
        local a, b = m.time_ns(), m.time_ns()
        assert(b > a, "time_ns not increasing")
        io.write("check-lua-exports: ok (luajit: monostamp.ffi over ", m.library, ")\n")')
fi
