"""monostamp run [--shared PATH] [--no-patch] [--native [--grain us]] [--report] -- CMD ARGS...

Exports MONOSTAMP_SHARED (a private state file, or the one given) and
MONOSTAMP_PATCH=1, runs CMD and exits as env(1) does (HELP, docs/patch.md).
parse_args() reads the command line, child_environment() builds CMD's
environment (with_preload(): docs/preload.md), run() puts them together,
and says in one line when no process of CMD joined the sequence
(nothing_joined()).  A private state file lives in a directory whose name
records its runner, so that a later run removes the directories of runners
that were killed: the core's rules (monostamp_host.h, _run_dir_prefix and
_run_dirs_sweep).
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import Dict, List, Mapping, NamedTuple, Optional, Tuple

PROG = "monostamp run"
USAGE = ("usage: monostamp run [--shared PATH] [--no-patch] [--native [--grain us]] "
         "[--report] [--] CMD [ARGS...]")
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
  --grain us     with --native: the preloaded clock_gettime and timespec_get
                 answer whole microseconds (MONOSTAMP_GRAIN=us), for readers
                 that cut to microseconds; ns (the default) keeps nanoseconds
  --report       when CMD ends, print on stderr one line of what the clocks
                 of its processes counted on the state file (as
                 monostamp stats PATH): stamps handed out, how many would
                 have repeated without monostamp, backward steps, the
                 largest lead
  -h, --help     this text

When CMD ends and none of its processes joined the state file (monostamp
not installed for CMD's Python, or a CMD that is not Python run without
--native), it says so in one line on stderr; the status stays CMD's.

exit status: CMD's; 128+N if signal N ended it; 127 CMD not found; 126 CMD
not executable; 125 the runner's own failure (bad flags, no state file)."""

#: The runner's own failures, CMD not executable, CMD not found.
EXIT_RUNNER, EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND = 125, 126, 127
SHARED, PATCH, GRAIN = "MONOSTAMP_SHARED", "MONOSTAMP_PATCH", "MONOSTAMP_GRAIN"
GRAINS = ("ns", "us")  # the preload's (docs/preload.md); ns is its default
LIBRARY = "libmonostamp_preload.so"  # shipped in the package (setup.py, on Linux)
#: The package's directory that holds it: one without __init__.py, so that no
#: module finder (pkgutil.iter_modules, pydoc -k) lists the library as a
#: module named libmonostamp_preload whose import fails.
NATIVE_DIR = "_native"
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
    grain: Optional[str] = None  # --grain: exported as MONOSTAMP_GRAIN, or None: not set
    report: bool = False   # --report: the counts' line when CMD ends


def parse_args(argv: List[str]) -> Options:
    """The runner's flags, up to "--" or the first word that is not one."""
    shared: Optional[str] = None
    grain: Optional[str] = None
    patch, native, report = True, False, False
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
        elif arg == "--report":
            report = True
        elif arg.partition("=")[0] in ("--shared", "--grain"):
            # "--flag VALUE" or "--flag=VALUE".
            flag, equals, value = arg.partition("=")
            if not equals:
                if i + 1 >= len(argv):
                    raise UsageError(flag + (" needs a PATH" if flag == "--shared" else
                                             " needs ns or us"))
                i += 1
                value = argv[i]
            if flag == "--shared":
                if not value:
                    raise UsageError("--shared needs a PATH, not an empty one")
                shared = value
            elif value in GRAINS:
                grain = value
            else:
                raise UsageError("--grain takes ns or us, not {!r}".format(value))
        elif arg.startswith("-"):
            raise UsageError("unknown option {!r} (see monostamp run --help)".format(arg))
        else:
            break
        i += 1
    command = argv[i:]
    if not command:
        raise UsageError("no command to run (" + USAGE + ")")
    if grain is not None and not native:
        # Only the preload library reads it: Python's patched calls choose
        # their grain per call (docs/patch.md), so alone it would do nothing.
        raise UsageError("--grain {} is the preload library's grain: add --native".format(grain))
    return Options(shared, patch, command, native, grain, report)


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
    if options.grain is not None:
        env[GRAIN] = options.grain
    return with_preload(env) if options.native else env


def library_path() -> str:
    """The absolute path of the libmonostamp_preload.so this install ships,
    as LD_PRELOAD can carry it (`monostamp preload-path` prints it); where
    there is none, NativeUnavailable saying why in one line."""
    # In a directory without __init__.py, where no module finder takes it
    # for a module (setup.py, tools/dist/pack_wheel.py).
    native = os.path.join(os.path.dirname(os.path.abspath(__file__)), NATIVE_DIR)
    path = os.path.join(native, LIBRARY)
    if not os.path.isfile(path):
        if sys.platform.startswith("linux"):
            why = ("this install was built without the preload library (make builds one: "
                   "build/libmonostamp_preload.so)")
        else:
            why = "the preload library is built for Linux only, and this is " + sys.platform
        raise NativeUnavailable("no %s in %s: %s" % (LIBRARY, native, why))
    # The loader splits LD_PRELOAD at every space and colon, with no way to
    # escape one: such a path would preload pieces of it, which do not exist.
    if " " in path or ":" in path:
        raise NativeUnavailable("%s is at %r, whose space or colon LD_PRELOAD cannot "
                                "carry: install monostamp where the path has neither"
                                % (LIBRARY, path))
    return path


