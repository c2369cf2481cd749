"""Benchmarks monostamp's ids and blocks against their peers, in one run.

    python bench/python/bench_ids.py [--repeat N]

It benchmarks the installed monostamp package; it is not part of it.

Rows, ns per call (the minimum over the repeats; the cases take turns
within each repeat, so a slow moment of this shared machine hits them
alike):

    monostamp.uuid7()            a stdlib uuid.UUID, version 7, from the next stamp
    Clock.uuid7()                the same from a private clock
    uuid.uuid4()                 the stdlib's random id (os.urandom each call)
    uuid.uuid7()                 the stdlib's, on CPython 3.14 and later only
    uuid6.uuid7()                PyPI uuid6 (pure Python)
    uuid_utils.compat.uuid7()    PyPI uuid-utils (Rust), returning a stdlib uuid.UUID
    uuid_utils.uuid7()           the same, returning its own type

and take(10**6) against [time.time_ns() for _ in range(10**6)].  uuid6 and
uuid-utils are benchmark-only dependencies: a missing one is pip-installed
quietly (said so), or its rows are skipped with the reason.  Then the
ratios that docs/ids.md targets.  Not a test: nothing here asserts.
"""
import argparse
import importlib
import subprocess
import sys
import time
import timeit
import uuid

import monostamp

#: (ratio name, numerator row, denominator row, target, "<=" or ">=")
TARGETS = [
    ("uuid.uuid4() / monostamp.uuid7()", "uuid.uuid4()", "monostamp.uuid7()", 3.0, ">="),
    ("uuid_utils.compat.uuid7() / monostamp.uuid7()", "uuid_utils.compat.uuid7()",
     "monostamp.uuid7()", 3.0, ">="),
    ("monostamp.uuid7() / uuid_utils.uuid7()", "monostamp.uuid7()", "uuid_utils.uuid7()",
     1.5, "<="),
    ("[time.time_ns() x 10**6] / take(10**6)", "[time.time_ns() for _ in range(10**6)]",
     "monostamp.take(10**6)", 1000.0, ">="),
]


def peer(module, requirement):
    """`module`, pip-installed quietly if missing; None (said why) if it cannot be."""
    try:
        return importlib.import_module(module)
    except ImportError:
        pass
    print("%s (a benchmark-only dependency) is missing: pip install --quiet %s"
          % (requirement, requirement))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                           "--disable-pip-version-check", requirement],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          universal_newlines=True)
    importlib.invalidate_caches()
    try:
        return importlib.import_module(module)
    except ImportError:
        errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
        print("%s could not be installed (%s): its rows are skipped"
              % (requirement, errors[-1] if errors else "status %d" % done.returncode))
        return None


def cases():
    """row name -> (zero-argument callable, calls per timing)."""
    clock = monostamp.Clock()
    rows = {
        "monostamp.uuid7()": (monostamp.uuid7, 200_000),
        "Clock.uuid7()": (clock.uuid7, 200_000),
        "uuid.uuid4()": (uuid.uuid4, 50_000),
    }
    if hasattr(uuid, "uuid7"):
        rows["uuid.uuid7()"] = (uuid.uuid7, 100_000)
    uuid6 = peer("uuid6", "uuid6")
    if uuid6 is not None:
        rows["uuid6.uuid7()"] = (uuid6.uuid7, 50_000)
    uuid_utils = peer("uuid_utils", "uuid-utils")
    if uuid_utils is not None:
        compat = importlib.import_module("uuid_utils.compat")
        rows["uuid_utils.compat.uuid7()"] = (compat.uuid7, 100_000)
        rows["uuid_utils.uuid7()"] = (uuid_utils.uuid7, 200_000)
    time_ns, take = time.time_ns, monostamp.take
    rows["[time.time_ns() for _ in range(10**6)]"] = (
        lambda: [time_ns() for _ in range(10**6)], 1)
    rows["monostamp.take(10**6)"] = (lambda: take(10**6), 20_000)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rows = cases()
    best = {name: float("inf") for name in rows}
    for _ in range(args.repeat):
        for name, (func, number) in rows.items():
            seconds = timeit.timeit(func, number=number)
            best[name] = min(best[name], seconds / number * 1e9)
    print("%s, monostamp %s" % (sys.version.split()[0], monostamp.__version__))
    print("%-42s %14s" % ("ns per call (min of %d)" % args.repeat, ""))
    for name, ns in best.items():
        print("  %-40s %14.1f" % (name, ns))
    print("ratios (same run)")
    for label, num, den, target, way in TARGETS:
        if num not in best or den not in best:
            print("  %-48s  skipped (a peer is missing)" % label)
            continue
        ratio = best[num] / best[den]
        met = ratio <= target if way == "<=" else ratio >= target
        print("  %-48s %10.2f   target %s %g: %s" % (label, ratio, way, target,
                                                      "met" if met else "MISSED"))


if __name__ == "__main__":
    main()
