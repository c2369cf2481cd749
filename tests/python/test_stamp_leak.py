"""Stamp's datetime API, a million calls, memory flat: every new path, the
error paths too.  The resident set is read as test_leak.py reads
it: tracemalloc cannot see C allocations.
"""
import datetime as dt
import gc
import os
import zoneinfo

import pytest

from monostamp import Stamp
from conftest import scaled
from test_leak import STATM, rss_bytes


class Sub(Stamp):
    pass


class Micro(dt.tzinfo):
    def utcoffset(self, d):
        return dt.timedelta(seconds=1, microseconds=5)

    def dst(self, d):
        return dt.timedelta(0)


def exercise(n):
    s = Stamp(1796224280123456789, 3600)
    sub = Sub(1796224280123456789, -3600)
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    naive = dt.datetime(2026, 1, 1)
    aware = s.datetime()
    zoned = aware.astimezone(berlin)
    delta = dt.timedelta(seconds=1)
    micro = Micro()
    for i in range(n):
        s.datetime()
        Stamp.fromdatetime(aware)
        Stamp.fromdatetime(zoned)
        Stamp.fromtimestamp(1796224280.5, "UTC")
        Stamp.fromtimestamp(i)
        s.astimezone("Asia/Kathmandu")
        s.astimezone(berlin)
        s.astimezone(dt.timezone(dt.timedelta(seconds=i % 7200)))
        s + i
        s - delta
        s - sub
        sub + 1
        s.isoformat(timespec="minutes", sep=" ")
        for bad in (lambda: Stamp.fromdatetime(naive), lambda: s.astimezone("No/Where"),
                    lambda: s.astimezone(micro), lambda: s + 1.5,
                    lambda: Stamp(2**63 - 1) + 1, lambda: s.isoformat(timespec="x")):
            try:
                bad()
            except (TypeError, ValueError, OverflowError):
                pass


@pytest.mark.heavy
@pytest.mark.skipif(not os.path.exists(STATM) or os.name != "posix",
                    reason="needs /proc/self/statm and os.sysconf")
def test_a_million_stamp_conversions_leave_memory_flat():
    exercise(10_000)  # warm-up: the caches (offsets, zones) fill here
    gc.collect()
    before = rss_bytes()
    exercise(scaled(1_000_000 // 20, 500))  # each round makes ~20 calls
    gc.collect()
    grown = rss_bytes() - before
    # A leak of even 16 bytes a call would be 16 MB; allow 4 MB of noise.
    assert grown < 4 * 1024 * 1024, "RSS grew by %d bytes" % grown
