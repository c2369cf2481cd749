"""What a run says it did: the pytest plugin's summary line (serial and
xdist), `monostamp stats PATH` and `monostamp run --report`.  Each checks
the line's counts against what the run's own tests counted themselves: a
manual clock held still repeats every stamp after its first, and a clock on
the session's file reports its own counters (Clock.stats()).  The largest
lead is over the real clock: a manual clock's, whatever it is, counts 0."""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

import monostamp

#: The counts of a state file and their line: the core's, through the extension.
_ext = sys.modules["monostamp._monostamp"]

from conftest import lua_env, needs_xdist

ENV = "MONOSTAMP_SHARED"
LINE = re.compile(r"^monostamp: ([\d,]+) stamps? handed out, ([\d,]+) would have repeated "
                  r"without monostamp, ([\d,]+) backward steps? met, largest lead (.+)$")
S = 10**9


def duration(ns):
    """ns as the line words a largest lead (the core's wording, checked
    exactly in test_the_lead_is_exact_in_its_unit)."""
    return _ext._counts_text((0, 0, 0, ns)).rsplit("largest lead ", 1)[1]


#: Tests that draw from the plugin's clocks and write what they counted to
#: COUNTS_DIR, one JSON file each: stamps, repeats, backward steps, lead.
SUITE = """
import json, os, pytest

def record(name, stamps, repeats, backward, lead):
    path = os.path.join(os.environ["COUNTS_DIR"], name)
    with open(path, "w") as f:
        json.dump([stamps, repeats, backward, lead], f)

@pytest.mark.parametrize("n", [1, 7, 250])
def test_a_manual_clock_held_still(manual_clock, n):
    # Its first stamp is its reading's; every later one would repeat it.
    for _ in range(n):
        manual_clock.time_ns()
    record("held-%d" % n, n, n - 1, 0, 0)  # its lead of n - 1 ns is not over real time

# A century ahead, then a year back: each stamp after the step leads its
# reading by a year, which says nothing of real time and is not counted.
@pytest.mark.monostamp(start="2126-01-01T00:00:00Z")
def test_a_manual_clock_stepped_back(manual_clock):
    for _ in range(10):
        manual_clock.time_ns()
    manual_clock.step_back(365 * 86400 * 10**9)
    for _ in range(3):
        manual_clock.time_ns()
    assert manual_clock.stats()["max_lead_ns"] == 365 * 86400 * 10**9 + 12
    record("stepped", 13, 12, 1, 0)

def test_a_tight_loop_on_the_session_clock(monostamp_clock):
    for _ in range(20000):
        monostamp_clock.time()
    s = monostamp_clock.stats()
    # Floats are whole us: the loop repeats, and its stamps lead the real clock.
    assert s["max_lead_ns"] > 0
    record("loop", s["readings"], s["duplicates"], s["backward_steps"], s["max_lead_ns"])

def test_nothing_drawn():
    pass
"""


def expected(directory):
    """The sums (and the largest lead) of what the tests recorded."""
    rows = [json.loads((directory / name).read_text()) for name in os.listdir(directory)]
    assert len(rows) == 5
    return (sum(r[0] for r in rows), sum(r[1] for r in rows), sum(r[2] for r in rows),
            max(r[3] for r in rows))


def summary(lines):
    """The summary line's four values; exactly one such line."""
    found = [LINE.match(line) for line in lines]
    found = [m for m in found if m]
    assert len(found) == 1, "\n".join(lines)
    m = found[0]
    return tuple(int(g.replace(",", "")) for g in m.groups()[:3]) + (m.group(4),)


@pytest.fixture
def counted(pytester, monkeypatch, tmp_path):
    """The suite, in a session of its own (no outer run's state file)."""
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.delenv("MONOSTAMP_PATCH", raising=False)
    out = tmp_path / "counts"
    out.mkdir()
    monkeypatch.setenv("COUNTS_DIR", str(out))
    pytester.makepyfile(SUITE)
    return out


