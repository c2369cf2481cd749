"""Two reduced suites (tests/python/suites: one on freezegun, one on
time-machine) run plainly and with --monostamp-patch give the same set of
failing tests: the issue's check, which real suites failed by hundreds of
tests before monostamp.patch() gave way to those tools."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PYPY

SUITES = Path(__file__).resolve().parent / "suites"
CASES = [("humanize_style", "freezegun", "test_known_failure_singular_month"),
         ("structlog_style", "time_machine", "test_known_failure_key_is_not_renamed")]


def run(suite, *args):
    """(failed test ids, passed count) of one run of the suite in a child."""
    env = dict(os.environ)
    env.pop("MONOSTAMP_SHARED", None)  # the child's plugin makes its own
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfE", *args],
        cwd=str(SUITES / suite), env=env, capture_output=True, text=True, timeout=600)
    out = done.stdout
    failed = set(re.findall(r"^(?:FAILED|ERROR) (\S+)", out, re.M))
    passed = re.search(r"(\d+) passed", out)
    assert done.returncode in (0, 1), out + done.stderr  # tests ran (1: some failed)
    return failed, int(passed.group(1)) if passed else 0, out


@pytest.mark.parametrize("suite, tool, known", CASES, ids=[c[0] for c in CASES])
def test_same_failures_plain_and_patched(suite, tool, known):
    pytest.importorskip(tool, reason="%s is a test dependency (tools/install-deps.sh); "
                        "not installed here" % tool)
    plain_failed, plain_passed, plain_out = run(suite)
    patched_failed, patched_passed, patched_out = run(suite, "--monostamp-patch")
    assert "monostamp: patch: the whole run (--monostamp-patch)" in patched_out
    assert patched_failed == plain_failed, (plain_out, patched_out)
    assert (patched_passed, plain_passed) == (plain_passed, patched_passed)
    # The comparison can see a failure: each suite has one on purpose.
    # freezegun refuses tick=True on PyPy ("only compatible with CPython"),
    # plainly and patched alike: one more failure there, of freezegun's.
    pypy_too = {"test_context_manager_and_tick"} if PYPY and tool == "freezegun" else set()
    assert {f.split("::")[-1] for f in plain_failed} == {known} | pypy_too
    assert plain_passed >= 10
