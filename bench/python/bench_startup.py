"""What monostamp costs a Python process's start: the MONOSTAMP_PATCH hook and the import.

    python bench/python/bench_startup.py [--rounds 40]

Needs monostamp installed for this interpreter (pip install .: the package
and monostamp-patch.pth in site-packages).  It makes two venvs of the same
base interpreter in a temporary folder, without pip and without the
machine's site-packages (whose own .pth files would be timed too): a bare
one, and one with the installed package and its .pth copied in.  Then, in
interleaved rounds (each round runs every case once, in a rotating order),
it measures the CPU time (user + system, from wait4) of

    bare venv:        python -c pass
    monostamp venv:   python -c pass                     (MONOSTAMP_PATCH unset)
    monostamp venv:   python -c pass                     (MONOSTAMP_PATCH=1)

and, in a fresh interpreter of the monostamp venv each time, the CPU time
(time.process_time_ns around the statement) of `import datetime` and of
`import monostamp`.  It prints the median of each and the ratios the
project holds itself to: unset <= 1.03x bare, MONOSTAMP_PATCH=1 <= 1.5x
bare, import monostamp <= 2x import datetime.  Not a test: nothing here
asserts; the figures go to docs/benchmarks.md.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import venv

IMPORT_TIMER = ("import time; t = time.process_time_ns(); import {}; "
                "print(time.process_time_ns() - t)")


def make_venvs(folder):
    """(bare python, monostamp python): two venvs without pip."""
    import monostamp

    package = os.path.dirname(os.path.abspath(monostamp.__file__))
    pth = os.path.join(os.path.dirname(package), "monostamp-patch.pth")
    if not os.path.exists(pth):
        sys.exit("bench_startup: %s is missing: install monostamp with pip install ." % pth)
    pythons = []
    for name in ("bare", "monostamp"):
        root = os.path.join(folder, name)
        venv.EnvBuilder(with_pip=False, symlinks=True).create(root)
        python = os.path.join(root, "bin", "python")
        pythons.append(python)
        if name == "monostamp":
            site = subprocess.check_output(
                [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                text=True).strip()
            shutil.copytree(package, os.path.join(site, "monostamp"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copy(pth, site)
            # As pip leaves an install: byte-compiled (the children may not
            # write .pyc files: PYTHONDONTWRITEBYTECODE is dropped, though).
            subprocess.check_call([python, "-m", "compileall", "-q",
                                   os.path.join(site, "monostamp")])
    return pythons


def cpu_of(command, env):
    """CPU seconds (user + system) of one run of command."""
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bench_startup: %s failed" % " ".join(command))
    return usage.ru_utime + usage.ru_stime


def import_cpu(python, module, env):
    """CPU seconds of `import module` in a fresh interpreter."""
    out = subprocess.check_output([python, "-c", IMPORT_TIMER.format(module)], env=env,
                                  text=True)
    return int(out) / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=40, help="interleaved rounds (>= 30)")
    args = parser.parse_args()

    # PYTHONDONTWRITEBYTECODE would make every child compile the package
    # anew, which no installed package does.
    env = {k: v for k, v in os.environ.items()
           if k not in ("MONOSTAMP_PATCH", "MONOSTAMP_SHARED", "PYTHONPATH",
                        "PYTHONDONTWRITEBYTECODE")}
    patched_env = dict(env, MONOSTAMP_PATCH="1")
    with tempfile.TemporaryDirectory(prefix="monostamp-bench-startup-") as folder:
        bare, with_monostamp = make_venvs(folder)
        cases = {
            "bare venv: python -c pass": lambda: cpu_of([bare, "-c", "pass"], env),
            "monostamp venv, MONOSTAMP_PATCH unset: python -c pass":
                lambda: cpu_of([with_monostamp, "-c", "pass"], env),
            "monostamp venv, MONOSTAMP_PATCH=1: python -c pass":
                lambda: cpu_of([with_monostamp, "-c", "pass"], patched_env),
            "import datetime (fresh interpreter)":
                lambda: import_cpu(with_monostamp, "datetime", env),
            "import monostamp (fresh interpreter)":
                lambda: import_cpu(with_monostamp, "monostamp", env),
        }
        names = list(cases)
        for name in names:  # warm: the .pyc files written, the files cached
            cases[name]()
        samples = {name: [] for name in names}
        for round_ in range(args.rounds):
            shift = round_ % len(names)
            for name in names[shift:] + names[:shift]:
                samples[name].append(cases[name]())
    median = {name: statistics.median(values) for name, values in samples.items()}
    print("%s %s, CPU time, medians of %d interleaved rounds" % (
        sys.implementation.name, sys.version.split()[0], args.rounds))
    for name in names:
        print("  %-58s %8.3f ms" % (name, median[name] * 1e3))
    bare_pass = median[names[0]]
    print("  ratio: MONOSTAMP_PATCH unset / bare     %.3fx  (holds at <= 1.03x)" % (
        median[names[1]] / bare_pass))
    print("  ratio: MONOSTAMP_PATCH=1 / bare         %.3fx  (holds at <= 1.5x)" % (
        median[names[2]] / bare_pass))
    print("  ratio: import monostamp / datetime      %.3fx  (holds at <= 2x)" % (
        median[names[4]] / median[names[3]]))


if __name__ == "__main__":
    main()
