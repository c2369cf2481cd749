"""MONOSTAMP_PATCH=1: this process patches itself before any of its own code runs.

monostamp-patch.pth calls main() at interpreter start unless the variable is
unset, empty or "0", or Python runs isolated (-I); under -S no .pth runs at
all (docs/patch.md).  The .pth line itself makes sure it acts once per
process (a marker in sys, set before it imports anything: site runs a .pth
once for each site directory that holds it, and a venv's lib64 is its lib),
and turns a monostamp it cannot import into one line and status 1, since
that failure happens before this module exists.  A .pth of another install
may call main() too, so the name stays, and main() acts once as well.

Never silently unpatched: a bad value, a state file it cannot join or a
patch that cannot start is one line on stderr, status 1, and the program's
own code never runs.
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
    line = " ".join("monostamp: {}".format(message).split())  # one line, whatever the cause says
    try:
        os.write(2, (line + "\n").encode("utf-8", "backslashreplace"))
    except OSError:
        pass
    # Not SystemExit: site would print it as a traceback and go on to run the
    # program unpatched.
    os._exit(1)


def _cause(e):
    """An exception as its type and text, for a message of one line."""
    return "{}: {}".format(type(e).__name__, e) if str(e) else type(e).__name__


def main():
    global started
    value = os.environ.get("MONOSTAMP_PATCH")
    if started is not None or value in (None, "", "0"):
        return
    if value != "1":
        _fail("MONOSTAMP_PATCH={!r} is not a value it takes: 1 patches each Python process "
              "at startup, 0 or unset does not".format(value))
    try:
        import monostamp
    except Exception as e:  # the .pth reports this itself; another caller may not
        _fail("MONOSTAMP_PATCH=1, but {} cannot import monostamp: {}".format(
            sys.executable, _cause(e)))

    # A MONOSTAMP_SHARED the default clock could not join (gone, unsafe, not
    # a state file) is an error of every draw: one draw asks now.
    try:
        monostamp.time_ns()
    except (OSError, ValueError) as e:
        # The core's sentence ("MONOSTAMP_SHARED='path': why"), the one every
        # binding shows, without the default clock's own prefix.
        reason = (e.strerror if isinstance(e, OSError) else None) or str(e)
        _fail("MONOSTAMP_PATCH=1, but the default clock cannot join its state file: {}".format(
            reason.split("the default clock is unusable: ", 1)[-1]))
    except Exception as e:
        _fail("MONOSTAMP_PATCH=1, but the default clock cannot stamp: {}".format(_cause(e)))
    try:
        started = monostamp.patch().start()
    except Exception as e:  # RuntimeError says why in its text alone
        _fail("MONOSTAMP_PATCH=1: monostamp.patch() cannot start in {}: {}".format(
            sys.executable, e if type(e) is RuntimeError else _cause(e)))
