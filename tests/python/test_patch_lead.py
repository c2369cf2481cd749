"""A patched run stays within the patch's lead bound of real time from its
first stamp: the pytest plugin's state file starts at the real clock, each
patched draw is held to 5 ms by the core (against a reference of real time),
and stop() leaves the real clock within 5 ms of the last patched value.

Real time is read with an acceptPlatformTime Clock: the raw wall clock,
which no patch touches.
"""
import pytest

import monostamp
from conftest import scaled

BOUND = monostamp.PATCH_MAX_LEAD_NS

DRAWERS = """
import datetime, time
import monostamp

REAL = monostamp.Clock(policy="acceptPlatformTime")
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
US = datetime.timedelta(microseconds=1)


def lead_of_draws(seconds):
    # The first patched value of this process, then as many as fit in
    # `seconds`, each against a real reading taken just after it.
    worst = first = None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(500):
            t = time.time_ns()
            lead = t - REAL.time_ns()
            d = datetime.datetime.now(datetime.timezone.utc)
            lead = max(lead, (d - EPOCH) // US * 1000 - REAL.time_ns())
            first = lead if first is None else first
            worst = lead if worst is None else max(worst, lead)
    return first, worst

{tests}
"""

ONE_DRAWER = """
def test_draws_{i}():
    first, worst = lead_of_draws({seconds})
    assert first <= {bound}, first
    assert worst <= {bound}, worst
"""


@pytest.mark.parametrize("workers", [None, 4])
def test_every_patched_value_is_within_the_bound_from_the_first(pytester, monkeypatch, workers):
    if workers:
        pytest.importorskip("xdist", reason="pytest-xdist is not installed")
    monkeypatch.delenv("MONOSTAMP_SHARED", raising=False)
    tests = "".join(ONE_DRAWER.format(i=i, seconds=scaled(2), bound=BOUND) for i in range(4))
    pytester.makepyfile(DRAWERS.format(tests=tests))
    args = ["--monostamp-patch", "-p", "no:cacheprovider"]
    if workers:
        args += ["-n", str(workers)]
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=4)


NEW_USER = {
    "stamp": """
from datetime import datetime, timezone

def test_a_stamp_is_not_in_the_future(monostamp_clock):
    assert monostamp_clock.now().datetime() <= datetime.now(timezone.utc)
""",
    "sleep": """
import time

def test_a_sleep_is_measured_whole():
    t0 = time.time()
    time.sleep(0.2)
    assert time.time() - t0 >= 0.2
""",
}


@pytest.mark.parametrize("patched", [False, True])
@pytest.mark.parametrize("name", sorted(NEW_USER))
def test_a_new_users_first_test(pytester, monkeypatch, name, patched):
    monkeypatch.delenv("MONOSTAMP_SHARED", raising=False)
    pytester.makepyfile(NEW_USER[name])
    args = ["-p", "no:cacheprovider"] + (["--monostamp-patch"] if patched else [])
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=1)


STOP = """
import sys, time
import monostamp

BOUND, N = monostamp.PATCH_MAX_LEAD_NS, int(sys.argv[2])
monostamp.create_state_file(sys.argv[1])
real = monostamp.Clock(policy="acceptPlatformTime")
leads = []
with monostamp.patch(monostamp.Clock(shared=sys.argv[1], max_lead_ns=BOUND)):
    for _ in range(N):
        last = time.time_ns()
leads.append(last - real.time_ns())
with monostamp.patch():
    for _ in range(N):
        last = time.time_ns()
leads.append(last - real.time_ns())
assert max(leads) <= BOUND, leads
"""


def test_stop_leaves_the_real_clock_within_the_bound(tmp_path):
    # A fresh state file (as the plugin makes one) and the default clock of
    # a fresh process, each patched and drawn as fast as it can, then
    # stop(): the next real reading is at most the bound before the last
    # patched value.
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", STOP, str(tmp_path / "state"), str(scaled(200000))],
                   check=True, timeout=120)
