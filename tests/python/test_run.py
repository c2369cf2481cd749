"""monostamp run -- CMD: its environment, exit statuses, signals and state file."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import monostamp
from conftest import cpython_only, native_kernel_only, posix_only

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
    popen.setdefault("env", env_without_sharing())
    runner = subprocess.Popen(RUN + ["--", sys.executable, "-c", code],
                              preexec_fn=preexec_fn, **popen)
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
@cpython_only("a signal ignored at startup read back as SIG_IGN (PyPy's signal.getsignal() "
              "says SIG_DFL)")
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


# ------------------------------------------------------ who joined the run

NOTHING_JOINED = "monostamp run: no process of CMD joined the run's sequence: "


@posix_only("sh")
def test_a_cmd_that_joins_nothing_is_one_line_and_keeps_its_status() -> None:
    result = run(["--", "sh", "-c", "exit 3"])
    assert (result.returncode, result.stdout) == (3, "")
    assert result.stderr.startswith(NOTHING_JOINED + "a CMD that is not Python needs --native")
    assert result.stderr.count("\n") == 1


def test_a_python_that_skips_the_hook_joins_nothing() -> None:
    result = run(["--", sys.executable, "-S", "-c", "import sys; sys.exit(4)"])
    assert result.returncode == 4
    assert result.stderr == NOTHING_JOINED + "%s never loaded monostamp's startup hook " \
        "(run with -S or -I?)\n" % sys.executable


def another_venv(tmp_path: Path) -> Path:
    """The python3 of a venv without monostamp: a link to this one's base
    interpreter, whose pyvenv.cfg makes it a venv of its own."""
    other = tmp_path / "other"
    (other / "bin").mkdir(parents=True)
    base = getattr(sys, "_base_executable", sys.executable)
    (other / "pyvenv.cfg").write_text("home = %s\ninclude-system-site-packages = false\n"
                                      % Path(base).parent)
    python = other / "bin" / "python3"
    python.symlink_to(base)
    sees = subprocess.run([str(python), "-c", "import monostamp"], capture_output=True,
                          env=env_without_sharing(), timeout=120)
    if sees.returncode == 0:
        pytest.skip("monostamp is importable without this venv (PYTHONPATH?)")
    return python


@posix_only("symbolic links, bin/")
def test_a_python_without_monostamp_is_named(tmp_path: Path) -> None:
    python = another_venv(tmp_path)
    result = run(["--", str(python), "-c", "import sys; sys.exit(5)"])
    assert result.returncode == 5
    assert result.stderr == NOTHING_JOINED + "monostamp is not installed for %s (it is for " \
        "%s)\n" % (python, sys.executable)


@posix_only("#! lines, /usr/bin/env")
def test_a_script_is_seen_through_its_interpreter_line(tmp_path: Path) -> None:
    python = another_venv(tmp_path)
    script = tmp_path / "tool"
    script.write_text("#!/usr/bin/env python3\nimport sys\nsys.exit(6)\n")
    script.chmod(0o755)
    env = env_without_sharing(PATH=str(python.parent) + os.pathsep + os.environ["PATH"])
    result = run(["--", str(script)], env=env)
    assert result.returncode == 6
    assert result.stderr == NOTHING_JOINED + "monostamp is not installed for %s (it is for " \
        "%s)\n" % (python, sys.executable)


def test_a_cmd_that_joins_says_nothing() -> None:
    # A Python that imports monostamp joins when it starts, stamp or not.
    result = run(["--", sys.executable, "-c", "import sys; sys.exit(7)"])
    assert (result.returncode, result.stderr) == (7, "")


def test_no_patch_warns_too_when_nothing_joined() -> None:
    result = run(["--no-patch", "--", sys.executable, "-c", "pass"])
    assert result.returncode == 0
    assert result.stderr.startswith(NOTHING_JOINED + "under --no-patch")
    joined = run(["--no-patch", "--", sys.executable, "-c", "import monostamp"])
    assert (joined.returncode, joined.stderr) == (0, "")


@posix_only("sh")
def test_a_cmd_that_joins_an_outer_file_is_counted(tmp_path: Path) -> None:
    # The runner itself joins a file it is given before CMD starts: that
    # is not CMD's join.
    state = str(tmp_path / "state")
    result = run(["--shared", state, "--", "sh", "-c", "true"])
    assert result.stderr.startswith(NOTHING_JOINED)
    result = run(["--shared", state, "--", sys.executable, "-c", "pass"])
    assert (result.returncode, result.stderr) == (0, "")


# ---------------------------------------------------------------- --grain

@pytest.mark.parametrize("args", [["--grain", "us", "true"], ["--grain=ns", "true"]])
def test_grain_without_native_is_a_usage_error(args) -> None:
    result = run(args)
    assert result.returncode == 125
    assert result.stderr.startswith("monostamp run: --grain ") and "--native" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("args", [["--native", "--grain", "ms", "true"],
                                  ["--native", "--grain"], ["--native", "--grain=", "true"]])
def test_grain_takes_ns_or_us(args) -> None:
    result = run(args)
    assert result.returncode == 125
    assert result.stderr.startswith("monostamp run: --grain ") and "ns or us" in result.stderr
    assert result.stderr.count("\n") == 1


def test_grain_is_exported_with_native() -> None:
    from monostamp import _run

    try:
        _run.with_preload({})
    except _run.NativeUnavailable as e:
        pytest.skip(str(e))
    code = "import os; print(os.environ.get('MONOSTAMP_GRAIN'))"
    for args, grain in [(["--grain", "us"], "us"), (["--grain=ns"], "ns"), ([], "inherited")]:
        result = run(["--native"] + args + ["--", sys.executable, "-c", code],
                     env=env_without_sharing(MONOSTAMP_GRAIN="inherited"))
        assert (result.returncode, result.stdout) == (0, grain + "\n"), result.stderr


# ------------------------------------------- directories of killed runners

@posix_only("/proc")
def test_a_killed_runner_s_directory_goes_at_the_next_run(tmp_path: Path) -> None:
    if not os.path.exists("/proc/self/stat"):
        pytest.skip("no /proc: directories are named by pid alone")
    temp = tmp_path / "temp"
    temp.mkdir()
    runs = []
    for name in ("killed", "live"):
        # Killing the runner leaves CMD running (on the file, whose
        # directory goes): CMD writes its pid, to be ended apart.
        (tmp_path / name).mkdir()
        runner = start_idle_cmd(tmp_path / name,
                                "with open(%r, 'w') as f: f.write(str(os.getpid()))\n"
                                % str(tmp_path / name / "pid"), None,
                                env=env_without_sharing(TMPDIR=str(temp)))
        runs.append((runner, Path((tmp_path / name / "ready").read_text()).parent,
                     int((tmp_path / name / "pid").read_text())))
    try:
        (killed, killed_dir, killed_cmd), (live, live_dir, live_cmd) = runs
        assert killed_dir.parent == live_dir.parent == temp
        os.kill(killed.pid, signal.SIGKILL)
        assert killed.wait(60) == -signal.SIGKILL
        assert killed_dir.exists()  # nothing removed it
        result = run(["--", sys.executable, "-c", "pass"],
                     env=env_without_sharing(TMPDIR=str(temp)))
        assert (result.returncode, result.stderr) == (0, "")
        assert not killed_dir.exists()
        assert live_dir.exists() and live.poll() is None
    finally:
        for runner, _, cmd in runs:
            for pid in (cmd, runner.pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            runner.wait(60)


@posix_only("/proc")
def test_only_a_gone_runner_s_directory_of_this_user_is_removed(tmp_path: Path) -> None:
    extension = sys.modules["monostamp._monostamp"]
    prefix = extension._run_dir_prefix()  # "monostamp-run-PID-START-NAMESPACE-"
    if prefix == "monostamp-run-%d-" % os.getpid():
        pytest.skip("no /proc: directories are named by pid alone, and kept")
    pid, start, namespace = prefix[len("monostamp-run-"):-1].split("-")
    dirs = {
        "this process": "%s-%s-%s" % (pid, start, namespace),
        "its pid used again": "%s-%d-%s" % (pid, int(start) + 1, namespace),
        "another pid namespace": "%s-%d-%d" % (pid, int(start) + 1, int(namespace) + 1),
        "not a runner's": "no-such-runner",
        "a pid alone, on a system with /proc": pid,
    }
    for name in dirs:
        (tmp_path / ("monostamp-run-" + dirs[name] + "-abc_12")).mkdir()
    gone = tmp_path / ("monostamp-run-" + dirs["its pid used again"] + "-abc_12")
    (gone / "state").write_text("")  # removed with its files
    others = None
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        others = tmp_path / ("monostamp-run-" + dirs["its pid used again"] + "-nobody")
        others.mkdir()
        os.chown(others, 65534, 65534)
    assert extension._run_dirs_sweep(str(tmp_path)) == 1
    kept = ["monostamp-run-" + dirs[name] + "-abc_12" for name in dirs]
    kept.remove(gone.name)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        kept + ([others.name] if others else []))
