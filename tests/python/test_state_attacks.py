"""A state file attacked under the clocks of this very process: truncated,
overwritten in place with 0, its directory replaced.  Run in the pytest
process itself, where pytest's faulthandler and monostamp's guard both hold
SIGBUS (the plugin usually opens the session's file before pytest enables
faulthandler, which then comes first): a truncation must kill nothing, and
every stamp stays above the one before, in one sequence.  Both orders are
also shown alone, in children.  And a clock whose directory descriptor a
daemon closed, its number reused for another directory, while the file is
replaced: one sequence still, and nothing made in that other directory."""
import array
import faulthandler
import os
import select
import struct
import subprocess
import sys

import pytest

from conftest import posix_only
from monostamp import Clock, create_state_file

LEAD_BOUND_NS = 10**9  # the default bound, which these clocks keep


def stamps_from(clocks, n):
    """n stamps from the clocks in turn."""
    return [clocks[i % len(clocks)].time_ns() for i in range(n)]


def assert_one_rising_sequence(stamps):
    assert all(b > a for a, b in zip(stamps, stamps[1:])), "a stamp at or below the one before"


@posix_only("Windows refuses to truncate a mapped file")
def test_truncation_under_pytest_kills_nothing(tmp_path):
    assert faulthandler.is_enabled()  # pytest's
    path = tmp_path / "state"
    a, b = Clock(shared=str(path)), Clock(shared=str(path))
    before = stamps_from([a, b], 1000)
    os.truncate(path, 0)
    after = stamps_from([a, b], 1000)
    assert_one_rising_sequence(before + after)
    assert path.stat().st_size == 128  # repaired in place
    # A newcomer joins above all of them.
    assert Clock(shared=str(path)).time_ns() > after[-1]


@posix_only("the overwrite goes through the file, as on Windows, but the test is POSIX's")
def test_a_value_overwritten_with_0_is_raised_above_all(tmp_path):
    path = tmp_path / "state"
    a, b = Clock(shared=str(path)), Clock(shared=str(path))
    before = stamps_from([a, b], 1000)
    with open(path, "r+b") as f:
        f.seek(64)
        f.write(struct.pack("<q", 0))
    after = stamps_from([a, b], 1000)
    assert_one_rising_sequence(before + after)
    # Never further apart than the lead bound.
    assert abs(a.time_ns() - b.time_ns()) < LEAD_BOUND_NS


