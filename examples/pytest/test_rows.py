"""Code that calls the standard library, made unique by monostamp.patch().

The app below stamps its records with datetime.utcnow(), bound at import as
an ORM column default is: monostamp never appears in it.  The monostamp_patch
fixture makes those calls draw from the session's shared clock, so the rows
of every test, in every xdist worker, get distinct, increasing created_at
values.  `pytest --monostamp-patch` would do it for every test of the run.
"""
import sqlite3
from datetime import datetime

import pytest


class Row:
    """The app's record: created_at defaults to datetime.utcnow, as a column's would."""

    default = datetime.utcnow  # taken at import, before any patch: still reached

    def __init__(self, name):
        self.name = name
        self.created_at = self.default()


def save(rows):
    db = sqlite3.connect(":memory:")
    db.execute("create table rows (name text, created_at text)")
    db.executemany("insert into rows values (?, ?)",
                   [(r.name, r.created_at.isoformat(" ")) for r in rows])
    return [t for (t,) in db.execute("select created_at from rows order by rowid")]


@pytest.mark.parametrize("batch", range(2))
def test_rows_added_in_a_loop_get_distinct_times(monostamp_patch, batch):
    created = save([Row("row {}".format(i)) for i in range(5000)])
    # Unpatched, a quarter or more of these repeat the one before.
    assert len(set(created)) == len(created) and created == sorted(created)


@pytest.mark.monostamp(start="2026-03-29T00:59:59Z", zone="Europe/Berlin", patch=True)
def test_local_time_across_the_dst_change(manual_clock):
    assert datetime.now().replace(microsecond=0) == datetime(2026, 3, 29, 1, 59, 59)
    manual_clock.advance(1_000_000_000)
    assert datetime.now().replace(microsecond=0) == datetime(2026, 3, 29, 3, 0, 0)
