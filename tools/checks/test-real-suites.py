"""Real projects' own test suites, run plainly and with --monostamp-patch.

    python3 tools/checks/test-real-suites.py [--bench N] [PROJECT==VERSION ...]
                                                              (make test-real-suites)

The check of --monostamp-patch on the real thing: each project's sdist (its tests inside)
is fetched with pip into a cache, installed into a venv of the cache with
the test dependencies its pyproject names, beside monostamp from this
checkout; its suite runs twice in children, plainly and with
--monostamp-patch, and the two sets of failing tests (FAILED and ERROR ids)
must be the same.  Exit 0 if they are for every project.

    MONOSTAMP_REAL_SUITES_CACHE   the cache (default ~/.cache/monostamp-real-suites)
    PYTHON                        the interpreter of the venv (default: this one)

With --bench N, each suite then runs N more times each way, plain and
patched in turn, and the medians of their wall and CPU times (the child's
user + system) are printed with the patched/plain ratios (make
bench-real-suites: N = 15); a suite with time-budgeted benchmark tests
(FIXED_WORK, below) is timed again with those at a fixed number of rounds.

The versions are pinned (below) so that a run today and one next month
compare the same suites; name others on the command line.  pytest-randomly
is never installed (random order would make the two runs differ by
chance), and each suite runs in one process (-p no:xdist).
"""
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROJECTS = ["humanize==4.17.0", "structlog==26.1.0", "python-dateutil==4.0.0",
            "time-machine==2.10.0"]
#: What the suites need beyond the projects themselves (their "tests" extras,
#: less the random-order plugin; pytest-cov for dateutil's no_cover marker and attrs,
#: pytest-benchmark for humanize's benchmark fixture).
TEST_DEPS = ["pytest>=9", "pytest-asyncio", "pytest-cov", "pytest-benchmark", "hypothesis",
             "freezegun", "time-machine", "simplejson", "attrs", "tzdata", "setuptools>=77"]
#: Projects that need a venv of their own: time-machine 2.10's suite tests
#: the 2.x that replaces the 3.x the others' TEST_DEPS bring.
OWN_VENV = {"time-machine": ["pytest>=9", "setuptools>=77"]}
#: pytest arguments of each project's run: pytest-asyncio (structlog's) warns
#: at startup where it is not configured, and the others make warnings errors.
PYTEST_ARGS = {"structlog": [], "humanize": ["-p", "no:asyncio"],
               "python-dateutil": ["-p", "no:asyncio"], "time-machine": ["-p", "no:asyncio"]}
#: --bench only: the same suite with its pytest-benchmark tests at a fixed
#: work.  pytest-benchmark runs a test ceil(1 s / d) rounds, d being its
#: first call's duration when that call takes 5 us or more (all of
#: humanize's do), so the suite's time follows how lucky that one call was
#: (rounds of one test ranged 121 to 7,537 between two runs), and whatever
#: makes first calls quicker makes the suite longer.  A fixed 20,000 rounds
#: (about what the budget gives) times the same work both ways.
FIXED_WORK = {"humanize": ["--benchmark-max-time=0", "--benchmark-min-rounds=20000"]}


def run(*args, **kwargs):
    print("+", " ".join(str(a) for a in args), flush=True)
    return subprocess.run([str(a) for a in args], check=True, **kwargs)


