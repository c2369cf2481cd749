"""The Python finish of monostamp.sleep() and sleep_until_ns() (docs/sleep.md):
the reading the plan learns from, one warming call, and the spin to the
deadline, in which signal handlers run; it exits only at or past it.
"""
import sys
import time

# From sys.modules, so that mypy looks for no stub of its private names.
_c = sys.modules["monostamp._monostamp"]
monotonic_ns = _c.monotonic_ns
# The readings a caller takes right after a sleep: after 30 ms elsewhere
# their code is cold too, and reading one first cost the caller 1.2 us of
# its lateness (median, fresh processes); warmed, it costs 0.1 us.
_callers_clocks = (time.monotonic_ns, time.perf_counter_ns, time.monotonic, time.perf_counter)


def _warm():
    """Runs the path of the sleep's end once: warm, it is later by less."""
    _c.sleep_until_ns(0)
    for read in _callers_clocks:
        read()


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
