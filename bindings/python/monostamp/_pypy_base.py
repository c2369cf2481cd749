"""monostamp on PyPy, the base of _pypy.py: the cffi module
(_monostamp_cffi, tools/cffi_build.py), the constants, and the conversions
and errors the binding's modules share, worded as the C extension words them.
"""
import datetime as _dt
import types as _types

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


def _codes():
    """The core's error codes by name (E.EINVAL, ...), from its one list."""
    out, i = {}, 0
    while lib.monostamp_error_code(i) != 0:
        code = lib.monostamp_error_code(i)
        out[ffi.string(lib.monostamp_error_name(code)).decode()] = code
        i += 1
    return _types.SimpleNamespace(**out)


E = _codes()
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


def _core_error(code, context, filename=None, message=None):
    """The exception the CPython binding's raise_core makes of a core code
    (its message "context: " and the core's reason, unless given)."""
    import errno

    if message is None:
        message = "%s: %s" % (context, ffi.string(lib.monostamp_strerror(code)).decode(
            "utf-8", "replace"))
    err = lib.monostamp_os_errno(code)
    if err == 0 and code in (E.EUNSAFE, E.EEXIST):
        err = errno.EACCES if code == E.EUNSAFE else errno.EEXIST
    if err:
        return OSError(err, message, filename) if filename is not None else OSError(err, message)
    if code == E.ELEAD:
        return LeadError(message)
    if code == E.ENOMEM:
        return MemoryError(message)
    if code == E.EINTR or lib.monostamp_error_name(code) == ffi.NULL:
        return RuntimeError(message)
    return ValueError(message)


def _rule_error(what, rule, value):
    """ValueError with the core's sentence of `rule` for what=repr(value)."""
    return ValueError(_core_text(None, 512, lambda buf, size: lib.monostamp_rule_text(
        rule, what.encode(), repr(value).encode(), buf, size)))


def _clock_fault(c, rc, call, name, value=0):
    """The exception for `call` (the core's `name` for it) refused on the
    clock c: the core's sentence after "call: ", else the code's."""
    text = _core_text(call, 256, lambda buf, size: lib.monostamp_clock_fault(
        c, name, rc, value, buf, size))
    return _core_error(rc, call, message=None if text.endswith(": ") else text)


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be int, not %s" % (what, type(value).__name__))
    if not -(1 << 63) <= value < (1 << 63):
        raise _rule_error(what, lib.MONOSTAMP_RULE_INT64, value)
    return value


def _utf8(value, what, raw=None):
    """The bytes for the core (value's UTF-8, else raw), a NUL refused."""
    raw = value.encode("utf-8", "surrogatepass") if raw is None else raw
    if b"\0" in raw:
        raise _rule_error(what, lib.MONOSTAMP_RULE_NUL, raw.index(b"\0") + 1)
    return raw


def _path(value, what):
    import os

    if not isinstance(value, (str, bytes)) and not hasattr(type(value), "__fspath__"):
        raise TypeError("%s must be str, bytes or os.PathLike, not %s"
                        % (what, type(value).__name__))
    return _utf8(None, what, os.fsencode(value))


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
                        " -- a fixed offset or other tzinfo has no name the clock could "
                        "follow: give its IANA name ('Europe/Berlin') or a POSIX TZ string")
                        if isinstance(zone, _dt.tzinfo) else ""))


def _core_text(call, size, write):
    """The core's sentence, written by write(buf, size), after "call: " (if any)."""
    import os

    buf = ffi.new("char[]", size)
    write(buf, size)
    text = os.fsdecode(ffi.string(buf))
    return text if call is None else "%s: %s" % (call, text)


def _zone_error(call, name):
    """The core's sentence for a zone name it does not know."""
    return ValueError(_core_text(call, 2 * 256 + 256, lambda buf, size: lib.monostamp_zone_unknown(
        b"" if name is None or name == ffi.NULL else name, buf, size)))


def _option(field, value, what, expected="str"):
    """The core's value of an option's name, else the core's list of names."""
    if not isinstance(value, str):
        raise TypeError("%s must be %s, not %s" % (what, expected, type(value).__name__))
    out = ffi.new("int *")
    if lib.monostamp_option_from_name(field.encode(), _utf8(value, what), out) != 0:
        raise ValueError("%s=%r %s" % (what, value, ffi.string(
            lib.monostamp_options_rule(field.encode())).decode()))
    return out[0]


def _state_file_error(rc, call, what, path, path_bytes):
    """The core's sentence for a state file to blame
    (monostamp_state_file_fault): "what='path': why" after "call: ", raised
    as the code calls for; a missing directory's FileNotFoundError has no
    filename, the path being in the message once."""
    message = _core_text(call, 4096 + 256, lambda buf, size: lib.monostamp_state_file_text(
        rc, what.encode(), path_bytes, buf, size))
    if lib.monostamp_state_file_hint(rc, path_bytes) != ffi.NULL:
        return FileNotFoundError(2, message)
    return _core_error(rc, None, path, message)


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
        if rc == E.ENOZONE:
            raise _zone_error(what, name)
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

    @property
    def __signature__(cls):
        """A class's own _signature(), made when asked (inspect imports enum,
        which import monostamp does not); None: inspect's own reading."""
        make = cls.__dict__.get("_signature")
        return make.__func__() if make is not None else None
