"""The core against the machine's own tz database, with zoneinfo as oracle.

The rest of the suite reads named zones from the pinned copy the vectors were
computed from (conftest.py).  Here the core opens every zone the vectors name
from the machine's database (TZDIR as the machine has it, else the core's
default), and zoneinfo reads the very same file: they must agree on the first
of every month from 1900 to 2100, one second either side of every change
zoneinfo shows there, and at every instant the vectors name.  No offset is
written here, so a newer tzdata changes both sides alike.  (C does the same
for every zone of the machine against glibc: tests/c/test_zone_all.c.)
"""
import datetime as dt
import re
import zoneinfo

import pytest

from monostamp import Clock, Policy
from conftest import PINNED_ZONES, machine_zones, read_vectors

S = 10**9
FIRST_OF_MONTHS = [int(dt.datetime(y, m, 1, tzinfo=dt.timezone.utc).timestamp())
                   for y in range(1900, 2101) for m in range(1, 13)]
IANA_NAME = re.compile(r"^[A-Z][A-Za-z_+-]*(/[A-Za-z_+-]+)+$")
# Whole seconds whose neighbours are int64 ns too (years 1677 to 2262).
INT64_S = range(-(2**63 // S) + 1, 2**63 // S - 1)


def vector_instants():
    """{zone name: set of whole seconds} over the vectors' named zones."""
    found = {}
    for name in ("zone_offsets.tsv", "iso8601.tsv"):
        for row in read_vectors(name):
            if IANA_NAME.match(row[1]) and int(row[0]) // S in INT64_S:
                found.setdefault(row[1], set()).add(int(row[0]) // S)
    return found


VECTOR_INSTANTS = vector_instants()


UTC_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def oracle_offset(tz, t):
    """zoneinfo's offset at second t, in seconds: fromtimestamp(t, tz), by
    arithmetic from the epoch (Windows' fromtimestamp refuses t < 0)."""
    utc = UTC_EPOCH + dt.timedelta(seconds=t)
    return utc.astimezone(tz).utcoffset() // dt.timedelta(seconds=1)


def changes(tz, instants):
    """Each first second of a new offset between consecutive instants
    (one change at most between two firsts of a month), by bisection."""
    found = []
    for a, b in zip(instants, instants[1:]):
        if oracle_offset(tz, a) == oracle_offset(tz, b):
            continue
        lo, hi = a, b  # offset(lo) != offset(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if oracle_offset(tz, mid) == oracle_offset(tz, lo):
                lo = mid
            else:
                hi = mid
        found.append(hi)
    return found


def test_the_vectors_name_zones():
    assert len(VECTOR_INSTANTS) >= 15, sorted(VECTOR_INSTANTS)


@pytest.mark.parametrize("name", sorted(VECTOR_INSTANTS))
def test_the_core_reads_the_machines_zone_as_zoneinfo_does(name):
    with machine_zones() as folder:
        if folder.resolve() == PINNED_ZONES.resolve():
            pytest.skip("TZDIR names the pinned copy, not the machine's database")
        path = folder / name
        if not path.is_file():
            pytest.skip("%s: not in this machine's tz database" % path)
        with open(path, "rb") as f:
            tz = zoneinfo.ZoneInfo.from_file(f, key=name)
        clock = Clock(Policy.ACCEPT_PLATFORM_TIME, source="manual", zone=name, start_ns=0)
    instants = set(FIRST_OF_MONTHS) | VECTOR_INSTANTS[name]
    for t in changes(tz, FIRST_OF_MONTHS):
        instants |= {t - 1, t}
    checked = sorted({u + d for u in instants for d in (-1, 0, 1)})
    wrong = []
    for t in checked:
        clock.set(t * S)
        got, want = clock.now().offset, oracle_offset(tz, t)
        if got != want:
            wrong.append((t, got, want))
    assert not wrong, "%s (%s): %d of %d instants differ, first (t, core, zoneinfo): %s" % (
        name, path, len(wrong), len(checked), wrong[:5])
