"""A small suite using monostamp's pytest fixtures; run it with `pytest -n 2`.

monostamp_clock: stamps unique across every test and every xdist worker, so
records written by parallel tests to one database never collide.
manual_clock: a clock the test moves by hand, for code that takes a clock.
"""
import pytest

import monostamp


class Order:
    def __init__(self, clock, item):
        self.item = item
        self.created = clock.now()  # code under test takes a clock


@pytest.mark.parametrize("batch", range(4))
def test_orders_created_in_a_loop_get_distinct_ordered_times(monostamp_clock, batch):
    orders = [Order(monostamp_clock, "item {}".format(i)) for i in range(1000)]
    times = [o.created for o in orders]
    assert times == sorted(times)
    assert len(set(times)) == len(times)


def test_manual_clock_starts_in_2000(manual_clock):
    assert manual_clock.now().isoformat() == "2000-01-01T00:00:00.000000000+00:00"


@pytest.mark.monostamp(start="2026-03-29T00:59:59Z", zone="Europe/Berlin")
def test_order_across_the_dst_change(manual_clock):
    before = Order(manual_clock, "a").created
    manual_clock.advance(1_000_000_000)
    after = Order(manual_clock, "b").created
    assert before.isoformat(digits=0) == "2026-03-29T01:59:59+01:00"
    assert after.isoformat(digits=0) == "2026-03-29T03:00:00+02:00"


def test_a_clock_stepping_back_still_orders_records(manual_clock):
    first = Order(manual_clock, "a").created
    manual_clock.step_back(5_000_000_000)  # NTP stepped the wall clock back 5 s
    second = Order(manual_clock, "b").created
    assert second.utc_ns == first.utc_ns + 1
