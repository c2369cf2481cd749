"""This tree's extension against another build of it, in one process.

    python bench/python/against.py OLD_EXTENSION [--rounds N]

OLD_EXTENSION is another build's ``_monostamp*.so`` (say, from a venv where
an older revision was installed).  Both are loaded side by side, and each
call is timed in alternating old/new runs; the figure is the median of the
paired new/old ratios, which a noisy machine disturbs far less than two
separate runs of bench.py (< 1: this tree is faster).  Benchmark only.
"""
import argparse
import importlib.machinery
import importlib.util
import statistics
import sys
import timeit

import monostamp._monostamp as new


def load(path):
    # The loader finds PyInit__monostamp from the last part of the name.
    loader = importlib.machinery.ExtensionFileLoader("old_monostamp._monostamp", path)
    spec = importlib.util.spec_from_file_location("old_monostamp._monostamp", path,
                                                  loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def per_call_ns(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=3)) / number * 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the other build's _monostamp extension file")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    old = load(args.old)
    cases = []
    for label, attr in (("now()", "now"), ("time_ns()", "time_ns")):
        cases.append(("monostamp." + label, getattr(old, attr), getattr(new, attr)))
    old_clock, new_clock = old.Clock(), new.Clock()
    cases.append(("Clock.now()", old_clock.now, new_clock.now))
    cases.append(("Clock.time_ns()", old_clock.time_ns, new_clock.time_ns))
    old_stamp, new_stamp = old.now(), new.now()
    cases.append(("Stamp.isoformat()", old_stamp.isoformat, new_stamp.isoformat))
    cases.append(("Stamp.datetime()", old_stamp.datetime, new_stamp.datetime))

    print("ns per call (best of each side's runs); new/old is the median of %d paired"
          % args.rounds)
    print("ratios (< 1: this tree is faster).  Python %s, old: %s" % (sys.version.split()[0],
                                                                   args.old))
    print("")
    print("| call | old ns | new ns | new/old |")
    print("|---|---:|---:|---:|")
    for label, old_fn, new_fn in cases:
        number = 20000
        olds, news, ratios = [], [], []
        for r in range(args.rounds):
            if r % 2:
                n = per_call_ns(new_fn, number)
                o = per_call_ns(old_fn, number)
            else:
                o = per_call_ns(old_fn, number)
                n = per_call_ns(new_fn, number)
            olds.append(o)
            news.append(n)
            ratios.append(n / o)
        print("| %s | %.1f | %.1f | %.2f |" % (label, min(olds), min(news),
                                               statistics.median(ratios)))


if __name__ == "__main__":
    main()
