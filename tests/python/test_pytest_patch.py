"""The pytest plugin's patching: the monostamp_patch fixture, the marker's
patch=True, --monostamp-patch / monostamp_patch = true for the whole run, the
report header, time-machine and freezegun winning while active, and datetime.utcnow() rows
in one sqlite file written by two xdist workers."""
import os
import sqlite3

import pytest

import monostamp
from conftest import EARLY_NAMES, cpython_only, native_speed_only, needs_xdist, scaled

ENV = "MONOSTAMP_SHARED"

if not hasattr(monostamp, "patch"):
    pytest.skip("monostamp.patch() is not in this build", allow_module_level=True)

# In the inner runs: did this time.time_ns() reading come from the session's
# state file?  A clock frozen at 0 on the file stamps the file's last
# stamp + 1, so it continues right after a reading drawn from the file and
# nowhere near a reading of the real clock.
FROM_SESSION = """
import os, time, monostamp, pytest

def from_session(read=time.time_ns):
    t = read()
    frozen = monostamp.Clock(source="manual", start_ns=0, max_lead_ns=0,
                             shared=os.environ["MONOSTAMP_SHARED"])
    return frozen.time_ns() == t + 1
"""
@cpython_only(EARLY_NAMES)
def test_fixture_patches_one_test_from_the_session_file(pytester, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    pytester.makeconftest(FROM_SESSION + """
@pytest.fixture
def unpatched_at_setup():
    assert not from_session()
""")
    pytester.makepyfile(
        """
        import time
        from datetime import datetime, date
        from time import time_ns
        from conftest import from_session

        def test_before():
            assert not from_session()

        def test_patched(unpatched_at_setup, monostamp_patch):
            assert from_session() and from_session(time_ns)  # bound before patching
            floats = [time.time() for _ in range(10000)]
            assert floats == sorted(set(floats))
            stamps = [datetime.utcnow() for _ in range(10000)]
            assert stamps == sorted(set(stamps))
            mixed = [f() for _ in range(1000) for f in (time.time_ns, monostamp_patch.time_ns)]
            assert mixed == sorted(set(mixed))  # the yielded clock: the same sequence
            assert date.today() == datetime.now().date()

        def test_after():
            assert not from_session()
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W",
                                           "ignore::DeprecationWarning")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["monostamp: patch: per test only (the monostamp_patch "
                                 "fixture on the session's clock (the process default clock "
                                 "on */state, lead bound 5 ms), @pytest.mark.monostamp(patch=True) "
                                 "on the test's manual_clock)"])


def test_fixture_without_sharing_patches_with_the_clock_it_yields(pytester):
    pytester.makepyfile(
        """
        import time

        def test_private(monostamp_patch):
            assert monostamp_patch.shared is None
            mixed = [f() for _ in range(1000) for f in (time.time_ns, monostamp_patch.time_ns)]
            assert mixed == sorted(set(mixed))
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--monostamp-no-share")
    result.assert_outcomes(passed=1)


def test_marker_patches_with_the_manual_clock(pytester):
    pytester.makepyfile(
        """
        import time, pytest
        from datetime import datetime, timezone

        @pytest.mark.monostamp(start="2026-03-29T00:59:59Z", zone="Europe/Berlin", patch=True)
        def test_dst_change(manual_clock):
            # The manual clock, one stamp after another (pytest's own time.time()
            # for the report drew some already).
            start = 1774745999 * 10**9
            assert start <= time.time_ns() < time.time_ns() < start + 10**6
            assert datetime.now().replace(microsecond=0) == datetime(2026, 3, 29, 1, 59, 59)
            manual_clock.advance(10**9)
            assert datetime.now().replace(microsecond=0) == datetime(2026, 3, 29, 3, 0, 0)
            assert datetime.now(timezone.utc).hour == 1
            frozen = [time.time() for _ in range(1000)]  # frozen but unique
            assert frozen == sorted(set(frozen)) and frozen[-1] - frozen[0] < 0.01

        VALUES = []

        @pytest.mark.parametrize("run", [0, 1])
        @pytest.mark.monostamp(start=10**9, patch=True)
        def test_deterministic(run):
            VALUES.append([f() for _ in range(100)
                           for f in (time.time_ns, time.time, datetime.utcnow)])

        def test_two_runs_gave_identical_values():
            assert len(VALUES) == 2 and VALUES[0] == VALUES[1]
            assert time.time() > 1.7e9  # real time again

        @pytest.mark.monostamp(patch=False)
        def test_patch_false_leaves_time_alone():
            assert time.time() > 1.7e9

        @pytest.mark.monostamp(patch="yes")
        def test_patch_must_be_a_bool():
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider",
                                           "-W", "ignore::DeprecationWarning")
    result.assert_outcomes(passed=5, errors=1)
    result.stdout.fnmatch_lines(["*patch='yes' is not a bool: give True or False*"])
    # Said once in the error's report: no "During handling of the above exception"
    # repeating it. (The short summary at the end quotes it again, cut to the
    # terminal's width, so it is left out of the count.)
    report = result.stdout.str().split("short test summary info")[0]
    assert report.count("is not a bool") == 1, result.stdout.str()
    assert "During handling" not in result.stdout.str()


WHOLE_RUN = """
import pytest, time
from time import time_ns
from conftest import from_session

@pytest.fixture(scope="module")
def module_fixture():
    assert from_session(time_ns)  # patched before the module's fixtures
    yield
    assert from_session(time_ns)  # and still while they are torn down

@pytest.mark.parametrize("n", range(3))
def test_patched(module_fixture, n):
    assert from_session() and from_session(time_ns)

@pytest.mark.monostamp(patch=True)
def test_the_marker_nests_inside(manual_clock):
    assert 946684800 * 10**9 <= time.time_ns() < 946684801 * 10**9  # the manual clock
"""


@cpython_only(EARLY_NAMES)
@pytest.mark.parametrize("how", ["option", "ini"])
def test_whole_run_patches_every_test_around_its_fixtures(pytester, monkeypatch, how):
    monkeypatch.delenv(ENV, raising=False)
    # Between tests (and before and after the run) time is real again.
    pytester.makeconftest(FROM_SESSION + """
def pytest_runtest_logstart(nodeid, location):
    assert not from_session()

def pytest_runtest_logfinish(nodeid, location):
    assert not from_session()
""")
    pytester.makepyfile(WHOLE_RUN)
    args = ["-p", "no:cacheprovider"]
    if how == "option":
        args.append("--monostamp-patch")
    else:
        pytester.makeini("[pytest]\nmonostamp_patch = true\n")
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["monostamp: patch: the whole run (--monostamp-patch)*from the "
                                 "session's clock (the process default clock on */state, "
                                 "lead bound 5 ms)*"])


def test_time_machine_and_freezegun_win_inside_the_plugins_patches(pytester):
    """Each form of the two tools inside each of the plugin's patches: while
    one is active its time is the time; after it, the patch's again."""
    pytest.importorskip("time_machine")
    pytest.importorskip("freezegun")
    pytester.makeconftest(FROM_SESSION)
    pytester.makepyfile(
        """
        import time, pytest, time_machine, freezegun, monostamp
        from time import time_ns
        from conftest import from_session

        @pytest.fixture
        def travelling():
            with time_machine.travel(0, tick=False):
                yield

        def test_time_machine_fixture_first(travelling, monostamp_patch):
            assert time.time() == 0 and time_ns() == 0
            assert monostamp.patching() is not None and not monostamp.patched()

        def test_time_machine_inside(monostamp_patch):
            with time_machine.travel(0, tick=False):
                assert time.time() == 0
            assert from_session(time_ns) and monostamp.patched()

        @freezegun.freeze_time("2000-01-01")
        def test_freezegun_decorator(monostamp_patch):
            assert time.time() == 946684800

        @pytest.mark.monostamp(start=10**18, patch=True)
        def test_time_machine_fixture_on_the_marker(manual_clock, time_machine):
            assert time.time_ns() >= 10**18
            time_machine.move_to(0, tick=False)
            assert time.time() == 0

        def test_each_alone_as_usual():
            with time_machine.travel(0, tick=False):
                assert time.time() == 0
            with freezegun.freeze_time("2000-01-01"):
                assert time.time() == 946684800
            assert time.time() > 1.7e9 and not monostamp.patched()
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)


def test_the_whole_run_gives_way_to_time_machine_and_freezegun(pytester, monkeypatch):
    pytest.importorskip("time_machine")
    pytest.importorskip("freezegun")
    monkeypatch.delenv(ENV, raising=False)
    pytester.makeconftest(FROM_SESSION)
    pytester.makepyfile(
        """
        import time, time_machine, freezegun
        from conftest import from_session

        @time_machine.travel(0, tick=False)
        def test_travels():
            assert time.time() == 0

        @freezegun.freeze_time("2000-01-01")
        def test_freezes():
            assert time.time() == 946684800

        def test_patched_between():
            assert from_session()
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--monostamp-patch")
    result.assert_outcomes(passed=3)


# The check: the code under test stamps rows with datetime.utcnow()
# (bound at import, as an ORM's column default is), and two xdist workers
# write them into one sqlite file.  From Python 3.12 utcnow() warns of its
# deprecation, which costs about 2 us a call: so few unpatched calls would
# share a us that the control could not fail.  There the app uses utcnow's
# replacement, datetime.now(timezone.utc).
ROWS = """
import functools, os, sqlite3, sys, pytest
from datetime import datetime, timezone

if sys.version_info < (3, 12):
    utcnow = datetime.utcnow  # bound before any patch, like a column default
else:
    utcnow = functools.partial(datetime.now, timezone.utc)
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")

class Row:
    def __init__(self):
        self.created_at = utcnow()

@pytest.mark.parametrize("batch", range(10))
def test_insert_rows(batch):
    rows = [Row() for _ in range(int(os.environ["ROWS_PER_TEST"]))]
    db = sqlite3.connect(os.environ["ROWS_DB"], timeout=60)
    with db:
        db.executemany("insert into rows (created_at, worker) values (?, ?)",
                       [(r.created_at.isoformat(" "), WORKER) for r in rows])
    db.close()
"""


def _rows_run(pytester, monkeypatch, tmp_path, *args):
    """The ROWS module under -n 2; (rows, duplicates, workers) of the sqlite file."""
    path = tmp_path / "rows-{}.sqlite".format(len(args))
    db = sqlite3.connect(str(path))
    with db:
        db.execute("create table rows (created_at text, worker text)")
    db.close()
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("ROWS_DB", str(path))
    monkeypatch.setenv("ROWS_PER_TEST", str(scaled(1000, 100)))
    pytester.makepyfile(test_rows=ROWS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2",
                                           "-W", "ignore::DeprecationWarning", *args)
    result.assert_outcomes(passed=10)
    db = sqlite3.connect(str(path))
    rows, distinct = db.execute(
        "select count(*), count(distinct created_at) from rows").fetchone()
    workers = {w for (w,) in db.execute("select distinct worker from rows")}
    db.close()
    return rows, rows - distinct, workers


@pytest.mark.heavy
@needs_xdist
def test_sqlite_rows_from_two_workers_are_unique(pytester, monkeypatch, tmp_path):
    rows, duplicates, workers = _rows_run(pytester, monkeypatch, tmp_path,
                                          "--monostamp-patch")
    assert workers == {"gw0", "gw1"}
    assert rows == 10 * scaled(1000, 100)
    assert duplicates == 0, "{} duplicate created_at of {}".format(duplicates, rows)


@pytest.mark.heavy
@needs_xdist
@native_speed_only("unpatched, rows repeat only when two calls share a clock tick")
def test_sqlite_rows_without_the_patch_repeat(pytester, monkeypatch, tmp_path):
    """The control: the same run unpatched shows the check can fail."""
    rows, duplicates, workers = _rows_run(pytester, monkeypatch, tmp_path)
    assert workers == {"gw0", "gw1"}
    assert duplicates > rows // 10, "only {} duplicate created_at of {}".format(
        duplicates, rows)
