"""The contract's names, types and the Stamp type's behaviour."""
import copy
import pickle
import time

import pytest

import monostamp
from conftest import cpython_only
from monostamp import Clock, Policy, Stamp


def test_now_is_a_stamp_near_the_wall_clock():
    before = time.time_ns()
    s = monostamp.now()
    after = time.time_ns()
    assert type(s) is Stamp
    assert isinstance(s.utc_ns, int) and isinstance(s.offset, int)
    # The default policy may lead the source by a few ns, never by seconds.
    assert before - 10**9 < s.utc_ns < after + 10**9
    assert -86400 < s.offset < 86400


def test_now_and_time_ns_are_one_strictly_increasing_sequence():
    values = []
    for _ in range(1000):
        values.append(monostamp.now().utc_ns)
        values.append(monostamp.time_ns())
    assert values == sorted(values)
    assert len(set(values)) == len(values)
@cpython_only("the hot functions are the C extension's builtin functions")
def test_hot_functions_are_the_extensions_own():
    # No Python wrapper between the caller and the core.
    assert monostamp.now is monostamp._monostamp.now
    assert monostamp.time_ns is monostamp._monostamp.time_ns
    assert type(monostamp.now).__name__ == "builtin_function_or_method"


def test_stamp_unpacks_indexes_and_has_length_two():
    s = Stamp(1796224280123456789, 3600)
    utc_ns, offset = s
    assert (utc_ns, offset) == (1796224280123456789, 3600)
    assert tuple(s) == (1796224280123456789, 3600)
    assert len(s) == 2 and s[0] == utc_ns and s[1] == offset and s[-1] == offset
    with pytest.raises(IndexError):
        s[2]


def test_stamp_is_not_sliceable():
    # The stub promises an index only; a slice is refused, not half-served.
    with pytest.raises(TypeError):
        Stamp(1, 60)[0:1]


def test_types_cannot_be_changed():
    # Immutable heap types (Py_TPFLAGS_IMMUTABLETYPE), as built-in types are.
    with pytest.raises(TypeError):
        Stamp.isoformat = lambda self: "no"
    with pytest.raises(TypeError):
        Clock.x = 1
    with pytest.raises(TypeError):
        del Clock.now
    with pytest.raises(TypeError):  # Stamp may be subclassed: test_stamp_interop.py
        class Sub(Clock):  # noqa: F841
            pass
    assert Stamp(0, 0).isoformat() == "1970-01-01T00:00:00.000000000+00:00"


def test_stamp_is_immutable():
    s = Stamp(1, 60)
    with pytest.raises(AttributeError):
        s.utc_ns = 2
    with pytest.raises(AttributeError):
        s.offset = 0
    with pytest.raises(AttributeError):
        s.other = 0
    with pytest.raises(TypeError):
        s[0] = 5


def test_stamp_compares_and_hashes_by_utc_ns_then_offset():
    a, b, c = Stamp(1, 0), Stamp(1, 3600), Stamp(2, -3600)
    assert a < b < c and c > b > a and a <= a and a >= a
    assert sorted([c, b, a]) == [a, b, c]
    assert a != b and a == Stamp(1, 0)
    assert hash(a) == hash(Stamp(1, 0))
    assert len({a, b, c, Stamp(1, 0)}) == 3
    assert a != (1, 0) and (a == "x") is False
    with pytest.raises(TypeError):
        a < (1, 0)


def test_stamp_repr_evaluates_back_and_str_is_iso():
    s = Stamp(1796224280123456789, 3600)
    assert repr(s) == "monostamp.Stamp(utc_ns=1796224280123456789, offset=3600)"
    assert eval(repr(s), {"monostamp": monostamp}) == s
    assert str(s) == "2026-12-02T16:11:20.123456789+01:00"


def test_stamp_pickles_and_copies():
    s = Stamp(-5, -18000)
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(s, proto)) == s
    assert copy.copy(s) == s and copy.deepcopy(s) == s


def test_timestamp_is_float_seconds():
    assert Stamp(1500000000, 0).timestamp() == 1.5
    assert Stamp(-1500000000, 0).timestamp() == -1.5
    s = monostamp.now()
    assert abs(s.timestamp() - s.utc_ns / 1e9) < 1e-6


