#!/bin/sh
# Usage: bench/compare/clock-against.sh RUNS REV... [-- BUILD]
# bench_clock (bench/c/bench_clock.c) of this tree and of each git revision
# REV, run in turn RUNS times, MONOSTAMP_BENCH_QUICK=1 unless set: the rows
# the targets for the check of a state gone backwards are read on (a private clock's now, the shared-file
# stamp, the default clock's now, one and two threads), each with its own
# run's raw clock_gettime ratio.  Each REV is built from `git archive` in
# /tmp/monostamp-bench-REV (its own Makefile and flags); the raw outputs
# stay there and in $BUILD/clock-against.  Timed: on a shared machine, read
# the ratios of the same run, never one run against another's ns.
set -eu
cd "$(dirname "$0")/../.."
runs=${1:?usage: bench/compare/clock-against.sh RUNS REV... [-- BUILD]}
shift
revs=
build=build
while [ $# -gt 0 ]; do
    case $1 in
    --) build=${2:?}; shift 2 ;;
    *) revs="$revs $1"; shift ;;
    esac
done
export MONOSTAMP_BENCH_QUICK=${MONOSTAMP_BENCH_QUICK:-1}
make --no-print-directory "$build/bench/bench_clock" >/dev/null
out="$build/clock-against"
mkdir -p "$out"
for rev in $revs; do
    short=$(git rev-parse --short "$rev")
    dir=/tmp/monostamp-bench-$short
    if [ ! -x "$dir/build/bench/bench_clock" ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        git archive "$rev" | tar -x -C "$dir"
        make --no-print-directory -C "$dir" build/bench/bench_clock >/dev/null
    fi
done
rows() { # source, call, threads, ns, raw ns, median ratio of the rows read
    grep -E '^\| (realtime|realtime\+file|default clock) +\| monotonicForceNanosecondIncrement +\| (now|default_now) ' |
        awk -F'|' '{ for (i = 2; i <= 8; i++) gsub(/^ +| +$/, "", $i)
                     gsub(/ /, "_", $2)
                     printf "%-13s %-11s %s thr %7s ns  raw %6s  ratio %s\n", $2, $4, $5, $6, $7, $8 }'
}
summary=$out/summary
: > "$summary"
i=1
while [ "$i" -le "$runs" ]; do
    for rev in this $revs; do
        if [ "$rev" = this ]; then
            bin=$build/bench/bench_clock
            name="this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- csrc || echo +))"
        else
            bin=/tmp/monostamp-bench-$(git rev-parse --short "$rev")/build/bench/bench_clock
            name=$(git rev-parse --short "$rev")
        fi
        "$bin" > "$out/run$i-$(echo "$name" | tr -c 'a-z0-9\n' _)" 2>&1
        echo "== run $i: $name; $(grep 'load average before' "$out/run$i-$(echo "$name" | tr -c 'a-z0-9\n' _)")"
        rows < "$out/run$i-$(echo "$name" | tr -c 'a-z0-9\n' _)" | tee -a "$summary.tmp"
        sed "s/^/$(echo "$name" | cut -c1-24 | tr ' ' _) /" "$summary.tmp" >> "$summary"
        rm -f "$summary.tmp"
    done
    i=$((i + 1))
done
echo "== the median over the $runs runs of each row's ratio to raw (its ns)"
awk '
    function median(v, n,    i, j, x) { # insertion sort (mawk has no asort)
        for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
        return v[int((n + 1) / 2)]
    }
    { key = $1 " " $2 " " $3 " " $4; if (!(key in n)) order[++keys] = key
      n[key]++; ratio[key, n[key]] = $NF; ns[key, n[key]] = $6 }
    END { for (k = 1; k <= keys; k++) { key = order[k]; split(key, f, " ")
            for (i = 1; i <= n[key]; i++) { r[i] = ratio[key, i]; t[i] = ns[key, i] }
            printf "%-24s %-13s %-11s %s thr  ratio %.2f  (%.1f ns)\n", f[1], f[2], f[3], f[4], median(r, n[key]), median(t, n[key]) } }' "$summary"
