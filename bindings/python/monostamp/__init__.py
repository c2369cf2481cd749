"""monostamp: unique, monotonic wall-clock timestamps that carry the local UTC offset.

    >>> import monostamp
    >>> s = monostamp.now()            # a Stamp from the process default clock
    >>> utc_ns, offset = s             # int ns since the epoch, int s east of UTC
    >>> s.isoformat()                  # '2026-12-02T15:11:20.123456789+01:00'

The C core does the work (policies over one atomic, offsets, ISO 8601); this
package adds the Policy enum and documentation.  now(), time_ns() and the
types are the extension's own objects, re-exported unwrapped.
"""
import enum as _enum
import types as _types

from . import _monostamp
from ._monostamp import (  # noqa: F401  (re-exported, unwrapped: the hot path)
    DEFAULT_SLEEP_TOLERANCE_NS,
    Clock,
    LeadError,
    Stamp,
    __version__,
    get_policy,
    monotonic_ns,
    now,
    set_policy,
    sleep,
    sleep_until_ns,
    time_ns,
    zone_changed,
)

__all__ = [
    "Clock", "LeadError", "Policy", "Stamp", "clock_info", "get_policy",
    "monotonic_ns", "now", "set_policy", "sleep", "sleep_until_ns", "time_ns",
    "zone_changed",
]


class Policy(str, _enum.Enum):
    """What a clock does with a reading r, given the last value it handed out.

    Names and values follow Squeak Smalltalk's ``Time clockPolicy:``; every
    API taking a Policy also takes its value, the Squeak name.
    """

    #: r as read: may repeat, may go backwards.
    ACCEPT_PLATFORM_TIME = "acceptPlatformTime"
    #: max(r, last): never backwards, may repeat.
    MONOTONIC_ALLOW_DUPLICATES = "monotonicAllowDuplicates"
    #: r floored to a whole microsecond, or the next whole microsecond after last.
    MONOTONIC_FORCE_MICROSECOND_INCREMENT = "monotonicForceMicrosecondIncrement"
    #: r if greater than last, else last + 1 ns: strictly increasing (the default).
    MONOTONIC_FORCE_NANOSECOND_INCREMENT = "monotonicForceNanosecondIncrement"

    def __str__(self):
        return self.value

    def __format__(self, spec):
        return format(self.value, spec)


# From here on the extension returns Policy members, not bare names.
_monostamp._set_policy_enum(Policy)


def clock_info(source="realtime"):
    """Facts about a source, like time.get_clock_info().

    Returns a namespace with name, implementation, resolution (float
    seconds), resolution_ns, adjustable and monotonic.  source is
    'realtime', 'realtime_coarse' or 'manual'.
    """
    return _types.SimpleNamespace(**_monostamp.clock_info(source))
