"""monostamp.patch() beside time-machine and freezegun, in either nesting
order: while a travel or freeze is active its time is the time; when the
last one ends, the patch is back; and neither tool is left holding the
other's functions (after everything stops, real time, and the method
tables hold the interpreter's own functions).  Also the tools imported
only after a patch started (the import hook), patching()/patched(), and
fork while another thread is inside start() or stop()."""
import os
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from datetime import datetime as DT
from time import time as imported_time

import pytest

import monostamp
from conftest import cpython_only
from monostamp import Clock, Policy, _monostamp

STRICT = Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
Y2000 = 946684800
Y2010 = 1262304000


def manual(start_s=Y2010):
    return Clock(STRICT, source="manual", zone="UTC", start_ns=start_s * 10**9, max_lead_ns=0)


def is_real_time():
    real = Clock(Policy.ACCEPT_PLATFORM_TIME).time()
    return (abs(imported_time() - real) < 10 and abs(time.time_ns() / 1e9 - real) < 10
            and abs(DT.now().timestamp() - real) < 10)


def on_manual(start_s=Y2010):
    """time.time() reads the manual clock started at start_s (a few µs on)."""
    return start_s <= time.time() < start_s + 1


@pytest.fixture(autouse=True)
def nothing_left_behind():
    yield
    assert monostamp.patching() is None and not monostamp.patched()
    assert not _monostamp._installed() and _monostamp._foreign() == []
    assert is_real_time()
    assert getattr(uuid, "_generate_time_safe", None) is SAVED_UUID


SAVED_UUID = getattr(uuid, "_generate_time_safe", None)


@pytest.fixture
def time_machine():
    return pytest.importorskip("time_machine", reason="time-machine is a test dependency "
                               "(tools/install-deps.sh); not installed here")


@pytest.fixture
def freezegun():
    return pytest.importorskip("freezegun", reason="freezegun is a test dependency "
                               "(tools/install-deps.sh); not installed here")


# ------------------------------------------------------------ time-machine

def test_time_machine_inside_a_patch_wins_then_the_patch_resumes(time_machine):
    with monostamp.patch(manual()):
        assert on_manual() and monostamp.patched()
        with time_machine.travel(Y2000, tick=False):
            assert time.time() == Y2000 and imported_time() == Y2000
            assert DT.now().year == 2000
            assert not monostamp.patched() and monostamp.patching() is not None
            with time_machine.travel(0, tick=False):  # nested travels
                assert time.time() == 0
            assert time.time() == Y2000  # still travelling: not ours yet
        assert on_manual() and monostamp.patched()
        a, b = time.time_ns(), time.time_ns()
        assert a < b  # the manual clock went on where it was


def test_a_patch_inside_time_machine_waits_for_the_travel_to_end(time_machine):
    with time_machine.travel(Y2000, tick=False):
        p = monostamp.patch(manual()).start()
        assert time.time() == Y2000 and monostamp.patching() is p
        with monostamp.patch(manual(0)):
            assert time.time() == Y2000
        assert time.time() == Y2000
        p.stop()
        assert time.time() == Y2000
    # And a patch started in a travel that outlives it:
    traveller = time_machine.travel(Y2000, tick=False)
    traveller.start()
    p = monostamp.patch(manual()).start()
    traveller.stop()
    assert on_manual() and monostamp.patched()
    p.stop()


def test_time_machine_decorator_fixture_style_and_shift(time_machine):
    @time_machine.travel(Y2000, tick=False)
    def decorated():
        return time.time()

    with monostamp.patch(manual()):
        assert decorated() == Y2000
        assert on_manual()
        traveller = time_machine.travel(0, tick=False)
        t = traveller.start()  # as the time_machine fixture's move_to() does
        t.shift(10)
        assert time.time() == 10
        t.move_to(Y2000)
        assert time.time() == Y2000
        traveller.stop()
        assert on_manual()


def test_a_travel_that_fails_to_start_gives_the_patch_back(time_machine):
    with monostamp.patch(manual()):
        with pytest.raises(Exception):
            time_machine.travel("not a date").start()
        assert on_manual() and monostamp.patched()


# --------------------------------------------------------------- freezegun

def test_freezegun_inside_a_patch_wins_then_the_patch_resumes(freezegun):
    with monostamp.patch(manual()):
        with freezegun.freeze_time("2000-01-01"):
            assert time.time() == Y2000
            assert DT.now() == DT(2000, 1, 1)
            assert not monostamp.patched()
        assert on_manual() and monostamp.patched()
        assert getattr(uuid, "_generate_time_safe", None) is None  # uuid1 through ours again


def test_a_patch_inside_freezegun_waits_for_the_freeze_to_end(freezegun):
    with freezegun.freeze_time("2000-01-01"):
        with monostamp.patch(manual()):
            assert time.time() == Y2000
    freezer = freezegun.freeze_time("2000-01-01")
    freezer.start()
    p = monostamp.patch(manual()).start()
    freezer.stop()
    assert on_manual()
    p.stop()
