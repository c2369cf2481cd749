"""Patched local time as the standard library gives it: the fold of the
repeated hour, and time.tzset() taking effect at once.

Zones come from the pinned copy (conftest sets TZDIR), so TZ names below
mean the same on every machine.
"""
import datetime
import os
import time
from datetime import datetime as DT
from datetime import timezone

import pytest

import monostamp
from monostamp import Clock, Policy

STRICT = Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
# 2026-11-01: New York falls back at 06:00Z (02:00 EDT -> 01:00 EST), so
# local 01:00-02:00 happens twice: 05:00-06:00Z (fold=0), 06:00-07:00Z (fold=1).
NY_FALL_BACK_S = 1793512800


# Every test here sets TZ and calls time.tzset(), which Windows' time lacks.
pytestmark = pytest.mark.skipif(not hasattr(time, "tzset"),
                                reason="POSIX only: time.tzset()")


@pytest.fixture
def tz(monkeypatch):
    """set(name): TZ=name and time.tzset(), undone after the test."""
    def set_tz(name):
        monkeypatch.setenv("TZ", name)
        time.tzset()
    yield set_tz
    monkeypatch.undo()
    time.tzset()


def manual_at(s, zone=None):
    return Clock(STRICT, source="manual", zone=zone, start_ns=s * 10**9, max_lead_ns=0)


@pytest.mark.parametrize("zone", [None, "America/New_York"])
def test_naive_now_has_the_stdlibs_fold_in_the_repeated_hour(tz, zone):
    """The issue's instant, 2026-11-01T06:30Z, and the hours around it: the
    fold and the wall time are those of datetime.fromtimestamp(), and so
    .timestamp() gives the instant back (3,600 s off without the fold)."""
    tz("America/New_York")  # the local zone (zone=None) and the oracle's
    for s in range(NY_FALL_BACK_S - 2 * 3600, NY_FALL_BACK_S + 2 * 3600, 600):
        clock = manual_at(s, zone)
        with monostamp.patch(clock):
            now, today = DT.now(), DT.today()
        expected = DT.fromtimestamp(s)
        assert (now.replace(microsecond=0), now.fold) == (expected, expected.fold), s
        assert today.fold == expected.fold, s
        assert now.timestamp() == pytest.approx(s, abs=1e-3), s
    clock = manual_at(NY_FALL_BACK_S + 1800, zone)  # 06:30Z
    with monostamp.patch(clock):
        now = DT.now()
    assert (now.hour, now.minute, now.fold) == (1, 30, 1)


def test_the_fold_follows_a_manual_clock_moved_across_the_change(tz):
    tz("America/New_York")
    clock = manual_at(NY_FALL_BACK_S - 1800)  # 05:30Z: the first 01:30
    with monostamp.patch(clock):
        first = DT.now()
        clock.advance(3600 * 10**9)
        second = DT.now()
        clock.advance(3600 * 10**9)
        after = DT.now()
    assert (first.hour, first.minute, first.fold) == (1, 30, 0)
    assert (second.hour, second.minute, second.fold) == (1, 30, 1)
    assert (after.hour, after.fold) == (2, 0)
    assert second.timestamp() - first.timestamp() == pytest.approx(3600, abs=1e-3)


def test_aware_now_and_zones_without_a_fold_are_untouched(tz):
    tz("Europe/Berlin")
    with monostamp.patch(manual_at(NY_FALL_BACK_S + 1800)):
        assert DT.now().fold == 0
        assert DT.now(timezone.utc).fold == 0
    with monostamp.patch(manual_at(NY_FALL_BACK_S + 1800, "UTC")):
        assert DT.now().fold == 0


@pytest.mark.parametrize("clock", ["default", "Clock"])
def test_tzset_takes_effect_at_once(tz, clock):
    """monkeypatch.setenv("TZ", ...); time.tzset(): the next patched now()
    and today() show the new zone, as time.localtime() does (without the
    tzset wrapper the zone engine noticed within a second)."""
    with monostamp.patch(None if clock == "default" else Clock(STRICT)):
        tz("UTC")  # patched too: an earlier test's zone may linger otherwise
        utc = DT.now(timezone.utc)
        assert abs(DT.now() - utc.replace(tzinfo=None)) < datetime.timedelta(seconds=5)
        tz("Asia/Tokyo")
        now, today, aware = DT.now(), datetime.date.today(), DT.now(timezone.utc)
        assert time.localtime().tm_gmtoff == 9 * 3600
    shifted = aware.replace(tzinfo=None) + datetime.timedelta(hours=9)
    assert abs(now - shifted) < datetime.timedelta(seconds=5)
    assert today == shifted.date() or today == (shifted - datetime.timedelta(seconds=5)).date()


def test_tzset_is_the_real_one_again_after_stop(tz):
    real_tzset = time.tzset
    with monostamp.patch():
        tz("Asia/Tokyo")
    assert time.tzset is real_tzset
    tz("America/New_York")
    assert time.localtime().tm_gmtoff in (-4 * 3600, -5 * 3600)
    assert os.environ["TZ"] == "America/New_York"
