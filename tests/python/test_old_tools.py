"""monostamp.patch() beside older releases of time-machine and freezegun.

time-machine before 3.0 patches the clock functions at its first travel and
never restores them (they pass through while no travel is active); its
travels live in coordinates_stack, not 3.x's traveller_stack.  freezegun
0.3.15 to 1.5 compose alike (docs/patch.md); 1.2.2, the oldest widely
pinned, is tested here beside the current one.

Each release lives in a directory of its own that tools/install-deps.sh
fills (pip install --target), since the current release is in
site-packages; the tests run children with that directory first on
sys.path.  The path is computed as install-deps.sh computes it.
"""
import os
import subprocess
import sys
import textwrap

import pytest

OLD_TOOLS = os.environ.get("MONOSTAMP_OLD_TOOLS") or os.path.join(
    os.path.expanduser("~"), ".cache", "monostamp", "old-tools")


def old_tool(requirement):
    """The --target directory of `requirement`, or skip/fail where it is missing."""
    path = os.path.join(OLD_TOOLS, requirement, sys.implementation.cache_tag)
    if os.path.exists(os.path.join(path, ".complete")):
        # An old release may not run on a new CPython at all (freezegun 1.2.2
        # reads uuid._uuid_generate_time, gone in 3.14): nothing to compose with.
        module = requirement.split("==")[0].replace("-", "_")
        probe = subprocess.run([sys.executable, "-c", "import " + module],
                               env=child_env(path), capture_output=True, text=True)
        if probe.returncode != 0:
            if sys.version_info < (3, 13):
                pytest.fail("{} does not import: {}".format(requirement, probe.stderr))
            pytest.skip("{} does not import on CPython {}.{}: {}".format(
                requirement, *sys.version_info[:2],
                (probe.stderr.strip().splitlines() or ["?"])[-1]))
        return path
    message = "{} is not installed in {}: run tools/install-deps.sh".format(requirement, path)
    # time-machine 2.10 has no build for CPython 3.13+; make test-python
    # (MONOSTAMP_REQUIRE_OLD_TOOLS=1) installs it first, so there it must be.
    if os.environ.get("MONOSTAMP_REQUIRE_OLD_TOOLS") == "1" and (
            sys.version_info < (3, 13) or not requirement.startswith("time-machine")):
        pytest.fail(message)
    pytest.skip(message)


def child_env(path):
    env = dict(os.environ)
    env.pop("MONOSTAMP_SHARED", None)
    env.pop("PYTEST_ADDOPTS", None)
    env["PYTHONPATH"] = os.pathsep.join([path] + [p for p in sys.path if p])
    return env


def run_child(path, code):
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=child_env(path),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def tm2():
    return old_tool("time-machine==2.10.0")


def test_time_machine_2_is_the_one_in_the_child(tm2):
    out = run_child(tm2, """
        import time_machine
        print(time_machine.__file__, hasattr(time_machine, "coordinates_stack"))
    """)
    assert out.startswith(tm2) and out.split()[-1] == "True"


def test_time_machine_2_travel_inside_a_patch_then_the_patch_resumes(tm2):
    run_child(tm2, """
        import datetime, time
        import monostamp, time_machine
        real = time.time
        with monostamp.patch(monostamp.Clock(source="manual", start_ns=5 * 10**9)):
            assert time.time() == 5.0
            for _ in range(2):  # the second travel finds 2.x's functions in
                with time_machine.travel(0, tick=False):
                    assert time.time() == 0.0 and not monostamp.patched()
                assert monostamp.patched(), "the patch did not resume"
                assert 5.0 < time.time() < 6.0
                assert datetime.datetime.now(datetime.timezone.utc).year == 1970
        # time-machine's own pass-through functions are back: it still travels.
        assert time.time() > 1.6e9 and not monostamp.patched()
        with time_machine.travel(86400, tick=False):
            assert time.time() == 86400.0
        assert time.time() > 1.6e9
    """)


def test_a_patch_after_a_time_machine_2_travel_starts_and_stops(tm2):
    # The travel came first: its functions are in before monostamp's first start.
    run_child(tm2, """
        import time
        import monostamp, time_machine
        with time_machine.travel(0, tick=False):
            pass
        with monostamp.patch(monostamp.Clock(source="manual", start_ns=7 * 10**9)):
            assert monostamp.patched() and 7.0 <= time.time() < 8.0
            with time_machine.travel(3600, tick=False):
                assert time.time() == 3600.0
            assert 7.0 <= time.time() < 8.0
        assert time.time() > 1.6e9
    """)


def test_only_time_machines_own_functions_are_taken_as_the_originals(tm2):
    # The witness names the binary whose functions may be taken: with one of
    # the interpreter's, time-machine's functions are another tool's (refused).
    out = run_child(tm2, """
        import sys, time
        import monostamp, time_machine
        from monostamp import _monostamp as c
        with time_machine.travel(0, tick=False):
            pass
        print(c._adopt(time.monotonic), c._adopt(sys.modules["_time_machine"].original_time))
    """)
    refused, taken = map(int, out.split())
    assert refused == 0 and taken >= 5  # time, time_ns, gmtime, ..., now, utcnow


def test_a_two_test_suite_beside_time_machine_2_passes_under_the_whole_run_patch(tm2, tmp_path):
    (tmp_path / "test_two.py").write_text(textwrap.dedent("""
        import time, time_machine

        def test_travel():
            with time_machine.travel(0, tick=False):
                assert time.time() == 0.0

        def test_plain():
            assert time.time() > 1.6e9

        @time_machine.travel(86400, tick=False)
        def test_decorated():
            assert time.time() == 86400.0

        def test_fixture(time_machine):
            time_machine.move_to(3600, tick=False)
            assert time.time() == 3600.0
    """))
    for flags in ([], ["--monostamp-patch"]):
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
             "-p", "no:randomly", *flags, "test_two.py"],
            cwd=str(tmp_path), env=child_env(tm2), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "4 passed" in done.stdout


def test_freezegun_1_2_composes_as_the_current_one():
    path = old_tool("freezegun==1.2.2")
    run_child(path, """
        import datetime, time
        import freezegun, monostamp
        assert freezegun.__version__ == "1.2.2", freezegun.__version__
        with monostamp.patch(monostamp.Clock(source="manual", start_ns=5 * 10**9)):
            with freezegun.freeze_time("2000-01-01"):
                assert time.time() == 946684800.0 and not monostamp.patched()
            assert monostamp.patched() and 5.0 < time.time() < 6.0
            freezer = freezegun.freeze_time("2001-01-01", tick=True)
            freezer.start()
            assert datetime.datetime.utcnow().year == 2001
            freezer.stop()
            assert monostamp.patched()
        assert time.time() > 1.6e9
    """)
