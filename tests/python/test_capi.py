"""The C API for other extensions (monostamp_capi.h): examples/capi's
extension, built against the installed package's header found by
monostamp.get_include(), draws stamps that join the patched stdlib's
sequence.  Each scenario runs in a child with the built example on its path.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest

import monostamp
from conftest import REPO, cpython_only

pytestmark = cpython_only("the C API for other extensions (monostamp_capi.h's capsule)")
pytest.importorskip("setuptools")
EXAMPLE = REPO / "examples" / "capi"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The example's folder copied and built (setup.py build_ext), as a user
    of the installed monostamp would: the directory holding `stamps`."""
    # The compiler setuptools will call: CC, else the one CPython was built
    # with (sysconfig), which a machine may lack although it has a `cc`; a
    # wheel's suite runs with none (PATH without one, CC=/bin/false).
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")[0]
    if shutil.which(compiler) is None or subprocess.run(
            [compiler, "--version"], capture_output=True).returncode != 0:
        pytest.skip("no C compiler (%s) to build the example with" % compiler)
    src = tmp_path_factory.mktemp("capi") / "capi"
    shutil.copytree(EXAMPLE, src)
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", "lib",
         "--build-temp", "tmp"], cwd=src, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return src


def run(built, code):
    env = dict(os.environ, PYTHONPATH=str(built / "lib"))
    env.pop("MONOSTAMP_PATCH", None)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, cwd=str(built))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_header_is_in_the_installed_package():
    header = os.path.join(monostamp.get_include(), "monostamp_capi.h")
    assert os.path.isfile(header)
    # The installed package's, not this checkout's.
    assert not os.path.realpath(header).startswith(str(REPO / "bindings"))
    capsule = monostamp._monostamp._C_API
    assert type(capsule).__name__ == "PyCapsule"


def test_stamps_from_c_and_the_patched_time_ns_are_one_sequence(built):
    r = run(built, """
        import json, time
        import monostamp, stamps
        seq, sources = [], []
        with monostamp.patch():
            for _ in range(5000):
                seq.append(time.time_ns()); sources.append("time")
                seq.extend(stamps.many(2)); sources += ["c", "c"]
                ns, offset = stamps.now(); seq.append(ns); sources.append("c")
                seq.append(monostamp.time_ns()); sources.append("monostamp")
        print(json.dumps({"n": len(seq), "distinct": len(set(seq)),
                          "increasing": all(a < b for a, b in zip(seq, seq[1:])),
                          "from_c": sources.count("c")}))
    """)
    assert r["n"] == 25_000 and r["from_c"] == 15_000
    assert r["distinct"] == r["n"], "equal values: %d" % (r["n"] - r["distinct"])
    assert r["increasing"]


def test_under_a_patch_on_a_clock_of_its_own_c_draws_from_that_clock(built):
    # A manual clock far from today: the C API's stamps come from it (the
    # patch's clock), not from the default clock.
    r = run(built, """
        import json, time
        import monostamp, stamps
        clock = monostamp.Clock(source="manual", start_ns=10**18)
        with monostamp.patch(clock):
            seq = [time.time_ns(), stamps.time_ns(), stamps.now()[0], time.time_ns()]
        after = stamps.time_ns()
        print(json.dumps({"seq": seq, "after": after, "real": time.time_ns()}))
    """)
    seq = r["seq"]
    assert all(a < b for a, b in zip(seq, seq[1:])), seq
    assert all(10**18 <= v < 10**18 + 10**9 for v in seq), seq
    # The patch stopped: the default clock again, near the real time.
    assert abs(r["after"] - r["real"]) < 60 * 10**9


def test_without_a_patch_c_draws_from_the_default_clock(built):
    r = run(built, """
        import json
        import monostamp, stamps
        seq = []
        for _ in range(5000):
            seq.append(monostamp.time_ns()); seq.extend(stamps.many(2))
        ns, offset = stamps.now()
        print(json.dumps({"n": len(seq), "distinct": len(set(seq)), "offset": offset,
                          "expected_offset": monostamp.now().offset,
                          "increasing": all(a < b for a, b in zip(seq, seq[1:]))}))
    """)
    assert r["distinct"] == r["n"] == 15_000 and r["increasing"]
    assert r["offset"] == r["expected_offset"]


def test_the_demo_runs(built):
    env = dict(os.environ, PYTHONPATH=str(built / "lib"))
    env.pop("MONOSTAMP_PATCH", None)
    proc = subprocess.run([sys.executable, "demo.py"], cwd=str(built), env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "one increasing sequence, 0 equal" in proc.stdout
