"""The Python finish of monostamp.sleep() and sleep_until_ns() (issue 23).

The core plans each sleep (csrc/sleep_finish.c: it sleeps to a lead it
learned before the deadline) and bindings/python/sleep.c makes its naps;
what must run in Python is here, because the caller's code runs late after
a long sleep (the interpreter's way back is cold, docs/sleep.md): Python's
first reading after the core's part, which the plan learns from; one
sleep_until_ns(0), which takes the path the sleep's end will take and so
warms it; and the spin to the deadline, a Python loop, in which signal
handlers run (Ctrl-C raises KeyboardInterrupt in it).  Its only exit is a
reading at or past the deadline: never early.
"""
import sys

# The extension, imported by the package first: from sys.modules, so that
# mypy looks for no stub of its private names.
_c = sys.modules["monostamp._monostamp"]
monotonic_ns = _c.monotonic_ns


def _warm():
    """Once after the core's part: the path of the sleep's end (the C half,
    _finish, both returns) was last run before the sleep; at 30 ms warming
    it cut a median 4.2 us late to 2.9-3.6 us (docs/sleep.md)."""
    _c.sleep_until_ns(0)


def _finish(deadline_ns, plan):
    """Called by sleep.c after the core's naps; plan: the sleep's plan when
    the core made a part of it, else None (the spin alone, or past)."""
    now = monotonic_ns
    if plan is not None:
        if not plan.step(now()):  # the core's part covered the tolerance
            return
        _warm()
    while now() < deadline_ns:
        pass


_c._sleep_finish(_finish)
