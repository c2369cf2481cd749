"""The pytest plugin: fixtures, the marker, session-wide sharing under xdist,
and a Lua subprocess drawing from the same sequence as the test."""
import datetime
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import monostamp

from conftest import PY_MEET, WINDOWS, assert_overlapping, lua_env, needs_xdist

ENV = "MONOSTAMP_SHARED"


def test_fixtures_and_marker_in_a_subprocess_run(pytester, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    pytester.makepyfile(
        """
        import datetime, pytest, monostamp

        def test_strict(monostamp_clock):
            assert monostamp_clock.policy == monostamp.Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
            assert monostamp_clock.shared is not None
            stamps = [monostamp_clock.time_ns() for _ in range(10000)]
            assert stamps == sorted(set(stamps))

        def test_manual_defaults(manual_clock):
            assert isinstance(manual_clock, monostamp.Clock)
            assert manual_clock.source == "manual"
            assert manual_clock.zone == "UTC"
            assert manual_clock.now().isoformat() == "2000-01-01T00:00:00.000000000+00:00"

        def test_step_back(manual_clock):
            a = manual_clock.time_ns()
            manual_clock.step_back(10**9)
            assert manual_clock.time_ns() == a + 1
            manual_clock.advance(2 * 10**9)
            assert manual_clock.time_ns() == a + 10**9
            with pytest.raises(ValueError, match="-1"):
                manual_clock.step_back(-1)
            with pytest.raises(TypeError):
                manual_clock.step_back(1.5)

        @pytest.mark.monostamp(start="2026-10-25T00:59:59Z", zone="Europe/Berlin",
                               policy="acceptPlatformTime")
        def test_marker_iso_start(manual_clock):
            assert manual_clock.policy == monostamp.Policy.ACCEPT_PLATFORM_TIME
            assert manual_clock.now().isoformat(digits=0) == "2026-10-25T02:59:59+02:00"
            manual_clock.advance(10**9)
            assert manual_clock.now().isoformat(digits=0) == "2026-10-25T02:00:00+01:00"

        def test_default_clock_writes_the_session_file():
            import os
            frozen = monostamp.Clock(source="manual", start_ns=0, max_lead_ns=0,
                                     shared=os.environ["MONOSTAMP_SHARED"])
            mine = monostamp.time_ns()
            assert frozen.time_ns() == mine + 1  # monostamp.now() draws from the file

        @pytest.mark.monostamp(start=123)
        def test_marker_int_start(manual_clock):
            assert manual_clock.time_ns() == 123

        @pytest.mark.monostamp(start=datetime.datetime(2001, 2, 3, 4, 5, 6, 7,
                                                       tzinfo=datetime.timezone.utc))
        def test_marker_datetime_start(manual_clock):
            assert manual_clock.now().isoformat() == "2001-02-03T04:05:06.000007000+00:00"
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)
    header = result.stdout.str()
    match = re.search(r"monostamp: monostamp_clock is monotonicForceNanosecondIncrement, "
                      r"shared through MONOSTAMP_SHARED=(\S+)", header)
    assert match, header
    # The controller made the state file in a directory of its own and
    # removed it when the session ended.
    state_dir = os.path.dirname(match.group(1))
    if WINDOWS:
        # XXX: the default clock maps the file until its process exits, and
        # Windows removes no mapped file meanwhile: the directory stays
        # (docs/windows.md, Gaps).  The process is gone now, so it can go.
        assert os.path.exists(state_dir)
        shutil.rmtree(state_dir)
    assert not os.path.exists(state_dir)


def test_a_marker_that_cannot_act_warns(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.monostamp(start=123, zone="UTC")
        def test_forgot_the_fixture():
            pass

        @pytest.mark.monostamp(start=5)
        def test_used(manual_clock):
            assert manual_clock.time_ns() == 5

        @pytest.mark.monostamp(patch=True)
        def test_patched():
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, warnings=1)
    result.stdout.fnmatch_lines([
        "*MarkerWarning: @pytest.mark.monostamp(start=123, zone='UTC') has no effect on "
        "test_forgot_the_fixture: the test uses neither the manual_clock fixture nor patch=True"])


BAD_MARKERS = [
    ("bogus=1", "unknown option 'bogus'"),
    ("start=datetime.datetime(2001, 1, 1)", "naive"),
    ("start=1.5", "not float"),
    ("zone='Mars/Olympus'", "Mars/Olympus"),
    ("policy='sometimes'", "sometimes"),
]


def test_bad_marker_options_name_the_value(pytester):
    pytester.makepyfile("import datetime, pytest\n" + "".join(
        """
@pytest.mark.monostamp({})
def test_bad_{}(manual_clock):
    pass
""".format(options, i) for i, (options, _) in enumerate(BAD_MARKERS)))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=len(BAD_MARKERS))
    output = result.stdout.str()
    for i, (options, message) in enumerate(BAD_MARKERS):
        section = output.split("ERROR at setup of test_bad_{}".format(i))[1][:4000]
        assert message in section, (options, message)


def test_no_share_option_keeps_clocks_private(pytester, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    pytester.makepyfile(
        """
        import os

        def test_private(monostamp_clock):
            assert monostamp_clock.shared is None
            assert "MONOSTAMP_SHARED" not in os.environ
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--monostamp-no-share")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["monostamp: session sharing off*"])


def test_an_outer_shared_file_is_joined_and_kept(pytester, monkeypatch, tmp_path):
    outer = tmp_path / "outer.state"
    last = tmp_path / "last"
    monkeypatch.setenv(ENV, str(outer))
    monkeypatch.setenv("LAST_STAMP", str(last))
    pytester.makepyfile(
        """
        import os

        def test_joins(monostamp_clock):
            assert str(monostamp_clock.shared) == os.environ["MONOSTAMP_SHARED"]
            with open(os.environ["LAST_STAMP"], "w") as f:
                f.write(str(monostamp_clock.time_ns()))
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert outer.exists()
    # A clock frozen at 0 on the outer file continues right after the inner
    # run's last stamp: the inner run really used that file.
    frozen = monostamp.Clock(source="manual", start_ns=0, shared=str(outer), max_lead_ns=0)
    assert frozen.time_ns() == int(last.read_text()) + 1


@needs_xdist
def test_xdist_workers_draw_from_one_sequence(pytester, monkeypatch, tmp_path):
    # --dist each runs every test on both workers.  The two runs of a test
    # meet before they draw and half way (conftest.PY_MEET), so their draws
    # certainly interleave.
    monkeypatch.delenv(ENV, raising=False)
    out = tmp_path / "stamps"
    out.mkdir()
    monkeypatch.setenv("STAMPS_DIR", str(out))
    pytester.makepyfile(PY_MEET + textwrap.dedent(
        """
        import os, pytest

        @pytest.mark.parametrize("n", range(4))
        def test_write_stamps(monostamp_clock, n):
            worker = os.environ["PYTEST_XDIST_WORKER"]
            k = {"gw0": 1, "gw1": 2}[worker]
            prefix = os.path.join(os.environ["STAMPS_DIR"], "meet{}-".format(n))
            meet(prefix, "start", k, 2)
            stamps = [monostamp_clock.time_ns() for _ in range(10000)]
            meet(prefix, "half", k, 2)
            stamps += [monostamp_clock.time_ns() for _ in range(10000)]
            path = os.path.join(os.environ["STAMPS_DIR"], "{}-{}".format(worker, n))
            with open(path, "w") as f:
                f.write("\\n".join(map(str, stamps)))
        """))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--dist", "each")
    result.assert_outcomes(passed=8)
    stamps = []
    for n in range(4):
        pair = [[int(x) for x in (out / ("%s-%d" % (w, n))).read_text().split()]
                for w in ("gw0", "gw1")]
        for mine in pair:
            assert mine == sorted(mine)
            stamps.extend(mine)
        assert_overlapping(pair)
    assert len(stamps) == 8 * 20000
    assert len(set(stamps)) == len(stamps), "duplicate stamps across xdist workers"


def test_a_lua_subprocess_interleaves_uniquely(monostamp_clock):
    """The test's own stamps and a Lua child's alternate strictly."""
    lua, env = lua_env()
    if monostamp_clock.shared is None:
        pytest.skip("session sharing is off (--monostamp-no-share)")
    assert env[ENV] == str(monostamp_clock.shared)
    child = subprocess.Popen(
        [lua, "-e", """
            local clock, path = require("monostamp.testing").strict_clock()
            io.stdout:write(tostring(path), "\\n"); io.stdout:flush()
            for _ in io.lines() do
                io.stdout:write(clock:time_ns(), "\\n"); io.stdout:flush()
            end
        """],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, universal_newlines=True)
    try:
        assert child.stdout.readline().strip() == str(monostamp_clock.shared)
        merged = [monostamp_clock.time_ns()]
        for _ in range(500):
            child.stdin.write("\n")
            child.stdin.flush()
            merged.append(int(child.stdout.readline()))
            merged.append(monostamp_clock.time_ns())
    finally:
        child.stdin.close()
        assert child.wait(timeout=30) == 0
    assert all(a < b for a, b in zip(merged, merged[1:])), "stamps did not interleave"


def test_plugin_is_registered_by_entry_point(pytestconfig):
    # The entry point "monostamp" is a module of its own that loads the
    # plugin by its module name (monostamp/_pytest_entry.py says why).
    entry = pytestconfig.pluginmanager.get_plugin("monostamp")
    assert entry is not None and entry.__name__ == "monostamp._pytest_entry"
    plugin = pytestconfig.pluginmanager.get_plugin("monostamp.pytest_plugin")
    assert plugin is not None and plugin.__name__ == "monostamp.pytest_plugin"


@pytest.mark.parametrize("args, autoload, loaded", [
    ([], True, True),
    (["-p", "monostamp"], True, True),
    (["-p", "monostamp.pytest_plugin"], True, True),
    (["-p", "no:monostamp"], True, False),
    (["-p", "no:monostamp.pytest_plugin"], True, False),
    (["-p", "monostamp"], False, True),
    (["-p", "monostamp.pytest_plugin"], False, True),
    ([], False, False),
])
def test_every_p_spelling_loads_or_blocks_the_plugin_once(pytester, monkeypatch, args,
                                                          autoload, loaded):
    """The spellings docs/pytest.md gives, with pytest's autoloading of
    entry points on and off: the plugin is there (its fixture works, its
    header line shows) exactly when asked for, and never registered twice
    ("Plugin already registered under a different name")."""
    if autoload:
        monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    else:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv(ENV, raising=False)
    pytester.makepyfile("""
        def test_fixture(request):
            request.getfixturevalue("monostamp_clock")
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    assert "already registered" not in result.stderr.str() + result.stdout.str()
    if loaded:
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines(["monostamp: monostamp_clock is *"])
    else:
        result.assert_outcomes(failed=1)
        assert "monostamp: " not in result.stdout.str()
