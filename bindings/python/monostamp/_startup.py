"""MONOSTAMP_PATCH=1: this process patches itself before any of its own code runs.

The wheel installs monostamp-patch.pth into site-packages (setup.py puts it
there for `pip install .` and `pip install -e .` too).  Python's site
module runs its one line at every interpreter start: it reads
MONOSTAMP_PATCH and, unless that is unset, empty or "0", imports this
module and calls main().  So a process whose variable is unset pays one
environment lookup and imports nothing of monostamp.

main() patches the process as monostamp.patch().start() does, on the
default clock, which joined MONOSTAMP_SHARED (if set) when the extension
loaded: every such process, however it was started (subprocess, a
multiprocessing spawn or forkserver worker, Django's test workers),
continues that file's one sequence.  It never leaves a process silently
unpatched: a value other than 0 and 1, a state file it cannot join, or a
patch that cannot start prints one line on stderr and ends the process
with status 1, before the program's code has run.
"""
import os
import sys

VARIABLE = "MONOSTAMP_PATCH"
SHARED = "MONOSTAMP_SHARED"

#: The patch main() started (kept so that the pytest plugin of an xdist
#: worker can stop it: docs/pytest.md), or None.
started = None


def stop():
    """Stops the patch main() started, if it is still active."""
    global started
    if started is not None:
        if started.active:
            started.stop()
        started = None


def wanted(value):
    """True for "1", False for unset, "" and "0"; ValueError otherwise."""
    if value is None or value in ("", "0"):
        return False
    if value == "1":
        return True
    raise ValueError("{}={!r} is not a value it takes: 1 patches each Python process "
                     "at startup, 0 or unset does not".format(VARIABLE, value))


def _fail(message):
    """One line on stderr, status 1: the program's code has not run yet."""
    line = "monostamp: {}\n".format(message)
    try:
        os.write(2, line.encode("utf-8", "backslashreplace"))
    except OSError:
        pass
    os._exit(1)


def _reason(error):
    """The cause of the default clock's error, without the path it repeats
    ("the default clock is unusable (MONOSTAMP_SHARED='...'): cause")."""
    text = (error.strerror if isinstance(error, OSError) else None) or str(error)
    return text.split("): ", 1)[-1]


def main():
    global started
    if started is not None:
        # site runs a .pth once per site directory it is found in, and a
        # venv's lib64 is a link to its lib: the first call did it all.
        return
    try:
        if not wanted(os.environ.get(VARIABLE)):
            return
    except ValueError as e:
        _fail(str(e))
    import monostamp

    # The default clock opened MONOSTAMP_SHARED when the extension loaded;
    # a file it could not join (gone with its directory, unsafe, not a
    # state file) is an error of every draw.  One draw asks now.
    try:
        monostamp.time_ns()
    except (OSError, ValueError) as e:
        _fail("{}=1, but {}={} cannot be joined: {}".format(
            VARIABLE, SHARED, os.environ.get(SHARED, ""), _reason(e)))
    try:
        started = monostamp.patch().start()
    except RuntimeError as e:
        _fail("{}=1: monostamp.patch() cannot start in {}: {}".format(
            VARIABLE, sys.executable, e))
