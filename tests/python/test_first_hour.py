"""A new user's first hour: each mistake met there, and what it now says.

Point 9 (mypy catches typos) is in test_typing.py, point 11 (beside
time-machine 2.x) in test_old_tools.py, and the Lua side of points 2 and 5
in tests/lua/zone_spec.lua and tests/lua/ffi_parity_spec.lua.
"""
import datetime
import inspect
import os
import signal
import subprocess
import sys
import textwrap
import zoneinfo

import pytest

import monostamp
from conftest import cpython_only, posix_only

#: Windows gaps, each said in docs/windows.md.
NO_DIRECTORY_CHECK = posix_only(
    "the missing-directory message reads POSIX errno; Windows raises its own "
    "error (WinError 3, path not found) unchanged")
NO_SUGGESTIONS = posix_only("the zone database is not walked for suggestions on Windows")

DASH = " -- "


def one_shape(message, call):
    """`call(): what is wrong -- what to do`: the call named first, the dash once."""
    assert message.startswith(call), message
    assert message.count(DASH) == 1, message
    assert "_monostamp" not in message, message


# ------------------------------------------------ 1. a missing directory

@NO_DIRECTORY_CHECK
def test_a_state_file_in_a_missing_directory_names_the_directory(tmp_path):
    path = str(tmp_path / "nope" / "run.state")
    for make, call in ((lambda: monostamp.Clock(shared=path), "Clock(): shared="),
                       (lambda: monostamp.create_state_file(path),
                        "create_state_file(): path=")):
        with pytest.raises(FileNotFoundError) as e:
            make()
        text = e.value.strerror
        one_shape(text, call)
        assert "its directory does not exist" in text and "create the directory" in text
        assert str(e.value).count(path) == 1, str(e.value)
    # A missing file in a directory that exists is still created.
    monostamp.Clock(shared=str(tmp_path / "run.state"))