def test_clock_defaults_and_attributes():
    c = Clock()
    assert c.policy is Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
    assert c.source == "realtime" and c.zone is None and c.shared is None
    # The default bound: 1 s (0 must be asked for).
    assert c.max_lead_ns == 1_000_000_000 and c.on_lead == "wait"
    assert type(c.now()) is Stamp and isinstance(c.time_ns(), int)
    assert "monostamp.Clock(" in repr(c)
    c = Clock("acceptPlatformTime", source="realtime_coarse", zone="UTC",
              max_lead_ns=5, on_lead="error")
    assert c.policy is Policy.ACCEPT_PLATFORM_TIME
    assert (c.source, c.zone, c.max_lead_ns, c.on_lead) == ("realtime_coarse", "UTC", 5, "error")
    assert c.now().offset == 0


def test_clock_policy_is_settable_by_member_or_name():
    c = Clock(source="manual")
    c.policy = Policy.MONOTONIC_ALLOW_DUPLICATES
    assert c.policy is Policy.MONOTONIC_ALLOW_DUPLICATES
    c.policy = "monotonicForceMicrosecondIncrement"
    assert c.policy is Policy.MONOTONIC_FORCE_MICROSECOND_INCREMENT


def test_stats_are_the_cores_counters():
    c = Clock(source="manual", start_ns=100)
    for _ in range(3):
        c.now()
    st = c.stats()
    assert set(st) == {"readings", "backward_steps", "largest_backward_ns", "duplicates",
                       "forced_increments", "lead_ns", "max_lead_ns", "lead_waits",
                       "lead_errors"}
    assert st["readings"] == 3 and st["duplicates"] == 2 and st["forced_increments"] == 2
    assert st["lead_ns"] == 2


def test_policy_members():
    assert [p.value for p in Policy] == [
        "acceptPlatformTime", "monotonicAllowDuplicates",
        "monotonicForceMicrosecondIncrement", "monotonicForceNanosecondIncrement"]
    assert isinstance(Policy.ACCEPT_PLATFORM_TIME, str)
    assert Policy("acceptPlatformTime") is Policy.ACCEPT_PLATFORM_TIME
    assert str(Policy.ACCEPT_PLATFORM_TIME) == "acceptPlatformTime"


def test_policy_is_the_packages_own_and_pickles():
    # Made by monostamp/_policy.py of the extension's names (test_policy.py
    # has the rest); the extension has no class of its own to offer.
    assert Policy is monostamp._policy.Policy
    assert not hasattr(monostamp._monostamp, "Policy")
    assert Policy.__module__ == "monostamp" and Policy.__qualname__ == "Policy"
    assert format(Policy.MONOTONIC_ALLOW_DUPLICATES, ">25") == "monotonicAllowDuplicates".rjust(25)
    assert "%s" % Policy.ACCEPT_PLATFORM_TIME == "acceptPlatformTime"
    for p in Policy:
        assert pickle.loads(pickle.dumps(p)) is p
    assert Policy.__doc__.startswith("What a clock does")


def test_getters_return_policy_members_whatever_was_imported_first():
    # The extension imports the members on its first need, so no import
    # order can leave a getter returning a bare str.
    import subprocess
    import sys
    code = ("import importlib, sys\n"
            "ext = importlib.import_module('monostamp._monostamp')\n"
            "p = ext.get_policy(); q = ext.Clock(source='manual').policy\n"
            "print(type(p).__name__, type(q).__name__,\n"
            "      p is sys.modules['monostamp'].Policy(str(p)))\n")
    out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout.split()
    assert out == ["Policy", "Policy", "True"]


def test_get_and_set_policy_on_the_default_clock():
    old = monostamp.get_policy()
    assert old is Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
    try:
        monostamp.set_policy(Policy.MONOTONIC_ALLOW_DUPLICATES)
        assert monostamp.get_policy() is Policy.MONOTONIC_ALLOW_DUPLICATES
        monostamp.set_policy("monotonicForceMicrosecondIncrement")
        assert monostamp.get_policy() is Policy.MONOTONIC_FORCE_MICROSECOND_INCREMENT
        a, b = monostamp.time_ns(), monostamp.time_ns()
        assert a % 1000 == 0 and b % 1000 == 0 and b > a
    finally:
        monostamp.set_policy(old)
    assert monostamp.get_policy() is old


