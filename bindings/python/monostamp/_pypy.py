"""monostamp._monostamp on PyPy: the extension's objects in Python over the
cffi module _monostamp_cffi (tools/cffi_build.py), the core every binding
shares: the rules and their wording are the core's, as in LuaJIT's
monostamp.ffi; this file converts types and errors.  The package imports
it in place of the C extension (docs/python.md, PyPy).
"""
import datetime as _dt
import sys
import time as _time
from operator import index as _index

from ._monostamp_cffi import ffi, lib

__version__ = "%d.%d.%d" % (lib.MONOSTAMP_VERSION_MAJOR, lib.MONOSTAMP_VERSION_MINOR,
                            lib.MONOSTAMP_VERSION_PATCH)
DEFAULT_SLEEP_TOLERANCE_NS = lib.MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS
PATCH_MAX_LEAD_NS = 5000000  # the CPython binding's bound (patch.h): docs/patch.md


def _names(of):
    out, i = [], 0
    while of(i) != ffi.NULL:
        out.append(i)
        i += 1
    return out


_POLICIES = tuple((ffi.string(lib.monostamp_policy_constant(p)).decode(),
                   ffi.string(lib.monostamp_policy_name(p)).decode())
                  for p in _names(lib.monostamp_policy_name))


class LeadError(RuntimeError):
    """A clock's stamp would lead its source by more than max_lead_ns and
    the clock's on_lead is 'error' (manual clocks always error)."""


LeadError.__module__ = "monostamp"
# Out-parameters are made per call (cffi releases the GIL around each C
# call); the hot draws return the stamp instead (tools/cffi_build.py).
_draw_c, _MIN = lib.monostamp_pypy_draw, -(1 << 63)
_US, _OFFSET = lib.MONOSTAMP_DRAW_US, lib.MONOSTAMP_DRAW_OFFSET


def _core_error(code, context, filename=None):
    """The exception the CPython binding's raise_core makes of a core code."""
    import errno

    message = "%s: %s" % (context, ffi.string(lib.monostamp_strerror(code)).decode(
        "utf-8", "replace"))
    err = lib.monostamp_os_errno(code)
    if err == 0 and code in (lib.MONOSTAMP_EUNSAFE, lib.MONOSTAMP_EEXIST):
        err = errno.EACCES if code == lib.MONOSTAMP_EUNSAFE else errno.EEXIST
    if err:
        return OSError(err, message, filename) if filename is not None else OSError(err, message)
    if code == lib.MONOSTAMP_ELEAD:
        return LeadError(message)
    if code == lib.MONOSTAMP_ENOMEM:
        return MemoryError(message)
    if code == lib.MONOSTAMP_EINTR or lib.monostamp_error_name(code) == ffi.NULL:
        return RuntimeError(message)
    return ValueError(message)


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be int, not %s" % (what, type(value).__name__))
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError("%s=%r is out of range for int64 nanoseconds" % (what, value))
    return value


def _utf8(value, what):
    if "\0" in value:
        raise ValueError("%s=%r contains a NUL character" % (what, value))
    return value.encode("utf-8", "surrogatepass")


def _path(value, what):
    import os

    if not isinstance(value, (str, bytes)) and not hasattr(type(value), "__fspath__"):
        raise TypeError("%s must be str, bytes or os.PathLike, not %s"
                        % (what, type(value).__name__))
    path = os.fsencode(value)
    if b"\0" in path:
        raise ValueError("%s=%r contains a NUL character" % (what, value))
    return path


def _bool(value, what):
    if not isinstance(value, bool):  # not truthiness: trust_group="no" would mean yes
        raise TypeError("%s must be bool, not %s" % (what, type(value).__name__))
    return 1 if value else 0


def _zone_name(zone):
    """A Clock's zone as the name the core opens: a str, a ZoneInfo's key,
    'UTC' for datetime.timezone.utc."""
    if isinstance(zone, str):
        return zone
    if zone is _dt.timezone.utc:
        return "UTC"
    key = getattr(zone, "key", None) if isinstance(zone, _dt.tzinfo) else None
    if isinstance(key, str):
        return key
    raise TypeError("Clock(): zone must be a zone name (str), a zoneinfo.ZoneInfo or "
                    "datetime.timezone.utc, not %s%s" % (type(zone).__name__, (
                        " \u2014 a fixed offset or other tzinfo has no name the clock could "
                        "follow: give its IANA name ('Europe/Berlin') or a POSIX TZ string")
                        if isinstance(zone, _dt.tzinfo) else ""))


