"""monostamp run -- CMD: its environment, exit statuses, signals and state file."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import monostamp
from conftest import native_kernel_only, posix_only

RUN = [sys.executable, "-m", "monostamp", "run"]


def env_without_sharing(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MONOSTAMP_SHARED", "MONOSTAMP_PATCH")}
    env.update(extra)
    return env


def run(args, **kwargs):
    kwargs.setdefault("env", env_without_sharing())
    return subprocess.run(RUN + args, capture_output=True, text=True, timeout=120, **kwargs)


def with_dispositions(disposition, *signums):
    """A preexec_fn giving the runner these signals' disposition, whatever
    the test inherited (nohup, a CI runner's background job ignore some):
    the runner keeps an ignored signal ignored, and passes on the others."""
    def preexec() -> None:
        for signum in signums:
            signal.signal(signum, disposition)
    return preexec


def wait_for(path: Path) -> None:
    give_up = time.monotonic() + 60
    while not path.exists():
        assert time.monotonic() < give_up, "%s never appeared" % path
        time.sleep(0.01)


def start_idle_cmd(tmp_path: Path, setup: str, preexec_fn, **popen):
    """monostamp run of a Python CMD that runs `setup` (os, signal, sys and
    time imported), writes its MONOSTAMP_SHARED into tmp_path/"ready" and
    idles until a signal ends it.  Returns the runner once CMD is ready."""
    ready, unready = tmp_path / "ready", tmp_path / "ready.tmp"
    # "ready" appears by a rename, once its file is closed: a signal that
    # came while `open(...).write(...)`'s file object closed itself on its
    # way out ran the handler there, and io's finalizer dropped its
    # SystemExit (3.13 says "Exception ignored", 3.12 nothing): CMD
    # idled on and the test waited out its 60 s, natively now and then,
    # under qemu-user every other time.
    code = ("import os, signal, sys, time\n" + setup +
            "with open(%r, 'w') as f: f.write(os.environ['MONOSTAMP_SHARED'])\n" % str(unready) +
            "os.replace(%r, %r)\n" % (str(unready), str(ready)) +
            "while True: time.sleep(0.01)\n")
    runner = subprocess.Popen(RUN + ["--", sys.executable, "-c", code],
                              env=env_without_sharing(), preexec_fn=preexec_fn, **popen)
    wait_for(ready)
    return runner


def test_cmd_gets_a_private_state_file_and_the_patch_and_it_is_removed_after() -> None:
    result = run(["--", sys.executable, "-c",
                  "import os, monostamp, time\n"
                  "p = os.environ['MONOSTAMP_SHARED']\n"
                  "print(p, os.environ['MONOSTAMP_PATCH'], monostamp.patched(),\n"
                  "      oct(os.stat(os.path.dirname(p)).st_mode & 0o777), time.time_ns())"])
    assert result.returncode == 0, result.stderr
    path, patch, patched, mode, ns = result.stdout.split()
    # A private directory: 0700 where there are mode bits (Windows reports 0o777).
    assert (patch, patched) == ("1", "True")
    assert mode == ("0o777" if sys.platform == "win32" else "0o700")
    assert not os.path.exists(path) and not os.path.exists(os.path.dirname(path))


def test_no_patch_exports_the_file_only() -> None:
    result = run(["--no-patch", sys.executable, "-c",
                  "import os, monostamp; print('MONOSTAMP_PATCH' in os.environ, "
                  "monostamp.patched(), bool(os.environ['MONOSTAMP_SHARED']))"],
                 env=env_without_sharing(MONOSTAMP_PATCH="1"))
    assert (result.returncode, result.stdout) == (0, "False False True\n"), result.stderr


def test_shared_path_is_used_and_kept(tmp_path: Path) -> None:
    state = tmp_path / "state"
    clock = monostamp.Clock(shared=str(state))
    before = clock.time_ns()
    result = run(["--shared", str(state), "--", sys.executable, "-c",
                  "import os, time; print(os.environ['MONOSTAMP_SHARED'], time.time_ns())"])
    assert result.returncode == 0, result.stderr
    path, ns = result.stdout.split()
    assert path == str(state) and state.exists()
    assert before < int(ns) < clock.time_ns()


@pytest.mark.parametrize("status", [0, 3, 124, 255])
def test_the_exit_status_is_cmd_s(status) -> None:
    result = run([sys.executable, "-c", "import sys; sys.exit(%d)" % status])
    assert (result.returncode, result.stderr) == (status, "")


@posix_only("signals")
def test_a_cmd_killed_by_a_signal_gives_128_plus_n() -> None:
    result = run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
    assert result.returncode == 128 + signal.SIGKILL


@posix_only("signals")
@pytest.mark.parametrize("signum", [signal.SIGTERM, getattr(signal, "SIGHUP", signal.SIGTERM)])
def test_sigterm_and_sighup_are_passed_on_to_cmd(tmp_path: Path, signum) -> None:
    seen = tmp_path / "seen"
    runner = start_idle_cmd(tmp_path, (
        "def on(s, f):\n"
        "    open(%r, 'w').write(str(s)); sys.exit(7)\n"
        "signal.signal(%d, on)\n") % (str(seen), signum),
        with_dispositions(signal.SIG_DFL, signum))
    state = (tmp_path / "ready").read_text()
    os.kill(runner.pid, signum)
    assert runner.wait(60) == 7
    assert seen.read_text() == str(int(signum))
    assert not os.path.exists(state)


@posix_only("signals")
@native_kernel_only("drops an ignored SIGHUP in a child that subprocess spawns: "
                    "the runner sees it ignored, its CMD at the default")
def test_a_signal_ignored_when_it_started_stays_ignored(tmp_path: Path) -> None:
    # As under nohup: the runner does not pass SIGHUP on, and CMD inherits
    # it ignored, as it would without the runner.
    runner = start_idle_cmd(tmp_path, (
        "ignored = signal.getsignal(signal.SIGHUP) == signal.SIG_IGN\n"
        "signal.signal(signal.SIGTERM, lambda s, f: sys.exit(8 if ignored else 9))\n"),
        with_dispositions(signal.SIG_IGN, signal.SIGHUP))
    # Both pending at once are taken lowest first: a runner that did not
    # keep SIGHUP ignored ends by it (-1), before it can pass SIGTERM on.
    os.kill(runner.pid, signal.SIGHUP)
    os.kill(runner.pid, signal.SIGTERM)
    assert runner.wait(60) == 8


@posix_only("signals")
def test_sigint_is_cmd_s_to_act_on(tmp_path: Path) -> None:
    # A terminal signals the whole process group: the runner outlives it
    # and gives CMD's status (not 130, not a KeyboardInterrupt).
    runner = start_idle_cmd(tmp_path, "signal.signal(signal.SIGINT, lambda s, f: sys.exit(5))\n",
                            with_dispositions(signal.SIG_DFL, signal.SIGINT),
                            start_new_session=True, stderr=subprocess.PIPE, text=True)
    os.killpg(runner.pid, signal.SIGINT)
    assert runner.wait(60) == 5
    assert runner.stderr is not None and runner.stderr.read() == ""


def test_a_cmd_not_found_is_127_with_one_line() -> None:
    result = run(["--", "monostamp-no-such-command"])
    assert result.returncode == 127
    assert result.stderr == "monostamp run: monostamp-no-such-command: command not found\n"


@posix_only("execute permission")
# subprocess starts a path with posix_spawn (CPython 3.13 and later), whose
# glibc child reports a failed exec through memory shared by
# clone(CLONE_VM|CLONE_VFORK); qemu-user runs that clone as a fork, so the
# error never arrives, Popen succeeds and the child exits 127.
@native_kernel_only("runs posix_spawn's vfork as a fork: a failed exec reads as exit 127")
def test_a_cmd_not_executable_is_126_with_one_line(tmp_path: Path) -> None:
    script = tmp_path / "script"
    script.write_text("#!/bin/sh\necho ran\n")
    script.chmod(0o644)
    result = run(["--", str(script)])
    assert result.returncode == 126
    assert result.stderr.startswith("monostamp run: %s: cannot execute: " % script)
    assert result.stderr.count("\n") == 1 and result.stdout == ""


@pytest.mark.parametrize("args", [[], ["--"], ["--bogus", "true"], ["--shared"],
                                  ["--shared=", "true"]])
def test_its_own_bad_flags_are_125_with_one_line(args) -> None:
    result = run(args)
    assert result.returncode == 125
    assert result.stderr.startswith("monostamp run: ") and result.stderr.count("\n") == 1


def test_a_state_file_it_cannot_make_is_125_with_one_line(tmp_path: Path) -> None:
    result = run(["--shared", str(tmp_path / "gone" / "state"), "--", "true"])
    assert result.returncode == 125
    assert result.stderr.startswith("monostamp run: cannot make the state file: ")
    assert result.stderr.count("\n") == 1


def test_the_old_flags_of_python_m_monostamp_keep_working() -> None:
    result = subprocess.run([sys.executable, "-m", "monostamp", "--ns", "--count", "3"],
                            capture_output=True, text=True, timeout=60)
    values = [int(line) for line in result.stdout.split()]
    assert result.returncode == 0 and len(values) == 3 and values == sorted(set(values))


def test_the_console_script_runs_too() -> None:
    script = Path(sys.executable).with_name("monostamp")
    if not script.exists():
        pytest.skip("no console script beside %s (not a venv install)" % sys.executable)
    result = subprocess.run([str(script), "run", "--", sys.executable, "-c",
                             "import monostamp; print(monostamp.patched())"],
                            env=env_without_sharing(), capture_output=True, text=True,
                            timeout=60)
    assert (result.returncode, result.stdout) == (0, "True\n"), result.stderr
