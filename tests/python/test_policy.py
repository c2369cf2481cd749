"""monostamp.Policy: a str subclass with an enum's interface, made of the
core's names without importing enum (docs/python.md)."""
import copy
import enum
import os
import pickle
import subprocess
import sys

import pytest

import monostamp
from conftest import SUBINTERPRETERS, cpython_only
from monostamp import Clock, Policy

SQUEAK = [
    ("ACCEPT_PLATFORM_TIME", "acceptPlatformTime"),
    ("MONOTONIC_ALLOW_DUPLICATES", "monotonicAllowDuplicates"),
    ("MONOTONIC_FORCE_MICROSECOND_INCREMENT", "monotonicForceMicrosecondIncrement"),
    ("MONOTONIC_FORCE_NANOSECOND_INCREMENT", "monotonicForceNanosecondIncrement"),
]


def run_python(code, *options):
    """The stdout lines of `code` run in a fresh interpreter."""
    done = subprocess.run([sys.executable, *options, "-c", code], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_members_are_the_cores_names_in_its_order():
    assert [(p.name, p.value) for p in Policy] == SQUEAK
    # Made from the extension's pairs, which the core gives.
    assert list(monostamp._monostamp._POLICIES) == SQUEAK
    assert len(Policy) == 4 and bool(Policy)
    assert list(reversed(Policy)) == list(Policy)[::-1]
    for name, value in SQUEAK:
        member = getattr(Policy, name)
        assert type(member) is Policy and isinstance(member, str)
        assert member.name == name and member.value == value and type(member.value) is str


def test_policy_is_no_enum():
    # Not an enum.Enum (importing enum costs more than all of monostamp).
    assert not isinstance(Policy.ACCEPT_PLATFORM_TIME, enum.Enum)
    assert not issubclass(Policy, enum.Enum)
    assert Policy.__module__ == "monostamp" and Policy.__qualname__ == "Policy"
    assert Policy.__doc__.startswith("What a clock does")


def test_lookup_by_value():
    for name, value in SQUEAK:
        assert Policy(value) is getattr(Policy, name)
        assert Policy(getattr(Policy, name)) is getattr(Policy, name)
    # Its __new__ is the same lookup: no way round it to a fresh instance.
    assert Policy.__new__(Policy, "acceptPlatformTime") is Policy.ACCEPT_PLATFORM_TIME


@pytest.mark.parametrize("bad", ["acceptplatformtime", "", 5, None, ["acceptPlatformTime"]])
def test_lookup_by_a_bad_value_names_it_and_the_good_ones(bad):
    with pytest.raises(ValueError) as info:
        Policy(bad)
    message = str(info.value)
    assert message.startswith("Policy(): value=%r must be one of " % (bad,)), message
    for _, value in SQUEAK:
        assert repr(value) in message
    assert message.isascii()


def test_lookup_by_a_member_name_says_how_to_look_it_up():
    with pytest.raises(ValueError, match=r"Policy\['MONOTONIC_ALLOW_DUPLICATES'\] looks a member"):
        Policy("MONOTONIC_ALLOW_DUPLICATES")


def test_lookup_by_name():
    for name, _ in SQUEAK:
        assert Policy[name] is getattr(Policy, name)
    with pytest.raises(KeyError, match="monotonicAllowDuplicates"):
        Policy["monotonicAllowDuplicates"]


def test_members_mapping():
    members = Policy.__members__
    assert list(members) == [name for name, _ in SQUEAK]
    assert list(members.values()) == list(Policy)
    with pytest.raises(TypeError):
        members["OTHER"] = Policy.ACCEPT_PLATFORM_TIME
    assert len(Policy.__members__) == 4


def test_containment():
    assert Policy.ACCEPT_PLATFORM_TIME in Policy
    assert "monotonicAllowDuplicates" in Policy
    assert "MONOTONIC_ALLOW_DUPLICATES" not in Policy and "other" not in Policy
    assert 5 not in Policy and [] not in Policy


def test_str_and_format_give_the_value_repr_is_an_enums():
    p = Policy.MONOTONIC_ALLOW_DUPLICATES
    assert str(p) == "monotonicAllowDuplicates" and type(str(p)) is str
    assert format(p) == "monotonicAllowDuplicates"
    assert format(p, ">26") == "monotonicAllowDuplicates".rjust(26)
    assert f"{p}" == "%s" % p == "{}".format(p) == "monotonicAllowDuplicates"
    assert repr(p) == "<Policy.MONOTONIC_ALLOW_DUPLICATES: 'monotonicAllowDuplicates'>"
    for name, value in SQUEAK:
        assert repr(Policy[name]) == "<Policy.%s: %r>" % (name, value)


def test_equality_and_hash_are_the_strs():
    for name, value in SQUEAK:
        member = Policy[name]
        assert member == value and value == member and not member != value
        assert hash(member) == hash(value)
        assert {value: 1}[member] == 1 and {member: 2}[value] == 2
    assert Policy.ACCEPT_PLATFORM_TIME != Policy.MONOTONIC_ALLOW_DUPLICATES
    assert Policy.ACCEPT_PLATFORM_TIME != "ACCEPT_PLATFORM_TIME"
    assert sorted(Policy) == sorted(value for _, value in SQUEAK)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickles_to_the_same_member(protocol):
    for p in Policy:
        data = pickle.dumps(p, protocol)
        assert pickle.loads(data) is p
    # Inside a container too, and by the public name.
    assert pickle.loads(pickle.dumps([Policy.ACCEPT_PLATFORM_TIME], protocol))[0] \
        is Policy.ACCEPT_PLATFORM_TIME
    assert b"monostamp" in pickle.dumps(Policy.ACCEPT_PLATFORM_TIME, protocol)


def test_copies_are_the_member():
    for p in Policy:
        assert copy.copy(p) is p and copy.deepcopy(p) is p
    assert copy.deepcopy({"p": Policy.ACCEPT_PLATFORM_TIME})["p"] is Policy.ACCEPT_PLATFORM_TIME


def test_members_are_immutable():
    p = Policy.ACCEPT_PLATFORM_TIME
    with pytest.raises(AttributeError):
        p.note = "x"
    with pytest.raises(AttributeError):
        p.name = "OTHER"
    with pytest.raises(AttributeError):
        p.value = "other"
    assert not hasattr(p, "__dict__")
    with pytest.raises(AttributeError, match="cannot reassign member 'ACCEPT_PLATFORM_TIME'"):
        Policy.ACCEPT_PLATFORM_TIME = "other"
    with pytest.raises(AttributeError, match="cannot delete member 'ACCEPT_PLATFORM_TIME'"):
        del Policy.ACCEPT_PLATFORM_TIME
    assert Policy.ACCEPT_PLATFORM_TIME is p and p.name == "ACCEPT_PLATFORM_TIME"
    assert Policy["ACCEPT_PLATFORM_TIME"] is p


def test_no_other_instance_can_be_made():
    with pytest.raises(TypeError, match="cannot be subclassed"):
        class Mine(Policy):  # noqa: F841
            pass
    with pytest.raises(TypeError):
        Policy()
    with pytest.raises(ValueError):
        Policy.__new__(Policy, "other")
    # Whatever went before, the members are still all there is.
    assert list(Policy) == [Policy[name] for name, _ in SQUEAK]


def test_getters_return_members_and_setters_take_members_or_str():
    old = monostamp.get_policy()
    assert type(old) is Policy and old is Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
    try:
        for p in Policy:
            monostamp.set_policy(p)
            assert monostamp.get_policy() is p
            monostamp.set_policy(str(p))
            assert monostamp.get_policy() is p
    finally:
        monostamp.set_policy(old)
    for p in Policy:
        c = Clock(policy=p, source="manual")
        assert c.policy is p
        c = Clock(policy=p.value, source="manual")
        assert c.policy is p
        c.policy = Policy.ACCEPT_PLATFORM_TIME
        assert c.policy is Policy.ACCEPT_PLATFORM_TIME


def test_import_does_not_import_enum():
    # The reason Policy is no enum.Enum.  Without site (-S), whose .pth
    # files may import enum themselves, and the package found by path.
    site = os.path.dirname(os.path.dirname(monostamp.__file__))
    out = run_python("import sys\n"
                     "before = 'enum' in sys.modules\n"
                     "sys.path.insert(0, %r)\n"
                     "import monostamp\n"
                     "policy = monostamp.get_policy()\n"
                     "print(before, 'enum' in sys.modules, type(policy).__name__)\n" % site, "-S")
    assert out == ["False", "False", "Policy"]


def test_first_use_from_many_threads_gives_one_set_of_members():
    # The extension caches the members on first need; threads racing to it
    # all get the same objects.
    code = ("import threading\n"
            "import monostamp\n"
            "n = 8\n"
            "barrier = threading.Barrier(n)\n"
            "got = []\n"
            "def draw():\n"
            "    barrier.wait(timeout=60)\n"
            "    got.append(monostamp.Clock(source='manual').policy)\n"
            "threads = [threading.Thread(target=draw) for _ in range(n)]\n"
            "for t in threads: t.start()\n"
            "for t in threads: t.join(timeout=60)\n"
            "print(len(got), all(p is monostamp.Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT"
            " for p in got))\n")
    assert run_python(code) == ["8", "True"]
@cpython_only("the C extension's check of _policy._MEMBERS against the core")
def test_the_extension_refuses_members_out_of_the_cores_order():
    # The extension checks what _policy made against the core's names
    # before handing members out.
    code = ("import monostamp\n"
            "monostamp._policy._MEMBERS = monostamp._policy._MEMBERS[::-1]\n"
            "try:\n"
            "    monostamp.get_policy()\n"
            "except SystemError as e:\n"
            "    print('SystemError', 'order' in str(e))\n")
    assert run_python(code) == ["SystemError", "True"]
@cpython_only(SUBINTERPRETERS)
def test_a_subinterpreter_gets_members_of_its_own(tmp_path):
    # The members are cached in the module's state, one per interpreter:
    # a subinterpreter's getters return its own Policy's members.
    _testcapi = pytest.importorskip("_testcapi")
    out = tmp_path / "out"
    code = """if 1:
        import monostamp
        p = monostamp.get_policy()
        c = monostamp.Clock(policy=monostamp.Policy.ACCEPT_PLATFORM_TIME, source="manual")
        open(%r, "w").write("%%s %%s %%d" %% (
            p is monostamp.Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT,
            c.policy is monostamp.Policy.ACCEPT_PLATFORM_TIME, id(monostamp.Policy)))
    """ % str(out)
    assert _testcapi.run_in_subinterp(code) == 0
    same_p, same_c, policy_id = out.read_text().split()
    assert (same_p, same_c) == ("True", "True")
    assert int(policy_id) != id(Policy)
    assert monostamp.get_policy() is Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