@cpython_only("freezegun's tick=True, which freezegun refuses elsewhere")
def test_freezegun_ticking_and_decorators_on_a_patch(freezegun):
    @freezegun.freeze_time("2000-01-01")
    def decorated():
        return time.time()

    with monostamp.patch(manual()):
        assert decorated() == Y2000
        with freezegun.freeze_time("2000-01-01", tick=True):
            # Ticking reads the real clock (theirs, not ours): near 2000.
            assert Y2000 <= time.time() < Y2000 + 60
        with freezegun.freeze_time("2000-01-01", auto_tick_seconds=1):
            assert [time.time() for _ in range(2)] == [Y2000, Y2000 + 1]
        assert on_manual()


def test_both_tools_in_one_patch(time_machine, freezegun):
    with monostamp.patch(manual()):
        with freezegun.freeze_time("2000-01-01"):
            assert time.time() == Y2000
        with time_machine.travel(0, tick=False):
            assert time.time() == 0
        assert on_manual()


# ---------------------------------------------------- tools imported later

HOOK = textwrap.dedent("""
    import sys, time, monostamp
    assert "time_machine" not in sys.modules and "freezegun" not in sys.modules
    clock = monostamp.Clock(source="manual", start_ns=1262304000 * 10**9, max_lead_ns=0)
    with monostamp.patch(clock):
        import time_machine, freezegun      # imported while patched
        with time_machine.travel(0, tick=False):
            assert time.time() == 0, time.time()
        assert 1262304000 <= time.time() < 1262304001
        with freezegun.freeze_time("2000-01-01"):
            assert time.time() == 946684800
        assert 1262304000 <= time.time() < 1262304001
    assert abs(time.time() - monostamp.Clock(monostamp.Policy.ACCEPT_PLATFORM_TIME).time()) < 10
    import monostamp._monostamp as c
    assert c._foreign() == [] and not c._installed()
    print("ok")
""")


FIRST = textwrap.dedent("""
    import time, time_machine, freezegun, monostamp
    clock = monostamp.Clock(source="manual", start_ns=1262304000 * 10**9, max_lead_ns=0)
    for tool in (time_machine.travel(0, tick=False), freezegun.freeze_time("1970-01-01")):
        tool.start()                        # before any monostamp.patch() ever started
        p = monostamp.patch(clock).start()  # waits for it
        assert time.time() == 0, time.time()
        tool.stop()
        assert 1262304000 <= time.time() < 1262304001
        p.stop()
    assert abs(time.time() - monostamp.Clock(monostamp.Policy.ACCEPT_PLATFORM_TIME).time()) < 10
    print("ok")
""")


@pytest.mark.parametrize("script", [HOOK, FIRST], ids=["imported later", "started first"])
def test_tools_imported_later_or_started_before_any_patch(time_machine, freezegun, script):
    """In a fresh interpreter: a tool imported while a patch is active (the
    import hook wraps it), and a travel or freeze started before the first
    patch ever started (the patch waits, and resumes at its stop)."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr


# ----------------------------------------------------------- introspection

def test_patching_and_patched():
    assert monostamp.patching() is None and not monostamp.patched()
    clock = manual()
    with monostamp.patch(clock) as outer:
        assert monostamp.patching() is outer and outer.clock is clock
        assert monostamp.patched()
        with monostamp.patch() as inner:
            assert monostamp.patching() is inner and inner.clock is None
        assert monostamp.patching() is outer
    assert monostamp.patching() is None and not monostamp.patched()


# -------------------------------------------------------------------- fork

FORK_CHILD_DEADLINE_S = 1.0


def _child_can_patch():
    """In a forked child: start and stop a patch within the deadline, exit 0
    if it could.  SIGALRM's default action ends a hang: a Python handler
    would never run in a thread blocked on a C lock."""
    import signal
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, FORK_CHILD_DEADLINE_S)
    try:
        with monostamp.patch(manual()):
            ok = on_manual()
        ok = ok and is_real_time()
    except BaseException:
        os._exit(2)
    os._exit(0 if ok else 1)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() here")
def test_fork_while_another_thread_is_inside_start_or_stop():
    """10 of 10 children forked while another thread holds the lock that
    start() and stop() take (the patch state's one lock: the C half has
    none) can patch and unpatch within a second.  The holder waits at a
    barrier, so every fork certainly happens while it holds the lock."""
    from monostamp import _patching
    results = []
    for _ in range(10):
        holding, release = threading.Barrier(2), threading.Event()

        def hold():
            with _patching._lock:
                holding.wait()
                release.wait()

        t = threading.Thread(target=hold)
        t.start()
        holding.wait()
        import warnings
        with warnings.catch_warnings():  # 3.12+: fork of a multi-threaded process
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            _child_can_patch()
        release.set()
        t.join()
        _, status = os.waitpid(pid, 0)
        results.append(os.waitstatus_to_exitcode(status))
    assert results == [0] * 10
