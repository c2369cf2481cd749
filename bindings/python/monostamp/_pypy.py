"""monostamp._monostamp on PyPy: the extension's objects in Python over the
cffi module _monostamp_cffi (tools/cffi_build.py), the core every binding
shares: the rules and their wording are the core's, as in LuaJIT's
monostamp.ffi; this file converts types and errors.  The package imports
it in place of the C extension (docs/python.md, PyPy).
"""
import atexit as _atexit
import datetime as _dt
import sys
import time as _time
import weakref as _weakref
from operator import index as _index

from . import _pypy_patch
from ._pypy_base import (  # noqa: F401  (the extension's names, re-exported)
    DEFAULT_SLEEP_TOLERANCE_NS, PATCH_MAX_LEAD_NS, LeadError, _EPOCH_NAIVE, _MIN, _OFFSET,
    _POLICIES, _US, __version__, E, _bool, _clock_fault, _core_error, _core_text, _draw_c,
    _Immutable, _int, _option, _path, _rule_error, _state_file_error, _timezone, _utf8,
    _zone_error, _zone_name, ffi, lib)
from ._pypy_stamp import Stamp
from ._pypy_patch import (  # noqa: F401
    _activate, _adopt, _check_start, _deactivate, _foreign, _installed)


# ------------------------------------------------------------------ Clock

def _policy_member(number):
    return sys.modules["monostamp._policy"]._MEMBERS[number]


