#!/bin/sh
# Usage: bench/compare/count-instructions.sh REV [BUILD]
# Instructions per monostamp_now() on this tree and on git revision REV, for
# a private clock, one on a state file, a private clock on the coarse source
# (nearly every stamp a forced increment) and the default clock: callgrind's
# count for 200,000 stamps less that for 100,000, over 100,000.  Counted
# rather than timed, so a shared, loaded machine gives the same answer.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:?usage: bench/compare/count-instructions.sh REV [BUILD]}
build=${2:-build}
command -v valgrind >/dev/null || { echo "count-instructions: needs valgrind" >&2; exit 1; }
BENCH_AGAINST_BUILD_ONLY=1 bench/compare/against.sh "$rev" "$build"
work="$build/against"
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -Icsrc \
    bench/compare/count_stamps.c "$work/old.o" "$build/plain/libcore.a" -o "$work/count_stamps" \
    -lpthread -ldl
count() { # old|new kind n
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/count_stamps" "$@" 2>&1 |
        sed -n 's/.*refs: *//p' | tr -d ,
}
echo "instructions per monostamp_now(): $rev against this tree"
for kind in private file coarse default; do
    for side in old new; do
        a=$(count $side $kind 100000)
        b=$(count $side $kind 200000)
        awk -v k="$kind" -v s="$side" -v a="$a" -v b="$b" \
            'BEGIN { printf "%-8s %-4s %.2f\n", k, s, (b - a) / 100000 }'
    done
done
