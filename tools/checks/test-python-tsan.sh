#!/bin/sh
# test-python-tsan.sh [BUILD]: builds the Python extension with
# ThreadSanitizer into BUILD/python-tsan/ (default build) and runs the
# binding's threaded tests with them, in the normal interpreter with the
# TSan runtime preloaded.  Any report not suppressed in
# tools/checks/tsan-python.supp (which holds CPython's own, never ours) fails
# the run: halt_on_error=1 ends the reporting process with exit code 66.
#
# What this can see: CPython is not instrumented, so TSan checks the
# accesses our code makes, ordered by what CPython does with pthreads (the
# GIL's mutex and condition variable).  Under the GIL two threads are in
# monostamp's C code at once only where it lets the GIL go: the naps of a
# stamp that waits for its lead bound, and the sleeps.  The tests' other
# threads draw with the GIL held, so test_concurrency.py's
# test_threads_draw_while_others_wait_for_the_lead_bound has two threads
# wait out a pushed state file while two others stamp (one on that file)
# and a fifth changes a waiter's policy and reads stats().
#
# MONOSTAMP_TEST_SCALE (default 1) scales the heavy tests as in
# tests/python/conftest.py.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
OUT="$BUILD/python-tsan"
SCALE=${MONOSTAMP_TEST_SCALE:-1}

# The interpreter binary itself: pyenv's `python3` is a bash script, and
# bash crashes at start with libtsan preloaded.
PY=$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)')

# A build of its own, apart from build-python/ (make test-python's), so
# neither reuses the other's objects; --force because setuptools rebuilds
# by timestamp, not by flags.
echo "== building the Python extension with -fsanitize=thread into $OUT/lib"
rm -rf "${OUT:?}/lib"
CFLAGS="-fsanitize=thread -fno-omit-frame-pointer -O1 -g" LDFLAGS="-fsanitize=thread" \
    "$PY" setup.py --quiet build --build-base "$OUT/build" --build-lib "$OUT/lib" --force
EXT=$(ls "$OUT"/lib/monostamp/_monostamp*.so)

# The runtime the extension was linked with, preloaded: TSan must be in the
# process before anything it intercepts is called.
TSAN_LIB=$(ldd "$EXT" | sed -n 's/^[[:space:]]*libtsan[^ ]* => \([^ ]*\).*/\1/p')
if [ -z "$TSAN_LIB" ] || [ ! -e "$TSAN_LIB" ]; then
    echo "test-python-tsan: $EXT is not linked with libtsan" >&2
    exit 1
fi

run() {
    env PYTHONPATH="$OUT/lib" MONOSTAMP_TEST_SCALE="$SCALE" LD_PRELOAD="$TSAN_LIB" \
        TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$ROOT/tools/checks/tsan-python.supp" \
        "$PY" "$@"
}

# Every test of test_concurrency.py (threads, fork, multiprocessing, a
# shared file), and the tests elsewhere that start threads.
others=$(cd tests/python && grep -l '^import threading\|^ *import threading' test_*.py |
    grep -v '^test_concurrency\.py$' | tr '\n' ' ')
echo "== pytest under TSan: test_concurrency.py, test_lead_wait.py (whose children inherit"
echo "   the preload), and the threaded tests of: $others"
# shellcheck disable=SC2086
(cd tests/python && run -m pytest -q -p no:cacheprovider test_concurrency.py test_lead_wait.py \
    $others -k 'test_concurrency or test_lead_wait or thread or gil')

# tests/python/test_concurrency.py's
# test_threads_draw_while_others_wait_for_the_lead_bound is the one that
# puts threads in the core at the same moment (a stamp's naps let the GIL
# go): without it a race in the core goes unseen.
