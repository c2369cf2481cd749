"""A million calls leave the process's memory flat.

tracemalloc cannot see C allocations, so this reads the resident set from
/proc/self/statm before and after, once a warm-up has filled the caches.
"""
import gc
import os

import pytest

import monostamp
from monostamp import Clock, Stamp
from conftest import scaled

STATM = "/proc/self/statm"


def rss_bytes():
    with open(STATM) as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def exercise(n, clock, manual, text):
    for _ in range(n):
        s = monostamp.now()
        monostamp.time_ns()
        s.isoformat()
        a, b = s
        hash(s)
        Stamp.fromisoformat(text)
        clock.now()
        manual.advance(-1)
        manual.now()
        try:
            Stamp.fromisoformat("bad")
        except ValueError:
            pass
        try:
            clock.set(1)
        except ValueError:
            pass


@pytest.mark.heavy
@pytest.mark.skipif(not os.path.exists(STATM) or os.name != "posix",
                    reason="needs /proc/self/statm and os.sysconf")
def test_a_million_calls_leave_memory_flat():
    clock = Clock(zone="UTC")
    manual = Clock(source="manual", start_ns=0)
    text = monostamp.now().isoformat()
    exercise(20_000, clock, manual, text)  # warm-up: caches, free lists
    for _ in range(50):
        Clock(source="manual", start_ns=1).now()
    gc.collect()
    before = rss_bytes()
    n = scaled(1_000_000 // 10, 1000)  # each round makes ~10 calls
    exercise(n, clock, manual, text)
    for _ in range(scaled(10_000, 100)):
        Clock(source="manual", start_ns=1).stats()
    gc.collect()
    grown = rss_bytes() - before
    # A leak of even 16 bytes a call would be 16 MB; allow 4 MB of noise.
    assert grown < 4 * 1024 * 1024, "RSS grew by %d bytes" % grown
