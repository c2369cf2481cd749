"""The perf gate fails where it must: run by hand or by pytest,

    python3 -m pytest tests/perf/test_gate.py --build-dir BUILD   (or MONOSTAMP_PERF_BUILD)

with the package of this tree importable (MONOSTAMP_PERF_SITE: a folder that
holds it, such as make's unpacked wheel).  A module __getattr__ added back
to a copy of the package puts monostamp.time_ns() over its limit; the
extension built at -O0 puts the Stamp paths over theirs.
"""
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("MONOSTAMP_PERF_BUILD", os.path.join(ROOT, "build"))
SITE = os.environ.get("MONOSTAMP_PERF_SITE", "")


def gate(site):
    run = subprocess.run([sys.executable, os.path.join(HERE, "gate.py"), "--build", BUILD,
                          "--only", "python", "--site", site], stdout=subprocess.PIPE,
                         universal_newlines=True)
    return run.returncode, run.stdout


def site_copy(tmp_path):
    if not SITE:
        pytest.skip("MONOSTAMP_PERF_SITE names no folder holding the package")
    dest = tmp_path / "site"
    shutil.copytree(os.path.join(SITE, "monostamp"), str(dest / "monostamp"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def test_the_gate_passes_the_package_as_it_is(tmp_path):
    code, out = gate(str(site_copy(tmp_path)))
    assert "monostamp.time_ns() is over" not in out, out


def test_a_module_getattr_fails_the_gate(tmp_path):
    site = site_copy(tmp_path)
    with open(str(site / "monostamp" / "__init__.py"), "a") as f:
        f.write("\n\ndef __getattr__(name):\n    raise AttributeError(name)\n")
    code, out = gate(str(site))
    assert code == 1 and "monostamp.time_ns() is over its limit" in out, out


def test_an_extension_built_at_O0_fails_the_gate(tmp_path):
    site = site_copy(tmp_path)
    # A copy of the tree: setup.py builds where it stands.
    src = tmp_path / "src"
    shutil.copytree(ROOT, str(src), ignore=shutil.ignore_patterns(
        ".git", "build", "build-*", "*.egg-info", "__pycache__", "dist"))
    # CFLAGS come after setup.py's own flags on the command line: -O0 wins.
    env = dict(os.environ, CFLAGS="-O0")
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib",
                    str(tmp_path / "ext")], cwd=str(src), env=env, check=True,
                   stdout=subprocess.DEVNULL)
    for old in (site / "monostamp").glob("_monostamp*.so"):
        old.unlink()
    for new in (tmp_path / "ext" / "monostamp").glob("_monostamp*.so"):
        shutil.copy(str(new), str(site / "monostamp"))
    code, out = gate(str(site))
    assert code == 1 and "is over its limit" in out, out
