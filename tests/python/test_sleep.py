"""monostamp.sleep() and sleep_until_ns() with their Python finish
(monostamp/_sleep.py): the core's plan (csrc/sleep_finish.c,
whose rules tests/c/test_sleep_finish.c holds) sleeps to a learned lead
before the deadline and a Python spin ends the sleep.  No timed assertion:
how late a sleep is, is the benchmark's (bench/python/bench_sleep.py); these
hold the parts that cannot be a matter of load -- never early, which path
the tolerance picks, signals, errors."""
import os
import signal
import subprocess
import sys
import threading

import pytest

import monostamp
from conftest import SLEEP_FINISH, cpython_only
from monostamp import _monostamp, _sleep

MS = 1_000_000
# MONOSTAMP_SLEEP_LEAD_MAX_NS (monostamp.h): a tolerance above it covers
# every lead, however the machine has taught it.
LEAD_MAX_NS = 250_000


@pytest.fixture
def finishes(monkeypatch):
    """The calls of the finish, recorded as (deadline, plan or None) and
    still made."""
    calls = []

    def spy(deadline_ns, plan):
        calls.append((deadline_ns, plan))
        _sleep._finish(deadline_ns, plan)
    _monostamp._sleep_finish(spy)
    yield calls
    _monostamp._sleep_finish(_sleep._finish)


@pytest.fixture
def spins(monkeypatch):
    """What the finish did: "warm" for each call of _warm (made, not
    replaced), "read" for each clock reading in Python."""
    seen = []
    real_warm, real_now = _sleep._warm, _sleep.monotonic_ns

    def warm():
        seen.append("warm")
        real_warm()

    def now():
        seen.append("read")
        return real_now()
    monkeypatch.setattr(_sleep, "_warm", warm)
    monkeypatch.setattr(_sleep, "monotonic_ns", now)
    return seen
@cpython_only(SLEEP_FINISH)
def test_the_public_functions_are_the_extensions_and_go_through_the_finish(finishes):
    assert monostamp.sleep is _monostamp.sleep
    assert monostamp.sleep_until_ns is _monostamp.sleep_until_ns
    monostamp.sleep(0.002, tolerance=0)
    deadline = monostamp.monotonic_ns() + 2 * MS
    monostamp.sleep_until_ns(deadline, 0)
    # Each: the finish after the core's part, then the warming call's.
    plan = _monostamp._SleepPlan
    assert [type(p) for _, p in finishes] == [plan, type(None)] * 2
    assert [d for d, _ in finishes][1:3] == [0, deadline]


@pytest.mark.parametrize("tolerance_ns", [0, 1_000, 20_000, monostamp.DEFAULT_SLEEP_TOLERANCE_NS,
                                          300_000, 2 * MS])
def test_never_early(tolerance_ns):
    early = []
    for length_ns in [0, 1, 1_000, 14_000, 16_000, 50_000, 120_000, 300_000, 1_200_000] * 6:
        deadline = monostamp.monotonic_ns() + length_ns
        monostamp.sleep_until_ns(deadline, tolerance_ns=tolerance_ns)
        woke = monostamp.monotonic_ns()
        if woke < deadline:
            early.append(("sleep_until_ns", length_ns, deadline - woke))
        start = monostamp.monotonic_ns()
        monostamp.sleep(length_ns / 1e9, tolerance=tolerance_ns / 1e9)
        if monostamp.monotonic_ns() - start < length_ns:
            early.append(("sleep", length_ns))
    assert early == []


