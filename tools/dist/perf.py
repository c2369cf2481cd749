"""tools/dist/perf.py: make test-dist's speed check of a wheel against the
build a user gets from the same sources with this machine's compiler.

    python3 tools/dist/perf.py BUILD WHEEL_PYTHON BUILT_PYTHON

WHEEL_PYTHON's venv has a wheel of make dist installed, BUILT_PYTHON's
(the same CPython) the sdist that pip built here.  The perf gate
(tests/perf/gate.py --only python) counts each Python path under
callgrind, beside its anchor in the same interpreter, once for each; a
path's ratio to its anchor in the wheel is held to the built one's plus
SLACK, and the gate's own limits (tests/perf/limits.json) to the wheel as
well.  Ratios, not counts, are compared: the same extension counts up to
2.5 % apart in two interpreters whose heaps differ (a list's growth is
copied or not), and its anchor moves with it.  Prints one table; exits 1
naming each path over.  Needs valgrind and a C compiler (the gate's).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GATE = os.path.join(ROOT, "tests", "perf", "gate.py")
# Two builds of one compiler and flags differed by up to 0.9 % here (the
# anchors' own drift); the zig-built wheels were 3-5 % over.
SLACK = 0.02
ROW = re.compile(r"^\| (.+?) \| ([\d.]+) \| ([\d.]+) \(.*?\) \| ([\d.]+) \| ([\d.]+) \|$")


def site_of(python):
    return subprocess.run([python, "-c", "import monostamp, os; print(os.path.dirname("
                           "os.path.dirname(monostamp.__file__)))"], check=True, cwd="/",
                          stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()


def gate(build, python):
    """({path: (ours, anchor, ratio)}, the gate's exit status, its output)."""
    run = subprocess.run([sys.executable, GATE, "--build", build, "--python", python,
                          "--only", "python", "--site", site_of(python)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    rows = {}
    for line in run.stdout.splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))
    if not rows:
        raise SystemExit("dist-perf: the gate printed no table:\n" + run.stdout)
    return rows, run.returncode, run.stdout


def main(build, wheel_python, built_python):
    wheel, wheel_rc, wheel_out = gate(build, wheel_python)
    built, _, _ = gate(build, built_python)
    print("dist-perf: instructions per call (callgrind), the wheel against the sdist built here;"
          " a path's ratio to its anchor may be at most %d %% over the built one's" % (SLACK * 100))
    print("| path | wheel | ratio | built here | ratio | wheel / built |")
    print("|---|---:|---:|---:|---:|---:|")
    over = []
    for name, (ours, _, ratio) in wheel.items():
        b_ours, _, b_ratio = built[name]
        rel = ratio / b_ratio
        print("| %s | %.1f | %.3f | %.1f | %.3f | %.3f |"
              % (name, ours, ratio, b_ours, b_ratio, rel))
        if rel > 1 + SLACK:
            over.append(name)
    for name in over:
        print("dist-perf: %s: the wheel is more than %d %% slower than the build here"
              % (name, SLACK * 100))
    if wheel_rc != 0:
        print(wheel_out)
        print("dist-perf: the wheel is over the gate's own limits (tests/perf/limits.json)")
    return 1 if over or wheel_rc != 0 else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