def with_preload(env: Mapping[str, str]) -> Dict[str, str]:
    """A copy of `env` with the library first in LD_PRELOAD, ahead of what is
    there already (a libfaketime listed after it is wrapped, not winning)."""
    if sys.platform in ("win32", "darwin"):
        raise NativeUnavailable("--native needs LD_PRELOAD, which %s does not have"
                                % sys.platform)
    path = library_path()
    # The loader splits LD_PRELOAD on spaces and colons; a copy further on
    # is dropped, so the library is first exactly once.
    rest = [p for p in env.get("LD_PRELOAD", "").replace(":", " ").split() if p != path]
    return dict(env, LD_PRELOAD=" ".join([path] + rest))


# ----------------------------------------------------- who joined the run

def _snapshot(state: str) -> Optional[Tuple[int, Tuple[int, int, int, int]]]:
    """How many times a clock joined the state file, and its counts; None if
    it cannot be read (gone, replaced by something else)."""
    extension = sys.modules["monostamp._monostamp"]  # run() imported monostamp
    try:
        return extension._state_file_info(state)[2], extension._state_counts(state)
    except (OSError, ValueError):
        return None


def _python_of(command: List[str]) -> Optional[str]:
    """The Python that CMD runs, if it is one: `python3 ...`, or a script
    whose #! line names a Python (pytest, manage.py).  None otherwise."""
    exe = shutil.which(command[0]) or command[0]
    looks_python = re.compile(r"(python|pypy)[0-9.]*(\.exe)?")
    if looks_python.fullmatch(os.path.basename(exe)):
        return exe
    try:
        with open(exe, "rb") as f:
            first = f.readline(256)
    except OSError:
        return None
    words = first[2:].decode("utf-8", "replace").split() if first.startswith(b"#!") else []
    if words and os.path.basename(words[0]) == "env" and len(words) > 1:
        words = [shutil.which(words[1]) or words[1]]
    if words and looks_python.fullmatch(os.path.basename(words[0])):
        return words[0]
    return None


def _environment(python: str) -> str:
    """Where a Python finds its packages, as far as its path tells: its venv
    (whose python is a link to the base interpreter's, as other venvs' are),
    else the interpreter itself."""
    venv = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    if os.path.isfile(os.path.join(venv, "pyvenv.cfg")):
        return os.path.realpath(venv)
    return os.path.realpath(python)


def nothing_joined(options: Options) -> str:
    """The line said when no process of CMD joined the run's state file: what
    most likely kept them away."""
    if options.native:
        # The preload joins as it loads, before main(): only a process
        # it never loads into is missed.
        cause = ("with --native too: CMD is statically linked (Go, musl) or set-user-ID, "
                 "which LD_PRELOAD does not reach")
    elif not options.patch:
        cause = ("under --no-patch only processes that call monostamp join; --native "
                 "reaches programs that are not Python")
    else:
        python = _python_of(options.command)
        if python is None:
            cause = ("a CMD that is not Python needs --native; a Python one needs monostamp "
                     "installed for it (it is for {})".format(sys.executable))
        elif _environment(shutil.which(python) or python) == _environment(sys.executable):
            cause = ("{} never loaded monostamp's startup hook (run with -S or -I?)"
                     .format(python))
        else:
            cause = "monostamp is not installed for {} (it is for {})".format(
                python, sys.executable)
    return "no process of CMD joined the run's sequence: " + cause


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
        extension = sys.modules["monostamp._monostamp"]
        extension._run_dirs_sweep(tempfile.gettempdir())
        try:
            state = options.shared or os.environ.get(SHARED)  # or an outer run's, the user's
            if state:
                monostamp.Clock(shared=state)  # usable (created if missing) by every process
            else:
                # A directory made just now, 0700: no earlier sequence used
                # it, so the file starts at the real clock, not a lead bound
                # ahead.  Its name says whose it is from its first instant.
                owned_dir = tempfile.mkdtemp(prefix=extension._run_dir_prefix())
                state = os.path.join(owned_dir, "state")
                monostamp.create_state_file(state)
        except (OSError, ValueError) as e:
            return _fail("cannot make the state file: {}".format(e), EXIT_RUNNER)
        try:
            env = child_environment(options, state, os.environ)
        except NativeUnavailable as e:
            return _fail(str(e), EXIT_RUNNER)
        # Counted as CMD starts: the runner's own joins (an outer run's
        # file, the check above) are before it.
        before = _snapshot(state)
        try:
            child = subprocess.Popen(options.command, env=env)
        except FileNotFoundError:
            return _fail("{}: command not found".format(options.command[0]), EXIT_NOT_FOUND)
        except OSError as e:  # EACCES, ENOEXEC, a directory ...
            return _fail("{}: cannot execute: {}".format(options.command[0], e.strerror or e),
                         EXIT_CANNOT_EXECUTE)
        status = _wait(child, pending)
        after = _snapshot(state)
        # Fewer joins than before: the file was replaced, and whoever made
        # the new one may have joined it; unreadable: nothing to say.
        if before is not None and after is not None and after[0] == before[0]:
            _fail(nothing_joined(options), status)
        # --report: what CMD's processes counted (the file's counts since CMD
        # started: a file shared with others counts theirs too).
        if options.report and before is not None:
            if after is None:
                _fail("--report: the state file {} cannot be read any more".format(state), status)
            else:
                print(extension._counts_text(after[1], before[1]), file=sys.stderr)
        return status
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
