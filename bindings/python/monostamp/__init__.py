"""monostamp: unique, monotonic wall-clock timestamps that carry the local UTC offset.

    >>> import monostamp
    >>> s = monostamp.now()            # a Stamp from the process default clock
    >>> utc_ns, offset = s             # int ns since the epoch, int s east of UTC
    >>> s.isoformat()                  # '2026-12-02T15:11:20.123456789+01:00'

The C core does the work (policies over one atomic, offsets, ISO 8601); this
package adds clock_info's namespace, patch() (the standard library's clocks
drawing from a monostamp clock), the finish of sleep() and sleep_until_ns()
(the core sleeps, a Python spin ends them: monostamp/_sleep.py) and
documentation.  now(), time_ns(), sleep(), the types and the Policy enum
are the extension's own objects, made when it is imported and re-exported
unwrapped: every getter returns a Policy member.
"""
import types as _types

from . import _monostamp
from ._monostamp import (  # noqa: F401  (re-exported, unwrapped: the hot path)
    DEFAULT_SLEEP_TOLERANCE_NS,
    Clock,
    PATCH_MAX_LEAD_NS,
    LeadError,
    Policy,
    Stamp,
    __version__,
    create_state_file,
    get_policy,
    monotonic_ns,
    now,
    now_datetime,
    set_policy,
    sleep,
    sleep_until_ns,
    take,
    time,
    time_ns,
    uuid7,
    uuid7_ns,
    zone_changed,
)
from ._patching import patch, patched, patching
from . import _sleep  # noqa: F401  (registers sleep()'s finish)
from ._interop import json_default, register_sqlite

__all__ = [
    "Clock", "LeadError", "Policy", "Stamp", "clock_info", "create_state_file", "get_policy",
    "monotonic_ns", "now", "now_datetime", "patch", "patched", "patching", "set_policy", "sleep",
    "sleep_until_ns", "take", "time", "time_ns", "uuid7", "uuid7_ns", "zone_changed",
]

# Stamps in JSON and SQLite (monostamp/_interop.py).
__all__ += ["json_default", "register_sqlite"]


def clock_info(source="realtime"):
    """Facts about a source, like time.get_clock_info().

    Returns a namespace with name, implementation, resolution (float
    seconds), resolution_ns, adjustable and monotonic.  source is
    'realtime', 'realtime_coarse' or 'manual'.
    """
    return _types.SimpleNamespace(**_monostamp.clock_info(source))
