"""python -m monostamp: each output form, unique lines, the state file
joined, and exit status 2 (bad arguments) or 1 (an unusable state file);
memory flat at any --count, a quiet stop when the reader goes (`| head`),
one line and status 1 when standard output is closed or full; --help under
the name it was called by (`monostamp`, `python -m monostamp`), listing the
commands; `preload-path`, docs/preload.md's recipe with it, and one line and
status 1 where no library is shipped."""
import os
import re
import signal
import subprocess
import sys
import uuid

import pytest
from conftest import cpython_only, posix_only, scaled, shown

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


@cpython_only("reference counting, which frees each stamp at once (PyPy's GC grows its heap "
              "between collections)")
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
    # A file of one's own that is not a state file (a
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


# ------------------------------------------------- the name it was called by

def installed_script():
    """The installed `monostamp` console script, or None (an unpacked wheel
    on the path has none)."""
    import shutil
    return shutil.which("monostamp", path=os.path.dirname(sys.executable))


def console_script():
    """The `monostamp` command: the console script, or where there is none,
    what that script runs."""
    script = installed_script()
    if script is not None:
        return [script]
    return [sys.executable, "-c", "import sys; from monostamp.__main__ import main; "
            "sys.exit(main())"]


@pytest.mark.parametrize("name,command", [
    ("monostamp", None), ("python -m monostamp", COMMAND)], ids=["monostamp", "python -m"])
def test_help_says_the_name_it_was_called_by_and_lists_the_commands(name, command):
    done = subprocess.run([*(command or console_script()), "--help"], capture_output=True,
                          universal_newlines=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("usage: %s [-h] " % name), done.stdout
    # Each command in the usage, under the name, and in a list with what it does.
    assert "       %s run [OPTIONS] [--] CMD [ARGS...]" % name in lines, done.stdout
    assert "       %s stats PATH" % name in lines, done.stdout
    assert "       %s preload-path" % name in lines, done.stdout
    listed = lines[lines.index("commands:") + 1:]
    assert [line.split()[0] for line in listed if line.startswith("  ") and
            not line.startswith("   ")] == ["run", "stats", "preload-path"], done.stdout
    other = "python -m monostamp" if name == "monostamp" else "usage: monostamp"
    assert other not in done.stdout, done.stdout


def test_a_usage_error_names_the_console_script():
    done = subprocess.run([*console_script(), "--count", "0"], capture_output=True,
                          universal_newlines=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: monostamp [-h] "), done.stderr
    assert "monostamp: error: argument --count/-n: invalid count '0'" in done.stderr
    assert "python -m" not in done.stderr


def test_ns_with_digits_is_one_ascii_line():
    done = run("--ns", "--digits", "3")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "python -m monostamp: error: --digits shapes ISO 8601 text, which --ns does not "
        "print: drop one of them")


# ------------------------------------------------------------- preload-path

LINUX_ONLY = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the preload library is built on Linux only")


@LINUX_ONLY
@pytest.mark.parametrize("name,command", [
    ("monostamp", None), ("python -m monostamp", COMMAND)], ids=["monostamp", "python -m"])
def test_preload_path_prints_the_shipped_library(name, command):
    from monostamp import _run
    done = subprocess.run([*(command or console_script()), "preload-path"],
                          capture_output=True, universal_newlines=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    path = done.stdout[:-1]
    assert done.stdout == path + "\n" and "\n" not in path
    assert os.path.isabs(path) and os.path.isfile(path) and path == _run.library_path()
    assert os.path.basename(path) == "libmonostamp_preload.so"
    package = os.path.dirname(os.path.abspath(monostamp.__file__))
    assert os.path.dirname(path) in (package, os.path.join(package, "_native"))


def preload_recipe():
    """docs/preload.md's recipe for a pip user: the ```sh block that runs
    `monostamp preload-path`."""
    from conftest import REPO
    text = (REPO / "docs" / "preload.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", text, re.S) if "preload-path" in b]
    assert len(blocks) == 1, blocks
    return blocks[0]


@LINUX_ONLY
def test_preload_path_in_the_docs_recipe_stamps_from_the_state_file(tmp_path):
    # Run as written, `monostamp` this install's (its console script, or
    # python -m where there is none), the command 100 readings of
    # date +%s%N.  The state file the recipe names exists, and its next
    # stamp is the last reading's + 1, only if the library that `monostamp
    # preload-path` printed was loaded and drew the readings from it.
    recipe = preload_recipe().replace("your-command", "sh -c 'i=0; while [ $i -lt 100 ]; "
                                      "do date +%s%N; i=$((i+1)); done'")
    script = installed_script()
    env = dict(os.environ, TMPDIR=str(tmp_path))
    for name in ("LD_PRELOAD", "MONOSTAMP_SHARED", "MONOSTAMP_PATCH"):
        env.pop(name, None)
    if script is not None:
        env["PATH"] = os.path.dirname(script) + os.pathsep + env.get("PATH", "")
    else:
        recipe = 'monostamp() { "%s" -m monostamp "$@"; }\n%s' % (sys.executable, recipe)
    done = subprocess.run(["sh", "-ec", recipe], capture_output=True, universal_newlines=True,
                          timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    readings = [int(x) for x in done.stdout.split()]
    assert len(readings) == 100 and all(a < b for a, b in zip(readings, readings[1:]))
    states = list(tmp_path.glob("*/state"))
    assert len(states) == 1, states
    frozen = monostamp.Clock(source="manual", start_ns=0, max_lead_ns=0, shared=states[0])
    assert frozen.time_ns() == readings[-1] + 1


def test_preload_path_where_there_is_none_is_one_line_and_status_1(tmp_path):
    # A copy of the installed package without the library: an install built
    # without it, as an sdist built by a setup.py that does not make it is.
    import shutil
    package = os.path.dirname(os.path.abspath(monostamp.__file__))
    copy = tmp_path / "site" / "monostamp"
    # copyfile: Wine has no CopyFile2, which copy2 calls on Windows.
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns(
        "_native", "libmonostamp_preload.so", "__pycache__"), copy_function=shutil.copyfile)
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    env.pop("MONOSTAMP_PATCH", None)
    done = subprocess.run([*COMMAND, "preload-path"], capture_output=True,
                          universal_newlines=True, timeout=60, env=env, cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == "", done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("python -m monostamp preload-path: no libmonostamp_preload.so "
                               "in %s: " % (copy / "_native")), lines[0]
    assert lines[0].isascii()


def test_preload_path_off_linux_says_so(monkeypatch, tmp_path, capsys):
    from monostamp import _run
    from monostamp.__main__ import main
    monkeypatch.setattr(_run, "__file__", str(tmp_path / "_run.py"))
    monkeypatch.setattr(sys, "platform", "darwin")
    assert main(["preload-path"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == (
        "monostamp preload-path: no libmonostamp_preload.so in %s: the preload library is "
        "built for Linux only, and this is darwin\n" % (tmp_path / "_native"))


@pytest.mark.parametrize("args", [["x"], ["--native"], ["--help", "x"]])
def test_preload_path_takes_no_arguments(args):
    done = run("preload-path", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        "python -m monostamp preload-path: error: it takes no arguments, not %r" % args[0])


def test_preload_path_help():
    done = run("preload-path", "--help")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("usage: python -m monostamp preload-path\n")
    assert 'LD_PRELOAD="$(python -m monostamp preload-path)"' in done.stdout
