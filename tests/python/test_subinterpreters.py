"""Isolated interpreters, each with its own GIL (CPython 3.14+'s
concurrent.interpreters): the extension loads in them, every interpreter
draws from the process's one sequence, and a patch started in the main
interpreter reaches them all (docs/patch.md, "Interpreters").

Each scenario runs in a child (subinterp_draws.py), so that a crash is a
failed test, not a lost run.  MONOSTAMP_SUBINTERP_EXT_DIR, when set, goes
first on the child's path: tools/test-python-subinterp-asan.sh points it at
an extension built with ASan, with the runtime preloaded.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SCALE

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 14), reason="concurrent.interpreters is new in CPython 3.14")

HERE = Path(__file__).resolve().parent


def run_child(mode, n, timeout=600):
    path = [str(HERE)]
    if os.environ.get("MONOSTAMP_SUBINTERP_EXT_DIR"):
        path.insert(0, os.environ["MONOSTAMP_SUBINTERP_EXT_DIR"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), TZ="UTC")
    env.pop("MONOSTAMP_PATCH", None)
    proc = subprocess.run(
        [sys.executable, "-c", "import subinterp_draws; subinterp_draws.main()", mode, str(n)],
        env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:  # pytest.fail: a sanitizer's report whole
        pytest.fail("the child exited with %d:\n%s" % (proc.returncode, proc.stderr[-12000:]),
                    pytrace=False)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_four_interpreters_and_the_main_one_never_draw_one_value_twice():
    n = max(int(50_000 * SCALE), 1000)
    r = run_child("time_ns", n)
    assert r["counts"] == {name: n for name in ("main", "sub0", "sub1", "sub2", "sub3")}
    assert r["total"] == 5 * n
    assert r["distinct"] == r["total"], "equal values: %d" % (r["total"] - r["distinct"])
    assert all(r["increasing"].values()), r["increasing"]


def test_a_patch_in_the_main_interpreter_reaches_an_interpreter_pool():
    n = max(int(20_000 * SCALE), 1000)
    r = run_child("pool_now", n)
    assert r["counts"] == {name: n for name in ("main", "worker0", "worker1", "worker2",
                                                "worker3")}
    assert r["distinct"] == r["total"] == 5 * n, \
        "equal values: %d" % (r["total"] - r["distinct"])
    assert all(r["increasing"].values()), r["increasing"]
    assert r["patched_in_workers"] == [True] * 4
    # The stamps stayed within the patch's lead bound of the real time.
    assert 0 <= r["lead_us_at_end"] <= 5_000
    # Started only in the main interpreter, and the error says why.
    assert r["refused"] is not None and "main interpreter" in r["refused"]


def test_a_travel_in_another_interpreter_wins_there_while_the_main_one_patches():
    pytest.importorskip("time_machine")
    r = run_child("travel", 200)
    # time-machine's travel (to 2000-01-01, no tick) answers in its own
    # interpreter while it lasts...
    assert r["sub_during"] == [946684800_000_000_000] * 3
    assert r["sub_during_datetime"].startswith("2000-01-01T00:00:00")
    # ...and, before and after it, that interpreter's calls draw from the
    # main interpreter's patch: one increasing sequence with the main's.
    assert r["distinct"] and r["increasing"]
    assert r["patched_in_sub"] is True
