#!/bin/sh
# tests/preload/run.sh BUILD FLAVOUR: test_preload under the preload of one
# flavour (plain, asan, tsan), on a state file in a fresh directory, then
# once more with libearly.so after it in LD_PRELOAD, whose constructor reads
# the clock before the preload's own has run; then test_contract, the odd
# arguments of the interposed calls against libc's answers, at each grain
# (MONOSTAMP_GRAIN ns and us).
#
# A sanitizer's runtime must be the first object of the process, so it goes
# first in LD_PRELOAD; its interceptors of clock_gettime and friends then
# call on into the preload (RTLD_NEXT), which answers as without them.
set -eu
build=$1
flavour=$2
bin=$build/$flavour/preload-tests
lib=$(cd "$build/$flavour" && pwd)/libmonostamp_preload.so
case $flavour in
    plain) runtime= ;;
    asan) runtime=$(${CC:-cc} -print-file-name=libasan.so)
          export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ;;
    tsan) runtime=$(${CC:-cc} -print-file-name=libtsan.so)
          export TSAN_OPTIONS=halt_on_error=1 ;;
esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/monostamp-preload.XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "== test_preload ($flavour)"
LD_PRELOAD="$runtime $lib" MONOSTAMP_SHARED="$dir/state" "$bin/test_preload" "$dir"
echo "== test_preload early ($flavour)"
LD_PRELOAD="$runtime $lib $(cd "$bin" && pwd)/libearly.so" MONOSTAMP_SHARED="$dir/state" \
    "$bin/test_preload" "$dir" loaded early
# The contract table compares faults, so the sanitizers must let a SIGSEGV
# kill the child that takes it, as it kills without them.
case $flavour in
    asan) export ASAN_OPTIONS=$ASAN_OPTIONS:handle_segv=0 ;;
    tsan) export TSAN_OPTIONS=$TSAN_OPTIONS:handle_segv=0 ;;
esac
for grain in ns us; do
    echo "== test_contract, grain $grain ($flavour)"
    LD_PRELOAD="$runtime $lib" MONOSTAMP_SHARED="$dir/state-$grain" MONOSTAMP_GRAIN=$grain \
        "$bin/test_contract" "$dir" $grain
done
