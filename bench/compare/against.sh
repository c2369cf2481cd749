#!/bin/sh
# Usage: bench/compare/against.sh REV [BUILD]
# Times this tree's stamps against those of git revision REV in one process
# (bench/compare/compare.c), so that a change's cost or saving shows as a
# paired ratio on a noisy machine.  REV's core is built with every defined
# symbol renamed old_*, then linked beside this tree's.  With
# BENCH_AGAINST_BUILD_ONLY=1 it stops once both cores are built (for
# bench/compare/count-instructions.sh).
set -eu
cd "$(dirname "$0")/../.."
rev=${1:?usage: bench/compare/against.sh REV [BUILD]}
build=${2:-build}
work="$build/against"
CC=${CC:-cc}
rm -rf "$work"
mkdir -p "$work/src" "$work/obj"
git archive "$rev" csrc | tar -x -C "$work/src"
for f in "$work"/src/csrc/*.c; do
    $CC -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -fPIC -DMONOSTAMP_EXPORTS \
        -I"$work/src/csrc" -c "$f" -o "$work/obj/$(basename "$f" .c).o"
done
ld -r -o "$work/old-all.o" "$work"/obj/*.o
# Every symbol the old core defines gets the prefix; what it takes from libc
# keeps its name.
nm --defined-only -g "$work/old-all.o" | awk '{print $3, "old_" $3}' > "$work/renames"
objcopy --redefine-syms="$work/renames" "$work/old-all.o" "$work/old.o"
make --no-print-directory BUILD="$build" "$build/plain/libcore.a" >/dev/null
[ "${BENCH_AGAINST_BUILD_ONLY:-0}" = 1 ] && exit 0
$CC -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -Icsrc -Ibench/c \
    bench/compare/compare.c "$work/old.o" "$build/plain/libcore.a" -o "$work/compare" -lpthread
echo "== this tree against $rev ($(git rev-parse --short "$rev"))"
"$work/compare"
