"""monostamp.patch(): the standard library's wall clocks draw unique stamps.

The names below are imported before any patch starts, as application code
does (`from time import time`, a default argument holding time.time): the
patch must reach them all the same, since it swaps the C functions.
"""
import asyncio
import datetime
import os
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
import warnings
from datetime import date, timezone
from datetime import datetime as DT
from time import time as imported_time
from time import time_ns as imported_time_ns

import pytest

import monostamp
from monostamp import _monostamp
from monostamp import Clock, Policy
from conftest import (EARLY_NAMES, PY_MEET, SUBINTERPRETERS, assert_overlapping, cpython_only,
                      scaled)

STRICT = Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
EPOCH = DT(1970, 1, 1)
# Windows' time module has no clock_gettime(_ns): patch() reaches the rest.
HAVE_CLOCK_GETTIME = hasattr(time, "clock_gettime")
# 2026-03-29T00:59:59Z: one second before Europe/Berlin springs forward.
BERLIN_SPRING_S = 1774745999


def manual(start_s=BERLIN_SPRING_S, zone="UTC", policy=STRICT, **kw):
    return Clock(policy, source="manual", zone=zone, start_ns=start_s * 10**9, **kw)


def default_arg_time(now=time.time):
    """A default argument captured at import, as SQLAlchemy's defaults are."""
    return now()


def naive_us(dt):
    """A naive datetime (UTC wall fields) as µs since the epoch."""
    d = dt - EPOCH
    return (d.days * 86400 + d.seconds) * 10**6 + d.microseconds


def us_of_float(f):
    return round(f * 1e6)


@pytest.fixture(autouse=True)
def no_patch_leaks():
    yield
    assert monostamp._patching._stack == []
    assert not _monostamp._installed()


def is_real_time():
    """time.time() and datetime.now() read the real clock (within 10 s)."""
    real = Clock(Policy.ACCEPT_PLATFORM_TIME).time()
    return (abs(imported_time() - real) < 10 and abs(time.time_ns() / 1e9 - real) < 10
            and abs(DT.now(timezone.utc).timestamp() - real) < 10
            and abs(default_arg_time() - real) < 10)


def test_import_and_a_patch_cycle_warn_nothing():
    """`import monostamp` and a patch() start/stop, in a fresh interpreter
    where every warning is an error (and dev mode shows the hidden ones)."""
    code = ("import datetime, time, uuid, monostamp\n"
            "p = monostamp.patch().start()\n"
            "time.time(); time.time_ns(); datetime.datetime.now(); uuid.uuid1()\n"
            "p.stop()\n"
            "with monostamp.patch(monostamp.Clock()):\n"
            "    datetime.date.today()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    r = subprocess.run([sys.executable, "-X", "dev", "-W", "error", "-c", code],
                       capture_output=True, text=True, env=env)
    assert (r.returncode, r.stderr) == (0, "")
@cpython_only(SUBINTERPRETERS)
def test_a_subinterpreter_keeps_real_time_and_cannot_start_a_patch(tmp_path):
    """The method tables are the process's: a patch starts in the main
    interpreter only, and while one is active there, a subinterpreter (one
    sharing the GIL, as _testcapi makes) still gets the real clock."""
    _testcapi = pytest.importorskip("_testcapi")
    out = tmp_path / "out"
    code = """if 1:
        import datetime, time, monostamp
        lines = ["%%.0f %%.0f" %% (time.time(), datetime.datetime.now().timestamp())]
        try:
            monostamp.patch().start()
            lines.append("started")
        except RuntimeError as e:
            lines.append(str(e))
        open(%r, "w").write("\\n".join(lines))
    """ % str(out)
    with monostamp.patch(manual()):
        assert int(time.time()) == BERLIN_SPRING_S
        assert _testcapi.run_in_subinterp(code) == 0
    times, error = out.read_text().split("\n")
    real = Clock(Policy.ACCEPT_PLATFORM_TIME).time()
    assert all(abs(float(t) - real) < 10 for t in times.split())
    assert error.startswith("monostamp.patch() cannot start outside the main interpreter")