def venv_python(cache, suffix=""):
    base = os.environ.get("PYTHON", sys.executable)
    version = subprocess.run([base, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    venv = cache / ("venv-" + version + suffix)
    python = venv / "bin" / "python"
    if not python.exists():
        run(base, "-m", "venv", venv)
    return python


def failing(output):
    """The ids of the failed and errored tests in pytest -rfE output."""
    return set(re.findall(r"^(?:FAILED|ERROR) (\S+)", output, re.M))


def suite_args(python, extra, patched):
    args = [python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-p",
            "no:randomly", "-rfE", "-q", *extra]
    if patched:
        args.append("--monostamp-patch")
    return [str(a) for a in args]


def suite_env():
    env = dict(os.environ)
    env.pop("MONOSTAMP_SHARED", None)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def suite(python, source, extra, patched, log):
    """(failing ids, the summary line or None) of one run of a suite."""
    done = subprocess.run(suite_args(python, extra, patched), cwd=str(source), env=suite_env(),
                          capture_output=True, text=True, timeout=3600)
    log.write_text(done.stdout + done.stderr)
    summary = [line for line in done.stdout.splitlines() if re.search(r"\d+ (passed|failed)",
                                                                     line)]
    return failing(done.stdout), (summary[-1] if summary else None)


def timed(python, source, extra, patched):
    """(wall s, CPU s) of one quiet run of a suite."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(suite_args(python, extra, patched), cwd=str(source), env=suite_env(),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=3600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bench(python, source, extra, rounds, label=""):
    """Prints the medians of `rounds` runs each way, interleaved, and their ratios."""
    runs = {False: [], True: []}
    for i in range(rounds):
        for patched in ((False, True) if i % 2 == 0 else (True, False)):
            runs[patched].append(timed(python, source, extra, patched))
    medians = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
               for k, v in runs.items()}
    (pw, pc), (qw, qc) = medians[False], medians[True]
    print("%s%s: medians of %d runs: plain %.3f s wall, %.3f s CPU; --monostamp-patch %.3f s "
          "wall, %.3f s CPU; patched/plain %.3f wall, %.3f CPU" % (
              source.name, label, rounds, pw, pc, qw, qc, qw / pw, qc / pc), flush=True)


def main():
    argv = sys.argv[1:]
    rounds = 0
    if argv[:1] == ["--bench"]:
        rounds, argv = int(argv[1]), argv[2:]
    projects = argv or PROJECTS
    cache = Path(os.environ.get("MONOSTAMP_REAL_SUITES_CACHE") or
                 Path.home() / ".cache" / "monostamp-real-suites")
    sdists, sources, logs = cache / "sdists", cache / "src", cache / "logs"
    for d in (sdists, sources, logs):
        d.mkdir(parents=True, exist_ok=True)
    venvs = {}

    def python_for(name):
        """The venv's interpreter for project `name`, made ready once."""
        suffix = "-" + name if name in OWN_VENV else ""
        if suffix not in venvs:
            python = venv_python(cache, suffix)
            run(python, "-m", "pip", "--disable-pip-version-check", "-q", "install",
                *OWN_VENV.get(name, TEST_DEPS))
            run(REPO / "tools" / "checks" / "pip-install-checked.sh", python,
                cache / ("pip-install%s.log" % suffix))
            venvs[suffix] = python
        return venvs[suffix]

    run(sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "download",
        "--no-deps", "--no-binary", ":all:", "-d", sdists, *projects)
    status = 0
    for spec in projects:
        name, _, version = spec.partition("==")
        python = python_for(name)
        pip = [python, "-m", "pip", "--disable-pip-version-check", "-q"]
        stem = re.sub(r"[-_.]+", "_", name).lower()
        archives = [p for p in sdists.glob("*.tar.gz")
                    if re.sub(r"[-_.]+", "_", p.name).lower().startswith(stem + "_" + (
                        version.replace(".", "_") if version else ""))]
        if not archives:
            print("%s: no sdist in %s" % (spec, sdists))
            status = 1
            continue
        archive = sorted(archives)[-1]
        run(*pip, "install", archive)
        source = sources / archive.name[:-len(".tar.gz")]
        shutil.rmtree(source, ignore_errors=True)
        with tarfile.open(archive) as tar:
            try:
                tar.extractall(sources, filter="data")  # no links or paths out
            except TypeError:  # a Python before the filters
                tar.extractall(sources)
        extra = PYTEST_ARGS.get(name, [])
        plain, plain_summary = suite(python, source, extra, False,
                                     logs / (source.name + "-plain.log"))
        patched, patched_summary = suite(python, source, extra, True,
                                         logs / (source.name + "-patched.log"))
        if plain_summary is None or patched_summary is None:
            print("%s: a run did not finish: see %s" % (source.name, logs))
            status = 1
            continue
        same = plain == patched
        print("%s: plain: %s; --monostamp-patch: %s; failing tests %s" % (
            source.name, plain_summary, patched_summary,
            "the same (%d)" % len(plain) if same else "DIFFER"))
        for test in sorted(patched - plain):
            print("  fails only patched: " + test)
        for test in sorted(plain - patched):
            print("  fails only plain:   " + test)
        status |= not same
        if rounds:
            bench(python, source, extra, rounds)
            if name in FIXED_WORK:
                bench(python, source, extra + FIXED_WORK[name], rounds,
                      " (benchmark tests at fixed rounds)")
    return status


if __name__ == "__main__":
    sys.exit(main())
