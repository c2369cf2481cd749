"""Sleep lateness measured from Python, in fresh processes.

    python bench/python/bench_sleep.py          # 8 runs per length
    MONOSTAMP_BENCH_QUICK=1 python ...          # 3 runs, fewer samples
    MONOSTAMP_FRESH_RUNS=n python ...           # n runs

For each length (1 us, 300 us, 3 ms, 30 ms) the parent starts its own
script once per run, so every child begins with nothing learned, as a
user's program does.  The child sleeps the length S times by two methods,
interleaved sample by sample with the order alternating (the machine's
noise falls on both alike):

  finish  monostamp.sleep(x, 0) as shipped: the core sleeps to a learned
          lead, a Python spin ends the sleep (monostamp/_sleep.py);
  core    the same call with the finish unregistered: the core alone, the
          path every sleep took before (the baseline).

Lateness = time.monotonic_ns() after the call - (time.monotonic_ns()
before it + x): what the caller's own code sees.  CPU = the process's CPU
time (time.process_time_ns) over the call: the core's spin, the Python
spin and the system calls.  Printed per length and method: median and p99
(nearest rank) over all samples, the range of the runs' medians, the
median of each process's first 5 sleeps, early samples (must be 0), CPU
us per sleep; and the ratio core median / finish median.

No assertion: the figures are printed; a run on a busy machine is noisy,
so the load average is printed before and after.
"""
import os
import subprocess
import sys
import time

LENGTHS_US = (1, 300, 3000, 30000)
SAMPLES = {False: (200, 200, 100, 30), True: (100, 100, 50, 15)}
FIRST = 5
METHODS = ("finish", "core")


def child(length_us, n):
    import monostamp
    from monostamp import _monostamp, _sleep

    now, cpu = time.monotonic_ns, time.process_time_ns
    sleep, register = monostamp.sleep, _monostamp._sleep_finish
    finish = _sleep._finish
    x = length_us / 1e6
    length_ns = length_us * 1000
    out = []
    for s in range(n):
        for k in range(2):
            m = (s + k) % 2  # alternate which goes first
            register(finish if m == 0 else None)
            c0 = cpu()
            t0 = now()
            sleep(x, 0)
            t1 = now()
            c1 = cpu()
            out.append("%d %d %d %d" % (m, s, t1 - (t0 + length_ns), c1 - c0))
    register(finish)
    print("\n".join(out))


def rank(sorted_values, pct):
    return sorted_values[max(1, (pct * len(sorted_values) + 99) // 100) - 1]


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def load():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main():
    quick = os.environ.get("MONOSTAMP_BENCH_QUICK") == "1"
    runs = int(os.environ.get("MONOSTAMP_FRESH_RUNS") or (3 if quick else 8))
    per_run = SAMPLES[quick]
    print("load average before: %s (%d CPUs)" % (load(), os.cpu_count() or 0))
    print("Python %s; %d fresh processes per length, each monostamp.sleep(x, 0) with and "
          "without the finish, interleaved; samples per process: %s"
          % (sys.version.split()[0], runs, " / ".join(map(str, per_run))))
    acc = {(l, m): {"late": [], "cpu": [], "first": [], "medians": []}
           for l in LENGTHS_US for m in range(2)}
    for _ in range(runs):  # runs outermost: a noisy minute spreads over every length
        for l, n in zip(LENGTHS_US, per_run):
            done = subprocess.run([sys.executable, os.path.abspath(__file__), "child", str(l), str(n)],
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                sys.exit("child for %d us failed:\n%s" % (l, done.stderr))
            this = {0: [], 1: []}
            for line in done.stdout.splitlines():
                m, s, late, cpu = map(int, line.split())
                a = acc[(l, m)]
                a["late"].append(late)
                a["cpu"].append(cpu)
                this[m].append(late)
                if s < FIRST:
                    a["first"].append(late)
            for m in (0, 1):
                acc[(l, m)]["medians"].append(median(this[m]))

    print("\nLateness in us measured from Python in a fresh process; median and p99 over every "
          "sample, the range of the %d runs' medians, the median of each process's first %d "
          "sleeps; early = samples before the deadline.\n" % (runs, FIRST))
    print("| requested (us) | method | samples | median | p99 | run medians | first %d median "
          "| early | CPU us/sleep |" % FIRST)
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    summary = []
    for l in LENGTHS_US:
        meds = {}
        for m in (0, 1):
            a = acc[(l, m)]
            late = sorted(a["late"])
            meds[m] = median(late) / 1000
            print("| %d | %s | %d | %.1f | %.1f | %.1f–%.1f | %.1f | %d | %.1f |" % (
                l, METHODS[m], len(late), meds[m], rank(late, 99) / 1000,
                min(a["medians"]) / 1000, max(a["medians"]) / 1000, median(a["first"]) / 1000,
                sum(1 for v in late if v < 0), sum(a["cpu"]) / len(a["cpu"]) / 1000))
        summary.append("%d us: median %.1f us (core alone %.1f us, %.1fx)" % (
            l, meds[0], meds[1], meds[1] / meds[0] if meds[0] > 0 else float("inf")))
    print("\nfinish against the core alone, median lateness:")
    for line in summary:
        print("  " + line)
    print("load average after: %s" % load())


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "child":
        child(int(sys.argv[2]), int(sys.argv[3]))
    else:
        main()
