"""Sleep lateness from Python and from Lua side by side, in one run.

    python bench/python/sleep_side_by_side.py LUA LUA_CPATH LUA_PATH
    MONOSTAMP_BENCH_QUICK=1 ...     # 3 runs, fewer samples
    MONOSTAMP_FRESH_RUNS=n ...      # n runs (default 8)

The children are bench/python/bench_sleep.py (under this interpreter, which
must import this checkout's monostamp) and bench/lua/bench_sleep.lua (under
LUA, over the C module that LUA_CPATH finds): each sleeps one length S
times in a fresh process, monostamp.sleep(x, 0) / sleep_ns(x, 0) as shipped
(the finish in the host language) interleaved with the core alone.  For
each run, each length (1 us, 300 us, 3 ms, 30 ms) gets one Python and one
Lua child, the order alternating from run to run, so the machine's noise
falls on both bindings alike.

Lateness = the host's monotonic reading after the call - (its reading
before + x): what the caller's code sees.  Printed, one row per length,
over the finish's samples of every run: the median and p90 (nearest rank)
for Python and for Lua, Python's median less Lua's, and the samples that
woke early (must be 0).  No assertion: the load average is printed before
and after, as a busy machine is noisy.
"""
import os
import subprocess
import sys

# The same statistics and load line as the children's own report.
from bench_sleep import load, median, rank  # noqa: E402  (beside this file)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LENGTHS_US = (1, 300, 3000, 30000)
SAMPLES = {False: (200, 200, 100, 30), True: (100, 100, 50, 15)}
BINDINGS = ("Python", "Lua")


def child(binding, length_us, n, lua, lua_env):
    """The finish's lateness samples (ns) of one fresh child."""
    if binding == "Python":
        argv = [sys.executable, os.path.join(HERE, "bench_sleep.py")]
        env = None
    else:
        argv = [lua, os.path.join(ROOT, "bench", "lua", "bench_sleep.lua")]
        env = dict(os.environ, **lua_env)
    done = subprocess.run(argv + ["child", str(length_us), str(n)], cwd="/", env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        sys.exit("%s child for %d us failed:\n%s" % (binding, length_us, done.stderr))
    late = [int(line.split()[2]) for line in done.stdout.splitlines()
            if line.split() and line.split()[0] == "0"]
    if len(late) != n:
        sys.exit("%s child for %d us gave %d samples, not %d" % (binding, length_us, len(late), n))
    return late


def main(lua, lua_cpath, lua_path):
    quick = os.environ.get("MONOSTAMP_BENCH_QUICK") == "1"
    runs = int(os.environ.get("MONOSTAMP_FRESH_RUNS") or (3 if quick else 8))
    per_run = SAMPLES[quick]
    lua_env = {"LUA_CPATH": lua_cpath, "LUA_PATH": lua_path}
    print("load average before: %s (%d CPUs)" % (load(), os.cpu_count() or 0))
    print("Python %s and %s; %d runs, each a fresh Python and a fresh Lua process per length, "
          "the order alternating; samples per process: %s"
          % (sys.version.split()[0], lua, runs, " / ".join(map(str, per_run))))
    late = {(b, l): [] for b in BINDINGS for l in LENGTHS_US}
    for r in range(runs):
        order = BINDINGS if r % 2 == 0 else BINDINGS[::-1]
        for l, n in zip(LENGTHS_US, per_run):
            for b in order:
                late[(b, l)] += child(b, l, n, lua, lua_env)
    print("\nLateness in us of monostamp.sleep(x, 0) (Python) and sleep_ns(x, 0) (Lua) as the "
          "caller sees it, fresh processes; median and p90 over every sample.\n")
    print("| requested | Python median | Python p90 | Lua median | Lua p90 "
          "| Python - Lua (median) | early |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for l in LENGTHS_US:
        py, lu = sorted(late[("Python", l)]), sorted(late[("Lua", l)])
        label = "%d us" % l if l < 1000 else "%d ms" % (l // 1000)
        print("| %s | %.1f | %.1f | %.1f | %.1f | %+.1f | %d |" % (
            label, median(py) / 1e3, rank(py, 90) / 1e3, median(lu) / 1e3, rank(lu, 90) / 1e3,
            (median(py) - median(lu)) / 1e3, sum(1 for v in py + lu if v < 0)))
    print("load average after: %s" % load())


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
