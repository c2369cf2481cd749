"""make test-perf: monostamp's hot paths against their anchors, counted.

    python3 tests/perf/gate.py --build BUILD [--site DIR] [--only python,c,lua,timed]

Each path runs as users write it (a module attribute, not a local alias)
in a list comprehension of N calls, beside its anchor in the same
interpreter: callgrind counts the instructions of each loop alone
(cg_marks.c zeroes and dumps its counters around it), the empty loop's
count is taken off both, and ours / anchor is held to the limit of that
path in tests/perf/limits.json, the one file of limits.  Instruction counts
do not depend on the machine's load, so the gate gives the same answer on
a busy machine.

Where the interpreter's work is small beside the clock read (the C paths,
Lua's now() and time_ns(), the preload's clock_gettime), the count per call
is held to the figure recorded in limits.json, plus its slack.

Paths whose anchor works in the kernel (uuid.uuid4() reads os.urandom, an
import reads files) are timed instead: interleaved rounds, the median
ratio.

--site DIR measures the monostamp package in DIR (an unpacked wheel, or
the site-packages a wheel was installed into) rather than the one
PYTHON imports.  Prints one table: path, ours, anchor, ratio, limit; exits
1 naming each path over its limit.  Needs valgrind and a C compiler.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIMITS = os.path.join(HERE, "limits.json")
N = 20000  # calls per counted loop: the count per call is exact to 0.01 at this size

# name: (ours, anchor, set-up run before both); each a statement as users
# write it.  The patched rows' anchor is the same call before the patch.
PY_CASES = [
    ("monostamp.time_ns()", "monostamp.time_ns()", "time.time_ns()", ""),
    ("monostamp.now()", "monostamp.now()", "time.time_ns()", ""),
    ("Stamp.isoformat()", "stamp.isoformat()", "aware.isoformat()", ""),
    ("Stamp + timedelta", "stamp + delta", "aware + delta", ""),
    ("Stamp - timedelta", "stamp - delta", "aware - delta", ""),
    ("patched datetime.now()", "datetime.now()", "datetime.now()", "patch"),
    ("patched time.time_ns()", "time.time_ns()", "time.time_ns()", "patch"),
]


def child(marks, site):
    """Runs under callgrind: every loop of PY_CASES between a zero and a dump."""
    import ctypes
    import time
    from datetime import datetime, timedelta, timezone

    sys.path.insert(0, site)
    import monostamp

    lib = ctypes.CDLL(marks)
    # The same instant both ways; the datetime's offset a timezone (C), as
    # datetime.now(timezone.utc) and fromisoformat() give, not a zone
    # whose utcoffset() runs Python code.
    stamp = monostamp.Stamp(1700000000123456789, 3600)
    aware = datetime(2023, 11, 14, 23, 13, 20, 123456, tzinfo=timezone(timedelta(hours=1)))
    g = {"monostamp": monostamp, "time": time, "datetime": datetime,
         "stamp": stamp, "aware": aware, "delta": timedelta(seconds=1, microseconds=5)}

    def count(name, stmt):
        code = compile("[%s for _ in r]" % stmt, "<%s>" % name, "eval")
        g["r"] = range(2000)
        eval(code, g)  # warm: the interpreter specialises the loop's instructions
        g["r"] = range(N)
        lib.perf_zero()
        eval(code, g)
        lib.perf_dump(name.encode())

    count("empty", "None")
    for name, ours, anchor, setup in PY_CASES:
        if setup == "patch":
            count(name + "|anchor", anchor)
            p = monostamp.patch()
            p.start()
            count(name + "|ours", ours)
            p.stop()
        else:
            count(name + "|anchor", anchor)
            count(name + "|ours", ours)


def callgrind(argv, env=None):
    """{dump name: instructions} of a run whose program dumps by name."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
                             + argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        if run.returncode != 0:
            raise SystemExit("perf gate: %s failed under callgrind:\n%s%s"
                             % (" ".join(argv), run.stdout, run.stderr[-3000:]))
        counts = {}
        for name in os.listdir(tmp):
            with open(os.path.join(tmp, name)) as f:
                text = f.read()
            desc = re.search(r"^desc: Trigger: Client Request: (.*)$", text, re.M)
            total = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
            if desc and total:
                counts[desc.group(1).strip()] = int(total.group(1))
            elif total and name == "cg.out":
                counts["_total"] = int(total.group(1))
        return counts


