"""monostamp.patch()'s half on PyPy (_pypy.py): PyPy's `time` is a builtin
module and its `datetime` pure Python (lib_pypy/datetime.py), so the patch
rebinds their attributes, which every call through the module (and
datetime's own now(), utcnow(), today()) reads; a name bound earlier by
`from time import time` keeps the real one (docs/python.md, PyPy).
"""
import datetime as _dt
import time as _time

from ._pypy_base import (PATCH_MAX_LEAD_NS, _MIN, _OFFSET, _US, _EPOCH_NAIVE, E, _core_error,
                         _draw_c, ffi, lib)

# Set by _pypy.py at import: the default clock's core pointer (None if the
# core could not make it), the call that raises why, and the Clock class.
_D = None
_unusable = None
_Clock = None


def setup(default_c, unusable, clock_type):
    global _D, _unusable, _Clock
    _D, _unusable, _Clock = default_c, unusable, clock_type


_saved = {}
_patch_clock = [None]




def _draw(flags, call):
    """The next stamp of the patch's clock (the default one under the
    patch's own lead bound), as the CPython binding's patch draws it."""
    clock = _patch_clock[0]
    if clock is None and _D is None:
        _unusable()
    c = _D if clock is None else clock._c
    ns = _draw_c(c, flags, PATCH_MAX_LEAD_NS if clock is None else 0)
    rc = lib.monostamp_pypy_code() if ns == _MIN else 0
    if rc == E.ELEAD:
        call += " with max_lead_ns=%d" % lib.monostamp_clock_max_lead_ns(c)
    if rc != 0:
        raise _core_error(rc, call)
    return ns


def _p_time_ns():
    return _draw(0, "time.time_ns()")


def _p_time():
    return _draw(_US, "time.time()") / 1e9  # whole us apart near today: distinct floats


def _fields(us):
    d = _EPOCH_NAIVE + _dt.timedelta(microseconds=us)
    return d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond


_REAL_NOW = _dt.datetime.__dict__["now"].__func__


def _p_now(cls, tz=None):
    if tz is not None and not isinstance(tz, _dt.tzinfo):
        return _REAL_NOW(cls, tz)  # the stdlib's own TypeError
    if tz is None:  # naive local wall time, at the clock's offset, with its fold
        ns = _draw(_US | _OFFSET, "datetime.now()")
        offset, clock = lib.monostamp_pypy_offset(), _patch_clock[0]
        fold = ffi.new("int *")
        lib.monostamp_zone_fold(lib.monostamp_clock_zone(_D if clock is None else clock._c),
                                ns, fold)
        return cls(*_fields(ns // 1000 + offset * 1000000), fold=fold[0])
    ns = _draw(_US, "datetime.now()")
    return tz.fromutc(cls(*_fields(ns // 1000), tzinfo=tz))


def _p_utcnow(cls):
    return cls(*_fields(_draw(_US, "datetime.utcnow()") // 1000))


def _p_today(cls):
    if issubclass(cls, _dt.datetime):  # datetime.today() is date.today() there: now()
        return _p_now(cls)
    ns = _draw(_US | _OFFSET, "date.today()")
    return cls(*_fields(ns // 1000 + lib.monostamp_pypy_offset() * 1000000)[:3])


def _p_clock_gettime_ns(clk_id, _real=_time.clock_gettime_ns):
    return _p_time_ns() if clk_id == _time.CLOCK_REALTIME else _real(clk_id)


def _p_clock_gettime(clk_id, _real=_time.clock_gettime):
    return _p_time() if clk_id == _time.CLOCK_REALTIME else _real(clk_id)


def _at_now(real):
    """gmtime(), localtime(), ctime(): their `secs` left out or None is now."""
    def patched(*args):
        return real(*args) if args[:1] not in ((), (None,)) else real(_p_time(), *args[1:])
    return patched


def _p_asctime(*args, _real=_time.asctime, _local=_time.localtime):
    return _real(*args) if args else _real(_local(_p_time()))


def _p_strftime(*args, _real=_time.strftime, _local=_time.localtime):
    return _real(*args) if len(args) != 1 else _real(args[0], _local(_p_time()))


def _p_tzset(_real=getattr(_time, "tzset", None)):
    _real()
    lib.monostamp_zone_changed()


_TARGETS = [(_time, "time", _p_time), (_time, "time_ns", _p_time_ns),
            (_time, "clock_gettime", _p_clock_gettime),
            (_time, "clock_gettime_ns", _p_clock_gettime_ns),
            (_time, "gmtime", _at_now(_time.gmtime)),
            (_time, "localtime", _at_now(_time.localtime)),
            (_time, "ctime", _at_now(_time.ctime)), (_time, "asctime", _p_asctime),
            (_time, "strftime", _p_strftime), (_time, "tzset", _p_tzset),
            (_dt.datetime, "now", classmethod(_p_now)),
            (_dt.datetime, "utcnow", classmethod(_p_utcnow)),
            (_dt.date, "today", classmethod(_p_today))]
_TARGETS = [t for t in _TARGETS if t[1] in vars(t[0])]  # tzset: POSIX only
# The functions as PyPy made them, to tell another tool's from ours.
_REAL = {(owner, name): vars(owner)[name] for owner, name, _ in _TARGETS}


def _label(owner, name):
    return "%s.%s" % ("time" if owner is _time else owner.__module__ + "." + owner.__name__,
                      name)


def _check_start():
    """RuntimeError saying why if a patch cannot start here, else None: PyPy
    has one interpreter, where a patch may always start."""


def _activate(clock):
    if clock is not None and not isinstance(clock, _Clock):
        raise TypeError("clock must be a monostamp.Clock or None, not " + type(clock).__name__)
    # Ours found in place is no other tool's: freezegun imported while a
    # patch was active took it for the real function and put it back.
    for owner, name, ours in _TARGETS:
        if (owner, name) not in _saved and vars(owner)[name] not in (_REAL[owner, name], ours):
            raise RuntimeError("monostamp.patch() cannot start: %s is patched by another tool "
                               "(time-machine?); stop it first" % _label(owner, name))
    _patch_clock[0] = clock
    for owner, name, ours in _TARGETS:
        if (owner, name) not in _saved:
            _saved[owner, name] = _REAL[owner, name]
            setattr(owner, name, ours)


def _deactivate():
    _patch_clock[0] = None
    ours = {(owner, name): f for owner, name, f in _TARGETS}
    for (owner, name), real in _saved.items():
        if vars(owner)[name] is ours[owner, name]:  # not one another tool put over ours
            setattr(owner, name, real)
    _saved.clear()


def _installed():
    return bool(_saved)


def _foreign():
    """The targets another tool has replaced (neither PyPy's nor ours)."""
    ours = {(owner, name): f for owner, name, f in _TARGETS}
    return [_label(owner, name) for (owner, name), real in _REAL.items()
            if vars(owner)[name] is not real and vars(owner)[name] is not ours[owner, name]]


def _adopt(witness):
    return None
