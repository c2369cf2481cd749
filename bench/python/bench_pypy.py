"""monostamp.time_ns() against time.time_ns() on PyPy, in one run.

    pypy3 bench/python/bench_pypy.py [--calls N] [--repeat R]

Benchmarks the installed monostamp package (the cffi binding on PyPy; it
runs on CPython too).  Each function is called in a plain loop, once to warm
the JIT and then R times; prints ns per call (the minimum over the repeats:
the least disturbed run) and the ratio against time.time_ns() measured in
the same run, with the target (<= 1.5).  Not a test: nothing here asserts.
"""
import argparse
import platform
import sys
import time

import monostamp


def loop(fn, calls):
    perf = time.perf_counter_ns
    t0 = perf()
    for _ in range(calls):
        fn()
    return (perf() - t0) / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    subjects = [("time.time_ns()", time.time_ns), ("monostamp.time_ns()", monostamp.time_ns),
                ("monostamp.now()", monostamp.now)]
    for _, fn in subjects:  # the JIT compiles each loop before it is timed
        loop(fn, args.calls)
    best = {name: min(loop(fn, args.calls) for _ in range(args.repeat)) for name, fn in subjects}
    print("%s %s, %d calls x %d" % (platform.python_implementation(), sys.version.split()[0],
                                     args.calls, args.repeat))
    for name, ns in best.items():
        print("  %-22s %7.1f ns/call" % (name, ns))
    ratio = best["monostamp.time_ns()"] / best["time.time_ns()"]
    print("monostamp.time_ns() / time.time_ns() = %.2f (target <= 1.5: %s)"
          % (ratio, "met" if ratio <= 1.5 else "MISSED"))


if __name__ == "__main__":
    main()
