#!/bin/sh
# check-lua-exports.sh BUILD: builds the Lua rock as a user would, with a
# plain `luarocks --lua-version=5.4 make` and luarocks' own flags (no
# -fvisibility=hidden), and fails unless
#   - the C part it installs (monostamp/core.so) exports luaopen_* alone,
#     and the plain library for LuaJIT (monostamp/libmonostamp.so)
#     monostamp_* alone;
#   - nothing the build left in the source root answers to the name
#     monostamp: no monostamp.so, monostamp.lua or monostamp/init.lua, and
#     `require "monostamp"` from the root, on the root's paths alone, fails;
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
# never in the checkout: `luarocks make` leaves objects and monostamp/*.so
# in the source root.  The copy is removed afterwards; the log is kept on failure.
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

# The source root after the build: nothing there is "monostamp".
for f in monostamp.so monostamp.lua monostamp/init.lua; do
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
echo "check-lua-exports: ok (the source root holds nothing named monostamp)"

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
