"""whenever as a neighbour (docs/patch.md, "whenever"): its Rust extension
reads the OS clock itself (Rust's SystemTime, through libc's
clock_gettime), which monostamp.patch() cannot reach but the preload of
`monostamp run --native` does.  Each test runs whenever in children under
the preload; it fails without it: the values would not carry the state
file's sequence (pushed an hour ahead) nor interleave with the other
readers'.  Skipped only where whenever is not installed (tools/install-deps.sh
pins it).
"""
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import needs_preload
from test_preload import assert_increasing, preloaded, push_ahead  # noqa: F401 (a fixture)

whenever = pytest.importorskip("whenever")
pytestmark = [needs_preload, pytest.mark.skipif(not sys.platform.startswith("linux"),
                                                reason="the preload is built on Linux only")]

N = 20_000
# One line of ns per reader: Instant.now(), ZonedDateTime.now() and
# time.time_ns() (the stdlib, unpatched: the preload answers it too) in turn.
CHILD = textwrap.dedent("""
    import sys, time
    from whenever import Instant, ZonedDateTime
    seq = []
    for _ in range(int(sys.argv[1])):
        seq.append(Instant.now().timestamp(unit="nanosecond"))
        seq.append(ZonedDateTime.now("Europe/Berlin").timestamp(unit="nanosecond"))
        seq.append(time.time_ns())
    print(*seq)
""")


def values(stdout):
    return [int(v) for v in stdout.split()]


def test_whenever_now_draws_from_the_state_files_sequence(preloaded):
    floor = push_ahead(preloaded, 3600)
    out = subprocess.run([sys.executable, "-c", CHILD, str(N)], env=preloaded, check=True,
                         capture_output=True, text=True).stdout
    seq = values(out)
    assert len(seq) == 3 * N
    # An hour ahead of the real clock: the preload's answers, not the OS's.
    assert min(seq) > floor
    assert_increasing("Instant.now / ZonedDateTime.now / time.time_ns", seq)


def test_whenever_now_unique_across_processes_under_monostamp_run_native():
    # Two children of one `monostamp run --native`, on its fresh state file.
    script = '"$0" -c "$1" "$2" > "$3.a" & "$0" -c "$1" "$2" > "$3.b"; wait'
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        subprocess.run([sys.executable, "-m", "monostamp", "run", "--native", "--", "sh", "-c",
                        script, sys.executable, CHILD, str(N), out], check=True)
        with open(out + ".a") as a, open(out + ".b") as b:
            first, second = values(a.read()), values(b.read())
    assert len(first) == len(second) == 3 * N
    assert_increasing("the first child", first)
    assert_increasing("the second child", second)
    both = first + second
    assert len(set(both)) == len(both), "equal values: %d" % (len(both) - len(set(both)))


# What patch() can do: whenever's Rust extension asks time.time_ns() (so a
# patched one) only where time_machine can be imported, and reads the OS
# clock itself where it cannot.
PATCHED_CHILD = textwrap.dedent("""
    import sys
    if sys.argv[1] == "without":
        sys.modules["time_machine"] = None  # as where it is not installed
    import monostamp, whenever
    with monostamp.patch(monostamp.Clock(source="manual", start_ns=10**18)):
        print(whenever.Instant.now().timestamp(unit="nanosecond"),
              int(whenever._core._EXTENSION_LOADED))
""")


@pytest.mark.parametrize("time_machine", ["with", "without"])
def test_patch_reaches_whenever_only_where_time_machine_is_importable(time_machine):
    if time_machine == "with":
        pytest.importorskip("time_machine")
    env = dict(os.environ)
    env.pop("MONOSTAMP_PATCH", None)
    env.pop("LD_PRELOAD", None)
    out = subprocess.run([sys.executable, "-c", PATCHED_CHILD, time_machine], env=env,
                         check=True, capture_output=True, text=True).stdout
    ns, rust = (int(v) for v in out.split())
    reached = 10**18 <= ns < 10**18 + 10**9
    # Its pure-Python build (no wheel for the platform) calls time.time_ns().
    assert reached == (time_machine == "with" or not rust), (ns, rust)