def _zone_error(call, zone, name):
    near = ffi.new("char[]", 256)
    if name != ffi.NULL and name is not None and lib.monostamp_zone_suggest(name, near, 256) == 0:
        hint = "did you mean '%s'?" % ffi.string(near).decode()
    else:
        hint = ("give 'UTC', an IANA name such as 'Europe/Berlin' (from TZDIR, else the system's "
                "database) or a POSIX TZ string such as 'CET-1CEST,M3.5.0,M10.5.0/3'")
    return ValueError("%s: zone=%r is not a zone this machine knows \u2014 %s" % (call, zone, hint))


def _option(field, value, what, expected="str"):
    """The core's value of an option's name, else the core's list of names."""
    if not isinstance(value, str):
        raise TypeError("%s must be %s, not %s" % (what, expected, type(value).__name__))
    out = ffi.new("int *")
    raw = value.encode("utf-8", "surrogatepass")
    if b"\0" in raw or lib.monostamp_option_from_name(field.encode(), raw, out) != 0:
        names = ffi.new("char[]", 256)
        lib.monostamp_option_names(field.encode(), names, 256)
        raise ValueError("%s=%r must be one of %s" % (what, value, ffi.string(names).decode()))
    return out[0]


def _shared_error(rc, what, path, path_bytes):
    """The core's hint for a state file it could not open (a missing
    directory), as FileNotFoundError; else None."""
    hint = lib.monostamp_state_file_hint(rc, path_bytes) if path is not None else ffi.NULL
    if hint == ffi.NULL:
        return None
    return FileNotFoundError(2, "%s=%r: %s" % (what, path, ffi.string(hint).decode().replace(
        " -- ", " \u2014 ", 1)))


# ------------------------------------------------------------------ Stamp

_tz_cache = {}


def _timezone(offset):
    tz = _tz_cache.get(offset)
    if tz is None:
        tz = _tz_cache[offset] = _dt.timezone(_dt.timedelta(seconds=offset))
    return tz


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_EPOCH_NAIVE = _dt.datetime(1970, 1, 1)


