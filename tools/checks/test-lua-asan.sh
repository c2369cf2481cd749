#!/bin/sh
# test-lua-asan.sh [BUILD]: builds require "monostamp" with ASan+UBSan into
# BUILD/lua-asan/ (default build) and runs the busted specs against it, in
# the environment `make test-lua` gives them.  Any ASan or UBSan report in
# the module fails the run: UBSan is built with -fno-sanitize-recover=all,
# so a report aborts the lua5.4 process and busted (or the spec that ran a
# child) sees it fail.
#
# lua5.4 itself is not instrumented: the ASan runtime has to be the first
# library in the process, so it is preloaded (from the compiler that built
# the module); the UBSan runtime comes in as the module's own dependency.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
CC=${CC:-cc}
LUA=${LUA:-lua5.4}
OUT="$BUILD/lua-asan"

# The Makefile's lua flags (hidden visibility, the same sources) with the
# sanitizers of its asan flavour.  No -Werror here: -O1 with instrumentation
# brings -Wmaybe-uninitialized guesses the plain build does not make, and
# warnings are `make lua`'s job.
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
mkdir -p "$OUT/monostamp"
# shellcheck disable=SC2046,SC2086
$CC ${CSTD:?run by make, whose Makefile exports CSTD} -Wall -Wextra \
    -O1 -g $SAN -fPIC -fvisibility=hidden -Icsrc $(pkg-config --cflags "$LUA") -shared \
    bindings/lua/*.c csrc/*.c -o "$OUT/monostamp/core.so" -lpthread $SAN

ASAN_LIB=$($CC -print-file-name=libasan.so)
if [ ! -e "$ASAN_LIB" ]; then
    echo "test-lua-asan: $CC has no libasan.so ($ASAN_LIB)" >&2
    exit 1
fi

# detect_leaks=0: lua5.4 (not instrumented, and not ours) leaves its own
# state to the OS when busted calls os.exit(), and the specs' shell
# children (sh, chmod, mktemp under the preloaded runtime) do the same, so
# LeakSanitizer would report allocations that are neither ours nor leaks.
# The module's own frees are covered by ASan's use-after-free and
# double-free checks, and its leaks by `make test-asan` on the C core.
# abort_on_error=0 keeps ASan's usual exit code (1) rather than SIGABRT.
echo "== lua5.4 busted specs, module built with ASan+UBSan ($OUT/monostamp/core.so)"
MONOSTAMP_BUILD="$BUILD" \
LUA_CPATH="$OUT/?.so;;" \
LUA_PATH="$ROOT/bindings/lua/?.lua;;" \
LD_PRELOAD="$ASAN_LIB" \
ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$LUA" /usr/bin/busted --pattern=_spec --exclude-pattern=^ffi_ tests/lua
