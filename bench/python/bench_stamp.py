"""Benchmarks Stamp's datetime API against the matching datetime operations, in one run.

    python bench/python/bench_stamp.py [--repeat N] [--quick]

It benchmarks the installed monostamp package; it is not part of it.
Each row times a Stamp operation and the datetime operation a user would
write instead, on the same instant, both in this run (interleaved, the
minimum of the repeats kept, as bench.py does), and prints their ratio.
Four rows have targets: Stamp.datetime() against
datetime.fromtimestamp(t, tz), Stamp.fromdatetime(d) against
d.timestamp(), and s + timedelta and s - timedelta against datetime's own
d + timedelta and d - timedelta; the others are there to compare.  Not a test: nothing
here asserts.
"""
import argparse
import datetime
import os
import sys
import zoneinfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import measure  # noqa: E402  (the same timing loop as bench.py)

import monostamp  # noqa: E402

ZONE = "Europe/Berlin"

#: (label, Stamp case, datetime case, target or None): ratio = Stamp / datetime.
ROWS = [
    ("Stamp.datetime() / datetime.fromtimestamp(t, tz)",
     "Stamp.datetime()", "datetime.fromtimestamp(t, tz)", 1.0),
    ("Stamp.fromdatetime(d) / d.timestamp()",
     "Stamp.fromdatetime(d)", "d.timestamp()", 1.0),
    ("Stamp.fromdatetime(d zoneinfo) / d.timestamp()",
     "Stamp.fromdatetime(dz)", "dz.timestamp()", None),
    ("Stamp.fromtimestamp(t, 'UTC') / datetime.fromtimestamp(t, utc)",
     "Stamp.fromtimestamp(t, 'UTC')", "datetime.fromtimestamp(t, utc)", None),
    ("s + 1000 (int ns) / d + timedelta",
     "s + 1000", "d + timedelta", None),
    ("s + timedelta / d + timedelta",
     "s + timedelta", "d + timedelta", 1.0),
    ("s - timedelta / d - timedelta",
     "s - timedelta", "d - timedelta", 1.0),
    ("s2 - s1 (int ns) / d2 - d1 (timedelta)",
     "s2 - s1", "d2 - d1", None),
    ("s.astimezone('%s') / d.astimezone(ZoneInfo)" % ZONE,
     "s.astimezone(name)", "d.astimezone(ZoneInfo)", None),
    ("s.astimezone(ZoneInfo) / d.astimezone(ZoneInfo)",
     "s.astimezone(ZoneInfo)", "d.astimezone(ZoneInfo)", None),
    ("s.astimezone(timezone) / d.astimezone(timezone)",
     "s.astimezone(timezone)", "d.astimezone(timezone)", None),
    ("s.isoformat(timespec='milliseconds') / d.isoformat(...)",
     "s.isoformat(timespec=)", "d.isoformat(timespec=)", None),
]


def cases():
    """name -> (statement, globals)."""
    s = monostamp.Stamp(1796224280123456789, 3600)  # 2026-12-02T16:11:20.123456789+01:00
    s1 = s - 10**9
    tz = datetime.timezone(datetime.timedelta(seconds=s.offset))
    d = s.datetime()
    d1 = s1.datetime()
    zi = zoneinfo.ZoneInfo(ZONE)
    dz = d.astimezone(zi)
    t = s.timestamp()
    delta = datetime.timedelta(microseconds=1)
    utc = datetime.timezone.utc
    minus3 = datetime.timezone(datetime.timedelta(hours=-3))
    Stamp = monostamp.Stamp
    dt = datetime.datetime
    return {
        "Stamp.datetime()": ("f()", {"f": s.datetime}),
        "datetime.fromtimestamp(t, tz)": ("f(t, tz)", {"f": dt.fromtimestamp, "t": t, "tz": tz}),
        "Stamp.fromdatetime(d)": ("f(d)", {"f": Stamp.fromdatetime, "d": d}),
        "d.timestamp()": ("f()", {"f": d.timestamp}),
        "Stamp.fromdatetime(dz)": ("f(d)", {"f": Stamp.fromdatetime, "d": dz}),
        "dz.timestamp()": ("f()", {"f": dz.timestamp}),
        "Stamp.fromtimestamp(t, 'UTC')": ("f(t, 'UTC')", {"f": Stamp.fromtimestamp, "t": t}),
        "datetime.fromtimestamp(t, utc)": ("f(t, utc)",
                                           {"f": dt.fromtimestamp, "t": t, "utc": utc}),
        "s + 1000": ("s + 1000", {"s": s}),
        "s + timedelta": ("s + x", {"s": s, "x": delta}),
        "d + timedelta": ("d + x", {"d": d, "x": delta}),
        "s - timedelta": ("s - x", {"s": s, "x": delta}),
        "d - timedelta": ("d - x", {"d": d, "x": delta}),
        "s2 - s1": ("s - s1", {"s": s, "s1": s1}),
        "d2 - d1": ("d - d1", {"d": d, "d1": d1}),
        "s.astimezone(name)": ("f(z)", {"f": s.astimezone, "z": ZONE}),
        "s.astimezone(ZoneInfo)": ("f(z)", {"f": s.astimezone, "z": zi}),
        "d.astimezone(ZoneInfo)": ("f(z)", {"f": d.astimezone, "z": zi}),
        "s.astimezone(timezone)": ("f(z)", {"f": s.astimezone, "z": minus3}),
        "d.astimezone(timezone)": ("f(z)", {"f": d.astimezone, "z": minus3}),
        "s.isoformat(timespec=)": ("f(timespec='milliseconds')", {"f": s.isoformat}),
        "d.isoformat(timespec=)": ("f(timespec='milliseconds')", {"f": d.isoformat}),
    }


def run(repeat=15, out=sys.stdout):
    table = cases()
    best = {name: float("inf") for name in table}
    # Interleaved, as bench.py: a slow spell of the machine hits every case.
    for _ in range(3):
        for name, (stmt, env) in table.items():
            best[name] = min(best[name], measure(stmt, env, max(1, repeat // 3)))
    print("monostamp %s, Python %s, %s" % (
        monostamp.__version__, sys.version.split()[0], sys.platform), file=out)
    print("", file=out)
    print("| Stamp | ns | datetime | ns | ratio | target |", file=out)
    print("|---|---:|---|---:|---:|---|", file=out)
    for label, num, den, target in ROWS:
        ratio = best[num] / best[den]
        verdict = "" if target is None else "<= %.2f: %s" % (
            target, "met" if ratio <= target else "MISSED")
        print("| `%s` | %.0f | `%s` | %.0f | %.2f | %s |" % (
            num, best[num], den, best[den], ratio, verdict), file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench/python/bench_stamp.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="timing runs per case")
    parser.add_argument("--quick", action="store_true", help="3 runs per case")
    args = parser.parse_args(argv)
    run(3 if args.quick else args.repeat)
    return 0  # a benchmark reports; it does not fail the build


if __name__ == "__main__":
    sys.exit(main())
