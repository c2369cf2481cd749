"""Stamp arithmetic against datetime arithmetic, and a Stamp is not a number.

stamp ± int ns / timedelta keeps the offset; stamp - stamp is int ns.
"""
import datetime as dt
import operator

import pytest
from hypothesis import given, strategies as st

from monostamp import Stamp

US = dt.timedelta(microseconds=1)
# Whole-µs instants 1900..2100 (datetime holds µs), offsets within a day.
us_1900_2100 = st.integers(min_value=-2208988800 * 10**6, max_value=4133980799 * 10**6)
offsets = st.integers(min_value=-86399, max_value=86399)
deltas = st.timedeltas(min_value=dt.timedelta(days=-3650), max_value=dt.timedelta(days=3650))


@given(st.integers(min_value=-2**62, max_value=2**62), st.integers(-2**61, 2**61), offsets)
def test_int_ns_add_and_subtract(ns, n, offset):
    s = Stamp(ns, offset)
    assert s + n == Stamp(ns + n, offset)
    assert n + s == Stamp(ns + n, offset)
    assert s - n == Stamp(ns - n, offset)
    assert (s + n) - s == n
    assert s - (s + n) == -n


@given(us_1900_2100, offsets, deltas)
def test_timedelta_arithmetic_matches_datetimes(us, offset, delta):
    s = Stamp(us * 1000, offset)
    d = s.datetime()
    plus, minus = s + delta, s - delta
    assert plus.datetime() == d + delta
    assert minus.datetime() == d - delta
    assert (delta + s) == plus
    # The offset is kept, as a datetime with a fixed timezone keeps it.
    assert plus.offset == minus.offset == offset == (d + delta).utcoffset().total_seconds()
    assert plus.datetime().replace(tzinfo=None) == (d + delta).replace(tzinfo=None)


@given(us_1900_2100, offsets, us_1900_2100, offsets)
def test_stamp_difference_matches_datetimes(us1, off1, us2, off2):
    s1, s2 = Stamp(us1 * 1000, off1), Stamp(us2 * 1000, off2)
    # Aware datetimes subtract by instant whatever their offsets: so do stamps.
    assert s2 - s1 == (s2.datetime() - s1.datetime()) // US * 1000
    assert isinstance(s2 - s1, int)


def test_ns_below_the_microsecond_are_kept():
    s = Stamp(1796224280123456789, 3600)
    assert (s + 1).utc_ns == 1796224280123456790
    assert s - Stamp(1796224280123456000, -3600) == 789
    assert s + dt.timedelta(days=1, microseconds=1) == Stamp(1796224280123456789 + 86400 * 10**9
                                                             + 1000, 3600)


def test_results_past_int64_are_overflow():
    top, bottom = Stamp(2**63 - 1, 0), Stamp(-2**63, 0)
    with pytest.raises(OverflowError, match=r"Stamp\(utc_ns=9223372036854775807, offset=0\) \+ 1 "):
        top + 1
    with pytest.raises(OverflowError):
        1 + top
    with pytest.raises(OverflowError):
        bottom - 1
    with pytest.raises(OverflowError):
        bottom + (-1)
    with pytest.raises(OverflowError):
        Stamp(0, 0) - (-2**63)
    with pytest.raises(OverflowError, match="outside int64"):
        Stamp(0, 0) + 2**63
    with pytest.raises(OverflowError):
        Stamp(0, 0) + dt.timedelta(days=999999999)
    with pytest.raises(OverflowError):
        top + US
    assert bottom + (2**63 - 1) == Stamp(-1, 0)
    assert top - (2**63 - 1) == Stamp(0, 0)
    # The difference of two stamps is exact, past int64 too.
    assert top - bottom == 2**64 - 1
    assert bottom - top == -(2**64 - 1)


@pytest.mark.parametrize("op, other", [
    (operator.add, 1.5), (operator.add, True), (operator.add, "1"), (operator.add, None),
    (operator.sub, 1.5), (operator.sub, False), (operator.mul, 2), (operator.truediv, 2),
    (operator.add, dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)),
    (operator.sub, dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)),
])
def test_refused_operands(op, other):
    s = Stamp(10, 0)
    with pytest.raises(TypeError, match="unsupported operand"):
        op(s, other)


def test_refused_combinations():
    s = Stamp(10, 0)
    with pytest.raises(TypeError):
        s + s  # two instants do not add up
    with pytest.raises(TypeError):
        5 - s
    with pytest.raises(TypeError):
        dt.timedelta(1) - s
    with pytest.raises(TypeError):
        -s


def test_a_stamp_is_not_a_number():
    # The documented choice: int(s) would drop the offset without a word.
    s = Stamp(1796224280123456789, 3600)
    for conv in (int, float, operator.index, complex):
        with pytest.raises(TypeError):
            conv(s)
    with pytest.raises(TypeError):
        range(s)
    assert s.utc_ns == 1796224280123456789


def test_arithmetic_returns_the_subclass_and_difference_an_int():
    class Sub(Stamp):
        pass

    s = Sub(100, 60)
    assert type(s + 1) is Sub and type(1 + s) is Sub and type(s - 1) is Sub
    assert type(s + US) is Sub
    assert (s + 1) == Stamp(101, 60) and Stamp(101, 60) == (s + 1)
    assert type(s - Stamp(1, 0)) is int and s - Stamp(1, 0) == 99
    assert Stamp(1, 0) - s == -99
