#!/bin/sh
# test-python-subinterp-san.sh [BUILD]: tests/python/test_subinterpreters.py
# (CPython 3.14+: isolated interpreters, each under its own GIL, drawing
# and patched at once) against the extension built twice more, into
# BUILD/python-subinterp-{asan,tsan}/: with ASan+UBSan, then with TSan, each
# sanitizer's runtime preloaded into the normal interpreter and its
# children.  Any report in our code fails the run (halt_on_error; UBSan
# without recovery).  tools/chroot/forky-suites.sh runs it on 3.14 and 3.15.
#
# What this can see: our accesses (the core's clocks, the published patch
# clock, the atomic stores into the method tables) ordered by the threads
# and locks CPython makes, which TSan intercepts; CPython itself is not
# instrumented, so its plain read of ml_meth is not checked (patch.h says
# why it is whole).  As in tools/checks/test-python-tsan.sh, tools/checks/tsan-python.supp
# may list CPython's reports only.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
PY=$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)')
CC=${CC:-cc}

if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 14))'; then
    echo "test-python-subinterp-san: $PY has no concurrent.interpreters (3.14+): nothing to run"
    exit 0
fi

build() { # flavour cflags ldflags -> the extension's dir
    out="$BUILD/python-subinterp-$1"
    rm -rf "$out/lib"
    CFLAGS="$2 -fno-omit-frame-pointer -O1 -g" LDFLAGS="$3" \
        "$PY" setup.py --quiet build --build-base "$out/build" --build-lib "$out/lib" --force >&2
    echo "$out/lib"
}

run() { # lib preload env...: the scenario's tests in children of a plain pytest
    lib=$1 preload=$2
    shift 2
    (cd tests/python && env MONOSTAMP_SUBINTERP_EXT_DIR="$lib" LD_PRELOAD="$preload" "$@" \
        "$PY" -m pytest -q -p no:cacheprovider test_subinterpreters.py)
}

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
echo "== test_subinterpreters.py, the extension built with ASan+UBSan"
lib=$(build asan "$SAN" "$SAN")
# detect_leaks=0: the interpreter leaves its own objects to the OS at exit.
run "$lib" "$($CC -print-file-name=libasan.so)" \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "== test_subinterpreters.py, the extension built with TSan"
lib=$(build tsan -fsanitize=thread -fsanitize=thread)
run "$lib" "$($CC -print-file-name=libtsan.so)" \
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$ROOT/tools/checks/tsan-python.supp"
