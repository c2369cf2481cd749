"""isoformat(timespec=, sep=), subclassing, JSON and sqlite3."""
import copy
import datetime as dt
import gc
import json
import pickle
import sqlite3
import weakref

import pytest
from hypothesis import given, strategies as st

import monostamp
from monostamp import Stamp

SPECS = ["hours", "minutes", "seconds", "milliseconds", "microseconds"]
us_1900_2100 = st.integers(min_value=-2208988800 * 10**6, max_value=4133980799 * 10**6)
minute_offsets = st.integers(min_value=-1439, max_value=1439).map(lambda m: m * 60)


class Sub(Stamp):
    """At module level, so that it pickles."""


# ------------------------------------------------------------- isoformat


@given(us_1900_2100, minute_offsets, st.sampled_from(SPECS), st.sampled_from("T t_"))
def test_isoformat_timespec_is_datetimes(us, offset, spec, sep):
    s = Stamp(us * 1000 + 789, offset)  # ns below the µs: truncated, as datetime has none
    d = s.datetime()
    assert s.isoformat(timespec=spec, sep=sep) == d.isoformat(sep=sep, timespec=spec)


@given(us_1900_2100, minute_offsets)
def test_isoformat_timespec_auto_and_nanoseconds(us, offset):
    s = Stamp(us * 1000, offset)
    whole = Stamp(us // 10**6 * 10**9, offset)
    # 'auto': no fraction for a whole second, as datetime; else all nine digits.
    assert whole.isoformat(timespec="auto") == whole.datetime().isoformat()
    if us % 10**6:
        assert s.isoformat(timespec="auto") == s.isoformat(digits=9)
    assert s.isoformat(timespec="nanoseconds") == s.isoformat()


def test_isoformat_keeps_digits_and_z():
    s = Stamp(1796224280123456789, 0)
    assert s.isoformat(3) == s.isoformat(digits=3) == "2026-12-02T15:11:20.123+00:00"
    assert s.isoformat(0, True) == "2026-12-02T15:11:20Z"
    assert s.isoformat(timespec="hours", z=True) == "2026-12-02T15Z"
    assert s.isoformat(timespec="minutes", sep=" ") == "2026-12-02 15:11+00:00"
    assert s.isoformat(digits=None, timespec="milliseconds") == "2026-12-02T15:11:20.123+00:00"
    assert Stamp(0, 3600).isoformat(timespec="seconds", sep="\u00e9") == (
        "1970-01-01\u00e901:00:00+01:00")


def test_isoformat_refuses_bad_arguments():
    s = Stamp(0, 0)
    with pytest.raises(TypeError, match="digits or timespec, not both"):
        s.isoformat(3, timespec="seconds")
    with pytest.raises(ValueError, match="unknown timespec 'second'"):
        s.isoformat(timespec="second")
    with pytest.raises(TypeError, match="timespec must be str"):
        s.isoformat(timespec=3)
    for sep in ["", "TT"]:
        with pytest.raises(ValueError, match="must be one character"):
            s.isoformat(sep=sep)
    with pytest.raises(TypeError, match="sep must be str"):
        s.isoformat(sep=b"T")
    with pytest.raises(TypeError):
        s.isoformat(1, False, "seconds")  # timespec and sep are keyword-only
    with pytest.raises(ValueError, match="not whole minutes"):
        Stamp(0, 30).isoformat(timespec="hours")


# ------------------------------------------------------------ subclasses


def test_a_subclass_is_a_stamp_and_classmethods_make_it():
    s = Sub(1796224280123456789, 3600)
    assert isinstance(s, Stamp) and s == Stamp(1796224280123456789, 3600)
    assert hash(s) == hash(Stamp(1796224280123456789, 3600))
    assert s < Stamp(1796224280123456790, 0) and Stamp(0, 0) < s
    assert repr(s) == "Sub(utc_ns=1796224280123456789, offset=3600)"
    assert str(s) == "2026-12-02T16:11:20.123456789+01:00"
    text = s.isoformat()
    for made in [Sub.fromisoformat(text), Sub.fromdatetime(s.datetime()),
                 Sub.fromtimestamp(1796224280, "UTC"), s.astimezone("UTC"), s + 1, s - 1]:
        assert type(made) is Sub, made
    for made in [Stamp.fromisoformat(text), Stamp.fromdatetime(s.datetime())]:
        assert type(made) is Stamp
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(s, proto))
        assert type(back) is Sub and back == s
    assert type(copy.copy(s)) is Sub and copy.deepcopy(s) == s


