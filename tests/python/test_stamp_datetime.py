"""Stamp <-> datetime and float seconds: Stamp.datetime(), Stamp.fromdatetime(),
Stamp.fromtimestamp().

Every expected value is computed by datetime's own arithmetic (aware
subtraction from the epoch, utcoffset()), never by the code under test.
"""
import datetime as dt
import math
import sys
import zoneinfo

import pytest
from hypothesis import given, strategies as st

import monostamp
from monostamp import Stamp

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
US = dt.timedelta(microseconds=1)
ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu",
         "Australia/Lord_Howe", "America/St_Johns", "Pacific/Chatham", "Africa/Casablanca"]
TZINFOS = [zoneinfo.ZoneInfo(z) for z in ZONES] + [
    UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)), dt.timezone(dt.timedelta(hours=-9)),
    dt.timezone(dt.timedelta(seconds=-(3 * 3600 + 17 * 60 + 41)), "odd seconds")]

aware = st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2100, 12, 31),
                     timezones=st.sampled_from(TZINFOS), allow_imaginary=True)
# Instants 1900..2100 in ns, and offsets within a day.
ns_1900_2100 = st.integers(min_value=-2208988800 * 10**9, max_value=4133980799 * 10**9)
offsets = st.integers(min_value=-86399, max_value=86399)


def expected_ns(d):
    """The instant of an aware datetime in ns, by datetime's own subtraction."""
    return (d - EPOCH) // US * 1000


@given(aware)
def test_fromdatetime_is_the_datetimes_instant_and_offset(d):
    s = Stamp.fromdatetime(d)
    assert s.utc_ns == expected_ns(d), d
    assert s.offset == d.utcoffset() // dt.timedelta(seconds=1), d


@given(aware)
def test_datetime_round_trip_from_an_aware_datetime(d):
    back = Stamp.fromdatetime(d).datetime()
    # The same instant.  (Not back == d: PEP 495 makes == between zones
    # False whenever one side's fold matters, as on a night clocks go back.)
    assert back - EPOCH == d - EPOCH
    assert back.utcoffset() == d.utcoffset()
    # The same wall time: the fields are those of d.
    assert back.replace(tzinfo=None) == d.replace(tzinfo=None)


