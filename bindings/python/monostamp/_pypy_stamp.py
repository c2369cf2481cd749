"""monostamp.Stamp on PyPy (_pypy.py): an instant and its UTC offset, in
Python over the core's formatting, parsing and zones (_pypy_base)."""
import datetime as _dt
from operator import index as _index

from ._pypy_base import (_EPOCH, _EPOCH_NAIVE, _Immutable, _core_error, _int, _offset_in,
                         _rule_error, _timezone, ffi, lib)


class Stamp(metaclass=_Immutable):
    """An instant (int ns since the epoch, UTC) and the UTC offset (s) in
    force there; orders and hashes as the 2-tuple; str() is isoformat()."""

    __slots__ = ("_ns", "_off")
    __module__ = "monostamp"

    def __new__(cls, utc_ns, offset=0):
        self = object.__new__(cls)
        self._ns = _int(utc_ns, "utc_ns")
        if isinstance(offset, bool) or not isinstance(offset, int):
            _int(offset, "offset")  # its TypeError
        if not -(1 << 63) <= offset < 1 << 63 or lib.monostamp_offset_check(offset) != 0:
            raise _rule_error("Stamp(): offset", lib.MONOSTAMP_RULE_OFFSET, offset)
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
            raise _rule_error("Stamp.isoformat(): digits", lib.MONOSTAMP_RULE_DIGITS, digits)
        if not isinstance(sep, str):
            raise TypeError("sep must be str, not " + type(sep).__name__)
        if len(sep) != 1:
            raise ValueError("sep=%r must be one character" % (sep,))
        text = ffi.new("char[]", 36)
        n = lib.monostamp_format_iso8601(text, 36, self._ns, self._off, digits, 1 if z else 0)
        if n < 0:  # the core's sentence, as Lua's isoformat says it (hours: as seconds)
            why, bad = ffi.new("char[]", 160), ffi.new("int *")
            rc = lib.monostamp_isoformat(text, 36, self._ns, self._off, max(digits, 0),
                                         1 if z else 0, bad, why, 160)
            raise ValueError("Stamp.isoformat(): " + ffi.string(why).decode()) \
                if rc < 0 and bad[0] > 0 else _core_error(n, "Stamp.isoformat()")
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
        if rc != 0:  # the core's sentence, as Lua's parse says it
            why = ffi.new("char[]", 320)
            lib.monostamp_parse_fault(raw, len(raw), rc, err, why, 320)
            raise ValueError("Stamp.fromisoformat(): " + ffi.string(why).decode("utf-8",
                                                                                "surrogateescape"))
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
    def fromtimestamp(cls, *args, zone=None, **kwargs):
        if not args or "t" in kwargs:
            raise TypeError("fromtimestamp() takes t by position only")
        if kwargs:
            raise TypeError("fromtimestamp() got an unexpected keyword argument %r"
                            % next(iter(kwargs)))
        if len(args) > 2 or (len(args) == 2 and zone is not None):
            raise TypeError("fromtimestamp() takes at most 2 arguments (%d given)" % len(args))
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
            raise _rule_error("Stamp.fromtimestamp(): t", lib.MONOSTAMP_RULE_SECONDS, t)
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