def test_a_subclass_may_add_state_and_its_constructor_runs():
    class Tagged(Stamp):
        def __new__(cls, utc_ns, offset=0, tag="made"):
            self = super().__new__(cls, utc_ns, offset)
            self.tag = tag
            return self

    t = Tagged(5, 60, tag="first")
    assert (t.utc_ns, t.offset, t.tag) == (5, 60, "first")
    # Operations call the class, as datetime's do: its __new__ runs.
    assert (t + 1).tag == "made" and t.astimezone("UTC").tag == "made"
    assert Tagged.fromisoformat("1970-01-01T00:00:00Z").tag == "made"


def test_subclass_instances_with_cycles_are_collected():
    s = Sub(1, 0)
    s.me = s
    ref = weakref.ref(s)
    del s
    gc.collect()
    assert ref() is None


def test_clock_stays_final():
    with pytest.raises(TypeError):
        class C(monostamp.Clock):  # noqa: F841
            pass


# ------------------------------------------------------------------ JSON


def test_json_default_writes_isoformat_and_refuses_the_rest():
    s = Stamp(1796224280123456789, 3600)
    text = json.dumps({"at": s, "subs": [Sub(0, 0)]}, default=monostamp.json_default)
    assert text == ('{"at": "2026-12-02T16:11:20.123456789+01:00", '
                    '"subs": ["1970-01-01T00:00:00.000000000+00:00"]}')
    assert Stamp.fromisoformat(json.loads(text)["at"]) == s
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        json.dumps({1, 2}, default=monostamp.json_default)
    with pytest.raises(TypeError):
        json.dumps(s)  # without the helper json refuses it, as before


# --------------------------------------------------------------- sqlite3


def test_sqlite_adapter_and_converter_round_trip():
    monostamp.register_sqlite(classes=(Stamp, Sub))
    con = sqlite3.connect(":memory:", detect_types=sqlite3.PARSE_DECLTYPES)
    try:
        con.execute("CREATE TABLE t (id INTEGER, at STAMP)")
        stamps = [monostamp.now(), Stamp(-2**63, 0), Stamp(2**63 - 1, -3600), Sub(5, 60)]
        con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(stamps)))
        rows = con.execute("SELECT at FROM t ORDER BY id").fetchall()
        assert [r[0] for r in rows] == stamps
        assert all(type(r[0]) is Stamp for r in rows)
        # Stored as the text fromisoformat takes back.
        raw = con.execute("SELECT CAST(at AS TEXT) FROM t WHERE id = 3").fetchone()[0]
        assert raw == "1970-01-01T00:01:00.000000005+00:01"
        con.execute("INSERT INTO t VALUES (9, 'not a stamp')")
        with pytest.raises(ValueError, match="'not a stamp' at character 1: expected a 4-digit year"):
            con.execute("SELECT at FROM t WHERE id = 9").fetchall()
    finally:
        con.close()


def test_sqlite_converter_by_column_name():
    monostamp.register_sqlite("mystamp")
    con = sqlite3.connect(":memory:", detect_types=sqlite3.PARSE_COLNAMES)
    try:
        s = Stamp(1796224280123456789, 3600)
        got = con.execute('SELECT ? AS "x [mystamp]"', (s,)).fetchone()[0]
        assert got == s
    finally:
        con.close()


def test_register_sqlite_refuses_bad_arguments():
    with pytest.raises(TypeError):
        monostamp.register_sqlite("")
    with pytest.raises(TypeError):
        monostamp.register_sqlite(5)
    with pytest.raises(TypeError, match="Stamp and its subclasses"):
        monostamp.register_sqlite(classes=(int,))