def clean_env(**more):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MONOSTAMP_", "PYTHON", "LD_PRELOAD"))}
    env.update(PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1", **more)
    return env


def cc(out, sources, *flags):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-D_POSIX_C_SOURCE=200809L",
                    "-D_DEFAULT_SOURCE", "-O2", "-Wall", "-Wextra", "-Werror"] + sources
                   + list(flags) + ["-o", out], check=True)


def python_rows(python, build, site):
    marks = os.path.join(build, "perf", "libcgmarks.so")
    cc(marks, [os.path.join(HERE, "cg_marks.c")], "-shared", "-fPIC")
    counts = callgrind([python, "-S", os.path.abspath(__file__), "--child", marks, site or ""],
                       env=clean_env())
    empty = counts["empty"] / N
    rows = []
    for name, ours, anchor, _ in PY_CASES:
        o = counts[name + "|ours"] / N - empty
        a = counts[name + "|anchor"] / N - empty
        rows.append((name, "%.1f" % o, "%.1f (%s)" % (a, anchor if "patched" not in name
                                                     else "unpatched"), o / a))
    return rows


def c_rows(build):
    exe = os.path.join(build, "perf", "count_c")
    cc(exe, [os.path.join(HERE, "count_c.c"), os.path.join(build, "plain", "libcore.a")],
       "-I" + os.path.join(ROOT, "csrc"), "-lpthread", "-ldl")
    counts = callgrind([exe, "stamps", str(N)], env=clean_env(TZ="UTC"))
    preload = os.path.join(build, "libmonostamp_preload.so")
    counts.update(callgrind([exe, "gettime", str(N)],
                            env=clean_env(LD_PRELOAD=os.path.abspath(preload))))
    # A µs reader's call made alone, on a state file (bench_preload's row).
    with tempfile.TemporaryDirectory() as tmp:
        counts.update(callgrind([exe, "spaced", str(N)],
                                env=clean_env(LD_PRELOAD=os.path.abspath(preload),
                                              MONOSTAMP_GRAIN="us",
                                              MONOSTAMP_SHARED=os.path.join(tmp, "state"))))
    # The loop's own instructions (2 a turn; the spaced loop's toggles of
    # the collection, 8) are left in: the recorded figures were taken the
    # same way.
    return [(name, "%.1f" % (counts[name] / N), "recorded", counts[name] / N)
            for name in ("c_private", "c_file", "c_coarse", "c_default",
                         "preload_clock_gettime", "preload_clock_gettime_us")]


def lua_rows(build, lua):
    env = clean_env(LUA_CPATH=os.path.join(os.path.abspath(build), "lua", "?.so") + ";;",
                    LUA_PATH=os.path.join(ROOT, "bindings", "lua", "?.lua") + ";;")
    script = os.path.join(HERE, "count_lua.lua")
    rows = []
    for what in ("now", "time_ns"):
        # Lua seeds its string hashes from an address and the time, so a
        # run's table lookups can collide more than another's, which only
        # ever adds instructions (344 in most runs here, 353-380 in some):
        # the fewest of five differences.
        per = min(
            (callgrind([lua, script, what, str(2 * N)], env=env)["_total"]
             - callgrind([lua, script, what, str(N)], env=env)["_total"]) / N
            for _ in range(5))
        rows.append(("lua_" + what, "%.1f" % per, "recorded", per))
    return rows


TIMER = ("import sys, time; sys.path.insert(0, {site!r}); t = time.process_time_ns(); "
         "import {module}; print(time.process_time_ns() - t)")
UUID_TIMER = """
import sys, time, uuid
sys.path.insert(0, {site!r})
import monostamp
def loop(f, n=5000):
    t = time.perf_counter_ns()
    for _ in range(n):
        f()
    return time.perf_counter_ns() - t
ours, theirs = [], []
for i in range(31):
    pair = [(ours, monostamp.uuid7), (theirs, uuid.uuid4)]
    for acc, f in (pair if i % 2 else pair[::-1]):
        acc.append(loop(f) / 5000)
print(" ".join("%.1f" % v for v in ours))
print(" ".join("%.1f" % v for v in theirs))
"""


