#!/bin/sh
# tools/windows/lua.sh BUILD: Lua 5.4 for Windows and the monostamp module
# for it, cross-built by mingw-w64 into BUILD/windows/lua (docs/windows.md):
#
#   lua54.dll, lua.exe and lua5.4.exe (the same program): Lua's own sources,
#     from the pinned lupa sdist (common.sh), built as Lua's
#     makefile builds them for mingw (LUA_BUILD_AS_DLL);
#   monostamp/core.dll: bindings/lua/*.c and csrc/*.c with the project's
#     warnings as errors, linked to lua54.dll, exporting
#     luaopen_monostamp_core alone.
#
# Both use the UCRT (common.sh, ucrt_flags): one C runtime in the
# process, whose errno and strerror() the module's error results use.
set -eu

BUILD=${1:-build}
MINGW_CC=${MINGW_CC:-x86_64-w64-mingw32-gcc}
OBJDUMP=${MINGW_OBJDUMP:-x86_64-w64-mingw32-objdump}
. tools/windows/common.sh

src=$(lua54_sources)
out="$BUILD/windows/lua"
mkdir -p "$out/obj" "$out/monostamp"
ucrt_flags "$out"
: "${WARN:?run by make, whose Makefile exports WARN and C_STD}" "${C_STD:?run by make}"

# Lua itself, once per build folder (its sources never change: pinned).
if [ ! -f "$out/lua54.dll" ] || [ ! -f "$out/lua5.4.exe" ]; then
    for f in "$src"/*.c; do
        case $(basename "$f") in lua.c|luac.c|onelua.c|ltests.c) continue ;; esac
        # shellcheck disable=SC2086
        $MINGW_CC $UCRT_CFLAGS -std=gnu99 -O2 -DLUA_BUILD_AS_DLL -DLUA_COMPAT_5_3 \
            -c "$f" -o "$out/obj/$(basename "$f" .c).o"
    done
    # shellcheck disable=SC2086
    $MINGW_CC $UCRT_CFLAGS -shared -o "$out/lua54.dll" "$out"/obj/*.o $UCRT_LDFLAGS -s
    # shellcheck disable=SC2086
    $MINGW_CC $UCRT_CFLAGS -std=gnu99 -O2 -DLUA_BUILD_AS_DLL -o "$out/lua5.4.exe" \
        "$src/lua.c" "$out/lua54.dll" $UCRT_LDFLAGS -s
    cp "$out/lua5.4.exe" "$out/lua.exe"
fi

core="$out/monostamp/core.dll"
# shellcheck disable=SC2086
$MINGW_CC $UCRT_CFLAGS $C_STD $WARN -O2 -DLUA_BUILD_AS_DLL -I"$src" -Icsrc -Ibindings/lua \
    -shared -o "$core" bindings/lua/*.c csrc/*.c "$out/lua54.dll" -lbcrypt -ladvapi32 \
    $UCRT_LDFLAGS -Wl,--no-undefined -s
for f in "$out/lua54.dll" "$out/lua5.4.exe" "$core"; do
    check_ucrt_only "$f"
done
exports=$($OBJDUMP -p "$core" | sed -n '/Ordinal\/Name Pointer/,/^$/s/^[[:space:]]*\[ *[0-9]*\] //p')
if [ "$exports" != "luaopen_monostamp_core" ]; then
    echo "windows-lua: $core exports: $exports"
    exit 1
fi
echo "windows-lua: $out: lua54.dll, lua5.4.exe, monostamp/core.dll (exports luaopen_monostamp_core alone)"
