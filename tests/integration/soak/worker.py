"""A soak worker (test_soak.py): stamps in bursts on the shared state file
until the stop file appears, appending each burst to its output file.

Usage: python worker.py PATH OUT MODE BURST PAUSE_MS STOP, started in the
soak directory (PATH is relative to it).  MODE "clock" draws from
Clock(shared=PATH); "default" from the default clock, which
MONOSTAMP_SHARED=PATH joins to the file.  SIGUSR1 makes it chdir() to
elsewhere/ and, the next time, back: the clock must keep the file it
opened.  OUT is opened only once the handler is in place, so a worker
whose OUT exists can be sent SIGUSR1.
"""
import os
import signal
import sys
import time

import monostamp

path, out, mode, burst_text, pause_ms, stop = sys.argv[1:7]
burst, pause = int(burst_text), int(pause_ms) / 1000
home = os.getcwd()


def wander(signum, frame):
    os.chdir(home if os.getcwd() != home else os.path.join(home, "elsewhere"))


signal.signal(signal.SIGUSR1, wander)
if mode == "clock":
    c = monostamp.Clock(shared=path)
    time_ns, now = c.time_ns, c.now
else:
    assert os.environ["MONOSTAMP_SHARED"] == path
    time_ns, now = monostamp.time_ns, monostamp.now
with open(out, "a") as f:
    while not os.path.exists(stop):
        batch = [now().utc_ns if i % 3 == 0 else time_ns() for i in range(burst)]
        f.write("\n".join(map(str, batch)) + "\n")
        f.flush()
        time.sleep(pause)