# ------------------------------------------------------------------ errors

def test_bad_clock_is_type_error():
    with pytest.raises(TypeError, match="monostamp.Clock"):
        monostamp.patch(42)
    with pytest.raises(TypeError, match="monostamp.Clock"):
        _monostamp._activate("clock")
    assert not _monostamp._installed()


def test_start_twice_and_stop_unstarted_are_runtime_errors():
    p = monostamp.patch(manual())
    with pytest.raises(RuntimeError, match="not started"):
        p.stop()
    p.start()
    try:
        with pytest.raises(RuntimeError, match="already started"):
            p.start()
    finally:
        p.stop()
    assert is_real_time()


def test_lead_error_reaches_the_caller():
    c = manual(max_lead_ns=1000)
    with monostamp.patch(c):
        with pytest.raises(monostamp.LeadError, match="time.time_ns()"):
            for _ in range(2000):
                time.time_ns()
    assert is_real_time()


# ------------------------------------------------------------------ reach
@cpython_only(EARLY_NAMES)
def test_every_function_reached_also_through_early_imports():
    c = manual(zone="UTC")
    start_us = BERLIN_SPRING_S * 10**6
    with monostamp.patch(c):
        values = [
            us_of_float(imported_time()),
            imported_time_ns() // 1000,
            us_of_float(default_arg_time()),
            *([us_of_float(time.clock_gettime(time.CLOCK_REALTIME)),
               time.clock_gettime_ns(time.CLOCK_REALTIME) // 1000] if HAVE_CLOCK_GETTIME else []),
            naive_us(DT.now()),
            naive_us(DT.today()),
            naive_us(DT.now(timezone.utc).replace(tzinfo=None)),
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            values.append(naive_us(DT.utcnow()))
        assert date.today() == date(2026, 3, 29)
        assert time.gmtime()[:6] == (2026, 3, 29, 0, 59, 59)
        assert time.strftime("%Y-%m-%d") == "2026-03-29"
        assert time.ctime().endswith("2026")
        assert time.asctime().endswith("2026")
        assert time.localtime().tm_year == 2026
    # Every value is a stamp of the manual clock, a few µs past its start.
    assert all(start_us <= v < start_us + 100 for v in values), values
    assert values == sorted(values)
    assert is_real_time()
@cpython_only(EARLY_NAMES)
def test_values_are_unique_and_increasing_across_all_functions_in_4_threads():
    n = scaled(50_000, 500)
    c = Clock(STRICT, zone="UTC")
    results = [None] * 4
    barrier = threading.Barrier(4)
    draws = [
        lambda: us_of_float(imported_time()) * 1000,
        lambda: imported_time_ns(),
        lambda: naive_us(DT.now()) * 1000,
        *([lambda: us_of_float(time.clock_gettime(time.CLOCK_REALTIME)) * 1000,
           lambda: time.clock_gettime_ns(time.CLOCK_REALTIME)] if HAVE_CLOCK_GETTIME else []),
        lambda: naive_us(DT.today()) * 1000,
        lambda: naive_us(DT.now(timezone.utc).replace(tzinfo=None)) * 1000,
    ]

    def work(i):
        barrier.wait()
        out = []
        for j in range(n):
            if j == n // 2:
                barrier.wait()  # every thread draws before and after every other's middle
            out.append(draws[(i + j) % len(draws)]())
            if j % 97 == 0:
                time.gmtime()  # draws too (whole seconds: not compared)
        results[i] = out

    with monostamp.patch(c):
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for values in results:
        assert all(a < b for a, b in zip(values, values[1:]))
    everything = [v for values in results for v in values]
    assert len(set(everything)) == len(everything), \
        "%d duplicates" % (len(everything) - len(set(everything)))
    assert_overlapping(results)


def test_sqlite_table_filled_from_utcnow_and_now_has_no_duplicates():
    rows = scaled(10_000, 10_000)  # the figure, always
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, created_at TEXT, updated_at TEXT)")

    def create_item():
        # What an ORM's column defaults do: call the stdlib directly.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            created = DT.utcnow()
        db.execute("INSERT INTO item (created_at, updated_at) VALUES (?, ?)",
                   (created.isoformat(), DT.now().isoformat()))

    with monostamp.patch():
        for _ in range(rows):
            create_item()
    for column in ("created_at", "updated_at"):
        (dups,) = db.execute("SELECT COUNT(*) - COUNT(DISTINCT %s) FROM item" % column).fetchone()
        assert dups == 0
    (total,) = db.execute("SELECT COUNT(*) FROM item").fetchone()
    assert total == rows


def test_processes_sharing_a_file_give_one_sequence(tmp_path):
    # The two meet before they draw and half way (conftest.PY_MEET), so
    # their draws certainly interleave.
    code = PY_MEET + (
        "import sys, warnings, monostamp\n"
        "from datetime import datetime\n"
        "warnings.simplefilter('ignore')\n"
        "prefix, k = sys.argv[1], int(sys.argv[2])\n"
        "with monostamp.patch():\n"
        "    meet(prefix, 'start', k, 2)\n"
        "    vals = [datetime.utcnow().isoformat() for _ in range(1000)]\n"
        "    meet(prefix, 'half', k, 2)\n"
        "    vals += [datetime.utcnow().isoformat() for _ in range(1000)]\n"
        "print('\\n'.join(vals))\n"
    )
    env = dict(os.environ, MONOSTAMP_SHARED=str(tmp_path / "state"))
    prefix = str(tmp_path / "meet-")
    procs = [subprocess.Popen([sys.executable, "-c", code, prefix, str(k)], env=env,
                              stdout=subprocess.PIPE, text=True) for k in (1, 2)]
    outs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    everything = outs[0] + outs[1]
    assert len(everything) == 4000
    assert len(set(everything)) == 4000
    assert_overlapping(outs)  # ISO text of one offset sorts as its instants


def test_utcnow_keeps_its_deprecation_warning():
    with monostamp.patch(manual()):
        if sys.version_info >= (3, 12):
            with pytest.warns(DeprecationWarning, match="utcnow"):
                DT.utcnow()
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                DT.utcnow()


def test_subclasses_come_back_as_subclasses():
    class MyDateTime(DT):
        pass

    class MyDate(date):
        pass

    with monostamp.patch(manual()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            values = [MyDateTime.now(), MyDateTime.now(timezone.utc), MyDateTime.utcnow(),
                      MyDateTime.today()]
        d = MyDate.today()
    assert all(type(v) is MyDateTime for v in values), [type(v) for v in values]
    assert type(d) is MyDate and d == date(2026, 3, 29)
    assert values[0].year == 2026


def test_bad_arguments_raise_as_the_stdlib_does():
    with monostamp.patch(manual()):
        with pytest.raises(TypeError):
            DT.now(5)
        with pytest.raises(TypeError):
            DT.now(tz=timezone.utc, bogus=1)
        with pytest.raises(TypeError):
            DT.now(timezone.utc, timezone.utc)
        if HAVE_CLOCK_GETTIME:
            with pytest.raises(TypeError):
                time.clock_gettime("x")


# ------------------------------------------------------------ untouched

def test_calls_with_a_time_argument_and_monotonic_clocks_are_untouched():
    before = (time.monotonic(), time.perf_counter(), time.monotonic_ns())
    with monostamp.patch(manual(start_s=946684800)):  # 2000-01-01
        assert time.strftime("%Y", time.gmtime(0)) == "1970"
        assert time.gmtime(86400)[:3] == (1970, 1, 2)
        assert time.localtime(10**9).tm_year == 2001
        assert time.asctime(time.gmtime(0)) == "Thu Jan  1 00:00:00 1970"
        assert time.ctime(0).endswith("1970")
        assert DT.fromtimestamp(0, timezone.utc).year == 1970
        during = (time.monotonic(), time.perf_counter(), time.monotonic_ns())
        assert 0 <= during[0] - before[0] < 60
        assert 0 <= during[1] - before[1] < 60
        if HAVE_CLOCK_GETTIME:
            assert abs(time.clock_gettime(time.CLOCK_MONOTONIC) - time.monotonic()) < 60
        time.process_time()
        time.thread_time()
        assert time.time() < 10**9  # the patch is on
    assert is_real_time()


# --------------------------------------------------- start, stop, nesting
@cpython_only(EARLY_NAMES)
def test_real_time_again_after_stop_and_after_an_exception():
    with monostamp.patch(manual(start_s=946684800)):
        assert DT.now().year == 2000
    assert is_real_time()
    with pytest.raises(ZeroDivisionError):
        with monostamp.patch(manual(start_s=946684800)):
            assert imported_time() < 10**9
            1 / 0
    assert is_real_time()
    p = monostamp.patch(manual(start_s=946684800))
    assert p.start() is p and p.active
    assert time.gmtime().tm_year == 2000
    p.stop()
    assert not p.active
    assert is_real_time()


def test_nesting_innermost_wins_and_stop_restores_the_outer_one():
    outer = manual(start_s=946684800)   # 2000
    inner = manual(start_s=1262304000)  # 2010
    with monostamp.patch(outer):
        assert DT.now().year == 2000
        with monostamp.patch(inner):
            assert DT.now().year == 2010
            assert time.gmtime().tm_year == 2010
        assert DT.now().year == 2000
        # The outer clock went on from where it was: still increasing.
        a, b = time.time_ns(), time.time_ns()
        assert a < b
    assert is_real_time()


def test_stopping_out_of_order():
    outer = monostamp.patch(manual(start_s=946684800))
    inner = monostamp.patch(manual(start_s=1262304000))
    outer.start()
    inner.start()
    outer.stop()
    assert DT.now().year == 2010
    inner.stop()
    assert is_real_time()


def test_decorator_on_sync_and_async_functions():
    c = manual(start_s=946684800)

    @monostamp.patch(c)
    def sync():
        return DT.now().year

    @monostamp.patch(c)
    async def coro():
        await asyncio.sleep(0)
        return DT.now().year, time.gmtime().tm_year

    assert sync.__name__ == "sync"
    assert sync() == 2000
    assert is_real_time()
    assert asyncio.run(coro()) == (2000, 2000)
    assert is_real_time()


def test_manual_clock_fixture_wrapper_is_accepted(manual_clock):
    with monostamp.patch(manual_clock):
        assert DT.now().year == 2000
        assert manual_clock.stats()["readings"] >= 1


def test_default_clock_is_one_sequence_with_monostamp_time_ns():
    with monostamp.patch():
        values = []
        for _ in range(1000):
            values += [monostamp.time_ns(), time.time_ns(), us_of_float(time.time()) * 1000,
                       monostamp.now().utc_ns]
    assert all(a < b for a, b in zip(values, values[1:]))


# ---------------------------------------------------------- manual clocks

def run_on_manual_clock():
    c = manual(zone="Europe/Berlin")
    out = []
    with monostamp.patch(c):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for _ in range(100):
                out += [time.time(), time.time_ns(), DT.now(), DT.utcnow(), DT.today(),
                        date.today(), DT.now(timezone.utc), time.strftime("%H:%M:%S"),
                        uuid.uuid1().time]
                if HAVE_CLOCK_GETTIME:
                    out.append(time.clock_gettime_ns(time.CLOCK_REALTIME))
    return out


def test_manual_source_is_deterministic_and_every_call_moves_forward():
    assert run_on_manual_clock() == run_on_manual_clock()
    c = manual()
    with monostamp.patch(c):
        ns = [time.time_ns() for _ in range(10)]
        us = [naive_us(DT.now()) for _ in range(10)]
    # "Frozen but unique": the reading never moves, every stamp does, by
    # the policy's increment (1 ns; datetimes by the µs rule: 1 µs).
    assert [b - a for a, b in zip(ns, ns[1:])] == [1] * 9
    assert [b - a for a, b in zip(us, us[1:])] == [1] * 9
    c = manual(policy=Policy.MONOTONIC_FORCE_MICROSECOND_INCREMENT)
    with monostamp.patch(c):
        ns = [time.time_ns() for _ in range(10)]
    assert [b - a for a, b in zip(ns, ns[1:])] == [1000] * 9


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York"])
def test_naive_now_is_local_wall_time_of_the_stamp_through_dst(zone):
    zoneinfo = pytest.importorskip("zoneinfo")
    try:
        tz = zoneinfo.ZoneInfo(zone)
    except zoneinfo.ZoneInfoNotFoundError:
        pytest.skip("no tz database for %s" % zone)
    # Around 2026's spring-forward and fall-back in both zones, hourly.
    instants = []
    for day_s in (1773014400, 1774742400, 1792108800, 1793577600):  # 03-09, 03-29, 10-14, 11-01
        instants += [day_s - 86400 + h * 1800 for h in range(0, 144)]
    c = manual(start_s=instants[0] - 10, zone=zone)
    with monostamp.patch(c):
        for s in sorted(set(instants)):
            c.set(s * 10**9)  # the next µs stamp is exactly this reading
            naive = DT.now()
            expected = DT.fromtimestamp(s, tz).replace(tzinfo=None)
            assert naive == expected, (s, naive, expected)
            aware = DT.now(tz)  # the stdlib's conversion, one µs later
            assert aware == DT.fromtimestamp(s, tz) + datetime.timedelta(microseconds=1)
            assert aware.utcoffset() == DT.fromtimestamp(s, tz).utcoffset()


# ------------------------------------------------------------------- uuid

def test_uuid1_is_unique_and_ordered_while_patched():
    saved = getattr(uuid, "_generate_time_safe", None)
    with monostamp.patch(manual()):
        assert getattr(uuid, "_generate_time_safe", None) is None
        us = [uuid.uuid1() for _ in range(scaled(10_000, 1000))]
        if hasattr(uuid, "uuid7"):
            v7 = [uuid.uuid7() for _ in range(1000)]
            assert v7 == sorted(v7) and len(set(v7)) == len(v7)
    assert getattr(uuid, "_generate_time_safe", None) is saved
    times = [u.time for u in us]
    assert all(a < b for a, b in zip(times, times[1:]))
    assert len(set(us)) == len(us)
    # The manual clock's instant, in uuid's 100 ns ticks since 1582.
    assert times[0] == BERLIN_SPRING_S * 10**7 + 0x01B21DD213814000


UUID_MEMORY = ("_last_timestamp", "_last_timestamp_v6", "_last_timestamp_v7",
               "_last_counter_v7")


def test_stop_leaves_uuids_memory_as_the_stdlib_starts_it():
    """After stop(), each of uuid's last-timestamp fields this interpreter
    has holds what a fresh `import uuid` gives it (3.14's uuid7 counter
    starts at 0, the timestamps at None)."""
    fresh = subprocess.run(
        [sys.executable, "-c", "import uuid; print({n: getattr(uuid, n) for n in %r "
         "if hasattr(uuid, n)})" % (UUID_MEMORY,)],
        capture_output=True, text=True, check=True).stdout.strip()
    with monostamp.patch(manual()):
        uuid.uuid1()
        if hasattr(uuid, "uuid7"):
            uuid.uuid7()
    assert repr({n: getattr(uuid, n) for n in UUID_MEMORY if hasattr(uuid, n)}) == fresh


def test_stop_leaves_the_uuid7_counter_at_0(monkeypatch):
    """3.14's uuid7 counter, also where this interpreter's uuid has none
    (then put there as 3.14 starts it): a patch cycle leaves it at 0."""
    monkeypatch.setattr(uuid, "_last_counter_v7", 0, raising=False)
    with monostamp.patch(manual()):
        if hasattr(uuid, "uuid7"):
            uuid.uuid7()
            uuid.uuid7()
    assert uuid._last_counter_v7 == 0


# ---------------------------------------------- explicit unique conversions

def test_clock_time_and_now_datetime_are_unique():
    c = manual(zone="Europe/Berlin")
    floats = [c.time() for _ in range(5000)]
    dts = [c.now_datetime() for _ in range(5000)]
    assert len(set(floats)) == 5000 and floats == sorted(floats)
    assert len(set(dts)) == 5000 and dts == sorted(dts)
    assert dts[0].utcoffset() == datetime.timedelta(hours=1)
    assert c.now_datetime(timezone.utc).tzinfo is timezone.utc
    assert c.now_datetime(tz=None).utcoffset() == datetime.timedelta(hours=1)
    with pytest.raises(TypeError):
        c.now_datetime(5)
    with pytest.raises(TypeError):
        c.now_datetime(tz=timezone.utc, other=1)
    vals = [monostamp.time() for _ in range(2000)]
    assert len(set(vals)) == 2000
    d = [monostamp.now_datetime(timezone.utc) for _ in range(2000)]
    assert len(set(d)) == 2000 and all(x.tzinfo is timezone.utc for x in d)


# ------------------------------------------------------------ the lead bound

def test_a_million_tight_now_calls_lead_by_at_most_the_bound_and_stop_waits():
    """The issue's loop: 1,000,000 datetime.now() as fast as they come.
    Unique µs cannot be handed out faster than 1 M/s without leading the
    wall clock; the patch on the default clock waits at PATCH_MAX_LEAD_NS
    (measured every 64 draws, so up to 64 µs more), and stop() waits until
    the first real value is no more than the bound before the last patched
    one."""
    real = Clock(Policy.ACCEPT_PLATFORM_TIME)
    bound_ns = monostamp.PATCH_MAX_LEAD_NS + 64 * 1000
    now = DT.now
    with monostamp.patch():
        for _ in range(1_000_000):
            last = now(timezone.utc)
        lead_ns = round(last.timestamp() * 1e6) * 1000 - real.time_ns()
    first_real = DT.now(timezone.utc)
    assert lead_ns <= bound_ns, "lead %.3f ms" % (lead_ns / 1e6)
    assert (last - first_real).total_seconds() * 1e9 <= monostamp.PATCH_MAX_LEAD_NS
    assert monostamp.PATCH_MAX_LEAD_NS == 5_000_000


def test_a_clock_of_the_callers_keeps_its_own_lead_bound():
    """Clock(max_lead_ns=0): unbounded, as asked; the patch adds no bound of
    its own.  Only a loop faster than real time can show a lead, so the
    comparison is made when the loop was (as it is everywhere but under a
    sanitizer)."""
    real = Clock(Policy.ACCEPT_PLATFORM_TIME)
    started = time.monotonic()
    with monostamp.patch(Clock(STRICT, max_lead_ns=0)):
        for _ in range(200_000):
            last = time.time()
    took = time.monotonic() - started
    lead_s = last - real.time()
    if took < 0.1:
        assert lead_s > monostamp.PATCH_MAX_LEAD_NS / 1e9
    c = Clock(STRICT, max_lead_ns=2_000_000, on_lead="wait")
    with monostamp.patch(c):
        for _ in range(20_000):
            last = time.time()
        assert last - real.time() <= 0.002 + 1e-6
