"""monostamp: unique, monotonic wall-clock timestamps that carry the local UTC offset.

    >>> import monostamp
    >>> s = monostamp.now()            # a Stamp from the process default clock
    >>> utc_ns, offset = s             # int ns since the epoch, int s east of UTC
    >>> s.isoformat()                  # '2026-12-02T15:11:20.123456789+01:00'

Every public name is a plain attribute of this module, bound at import: the
extension's objects re-exported unwrapped (the hot path).  No module
__getattr__ (PEP 562): CPython does not specialise attribute reads on a module
whose namespace holds one, which made every monostamp.now() cost a third more
than time.time_ns().  See "monostamp for Python" in the monostamp docs.

PYTEST_DONT_REWRITE: pytest marks the plugin's package for assertion
rewriting as it starts, and warns that it cannot when the package is already
imported, which the MONOSTAMP_PATCH startup hook does first in every process
of `pytest --monostamp-patch -n N` and `monostamp run -- pytest`.  This
marker tells pytest the package's own asserts are not to be rewritten, so it
has nothing to warn about; test modules are rewritten as before.
"""
import sys as _sys

if _sys.implementation.name == "pypy":  # the cffi binding in its place (_pypy.py)
    from . import _pypy as _monostamp
    _sys.modules[__name__ + "._monostamp"] = _monostamp
else:
    from . import _monostamp
from ._monostamp import (  # noqa: F401  (re-exported, unwrapped: the hot path)
    DEFAULT_SLEEP_TOLERANCE_NS, PATCH_MAX_LEAD_NS, Clock, LeadError, Stamp, __version__,
    create_state_file, get_policy, monotonic_ns, now, now_datetime, set_policy, sleep,
    sleep_until_ns, take, time, time_ns, uuid7, uuid7_ns, zone_changed,
)
from . import _sleep  # noqa: F401  (registers sleep()'s finish)
# patch() & co. are cheap to import (_patching defers inspect, functools and
# uuid to their first use).  Policy is a str subclass made of the core's
# names, without enum (whose import costs more than all of datetime's).
from ._patching import patch, patched, patching  # noqa: F401
from ._policy import Policy  # noqa: F401

__all__ = [
    "Clock", "LeadError", "Policy", "Stamp", "clock_info", "create_state_file", "get_policy",
    "monotonic_ns", "now", "now_datetime", "patch", "patched", "patching", "set_policy", "sleep",
    "sleep_until_ns", "take", "time", "time_ns", "uuid7", "uuid7_ns", "zone_changed",
    "json_default", "register_sqlite", "get_include",
]


def clock_info(source="realtime"):
    """Facts about a source ('realtime', 'realtime_coarse' or 'manual'), like
    time.get_clock_info(): name, implementation, resolution (float s),
    resolution_ns, adjustable and monotonic."""
    import types

    return types.SimpleNamespace(**_monostamp.clock_info(source))


def get_include():
    """The directory of monostamp_capi.h, the C API for other extensions
    (``include_dirs=[monostamp.get_include()]``; docs/patch.md): the
    package's own."""
    import os

    return os.path.dirname(os.path.abspath(__file__))


def json_default(obj):
    """A Stamp as its isoformat() text, for json.dumps(..., default=json_default);
    anything else is TypeError, as json.dumps raises (see "monostamp for
    Python" in the monostamp docs)."""
    if isinstance(obj, Stamp):
        return obj.isoformat()
    raise TypeError("Object of type %s is not JSON serializable" % type(obj).__name__)


def register_sqlite(typename="stamp", classes=(Stamp,)):
    """Registers Stamp (and the subclasses in `classes`) with sqlite3,
    process-wide: stored as isoformat() text, a column declared `typename`
    read back as a Stamp under detect_types (see "monostamp for Python" in
    the monostamp docs)."""
    import sqlite3  # not at import time: monostamp does not need it

    if not isinstance(typename, str) or not typename:
        raise TypeError("typename must be a non-empty str, not %r" % (typename,))
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, Stamp)):
            raise TypeError("classes must hold Stamp and its subclasses, not %r" % (cls,))
        sqlite3.register_adapter(cls, Stamp.isoformat)
    # Text that is no stamp raises fromisoformat's ValueError, naming it.
    sqlite3.register_converter(typename, lambda data: Stamp.fromisoformat(data.decode("utf-8")))

