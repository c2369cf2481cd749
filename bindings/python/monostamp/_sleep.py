"""The Python finish of monostamp.sleep() and sleep_until_ns() (docs/sleep.md):
the reading the plan learns from, one warming call, and the spin to the
deadline, in which signal handlers run; it exits only at or past it.
"""
import sys

# From sys.modules, so that mypy looks for no stub of its private names.
_c = sys.modules["monostamp._monostamp"]
monotonic_ns = _c.monotonic_ns


def _warm():
    """Runs the path of the sleep's end once: warm, it is later by less."""
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
