"""Bad arguments: TypeError for a wrong type, ValueError naming the value,
and no clock left in a wrong state."""
import errno
import os

import pytest

import monostamp
from monostamp import Clock, Stamp
from conftest import WINDOWS, shown

POLICIES = ", ".join(repr(p.value) for p in monostamp.Policy)


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"policy": "foo"}, ValueError, "policy='foo' must be one of 'acceptPlatformTime'"),
    ({"policy": 3}, TypeError, "policy must be a Policy or str, not int"),
    ({"policy": None}, TypeError, "policy must be a Policy or str, not NoneType"),
    ({"source": "sundial"}, ValueError, "source='sundial' must be one of 'realtime'"),
    ({"source": b"realtime"}, TypeError, "source must be str, not bytes"),
    ({"zone": "Mars/Olympus_Mons"}, ValueError, "Mars/Olympus_Mons"),
    ({"zone": "x" * 300}, ValueError, "zone"),
    ({"zone": "UTC\0"}, ValueError, "NUL"),
    ({"zone": 5}, TypeError, "zone must be a zone name \\(str\\), a zoneinfo.ZoneInfo"),
    ({"max_lead_ns": -1}, ValueError, "max_lead_ns=-1 must be >= 0"),
    ({"max_lead_ns": 1.5}, TypeError, "max_lead_ns must be int, not float"),
    ({"max_lead_ns": 2**64}, ValueError, "max_lead_ns=18446744073709551616"),
    ({"on_lead": "panic"}, ValueError, "on_lead='panic' must be one of 'wait', 'error'"),
    ({"on_lead": 1}, TypeError, "on_lead must be str"),
    ({"start_ns": 5}, ValueError, "start_ns=5 is only for the manual source"),
    ({"source": "manual", "start_ns": "5"}, TypeError, "start_ns must be int"),
    ({"source": "manual", "start_ns": -2**63 - 1}, ValueError, "out of range"),
    ({"shared": 5}, TypeError, "shared must be str, bytes or os.PathLike, not int"),
    ({"shared": "run\0.state"}, ValueError, r"shared has a NUL character at byte 4"),
    ({"trust_group": "no"}, TypeError, "trust_group must be bool, not str"),
    ({"trust_group": 1}, TypeError, "trust_group must be bool, not int"),
    ({"bogus": 1}, TypeError, "bogus"),
])
def test_clock_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Clock(**kwargs)


@pytest.mark.parametrize("kwargs, message", [
    # The core's options check names the one bad field; the message names
    # that argument and its value, then the core's rule for it.
    ({"max_lead_ns": -1}, "Clock(): max_lead_ns=-1 must be >= 0"),
    ({"start_ns": 5, "source": "realtime_coarse"},
     "Clock(): start_ns=5 is only for the manual source"),
    ({"zone": "x" * 300},
     # The core's sentence, as Lua's: a long text cut short, with its length.
     "Clock(): zone='%s...' (300 bytes) must be a zone name of at most 255 bytes" % ("x" * 40)),
    ({"zone": "Mars/Olympus_Mons"},
     "Clock(): zone='Mars/Olympus_Mons' is not a zone this machine knows -- give 'UTC', "
     "an IANA name such as 'Europe/Berlin' (from TZDIR, else the system's database) or a "
     "POSIX TZ string such as 'CET-1CEST,M3.5.0,M10.5.0/3'"),
    # The names listed are the core's, whole: nothing of the core's generic
    # reason (": invalid argument") trails them.
    ({"policy": "foo"}, "Clock(): policy='foo' must be one of %s" % POLICIES),
    ({"source": "sundial"},
     "Clock(): source='sundial' must be one of 'realtime', 'realtime_coarse', 'manual'"),
    ({"on_lead": "panic"}, "Clock(): on_lead='panic' must be one of 'wait', 'error'"),
])
def test_clock_value_errors_name_one_argument(kwargs, message):
    with pytest.raises(ValueError) as info:
        Clock(**kwargs)
    text = str(info.value)
    if message.endswith(": "):  # then the core's reason follows
        assert text.startswith(message) and len(text) > len(message), text
    else:
        assert text == message
    for other in ("max_lead_ns", "start_ns", "zone"):
        if other not in kwargs:
            assert other not in text, text


