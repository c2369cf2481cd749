"""monostamp run [--shared PATH] [--no-patch] [--native] -- CMD ARGS...: one sequence.

Exports MONOSTAMP_SHARED (a private state file, or the one given) and
MONOSTAMP_PATCH=1, runs CMD and exits as env(1) does (HELP, docs/patch.md).
parse_args() reads the command line, child_environment() builds CMD's
environment (with_preload(): docs/preload.md), run() puts them together.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import Dict, List, Mapping, NamedTuple, Optional

PROG = "monostamp run"
USAGE = "usage: monostamp run [--shared PATH] [--no-patch] [--native] [--] CMD [ARGS...]"
HELP = USAGE + """

Runs CMD with MONOSTAMP_SHARED pointing at one state file and
MONOSTAMP_PATCH=1, so that every Python process it starts (subprocesses,
multiprocessing's spawn and forkserver workers, Django's test workers)
patches datetime.now(), time.time() & co. at startup and draws from one
unique, increasing sequence.

options:
  --shared PATH  use this state file (created if missing, kept afterwards)
                 instead of a private one made for the run and removed after;
                 without it, a MONOSTAMP_SHARED already set is joined
  --no-patch     export MONOSTAMP_SHARED only: processes that call monostamp
                 share the sequence, the standard library's clocks stay real
  --native       also preload libmonostamp_preload.so (LD_PRELOAD, first):
                 every dynamically linked process's clock_gettime,
                 gettimeofday, time and timespec_get read the same sequence
                 (C programs, Lua, SQLite, date; Linux only)
  -h, --help     this text

exit status: CMD's; 128+N if signal N ended it; 127 CMD not found; 126 CMD
not executable; 125 the runner's own failure (bad flags, no state file)."""

#: The runner's own failures, CMD not executable, CMD not found.
EXIT_RUNNER, EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND = 125, 126, 127
SHARED, PATCH = "MONOSTAMP_SHARED", "MONOSTAMP_PATCH"
LIBRARY = "libmonostamp_preload.so"  # shipped in the package (setup.py, on Linux)
#: Passed on to CMD: what a service manager or a parent sends the runner.
FORWARDED = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                  if hasattr(signal, name))
#: Sent by a terminal to its whole foreground process group, CMD included:
#: the runner outlives them and lets CMD decide (not delivered twice).
FROM_TERMINAL = tuple(getattr(signal, name) for name in ("SIGINT", "SIGQUIT")
                      if hasattr(signal, name))


class UsageError(Exception):
    """A bad command line: one line, status 125."""


class NativeUnavailable(RuntimeError):
    """--native cannot be used here: one line, status 125."""


class Options(NamedTuple):
    shared: Optional[str]  # --shared PATH, or None: a private state file
    patch: bool            # False with --no-patch
    command: List[str]     # CMD ARGS...
    native: bool = False   # --native: the preload library too


def parse_args(argv: List[str]) -> Options:
    """The runner's flags, up to "--" or the first word that is not one."""
    shared: Optional[str] = None
    patch, native = True, False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if arg == "--no-patch":
            patch = False
        elif arg == "--native":
            native = True
        elif arg == "--shared" or arg.startswith("--shared="):
            if arg == "--shared":
                if i + 1 >= len(argv):
                    raise UsageError("--shared needs a PATH")
                i += 1
                shared = argv[i]
            else:
                shared = arg[len("--shared="):]
            if not shared:
                raise UsageError("--shared needs a PATH, not an empty one")
        elif arg.startswith("-"):
            raise UsageError("unknown option {!r} (see monostamp run --help)".format(arg))
        else:
            break
        i += 1
    command = argv[i:]
    if not command:
        raise UsageError("no command to run (" + USAGE + ")")
    return Options(shared, patch, command, native)


def child_environment(options: Options, state_path: str,
                      base: Mapping[str, str]) -> Dict[str, str]:
    """CMD's environment: `base` with the state file, the patch asked for, and
    with --native the preload library (NativeUnavailable where there is none)."""
    env = dict(base)
    env[SHARED] = state_path
    if options.patch:
        env[PATCH] = "1"
    else:
        env.pop(PATCH, None)  # --no-patch wins over one inherited
    return with_preload(env) if options.native else env


