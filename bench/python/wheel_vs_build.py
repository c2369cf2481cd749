"""Is a wheel from make dist (zig's clang, glibc 2.17) as fast as the
extension the machine's compiler builds?  bench.py's calls, timed under
two interpreters that import the two builds, in alternating rounds.

    python3 bench/python/wheel_vs_build.py WHEEL_PYTHON BUILD_PYTHON [ROUNDS]

WHEEL_PYTHON and BUILD_PYTHON are the pythons of two venvs of one CPython:
one with the wheel installed (pip install --no-index DIST/...whl), one with
`pip install .`.  Each round runs `bench.py --no-sampling` once under each,
in turn (which goes first alternates); a row's figure is its minimum over
the rounds (the least disturbed), and the last column divides the wheel's
by the build's: within noise when near 1.  bench.py's own ratios (each
against time.time_ns() of the same run) are printed for both, as medians.
Not a test: nothing here asserts.
"""
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROW = re.compile(r"^(\S.*?)\s{2,}(\d+\.\d+)$")
RATIO = re.compile(r"^(\S.*?)\s{2,}(\d+\.\d+)\s+\(target")


def run(python):
    out = subprocess.run([python, os.path.join(HERE, "bench.py"), "--no-sampling"],
                         cwd="/", capture_output=True, text=True, check=True).stdout
    rows, ratios = {}, {}
    for line in out.splitlines():
        m = RATIO.match(line)
        if m:
            ratios[m.group(1)] = float(m.group(2))
            continue
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = float(m.group(2))
    return rows, ratios


def main(wheel, build, rounds=5):
    pythons = {"wheel": wheel, "build": build}
    rows = {k: {} for k in pythons}
    ratios = {k: {} for k in pythons}
    for r in range(rounds):
        order = ["wheel", "build"] if r % 2 == 0 else ["build", "wheel"]
        for k in order:
            got, rat = run(pythons[k])
            for name, ns in got.items():
                rows[k][name] = min(ns, rows[k].get(name, ns))
            for name, v in rat.items():
                ratios[k].setdefault(name, []).append(v)
        print("round %d of %d done" % (r + 1, rounds), file=sys.stderr)
    print("%d rounds; ns/call, the minimum over the rounds" % rounds)
    print("%-36s %9s %9s %13s" % ("call", "wheel", "build", "wheel/build"))
    for name in rows["build"]:
        if name in rows["wheel"]:
            w, b = rows["wheel"][name], rows["build"][name]
            print("%-36s %9.1f %9.1f %13.2f" % (name, w, b, w / b))
    print()
    print("bench.py's ratios, the median over the rounds")
    print("%-50s %7s %7s" % ("ratio", "wheel", "build"))
    for name in ratios["build"]:
        if name in ratios["wheel"]:
            print("%-50s %7.2f %7.2f" % (name, statistics.median(ratios["wheel"][name]),
                                         statistics.median(ratios["build"][name])))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:]))