def test_clock_keyword_only_after_policy():
    with pytest.raises(TypeError):
        Clock("acceptPlatformTime", "manual")


def test_set_and_advance_need_a_manual_clock():
    c = Clock()
    with pytest.raises(ValueError) as info:
        c.set(5)
    assert str(info.value) == ("Clock.set(): set needs a clock with source 'manual', this one's "
                               "is 'realtime' -- make the clock with source='manual'")
    with pytest.raises(ValueError, match="Clock.advance\\(\\): advance needs a clock"):
        c.advance(5)
    c.now()


def test_manual_arguments():
    c = Clock(source="manual", start_ns=10)
    with pytest.raises(TypeError, match="Clock.set\\(\\): ns must be int nanoseconds since the "
                                        "epoch, an aware datetime or a Stamp, not float"):
        c.set(1.0)
    with pytest.raises(ValueError, match="out of range"):
        c.set(2**63)
    with pytest.raises(TypeError):
        c.advance("1")
    c.set(2**63 - 1)
    with pytest.raises(ValueError, match="Clock.advance\\(\\): ns=1 would move the reading past"):
        c.advance(1)
    assert c.time_ns() == 2**63 - 1  # the failed advance left the reading


def test_policy_arguments_leave_the_policy():
    c = Clock(source="manual")
    before = c.policy
    with pytest.raises(ValueError, match="^Clock.policy='nope' must be one of"):
        c.policy = "nope"
    with pytest.raises(TypeError):
        c.policy = 1
    with pytest.raises((AttributeError, TypeError)):
        del c.policy
    assert c.policy is before
    old = monostamp.get_policy()
    with pytest.raises(ValueError, match="^set_policy\\(\\): policy='foo' must be one of"):
        monostamp.set_policy("foo")
    with pytest.raises(TypeError):
        monostamp.set_policy(None)
    assert monostamp.get_policy() is old


def test_read_only_attributes():
    c = Clock()
    for name in ("source", "zone", "shared", "max_lead_ns", "on_lead"):
        with pytest.raises(AttributeError):
            setattr(c, name, None)


def test_stamp_constructor():
    with pytest.raises(TypeError):
        Stamp()
    with pytest.raises(TypeError, match="utc_ns must be int"):
        Stamp(1.0)
    with pytest.raises(TypeError, match="offset must be int"):
        Stamp(1, "0")
    with pytest.raises(ValueError, match="offset=86400"):
        Stamp(1, 86400)
    with pytest.raises(ValueError, match="utc_ns=.*out of range"):
        Stamp(2**63)
    assert Stamp(utc_ns=1, offset=-86399).offset == -86399


def test_isoformat_arguments():
    s = Stamp(0, 0)
    with pytest.raises(ValueError, match="digits=10"):
        s.isoformat(10)
    with pytest.raises(ValueError, match="digits=-1"):
        s.isoformat(digits=-1)
    with pytest.raises(TypeError):
        s.isoformat("3")
    with pytest.raises(TypeError):
        s.isoformat(bogus=1)
    # Offsets the text cannot carry (seconds) are refused, naming the stamp.
    with pytest.raises(ValueError, match="offset=-2670"):
        Stamp(0, -2670).isoformat()


@pytest.mark.parametrize("text, pos", [
    ("2026-12-02T15:11:20", 19),
    ("2026-12-02X15:11:20Z", 10),
    ("", 0),
    ("2026-12-02T15:11:20Z ", 20),
    ("2026-12-02T15:11:20.1234567890Z", 29),
])
def test_fromisoformat_names_position_and_reason(text, pos):
    with pytest.raises(ValueError) as info:
        Stamp.fromisoformat(text)
    msg = str(info.value)
    # The core's sentence: the 1-based character, as every binding says it.
    assert repr(text) in msg and ("at character %d:" % (pos + 1)) in msg, msg


def test_fromisoformat_position_counts_characters():
    with pytest.raises(ValueError, match="at character 11:"):
        Stamp.fromisoformat("2026-12-02\u00e915:11:20Z")


def test_fromisoformat_types():
    with pytest.raises(TypeError, match="text must be str, not bytes"):
        Stamp.fromisoformat(b"2026-12-02T15:11:20Z")
    with pytest.raises(TypeError):
        Stamp.fromisoformat(None)