class Clock(metaclass=_Immutable):
    """A clock of its own: a policy, a source, a zone, a lead bound and a
    state (a shared state file, if given) (docs/python.md)."""

    __module__ = "monostamp"
    __slots__ = ("_c", "_shared", "_zone", "__weakref__")

    def __init__(self, policy="monotonicForceNanosecondIncrement", *, source="realtime",
                 zone=None, max_lead_ns=1000000000, on_lead="wait", shared=None, start_ns=None,
                 trust_group=False, **unknown):
        for name in unknown:  # a keyword's slip gets the core's "did you mean"
            raise TypeError(_core_text("Clock()", 256, lambda buf, size: lib.monostamp_option_unknown(
                name.encode("utf-8", "surrogatepass"), buf, size)))
        o = ffi.new("monostamp_options *")
        lib.monostamp_options_init(o)
        keep = []  # the option strings, alive until the clock is made
        o.policy = _option("policy", policy, "Clock(): policy", "a Policy or str")
        o.source = _option("source", source, "Clock(): source")
        zone_name = None if zone is None else _zone_name(zone)
        if zone_name is not None:
            keep.append(ffi.new("char[]", _utf8(zone_name, "Clock(): zone")))
            o.zone = keep[-1]
        o.max_lead_ns = _int(max_lead_ns, "Clock(): max_lead_ns")
        o.on_lead = _option("on_lead", on_lead, "Clock(): on_lead")
        if start_ns is not None:
            o.has_start_ns, o.start_ns = 1, _instant(start_ns, "Clock(): start_ns")
        o.trust_group = _bool(trust_group, "Clock(): trust_group")
        if shared is not None:
            keep.append(ffi.new("char[]", _path(shared, "Clock(): shared")))
            o.shared_path = keep[-1]
        bad = ffi.new("const char **")
        if lib.monostamp_options_check(o, bad) != 0:
            v = {"policy": policy, "source": source, "zone": zone, "max_lead_ns": max_lead_ns,
                 "on_lead": on_lead, "shared_path": shared, "start_ns": start_ns}.get(
                     ffi.string(bad[0]).decode())  # the core's sentence
            text = v.encode("utf-8", "surrogatepass") if isinstance(v, str) else repr(v).encode()
            raise ValueError(_core_text("Clock()", 512, lambda buf, size: (
                lib.monostamp_options_fault(bad[0], text, isinstance(v, str), buf, size))))
        out = ffi.new("monostamp_clock **")
        rc = lib.monostamp_clock_new(o, out)
        if rc == E.ENOZONE:
            raise _zone_error("Clock()", o.zone)
        if rc != 0 and shared is not None and lib.monostamp_state_file_fault(rc):
            raise _state_file_error(rc, "Clock()", "shared", shared, o.shared_path)
        if rc != 0:
            raise _core_error(rc, "Clock()")
        self._c = ffi.gc(out[0], lib.monostamp_clock_free)
        self._shared, self._zone = shared, zone_name
        if shared is not None:
            _shared_clocks.add(self)

    @staticmethod
    def _signature():
        """The signature as the extension's: **unknown only catches a slip."""
        import inspect

        params = list(inspect.signature(Clock.__init__).parameters.values())[1:]
        return inspect.Signature([p for p in params if p.kind is not p.VAR_KEYWORD])

    def __init_subclass__(cls, **kwargs):
        raise TypeError("type 'monostamp.Clock' is not an acceptable base type")

    policy = property(lambda self: _policy_member(lib.monostamp_clock_policy(self._c)))

    @policy.setter
    def policy(self, value):
        default = self is default_clock
        rc = lib.monostamp_clock_set_policy(self._c, _option(
            "policy", value, "set_policy(): policy" if default else "Clock.policy",
            "a Policy or str"))
        if rc != 0:
            raise _core_error(rc, ("set_policy(%r)" if default else "policy=%r") % (value,))

    source = property(lambda self: ffi.string(lib.monostamp_source_name(
        lib.monostamp_clock_source(self._c))).decode())
    @property
    def zone(self):
        """The zone's name as the core opened it; None: the local zone."""
        return ffi.string(lib.monostamp_zone_name(lib.monostamp_clock_zone(self._c))).decode() \
            or None
    shared = property(lambda self: self._shared)
    max_lead_ns = property(lambda self: lib.monostamp_clock_max_lead_ns(self._c))
    on_lead = property(lambda self: ffi.string(lib.monostamp_on_lead_name(
        lib.monostamp_clock_on_lead(self._c))).decode())

    def _failed(self, call):
        """After a draw returned INT64_MIN: the core's error, if it was one."""
        rc = lib.monostamp_pypy_code()
        if rc != 0:  # the core's sentence
            raise _clock_fault(self._c, rc, call if self is default_clock else "Clock." + call,
                               call[:-2].encode())

    def now(self):
        ns = _draw_c(self._c, _OFFSET, 0)
        if ns == _MIN:
            self._failed("now()")
        return Stamp._make(ns, lib.monostamp_pypy_offset())

    def time_ns(self):
        ns = _draw_c(self._c, 0, 0)
        if ns == _MIN:
            self._failed("time_ns()")
        return ns

    def time(self):
        ns = _draw_c(self._c, _US, 0)
        if ns == _MIN:
            self._failed("time()")
        return ns / 1e9  # whole us apart near today: distinct floats

    def now_datetime(self, tz=None):
        ns = _draw_c(self._c, _US | _OFFSET, 0)
        if ns == _MIN:
            self._failed("now_datetime()")
        return _datetime_of(ns, lib.monostamp_pypy_offset(), tz)

    def _manual(self, name, arg, move):
        what = "Clock.%s(): ns" % name
        if name == "set":
            ns = _instant(arg, what)
        elif isinstance(arg, float):  # a step is a count of ns; 1.5 most likely meant seconds
            raise TypeError("%s must be an int of nanoseconds, not float (%r) -- give whole "
                            "nanoseconds: 1 s is 1_000_000_000" % (what, arg))
        else:
            ns = _int(arg, what)
        if name == "step_back" and ns < 0:
            rc = E.EINVAL
        else:
            rc = move(self._c, ns)
        if rc == 0:
            return
        # The core's sentence for a refused move, after "Clock.set(): ".
        raise _clock_fault(self._c, rc, "Clock.%s()" % name, name.encode(), ns)

    def set(self, ns, /):
        self._manual("set", ns, lib.monostamp_manual_set)

    def advance(self, ns, /):
        self._manual("advance", ns, lib.monostamp_manual_advance)

    def step_back(self, ns, /):
        self._manual("step_back", ns, lambda c, n: lib.monostamp_manual_advance(c, -n))

    def _publish(self, path=None, /):
        """Adds what the clock counted and has not published yet to the counts of
        the state file at path (None: the file it shares): True; False if it
        shares none and no path was given (the pytest plugin's summary)."""
        return _publish(self._c, path, "Clock._publish(): path")

    def stats(self):
        s = ffi.new("monostamp_stats *")
        lib.monostamp_clock_stats(self._c, s)
        return {f: getattr(s, f) for f, _ in ffi.typeof("monostamp_stats").fields}

    def uuid7(self):
        import uuid

        raw = ffi.new("uint8_t[16]")
        rc = lib.monostamp_uuid7(self._c, raw)
        if rc != 0:
            raise _clock_fault(self._c, rc, "uuid7()" if self is default_clock else "Clock.uuid7()",
                               b"uuid7")
        return uuid.UUID(bytes=bytes(ffi.buffer(raw)))

    def take(self, n):
        fname = "take()" if self is default_clock else "Clock.take()"
        if isinstance(n, bool) or not hasattr(type(n), "__index__"):
            raise TypeError("%s: n must be an int, not %s" % (fname, type(n).__name__))
        count = _index(n)
        if not -(1 << 63) <= count < 1 << 63:  # within int64, the core's rule says the rest
            raise _rule_error(fname + ": n", lib.MONOSTAMP_RULE_INT64, n)
        first, step = ffi.new("int64_t *"), ffi.new("int64_t *")
        rc = lib.monostamp_clock_take(self._c, count, first, step)
        if rc != 0:  # the core's sentence: n at fault, the clock's policy or its bound
            raise _clock_fault(self._c, rc, fname, b"take", count)
        return range(first[0], first[0] + count * step[0], step[0])

    def __repr__(self):
        c, default = self._c, self is default_clock
        zone = ffi.string(lib.monostamp_zone_name(lib.monostamp_clock_zone(c))).decode()
        return "%s(policy=%r, source=%r, zone=%s, max_lead_ns=%d, on_lead=%r, shared=%r)%s" % (
            "<monostamp default clock " if default else "monostamp.Clock", str(self.policy),
            self.source, repr(zone) if zone else "None", self.max_lead_ns, self.on_lead,
            self._shared, ">" if default else "")


