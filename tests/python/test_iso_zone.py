"""ISO 8601 both ways, offsets through named zones, and the shared vectors,
checked against datetime and zoneinfo where the standard library has them."""
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monostamp
from monostamp import Clock, Policy, Stamp
from conftest import read_vectors

try:
    import zoneinfo
    zoneinfo.ZoneInfo("Europe/Berlin")
except Exception:  # no tz database
    zoneinfo = None

I64 = st.integers(min_value=-2**63, max_value=2**63 - 1)
# Whole-minute offsets, as RFC 3339 writes them.
OFFSETS = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).map(lambda m: m * 60)
# Instants whose local date stays in datetime's years 1..9999 at any offset.
DT_NS = st.integers(min_value=-62135596800 * 10**9 + 86400 * 10**9,
                    max_value=253402300799 * 10**9 - 86400 * 10**9)


def offset_at(zone, utc_ns):
    """The offset a manual clock in `zone` stamps at utc_ns."""
    c = Clock(Policy.ACCEPT_PLATFORM_TIME, source="manual", zone=zone, start_ns=utc_ns)
    return c.now().offset


def test_format_vectors():
    rows = read_vectors("iso8601.tsv")
    for utc_ns, zone, offset, digits, use_z, expected in rows:
        utc_ns, offset = int(utc_ns), int(offset)
        s = Stamp(utc_ns, offset)
        assert s.isoformat(int(digits), bool(int(use_z))) == expected, (utc_ns, zone)
        assert offset_at(zone, utc_ns) == offset, (utc_ns, zone)
        unit = 10 ** (9 - int(digits))
        back = Stamp.fromisoformat(expected)
        assert back == Stamp(utc_ns // unit * unit, offset), expected


def test_parse_vectors():
    for text, utc_ns, offset in read_vectors("iso8601_parse.tsv"):
        assert tuple(Stamp.fromisoformat(text)) == (int(utc_ns), int(offset)), text


def test_bad_vectors():
    for text, position, error, reason in read_vectors("iso8601_bad.tsv"):
        with pytest.raises(ValueError) as info:
            Stamp.fromisoformat(text)
        msg = str(info.value)
        # The core's 1-based character: the vectors are ASCII, one byte each.
        assert "at character %d:" % (int(position) + 1) in msg and reason in msg, (text, msg)


def test_zone_offset_vectors():
    for utc_ns, zone, offset in read_vectors("zone_offsets.tsv"):
        assert offset_at(zone, int(utc_ns)) == int(offset), (utc_ns, zone)


def test_dst_through_a_named_zone():
    # Europe/Berlin, 2026-03-29 01:00:00Z: CET (+01:00) becomes CEST (+02:00).
    change = 1774746000 * 10**9
    c = Clock(source="manual", zone="Europe/Berlin", start_ns=change - 1)
    before = c.now()
    after = c.now()
    assert (before.utc_ns, before.offset) == (change - 1, 3600)
    assert (after.utc_ns, after.offset) == (change, 7200)
    assert before.isoformat() == "2026-03-29T01:59:59.999999999+01:00"
    assert after.isoformat() == "2026-03-29T03:00:00.000000000+02:00"
    # And back in October: local time repeats, stamps do not.
    back = 1792890000 * 10**9
    c.set(back - 1)
    a, b = c.now(), c.now()
    assert (a.offset, b.offset) == (7200, 3600)
    assert a.isoformat()[11:19] == "02:59:59" and b.isoformat()[11:19] == "02:00:00"
    assert a < b


def test_posix_tz_string_zone():
    c = Clock(source="manual", zone="CET-1CEST,M3.5.0,M10.5.0/3", start_ns=1774746000 * 10**9)
    assert c.now().offset == 7200


@pytest.mark.skipif(zoneinfo is None, reason="no zoneinfo or tz database")
@settings(max_examples=300, deadline=None)
@given(ns=st.integers(min_value=0, max_value=4102444800 * 10**9),
       zone=st.sampled_from(["Europe/Berlin", "America/New_York", "Asia/Kathmandu",
                             "Australia/Lord_Howe", "America/Sao_Paulo", "UTC"]))
def test_offsets_agree_with_zoneinfo(ns, zone):
    s = Clock(Policy.ACCEPT_PLATFORM_TIME, source="manual", zone=zone, start_ns=ns).now()
    d = dt.datetime.fromtimestamp(ns // 10**9, zoneinfo.ZoneInfo(zone))
    assert s.offset == int(d.utcoffset().total_seconds())
    assert s.isoformat(0) == d.isoformat()


@settings(max_examples=500, deadline=None)
@given(ns=I64, offset=OFFSETS, digits=st.integers(0, 9), z=st.booleans())
def test_isoformat_round_trip(ns, offset, digits, z):
    unit = 10 ** (9 - digits)
    truncated = ns // unit * unit
    if truncated < -2**63:
        # The text, truncated toward the past, would name an instant before
        # the int64 range, which no parse could take back: format refuses
        # it, as parse refuses such text.
        with pytest.raises(ValueError, match="range"):
            Stamp(ns, offset).isoformat(digits, z)
        return
    text = Stamp(ns, offset).isoformat(digits, z)
    assert Stamp.fromisoformat(text) == Stamp(truncated, offset)
    if z and offset == 0:
        assert text.endswith("Z")


@settings(max_examples=500, deadline=None)
@given(ns=DT_NS.filter(lambda n: -2**63 <= n // 1000 * 1000 and n < 2**63), offset=OFFSETS)
def test_isoformat_and_datetime_agree_with_the_standard_library(ns, offset):
    # (ns truncated to µs must stay in int64 for the text to parse back.)
    s = Stamp(ns, offset)
    d = s.datetime()
    tz = dt.timezone(dt.timedelta(seconds=offset))
    expected = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(
        microseconds=ns // 1000)
    assert d == expected and d.utcoffset() == tz.utcoffset(None)
    assert d.tzinfo == tz
    # datetime writes microseconds: ours with 6 digits is the same text,
    # and datetime reads ours (3.11+ reads the 9-digit form too).
    text = s.isoformat(6)
    assert text == d.isoformat(timespec="microseconds")
    assert dt.datetime.fromisoformat(text) == d
    assert Stamp.fromisoformat(d.isoformat(timespec="microseconds")) == Stamp(
        ns // 1000 * 1000, offset)


def test_datetime_truncates_to_microseconds_toward_the_past():
    assert Stamp(-1, 0).datetime() == dt.datetime(1969, 12, 31, 23, 59, 59, 999999,
                                                  tzinfo=dt.timezone.utc)
    assert Stamp(1999, 3600).datetime().microsecond == 1
    assert Stamp(1999, 3600).datetime().hour == 1
    assert "µs" in Stamp.datetime.__doc__ or "microsecond" in Stamp.datetime.__doc__


def test_local_zone_follows_tz(monkeypatch):
    # The default clock and zone=None read the local zone; TZ changes are
    # seen after zone_changed().
    import os
    import time
    if not hasattr(time, "tzset"):
        pytest.skip("no tzset")
    monkeypatch.setenv("TZ", "Asia/Kathmandu")
    monostamp.zone_changed()
    try:
        assert monostamp.now().offset == 20700
        assert Clock().now().offset == 20700
        monkeypatch.setenv("TZ", "UTC")
        monostamp.zone_changed()
        assert monostamp.now().offset == 0
    finally:
        monkeypatch.undo()
        monostamp.zone_changed()
    assert os.environ.get("TZ") != "Asia/Kathmandu"
