"""bool is an int subclass, and an API that takes a count of ns, seconds or
digits took True as 1 (monostamp.sleep(True) slept a
second, while take(True) raised TypeError).  Every int-taking argument
refuses True and False with TypeError naming the argument."""
import pytest

import monostamp
from monostamp import Clock, Stamp


def manual():
    return Clock(source="manual", start_ns=10**18)


CALLS = {
    "sleep(True)": lambda b: monostamp.sleep(b),
    "sleep(0, tolerance=True)": lambda b: monostamp.sleep(0, tolerance=b),
    "sleep_until_ns(True)": lambda b: monostamp.sleep_until_ns(b),
    "sleep_until_ns(0, tolerance_ns=True)": lambda b: monostamp.sleep_until_ns(0, tolerance_ns=b),
    "take(True)": lambda b: monostamp.take(b),
    "Clock().take(True)": lambda b: Clock().take(b),
    "Clock(max_lead_ns=True)": lambda b: Clock(max_lead_ns=b),
    "Clock(start_ns=True)": lambda b: Clock(source="manual", start_ns=b),
    "Clock.set(True)": lambda b: manual().set(b),
    "Clock.advance(True)": lambda b: manual().advance(b),
    "Clock.step_back(True)": lambda b: manual().step_back(b),
    "Stamp(True)": lambda b: Stamp(b),
    "Stamp(0, offset=True)": lambda b: Stamp(0, offset=b),
    "isoformat(digits=True)": lambda b: Stamp(0).isoformat(digits=b),
    "Stamp.fromtimestamp(True)": lambda b: Stamp.fromtimestamp(b),
}


@pytest.mark.parametrize("value", [True, False])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_bool_is_refused_where_an_int_is_taken(call, value):
    with pytest.raises(TypeError, match="bool"):
        CALLS[call](value)


@pytest.mark.parametrize("call", sorted(CALLS))
def test_the_same_calls_take_a_plain_int(call):
    # The refusal is of bool alone: 1 (0 for set, a small lead) still works
    # or fails for its value, never for its type.
    try:
        CALLS[call](0 if "take" not in call and "max_lead" not in call else 1)
    except TypeError as e:  # pragma: no cover - the failure this guards against
        pytest.fail("%s refused an int: %s" % (call, e))
    except (ValueError, OverflowError, monostamp.LeadError):
        pass