def _offset_in(zone, utc_ns, what):
    """The offset of `zone` (None: local, a name the core opens, a tzinfo
    asked as datetime.astimezone asks it: fromutc()) at utc_ns."""
    if zone is None or isinstance(zone, str):
        name = ffi.NULL if zone is None else _utf8(zone, "zone")
        out = ffi.new("monostamp_zone **")
        rc = lib.monostamp_zone_open(name, out)
        if rc == lib.MONOSTAMP_ENOZONE:
            raise _zone_error(what, zone, name)
        if rc != 0:
            raise _core_error(rc, "zone=%r" % (zone,))
        try:
            offset = ffi.new("int32_t *")
            rc = lib.monostamp_zone_offset(out[0], utc_ns, offset)
            if rc != 0:
                raise _core_error(rc, "the offset of zone=%r at utc_ns=%d" % (zone, utc_ns))
            return offset[0]
        finally:
            if zone is not None:
                lib.monostamp_zone_close(out[0])
    if not isinstance(zone, _dt.tzinfo):
        raise TypeError("zone must be None, a zone name (str) or a datetime.tzinfo, not "
                        + type(zone).__name__)
    utc = _EPOCH_NAIVE + _dt.timedelta(microseconds=utc_ns // 1000)
    result = zone.fromutc(utc.replace(tzinfo=zone))
    if not isinstance(result, _dt.datetime):
        raise TypeError("zone.fromutc() must be a datetime.datetime, not "
                        + type(result).__name__)
    delta = result.replace(tzinfo=None) - utc
    offset = delta.days * 86400 + delta.seconds
    if delta.microseconds or lib.monostamp_offset_check(offset) != 0:
        raise ValueError("zone=%r: fromutc() gave %r for %r, not whole seconds within a day "
                         "away, which a Stamp's offset must be" % (zone, result, utc))
    return offset


class _Immutable(type):
    """Stamp's and Clock's class: no attribute set or deleted, as the C
    extension's immutable types refuse (a subclass of Stamp is mutable)."""

    def __setattr__(cls, name, value):
        if cls.__module__ == "monostamp":
            raise TypeError("cannot set %r attribute of immutable type 'monostamp.%s'"
                            % (name, cls.__name__))
        super().__setattr__(name, value)

    def __delattr__(cls, name):
        if cls.__module__ == "monostamp":
            raise TypeError("cannot delete %r attribute of immutable type 'monostamp.%s'"
                            % (name, cls.__name__))
        super().__delattr__(name)


class Stamp(metaclass=_Immutable):
    """An instant (int ns since the epoch, UTC) and the UTC offset (s) in
    force there; orders and hashes as the 2-tuple; str() is isoformat()."""

    __slots__ = ("_ns", "_off")
    __module__ = "monostamp"

    def __new__(cls, utc_ns, offset=0):
        self = object.__new__(cls)
        self._ns = _int(utc_ns, "utc_ns")
        offset = _int(offset, "offset")
        if lib.monostamp_offset_check(offset) != 0:
            raise ValueError("Stamp(): offset=%r is out of range \u2014 give seconds east of UTC "
                             "within +-86399" % (offset,))
        self._off = offset
        return self

    @classmethod
    def _make(cls, ns, off):
        if cls is not Stamp:  # a subclass's own constructor runs, as datetime's does
            return cls(ns, off)
        self = object.__new__(cls)
        self._ns, self._off = ns, off
        return self

    utc_ns = property(lambda self: self._ns, doc="int ns since the epoch, UTC")
    offset = property(lambda self: self._off, doc="seconds east of UTC")

    def __repr__(self):
        name = "monostamp.Stamp" if type(self) is Stamp else type(self).__qualname__
        return "%s(utc_ns=%d, offset=%d)" % (name, self._ns, self._off)

    def isoformat(self, digits=None, z=False, *, timespec=None, sep="T"):
        if digits is not None and timespec is not None:
            raise TypeError("isoformat() takes digits or timespec, not both")
        if timespec is not None:
            if not isinstance(timespec, str):
                raise TypeError("timespec must be str, not " + type(timespec).__name__)
            out = ffi.new("int *")
            if "\0" in timespec or lib.monostamp_iso8601_timespec(
                    timespec.encode("utf-8", "replace"), self._ns, out) != 0:
                raise ValueError("unknown timespec %r (expected 'auto', 'hours', 'minutes', "
                                 "'seconds', 'milliseconds', 'microseconds' or 'nanoseconds')"
                                 % (timespec,))
            digits = out[0]
        elif digits is None:
            digits = 9
        elif isinstance(digits, bool) or not isinstance(digits, int):
            raise TypeError("Stamp.isoformat(): digits must be int, not " + type(digits).__name__)
        elif not 0 <= digits <= 9:
            raise ValueError("Stamp.isoformat(): digits=%r is out of range \u2014 give 0..9, the "
                             "digits of the fraction of a second" % (digits,))
        if not isinstance(sep, str):
            raise TypeError("sep must be str, not " + type(sep).__name__)
        if len(sep) != 1:
            raise ValueError("sep=%r must be one character" % (sep,))
        text = ffi.new("char[]", 36)
        n = lib.monostamp_format_iso8601(text, 36, self._ns, self._off, digits, 1 if z else 0)
        if n < 0:
            what = "cannot format %r as ISO 8601" % (Stamp._make(self._ns, self._off),)
            if self._off % 60:
                raise ValueError("%s: offset=%d s is not whole minutes, which RFC 3339 needs"
                                 % (what, self._off))
            raise _core_error(n, what)
        text = ffi.string(text, n).decode()
        return text if sep == "T" else text[:10] + sep + text[11:]

    __str__ = isoformat

    @classmethod
    def fromisoformat(cls, text, /):
        if not isinstance(text, str):
            raise TypeError("text must be str, not " + type(text).__name__)
        raw = text.encode("utf-8", "surrogatepass")
        ns, off, err = ffi.new("int64_t *"), ffi.new("int32_t *"), ffi.new(
            "monostamp_parse_error *")
        rc = lib.monostamp_parse_iso8601(raw, len(raw), ns, off, err)
        if rc != 0:  # the position in characters, not bytes
            pos = len(raw[:err.position].decode("utf-8", "replace"))
            reason = ": " + ffi.string(err.reason).decode() if err.reason != ffi.NULL else ""
            raise _core_error(rc, "invalid ISO 8601 text %r at position %d%s" % (text, pos, reason))
        return cls._make(ns[0], off[0])

    @classmethod
    def fromdatetime(cls, *args, **kwargs):
        if len(args) != 1 or kwargs:
            raise TypeError("fromdatetime() takes exactly one positional argument (%d given)"
                            % (len(args) + len(kwargs)))
        dt = args[0]
        if not isinstance(dt, _dt.datetime):
            raise TypeError("dt must be a datetime.datetime, not " + type(dt).__name__)
        offset = dt.utcoffset()
        if offset is None:
            raise ValueError("fromdatetime(%r): a naive datetime has no UTC offset; attach its "
                             "zone (dt.replace(tzinfo=...), or dt.astimezone() for local time)"
                             % (dt,))
        if not isinstance(offset, _dt.timedelta):
            raise TypeError("utcoffset() must be a datetime.timedelta, not "
                            + type(offset).__name__)
        off = offset.days * 86400 + offset.seconds
        if offset.microseconds or lib.monostamp_offset_check(off) != 0:
            raise ValueError("the UTC offset %r of %r is not whole seconds within a day, which "
                             "a Stamp's offset must be" % (offset, dt))
        delta = dt.replace(tzinfo=None) - offset - _EPOCH_NAIVE
        ns = (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
        if not -(1 << 63) <= ns < (1 << 63):
            raise ValueError("fromdatetime(%r): outside a Stamp's range (int64 ns since the "
                             "epoch, 1677-09-21T00:12:43.145224Z .. 2262-04-11T23:47:16.854775Z)"
                             % (dt,))
        return cls._make(ns, off)

    @classmethod
    def fromtimestamp(cls, *args, zone=None):
        if len(args) > 2 or (len(args) == 2 and zone is not None):
            raise TypeError("fromtimestamp() takes at most 2 arguments (%d given)" % len(args))
        if not args:
            raise TypeError("fromtimestamp() takes t by position only")
        t, zone = args[0], args[1] if len(args) == 2 else zone
        out = ffi.new("int64_t *")
        if isinstance(t, float):
            bad = lib.monostamp_ns_from_double(t, 0, out) != 0
        elif isinstance(t, bool) or not isinstance(t, int):
            raise TypeError("t must be int or float, not " + type(t).__name__)
        else:
            bad = not -(1 << 63) <= t * 10**9 < (1 << 63)
            out[0] = 0 if bad else t * 10**9
        if bad:
            raise ValueError("fromtimestamp(%r): out of range: must be finite and within int64 "
                             "nanoseconds since the epoch" % (t,))
        return cls._make(out[0], _offset_in(zone, out[0], "Stamp.fromtimestamp()"))

    def astimezone(self, zone=None):
        return type(self)._make(self._ns, _offset_in(zone, self._ns, "Stamp.astimezone()"))

    def datetime(self):
        """The aware datetime at the stamp's offset, truncated to the microsecond
        toward the past."""
        return _EPOCH.astimezone(_timezone(self._off)) + _dt.timedelta(
            microseconds=self._ns // 1000)

    def timestamp(self):
        return self._ns / 1e9

    def _moved(self, delta, sign):
        if isinstance(delta, _dt.timedelta):
            delta = (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
        elif isinstance(delta, bool) or not isinstance(delta, int):
            return NotImplemented
        ns = self._ns + sign * delta
        if not -(1 << 63) <= ns < (1 << 63):
            raise OverflowError("%r %s %r is outside int64 nanoseconds"
                                % (self, "+-"[sign < 0], delta))
        return type(self)._make(ns, self._off)

    def __add__(self, other):
        return self._moved(other, 1)

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, Stamp):
            return self._ns - other._ns
        return self._moved(other, -1)

    def __rsub__(self, other):
        return NotImplemented

    def __len__(self):
        return 2

    def __getitem__(self, index):
        return (self._ns, self._off)[_index(index)]  # an index only: no slice

    def __iter__(self):
        return iter((self._ns, self._off))

    def __reduce__(self):
        return type(self), (self._ns, self._off)

    def __hash__(self):
        h = (self._ns & 0xFFFFFFFFFFFFFFFF)
        h = (((h ^ (h >> 31)) * 1000003) ^ (self._off & 0xFFFFFFFF)) & 0xFFFFFFFFFFFFFFFF
        h = h - (1 << 64) if h >= 1 << 63 else h
        return -2 if h == -1 else h

    def _cmp(self, other, op):
        if not isinstance(other, Stamp):
            return NotImplemented
        return op((self._ns, self._off), (other._ns, other._off))

    __eq__ = lambda self, o: self._cmp(o, tuple.__eq__)  # noqa: E731
    __ne__ = lambda self, o: self._cmp(o, tuple.__ne__)  # noqa: E731
    __lt__ = lambda self, o: self._cmp(o, tuple.__lt__)  # noqa: E731
    __le__ = lambda self, o: self._cmp(o, tuple.__le__)  # noqa: E731
    __gt__ = lambda self, o: self._cmp(o, tuple.__gt__)  # noqa: E731
    __ge__ = lambda self, o: self._cmp(o, tuple.__ge__)  # noqa: E731


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
                 trust_group=False):
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
            field = ffi.string(bad[0]).decode()
            given = {"policy": policy, "source": source, "zone": zone, "max_lead_ns": max_lead_ns,
                     "on_lead": on_lead, "shared_path": shared, "start_ns": start_ns}
            raise ValueError("Clock(): %s=%r %s" % (
                "shared" if field == "shared_path" else field, given.get(field),
                ffi.string(lib.monostamp_options_rule(field.encode())).decode()))
        out = ffi.new("monostamp_clock **")
        rc = lib.monostamp_clock_new(o, out)
        if rc == lib.MONOSTAMP_ENOZONE:
            raise _zone_error("Clock()", zone, o.zone)
        if rc != 0:
            raise _shared_error(rc, "Clock(): shared", shared, o.shared_path) or _core_error(
                rc, "Clock(shared=%r)" % (shared,) if shared is not None and
                lib.monostamp_state_file_fault(rc) else "Clock()", shared)
        self._c = ffi.gc(out[0], lib.monostamp_clock_free)
        self._shared, self._zone = shared, zone_name

    def __init_subclass__(cls, **kwargs):
        raise TypeError("type 'monostamp.Clock' is not an acceptable base type")

    def _fault(self, call, rc, value=0):
        text = ffi.new("char[]", 4352)
        n = lib.monostamp_clock_fault(self._c, call.encode(), rc, value, text, 4352)
        if n > 0 and rc != lib.MONOSTAMP_ELEAD:
            return ValueError(ffi.string(text, n).decode())
        return _core_error(rc, ffi.string(text, n).decode() if n > 0 else call)

    policy = property(lambda self: _policy_member(lib.monostamp_clock_policy(self._c)))

    @policy.setter
    def policy(self, value):
        rc = lib.monostamp_clock_set_policy(
            self._c, _option("policy", value, "Clock.policy", "a Policy or str"))
        if rc != 0:
            raise self._fault("policy", rc)

    source = property(lambda self: ffi.string(lib.monostamp_source_name(
        lib.monostamp_clock_source(self._c))).decode())
    zone = property(lambda self: self._zone)
    shared = property(lambda self: self._shared)
    max_lead_ns = property(lambda self: lib.monostamp_clock_max_lead_ns(self._c))
    on_lead = property(lambda self: ffi.string(lib.monostamp_on_lead_name(
        lib.monostamp_clock_on_lead(self._c))).decode())

    def _failed(self, call):
        """After a draw returned INT64_MIN: the core's error, if it was one."""
        rc = lib.monostamp_pypy_code()
        call = call if self is default_clock else "Clock." + call
        if rc == lib.MONOSTAMP_ELEAD:
            call += " with max_lead_ns=%d" % lib.monostamp_clock_max_lead_ns(self._c)
        elif rc == lib.MONOSTAMP_ERANGE:
            call += ": the next stamp would pass the largest int64 nanosecond" + (
                " (shared=%r)" % (self._shared,) if self._shared is not None else "")
        if rc != 0:
            raise _core_error(rc, call)

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
            raise TypeError("%s must be an int of nanoseconds, not float (%r) \u2014 give whole "
                            "nanoseconds: 1 s is 1_000_000_000" % (what, arg))
        else:
            ns = _int(arg, what)
        if name == "step_back" and ns < 0:
            rc = lib.MONOSTAMP_EINVAL
        else:
            rc = move(self._c, ns)
        if rc == 0:
            return
        if rc == lib.MONOSTAMP_ENOTSUP:
            raise ValueError("Clock.%s(): this clock's source is '%s', which cannot be moved "
                             "\u2014 make the clock with Clock(source='manual')"
                             % (name, self.source))
        if rc == lib.MONOSTAMP_ERANGE:
            raise ValueError("Clock.%s(): ns=%r would move the reading past the int64 nanosecond "
                             "range (years 1677..2262) \u2014 give a smaller step" % (name, arg))
        if rc == lib.MONOSTAMP_EINVAL:
            raise ValueError("Clock.%s(): ns=%r is negative \u2014 give ns >= 0, or advance() to "
                             "move forward" % (name, arg))
        raise _core_error(rc, "Clock.%s(%r)" % (name, arg))

    def set(self, ns, /):
        self._manual("set", ns, lib.monostamp_manual_set)

    def advance(self, ns, /):
        self._manual("advance", ns, lib.monostamp_manual_advance)

    def step_back(self, ns, /):
        self._manual("step_back", ns, lambda c, n: lib.monostamp_manual_advance(c, -n))

    def stats(self):
        s = ffi.new("monostamp_stats *")
        lib.monostamp_clock_stats(self._c, s)
        return {f: getattr(s, f) for f, _ in ffi.typeof("monostamp_stats").fields}

    def uuid7(self):
        import uuid

        raw = ffi.new("uint8_t[16]")
        rc = lib.monostamp_uuid7(self._c, raw)
        if rc != 0:
            raise _core_error(rc, "uuid7()" if self is default_clock else "Clock.uuid7()")
        return uuid.UUID(bytes=bytes(ffi.buffer(raw)))

    def take(self, n):
        fname = "take()" if self is default_clock else "Clock.take()"
        if isinstance(n, bool) or not hasattr(type(n), "__index__"):
            raise TypeError("%s: n must be an int, not %s" % (fname, type(n).__name__))
        count = _index(n)
        if not 1 <= count < 1 << 63:
            raise ValueError("%s: n=%r must be between 1 and 2**63-1" % (fname, n))
        first, step = ffi.new("int64_t *"), ffi.new("int64_t *")
        rc = lib.monostamp_clock_take(self._c, count, first, step)
        if rc == lib.MONOSTAMP_EPOLICY:
            raise ValueError(
                "%s: the clock's policy %s allows equal stamps, so it has no blocks; take() "
                "needs monotonicForceNanosecondIncrement or monotonicForceMicrosecondIncrement"
                % (fname, self.policy))
        if rc == lib.MONOSTAMP_ERANGE:
            raise ValueError("%s: n=%r stamps would pass the int64 range" % (fname, n))
        if rc != 0:
            raise _core_error(rc, fname)
        return range(first[0], first[0] + count * step[0], step[0])

    def __repr__(self):
        c, default = self._c, self is default_clock
        zone = ffi.string(lib.monostamp_zone_name(lib.monostamp_clock_zone(c))).decode()
        return "%s(policy=%r, source=%r, zone=%s, max_lead_ns=%d, on_lead=%r, shared=%r)%s" % (
            "<monostamp default clock " if default else "monostamp.Clock", str(self.policy),
            self.source, repr(zone) if zone else "None", self.max_lead_ns, self.on_lead,
            self._shared, ">" if default else "")


def _instant(value, what):
    """int ns, a Stamp or an aware datetime as int ns since the epoch."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _int(value, what)
    if isinstance(value, Stamp):
        return value.utc_ns
    if not isinstance(value, _dt.datetime):
        raise TypeError("%s must be int nanoseconds since the epoch, an aware datetime or a "
                        "Stamp, not %s%s" % (what, type(value).__name__, (
                            " \u2014 for seconds, give datetime.fromtimestamp(s, timezone.utc)"
                            if isinstance(value, float) else "")))
    if value.utcoffset() is None:
        raise ValueError("%s=%r is a naive datetime, which names no instant \u2014 attach its "
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
    """The core's error of the default clock, which it returns on every call."""
    import os

    rc = lib.monostamp_default_clock(ffi.new("monostamp_clock **"))
    path = os.environ.get("MONOSTAMP_SHARED")
    raise _core_error(rc, "the default clock is unusable (MONOSTAMP_SHARED=%r)" % (path,),
                      path or None)


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
    return _unusable() if _D is None else default_clock.policy


def set_policy(policy):
    number = _option("policy", policy, "set_policy(): policy", "a Policy or str")
    rc = _unusable() if _D is None else lib.monostamp_clock_set_policy(_D, number)
    if rc != 0:
        raise default_clock._fault("set_policy", rc)


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


def create_state_file(path, *, trust_group=False):
    rc = lib.monostamp_state_file_create(_path(path, "create_state_file(): path"),
                                         1 if trust_group else 0)
    if rc != 0:
        raise _core_error(rc, "create_state_file(%r)" % (path,), path)


def _state_file_info(path):
    info = ffi.new("monostamp_state_info *")
    rc = lib.monostamp_state_file_info(_path(path, "_state_file_info(): path"), info)
    if rc != 0:
        raise _core_error(rc, "_state_file_info(%r)" % (path,), path)
    return info.last_ns, info.max_lead_ns, info.joins


def _sleep(what, now, ns, is_duration, tolerance_ns):
    bad, why, out = ffi.new("int *"), ffi.new("char[]", 96), ffi.new("int64_t *")
    if lib.monostamp_sleep_deadline(now, ns, is_duration, tolerance_ns, out, bad, why, 96) != 0:
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
        bad = not -(1 << 63) <= _int(value, what) * 10**9 < (1 << 63)
        out[0] = 0 if bad else value * 10**9
    if bad:
        raise ValueError("%s=%r is out of range" % (what, value))
    return out[0]


def sleep(seconds, tolerance=DEFAULT_SLEEP_TOLERANCE_NS / 1e9):
    now_ns = lib.monostamp_monotonic_ns()
    ns = _seconds(seconds, "seconds")
    tol = _seconds(tolerance, "tolerance")
    if ns < 0 or tol < 0:
        raise ValueError("sleep(%r, tolerance=%r): seconds and tolerance must be >= 0: %s"
                         % (seconds, tolerance, ffi.string(lib.monostamp_strerror(
                             lib.MONOSTAMP_EINVAL)).decode()))
    _sleep("sleep(%r)" % (seconds,), now_ns, ns, 1, tol)


def sleep_until_ns(deadline_ns, tolerance_ns=DEFAULT_SLEEP_TOLERANCE_NS):
    deadline = _int(deadline_ns, "deadline_ns")
    tol = _int(tolerance_ns, "tolerance_ns")
    if tol < 0:
        raise ValueError("sleep_until_ns(): tolerance_ns=%r must be >= 0" % (tolerance_ns,))
    _sleep("sleep_until_ns()", lib.monostamp_monotonic_ns(), deadline, 0, tol)


def _sleep_finish(finish):
    """The CPython binding's hook for its Python finish: unused here."""


# ---------------------------------------- the patch (docs/patch.md, PyPy)
# PyPy's time is a builtin module and its datetime pure Python
# (lib_pypy/datetime.py): the patch rebinds their attributes, which every
# call through the module (and datetime's own now(), utcnow(), today())
# reads; a name bound earlier by `from time import time` keeps the real one.

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
    if rc == lib.MONOSTAMP_ELEAD:
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


def _activate(clock):
    if clock is not None and not isinstance(clock, Clock):
        raise TypeError("clock must be a monostamp.Clock or None, not " + type(clock).__name__)
    for owner, name, ours in _TARGETS:
        if (owner, name) not in _saved and vars(owner)[name] is not _REAL[owner, name]:
            raise RuntimeError("monostamp.patch() cannot start: %s is patched by another tool "
                               "(time-machine?); stop it first" % _label(owner, name))
    _patch_clock[0] = clock
    for owner, name, ours in _TARGETS:
        if (owner, name) not in _saved:
            _saved[owner, name] = vars(owner)[name]
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
