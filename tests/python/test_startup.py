"""MONOSTAMP_PATCH: a Python process patches itself at startup (monostamp-patch.pth).

The hook is installed with the package (pip install . puts the .pth into
site-packages): these tests start fresh interpreters of the one under test.
"""
import os
import site
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

import monostamp
from conftest import PYPY, REPO, posix_only

PTH = "monostamp-patch.pth"
#: The site directory the package and its hook are installed in.
SITE = Path(monostamp.__file__).resolve().parent.parent

#: Whether the package sits in one of the interpreter's own site directories,
#: where site runs its .pth at every start.  Not under the Windows harness
#: (tools/windows/test-python.sh): there pip installs it with --target and a
#: sitecustomize on PYTHONPATH adds that directory, so a child whose
#: PYTHONPATH is replaced or ignored (-E) starts without the hook at all.
IN_A_SITE_DIR = str(SITE) in [str(Path(d).resolve()) for d in
                              site.getsitepackages() + [site.getusersitepackages()]]
needs_site_dir = pytest.mark.skipif(
    not IN_A_SITE_DIR, reason="the package is not in a site directory of the interpreter "
                              "(added by a sitecustomize on PYTHONPATH instead)")

#: The child's report: whether monostamp was imported by the hook, patched().
REPORT = ("import sys; m = sys.modules.get('monostamp'); "
          "print(m is not None, m is not None and m.patched())")


def child_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MONOSTAMP_SHARED", "MONOSTAMP_PATCH")}
    env.update(extra)
    return env


def run_child(code, **extra):
    return subprocess.run([sys.executable, "-c", code], env=child_env(**extra),
                          capture_output=True, text=True, timeout=120)


def test_the_hook_is_installed_beside_the_package() -> None:
    text = (SITE / PTH).read_text()
    # One line: site executes only lines that start with "import".
    assert text.count("\n") <= 1 and text.startswith("import os, sys;")
    assert "MONOSTAMP_PATCH" in text


@pytest.mark.parametrize("value", [None, "", "0"])
def test_unset_empty_or_0_imports_nothing(value) -> None:
    extra = {} if value is None else {"MONOSTAMP_PATCH": value}
    result = run_child(REPORT, **extra)
    assert (result.returncode, result.stdout, result.stderr) == (0, "False False\n", "")


def test_1_patches_before_the_program_runs(tmp_path: Path) -> None:
    result = run_child(REPORT + "\nfrom datetime import datetime\n"
                       "v = [datetime.now() for _ in range(20000)]\n"
                       "print(len(set(v)) == len(v) and v == sorted(v))",
                       MONOSTAMP_PATCH="1")
    assert (result.returncode, result.stdout, result.stderr) == (0, "True True\nTrue\n", "")