@pytest.mark.parametrize("share", [True, False], ids=["shared", "no-share"])
def test_the_serial_summary_is_what_the_tests_counted(pytester, counted, share):
    args = ["-p", "no:cacheprovider", "-q"] + ([] if share else ["--monostamp-no-share"])
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=6)
    stamps, repeats, backward, lead = expected(counted)
    assert summary(result.outlines) == (stamps, repeats, backward, duration(lead))
    assert stamps > 20000 and repeats >= 258  # the held clocks' 0 + 6 + 249, the step's 12


@needs_xdist
@pytest.mark.parametrize("share", [True, False], ids=["shared", "no-share"])
def test_the_xdist_controller_prints_the_workers_counts_once(pytester, counted, share):
    args = ["-p", "no:cacheprovider", "-q", "-n", "2"] + ([] if share else
                                                          ["--monostamp-no-share"])
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=6)
    stamps, repeats, backward, lead = expected(counted)
    assert summary(result.outlines + result.errlines) == (stamps, repeats, backward,
                                                            duration(lead))


def test_no_summary_for_a_run_that_did_not_use_monostamp(pytester, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.delenv("MONOSTAMP_PATCH", raising=False)
    pytester.makepyfile("def test_plain():\n    assert 1\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert not [line for line in result.outlines if LINE.match(line)]


def test_a_patched_run_counts_the_patched_calls(pytester, monkeypatch, tmp_path):
    # The patched time.time_ns() draws from the session's clock; pytest's
    # own calls while a test runs are patched too, so: at least these.
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.delenv("MONOSTAMP_PATCH", raising=False)
    pytester.makepyfile("""
        import time

        def test_draws():
            for _ in range(3000):
                time.time_ns()
        """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", "--monostamp-patch")
    result.assert_outcomes(passed=1)
    stamps, repeats, backward, lead = summary(result.outlines)
    assert stamps >= 3000


def test_only_a_real_clock_s_lead_is_counted(tmp_path):
    # A manual clock set a century ahead, then back a year, leads its own
    # reading by a year: the file's largest lead does not change.  A real
    # clock's block of 1000 us leads its one reading by 999 us, whatever the
    # platform's tick, and that lead shows.
    path = str(tmp_path / "state")
    monostamp.create_state_file(path)
    real = monostamp.Clock(policy="monotonicForceMicrosecondIncrement", shared=path)
    real.take(1000)
    real._publish()
    lead = real.stats()["max_lead_ns"]
    assert lead > 0 and _ext._state_counts(path)[3] == lead
    manual = monostamp.Clock(source="manual", max_lead_ns=0,
                             start_ns=monostamp.Stamp.fromisoformat("2126-01-01T00:00:00Z"))
    for _ in range(3):
        manual.time_ns()
    manual.step_back(365 * 86400 * S)
    manual.time_ns()
    assert manual.stats()["max_lead_ns"] > 365 * 86400 * S
    manual._publish(path)
    counts = _ext._state_counts(path)
    assert counts[3] == lead and counts[2] >= 1
    assert _ext._counts_text(counts).endswith("largest lead " + duration(lead))


def test_the_lead_is_exact_in_its_unit():
    assert duration(0) == "0 ns"
    assert duration(999) == "999 ns"
    assert duration(1500) == "1.500 us"
    assert duration(2_000_001) == "2.000001 ms"
    assert duration(S + 12) == "1.000000012 s"


def test_the_line_groups_and_counts_one_or_many():
    assert _ext._counts_text((1, 0, 1, 0)) == (
        "monostamp: 1 stamp handed out, 0 would have repeated without monostamp, "
        "1 backward step met, largest lead 0 ns")
    assert _ext._counts_text((20271, 20013, 2, 12)) == (
        "monostamp: 20,271 stamps handed out, 20,013 would have repeated without monostamp, "
        "2 backward steps met, largest lead 12 ns")
    assert _ext._counts_text((2**64 - 1, 0, 0, 0)).startswith(
        "monostamp: 18,446,744,073,709,551,615 stamps handed out")


def test_a_sum_that_went_down_reads_as_wrapped():
    # Counts any process on the file may write: numbers, never an error.
    assert _ext._counts_text((4, 5, 0, 3), (10, 5, 0, 3)).startswith(
        "monostamp: 18,446,744,073,709,551,610 stamps handed out")
    # Nothing counted between two reads: no lead either.
    assert _ext._counts_text((10, 5, 0, 3), (10, 5, 0, 3)).endswith(
        "0 would have repeated without monostamp, 0 backward steps met, largest lead 0 ns")
    # Counted between: the file's lead (a maximum cannot be taken apart).
    assert _ext._counts_text((11, 5, 0, 3), (10, 5, 0, 3)).endswith("largest lead 3 ns")


# ------------------------------------------------------ the command line

#: A child that draws N stamps from a manual clock on MONOSTAMP_SHARED's
#: file (its reading never moves, so stamps repeat without monostamp) and
#: prints what its clock counted, then leaves the file.
CHILD = textwrap.dedent("""
    import json, os, sys, monostamp
    clock = monostamp.Clock(source="manual", shared=os.environ["MONOSTAMP_SHARED"])
    for _ in range(int(sys.argv[1])):
        clock.time_ns()
    s = clock.stats()
    print(json.dumps([s["readings"], s["duplicates"], s["backward_steps"], 0]))  # no real lead
    del clock
    """)


def cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "monostamp"] + list(args),
                          capture_output=True, text=True, **kwargs)


def test_stats_prints_what_the_processes_on_a_file_counted(tmp_path, monkeypatch):
    monkeypatch.delenv("MONOSTAMP_PATCH", raising=False)
    path = str(tmp_path / "state")
    monostamp.create_state_file(path)
    result = cli("stats", path)
    assert result.returncode == 0, result.stderr
    assert summary(result.stdout.splitlines()) == (0, 0, 0, "0 ns")
    env = dict(os.environ, MONOSTAMP_SHARED=path)
    rows = [json.loads(subprocess.run([sys.executable, "-c", CHILD, str(n)], env=env,
                                      capture_output=True, text=True, check=True).stdout)
            for n in (500, 1500)]
    result = cli("stats", path)
    assert result.returncode == 0, result.stderr
    assert summary(result.stdout.splitlines()) == (
        2000, rows[0][1] + rows[1][1], rows[0][2] + rows[1][2],
        duration(max(rows[0][3], rows[1][3])))
    assert rows[0][1] + rows[1][1] > 0


def test_stats_refuses_what_it_cannot_read(tmp_path):
    result = cli("stats", str(tmp_path / "missing"))
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1 and "missing" in result.stderr
    (tmp_path / "text").write_text("not a state file")
    result = cli("stats", str(tmp_path / "text"))
    assert result.returncode == 1 and len(result.stderr.splitlines()) == 1
    assert cli("stats").returncode == 2
    assert cli("stats", "a", "b").returncode == 2
    assert cli("stats", "--help").returncode == 0


def test_run_report_prints_what_cmd_counted(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.delenv("MONOSTAMP_PATCH", raising=False)
    # --no-patch: a patched child's startup may draw from its default clock
    # too; unpatched, the child's own clock is all it draws from.
    result = cli("run", "--no-patch", "--report", "--", sys.executable, "-c", CHILD, "800")
    assert result.returncode == 0, result.stderr
    row = json.loads(result.stdout)
    assert summary(result.stderr.splitlines()) == (800, row[1], row[2],
                                                   duration(row[3]))
    # Without --report, no line.
    result = cli("run", "--no-patch", "--", sys.executable, "-c", CHILD, "10")
    assert not [line for line in result.stderr.splitlines() if LINE.match(line)]


def test_run_report_counts_a_lua_child_on_the_file(tmp_path, monkeypatch):
    # A Lua process's clocks are the core's: they publish into the file too.
    lua, env = lua_env()
    env.pop(ENV, None)
    env.pop("MONOSTAMP_PATCH", None)
    script = ('local m = require("monostamp")\n'
              'local c = assert(m.clock({shared = os.getenv("MONOSTAMP_SHARED")}))\n'
              'for _ = 1, 300 do assert(c:time_ns()) end\n'
              'c:close()\n')
    result = subprocess.run([sys.executable, "-m", "monostamp", "run", "--no-patch", "--report",
                             "--", lua, "-e", script], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert summary(result.stderr.splitlines())[0] == 300
