"""Instructions per call of the Python binding's public calls, counted by
callgrind, for one or more builds side by side (a build: a directory that
holds an unpacked `monostamp` package, as `pip install --target` makes it).

    python3 bench/python/instructions.py OLD_DIR NEW_DIR

For each call: one interpreter runs the call N times, another 2N times;
the difference over N is the call's own count (start-up, imports and the
loop's set-up cancel out).  Instruction counts do not depend on what else
the machine is doing, so two builds compare on a busy machine; the last
column is each build's count over the first's.  Needs valgrind.
"""
import os
import re
import subprocess
import sys
import tempfile

N = 2000

# name, set-up, the call; run with the build first on sys.path.
CASES = [
    ("now()", "import monostamp as m", "m.now()"),
    ("time_ns()", "import monostamp as m", "m.time_ns()"),
    ("time()", "import monostamp as m", "m.time()"),
    ("now_datetime()", "import monostamp as m", "m.now_datetime()"),
    ("uuid7()", "import monostamp as m", "m.uuid7()"),
    ("Clock.now(), shared file",
     "import monostamp as m, tempfile, os\n"
     "c = m.Clock(shared=os.path.join(tempfile.mkdtemp(), 's'))", "c.now()"),
    ("Stamp.isoformat()", "import monostamp as m\ns = m.Stamp(1700000000123456789, 3600)",
     "s.isoformat()"),
    ("Stamp.datetime()", "import monostamp as m\ns = m.Stamp(1700000000123456789, 3600)",
     "s.datetime()"),
    ("Stamp.fromisoformat()", "import monostamp as m",
     "m.Stamp.fromisoformat('2023-11-14T23:13:20.123456789+01:00')"),
    ("patched time.time()", "import monostamp as m, time\nm.patch().start()", "time.time()"),
    ("patched datetime.now()",
     "import monostamp as m, datetime\nm.patch().start()", "datetime.datetime.now()"),
]


def program(site, setup, call, n):
    return ("import sys\nsys.path.insert(0, %r)\n%s\nfor _ in range(%d):\n    %s\n"
            % (site, setup, n, call))


def count(site, setup, call, n):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        script = os.path.join(tmp, "case.py")
        with open(script, "w") as f:
            f.write(program(site, setup, call, n))
        env = dict(os.environ, PYTHONHASHSEED="0", TZ="UTC", MONOSTAMP_PATCH="")
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        sys.executable, script], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            text = f.read()
    m = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    if m is None:
        raise SystemExit("no total in callgrind's output for %s" % call)
    return int(m.group(1))


def main(argv):
    sites = [os.path.abspath(d) for d in argv[1:]]
    if not sites or not all(os.path.isdir(os.path.join(d, "monostamp")) for d in sites):
        raise SystemExit(__doc__)
    print("instructions per call (callgrind, %d and %d calls), %s" % (N, 2 * N, sys.version.split()[0]))
    print("| call | " + " | ".join(sites) + "".join(" | /first" for _ in sites[1:]) + " |")
    for name, setup, call in CASES:
        per = []
        for site in sites:
            one, two = count(site, setup, call, N), count(site, setup, call, 2 * N)
            per.append((two - one) / N)
        cells = ["%.0f" % p for p in per] + ["%.3f" % (p / per[0]) for p in per[1:]]
        print("| %s | %s |" % (name, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main(sys.argv)