def test_1_continues_the_shared_sequence(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    clock = monostamp.Clock(shared=state)
    before = clock.time_ns()
    result = run_child("import time; print(time.time_ns())",
                       MONOSTAMP_PATCH="1", MONOSTAMP_SHARED=state)
    assert result.returncode == 0, result.stderr
    assert before < int(result.stdout) < clock.time_ns()


@pytest.mark.parametrize("value", ["yes", "true", "2", " 1", "on"])
def test_another_value_is_one_line_and_status_1(value) -> None:
    result = run_child("print('the program ran')", MONOSTAMP_PATCH=value)
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "MONOSTAMP_PATCH=%r" % value in lines[0] and "1" in lines[0] and "0" in lines[0]


@posix_only("symbolic links and modes")
@pytest.mark.parametrize("case", ["missing directory", "symlink", "group-writable",
                                  "not a state file", "a directory"])
def test_an_unjoinable_state_file_is_one_line_and_status_1(tmp_path: Path, case) -> None:
    good = tmp_path / "good"
    monostamp.Clock(shared=str(good))
    path = {"missing directory": tmp_path / "gone" / "state",
            "symlink": tmp_path / "link",
            "group-writable": tmp_path / "wide",
            "not a state file": tmp_path / "junk",
            "a directory": tmp_path}[case]
    if case == "symlink":
        path.symlink_to(good)
    elif case == "group-writable":
        path.write_bytes(good.read_bytes())
        path.chmod(0o660)
    elif case == "not a state file":
        path.write_bytes(b"x" * 7)
    result = run_child("print('the program ran')", MONOSTAMP_PATCH="1",
                       MONOSTAMP_SHARED=str(path))
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    # The core's sentence, as every binding words it: the path once, then why.
    assert "cannot join its state file: MONOSTAMP_SHARED='%s': " % path in lines[0]
    assert lines[0].count(str(path)) == 1 and lines[0].split("': ", 1)[1]


def test_time_machine_in_a_patched_child_wins_and_monostamp_resumes() -> None:
    pytest.importorskip("time_machine")
    result = run_child(
        "import time, time_machine, monostamp\n"
        "with time_machine.travel(0, tick=False):\n"
        "    assert time.time() == 0 and not monostamp.patched()\n"
        "v = [time.time_ns() for _ in range(1000)]\n"
        "print(monostamp.patched(), len(set(v)) == 1000 and v == sorted(v))",
        MONOSTAMP_PATCH="1")
    assert (result.returncode, result.stdout, result.stderr) == (0, "True True\n", "")


def test_freezegun_in_a_patched_child_wins_and_monostamp_resumes() -> None:
    pytest.importorskip("freezegun")
    result = run_child(
        "import time, freezegun, monostamp\n"
        "from datetime import datetime\n"
        "with freezegun.freeze_time('2000-01-01'):\n"
        "    assert datetime.now() == datetime(2000, 1, 1) == datetime.now()\n"
        "v = [datetime.now() for _ in range(1000)]\n"
        "print(monostamp.patched(), len(set(v)) == 1000 and v == sorted(v))",
        MONOSTAMP_PATCH="1")
    assert (result.returncode, result.stdout, result.stderr) == (0, "True True\n", "")


@posix_only("symbolic links")
def test_the_hook_patches_once_where_site_runs_it_twice(tmp_path: Path) -> None:
    # A venv's lib64 links to its lib; site runs the .pth in each.  Here
    # the second run is site.addsitedir() of site-packages by another name.
    alias = tmp_path / "site-packages"
    alias.symlink_to(SITE, target_is_directory=True)
    result = run_child("import site, monostamp._patching as p\n"
                       "site.addsitedir(%r)\n"
                       "print(len(p._stack))" % str(alias), MONOSTAMP_PATCH="1")
    assert (result.returncode, result.stdout, result.stderr) == (0, "1\n", "")


def site_dirs_with_the_hook(tmp_path: Path, startup: str) -> List[Path]:
    """Two site directories that each hold a copy of the installed .pth; the
    first also a package `monostamp` whose _startup module is `startup`
    (an __init__ that raises stands for one that cannot be imported)."""
    dirs = [tmp_path / "site-a", tmp_path / "site-b"]
    for d in dirs:
        d.mkdir()
        (d / PTH).write_text((SITE / PTH).read_text())
    package = dirs[0] / "monostamp"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_startup.py").write_text(startup)
    return dirs


def bare_env(**extra):
    """child_env without PYTHONPATH: the site directories a test adds are
    the only ones that hold a monostamp."""
    env = child_env(**extra)
    env.pop("PYTHONPATH", None)
    return env


def add_site_dirs(dirs: List[Path], then: str) -> str:
    """-S code (site not run at startup: no installed hook, no path but the
    standard library's) that lets site process `dirs` in turn, then `then`."""
    return ("import site\n" + "".join("site.addsitedir(%r)\n" % str(d) for d in dirs) + then)


def test_the_hook_runs_once_whichever_site_dirs_hold_it(tmp_path: Path) -> None:
    dirs = site_dirs_with_the_hook(tmp_path, "def main():\n    print('the hook ran')\n")
    result = subprocess.run([sys.executable, "-S", "-c", add_site_dirs(dirs, "print('ran')")],
                            env=bare_env(MONOSTAMP_PATCH="1"), capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (0, "the hook ran\nran\n", "")


FAILING_IMPORTS = ["an __init__ that raises", "the source checkout", "no _startup module"]


@needs_site_dir
@pytest.mark.parametrize("case", FAILING_IMPORTS)
def test_a_monostamp_it_cannot_import_is_one_line_and_status_1(tmp_path: Path, case) -> None:
    # The program's code never runs: it would write `ran`.
    ran = tmp_path / "ran"
    if case == "the source checkout":
        checkout = Path(REPO) / "bindings" / "python"
        if list((checkout / "monostamp").glob("_monostamp*")):
            pytest.skip("the checkout has a built extension in place: it imports")
        path, cause = checkout, ("ModuleNotFoundError: No module named 'monostamp._monostamp_cffi'"
                                 if PYPY else "ImportError: cannot import name '_monostamp'")
    else:
        path = tmp_path / "fake"
        (path / "monostamp").mkdir(parents=True)
        if case == "an __init__ that raises":
            (path / "monostamp" / "__init__.py").write_text(
                "raise RuntimeError('no extension\\nfor this Python')\n")
            cause = "RuntimeError: no extension for this Python"
        else:
            (path / "monostamp" / "__init__.py").write_text("")
            cause = "ModuleNotFoundError: No module named 'monostamp._startup'"
    result = run_child("open(%r, 'w').close()" % str(ran), MONOSTAMP_PATCH="1",
                       PYTHONPATH=str(path))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("monostamp: MONOSTAMP_PATCH=1, but %s cannot import "
                                    "monostamp: %s" % (sys.executable, cause)), result.stderr
    assert not ran.exists()


def test_a_failing_import_is_one_line_where_site_runs_the_hook_twice(tmp_path: Path) -> None:
    dirs = site_dirs_with_the_hook(tmp_path, "")
    (dirs[0] / "monostamp" / "__init__.py").write_text("raise RuntimeError('broken')\n")
    result = subprocess.run([sys.executable, "-S", "-c", add_site_dirs(dirs, "print('ran')")],
                            env=bare_env(MONOSTAMP_PATCH="1"), capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ("monostamp: MONOSTAMP_PATCH=1, but %s cannot import monostamp: "
                             "RuntimeError: broken\n" % sys.executable)


def test_isolated_mode_skips_the_hook() -> None:
    # -I: the program asked to be shielded from its environment; it starts
    # unpatched, and imports monostamp only if it asks.
    result = subprocess.run([sys.executable, "-I", "-c", REPORT],
                            env=child_env(MONOSTAMP_PATCH="1"), capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (0, "False False\n", "")


@needs_site_dir
def test_e_does_not_change_the_hook() -> None:
    # -E ignores the PYTHON* variables only: MONOSTAMP_PATCH is not one.
    result = subprocess.run([sys.executable, "-E", "-c", REPORT],
                            env=child_env(MONOSTAMP_PATCH="1"), capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (0, "True True\n", "")


def test_s_skips_the_hook() -> None:
    result = subprocess.run([sys.executable, "-S", "-c", REPORT],
                            env=child_env(MONOSTAMP_PATCH="1"), capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (0, "False False\n", "")


def test_uuid_imported_after_the_start_is_patched_too() -> None:
    # uuid1() reads time.time_ns() only once monostamp has set uuid's C
    # generator aside: also for a uuid imported after the patch started.
    result = run_child("import uuid, monostamp\n"
                       "print(uuid._generate_time_safe is None)\n",
                       MONOSTAMP_PATCH="1")
    assert (result.returncode, result.stdout, result.stderr) == (0, "True\n", "")


def test_the_fixture_exports_for_its_test_and_takes_it_back(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MONOSTAMP_PATCH", raising=False)
    pytester.makepyfile("""
        import os, subprocess, sys
        import pytest

        CHILD = [sys.executable, "-c", "import monostamp; print(monostamp.patched())"]

        def test_a_with_the_fixture(monostamp_patch):
            assert os.environ["MONOSTAMP_PATCH"] == "1"
            assert subprocess.run(CHILD, capture_output=True, text=True).stdout == "True\\n"

        @pytest.mark.monostamp(patch=True)
        def test_b_with_the_marker():
            assert os.environ["MONOSTAMP_PATCH"] == "1"

        def test_c_after():
            assert "MONOSTAMP_PATCH" not in os.environ
            assert subprocess.run(CHILD, capture_output=True, text=True).stdout == "False\\n"
    """)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)
    assert "MONOSTAMP_PATCH" not in os.environ


def test_the_option_exports_for_the_session_and_takes_it_back(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MONOSTAMP_PATCH", raising=False)
    pytester.makepyfile("""
        import os

        def test_exported():
            assert os.environ["MONOSTAMP_PATCH"] == "1"
            assert os.environ["MONOSTAMP_SHARED"]
    """)
    pytester.runpytest("-p", "no:cacheprovider", "--monostamp-patch").assert_outcomes(passed=1)
    assert "MONOSTAMP_PATCH" not in os.environ


def test_an_xdist_worker_is_patched_in_tests_only(pytester: pytest.Pytester,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The controller's export would patch its workers for their whole life;
    # as without xdist, they are patched during each test only.
    pytest.importorskip("xdist")
    monkeypatch.delenv("MONOSTAMP_PATCH", raising=False)
    pytester.makepyfile("""
        import monostamp

        def test_patched_in_the_test():
            assert monostamp.patched()

        def pytest_sessionfinish():
            pass
    """)
    pytester.makeconftest("""
        import monostamp

        def pytest_collection_finish(session):
            # Between tests, in pytest's own machinery: real time.
            assert not monostamp.patched()
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--monostamp-patch",
                                           "-n", "1")
    result.assert_outcomes(passed=1)