def bare_python(python, build):
    """A venv without pip and without the machine's site-packages, whose
    .pth files would be timed too (some import enum and re at start)."""
    root = os.path.join(os.path.abspath(build), "perf", "bare-venv")
    exe = os.path.join(root, "bin", "python")
    if not os.path.exists(exe):
        subprocess.run([python, "-m", "venv", "--without-pip", root], check=True)
    return exe


def timed_rows(python, build, site):
    bare = bare_python(python, build)
    # Byte-compiled, as pip leaves an install (an unpacked wheel is not):
    # else every run would compile the package's source, datetime's never.
    subprocess.run([bare, "-m", "compileall", "-q", os.path.join(site, "monostamp")], check=True)
    times = {"monostamp": [], "datetime": []}
    for i in range(31):  # interleaved, the order alternating: load falls on both alike
        for module in (("monostamp", "datetime") if i % 2 else ("datetime", "monostamp")):
            out = subprocess.run([bare, "-c", TIMER.format(site=site, module=module)],
                                 check=True, stdout=subprocess.PIPE, universal_newlines=True,
                                 env=clean_env(), cwd="/")
            times[module].append(int(out.stdout))
    ours, theirs = statistics.median(times["monostamp"]), statistics.median(times["datetime"])
    rows = [("import monostamp", "%.0f us" % (ours / 1e3), "%.0f us (import datetime)"
             % (theirs / 1e3), ours / theirs)]
    out = subprocess.run([python, "-c", UUID_TIMER.format(site=site)], check=True,
                         stdout=subprocess.PIPE, universal_newlines=True, env=clean_env(),
                         cwd="/").stdout.split("\n")
    ours, theirs = ([float(v) for v in line.split()] for line in out[:2])
    ratio = statistics.median(o / t for o, t in zip(ours, theirs))
    rows.append(("monostamp.uuid7()", "%.0f ns" % statistics.median(ours),
                 "%.0f ns (uuid.uuid4())" % statistics.median(theirs), ratio))
    return rows


def limit_of(limits, name):
    entry = limits[name]
    if "ratio" in entry:
        return entry["ratio"], "%.2f" % entry["ratio"]
    top = entry["instructions"] * (1 + entry["slack"])
    return top, "%.1f (%g +%g%%)" % (top, entry["instructions"], entry["slack"] * 100)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--site", default="", help="a folder holding the monostamp package")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--lua", default="lua5.4")
    ap.add_argument("--limits", default=LIMITS)
    ap.add_argument("--only", default="python,c,lua,timed")
    args = ap.parse_args(argv)
    with open(args.limits) as f:
        limits = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
    if args.site:
        site = os.path.abspath(args.site)
    else:  # the package PYTHON imports, from the folder that holds it
        site = subprocess.run([args.python, "-c", "import monostamp, os; print(os.path.dirname("
                               "os.path.dirname(monostamp.__file__)))"], check=True,
                              stdout=subprocess.PIPE, universal_newlines=True,
                              env=clean_env(), cwd="/").stdout.strip()
    parts = args.only.split(",")
    rows = []
    if "python" in parts:
        rows += python_rows(args.python, args.build, site)
    if "c" in parts:
        rows += c_rows(args.build)
    if "lua" in parts:
        rows += lua_rows(args.build, args.lua)
    if "timed" in parts:
        rows += timed_rows(args.python, args.build, site)
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version.split()[0])"],
                             stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    print("perf gate: Python %s, the package in %s; instructions per call (callgrind, %d calls, the empty loop "
          "taken off), or timed where the anchor works in the kernel"
          % (version, site, N))
    print("| path | ours | anchor | ratio | limit |")
    print("|---|---:|---:|---:|---:|")
    over = []
    for name, ours, anchor, ratio in rows:
        top, shown = limit_of(limits, name)
        recorded = anchor == "recorded"
        print("| %s | %s | %s | %s | %s |" % (
            name, ours, "" if recorded else anchor, "" if recorded else "%.3f" % ratio, shown))
        if ratio > top:
            over.append(name)
    for name in over:
        print("perf gate: %s is over its limit (tests/perf/limits.json)" % name)
    return 1 if over else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main(sys.argv[1:]))
