"""Every policy on a manual clock: steps back, frozen time, the lead bound."""
import pytest

import monostamp
from conftest import read_vectors
from monostamp import Clock, LeadError, Policy

T0 = 1796224280123456789


def stamps(clock, readings):
    """The clock's stamp for each manual reading in turn."""
    out = []
    for r in readings:
        clock.set(r)
        out.append(clock.time_ns())
    return out


def policy_vectors():
    """tests/vectors/policies.tsv as pytest params: (policy name, readings,
    stamps), each with its line's `what` as the id."""
    return [pytest.param(policy, [int(r) for r in readings.split(",")],
                         [int(s) for s in expected.split(",")],
                         id="%s: %s" % (policy, what))
            for policy, readings, expected, what in read_vectors("policies.tsv")]


@pytest.mark.parametrize("policy, readings, expected", policy_vectors())
def test_policies_follow_the_shared_vectors(policy, readings, expected):
    c = Clock(policy, source="manual", start_ns=readings[0], zone="UTC")
    assert stamps(c, readings) == expected


def test_shared_vectors_cover_every_policy():
    assert {row[0] for row in read_vectors("policies.tsv")} == {p.value for p in Policy}


@pytest.mark.parametrize("policy", list(Policy))
def test_policy_names_are_accepted_as_strings(policy):
    c = Clock(policy.value, source="manual", start_ns=7)
    assert c.policy is policy


def test_backward_step_is_counted():
    c = Clock(source="manual", start_ns=T0)
    c.now()
    c.advance(-3000)
    s = c.now()
    assert s.utc_ns == T0 + 1
    st = c.stats()
    assert st["backward_steps"] == 1 and st["largest_backward_ns"] == 3000
    assert st["forced_increments"] == 1 and st["lead_ns"] == 3001


def test_frozen_source_gives_strictly_increasing_stamps():
    c = Clock(source="manual", start_ns=0)
    got = [c.time_ns() for _ in range(10000)]
    assert got == list(range(10000))


def test_changing_the_policy_keeps_the_sequence():
    c = Clock(Policy.ACCEPT_PLATFORM_TIME, source="manual", start_ns=T0)
    assert c.time_ns() == T0
    c.policy = Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
    assert c.time_ns() == T0
    assert c.time_ns() == T0 + 1


def test_lead_bound_errors_on_manual_clocks_and_leaves_state():
    c = Clock(source="manual", start_ns=T0, max_lead_ns=2)
    assert [c.time_ns() for _ in range(3)] == [T0, T0 + 1, T0 + 2]
    with pytest.raises(LeadError, match="max_lead_ns=2"):
        c.time_ns()
    with pytest.raises(LeadError):
        c.now()
    assert c.stats()["lead_errors"] == 2
    c.advance(10)
    assert c.time_ns() == T0 + 10  # nothing of the failed calls was kept
    assert issubclass(LeadError, RuntimeError)
    assert LeadError is monostamp._monostamp.LeadError


def coarse_here():
    """Whether realtime_coarse ticks coarsely on this machine: a thousand
    readings (some µs) see a few values.  Wine's GetSystemTimeAsFileTime
    moves every 100 ns as the precise clock does, so no stamp leads it."""
    c = Clock(source="realtime_coarse", policy="acceptPlatformTime")
    return len({c.time_ns() for _ in range(1000)}) < 100


NOT_COARSE = pytest.mark.skipif(not coarse_here(), reason="realtime_coarse is not coarse here "
                                "(under Wine it moves every 100 ns)")


@NOT_COARSE
def test_lead_bound_error_action_on_a_real_clock():
    c = Clock(source="realtime_coarse", max_lead_ns=1, on_lead="error")
    # The coarse clock ticks every few ms: stamps soon lead it by > 1 ns.
    with pytest.raises(LeadError):
        for _ in range(10**6):
            c.time_ns()


@NOT_COARSE
def test_lead_bound_wait_action_waits_for_the_source():
    c = Clock(source="realtime_coarse", max_lead_ns=1000, on_lead="wait")
    values = [c.time_ns() for _ in range(3000)]
    assert values == sorted(set(values))
    assert c.stats()["lead_waits"] > 0


def test_range_end_is_an_error_not_a_wrap():
    c = Clock(source="manual", start_ns=2**63 - 1)
    assert c.time_ns() == 2**63 - 1
    with pytest.raises(ValueError, match="int64"):
        c.time_ns()
    with pytest.raises(ValueError, match="advance"):
        c.advance(1)
    c.policy = Policy.MONOTONIC_ALLOW_DUPLICATES
    assert c.time_ns() == 2**63 - 1


def test_clocks_are_independent_of_the_default_clock():
    a = Clock(source="manual", start_ns=5)
    b = Clock(source="manual", start_ns=5)
    assert a.time_ns() == b.time_ns() == 5
