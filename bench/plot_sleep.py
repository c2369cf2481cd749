#!/usr/bin/env python3
"""Plot the sleep lateness in bench_sleep's CSV.

    MONOSTAMP_SLEEP_CSV=build/sleep.csv build/bench/bench_sleep
    python3 bench/plot_sleep.py build/sleep.csv docs/sleep_lateness.png

matplotlib is an optional benchmark dependency: without it the script says
so and exits 0, so a benchmark run never fails for the want of a plot.
"""
import csv
import math
import sys
from collections import defaultdict


def percentile(sorted_values, q):
    """Nearest rank, as the C benchmark computes it."""
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def load(path):
    """{method: {requested_us: [late_us, ...]}} in file order of methods."""
    data = defaultdict(lambda: defaultdict(list))
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            data[row["method"]][int(row["requested_us"])].append(
                int(row["late_ns"]) / 1000.0)
    return data


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_sleep: matplotlib is not installed; no plot made")
        return 0

    data = load(argv[1])
    # Lateness spans 0.1 us to milliseconds: a log axis, with a floor so
    # that a zero (a wake-up within the clock's own resolution) still shows.
    floor_us = 0.05
    fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
    markers = "os^vD<>ph*"
    for i, (method, by_length) in enumerate(data.items()):
        lengths = sorted(by_length)
        means, p99s = [], []
        for length in lengths:
            late = sorted(by_length[length])
            means.append(max(floor_us, sum(late) / len(late)))
            p99s.append(max(floor_us, percentile(late, 0.99)))
        style = dict(marker=markers[i % len(markers)], label=method)
        if method.startswith("monostamp"):
            # The subject of the plot stands out: thick, in black and red.
            style.update(linewidth=2.5,
                         color="black" if method.endswith("D=0") else "tab:red")
        else:
            style.update(linewidth=1, alpha=0.8)
        axes[0].plot(lengths, means, **style)
        axes[1].plot(lengths, p99s, **style)
    for ax, title in zip(axes, ("mean lateness", "p99 lateness")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("requested sleep (µs)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.axhline(5, color="grey", linestyle="--", linewidth=1)
    axes[0].set_ylabel("µs after the deadline (never before it)")
    axes[1].legend(fontsize=8, loc="upper left")
    fig.suptitle("On this machine: how late each way of sleeping wakes "
                 "(dashed: 5 µs)")
    fig.tight_layout()
    fig.savefig(argv[2], dpi=100)
    print("plot_sleep: wrote", argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
