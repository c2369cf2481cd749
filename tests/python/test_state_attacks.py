"""A state file attacked under the clocks of this very process (issue 37):
truncated, overwritten in place with 0, its directory replaced.  Run in the
pytest process itself, where pytest's faulthandler and monostamp's guard
both hold SIGBUS (the plugin usually opens the session's file before pytest
enables faulthandler, which then comes first): a truncation must kill
nothing, and every stamp stays above the one before, in one sequence.  Both
orders are also shown alone, in children."""
import faulthandler
import os
import struct
import subprocess
import sys

import pytest

from conftest import posix_only
from monostamp import Clock

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