@NO_DIRECTORY_CHECK
def test_the_command_line_says_the_same_of_shared(tmp_path):
    path = str(tmp_path / "nope" / "run.state")
    done = subprocess.run([sys.executable, "-m", "monostamp", "--shared", path],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("python -m monostamp: --shared ")
    assert "its directory does not exist" in done.stderr and done.stderr.count(path) == 1


@NO_DIRECTORY_CHECK
def test_a_bad_monostamp_shared_stops_the_session_at_start(pytester, tmp_path, monkeypatch):
    pytester.makepyfile("def test_one(monostamp_clock):\n    monostamp_clock.now()\n")
    monkeypatch.setenv("MONOSTAMP_SHARED", str(tmp_path / "nope" / "run.state"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if "monostamp" in line]
    assert len(errors) == 1, result.stderr.lines
    assert "MONOSTAMP_SHARED=" in errors[0] and "its directory does not exist" in errors[0]
    assert "test_one" not in result.stdout.str()


# ------------------------------------------------------------- 2. zones

def test_clock_takes_a_zoneinfo_timezone_utc_and_utc_in_any_case():
    berlin = monostamp.Clock(zone=zoneinfo.ZoneInfo("Europe/Berlin"))
    assert berlin.zone == "Europe/Berlin"
    summer = monostamp.Stamp(1_688_169_600 * 10**9)  # 2023-07-01T00:00Z
    assert summer.astimezone(zoneinfo.ZoneInfo("Europe/Berlin")).offset == 7200
    for zone in (datetime.timezone.utc, "utc", "UTC", "Utc"):
        clock = monostamp.Clock(zone=zone)
        assert clock.zone == "UTC" and clock.now().offset == 0


def test_a_tzinfo_without_a_name_is_refused_saying_what_to_give():
    with pytest.raises(TypeError) as e:
        monostamp.Clock(zone=datetime.timezone(datetime.timedelta(hours=1)))
    one_shape(str(e.value), "Clock(): zone must be")
    assert "IANA name" in str(e.value)


@NO_SUGGESTIONS
def test_a_zone_slip_gets_did_you_mean_from_the_core():
    with pytest.raises(ValueError) as e:
        monostamp.Clock(zone="Europe/Berln")
    assert str(e.value) == ("Clock(): zone='Europe/Berln' is not a zone this machine knows"
                            + DASH + "did you mean 'Europe/Berlin'?")
    with pytest.raises(ValueError, match="did you mean 'America/New_York'"):
        monostamp.Stamp(0).astimezone("America/New_Yrok")
    with pytest.raises(ValueError) as e:
        monostamp.Clock(zone="Mars/Olympus_Mons")
    one_shape(str(e.value), "Clock(): zone='Mars/Olympus_Mons'")
    assert "did you mean" not in str(e.value)


# -------------------------------------------------------- 3. signatures

def test_the_signature_shows_the_real_defaults():
    params = inspect.signature(monostamp.Clock).parameters
    clock = monostamp.Clock()
    assert params["max_lead_ns"].default == clock.max_lead_ns == 10**9
    assert params["policy"].default == clock.policy.value
    assert params["source"].default == clock.source
    assert params["on_lead"].default == clock.on_lead
    assert params["zone"].default is None and clock.zone is None
    # Copying the signature's defaults makes the same clock.
    copied = monostamp.Clock(**{name: p.default for name, p in params.items()})
    assert repr(copied) == repr(clock)


# -------------------------------------------------- 4. policy member names

def test_a_policy_member_name_is_taken_wherever_a_policy_string_is():
    before = monostamp.get_policy()
    try:
        monostamp.set_policy("MONOTONIC_ALLOW_DUPLICATES")
        assert monostamp.get_policy() is monostamp.Policy.MONOTONIC_ALLOW_DUPLICATES
    finally:
        monostamp.set_policy(before)
    clock = monostamp.Clock("MONOTONIC_FORCE_MICROSECOND_INCREMENT")
    assert clock.policy is monostamp.Policy.MONOTONIC_FORCE_MICROSECOND_INCREMENT
    clock.policy = "ACCEPT_PLATFORM_TIME"
    assert clock.policy is monostamp.Policy.ACCEPT_PLATFORM_TIME
    with pytest.raises(ValueError, match="must be one of"):
        monostamp.Clock("monotonic_force_nanosecond_increment")


# ------------------------------------------------------ 5. one shape

@pytest.mark.parametrize("mistake, error, call", [
    (lambda: monostamp.Clock(source="manual").advance(1.5), TypeError, "Clock.advance(): ns"),
    (lambda: monostamp.now().isoformat(digits=12), ValueError, "Stamp.isoformat(): digits=12"),
    (lambda: monostamp.Clock().advance(1), ValueError, "Clock.advance(): advance needs a clock"),
    (lambda: monostamp.Clock(source="manual").step_back(-1), ValueError,
     "Clock.step_back(): ns=-1"),
    (lambda: monostamp.Stamp(0, 86400), ValueError, "Stamp(): offset=86400"),
])
def test_messages_have_one_shape(mistake, error, call):
    with pytest.raises(error) as e:
        mistake()
    one_shape(str(e.value), call)
    # The value once, and no reason repeated after it.
    assert "invalid argument" not in str(e.value)
    assert "not supported by this clock's source" not in str(e.value)
@cpython_only("the interpreter's own message for a C function given keywords")
def test_the_interpreter_names_public_functions():
    with pytest.raises(TypeError) as e:
        monostamp.now(zone="UTC")
    assert str(e.value) == "monostamp.now() takes no keyword arguments"


def test_a_default_patch_reads_as_it_is_written():
    assert repr(monostamp.patch()) == "monostamp.patch()"
    clock = monostamp.Clock(source="manual")
    assert repr(monostamp.patch(clock)) == "monostamp.patch({!r})".format(clock)


# -------------------------------------------------------------- 6. marker

@NO_SUGGESTIONS
def test_a_marker_typo_is_one_message_without_the_plugins_frames(pytester):
    pytester.makepyfile(textwrap.dedent("""
        import pytest

        @pytest.mark.monostamp(strat="2020-01-01T00:00:00Z")
        def test_typo(manual_clock):
            pass

        @pytest.mark.monostamp(zone="Europe/Berln")
        def test_zone(manual_clock):
            pass
    """))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    out = result.stdout.str()
    assert "pytest_plugin.py" not in out, out
    result.stdout.fnmatch_lines([
        "*@pytest.mark.monostamp(): unknown option 'strat': did you mean 'start'?*",
        "*@pytest.mark.monostamp(): zone='Europe/Berln' is not a zone this machine knows "
        "-- did you mean 'Europe/Berlin'?*",
    ])


# ------------------------------------------------------------ 7. SIGTERM

@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_a_session_ended_by_sigterm_removes_its_state_directory(pytester, tmp_path):
    record = tmp_path / "shared.txt"
    pytester.makepyfile(textwrap.dedent("""
        import os, signal

        def test_killed():
            with open({!r}, "w") as f:
                f.write(os.environ["MONOSTAMP_SHARED"])
            os.kill(os.getpid(), signal.SIGTERM)  # as a CI timeout does
    """.format(str(record))))
    env = dict(os.environ)
    env.pop("MONOSTAMP_SHARED", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "-p", "no:xdist"], cwd=str(pytester.path), env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGTERM, done.stdout + done.stderr
    directory = os.path.dirname(record.read_text())
    assert os.path.basename(directory).startswith("monostamp-pytest-")
    assert not os.path.exists(directory)


# ------------------------------------------------------------ 8. units, CLI

def test_set_and_start_ns_take_an_aware_datetime_and_a_stamp():
    when = datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=datetime.timezone.utc)
    clock = monostamp.Clock(source="manual", zone="UTC", start_ns=when,
                            policy="acceptPlatformTime")
    assert clock.now().utc_ns == 1_700_000_000 * 10**9
    clock.set(monostamp.Stamp(5 * 10**18, 3600))
    assert clock.now().utc_ns == 5 * 10**18
    clock.set(when.astimezone(zoneinfo.ZoneInfo("Europe/Berlin")))
    assert clock.now().utc_ns == 1_700_000_000 * 10**9
    clock.set(5)  # small ints stay ns, as tests use them
    assert clock.now().utc_ns == 5
    with pytest.raises(ValueError) as e:
        clock.set(datetime.datetime(2023, 1, 1))
    one_shape(str(e.value), "Clock.set(): ns=")
    with pytest.raises(TypeError) as e:
        clock.set(1.7e9)
    one_shape(str(e.value), "Clock.set(): ns must be")


@pytest.mark.parametrize("flags", [["--digits", "0", "--ns"], ["--uuid7", "--z"],
                                   ["--ns", "--zone", "UTC"]])
def test_the_command_line_refuses_flags_that_contradict(flags):
    done = subprocess.run([sys.executable, "-m", "monostamp", *flags], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "which --" in done.stderr and "does not print" in done.stderr


# --------------------------------------------------------------- 10. docs

def test_the_docs_say_what_was_measured():
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "docs", "patch.md"), encoding="utf-8") as f:
        patch_md = f.read()
    assert "repeats as often as the real clock does" not in patch_md
    assert "unique by slowness" in patch_md and "never across processes" in patch_md
    assert "## Where duplicates come from" in patch_md and "add_all" in patch_md
    assert "time-machine 2.10" in patch_md and "freezegun 1.2.2" in patch_md