def test_never_early_from_threads_at_once():
    # The finish's state is shared; four threads sleep through it together
    # (the barrier makes the overlap certain).
    barrier = threading.Barrier(4)
    early = []

    def sleeper(k):
        barrier.wait()
        for i in range(40):
            length = (50_000, 300_000, 2 * MS)[(i + k) % 3]
            deadline = monostamp.monotonic_ns() + length
            monostamp.sleep_until_ns(deadline, 0)
            if monostamp.monotonic_ns() < deadline:
                early.append(length)
    threads = [threading.Thread(target=sleeper, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert early == []
@cpython_only(SLEEP_FINISH)
def test_tight_tolerance_sleeps_in_the_core_then_warms_and_spins(spins):
    deadline = monostamp.monotonic_ns() + 3 * MS
    monostamp.sleep_until_ns(deadline, 0)
    assert monostamp.monotonic_ns() >= deadline
    # The reading the plan learns from, the warming sleep_until_ns(0) (its
    # own finish reads once: past), then the spin's.
    assert spins[:3] == ["read", "warm", "read"]
    assert spins.count("warm") == 1 and len(spins) >= 4
@cpython_only(SLEEP_FINISH)
def test_a_tolerance_that_covers_the_lead_is_the_cores_alone(spins, finishes):
    deadline = monostamp.monotonic_ns() + 3 * MS
    monostamp.sleep_until_ns(deadline, LEAD_MAX_NS + 7_000)
    # The reading the plan learns from, and no warming, no spin.
    assert spins == ["read"] and finishes[0][1] is not None
    monostamp.sleep(0.003, tolerance=2 * LEAD_MAX_NS / 1e9)
    assert spins == ["read"] * 2
@cpython_only(SLEEP_FINISH)
def test_a_sleep_shorter_than_any_lead_is_the_spin_alone(spins, finishes):
    monostamp.sleep_until_ns(monostamp.monotonic_ns() + 5_000, 0)
    monostamp.sleep(1e-6, 0)
    assert [plan for _, plan in finishes] == [None, None] and "warm" not in spins
@cpython_only(SLEEP_FINISH)
def test_a_past_deadline_returns_at_once(spins, finishes):
    monostamp.sleep_until_ns(-2**63, 0)
    monostamp.sleep_until_ns(monostamp.monotonic_ns() - 1, 0)
    monostamp.sleep(0, 0)
    # Each: the spin's first reading, past the deadline.
    assert spins == ["read"] * 3 and [plan for _, plan in finishes] == [None] * 3
@cpython_only(SLEEP_FINISH)
def test_the_plan_is_the_cores_and_private(finishes):
    monostamp.sleep(0.001, 0)
    plan = finishes[0][1]
    assert plan.step(monostamp.monotonic_ns()) is False  # its last step is made
    with pytest.raises(TypeError, match="now_ns must be int, not str"):
        plan.step("0")
    with pytest.raises(TypeError):
        _monostamp._SleepPlan()


CHILD = r"""
import signal, sys, time
import monostamp
# Python raises KeyboardInterrupt only if SIGINT was not ignored when it
# started, and a job a non-interactive shell puts in the background starts
# with SIGINT ignored: make it Python's own handler whoever started the run.
signal.signal(signal.SIGINT, signal.default_int_handler)
t0 = time.monotonic()
try:
    print("ready", flush=True)
    if sys.argv[1] == "spin":  # the finish with no core part: 30 s of spin
        monostamp._sleep._finish(monostamp.monotonic_ns() + 30 * 10**9, None)
    else:
        monostamp.sleep(30, tolerance=0)
    print("not interrupted", flush=True)
except KeyboardInterrupt:
    tb = sys.exc_info()[2]
    while tb.tb_next:
        tb = tb.tb_next
    # The naps are C's: interrupted there, the innermost frame is the
    # caller's, this script's.
    where = tb.tb_frame.f_code.co_name
    where = "core" if where == "<module>" else where
    print("interrupted in", where, "after", int(time.monotonic() - t0), "s", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(pid, SIGINT) terminates a process "
                    "on Windows; Ctrl-C there is a console event")
@pytest.mark.parametrize("part", ["spin", pytest.param("core", marks=cpython_only(
    "the C half's naps, interrupted with no Python frame of their own"))])
def test_ctrl_c_interrupts_the_sleep(part, tmp_path):
    # A child, so that SIGINT hits nothing but it; no SIGALRM (pytest's
    # own timeouts may use it).  "spin": SIGINT during the Python spin;
    # "core": during the core's part (the C half runs handlers every 50 ms).
    child = subprocess.Popen([sys.executable, "-c", CHILD, part], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert child.stdout.readline().strip() == "ready"
        try:
            child.wait(timeout=0.5)  # well inside the sleep
        except subprocess.TimeoutExpired:
            pass
        os.kill(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    # The spin's innermost frame is _finish's loop.
    where = ("_finish",) if part == "spin" else ("core",)
    words = out.split()
    assert words[:2] == ["interrupted", "in"] and words[2] in where and words[3] == "after", \
        out + err
    assert int(out.split()[4]) < 20


def test_without_the_finish_the_core_sleeps_alone(spins):
    _monostamp._sleep_finish(None)
    try:
        deadline = monostamp.monotonic_ns() + MS
        monostamp.sleep_until_ns(deadline, 0)
        assert monostamp.monotonic_ns() >= deadline
        monostamp.sleep(0.001, 0)
    finally:
        _monostamp._sleep_finish(_sleep._finish)
    assert spins == []


def test_bad_arguments_name_the_value():
    with pytest.raises(ValueError, match=r"^sleep\(\): seconds must be >= 0, not -0.5$"):
        monostamp.sleep(-0.5)
    with pytest.raises(ValueError, match=r"^sleep\(\): tolerance must be >= 0, not -1e-06$"):
        monostamp.sleep(1e-3, tolerance=-1e-6)
    with pytest.raises(ValueError, match=r"seconds=inf is out of range"):
        monostamp.sleep(float("inf"))
    with pytest.raises(ValueError, match=r"ns ends past the monotonic clock's range"):
        monostamp.sleep(2**63 // 10**9)  # now + that passes INT64_MAX after 1 s of uptime
    with pytest.raises(TypeError, match="tolerance must be int or float, not str"):
        monostamp.sleep(0, tolerance="0")
    with pytest.raises(ValueError, match=r"deadline_ns=9223372036854775808 is out of range"):
        monostamp.sleep_until_ns(2**63)
    with pytest.raises(TypeError, match="tolerance_ns must be int, not float"):
        monostamp.sleep_until_ns(0, 0.5)
    with pytest.raises(TypeError):
        monostamp.sleep()
    with pytest.raises(TypeError, match="finish must be callable, not int"):
        _monostamp._sleep_finish(5)
@cpython_only(SLEEP_FINISH)
def test_an_error_in_the_finish_reaches_the_caller(monkeypatch):
    def broken(deadline_ns, plan):
        raise RuntimeError("finish %d %s" % (deadline_ns > 0, type(plan).__name__))
    _monostamp._sleep_finish(broken)
    try:
        with pytest.raises(RuntimeError, match="finish 1 _SleepPlan"):
            monostamp.sleep_until_ns(monostamp.monotonic_ns() + MS, 7)
    finally:
        _monostamp._sleep_finish(_sleep._finish)
