"""Stamp.astimezone() against zoneinfo and datetime.astimezone.

Zone names go through the core's zone engine; tzinfo objects are asked as
datetime.astimezone asks them.  zoneinfo reads the same files (the pinned
copy, conftest.py), so the two must agree at every instant.
"""
import datetime as dt
import zoneinfo

import pytest
from hypothesis import given, strategies as st

import monostamp
from monostamp import Clock, Policy, Stamp

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe",
         "America/St_Johns", "Pacific/Chatham", "Africa/Casablanca", "America/Sao_Paulo",
         "Europe/Dublin"]
ns_1900_2100 = st.integers(min_value=-2208988800 * 10**9, max_value=4133980799 * 10**9)
offsets = st.integers(min_value=-86399, max_value=86399)


def zoneinfo_offset(ns, name):
    """The offset zoneinfo gives at the instant, in seconds."""
    d = (EPOCH + dt.timedelta(microseconds=ns // 1000)).astimezone(zoneinfo.ZoneInfo(name))
    return d.utcoffset() // dt.timedelta(seconds=1)


@given(ns_1900_2100, offsets, st.sampled_from(ZONES))
def test_astimezone_by_name_agrees_with_zoneinfo(ns, offset, name):
    s = Stamp(ns, offset)
    moved = s.astimezone(name)
    assert moved.utc_ns == ns  # the instant is kept exactly
    assert moved.offset == zoneinfo_offset(ns, name), (s, name)


@given(ns_1900_2100, offsets, st.sampled_from(ZONES))
def test_astimezone_with_a_tzinfo_agrees_with_datetime_astimezone(ns, offset, name):
    tz = zoneinfo.ZoneInfo(name)
    s = Stamp(ns, offset)
    moved = s.astimezone(tz)
    assert moved.utc_ns == ns
    expected = s.datetime().astimezone(tz)
    assert moved.offset == expected.utcoffset() // dt.timedelta(seconds=1)
    assert moved.datetime().replace(tzinfo=None) == expected.replace(tzinfo=None)


@given(st.integers(min_value=820454400 * 10**9, max_value=4133980799 * 10**9))
def test_a_posix_tz_string_follows_its_rule(ns):
    # Berlin's rule since 1996, as a POSIX TZ string.
    assert Stamp(ns, 0).astimezone("CET-1CEST,M3.5.0,M10.5.0/3").offset == zoneinfo_offset(
        ns, "Europe/Berlin")


def test_astimezone_across_a_dst_change():
    before = Stamp(1774745999 * 10**9, 0)  # 2026-03-29T00:59:59Z
    assert before.astimezone("Europe/Berlin").isoformat(digits=0) == "2026-03-29T01:59:59+01:00"
    after = before + 10**9
    assert after.astimezone("Europe/Berlin").isoformat(digits=0) == "2026-03-29T03:00:00+02:00"


def test_astimezone_is_what_a_manual_clock_in_the_zone_gives():
    # The route examples/python/iso8601.py used to take.
    s = Stamp(1796224280123456789, 3600)
    for name in ZONES:
        clock = Clock(source="manual", start_ns=s.utc_ns, zone=name,
                      policy=Policy.ACCEPT_PLATFORM_TIME)
        assert s.astimezone(name) == clock.now(), name


def test_astimezone_with_fixed_offsets():
    s = Stamp(1796224280123456789, 3600)
    assert s.astimezone(UTC) == Stamp(s.utc_ns, 0)
    assert s.astimezone("UTC") == Stamp(s.utc_ns, 0)
    minus3 = dt.timezone(dt.timedelta(hours=-3))
    assert s.astimezone(minus3) == Stamp(s.utc_ns, -10800)
    assert s.astimezone(zone=minus3) == Stamp(s.utc_ns, -10800)
    # A timezone of whole seconds that is not whole minutes: a Stamp holds it.
    odd = dt.timezone(dt.timedelta(seconds=-(3 * 3600 + 17 * 60 + 41)))
    assert s.astimezone(odd).offset == -11861


def test_astimezone_none_is_the_local_zone(monkeypatch):
    s = Stamp(1796224280123456789, 0)
    monkeypatch.setenv("TZ", "Asia/Kathmandu")
    monostamp.zone_changed()
    try:
        assert s.astimezone().offset == 20700
        assert s.astimezone(None).offset == 20700
    finally:
        monkeypatch.undo()
        monostamp.zone_changed()


@pytest.mark.parametrize("ns", [-2**63, 2**63 - 1])
@pytest.mark.parametrize("name", ZONES)
def test_astimezone_at_the_ends_of_int64(ns, name):
    s = Stamp(ns, 0)
    assert s.astimezone(name) == Stamp(ns, zoneinfo_offset(ns, name))
    assert s.astimezone(zoneinfo.ZoneInfo(name)) == s.astimezone(name)


def test_astimezone_refuses_bad_zones():
    s = Stamp(0, 0)
    with pytest.raises(ValueError, match="Stamp.astimezone\\(\\): zone='Mars/Olympus_Mons' is not a "
                                         "zone this machine knows"):
        s.astimezone("Mars/Olympus_Mons")
    with pytest.raises(ValueError, match="NUL"):
        s.astimezone("Europe/Berlin\0")
    with pytest.raises(ValueError):
        s.astimezone("../../etc/passwd")
    with pytest.raises(ValueError):
        s.astimezone("x" * 300)
    for bad in [5, b"UTC", dt.timedelta(hours=1), object()]:
        with pytest.raises(TypeError, match="zone must be None, a zone name"):
            s.astimezone(bad)
    with pytest.raises(TypeError):
        s.astimezone("UTC", "UTC")
    with pytest.raises(TypeError):
        s.astimezone(tz="UTC")


def test_astimezone_refuses_tzinfos_that_do_not_answer():
    class NoOffset(dt.tzinfo):
        def utcoffset(self, d):
            return None

        def dst(self, d):
            return None

    class MicroOffset(dt.tzinfo):
        def utcoffset(self, d):
            return dt.timedelta(seconds=1, microseconds=5)

        def dst(self, d):
            return dt.timedelta(0)

    class Broken(dt.tzinfo):
        def fromutc(self, d):
            return "not a datetime"

    s = Stamp(0, 0)
    with pytest.raises(ValueError):
        s.astimezone(NoOffset())  # tzinfo.fromutc's own error
    with pytest.raises(ValueError, match="not whole seconds"):
        s.astimezone(MicroOffset())
    with pytest.raises(TypeError, match=r"zone.fromutc\(\) must be a datetime.datetime"):
        s.astimezone(Broken())
    # Many names, each opened once: unknown names are not kept.
    for i in range(200):
        with pytest.raises(ValueError):
            s.astimezone("Nowhere/%d" % i)
    assert s.astimezone("Europe/Berlin").offset == 3600


def test_astimezone_keeps_the_class():
    class Sub(Stamp):
        pass

    s = Sub(0, 0)
    assert type(s.astimezone("Europe/Berlin")) is Sub
    assert type(s.astimezone(zoneinfo.ZoneInfo("Europe/Berlin"))) is Sub
    assert type(Sub.fromtimestamp(0, "UTC")) is Sub