def test_the_module_functions_are_the_default_clock_s_methods():
    from monostamp import _monostamp
    default = _monostamp.default_clock
    assert type(default) is Clock
    assert repr(default).startswith("<monostamp default clock (policy='")
    assert (default.source, default.zone, default.on_lead) == ("realtime", None, "wait")
    # One clock: its stamps and the functions' interleave in one sequence,
    # and its policy is the one get_policy() and set_policy() see.
    a, b, c = monostamp.time_ns(), default.time_ns(), monostamp.now().utc_ns
    assert a < b < c
    before = default.stats()["readings"]
    monostamp.uuid7()
    assert default.stats()["readings"] == before + 1
    old = monostamp.get_policy()
    try:
        monostamp.set_policy("MONOTONIC_ALLOW_DUPLICATES")
        assert default.policy is Policy.MONOTONIC_ALLOW_DUPLICATES
        default.policy = "MONOTONIC_FORCE_MICROSECOND_INCREMENT"
        assert monostamp.get_policy() is Policy.MONOTONIC_FORCE_MICROSECOND_INCREMENT
    finally:
        monostamp.set_policy(old)
    # The default clock's errors name the module's functions.
    with pytest.raises(ValueError, match=r"^take\(\): n=0 "):
        default.take(0)


def test_clock_info():
    info = monostamp.clock_info("realtime")
    assert info.name == "realtime" and info.implementation
    assert info.resolution_ns >= 1 and info.resolution == info.resolution_ns * 1e-9
    assert info.adjustable is True and info.monotonic is False
    manual = monostamp.clock_info("manual")
    assert manual.name == "manual" and manual.adjustable
    assert monostamp.clock_info("realtime_coarse").resolution_ns >= info.resolution_ns


def test_zone_changed_is_callable():
    assert monostamp.zone_changed() is None


def test_monotonic_ns_and_sleep():
    t0 = monostamp.monotonic_ns()
    monostamp.sleep(0.002)
    t1 = monostamp.monotonic_ns()
    assert t1 - t0 >= 2_000_000  # never early; no upper bound (no timed asserts)
    monostamp.sleep_until_ns(t1 + 1_000_000, tolerance_ns=0)
    assert monostamp.monotonic_ns() >= t1 + 1_000_000
    monostamp.sleep(0)
    monostamp.sleep(1e-4, tolerance=1e-3)
    monostamp.sleep_until_ns(0)  # a past deadline returns at once


def test_sleep_releases_the_gil():
    # With the interpreter's forced switches put off, the ticker can tick
    # between the two len() calls only if monostamp.sleep lets the GIL go:
    # this thread gives it up nowhere else.  A sleep during which the ticker
    # got no CPU (a loaded machine) is tried again, rather than failed.
    import sys
    import threading
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.001)  # blocks, so this thread gets the GIL back
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    t = threading.Thread(target=tick)
    t.start()
    try:
        for _ in range(200):
            before = len(ticks)
            monostamp.sleep(0.05)
            during = len(ticks) - before
            if during > 1:
                break
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(switch)
    assert during > 1


def test_stub_and_marker_are_shipped():
    import os
    pkg = os.path.dirname(monostamp.__file__)
    assert os.path.exists(os.path.join(pkg, "py.typed"))
    assert os.path.exists(os.path.join(pkg, "__init__.pyi"))


@pytest.mark.parametrize("tolerance_ns", [0, 1_000, monostamp.DEFAULT_SLEEP_TOLERANCE_NS])
def test_many_short_sleeps_never_end_early(tolerance_ns):
    """Each sleep ends at or after its deadline, whatever the strategy the
    tolerance picks (spin, narrowed slack, plain kernel sleep)."""
    early = []
    for length_ns in [0, 1, 1_000, 20_000, 100_000] * 20:
        deadline = monostamp.monotonic_ns() + length_ns
        monostamp.sleep_until_ns(deadline, tolerance_ns=tolerance_ns)
        woke = monostamp.monotonic_ns()
        if woke < deadline:
            early.append((length_ns, deadline - woke))
        start = monostamp.monotonic_ns()
        monostamp.sleep(length_ns / 1e9, tolerance=tolerance_ns / 1e9)
        if monostamp.monotonic_ns() - start < length_ns:
            early.append((length_ns, "sleep()"))
    assert early == []
