"""The whole process tree stamps as one (MONOSTAMP_PATCH, monostamp run, --monostamp-patch).

Each test runs tree_drawer.tree(): a parent with 4 spawn and 4 forkserver
multiprocessing workers and 2 subprocess children, 11 Python processes
drawing datetime.now() and time.time_ns() at once, and then checks that no
value appears twice across all of them and that each process's own values
strictly increase.  Unpatched (or patched in the parent alone) a µs-grain
datetime after an ns-grain time_ns() goes backwards in every process, and
the processes repeat each other's values.
"""
import array
import os
import subprocess
import sys
from pathlib import Path

import pytest

import monostamp
from conftest import assert_overlapping, posix_only, scaled

import tree_drawer

pytestmark = posix_only("multiprocessing's forkserver")
HERE = Path(__file__).resolve().parent
#: datetime.now() and time.time_ns() calls of each process (each).
N = scaled(100_000, minimum=2_000)


def clean_env(tmp_path, **extra):
    """The environment of a tree: no variable of the outer session (its
    MONOSTAMP_SHARED), TZ=UTC (naive now() is UTC), `extra` added."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MONOSTAMP_SHARED", "MONOSTAMP_PATCH")}
    env["TZ"] = "UTC"
    env.update(extra)
    return env


def check_tree(out_dir):
    """What the tree wrote: every process patched, no value twice, each
    process's values strictly increasing, every span overlapping another."""
    lists = []
    for my_id in range(1, tree_drawer.TOTAL + 1):
        values = array.array("q")
        with open(os.path.join(out_dir, "values-%d" % my_id), "rb") as f:
            values.frombytes(f.read())
        assert len(values) == 2 * N
        lists.append(values)
        backwards = sum(1 for a, b in zip(values, values[1:]) if b <= a)
        patched = Path(out_dir, "patched-%d" % my_id).read_text()
        assert backwards == 0, "drawer %d (%s): %d values not above the one before" % (
            my_id, patched, backwards)
        assert patched.startswith("True ")
    everything = set()
    for values in lists:
        everything.update(values)
    assert len(everything) == tree_drawer.TOTAL * 2 * N, "%d values repeat" % (
        tree_drawer.TOTAL * 2 * N - len(everything))
    assert_overlapping(lists)


@pytest.mark.heavy
def test_monostamp_patch_option_reaches_spawn_forkserver_and_subprocess_children(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for name in ("MONOSTAMP_SHARED", "MONOSTAMP_PATCH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("PYTHONPATH", str(HERE))
    pytester.makepyfile(test_tree="""
        import tree_drawer

        def test_tree():
            tree_drawer.tree(%r, %d)
    """ % (str(out), N))
    result = pytester.runpytest_subprocess("--monostamp-patch", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    check_tree(out)


@pytest.mark.heavy
def test_monostamp_patch_and_shared_by_hand(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    state = tmp_path / "state"
    monostamp.Clock(shared=str(state))  # made here; the tree only joins it
    env = clean_env(tmp_path, MONOSTAMP_PATCH="1", MONOSTAMP_SHARED=str(state))
    subprocess.run([sys.executable, str(HERE / "tree_drawer.py"), str(out), str(N)],
                   env=env, check=True, timeout=600)
    check_tree(out)


@pytest.mark.heavy
def test_monostamp_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    subprocess.run([sys.executable, "-m", "monostamp", "run", "--",
                    sys.executable, str(HERE / "tree_drawer.py"), str(out), str(N)],
                   env=clean_env(tmp_path), check=True, timeout=600)
    check_tree(out)
