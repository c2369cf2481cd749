"""A stamp that waits for the lead bound lets the other threads run, and a
signal handler's exception ends the wait: on a Clock and on the default
clock alike, with the state unchanged when the wait is cut short.

Each case runs in a child, whose default clock joins the state file through
MONOSTAMP_SHARED; a manual clock in the child then pushes that file ahead
of the wall clock, so that the next stamp must wait (about 0.8 s).  Nothing
here depends on how long the wait takes: the other thread counts its turns
while the stamp is under way, and raises the signal only once it has had a
few, which it can get only if the waiting thread let the GIL go.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import cpython_only

CHILD = r"""
import json, os, signal, sys, threading, time
import monostamp

which, action = sys.argv[1], sys.argv[2]
path = os.environ["MONOSTAMP_SHARED"]
clock = monostamp if which == "default" else monostamp.Clock(shared=path)
bound = monostamp.Clock().max_lead_ns  # the default bound, the default clock's too
# The pusher's own 1 ms bound keeps it from waiting; the file ends up
# `bound` + 0.8 s ahead, 0.8 s more than a stamp may lead: within the
# bound + 0.1 s that one stamp may wait for.
pusher = monostamp.Clock(source="manual", start_ns=time.time_ns() + bound + 800_000_000,
                         shared=path, max_lead_ns=1_000_000)
pushed = pusher.time_ns()

class Interrupted(Exception):
    pass

def handler(signum, frame):
    raise Interrupted()

signal.signal(signal.SIGINT, handler)
entered = threading.Event()
done = threading.Event()
turns = []

def other_thread():
    # Counts its turns from when the stamp is about to start until it is
    # back: only a stamp that lets the GIL go gives it many.
    entered.wait()
    while not done.is_set():
        turns.append(1)
        if action == "interrupt" and len(turns) == 5:
            signal.raise_signal(signal.SIGINT)
        time.sleep(0.001)

t = threading.Thread(target=other_thread)
t.start()
outcome = "stamp"
entered.set()
try:
    stamp = clock.time_ns()
except Interrupted:
    outcome, stamp = "interrupted", None
done.set()
t.join()
print(json.dumps({"outcome": outcome, "turns": len(turns), "stamp": stamp,
                  "pushed": pushed, "pusher_next": pusher.time_ns()}))
"""


def run_child(tmp_path, which, action):
    env = dict(os.environ, MONOSTAMP_SHARED=str(tmp_path / "pushed.state"))
    done = subprocess.run([sys.executable, "-c", CHILD, which, action], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("which", ["default", "clock"])
def test_other_threads_run_while_a_stamp_waits(tmp_path, which):
    r = run_child(tmp_path, which, "turns")
    assert r["outcome"] == "stamp"
    assert r["stamp"] > r["pushed"]
    # A wait of ~0.8 s in 1 ms sleeps gives hundreds; a wait that kept the
    # GIL gives the turns around it, a few at most.
    assert r["turns"] >= 20, r


@cpython_only("signal handlers run inside a wait for the lead bound (the core's waiter calling "
              "CPython's PyErr_CheckSignals)")
@pytest.mark.parametrize("which", ["default", "clock"])
def test_a_signal_handler_ends_the_wait_with_nothing_handed_out(tmp_path, which):
    r = run_child(tmp_path, which, "interrupt")
    assert r["outcome"] == "interrupted", r
    # The waiting stamp was abandoned, not handed out: the pusher's next
    # stamp follows its own last one.
    assert r["pusher_next"] == r["pushed"] + 1, r
