"""Benchmarks monostamp.patch() against the unpatched standard library, in one run.

    python bench/python/bench_patch.py [--repeat N]

It benchmarks the installed monostamp package; it is not part of it.

1. ns per call, patched and not, of datetime.now() and time.time() (each
   function bound before the patch starts, as code under test binds it),
   with the targets' ratios: patched now() <= 1.0x, patched time() <= 1.3x.
2. One start+stop cycle of monostamp.patch() (the default clock, and a
   Clock), and of time-machine's travel() when it is installed.
3. Calls per second of datetime.now() in a tight loop of 1,000,000: unpatched,
   patched on the default clock (its 5 ms lead bound makes it wait for real
   time: unique us cannot come faster than 1 M/s), and patched on a Clock
   without a bound (max_lead_ns=0), which runs ahead of the wall clock.

The minimum over the repeats is kept (the least disturbed run); cases are
interleaved so that a slow spell of the machine hits them alike.  Not a
test: nothing here asserts.
"""
import argparse
import datetime
import sys
import time
import timeit

import monostamp

LOOP = 1_000_000


def per_call_ns(stmt, env, number):
    return timeit.Timer(stmt, globals=env).timeit(number) / number * 1e9


def calls(repeat):
    now, tm = datetime.datetime.now, time.time
    cases = {
        "datetime.now()": ("f()", {"f": now}, None),
        "datetime.now() (patched)": ("f()", {"f": now}, monostamp.patch),
        "time.time()": ("f()", {"f": tm}, None),
        "time.time() (patched)": ("f()", {"f": tm}, monostamp.patch),
    }
    best = {name: float("inf") for name in cases}
    for _ in range(repeat):
        for name, (stmt, env, ctx) in cases.items():
            if ctx is None:
                ns = per_call_ns(stmt, env, 200_000)
            else:
                with ctx():
                    # Fewer calls than the bound lets run ahead: the cost of
                    # a call, not of waiting for real time.
                    ns = per_call_ns(stmt, env, 4_000)
            best[name] = min(best[name], ns)
    return best


def cycles(repeat):
    clock = monostamp.Clock()
    cases = {
        "patch() start+stop (default clock)": lambda: monostamp.patch().start().stop(),
        "patch(Clock) start+stop": lambda: monostamp.patch(clock).start().stop(),
    }
    try:
        import time_machine
    except ImportError:
        print("time-machine is not installed: its start+stop row is skipped")
    else:
        def travel():
            t = time_machine.travel(0)
            t.start()
            t.stop()
        cases["time_machine.travel() start+stop"] = travel
    best = {name: float("inf") for name in cases}
    for _ in range(repeat):
        for name, f in cases.items():
            best[name] = min(best[name], timeit.timeit(f, number=2000) / 2000 * 1e6)
    return best


def tight_loop():
    now = datetime.datetime.now

    def rate(ctx):
        if ctx is None:
            started = time.perf_counter()
            for _ in range(LOOP):
                now()
            return LOOP / (time.perf_counter() - started)
        with ctx:
            started = time.perf_counter()
            for _ in range(LOOP):
                now()
            return LOOP / (time.perf_counter() - started)

    return {
        "unpatched": rate(None),
        "patched, default clock (bounded at %g ms)" % (monostamp.PATCH_MAX_LEAD_NS / 1e6):
            rate(monostamp.patch()),
        "patched, Clock(max_lead_ns=0) (unbounded)":
            rate(monostamp.patch(monostamp.Clock(max_lead_ns=0))),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print("monostamp %s, Python %s, %s" % (monostamp.__version__, sys.version.split()[0],
                                           sys.platform))
    best = calls(args.repeat)
    print("\n%-34s %10s" % ("call", "ns/call"))
    for name, ns in best.items():
        print("%-34s %10.1f" % (name, ns))
    print("\n%-44s %8s  %s" % ("ratio", "this run", "target"))
    for name, num, den, target in [
            ("patched datetime.now() / datetime.now()", "datetime.now() (patched)",
             "datetime.now()", 1.0),
            ("patched time.time() / time.time()", "time.time() (patched)", "time.time()", 1.3)]:
        ratio = best[num] / best[den]
        print("%-44s %8.2f  <= %.1f: %s" % (name, ratio, target,
                                           "met" if ratio <= target else "NOT met"))
    print("\n%-44s %8s" % ("start+stop", "us"))
    for name, us in cycles(args.repeat).items():
        print("%-44s %8.2f" % (name, us))
    print("\n%-44s %8s" % ("datetime.now() in a loop of 1,000,000", "M/s"))
    for name, per_s in tight_loop().items():
        print("%-44s %8.2f" % (name, per_s / 1e6))


if __name__ == "__main__":
    main()