@given(ns_1900_2100, offsets)
def test_stamp_round_trip_through_datetime(ns, offset):
    s = Stamp(ns, offset)
    d = s.datetime()
    # Truncated to the µs toward the past, as documented.
    assert Stamp.fromdatetime(d) == Stamp(ns // 1000 * 1000, offset)
    assert d.utcoffset() == dt.timedelta(seconds=offset)
    assert d == EPOCH + dt.timedelta(microseconds=ns // 1000)


def test_datetime_is_made_with_a_fixed_offset_timezone():
    d = Stamp(1796224280123456789, 3600).datetime()
    assert d == dt.datetime(2026, 12, 2, 16, 11, 20, 123456,
                            tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert type(d) is dt.datetime and type(d.tzinfo) is dt.timezone and d.fold == 0
    assert Stamp(0, 0).datetime().tzinfo is UTC
    assert Stamp(-1, 0).datetime() == dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


@pytest.mark.parametrize("ns, offset", [(-2**63, -86399), (-2**63, 86399), (2**63 - 1, -86399),
                                        (2**63 - 1, 86399)])
def test_datetime_at_the_ends_of_int64(ns, offset):
    # int64 ns (1677..2262) lies well within datetime's years 1..9999.
    d = Stamp(ns, offset).datetime()
    assert d == EPOCH + dt.timedelta(microseconds=ns // 1000)
    assert d.utcoffset() == dt.timedelta(seconds=offset)


def test_fromdatetime_honours_fold():
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    first = dt.datetime(2026, 10, 25, 2, 30, tzinfo=berlin)  # fold=0: still +02:00
    second = first.replace(fold=1)  # the same wall time an hour later, +01:00
    a, b = Stamp.fromdatetime(first), Stamp.fromdatetime(second)
    assert (a.offset, b.offset) == (7200, 3600)
    assert b - a == 3600 * 10**9


def test_fromdatetime_refuses_naive_and_non_datetimes():
    with pytest.raises(ValueError, match="naive datetime has no UTC offset"):
        Stamp.fromdatetime(dt.datetime(2026, 1, 1))

    class NoOffset(dt.tzinfo):
        def utcoffset(self, d):
            return None

    with pytest.raises(ValueError, match="naive"):
        Stamp.fromdatetime(dt.datetime(2026, 1, 1, tzinfo=NoOffset()))
    with pytest.raises(TypeError, match="dt must be a datetime.datetime, not date"):
        Stamp.fromdatetime(dt.date(2026, 1, 1))
    with pytest.raises(TypeError):
        Stamp.fromdatetime("2026-01-01T00:00:00Z")
    with pytest.raises(TypeError):
        Stamp.fromdatetime()
    with pytest.raises(TypeError, match="exactly one positional argument"):
        Stamp.fromdatetime(dt=dt.datetime(2026, 1, 1, tzinfo=UTC))
    with pytest.raises(TypeError):
        Stamp.fromdatetime(dt.datetime(2026, 1, 1, tzinfo=UTC), UTC)


def test_fromdatetime_refuses_what_a_stamp_cannot_hold():
    with pytest.raises(ValueError, match="outside a Stamp's range"):
        Stamp.fromdatetime(dt.datetime(1600, 1, 1, tzinfo=UTC))
    with pytest.raises(ValueError, match="outside a Stamp's range"):
        Stamp.fromdatetime(dt.datetime(2262, 4, 12, tzinfo=UTC))
    # The very ends of int64 ns, to the µs.
    lo = dt.datetime(1677, 9, 21, 0, 12, 43, 145225, tzinfo=UTC)
    hi = dt.datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC)
    assert Stamp.fromdatetime(lo).utc_ns == expected_ns(lo) > -2**63
    assert Stamp.fromdatetime(hi).utc_ns == expected_ns(hi) < 2**63
    with pytest.raises(ValueError, match="outside"):
        Stamp.fromdatetime(lo - US)
    # An offset with microseconds is no Stamp offset.
    odd = dt.timezone(dt.timedelta(seconds=1, microseconds=5))
    with pytest.raises(ValueError, match="not whole seconds"):
        Stamp.fromdatetime(dt.datetime(2026, 1, 1, tzinfo=odd))


class LyingDatetime(dt.datetime):
    """A subclass whose __reduce__ is its own (as pendulum's is): its fields
    must be read by attribute."""

    def __reduce__(self):
        return (type(self), (b"\x07\xd0\x01\x01\x00\x00\x00\x00\x00\x00", UTC))


def test_fromdatetime_reads_subclasses_by_their_fields():
    d = LyingDatetime(2026, 12, 2, 16, 11, 20, 123456, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert Stamp.fromdatetime(d) == Stamp(1796224280123456000, 3600)


@given(st.floats(min_value=-2e9, max_value=5e9, allow_nan=False))
def test_fromtimestamp_float_agrees_with_datetime(t):
    s = Stamp.fromtimestamp(t, "UTC")
    # The float's exact value, rounded to the ns, by exact rational arithmetic.
    from fractions import Fraction
    exact = Fraction(t) * 10**9
    assert abs(Fraction(s.utc_ns) - exact) <= Fraction(1, 2)
    if t < 0 and sys.platform == "win32":  # Windows' fromtimestamp refuses t < 0
        d = dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=t)  # µs, half even too
    else:
        d = dt.datetime.fromtimestamp(t, UTC)  # rounds to the µs, half even
    assert abs(s.utc_ns - expected_ns(d)) <= 1000
    assert s.offset == 0


def test_fromtimestamp_exact_values_and_zones():
    assert Stamp.fromtimestamp(1.5, "UTC") == Stamp(1500000000, 0)
    assert Stamp.fromtimestamp(-1.5, "UTC") == Stamp(-1500000000, 0)
    assert Stamp.fromtimestamp(10**9, "UTC") == Stamp(10**18, 0)
    assert Stamp.fromtimestamp(0.9999999999, "UTC") == Stamp(10**9, 0)  # rounds up a second
    s = Stamp.fromtimestamp(1796224280, zone="Europe/Berlin")
    assert (s.utc_ns, s.offset) == (1796224280 * 10**9, 3600)
    assert Stamp.fromtimestamp(1796224280, zoneinfo.ZoneInfo("Asia/Kathmandu")).offset == 20700
    now = monostamp.now()
    back = Stamp.fromtimestamp(now.timestamp(), "UTC")
    assert abs(back.utc_ns - now.utc_ns) < 1000  # a double holds ~240 ns today


def test_fromtimestamp_defaults_to_the_local_zone(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Kathmandu")
    monostamp.zone_changed()
    try:
        assert Stamp.fromtimestamp(1796224280).offset == 20700
    finally:
        monkeypatch.undo()
        monostamp.zone_changed()


@pytest.mark.parametrize("t", [math.nan, math.inf, -math.inf, 1e300, -1e300, 2**63, 9.3e9])
def test_fromtimestamp_refuses_values_out_of_range(t):
    with pytest.raises(ValueError, match=r"^Stamp\.fromtimestamp\(\): t=.* is out of range -- give "
                                         r"a finite number of seconds"):
        Stamp.fromtimestamp(t, "UTC")


def test_fromtimestamp_refuses_other_types():
    for bad in ["1", None, b"1", 1j]:
        with pytest.raises(TypeError, match="t must be int or float"):
            Stamp.fromtimestamp(bad)
    with pytest.raises(ValueError, match="Mars"):
        Stamp.fromtimestamp(0, "Mars/Olympus_Mons")
    with pytest.raises(TypeError, match="by position only"):
        Stamp.fromtimestamp(t=0)
    with pytest.raises(TypeError):
        Stamp.fromtimestamp(0, "UTC", "UTC")
    assert Stamp.fromtimestamp(0, zone="UTC") == Stamp(0, 0)