@posix_only("POSIX pins a state file's directory (Windows its full path)")
def test_a_replaced_directory_is_followed(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    a = Clock(shared=str(d / "state"))
    before = stamps_from([a], 1000)
    d.rename(tmp_path / "d.away")
    d.mkdir()
    # A newcomer on the new directory's file, and the old clock, which
    # moves there at its next look (every 5 ms of its readings): one
    # sequence, whichever stamps first.
    b = Clock(shared=str(d / "state"))
    mixed = stamps_from([a, b], 200000)
    assert_one_rising_sequence(before + mixed[0::2])
    assert len(set(mixed)) == len(mixed)


TRUNCATE_AND_STAMP = (
    "import faulthandler, os, sys, monostamp\n"
    "c = monostamp.Clock(shared=sys.argv[1])\n"
    "if sys.argv[2] == 'after': faulthandler.enable()\n"
    "a = c.time_ns(); os.truncate(sys.argv[1], 0); b = c.time_ns()\n"
    "print('alive', b > a, os.path.getsize(sys.argv[1]) > 0)\n"
)


def truncate_in_a_child(tmp_path, order, *flags):
    out = subprocess.run([sys.executable, *flags, "-c", TRUNCATE_AND_STAMP,
                          str(tmp_path / "state"), order],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "alive True True"
    return out.stderr


@posix_only("SIGBUS and truncation of a mapped file are POSIX's")
def test_a_truncation_in_a_child_without_faulthandler(tmp_path):
    # The default handler before ours: the child lives, and nothing is said.
    assert truncate_in_a_child(tmp_path, "none") == ""


@posix_only("SIGBUS and truncation of a mapped file are POSIX's")
def test_a_truncation_behind_faulthandler_enabled_after_the_clock(tmp_path):
    # faulthandler's handler comes first: it reports, puts ours back and
    # raises again, without an address; ours finds the truncated page.
    err = truncate_in_a_child(tmp_path, "after")
    assert "Fatal Python error: Bus error" in err


@posix_only("SIGBUS and truncation of a mapped file are POSIX's")
def test_a_truncation_with_faulthandler_enabled_before_the_clock(tmp_path):
    # -X faulthandler: ours comes first, takes its fault, and nothing is said.
    assert truncate_in_a_child(tmp_path, "before", "-X", "faulthandler") == ""


# A child on the state file argv[1] for test_closed_descriptors_*: one
# command per line on stdin ("round", "go", "end"), one answer per line on
# stdout.  As "closer" it does what a daemon does at each round: closes
# every descriptor from 3 up and opens another directory (argv[2]), which
# gets the number the clock's pinned directory had.  At "go" (the file was
# replaced meanwhile) it stamps in bursts until its readings have passed
# several of the clock's looks (every 5 ms); at "end" it writes its stamps
# (array 'q') to argv[4].
DAEMON_CHILD = r"""
import array, os, sys, time
import monostamp

path, other, role, out_path = sys.argv[1:5]
directory = os.stat(os.path.dirname(path))
clock = monostamp.Clock(shared=path, policy="monotonicForceMicrosecondIncrement")
stamps = array.array("q", [clock.time_ns()])


def pinned():
    # The clock's descriptor on its directory: the test holds none there.
    for name in os.listdir("/proc/self/fd"):
        try:
            st = os.fstat(int(name))
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (directory.st_dev, directory.st_ino):
            return int(name)
    return -1


def answer(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


while True:
    command = sys.stdin.readline().strip()
    if command == "round":
        if role == "closer":
            number = pinned()
            if number < 0:
                answer("lost: no descriptor on the directory")
                continue
            os.closerange(3, 1024)
            reused = os.open(other, os.O_RDONLY | os.O_DIRECTORY)
            if reused != number:
                os.dup2(reused, number)
                os.close(reused)
        answer("ready")
    elif command == "go":
        start = time.monotonic()
        while time.monotonic() - start < 0.03:
            for _ in range(500):
                stamps.append(clock.time_ns())
            time.sleep(0.001)
        answer("done")
    else:
        break
with open(out_path, "wb") as f:
    stamps.tofile(f)
answer("bye")
"""


def _replace_with_a_new_file(tmp_path, path, n):
    """A new state file made beside, then renamed over `path`."""
    fresh_dir = tmp_path / f"fresh{n}"
    fresh_dir.mkdir(mode=0o700)
    create_state_file(str(fresh_dir / "state"))
    os.rename(fresh_dir / "state", path)
    fresh_dir.rmdir()


def _ask(children, command, timeout_s=120):
    """Sends `command` to every child and returns their answers; a child
    that says nothing within the (generous) timeout answers "silent"."""
    for child in children:
        child.stdin.write(command + "\n")
        child.stdin.flush()
    answers = []
    for child in children:
        ready, _, _ = select.select([child.stdout], [], [], timeout_s)
        answers.append(child.stdout.readline().strip() if ready else "silent")
    return answers


@posix_only("POSIX pins a state file's directory by descriptor (Windows its full path)")
def test_closed_descriptors_reused_for_another_directory(tmp_path):
    d = tmp_path / "d"
    other = tmp_path / "other"
    d.mkdir(mode=0o700)
    other.mkdir(mode=0o700)
    path = d / "state"
    children = [
        subprocess.Popen([sys.executable, "-c", DAEMON_CHILD, str(path), str(other), role,
                          str(tmp_path / f"{role}.stamps")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for role in ("closer", "plain")]
    try:
        for n in range(20):
            assert _ask(children, "round") == ["ready", "ready"], f"round {n}"
            _replace_with_a_new_file(tmp_path, path, n)
            assert _ask(children, "go") == ["done", "done"], f"round {n}"
            # Nothing made outside the state file's directory.
            assert os.listdir(other) == [], f"round {n}: the clock made {os.listdir(other)}"
        assert _ask(children, "end") == ["bye", "bye"]
    finally:
        for child in children:
            child.stdin.close()
            child.wait(timeout=60)
    assert [child.returncode for child in children] == [0, 0]
    stamps = []
    for role in ("closer", "plain"):
        mine = array.array("q")
        with open(tmp_path / f"{role}.stamps", "rb") as f:
            mine.frombytes(f.read())
        assert_one_rising_sequence(list(mine))
        stamps.append(mine)
    equal = len(set(stamps[0]) & set(stamps[1]))
    assert equal == 0, f"{equal} equal values across the two processes"
    # Both ended on the file in the state file's directory: it holds the
    # highest stamp of either.
    with open(path, "rb") as f:
        f.seek(64)
        (last,) = struct.unpack("<q", f.read(8))
    assert last >= max(stamps[0][-1], stamps[1][-1])
    assert sorted(os.listdir(tmp_path)) == ["closer.stamps", "d", "other", "plain.stamps"]
    assert os.listdir(d) == ["state"]
