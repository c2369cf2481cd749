"""python -m monostamp: each output form, unique lines, the state file
joined, and exit status 2 (bad arguments) or 1 (an unusable state file)."""
import os
import subprocess
import sys
import uuid

import pytest

import monostamp


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "monostamp", *args], capture_output=True,
                          universal_newlines=True, timeout=60, env=env)


def test_default_prints_one_iso_stamp_of_now():
    before = monostamp.time_ns()
    done = run()
    after = monostamp.time_ns()
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    stamp = monostamp.Stamp.fromisoformat(lines[0])
    assert before < stamp.utc_ns < after
    assert len(lines[0].split(".")[1]) == 9 + len("+00:00")


def test_count_zone_digits_and_z():
    # Below 9 digits the stamps are whole µs: 6 digits still never repeat.
    done = run("--count", "2000", "--zone", "UTC", "--digits", "6", "--z")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2000 and len(set(lines)) == 2000
    assert all(line.endswith("Z") and len(line) == len("2026-12-03T10:47:23.551458Z")
               for line in lines)
    stamps = [monostamp.Stamp.fromisoformat(line).utc_ns for line in lines]
    assert all(a < b for a, b in zip(stamps, stamps[1:]))


def test_ns_and_uuid7_lines_increase():
    ns = [int(x) for x in run("--ns", "-n", "100").stdout.split()]
    assert len(ns) == 100 and all(a < b for a, b in zip(ns, ns[1:]))
    ids = [uuid.UUID(x) for x in run("--uuid7", "-n", "100").stdout.split()]
    assert len(ids) == 100 and all(u.version == 7 for u in ids)
    assert all(a < b for a, b in zip(ids, ids[1:]))
    assert ns[-1] < monostamp.uuid7_ns(ids[0])


def test_shared_joins_the_file(tmp_path):
    path = tmp_path / "state"
    # This side's clock on the file is an hour ahead: the CLI's stamps are
    # above it only if the CLI joined the file.
    ahead = monostamp.time_ns() + 3600 * 10**9
    mine = monostamp.Clock(source="manual", start_ns=ahead, shared=path)
    assert mine.time_ns() == ahead
    done = run("--shared", str(path), "--ns", "-n", "3")
    assert done.returncode == 0, done.stderr
    assert [int(x) for x in done.stdout.split()] == [ahead + 1, ahead + 2, ahead + 3]
    assert mine.time_ns() == ahead + 4


def test_monostamp_shared_is_joined_also_at_6_digits(tmp_path):
    path = tmp_path / "state"
    ahead = monostamp.time_ns() + 3600 * 10**9
    mine = monostamp.Clock(source="manual", start_ns=ahead, shared=path)
    mine.time_ns()
    done = run("--digits", "6", "--zone", "UTC",
               env=dict(os.environ, MONOSTAMP_SHARED=str(path)))
    assert done.returncode == 0, done.stderr
    # The next whole µs after the file's last stamp.
    assert monostamp.Stamp.fromisoformat(done.stdout.strip()).utc_ns == ahead // 1000 * 1000 + 1000


@pytest.mark.parametrize("args,message", [
    (["--count", "0"], "invalid count '0'"),
    (["--count", "x"], "invalid count 'x'"),
    (["--digits", "10"], "invalid digits '10'"),
    (["--zone", "Nowhere/Land"], "zone='Nowhere/Land'"),
    (["--ns", "--uuid7"], "not allowed with"),
    (["--frobnicate"], "unrecognized arguments"),
])
def test_bad_arguments_exit_2_naming_the_value(args, message):
    done = run(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr


def test_an_unusable_state_file_exits_1_naming_it(tmp_path):
    missing = str(tmp_path / "no-such-dir" / "state")
    done = run("--shared", missing)
    assert done.returncode == 1
    assert missing in done.stderr and done.stdout == ""
