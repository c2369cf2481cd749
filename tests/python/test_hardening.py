"""Regression tests for faults found by attacking the landed tree:
each failed before its fix."""
import os
import signal
import subprocess
import sys
import time

import pytest

import monostamp
from conftest import posix_only
from monostamp import Clock, Stamp


def test_sleep_until_the_smallest_deadline_returns(tmp_path):
    # deadline - now overflowed and the sleep never ended; a subprocess with
    # a timeout turns a hang into a failure.
    code = "import monostamp; monostamp.sleep_until_ns(-2**63); print('back')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=20, cwd=tmp_path)
    assert out.stdout.strip() == "back", out.stderr


def test_format_and_parse_agree_at_the_start_of_the_range():
    s = Stamp(-2**63, 0)
    # Cut to whole seconds (or µs), the earliest instant falls before int64.
    with pytest.raises(ValueError):
        s.isoformat(digits=0)
    with pytest.raises(ValueError):
        s.isoformat(digits=6)
    text = s.isoformat(digits=9)
    assert Stamp.fromisoformat(text) == s
    with pytest.raises(ValueError):
        Stamp.fromisoformat("1677-09-21T00:12:43Z")


@pytest.mark.parametrize("zone", ["XXX-24:59:59", "XXX-24", "XXX24", "XXX-23:30YYY"])
def test_offsets_of_a_day_or_more_are_refused(zone):
    with pytest.raises(ValueError):
        Clock(zone=zone)


def test_zone_names_stay_in_the_database(tmp_path):
    with pytest.raises(ValueError):
        Clock(zone="/usr/share/zoneinfo/UTC")
    with pytest.raises(ValueError):
        Clock(zone="Europe/../Europe/Berlin")


@posix_only("no FIFOs in a Windows file system")
def test_a_fifo_in_the_database_is_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code = ("import monostamp, os\n"
            "os.environ['TZDIR'] = %r\n"
            "try:\n"
            "    monostamp.Clock(zone='fifo')\n"
            "except ValueError:\n"
            "    print('refused')\n" % str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=20, cwd=tmp_path)
    assert out.stdout.strip() == "refused", out.stderr


@posix_only("chmod writes mode bits, not the DACL Windows checks (tests/c/test_shared.c)")
def test_state_files_others_could_write_are_refused(tmp_path):
    path = tmp_path / "world.state"
    Clock(shared=str(path))  # a good file of ours
    os.chmod(path, 0o666)
    with pytest.raises(PermissionError) as info:
        Clock(shared=str(path))
    assert info.value.filename == str(path)
    assert "another user could write" in str(info.value)
    link = tmp_path / "link.state"
    os.chmod(path, 0o600)
    os.symlink(path, link)
    with pytest.raises(PermissionError):
        Clock(shared=str(link))
    Clock(shared=str(path))  # the file itself is fine again


def test_accept_platform_time_counts_backward_steps():
    c = Clock(policy="acceptPlatformTime", source="manual", start_ns=5_000)
    c.time_ns()
    c.advance(-3_000)
    assert c.time_ns() == 2_000
    st = c.stats()
    assert st["backward_steps"] == 1
    assert st["largest_backward_ns"] == 3_000


def test_bad_values_are_named():
    with pytest.raises(ValueError, match=r"offset=30 s is not whole minutes"):
        Stamp(0, 30).isoformat()
    with pytest.raises(ValueError, match=r"digits=2147483648 is out of range"):
        Stamp(0, 0).isoformat(digits=2**31)
    with pytest.raises(ValueError, match=r"shared='' must be a non-empty path"):
        Clock(shared="")


@posix_only("a group's mode bits; Windows' DACL is checked in tests/c/test_shared.c")
def test_trust_group_opens_a_group_file(tmp_path):
    path = tmp_path / "group.state"
    Clock(shared=str(path), trust_group=True)
    assert os.stat(path).st_mode & 0o777 == 0o660
    with pytest.raises(PermissionError):
        Clock(shared=str(path))  # not without the opt-in
    Clock(shared=str(path), trust_group=True)


def _pushed_clock(tmp_path, ahead_ns, **kwargs):
    # A manual clock pushes the shared file `ahead_ns` past the wall clock;
    # the realtime clock with a 10 ms lead bound then has to wait.
    path = tmp_path / "pushed.state"
    now = time.time_ns()
    # Its 1 ms bound makes the file it creates start 1 ms above the wall
    # clock (a new file starts its creator's bound above it), below the push.
    pusher = Clock(source="manual", start_ns=now + ahead_ns, shared=str(path),
                   max_lead_ns=1_000_000)
    pusher.time_ns()
    return Clock(shared=str(path), max_lead_ns=10_000_000, **kwargs)


def test_a_lead_no_draw_could_make_goes_on_at_once(tmp_path):
    # An hour ahead: no draw of a bounded clock leads that far (a file
    # written ahead, a step the anchor never saw).  Neither an error nor an
    # hour's wait: the clock goes on from there, its bound counted from there.
    ahead = 3600 * 10**9
    c = _pushed_clock(tmp_path, ahead)
    start = time.monotonic()
    first = c.time_ns()
    assert first > time.time_ns() + ahead - 10**9
    assert c.time_ns() == first + 1
    assert time.monotonic() - start < 1.0


@posix_only("SIGALRM and setitimer interrupt the wait")
def test_ctrl_c_ends_a_lead_wait(tmp_path):
    # SIGALRM's handler raises while the stamp waits (~80 ms) with the GIL
    # released: the exception comes out of time_ns(), the state unchanged.
    class Interrupted(Exception):
        pass

    def handler(signum, frame):
        raise Interrupted()

    c = _pushed_clock(tmp_path, 90_000_000)
    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.02)
        with pytest.raises(Interrupted):
            c.time_ns()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert c.time_ns() > 0  # and the clock works on


def test_set_policy_says_it_is_this_process_s():
    assert "other processes" in monostamp.set_policy.__doc__


def test_a_saturated_shared_clock_blames_its_file(tmp_path):
    # The core's sentence, as every binding shows it; the file is the clock's.
    path = tmp_path / "full.state"
    c = Clock(source="manual", start_ns=2**63 - 1, shared=str(path))
    assert c.time_ns() == 2**63 - 1
    with pytest.raises(ValueError) as info:
        c.time_ns()
    assert str(info.value) == ("Clock.time_ns(): the next stamp would pass the largest int64 "
                               "nanosecond (2262-04-11T23:47:16.854775807Z) -- the state file's "
                               "sequence has reached it: share a new state file")
    assert c.shared == str(path)
