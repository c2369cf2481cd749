#!/bin/sh
# tools/windows/test-lua.sh BUILD: the Lua module on Lua 5.4 for Windows,
# under Wine (make test-windows runs it after tools/windows/lua.sh, with
# WINEPREFIX set and the wineserver up; docs/windows.md): tests/lua/smoke.lua
# as written, on the pinned zones.
set -eu

BUILD=${1:-build}
WINE=${WINE:-wine}
. tools/windows/common.sh

lua="$BUILD/windows/lua"
LUA_CPATH="$(winpath "$lua")\\?.dll"
LUA_PATH="$(winpath bindings/lua)\\?.lua"
TZDIR="$(winpath tests/vectors/zoneinfo)"
export LUA_CPATH LUA_PATH TZDIR

echo "== windows (wine) tests/lua/smoke.lua on $(basename "$lua")/lua5.4.exe"
# Output through a pipe, as for Python (test-python.sh).
{ "$WINE" "$lua/lua5.4.exe" tests/lua/smoke.lua </dev/null 2>&1 || echo "wine-status $?"; } |
    tr -d '\r' | tee "$lua/smoke.log"
if grep -q '^wine-status ' "$lua/smoke.log" || ! grep -q 'checks passed' "$lua/smoke.log"; then
    echo "test-windows: tests/lua/smoke.lua failed under wine"
    exit 1
fi
