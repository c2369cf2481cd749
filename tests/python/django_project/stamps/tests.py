"""Two test cases, so that `--parallel 2` gives one to each worker; each
test stamps ROWS rows with auto_now_add, meeting the test of the same name
in the other worker before it starts and half way (so the two workers
stamp at the same time), and appends what it got to files in TREE_OUT:
worker-<pid> (the created values as int ns, in insertion order, one line a
test) and tests-<pid> (the test's id and whether monostamp.patched())."""
import os
import sys
import time
from datetime import datetime, timedelta, timezone

from django.test import TestCase

from stamps.models import Row

ROWS = int(os.environ.get("TREE_ROWS", "2000"))
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
US = timedelta(microseconds=1)


def meet(phase, my_id):
    """Makes TREE_OUT/meet-<phase>-<my_id>; waits for the other case's."""
    prefix = os.path.join(os.environ["TREE_OUT"], "meet-%s-" % phase)
    open(prefix + my_id, "w").close()
    give_up = time.monotonic() + 120
    while not all(os.path.exists(prefix + i) for i in ("A", "B")):
        if time.monotonic() > give_up:
            raise RuntimeError("the other worker never reached " + phase)
        time.sleep(0.001)


def stamp(test, case, name):
    meet(name + "-start", case)
    Row.objects.bulk_create([Row() for _ in range(ROWS // 2)])
    meet(name + "-half", case)
    Row.objects.bulk_create([Row() for _ in range(ROWS - ROWS // 2)])
    values = [(created - EPOCH) // US * 1000
              for created in Row.objects.order_by("id").values_list("created", flat=True)]
    test.assertEqual(len(values), ROWS)
    monostamp = sys.modules.get("monostamp")
    patched = monostamp is not None and monostamp.patched()
    out = os.environ["TREE_OUT"]
    with open(os.path.join(out, "worker-%d" % os.getpid()), "a") as f:
        f.write(" ".join(map(str, values)) + "\n")
    with open(os.path.join(out, "tests-%d" % os.getpid()), "a") as f:
        f.write("%s %s\n" % (test.id(), patched))


class CaseA(TestCase):
    def test_1(self):
        stamp(self, "A", "1")

    def test_2(self):
        stamp(self, "A", "2")


class CaseB(TestCase):
    def test_1(self):
        stamp(self, "B", "1")

    def test_2(self):
        stamp(self, "B", "2")
