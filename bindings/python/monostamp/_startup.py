"""MONOSTAMP_PATCH=1: this process patches itself before any of its own code runs.

monostamp-patch.pth (installed into site-packages) imports this module and
calls main() at interpreter start unless MONOSTAMP_PATCH is unset, empty or
"0".  main() starts monostamp.patch() on the default clock, which joined
MONOSTAMP_SHARED (if set) on import.  It never leaves a process silently
unpatched: a bad value, a state file it cannot join or a patch that cannot
start is one line on stderr and status 1, before the program's code runs.
See docs/patch.md.
"""
import os
import sys

VARIABLE = "MONOSTAMP_PATCH"
SHARED = "MONOSTAMP_SHARED"

#: The patch main() started (an xdist worker's plugin stops it), or None.
started = None


def stop():
    """Stops the patch main() started, if it is still active."""
    global started
    if started is not None and started.active:
        started.stop()
    started = None


def _fail(message):
    """One line on stderr, status 1: the program's code has not run yet."""
    try:
        os.write(2, "monostamp: {}\n".format(message).encode("utf-8", "backslashreplace"))
    except OSError:
        pass
    os._exit(1)


def main():
    global started
    value = os.environ.get(VARIABLE)
    # site runs a .pth once per site directory (a venv's lib64 is its lib).
    if started is not None or value in (None, "", "0"):
        return
    if value != "1":
        _fail("{}={!r} is not a value it takes: 1 patches each Python process "
              "at startup, 0 or unset does not".format(VARIABLE, value))
    import monostamp

    # A MONOSTAMP_SHARED the default clock could not join (gone, unsafe, not
    # a state file) is an error of every draw: one draw asks now.
    try:
        monostamp.time_ns()
    except (OSError, ValueError) as e:
        # The cause alone, without the path the default clock's text repeats.
        reason = (e.strerror if isinstance(e, OSError) else None) or str(e)
        _fail("{}=1, but {}={} cannot be joined: {}".format(
            VARIABLE, SHARED, os.environ.get(SHARED, ""), reason.split("): ", 1)[-1]))
    try:
        started = monostamp.patch().start()
    except RuntimeError as e:
        _fail("{}=1: monostamp.patch() cannot start in {}: {}".format(
            VARIABLE, sys.executable, e))
