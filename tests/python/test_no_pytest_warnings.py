"""No warning from pytest on the plugin's documented commands.

With MONOSTAMP_PATCH=1 the startup hook imports monostamp before pytest
starts; pytest then marks the plugin's package for assertion rewriting and,
unless the package says PYTEST_DONT_REWRITE, warns in every process that it
cannot (`Module already imported so cannot be rewritten; monostamp`).
`pytest --monostamp-patch -n 2` sets the variable for its workers, and
`monostamp run -- pytest` for pytest itself.  Each run here turns that
warning into an error and looks for it in the output as well; the tiny suite
checks that its own asserts are still rewritten.
"""
import os
import subprocess
import sys

import pytest

from conftest import needs_xdist

SUITE = '''
import datetime
import re

import monostamp


def test_stamps_are_distinct(monostamp_clock: monostamp.Clock) -> None:
    stamps = [monostamp_clock.now() for _ in range(100)]
    assert len(set(stamps)) == len(stamps)


def test_datetime_now_is_distinct() -> None:
    times = [datetime.datetime.now() for _ in range(100)]
    assert len(set(times)) == len(times)


def test_asserts_here_are_still_rewritten() -> None:
    # pytest explains a failed assert only in a module it rewrote.
    try:
        assert [1, 2] == [1, 3]
    except AssertionError as e:
        # Without the colours pytest gives the diff where it sees a terminal.
        plain = re.sub(r"\\x1b\\[[0-9;]*m", "", str(e))
        assert "At index 1 diff: 2 != 3" in plain, plain
    else:
        raise RuntimeError("python -O: asserts are off")
'''

PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
          "-W", "error::pytest.PytestAssertRewriteWarning", "-rA"]
RUN = [sys.executable, "-m", "monostamp", "run", "--"]


def clean_env():
    """This process's environment less what an outer run or session gives
    it: the children decide for themselves whether to share and patch."""
    return {k: v for k, v in os.environ.items()
            if k not in ("MONOSTAMP_SHARED", "MONOSTAMP_PATCH", "PYTEST_ADDOPTS",
                         "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
            and not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}


@pytest.mark.parametrize("command", [
    pytest.param(PYTEST + ["--monostamp-patch", "-n", "2"], marks=needs_xdist,
                 id="pytest --monostamp-patch -n 2"),
    pytest.param(RUN + PYTEST, id="monostamp run -- pytest"),
    pytest.param(RUN + PYTEST + ["-n", "2"], marks=needs_xdist,
                 id="monostamp run -- pytest -n 2"),
    pytest.param(RUN + PYTEST + ["--monostamp-patch"],
                 id="monostamp run -- pytest --monostamp-patch"),
])
def test_no_assert_rewrite_warning(command, tmp_path):
    (tmp_path / "test_tiny.py").write_text(SUITE, encoding="utf-8")
    done = subprocess.run(command, cwd=tmp_path, env=clean_env(), capture_output=True,
                          text=True, timeout=300)
    out = done.stdout + done.stderr
    assert "PytestAssertRewriteWarning" not in out, out
    assert "cannot be rewritten" not in out, out
    assert done.returncode == 0, out
    # The summary line: no warning of pytest's own count.  (Another plugin of
    # the machine, such as pytest-benchmark under xdist, may still print one
    # on stderr: not the plugin's, and not counted here.)
    last = done.stdout.strip().splitlines()[-1]
    assert "3 passed" in last and "warning" not in last, out
