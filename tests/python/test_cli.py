"""python -m monostamp: each output form, unique lines, the state file
joined, and exit status 2 (bad arguments) or 1 (an unusable state file);
memory flat at any --count, a quiet stop when the reader goes (`| head`),
one line and status 1 when standard output is closed or full."""
import os
import signal
import subprocess
import sys
import uuid

import pytest
from conftest import posix_only, scaled, shown

import monostamp
from monostamp.__main__ import CHUNK, EXIT_READER_GONE

COMMAND = [sys.executable, "-m", "monostamp"]


def run(*args, env=None):
    return subprocess.run([*COMMAND, *args], capture_output=True,
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
    assert shown(missing) in done.stderr and done.stdout == ""


def test_lines_across_chunks_are_all_there_and_increase():
    n = 2 * CHUNK + 3
    ns = [int(x) for x in run("--ns", "-n", str(n)).stdout.split()]
    assert len(ns) == n and all(a < b for a, b in zip(ns, ns[1:]))


#: Runs the command given after it with its output thrown away and prints
#: its peak RSS in KiB.  Started from this small process, not from pytest:
#: a child's peak counts the pages of the process it was forked from.
MEASURE = ("import resource, subprocess, sys; "
           "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def peak_rss_mb(*args):
    done = subprocess.run([sys.executable, "-c", MEASURE, *COMMAND, *args],
                          capture_output=True, universal_newlines=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stdout) / 1024  # ru_maxrss is in KiB on Linux


@pytest.mark.heavy
@posix_only("the resource module measures a child's peak RSS")
def test_memory_stays_flat_at_any_count():
    # 10**7 stamps (at MONOSTAMP_TEST_SCALE=1) held at once would take over
    # a GB; written as they are made, the peak is the interpreter's own.
    n = scaled(10**7)
    one = peak_rss_mb("--ns")
    many = peak_rss_mb("--ns", "--count", str(n))
    assert many <= 100, "%.1f MB at %d stamps" % (many, n)
    assert many <= one + 10, "%.1f MB at %d stamps, %.1f MB at 1" % (many, n, one)


# Each case with Python's buffered stdout and with `python -u`'s
# (PYTHONUNBUFFERED), which writes straight to the descriptor.
BUFFERING = pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])


def env_for(unbuffered):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


@BUFFERING
def test_a_reader_that_goes_stops_it_quietly(unbuffered):
    # As with `python -m monostamp --ns -n 1000000 | head -1`: the reader
    # takes one line and closes the pipe while the command is still writing.
    child = subprocess.Popen([*COMMAND, "--ns", "--count", "1000000"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True,
                             env=env_for(unbuffered))
    first = child.stdout.readline()
    child.stdout.close()
    child.stdout = None  # else communicate() on Windows reads it in a thread, closed
    _, err = child.communicate(timeout=60)
    assert int(first) > 0
    assert err == ""  # no traceback, no "Exception ignored" at exit
    # 128 + SIGPIPE where there are signals; Windows has no SIGPIPE: 1.
    assert child.returncode == EXIT_READER_GONE == (141 if hasattr(signal, "SIGPIPE") else 1)


def one_line_of_complaint(done):
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("python -m monostamp: cannot write to standard output: ")
    return lines[0]


@posix_only("sh closes the child's standard output (exec >&-)")
@BUFFERING
@pytest.mark.parametrize("count", ["1", "100000"])
def test_a_closed_stdout_gets_one_line_and_status_1(count, unbuffered):
    done = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *COMMAND, "--count", count],
                          capture_output=True, universal_newlines=True, timeout=60,
                          env=env_for(unbuffered))
    assert "closed" in one_line_of_complaint(done)


# 1 stamp is written only by the final flush; 100 000 fill the buffer first.
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@BUFFERING
@pytest.mark.parametrize("count", ["1", "100000"])
def test_a_full_stdout_gets_one_line_and_status_1(count, unbuffered):
    with open("/dev/full", "w") as full:
        done = subprocess.run([*COMMAND, "--count", count], stdout=full,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                              env=env_for(unbuffered))
    assert "No space left on device" in one_line_of_complaint(done)


@posix_only("RLIMIT_FSIZE (the resource module) makes a file fill up")
@BUFFERING
def test_a_file_that_fills_part_way_is_not_cut_short_silently(tmp_path, unbuffered):
    # The file size limit takes 10 000 of 1000 lines' ~20 000 bytes: one
    # write(2) takes part of the text, the next fails (EFBIG; Python ignores
    # SIGXFSZ).  Writing straight to the descriptor, the rest of the text
    # could be dropped with status 0.
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (10000, 10000))
    with open(tmp_path / "out", "w") as out:
        done = subprocess.run([*COMMAND, "--ns", "--count", "1000"], stdout=out,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                              env=env_for(unbuffered), preexec_fn=limit)
    assert "File too large" in one_line_of_complaint(done)
    assert (tmp_path / "out").stat().st_size == 10000


@BUFFERING
def test_a_stdout_open_for_reading_gets_one_line_and_status_1(unbuffered):
    with open(os.devnull, "r") as readonly:
        done = subprocess.run(COMMAND, stdout=readonly, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60, env=env_for(unbuffered))
    assert "Bad file descriptor" in one_line_of_complaint(done)


@pytest.mark.parametrize("content", [b"root:x:0:0:root:/root:/bin/bash\n", b"\0" * 4096],
                         ids=["text", "zeros"])
def test_a_file_that_is_no_state_file_exits_1_in_one_line(tmp_path, content):
    # Issue 37, finding 6: a file of one's own that is not a state file (a
    # copy of /etc/passwd, zeros) is a state file that cannot be used, 1 as
    # the docs say, not argparse's 2 with its usage.
    path = tmp_path / "not-a-state-file"
    path.write_bytes(content)
    path.chmod(0o600)
    for args in (["--shared", str(path)], ["--shared", str(path), "--zone", "UTC"],
                 ["--shared", str(path), "--digits", "6"]):
        done = run(*args)
        assert done.returncode == 1, (args, done.returncode, done.stderr)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("python -m monostamp: "), done.stderr
        assert shown(str(path)) in lines[0] and done.stdout == ""
    assert path.read_bytes() == content  # and left as it was


def test_a_bad_zone_with_a_state_file_is_still_a_bad_argument(tmp_path):
    done = run("--shared", str(tmp_path / "state"), "--zone", "Nowhere/Land")
    assert done.returncode == 2 and "zone='Nowhere/Land'" in done.stderr


def test_help_lists_every_exit_status():
    done = run("--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    for status in ("0 all written", "1 the state file", "2 bad arguments", "141 the reader",
                   "130 interrupted"):
        assert status in text, text