def library_path() -> str:
    """The absolute path of the shipped libmonostamp_preload.so."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY)
    if not os.path.isfile(path):
        raise NativeUnavailable(
            "monostamp: %s is not installed beside %s (this build has no preload library)"
            % (LIBRARY, os.path.dirname(path)))
    return path


def with_preload(env: Mapping[str, str]) -> Dict[str, str]:
    """A copy of `env` with the library first in LD_PRELOAD, ahead of what is
    there already (a libfaketime listed after it is wrapped, not winning)."""
    if sys.platform in ("win32", "darwin"):
        raise NativeUnavailable(
            "monostamp: --native needs LD_PRELOAD, which %s does not have" % sys.platform)
    path = library_path()
    # The loader splits LD_PRELOAD on spaces and colons; a copy further on
    # is dropped, so the library is first exactly once.
    rest = [p for p in env.get("LD_PRELOAD", "").replace(":", " ").split() if p != path]
    return dict(env, LD_PRELOAD=" ".join([path] + rest))


def _fail(message: str, status: int) -> int:
    print("{}: {}".format(PROG, message), file=sys.stderr)
    return status


def _wait(child: "subprocess.Popen[bytes]", pending: List[int]) -> int:
    """Waits for CMD, passing on the forwarded signals; its status as a shell's."""
    def forward(signum: int, frame: object) -> None:
        try:
            child.send_signal(signum)
        except OSError:  # gone meanwhile: its status says what happened
            pass

    for signum in FORWARDED:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, forward)
    for signum in pending:  # arrived while CMD was being started
        forward(signum, None)
    status = child.wait()
    return 128 - status if status < 0 else status


def run(options: Options) -> int:
    """Runs options.command in its environment; returns the exit status."""
    owned_dir: Optional[str] = None
    pending: List[int] = []
    # Until CMD runs, a forwarded signal is kept for it; the terminal's are
    # CMD's to act on for the whole run (the runner's handler does nothing:
    # unlike SIG_IGN, a handler is not inherited by CMD).
    # A signal ignored when the runner started (a background job's SIGINT)
    # stays ignored, and CMD inherits that, as it would without the runner.
    saved = {}
    for signum in FORWARDED + FROM_TERMINAL:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            saved[signum] = signal.signal(signum, (lambda s, f: pending.append(s))
                                          if signum in FORWARDED else (lambda s, f: None))
    try:
        import monostamp
        try:
            state = options.shared or os.environ.get(SHARED)  # or an outer run's, the user's
            if state:
                monostamp.Clock(shared=state)  # usable (created if missing) by every process
            else:
                # A directory made just now, 0700: no earlier sequence used
                # it, so the file starts at the real clock, not a lead bound ahead.
                owned_dir = tempfile.mkdtemp(prefix="monostamp-run-")
                state = os.path.join(owned_dir, "state")
                monostamp.create_state_file(state)
        except (OSError, ValueError) as e:
            return _fail("cannot make the state file: {}".format(e), EXIT_RUNNER)
        try:
            env = child_environment(options, state, os.environ)
        except NativeUnavailable as e:
            return _fail(str(e), EXIT_RUNNER)
        try:
            child = subprocess.Popen(options.command, env=env)
        except FileNotFoundError:
            return _fail("{}: command not found".format(options.command[0]), EXIT_NOT_FOUND)
        except OSError as e:  # EACCES, ENOEXEC, a directory ...
            return _fail("{}: cannot execute: {}".format(options.command[0], e.strerror or e),
                         EXIT_CANNOT_EXECUTE)
        return _wait(child, pending)
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
        if owned_dir is not None:
            shutil.rmtree(owned_dir, ignore_errors=True)


def main(args: List[str]) -> int:
    if args[:1] in (["-h"], ["--help"]):
        print(HELP)
        return 0
    try:
        options = parse_args(args)
    except UsageError as e:
        return _fail(str(e), EXIT_RUNNER)
    return run(options)