# CPython frees a clock with its last reference, and the core publishes what
# it counted to its state file then; PyPy's GC may not free it before exit:
# the shared clocks still alive publish at exit instead.
_shared_clocks = _weakref.WeakSet()


@_atexit.register
def _publish_at_exit():
    for clock in list(_shared_clocks):
        lib.monostamp_clock_publish(clock._c, ffi.NULL)


def _instant(value, what):
    """int ns, a Stamp or an aware datetime as int ns since the epoch."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _int(value, what)
    if isinstance(value, Stamp):
        return value.utc_ns
    if not isinstance(value, _dt.datetime):
        raise TypeError("%s must be int nanoseconds since the epoch, an aware datetime or a "
                        "Stamp, not %s%s" % (what, type(value).__name__, (
                            " -- for seconds, give datetime.fromtimestamp(s, timezone.utc)"
                            if isinstance(value, float) else "")))
    if value.utcoffset() is None:
        raise ValueError("%s=%r is a naive datetime, which names no instant -- attach its "
                         "zone (dt.replace(tzinfo=timezone.utc))" % (what, value))
    return Stamp.fromdatetime(value).utc_ns


def _datetime_of(utc_ns, offset, tz):
    """The aware datetime of a stamp at its offset, or converted to tz."""
    if tz is not None and not isinstance(tz, _dt.tzinfo):
        raise TypeError("tzinfo argument must be None or of a tzinfo subclass, not type "
                        + type(tz).__name__)
    wall = _EPOCH_NAIVE + _dt.timedelta(microseconds=utc_ns // 1000 + offset * 1000000)
    aware = wall.replace(tzinfo=_timezone(offset))
    return aware if tz is None else aware.astimezone(tz)


# --------------------------------------------------- the default clock

def _default():
    """The default clock, or None if the core could not make it (the
    state file MONOSTAMP_SHARED names): then every use raises why."""
    import os

    out = ffi.new("monostamp_clock **")
    if lib.monostamp_default_clock(out) != 0:
        return None
    clock = Clock.__new__(Clock)
    clock._c, clock._zone = out[0], None
    clock._shared = os.environ.get("MONOSTAMP_SHARED") or None
    return clock


def _unusable(*args, **kwargs):
    """The core's error of the default clock, which it returns on every call:
    the core's sentence when the state file MONOSTAMP_SHARED names is to
    blame, else the call named."""
    import os

    rc = lib.monostamp_default_clock(ffi.new("monostamp_clock **"))
    path = os.environ.get("MONOSTAMP_SHARED") or None
    if path is not None and lib.monostamp_state_file_fault(rc):
        raise _state_file_error(rc, "the default clock is unusable", "MONOSTAMP_SHARED", path,
                                os.fsencode(path))
    raise _core_error(rc, "the default clock is unusable")


default_clock = _default()
_D = None if default_clock is None else default_clock._c
if default_clock is None:
    now = time = now_datetime = uuid7 = take = time_ns = _unusable
else:
    now, time = default_clock.now, default_clock.time
    now_datetime, uuid7, take = default_clock.now_datetime, default_clock.uuid7, default_clock.take

    def time_ns():
        """The next stamp of the default clock in int ns since the epoch."""
        ns = _draw_c(_D, 0, 0)
        if ns == _MIN:
            default_clock._failed("time_ns()")
        return ns


def get_policy():
    """The default clock's Policy (Squeak's `Time clockPolicy`)."""
    return _unusable() if _D is None else default_clock.policy


def set_policy(policy, /):
    """Sets the default clock's Policy (a Policy or its name) for this process
    and the children it forks later: other processes sharing it keep theirs."""
    number = _option("policy", policy, "set_policy(): policy", "a Policy or str")
    rc = _unusable() if _D is None else lib.monostamp_clock_set_policy(_D, number)
    if rc != 0:
        raise _core_error(rc, "set_policy(%r)" % (policy,))


def _share_default(path):
    if _D is None:
        _unusable()
    rc = lib.monostamp_default_share(_path(path, "_share_default(): path"))
    if rc != 0:
        raise _core_error(rc, "_share_default(%r)" % (path,), path)
    default_clock._shared = path


def uuid7_ns(u, /):
    if not isinstance(u, str) and type(u).__name__ != "UUID":
        raise TypeError("uuid7_ns() argument must be uuid.UUID or str, not " + type(u).__name__)
    text = str(u).encode("utf-8", "surrogatepass")
    why = ffi.new("char[]", 192)
    out = ffi.new("int64_t *")
    if lib.monostamp_uuid7_text_ns(text, len(text), out, why, 192) != 0:
        raise ValueError("uuid7_ns(): " + ffi.string(why).decode())
    return out[0]


def clock_info(source):
    info = ffi.new("monostamp_clock_info *")
    rc = lib.monostamp_clock_info_get(_option("source", source, "clock_info(): source"), info)
    if rc != 0:
        raise _core_error(rc, "clock_info(%r)" % (source,))
    return {"name": ffi.string(info.name).decode(),
            "implementation": ffi.string(info.implementation).decode(),
            "resolution": info.resolution_ns * 1e-9, "resolution_ns": info.resolution_ns,
            "adjustable": bool(info.adjustable), "monotonic": bool(info.monotonic)}


def zone_changed():
    lib.monostamp_zone_changed()


def monotonic_ns():
    return lib.monostamp_monotonic_ns()


def create_state_file(path, /, *, trust_group=False):
    """Creates a state file at path whose sequence starts at the wall clock, not
    a lead bound ahead: only in a directory made for this sequence, where no
    earlier one handed out stamps.  FileExistsError if path exists."""
    trust = _bool(trust_group, "create_state_file(): trust_group")
    raw = _path(path, "create_state_file(): path")
    rc = lib.monostamp_state_file_create(raw, trust)
    if rc != 0 and lib.monostamp_state_file_fault(rc):
        raise _state_file_error(rc, "create_state_file()", "path", path, raw)
    if rc != 0:
        raise _core_error(rc, "create_state_file(%r)" % (path,), path)


def _publish(clock, path, what):
    """monostamp_clock_publish of clock to path (None: its own file): True,
    False for a clock that shares no file and was given none."""
    rc = lib.monostamp_clock_publish(clock, ffi.NULL if path is None else _path(path, what))
    if rc == E.ENOTSUP and path is None:
        return False
    if rc != 0:
        raise _core_error(rc, "%s: %r" % (what, path), path)
    return True


def _publish_default(path=None, /):
    """Adds what the default clock counted and has not published yet to the
    counts of the state file at path (None: the file it shares); False if it
    shares none and no path was given."""
    out = ffi.new("monostamp_clock **")
    rc = lib.monostamp_default_clock(out)
    if rc != 0:
        raise _core_error(rc, "the default clock")
    return _publish(out[0], path, "_publish_default(): path")


def _state_counts(path, /):
    """(stamps, repeats, backward_steps, largest_lead_ns) the clocks on the
    state file at path counted and published, read without changing it
    (the pytest plugin's summary, monostamp stats, monostamp run --report)."""
    counts = ffi.new("monostamp_counts *")
    rc = lib.monostamp_state_file_counts(_path(path, "_state_counts(): path"), counts)
    if rc != 0:
        raise _core_error(rc, "_state_counts(%r)" % (path,), path)
    return counts.stamps, counts.repeats, counts.backward_steps, counts.largest_lead_ns


def _state_file_info(path):
    info = ffi.new("monostamp_state_info *")
    rc = lib.monostamp_state_file_info(_path(path, "_state_file_info(): path"), info)
    if rc != 0:
        raise _core_error(rc, "_state_file_info(%r)" % (path,), path)
    return info.last_ns, info.max_lead_ns, info.joins


def _counts_text(after, before=None, /):
    counts = [ffi.new("monostamp_counts *", tuple(c)) for c in (after, before) if c is not None]
    buf = ffi.new("char[256]")
    n = lib.monostamp_counts_text(counts[1] if len(counts) > 1 else ffi.NULL, counts[0], buf, 256)
    return ffi.string(buf, n).decode("ascii")


def _run_dir_prefix():
    buf = ffi.new("char[96]")
    n = lib.monostamp_run_dir_prefix(buf, 96)
    if n < 0:
        raise _core_error(n, "_run_dir_prefix()")
    return ffi.string(buf, n).decode("ascii")  # digits and "-"


def _run_dirs_sweep(parent):
    n = lib.monostamp_run_dirs_sweep(_path(parent, "_run_dirs_sweep(): parent"))
    if n < 0:
        raise _core_error(n, "_run_dirs_sweep(%r)" % (parent,), parent)
    return n


def _sleep(what, args, now, ns, is_duration, tolerance_ns):
    """Sleeps to the core's checked deadline; `args` (name, value) as given."""
    out, bad, why = ffi.new("int64_t *"), ffi.new("int *"), ffi.new("char[]", 96)
    rc = lib.monostamp_sleep_deadline(now, ns, is_duration, tolerance_ns, out, bad, why, 96)
    if rc == E.EINVAL:  # the core's rule and words; a sign's in the unit as given
        raise _rule_error(args[bad[0] - 1][0], lib.MONOSTAMP_RULE_NOT_NEGATIVE,
                          args[bad[0] - 1][1])
    if rc != 0:
        raise ValueError("%s: %s" % (what, ffi.string(why).decode()))
    # The long part in time.sleep(), where signal handlers run (Ctrl-C ends
    # it), then the core's own sleep for the last 2 ms: not the CPython
    # binding's plan and Python finish.
    ahead = out[0] - lib.monostamp_monotonic_ns() - 2000000
    if ahead > 0:
        _time.sleep(ahead / 1e9)
    rc = lib.monostamp_sleep_until(out[0], tolerance_ns)
    if rc != 0:
        raise _core_error(rc, what)


def _seconds(value, what):
    """int or float seconds as int ns (a float rounded up, as a duration)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be int or float, not %s" % (what, type(value).__name__))
    out = ffi.new("int64_t *")
    if isinstance(value, float):
        bad = lib.monostamp_ns_from_double(value, 1, out) != 0
    else:
        bad = not -(1 << 63) <= value * 10**9 < (1 << 63)
        out[0] = 0 if bad else value * 10**9
    if bad:
        raise _rule_error(what, lib.MONOSTAMP_RULE_SECONDS, value)
    return out[0]


_DEFAULT_TOLERANCE = DEFAULT_SLEEP_TOLERANCE_NS / 1e9


def sleep(seconds, tolerance=_DEFAULT_TOLERANCE):
    now_ns = lib.monostamp_monotonic_ns()
    ns = _seconds(seconds, "sleep(): seconds")
    tol = _seconds(tolerance, "sleep(): tolerance")
    _sleep("sleep()", (("sleep(): seconds", seconds), ("sleep(): tolerance", tolerance)), now_ns,
           ns, 1, tol)


def sleep_until_ns(deadline_ns, tolerance_ns=DEFAULT_SLEEP_TOLERANCE_NS):
    deadline = _int(deadline_ns, "sleep_until_ns(): deadline_ns")
    tol = _int(tolerance_ns, "sleep_until_ns(): tolerance_ns")
    _sleep("sleep_until_ns()", (("sleep_until_ns(): deadline_ns", deadline_ns),
                                ("sleep_until_ns(): tolerance_ns", tolerance_ns)),
           lib.monostamp_monotonic_ns(), deadline, 0, tol)


def _sleep_finish(finish):
    """The CPython binding's hook for its Python finish: checked, unused here."""
    if finish is not None and not callable(finish):
        raise TypeError("_sleep_finish(): finish must be callable, not " + type(finish).__name__)


_pypy_patch.setup(_D, _unusable, Clock)
