#!/bin/sh
# tools/windows/test-python.sh BUILD: the Python binding on CPython 3.13
# for Windows, under Wine (make test-windows runs it after the C tests, with
# WINEPREFIX set and the wineserver up; docs/windows.md).
#
#   1. tools/windows/wheel.sh builds the wheel into BUILD/windows/dist;
#   2. the Windows CPython's own pip installs it, with pytest, hypothesis,
#      pytest-xdist and tzdata from their pinned wheels, into
#      BUILD/windows/pysite (--target: the cached interpreter stays as
#      unpacked);
#   3. a check of what a user does first: import, 100 000 unique increasing
#      time_ns(), patch() with 1 000 unique datetime.now() and time.time();
#   4. the whole tests/python, with the Lua children on lua5.4.exe and
#      monostamp/core.dll (tools/windows/lua.sh, built before this).
#
# Wine's traps (each seen): a Windows Python whose stdout or stderr is a
# regular file dies at start (WinError 6), so its output goes through a
# pipe; 3.13's _wmi module calls propsys.VariantToString, which Wine 8
# lacks, and aborts the process, so a sitecustomize hides _wmi (platform
# then asks the registry instead).
set -eu

BUILD=${1:-build}
WINE=${WINE:-wine}
. tools/windows/common.sh

py=$(windows_python)
wheels=$(test_wheels)
out="$BUILD/windows"
whl="$out/dist/monostamp-$(sed -n 's/^#define MONOSTAMP_VERSION "\(.*\)"/\1/p' csrc/monostamp.h)-cp313-cp313-win_amd64.whl"
# test.sh has just built it; run alone, this builds it.
[ -n "${MONOSTAMP_WHEEL_BUILT:-}" ] && [ -f "$whl" ] || tools/windows/wheel.sh "$BUILD" "$out/dist"

rm -rf "$out/pysite" "$out/pyboot"
mkdir -p "$out/pysite" "$out/pyboot"
cat >"$out/pyboot/sitecustomize.py" <<'PY'
# Wine 8 lacks propsys.VariantToString, which 3.13's _wmi calls: hide it.
import sys
sys.modules["_wmi"] = None
# pysite is where pip --target put the packages; made a site directory, its
# .pth files run as in a real site-packages (monostamp's startup hook).
import os, site
for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    if entry.rstrip("\\/").endswith("pysite"):
        site.addsitedir(entry)
PY
PYTHONPATH="$(winpath "$out/pyboot");$(winpath "$out/pysite")"
PYTHONDONTWRITEBYTECODE=1
# Children print in UTF-8, as the tests read them (the ANSI code page would
# write an em dash as byte 0x97).
PYTHONUTF8=1
export PYTHONPATH PYTHONDONTWRITEBYTECODE PYTHONUTF8

# wine_py ARGS: the Windows python.exe, its output piped (see above), CRs
# dropped; its status in $rc.
wine_py() {
    rc=0
    { "$WINE" "$py/python.exe" -u "$@" </dev/null 2>&1 || echo "wine-status $?"; } | tr -d '\r' |
        tee "$out/python.log"
    if grep -q '^wine-status ' "$out/python.log"; then
        rc=$(sed -n 's/^wine-status //p' "$out/python.log")
    fi
}

echo "== windows (wine) pip install $(basename "$whl") and the test tools"
# shellcheck disable=SC2046
wine_py -m pip install -q --no-index --no-deps --no-compile --disable-pip-version-check \
    --target "$(winpath "$out/pysite")" "$(winpath "$whl")" \
    $(for w in "$wheels"/*.whl; do winpath "$w"; echo; done)
[ "$rc" = 0 ] || { echo "test-windows: pip install failed under wine ($rc)"; exit 1; }

echo "== windows (wine) import monostamp, time_ns(), patch()"
wine_py -c '
import datetime, time, monostamp
ns = [monostamp.time_ns() for _ in range(100000)]
assert all(a < b for a, b in zip(ns, ns[1:])), "time_ns() not increasing"
with monostamp.patch():
    now = [datetime.datetime.now() for _ in range(1000)]
    t = [time.time() for _ in range(1000)]
assert len(set(now)) == 1000 and len(set(t)) == 1000, (len(set(now)), len(set(t)))
print("monostamp %s on %s: 100000 time_ns() unique and increasing; patch(): 1000 unique '\
'datetime.now() and 1000 unique time.time()" % (monostamp.__version__, monostamp._monostamp.__file__))
'
[ "$rc" = 0 ] || { echo "test-windows: the first checks failed under wine"; exit 1; }

echo "== windows (wine) tests/python"
lua="$out/lua"
# Named zones for test_machine_zones: Debian's database through Z:, as a
# Windows user gives TZDIR (the rest of the suite reads the pinned copy).
TZDIR="$(winpath "${MONOSTAMP_MACHINE_TZDIR:-/usr/share/zoneinfo}")"
# WINEPATH joins Windows' PATH: the Lua children find lua5.4.exe there.
WINEPATH="$(winpath "$lua")"
MONOSTAMP_LUA_CPATH="$(winpath "$lua")\\?.dll"
MONOSTAMP_REQUIRE_LUA=1
MONOSTAMP_TEST_SCALE=${MONOSTAMP_TEST_SCALE:-0.1}
export TZDIR WINEPATH MONOSTAMP_LUA_CPATH MONOSTAMP_REQUIRE_LUA MONOSTAMP_TEST_SCALE
wine_py -m pytest -p no:cacheprovider -q -rfEs --tb=short -n "${MONOSTAMP_WINE_JOBS:-2}" tests/python
[ "$rc" = 0 ] || { echo "test-windows: tests/python failed under wine ($rc)"; exit 1; }