def test_clock_info_arguments():
    with pytest.raises(ValueError, match="^clock_info\\(\\): source='sundial' must be one of"):
        monostamp.clock_info("sundial")
    with pytest.raises(TypeError):
        monostamp.clock_info(0)


def test_sleep_arguments():
    with pytest.raises(ValueError, match="-1"):
        monostamp.sleep(-1)
    with pytest.raises(ValueError, match="nan"):
        monostamp.sleep(float("nan"))
    with pytest.raises(ValueError):
        monostamp.sleep(1e300)
    with pytest.raises(TypeError, match="seconds must be int or float, not str"):
        monostamp.sleep("1")
    with pytest.raises(ValueError, match="tolerance"):
        monostamp.sleep(0, tolerance=-1.0)
    with pytest.raises(TypeError):
        monostamp.sleep_until_ns(1.0)
    with pytest.raises(ValueError, match="tolerance_ns must be >= 0, not -1"):
        monostamp.sleep_until_ns(0, tolerance_ns=-1)


def test_foreign_shared_file(tmp_path):
    path = tmp_path / "not-ours"
    path.write_bytes(b"hello, this is not a monostamp state file\n" * 200)
    with pytest.raises(ValueError, match="not a monostamp state file") as info:
        Clock(shared=str(path))
    assert shown(path) in str(info.value)
    with pytest.raises(ValueError, match="not a monostamp state file"):
        Clock(shared=path)  # os.PathLike too


def test_truncated_shared_file(tmp_path):
    path = tmp_path / "short"
    path.write_bytes(b"x")
    with pytest.raises(ValueError, match="short"):
        Clock(shared=path)


def test_unusable_shared_path_is_os_error(tmp_path):
    missing = tmp_path / "no" / "such" / "dir" / "state"
    with pytest.raises(OSError) as info:
        Clock(shared=missing)
    # The errno comes from the core's code, not from the global errno.
    assert info.value.errno == errno.ENOENT and isinstance(info.value, FileNotFoundError)
    if not WINDOWS:
        # The missing directory is said as such, the path once.
        assert info.value.filename is None
        assert info.value.strerror == (
            "Clock(): shared='%s': its directory does not exist -- create the directory "
            "first; the state file itself is created if absent" % missing)
        missing = tmp_path / "state"
        missing.mkdir()  # a directory where the file should be: the OS's own reason
        with pytest.raises(OSError) as info:
            Clock(shared=missing)
        assert os.fspath(info.value.filename) == str(missing)
    else:
        assert os.fspath(info.value.filename) == str(missing)
        # The core quotes the path as given, backslashes and all.
        assert info.value.strerror.startswith("Clock(): shared='%s': " % missing)
    if WINDOWS:
        # Windows' own code (ERROR_PATH_NOT_FOUND) and sentence, as os's
        # errors carry them; OSError maps the code to ENOENT.
        import ctypes
        assert info.value.winerror == 3
        assert info.value.strerror.endswith(ctypes.FormatError(3).rstrip(". \r\n"))
    with pytest.raises(ValueError, match="has a NUL character at byte 2"):
        Clock(shared="a\0b")


def test_foreign_default_shared_file_names_the_path(tmp_path):
    import subprocess
    import sys
    path = tmp_path / "foreign"
    path.write_bytes(b"#" * 4096)
    env = dict(os.environ, MONOSTAMP_SHARED=str(path))
    code = ("import monostamp\n"
            "for f in (monostamp.now, monostamp.time_ns, monostamp.get_policy, monostamp.uuid7,\n"
            "          lambda: monostamp.take(1), lambda: monostamp.set_policy('acceptPlatformTime')):\n"
            "    try:\n"
            "        f()\n"
            "    except ValueError as e:\n"
            "        print(e)\n"
            "try:\n"
            "    monostamp.set_policy('nope')\n"
            "except ValueError as e:\n"
            "    print('bad policy first:', str(e).startswith(\"set_policy(): policy='nope'\"))\n"
            "print('no default clock object:', monostamp._monostamp.default_clock is None)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout.splitlines()
    assert out[-2:] == ["bad policy first: True", "no default clock object: True"]
    out = out[:-2]
    assert len(out) == 6
    for line in out:
        # The context says which clock and why the path; the core says what.
        assert line.startswith("the default clock is unusable: MONOSTAMP_SHARED='%s': "
                               % path), line
        assert "not a monostamp state file" in line
