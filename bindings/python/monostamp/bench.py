"""Benchmarks the binding against the standard library, in one run.

    python -m monostamp.bench [--repeat N] [--quick]

Prints ns per call (the minimum over the repeats: the least disturbed run)
and the ratios the project targets, each against a baseline measured in
the same run on the same machine.  Not a test: nothing here asserts.
"""
import argparse
import datetime
import sys
import time
import timeit

import monostamp

#: (ratio name, numerator, denominator, target, "<=" or ">=")
TARGETS = [
    ("monostamp.time_ns() / time.time_ns()", "monostamp.time_ns()", "time.time_ns()", 1.10, "<="),
    ("monostamp.now() / time.time_ns()", "monostamp.now()", "time.time_ns()", 1.60, "<="),
    ("datetime.now().astimezone() / monostamp.now()", "datetime.now().astimezone()",
     "monostamp.now()", 10.0, ">="),
    ("Stamp.isoformat() / datetime.isoformat()", "Stamp.isoformat()", "datetime.isoformat()",
     1.0, "<="),
]


def cases():
    """name -> (statement, globals): each statement is one call."""
    stamp = monostamp.now()
    aware = datetime.datetime.now().astimezone()
    clock = monostamp.Clock()
    text = stamp.isoformat()
    dt_text = aware.isoformat()
    return {
        "time.time_ns()": ("f()", {"f": time.time_ns}),
        "monostamp.time_ns()": ("f()", {"f": monostamp.time_ns}),
        "monostamp.now()": ("f()", {"f": monostamp.now}),
        "Clock.now()": ("f()", {"f": clock.now}),
        "datetime.now().astimezone()": ("f().astimezone()", {"f": datetime.datetime.now}),
        "Stamp.isoformat()": ("f()", {"f": stamp.isoformat}),
        "datetime.isoformat()": ("f()", {"f": aware.isoformat}),
        "Stamp.fromisoformat()": ("f(t)", {"f": monostamp.Stamp.fromisoformat, "t": text}),
        "datetime.fromisoformat()": ("f(t)", {"f": datetime.datetime.fromisoformat, "t": dt_text}),
        "utc_ns, offset = stamp": ("a, b = s", {"s": stamp}),
    }


def measure(stmt, env, repeat, target_s=0.02):
    """The least ns per call over `repeat` runs of about target_s each."""
    timer = timeit.Timer(stmt, globals=env)
    number, elapsed = 1, 0.0
    while elapsed < target_s / 4:  # calibrate the loop count
        number *= 4
        elapsed = timer.timeit(number)
    number = max(1, int(number * target_s / elapsed))
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def run(repeat=15, out=sys.stdout):
    table = cases()
    # Interleave the repeats of all cases so that a slow spell of the
    # machine hits every case alike, then keep each case's minimum.
    best = {name: float("inf") for name in table}
    for _ in range(3):
        for name, (stmt, env) in table.items():
            best[name] = min(best[name], measure(stmt, env, max(1, repeat // 3)))
    impl = "abi3" if monostamp._monostamp.__file__.endswith(".abi3.so") else "version-specific"
    print("monostamp %s, Python %s (%s build), %s" % (
        monostamp.__version__, sys.version.split()[0], impl, sys.platform), file=out)
    print("", file=out)
    print("%-32s %10s" % ("call", "ns/call"), file=out)
    for name, ns in best.items():
        print("%-32s %10.1f" % (name, ns), file=out)
    print("", file=out)
    ok = True
    for label, num, den, target, sense in TARGETS:
        ratio = best[num] / best[den]
        met = ratio <= target if sense == "<=" else ratio >= target
        ok &= met
        print("%-48s %6.2f  (target %s %.2f: %s)" % (
            label, ratio, sense, target, "met" if met else "MISSED"), file=out)
    return ok


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m monostamp.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="timing runs per case")
    parser.add_argument("--quick", action="store_true", help="3 runs per case")
    args = parser.parse_args(argv)
    run(3 if args.quick else args.repeat)
    return 0  # a benchmark reports; it does not fail the build


if __name__ == "__main__":
    sys.exit(main())
