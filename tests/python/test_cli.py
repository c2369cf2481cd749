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


def _frozen_ahead_on(path):
    # The file made by a clock bounded at 1 ms starts 1 ms above the wall
    # clock (a new file starts its creator's bound above it), below the push.
    monostamp.Clock(shared=path, max_lead_ns=1_000_000)
    return monostamp.time_ns() + 800_000_000


def test_shared_joins_the_file(tmp_path):
    path = tmp_path / "state"
    # This side's clock on the file is frozen 0.8 s ahead (the CLI's default
    # lead bound is 1 s): the CLI's stamps are above it, and this clock's
    # next stamp comes right after the CLI's last only if the CLI wrote them
    # into the file.
    ahead = _frozen_ahead_on(path)
    mine = monostamp.Clock(source="manual", start_ns=ahead, shared=path, max_lead_ns=0)
    assert mine.time_ns() == ahead
    done = run("--shared", str(path), "--ns", "-n", "3")
    assert done.returncode == 0, done.stderr
    stamps = [int(x) for x in done.stdout.split()]
    assert len(stamps) == 3 and ahead < stamps[0] < stamps[1] < stamps[2]
    assert mine.time_ns() == stamps[2] + 1


def test_monostamp_shared_is_joined_also_at_6_digits(tmp_path):
    path = tmp_path / "state"
    ahead = _frozen_ahead_on(path)
    mine = monostamp.Clock(source="manual", start_ns=ahead, shared=path, max_lead_ns=0)
    mine.time_ns()
    done = run("--digits", "6", "--zone", "UTC",
               env=dict(os.environ, MONOSTAMP_SHARED=str(path)))
    assert done.returncode == 0, done.stderr
    # A whole µs above the file's last stamp, and written into the file.
    cli = monostamp.Stamp.fromisoformat(done.stdout.strip()).utc_ns
    assert cli > ahead and cli % 1000 == 0
    assert mine.time_ns() == cli + 1


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
