"""Benchmarks `python -m monostamp`: stamps per second and peak memory.

    python bench/python/bench_cli.py [--count N] [--repeat R] [--against FILE]

It runs the installed package's command line with its output sent to
/dev/null, once per form (--ns, ISO text, --uuid7) and round, and prints
stamps per second (the best round: the least disturbed one) and the
child's peak RSS (from wait4, so no other process is counted).  The time
includes the interpreter's start, about 1/20 s, small beside 10**6 stamps.

--against FILE times another version of the command line, the same way
and taking turns with this one within each round, and prints the ratio:
for example the last landed one,

    git show main:bindings/python/monostamp/__main__.py > /tmp/old_main.py
    python bench/python/bench_cli.py --against /tmp/old_main.py

FILE runs as a script, importing the same installed monostamp package.
Not a test: nothing here asserts.
"""
import argparse
import os
import subprocess
import sys
import time

FORMS = [("--ns", ["--ns"]), ("ISO text", []), ("--uuid7", ["--uuid7"])]


def run(command, count):
    """(seconds, peak RSS in MB) of one run of command --count count."""
    start = time.perf_counter()
    child = subprocess.Popen([*command, "--count", str(count)], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit("%s exited with %d" % (" ".join(command), child.returncode))
    return seconds, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=10**6)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--against", metavar="FILE", help="another __main__.py to time beside this one")
    args = p.parse_args()
    commands = {"this": [sys.executable, "-m", "monostamp"]}
    if args.against:
        commands["against"] = [sys.executable, args.against]
    print("%d stamps per run, best of %d rounds, Python %s"
          % (args.count, args.repeat, sys.version.split()[0]))
    print("%-10s %-8s %14s %12s" % ("form", "version", "stamps/s", "peak RSS MB"))
    for name, flags in FORMS:
        best = {v: (float("inf"), 0.0) for v in commands}
        for _ in range(args.repeat):
            for version, command in commands.items():  # taking turns
                seconds, rss = run(command + flags, args.count)
                if seconds < best[version][0]:
                    best[version] = (seconds, rss)
        for version, (seconds, rss) in best.items():
            print("%-10s %-8s %14.0f %12.1f" % (name, version, args.count / seconds, rss))
        if args.against:
            print("%-10s this / against, stamps/s: %.2f"
                  % (name, best["against"][0] / best["this"][0]))


if __name__ == "__main__":
    main()
