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

Importing it costs little more than importing datetime (bench/python/
bench_startup.py), because a child started with MONOSTAMP_PATCH=1 imports
it before its own code runs: Policy (enum), patch() and friends (inspect,
uuid) load when first used, through __getattr__ below.
"""
from . import _monostamp
from ._monostamp import (  # noqa: F401  (re-exported, unwrapped: the hot path)
    DEFAULT_SLEEP_TOLERANCE_NS,
    Clock,
    PATCH_MAX_LEAD_NS,
    LeadError,
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
    import types

    return types.SimpleNamespace(**_monostamp.clock_info(source))


#: Names loaded when first asked for: the module each comes from.
_LAZY = {"Policy": "_monostamp", "patch": "_patching", "patched": "_patching",
         "patching": "_patching"}


def __getattr__(name):
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError("module 'monostamp' has no attribute {!r}".format(name))
    # __import__ with a fromlist returns the submodule itself, and needs no
    # importlib (which costs more to import than the module asked for).
    value = getattr(__import__("monostamp." + where, fromlist=[name]), name)
    globals()[name] = value  # asked once: later lookups find it directly
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
