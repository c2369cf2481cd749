"""monostamp.sleep() and sleep_until_ns() with their Python finish
(monostamp/_sleep.py, issue 23): the core sleeps to a learned lead before
the deadline and a Python spin ends the sleep.  No timed assertion: how late
a sleep is, is the benchmark's (bench/python/bench_sleep.py); these hold the
parts that cannot be a matter of load -- never early, which path the
tolerance picks, the lead's learning, signals, errors."""
import os
import signal
import subprocess
import sys
import threading

import pytest

import monostamp
from monostamp import _monostamp, _sleep

MS = 1_000_000


@pytest.fixture
def fresh_leads():
    """Every band back to its starting lead, for the test and after it."""
    _sleep._reset()
    yield
    _sleep._reset()


@pytest.fixture
def core_calls(monkeypatch):
    """The core sleeps the finish asks for, recorded as (deadline, tolerance)
    and still made."""
    calls = []
    real = _sleep._sleep_until_core

    def spy(deadline_ns, tolerance_ns):
        calls.append((deadline_ns, tolerance_ns))
        real(deadline_ns, tolerance_ns)
    monkeypatch.setattr(_sleep, "_sleep_until_core", spy)
    return calls


@pytest.fixture
def spins(monkeypatch):
    """What the finish did after the core's part: "warm" for each call of
    _warm (made, not replaced), "read" for each clock reading."""
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


def test_the_public_functions_are_the_extensions_and_go_through_the_finish(core_calls):
    assert monostamp.sleep is _monostamp.sleep
    assert monostamp.sleep_until_ns is _monostamp.sleep_until_ns
    monostamp.sleep(0.002, tolerance=0)
    deadline = monostamp.monotonic_ns() + 2 * MS
    lead = _sleep.lead_ns(2 * MS)  # before the sleep, which may move it
    monostamp.sleep_until_ns(deadline, 0)
    assert len(core_calls) == 2  # the finish ran both (it holds the spy)
    assert core_calls[1] == (deadline - lead, 0)


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


def test_tight_tolerance_sleeps_to_the_lead_then_spins(fresh_leads, core_calls, spins):
    _sleep._set_lead(3 * MS, 200_000)  # long enough that the spin surely turns
    deadline = monostamp.monotonic_ns() + 3 * MS
    monostamp.sleep_until_ns(deadline, 10_000)
    assert core_calls == [(deadline - 200_000, 0)]
    assert monostamp.monotonic_ns() >= deadline
    # Start, observation, the warming sleep_until_ns(0) (its own two
    # readings), then the spin's.
    assert spins[:5] == ["read", "read", "warm", "read", "read"]
    # The core's return came 200 us early unless this thread was preempted
    # for that long; then there is nothing left to spin, which is allowed.
    assert len(spins) >= 6 or monostamp.monotonic_ns() - (deadline - 200_000) > 200_000


def test_a_tolerance_that_covers_the_lead_is_the_cores_alone(fresh_leads, core_calls, spins):
    lead = _sleep.lead_ns(3 * MS)
    deadline = monostamp.monotonic_ns() + 3 * MS
    monostamp.sleep_until_ns(deadline, lead + 7_000)
    # The core may use what the lead leaves of the tolerance, and no spin:
    # the start's reading and the observation's alone.
    assert core_calls == [(deadline, 7_000)]
    assert spins == ["read", "read"]
    # That sleep's lateness taught the band (a loaded machine raises it).
    lead = _sleep.lead_ns(3 * MS)
    monostamp.sleep(0.003, tolerance=lead / 1e9)
    assert core_calls[1][1] == 0 and spins == ["read"] * 4


