"""MONOSTAMP_PATCH=1: this process patches itself before any of its own code runs.

monostamp-patch.pth calls main() at interpreter start unless the variable is
unset, empty or "0" (docs/patch.md); a .pth of another install may call it
too, so the name stays.  Never silently unpatched: a bad value, a state file
it cannot join or a patch that cannot start is one line on stderr, status 1.
"""
import os
import sys

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
    value = os.environ.get("MONOSTAMP_PATCH")
    # site runs a .pth once per site directory (a venv's lib64 is its lib).
    if started is not None or value in (None, "", "0"):
        return
    if value != "1":
        _fail("MONOSTAMP_PATCH={!r} is not a value it takes: 1 patches each Python process "
              "at startup, 0 or unset does not".format(value))
    import monostamp

    # A MONOSTAMP_SHARED the default clock could not join (gone, unsafe, not
    # a state file) is an error of every draw: one draw asks now.
    try:
        monostamp.time_ns()
    except (OSError, ValueError) as e:
        # The cause alone, without the path the default clock's text repeats.
        reason = (e.strerror if isinstance(e, OSError) else None) or str(e)
        _fail("MONOSTAMP_PATCH=1, but MONOSTAMP_SHARED={} cannot be joined: {}".format(
            os.environ.get("MONOSTAMP_SHARED", ""), reason.split("): ", 1)[-1]))
    try:
        started = monostamp.patch().start()
    except RuntimeError as e:
        _fail("MONOSTAMP_PATCH=1: monostamp.patch() cannot start in {}: {}".format(
            sys.executable, e))
