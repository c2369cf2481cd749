"""Django's `manage.py test --parallel 2` on a real project (django_project/, sqlite).

Each of the project's 4 tests stamps 2,000 rows with auto_now_add, two
tests at a time in two workers (they meet at file barriers: one test case
per worker).  Under `monostamp run`, and with MONOSTAMP_PATCH=1 and
MONOSTAMP_SHARED set by hand, every test runs patched, no created value
appears twice across the workers, and each worker's values increase.
Unpatched, a tight loop of auto_now_add repeats microseconds.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import monostamp
from conftest import posix_only

django = pytest.importorskip("django")

pytestmark = posix_only("the fork start method and file barriers")
PROJECT = Path(__file__).resolve().parent / "django_project"
ROWS = 2000
TESTS = 4


def start_methods():
    # Django 5.2 refuses forkserver with sqlite; 6.0 runs it.
    methods = ["spawn", "fork"]
    if django.VERSION >= (6,):
        methods.append("forkserver")
    return methods


@pytest.mark.heavy
@pytest.mark.parametrize("how", ["monostamp run", "MONOSTAMP_PATCH by hand"])
@pytest.mark.parametrize("method", start_methods())
def test_manage_py_test_parallel_stamps_as_one(tmp_path: Path, method: str, how: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("MONOSTAMP_SHARED", "MONOSTAMP_PATCH", "DJANGO_SETTINGS_MODULE")}
    env.update(TREE_OUT=str(out), TREE_START_METHOD=method, TREE_ROWS=str(ROWS),
               PYTHONDONTWRITEBYTECODE="1")  # nothing written into the checkout
    command = [sys.executable, "manage.py", "test", "--parallel", "2", "-v", "1"]
    if how == "monostamp run":
        command = [sys.executable, "-m", "monostamp", "run", "--"] + command
    else:
        state = tmp_path / "state"
        monostamp.Clock(shared=str(state))
        env.update(MONOSTAMP_PATCH="1", MONOSTAMP_SHARED=str(state))
    result = subprocess.run(command, cwd=PROJECT, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Ran %d tests" % TESTS in result.stderr

    tests = [line.split() for f in sorted(out.glob("tests-*"))
             for line in f.read_text().splitlines()]
    assert len(tests) == TESTS
    assert [patched for _, patched in tests] == ["True"] * TESTS, tests
    workers = sorted(out.glob("worker-*"))
    assert len(workers) == 2, "the tests did not run in two workers"
    everything = set()
    for worker in workers:
        values = [int(v) for v in worker.read_text().split()]
        assert len(values) == ROWS * TESTS // 2
        backwards = sum(1 for a, b in zip(values, values[1:]) if b <= a)
        assert backwards == 0, "%s: %d values not above the one before" % (worker.name, backwards)
        everything.update(values)
    assert len(everything) == ROWS * TESTS, "%d values repeat" % (ROWS * TESTS - len(everything))
