#!/bin/sh
# The benchmarks docs/benchmarks.md reads as pictures, run and plotted in one
# command (the Python package installed for $PYTHON, default python3):
#
#   sh bench/plots.sh [BUILD]
#
# Each benchmark's output goes to BUILD/plots/ (sampling-c.md,
# sampling-python.md, sleep.md, sleep.csv) and is printed; bench/plot.py
# draws docs/stamps_per_second.svg and docs/sleep_lateness.svg from it.
# MONOSTAMP_BENCH_QUICK=1 shortens every run (figures then scaled).
set -e
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PYTHON=${PYTHON:-python3}
make --no-print-directory BUILD="$BUILD" "$BUILD/bench/bench_sampling" "$BUILD/bench/bench_sleep"
out="$BUILD/plots"
mkdir -p "$out"
bench="$(pwd)/bench"

"$BUILD/bench/bench_sampling" | tee "$out/sampling-c.md"
# From $out, so that the installed package is the one imported.
(cd "$out" && "$PYTHON" "$bench/python/bench.py" --sampling-only) | tee "$out/sampling-python.md"
MONOSTAMP_SLEEP_CSV="$out/sleep.csv" "$BUILD/bench/bench_sleep" | tee "$out/sleep.md"

"$PYTHON" bench/plot.py sampling docs/stamps_per_second.svg \
    "C: bench_sampling=$out/sampling-c.md" \
    "Python: bench.py --sampling-only=$out/sampling-python.md"
"$PYTHON" bench/plot.py sleep docs/sleep_lateness.svg "$out/sleep.csv"
