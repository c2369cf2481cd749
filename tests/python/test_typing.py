"""The package's own Python passes mypy --strict against the installed stub:
the pytest plugin and python -m monostamp."""
import os
import subprocess
import sys
import tempfile

import pytest

pytest.importorskip("mypy")


def mypy_strict(*args):
    cache = os.path.join(tempfile.gettempdir(), "monostamp-mypy-cache")
    # Run from an empty directory, so that the checkout's bindings/ or
    # tests/ never stand in for the installed package.
    with tempfile.TemporaryDirectory() as cwd:
        return subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, *args],
            cwd=cwd, capture_output=True, universal_newlines=True, timeout=300)


def test_plugin_and_command_line_pass_mypy_strict():
    done = mypy_strict("-m", "monostamp.pytest_plugin", "-m", "monostamp.__main__")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_catches_a_misuse():
    # The check above means something only if the stub is seen: a wrong
    # call must be an error.
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write("import monostamp\nmonostamp.take('3')\n")
    try:
        done = mypy_strict(f.name)
    finally:
        os.unlink(f.name)
    assert done.returncode == 1
    assert 'Argument 1 to "take" has incompatible type "str"' in done.stdout
