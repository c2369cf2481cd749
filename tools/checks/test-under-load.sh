#!/bin/bash
# test-under-load.sh [RUNS] [DIR]: `make test` RUNS times (default 5) in a row
# in a fresh clone of this checkout's HEAD (DIR, default /tmp/monostamp-loaded),
# with one busy loop per CPU core running all along, so that every race and
# every timing assumption of the suites meets a machine with no idle core.
# Prints one line per run (pass or FAIL, seconds, load average); each run's
# log is DIR-N.log.  Exits 1 if any run failed.
set -u
runs=${1:-5}
dir=${2:-/tmp/monostamp-loaded}
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir" && git clone -q "$top" "$dir" && cd "$dir" || exit 1
echo "test-under-load: $(git log --oneline -1), $runs runs, $(nproc) busy loops"
spinners=""
for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    spinners="$spinners $!"
done
# shellcheck disable=SC2086
trap 'kill $spinners 2>/dev/null' EXIT
failed=0
for i in $(seq "$runs"); do
    start=$(date +%s)
    if make test > "$dir-$i.log" 2>&1; then r=pass; else r=FAIL; failed=1; fi
    echo "run $i: $r in $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg) ($dir-$i.log)"
done
exit $failed
