"""monostamp.sleep() and sleep_until_ns()'s finish: the core sleeps, Python spins.

The C core wakes within a fraction of a microsecond of its deadline, but
the caller's Python code runs later than that: after a long sleep the
interpreter's way back (the GIL, cold caches, the eval loop) is cold, and
measured from Python a 30 ms sleep at tolerance 0 ended a median 33 us
late (issue 23).  A sleep's contract -- asked for X with tolerance D, the
caller runs between X and X + D -- is about the caller's code, so
sleep() and sleep_until_ns() (C, bindings/python/sleep.c: they read the
clock and check their arguments) call _finish() below, registered with the
extension when this module is imported:

- the core sleeps (GIL released) to a *lead* before the deadline, at
  tolerance 0, so it returns exactly there;
- Python calls sleep_until_ns() once with a past deadline, which warms
  the path the sleep's end will take (_warm below);
- Python then spins on monotonic_ns() until the deadline, in an ordinary
  Python loop, which runs signal handlers (Ctrl-C raises KeyboardInterrupt
  in it).

The spin exits only on a reading at or past the deadline, so a sleep is
never early.  When the tolerance is at least the lead, the core alone can
land inside it: it sleeps to the deadline with tolerance D - lead and no
spin follows.

The lead is learned per band of lengths (the time left at the call, by
powers of 10 from 10 us to 1 s), as the core learns its own margin:
lateness grows with the length.  Each sleep that spins observes x, how late
after the core's return Python got control; the lead covers x + x/4 + 2 us
at once (at most 4x per step, so one preempted wake-up does not set it)
and comes down by 1/32 of the gap, so it tracks the recent worst case
rather than the typical one.  It is clamped to [15 us, 250 us]: beyond
that the lateness is other processes holding the CPU, which a longer spin
cannot fix.  A band not observed yet starts from the nearest shorter
band's observed lead when that is higher than its own starting value.

No lock: the state is two lists, written under the GIL (or, free-threaded,
as single item stores); racing threads lose at most an observation.
"""
import sys

# The extension (imported by the package before this module), whose
# _sleep_* functions are private and so not in the package's stub: taken
# from sys.modules, so that mypy does not look for one (and importlib,
# which costs more to import than this whole module, is not needed).
_c = sys.modules["monostamp._monostamp"]
_sleep_finish, _sleep_until_core, monotonic_ns = (
    _c._sleep_finish, _c._sleep_until_core, _c.monotonic_ns)

#: The bounds of the learned lead, in ns.
LEAD_MIN_NS = 15_000
LEAD_MAX_NS = 250_000
# A lead covers an observed lateness x as x + x // 4 + this.
_HEADROOM_NS = 2_000
# A lower observation moves the lead 1/_DECAY of the way down; a higher one
# raises it at once, but at most _JUMP_MAX times over.
_DECAY = 32
_JUMP_MAX = 4

# Band b takes sleeps with less than _LIMITS[b] ns left (the last, the rest).
_LIMITS = (10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000)
# Starting leads: about 3x the median x Python showed here from fresh
# processes (issue 23: 1.4 / 12.5 / 33 us at 0.3 / 3 / 30 ms), so a
# process's first sleeps are on time before it has learned anything; the
# first two bands spin whole anyway.
_START = (15_000, 15_000, 25_000, 50_000, 100_000, 150_000, 200_000)
_leads = list(_START)
_seen = [False] * len(_START)


def _band(left_ns):
    b = 0
    for limit in _LIMITS:
        if left_ns < limit:
            break
        b += 1
    return b


def _clamp(ns):
    return LEAD_MIN_NS if ns < LEAD_MIN_NS else LEAD_MAX_NS if ns > LEAD_MAX_NS else ns


def _lead(b):
    """Band b's lead: its own once observed; before that the larger of its
    starting value and the nearest shorter band's observed lead (a longer
    sleep comes back no sooner than a shorter one)."""
    lead = _leads[b]
    if _seen[b]:
        return lead
    for s in range(b - 1, -1, -1):
        if _seen[s]:
            return max(lead, _leads[s])
    return lead


def _observe(b, late_ns, exact):
    """Feeds one observed return lateness into band b.  `exact`: measured
    after a core sleep at tolerance 0, so it may also lower the lead; else
    it is a lower bound and may only raise it."""
    late_ns = min(max(late_ns, 0), LEAD_MAX_NS)
    want = _clamp(late_ns + late_ns // 4 + _HEADROOM_NS)
    lead = _lead(b)
    if want > lead:
        lead = min(want, lead * _JUMP_MAX)
    elif exact:
        lead -= (lead - want + _DECAY - 1) // _DECAY  # rounded up, so it gets there
    _leads[b] = _clamp(lead)
    _seen[b] = True


def _warm():
    """Called once after the core's part.  The spin's own loop stays hot,
    but the way back to the caller -- _finish's return into the C half,
    that function's return into the caller's frame -- was last run before
    the sleep, and after milliseconds of other processes on the CPU it is
    cold.  A sleep_until_ns() to a past deadline takes that very path (the
    C half, this finish, both returns) and returns at once.  At 30 ms it cut
    what remained after the spin from a median 4.2 us (no warming) and
    3.9-4.2 us (an empty Python call in each turn of the spin) to 2.9-3.6
    us, in one process at a load average of 5 (docs/sleep.md)."""
    _c.sleep_until_ns(0)


def _finish(deadline_ns, tolerance_ns):
    """Sleeps to deadline_ns on monotonic_ns(): the core to the lead, then
    the spin.  The arguments are int64, checked by the caller (sleep.c)."""
    now = monotonic_ns
    left = deadline_ns - now()
    if left > LEAD_MIN_NS:  # else shorter than any lead: the spin alone
        b = _band(left)
        lead = _lead(b)
        if tolerance_ns >= lead:
            # The core alone lands in [T, T + D - lead]; Python follows
            # within the lead.  Its lateness less the core's allowance is
            # a lower bound of the return path's.
            core_tolerance = tolerance_ns - lead
            _sleep_until_core(deadline_ns, core_tolerance)
            _observe(b, now() - deadline_ns - core_tolerance, False)
            return
        if left > lead:
            target = deadline_ns - lead
            _sleep_until_core(target, 0)
            _observe(b, now() - target, True)
            target = None
            _warm()
        # Released now, not at the return: freeing these ints then would
        # touch memory last used before the sleep (cold) after the deadline.
        left = b = lead = None
    # The only exit is a reading at or past the deadline: never early.  A
    # Python loop, so signal handlers run in it.
    while now() < deadline_ns:
        pass


def lead_ns(length_ns):
    """The lead a sleep with length_ns left would use now, in ns (for tests
    and the benchmark; not part of the API)."""
    return _lead(_band(length_ns))


def _set_lead(length_ns, lead_ns_):
    """Test hook: sets the lead of length_ns's band as if observed."""
    b = _band(length_ns)
    _leads[b] = _clamp(lead_ns_)
    _seen[b] = True


def _reset():
    """Test hook: every band back to its starting, unobserved lead."""
    _leads[:] = _START
    _seen[:] = [False] * len(_START)


_sleep_finish(_finish)
