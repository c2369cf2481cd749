"""tools/dist/smoke.py: make test-dist's smoke test of an installed wheel,
where the whole suite is too slow (aarch64 under qemu-user).  Run by the
venv's interpreter from outside the checkout, so `import monostamp` is the
wheel's; each check says what it found when it fails.  Prints
"smoke: N passed, N failed" and exits 1 if any failed.
"""
import datetime
import os
import platform
import sys
import tempfile
import time
import uuid

import monostamp

results = []


def check(name, ok, found=""):
    results.append(ok)
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, "" if ok else ": " + str(found)))


site = os.path.dirname(os.path.dirname(monostamp.__file__))
check("monostamp is the installed wheel's", site.endswith("site-packages"), monostamp.__file__)
check("the extension is for this machine (%s)" % platform.machine(),
      platform.machine() in os.path.basename(monostamp._monostamp.__file__),
      monostamp._monostamp.__file__)
if len(sys.argv) > 1:
    check("version %s" % sys.argv[1], monostamp.__version__ == sys.argv[1], monostamp.__version__)

stamps = [monostamp.time_ns() for _ in range(20000)]
check("20000 stamps strictly increasing", all(a < b for a, b in zip(stamps, stamps[1:])))
check("near the wall clock", abs(stamps[-1] - time.time_ns()) < 60 * 10**9, stamps[-1])

s = monostamp.now()
text = s.isoformat()
check("isoformat parses back", datetime.datetime.fromisoformat(text[:26] + text[29:])
      .utcoffset() is not None, text)

clock = monostamp.Clock(source="manual", start_ns=10**18)
a, b = clock.time_ns(), clock.time_ns()
check("a manual clock forces increments", (a, b) == (10**18, 10**18 + 1), (a, b))

u = monostamp.uuid7()  # the random bits: the raw getrandom system call
check("uuid7 is a version 7 UUID", isinstance(u, uuid.UUID) and u.version == 7, u)

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "state")
    one = monostamp.Clock(shared=path)
    two = monostamp.Clock(shared=path)
    got = [one.time_ns(), two.time_ns(), one.time_ns(), two.time_ns()]
    check("two clocks on one state file share a sequence",
          all(a < b for a, b in zip(got, got[1:])), got)

with monostamp.patch():
    seen = [time.time_ns() for _ in range(1000)]
check("patch() makes time.time_ns() unique", len(set(seen)) == len(seen))

failed = results.count(False)
print("smoke: %d passed, %d failed" % (len(results) - failed, failed))
sys.exit(1 if failed else 0)