def test_a_sleep_shorter_than_any_lead_is_the_spin_alone(core_calls, spins):
    monostamp.sleep_until_ns(monostamp.monotonic_ns() + _sleep.LEAD_MIN_NS // 2, 0)
    monostamp.sleep(1e-6, 0)
    assert core_calls == [] and "warm" not in spins


def test_a_past_deadline_returns_at_once(core_calls, spins):
    monostamp.sleep_until_ns(-2**63, 0)
    monostamp.sleep_until_ns(monostamp.monotonic_ns() - 1, 0)
    monostamp.sleep(0, 0)
    # Each: the start's reading, past the deadline, and the spin's first.
    assert core_calls == [] and spins == ["read", "read"] * 3


def test_the_lead_stays_in_its_band(fresh_leads):
    for _ in range(60):
        monostamp.sleep(300e-6, 0)
    learned = _sleep.lead_ns(300_000)
    assert _sleep.LEAD_MIN_NS <= learned <= _sleep.LEAD_MAX_NS
    assert _sleep._seen == [False, False, True, False, False, False, False]
    # Each band holds only its own lengths (limits by powers of 10).
    assert [_sleep._band(n) for n in (9_999, 10_000, 99_999, 100_000, 999_999, 10**6,
                                      10**7, 10**8, 10**9, 10**12)] == [0, 1, 1, 2, 2, 3, 4, 5, 6, 6]


def test_the_lead_rises_at_once_by_at_most_four_times_and_falls_slowly(fresh_leads):
    b = _sleep._band(3 * MS)
    start = _sleep._lead(b)
    _sleep._observe(b, 40_000, True)  # wants 40 + 10 + 2 us
    assert _sleep._lead(b) == max(start, 52_000)
    _sleep._observe(b, 10**9, True)  # a preemption: clamped, and at most 4x
    assert _sleep._lead(b) == min(4 * 52_000, _sleep.LEAD_MAX_NS)
    high = _sleep._lead(b)
    _sleep._observe(b, 0, True)
    assert _sleep._lead(b) == high - -(-(high - _sleep.LEAD_MIN_NS) // 32)
    lowered = _sleep._lead(b)
    _sleep._observe(b, 0, False)  # a lower bound only: never lowers
    assert _sleep._lead(b) == lowered
    for _ in range(2000):
        _sleep._observe(b, 0, True)
    assert _sleep._lead(b) == _sleep.LEAD_MIN_NS  # the floor


def test_an_unseen_band_starts_from_a_longer_lead_seen_below_it(fresh_leads):
    b = _sleep._band(30 * MS)
    own = _sleep._lead(b)
    _sleep._set_lead(3 * MS, own + 50_000)
    assert _sleep._lead(b) == own + 50_000
    _sleep._set_lead(3 * MS, _sleep.LEAD_MIN_NS)
    assert _sleep._lead(b) == own  # its own start, when higher
    _sleep._observe(b, 0, True)  # its first observation starts from that
    assert _sleep._lead(b) == own - -(-(own - _sleep.LEAD_MIN_NS) // 32)


CHILD = r"""
import linecache, signal, sys, time
import monostamp
from monostamp import _sleep
# Python raises KeyboardInterrupt only if SIGINT was not ignored when it
# started, and a job a non-interactive shell puts in the background starts
# with SIGINT ignored: make it Python's own handler whoever started the run.
signal.signal(signal.SIGINT, signal.default_int_handler)
if sys.argv[1] == "spin":
    # The core's part made nothing: the whole 30 s is the Python spin.
    _sleep._sleep_until_core = lambda deadline_ns, tolerance_ns: None
t0 = time.monotonic()
try:
    print("ready", flush=True)
    monostamp.sleep(30, tolerance=0)
    print("not interrupted", flush=True)
except KeyboardInterrupt:
    tb = sys.exc_info()[2]
    while tb.tb_next:
        tb = tb.tb_next
    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
    where = "core" if "_sleep_until_core(" in line else tb.tb_frame.f_code.co_name
    print("interrupted in", where, "after", int(time.monotonic() - t0), "s", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(pid, SIGINT) terminates a process "
                    "on Windows; Ctrl-C there is a console event")
@pytest.mark.parametrize("part", ["spin", "core"])
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


def test_without_the_finish_the_core_sleeps_alone(core_calls, spins):
    _monostamp._sleep_finish(None)
    try:
        deadline = monostamp.monotonic_ns() + MS
        monostamp.sleep_until_ns(deadline, 0)
        assert monostamp.monotonic_ns() >= deadline
        monostamp.sleep(0.001, 0)
    finally:
        _monostamp._sleep_finish(_sleep._finish)
    assert core_calls == [] and spins == []


def test_bad_arguments_name_the_value():
    with pytest.raises(ValueError, match=r"^sleep\(-0.5, tolerance=None\): seconds and tolerance"):
        monostamp.sleep(-0.5)
    with pytest.raises(ValueError, match=r"tolerance=-1e-06"):
        monostamp.sleep(1e-3, tolerance=-1e-6)
    with pytest.raises(ValueError, match=r"seconds=inf is out of range"):
        monostamp.sleep(float("inf"))
    with pytest.raises(ValueError, match=r"the deadline is out of range"):
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


def test_an_error_in_the_finish_reaches_the_caller(monkeypatch):
    def broken(deadline_ns, tolerance_ns):
        raise RuntimeError("finish %d %d" % (deadline_ns > 0, tolerance_ns))
    _monostamp._sleep_finish(broken)
    try:
        with pytest.raises(RuntimeError, match="finish 1 7"):
            monostamp.sleep_until_ns(monostamp.monotonic_ns() + MS, 7)
    finally:
        _monostamp._sleep_finish(_sleep._finish)
