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


def test_mypy_strict_catches_typos_in_names():
    # Sources, policies and on_lead are Literal types in the stub:
    # a typo is an error, a right name (a policy by value or member name) is not.
    bad = ("import monostamp\n"
           "monostamp.Clock(source='manul')\n"
           "monostamp.Clock(policy='monotonicForceNanosecondIncrment')\n"
           "monostamp.Clock(on_lead='raise')\n"
           "monostamp.set_policy('MONOTONIC_FORCE_NANO')\n")
    good = ("import datetime, zoneinfo\nimport monostamp\n"
            "monostamp.Clock(source='manual', on_lead='error', zone=zoneinfo.ZoneInfo('UTC'))\n"
            "monostamp.Clock('MONOTONIC_FORCE_NANOSECOND_INCREMENT', zone=datetime.timezone.utc)\n"
            "monostamp.set_policy('monotonicAllowDuplicates')\n"
            "c = monostamp.Clock(source='manual', start_ns=datetime.datetime(2000, 1, 1, "
            "tzinfo=datetime.timezone.utc))\n"
            "c.set(monostamp.Stamp(0))\n")
    with tempfile.TemporaryDirectory() as d:
        for name, text in (("bad.py", bad), ("good.py", good)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        done_bad = mypy_strict(os.path.join(d, "bad.py"))
        done_good = mypy_strict(os.path.join(d, "good.py"))
    assert done_good.returncode == 0, done_good.stdout
    assert done_bad.returncode == 1
    lines = [line for line in done_bad.stdout.splitlines() if ": error:" in line]
    assert [int(line.split(":")[1]) for line in lines] == [2, 3, 4, 5], done_bad.stdout


def test_mypy_strict_sees_policy_as_an_enum_is_used():
    # Policy is a str subclass whose class has an enum's interface: mypy
    # knows its members, lookups and iteration as Policy, and refuses what
    # the runtime refuses (reassigning a member, subclassing).
    good = ("import monostamp\nfrom monostamp import Policy\n"
            "p: Policy = Policy.ACCEPT_PLATFORM_TIME\n"
            "q: Policy = Policy('monotonicAllowDuplicates')\n"
            "r: Policy = Policy['MONOTONIC_ALLOW_DUPLICATES']\n"
            "names: list[str] = [m.name for m in Policy]\n"
            "values: list[str] = [m.value for m in reversed(Policy)]\n"
            "n: int = len(Policy)\n"
            "members: dict[str, Policy] = dict(Policy.__members__)\n"
            "text: str = p\n"
            "found: bool = 'acceptPlatformTime' in Policy\n"
            "monostamp.set_policy(q)\n"
            "got: Policy = monostamp.Clock(r).policy\n")
    bad = ("import monostamp\n"
           "monostamp.Policy.ACCEPT_PLATFORM_TIME = monostamp.Policy.MONOTONIC_ALLOW_DUPLICATES\n"
           "x: int = monostamp.Policy.ACCEPT_PLATFORM_TIME.name\n"
           "class Mine(monostamp.Policy): ...\n"
           "y: int = monostamp.Policy['ACCEPT_PLATFORM_TIME']\n")
    with tempfile.TemporaryDirectory() as d:
        for name, text in (("good.py", good), ("bad.py", bad)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        done_good = mypy_strict(os.path.join(d, "good.py"))
        done_bad = mypy_strict(os.path.join(d, "bad.py"))
    assert done_good.returncode == 0, done_good.stdout
    assert done_bad.returncode == 1
    lines = [line for line in done_bad.stdout.splitlines() if ": error:" in line]
    assert [int(line.split(":")[1]) for line in lines] == [2, 3, 4, 5], done_bad.stdout
