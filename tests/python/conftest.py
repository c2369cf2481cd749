"""Shared helpers for the Python binding's tests.

MONOSTAMP_TEST_SCALE (default 1) scales the loops of the tests marked
`heavy` (threads, leak check): tools/checks/test-pythons.sh runs every other
interpreter at a tenth of the work.
"""
import contextlib
import importlib.util
import os
import shutil
import sys
import zoneinfo
from pathlib import Path

import pytest

import wine_spawn

wine_spawn.install()

# test_pytest_plugin.py runs pytest inside pytest.
pytest_plugins = ["pytester"]

# Projects of their own, which test_suites_both_ways.py and test_django.py
# run in children.
collect_ignore = ["suites", "django_project"]

try:  # no example database, and hypothesis' caches outside the checkout
    import tempfile

    from hypothesis import HealthCheck, settings
    # No deadline and no too_slow health check: both time the machine, not
    # the code (a 2-core machine shared by other builds, or qemu-user for
    # make test-dist's aarch64 suite, failed a property for slow inputs).
    settings.register_profile("monostamp", database=None, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("monostamp")
    from hypothesis.configuration import set_hypothesis_home_dir
    set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "monostamp-hypothesis"))
except ImportError:
    pass

REPO = Path(__file__).resolve().parent.parent.parent
VECTORS = REPO / "tests" / "vectors"
SCALE = float(os.environ.get("MONOSTAMP_TEST_SCALE", "1"))

# Named zones come from the TZif files the vectors and the offsets written
# into the tests were computed from (tests/vectors/zoneinfo/README.md), so
# the suite gives the same result whatever tzdata the machine has: the core
# and glibc (also in children, through TZ) read TZDIR at each lookup, and
# zoneinfo, the tests' oracle, reads the same files (PYTHONTZPATH for
# children).  test_machine_zones.py alone reads the machine's own database.
PINNED_ZONES = VECTORS / "zoneinfo"
if not (PINNED_ZONES / "README.md").exists():
    raise RuntimeError("pinned zones missing: %s" % PINNED_ZONES)
# Kept for pytest-xdist's workers too, which inherit TZDIR already pinned
# ("" where the machine had none).
MACHINE_TZDIR = os.environ.setdefault("MONOSTAMP_MACHINE_TZDIR", os.environ.get("TZDIR", "")) or None
os.environ["TZDIR"] = os.environ["PYTHONTZPATH"] = str(PINNED_ZONES)
zoneinfo.reset_tzpath([str(PINNED_ZONES)])


@contextlib.contextmanager
def machine_zones():
    """TZDIR as the machine had it, for the block, so that zones the core
    opens by name come from the machine's own database.  Yields that
    folder.  (Stamp.astimezone keeps each zone it opens: use Clock.)"""
    del os.environ["TZDIR"]
    if MACHINE_TZDIR is not None:
        os.environ["TZDIR"] = MACHINE_TZDIR
    try:
        yield Path(MACHINE_TZDIR or "/usr/share/zoneinfo")
    finally:
        os.environ["TZDIR"] = str(PINNED_ZONES)


WINDOWS = sys.platform == "win32"


def posix_only(why):
    """Skips the test on Windows, saying what it needs that Windows lacks
    (make test-windows runs this suite there: docs/windows.md)."""
    return pytest.mark.skipif(WINDOWS, reason="POSIX only: " + why)


PYPY = sys.implementation.name == "pypy"


def cpython_only(feature):
    """Skips the test on PyPy, naming the CPython feature it tests, which
    PyPy's binding (the cffi module and monostamp/_pypy.py) has not."""
    return pytest.mark.skipif(PYPY, reason="CPython only: " + feature)


#: The features PyPy's binding lacks that several tests name.
EARLY_NAMES = ("the patch reaching names bound before it started (from time import time), "
               "a swap in CPython's method tables")
SUBINTERPRETERS = "subinterpreters (concurrent.interpreters)"
SLEEP_FINISH = ("the C extension's sleep plan and its Python finish (monostamp/_sleep.py); "
                "PyPy sleeps in the core")


# pytest-xdist is in the test extra (pip install "monostamp[test]"); a suite
# run without it (an sdist's tests in a bare venv) skips what needs -n.
HAVE_XDIST = importlib.util.find_spec("xdist") is not None
needs_xdist = pytest.mark.skipif(not HAVE_XDIST, reason="needs pytest-xdist (-n 2), which is "
                                 "not installed: pip install \"monostamp[test]\"")


def _preload_library():
    """(the installed preload library's path, None), or (None, why not)."""
    try:
        from monostamp import _run
        return _run.library_path(), None
    except Exception as exc:  # noqa: BLE001: any reason is a reason to skip
        return None, str(exc)


#: The preload library this install ships (monostamp preload-path), or None.
PRELOAD_LIBRARY, _NO_PRELOAD = _preload_library()
needs_preload = pytest.mark.skipif(PRELOAD_LIBRARY is None,
                                   reason="no preload: %s" % (_NO_PRELOAD,))

def require_cc():
    """Skips a test that compiles a C program of its own where no C compiler
    is reachable (make test-dist runs the suite on installed wheels so)."""
    if shutil.which("cc") is None:
        pytest.skip("builds a C program, and no C compiler (cc) is reachable here")


# make test-dist runs the suite on aarch64 wheels under qemu-user and says
# so in MONOSTAMP_TEST_EMULATED; a test that needs native call speed (a
# negative control that counts on calls landing in one clock tick) skips.
EMULATED = os.environ.get("MONOSTAMP_TEST_EMULATED", "")


def native_speed_only(why):
    return pytest.mark.skipif(bool(EMULATED), reason="needs native speed, and this runs under "
                              "%s emulation: %s" % (EMULATED, why))


def native_kernel_only(why):
    """For a test whose answer the emulator, not monostamp, gets wrong."""
    return pytest.mark.skipif(bool(EMULATED), reason="runs under %s emulation, which %s"
                              % (EMULATED, why))


def shown(path):
    """`path` as monostamp's messages show it: as given, between single
    quotes (the core's one wording for every binding, so a Windows path's
    backslashes are not doubled as in a repr)."""
    return "'%s'" % path


def scaled(n, minimum=1):
    """n scaled by MONOSTAMP_TEST_SCALE, at least `minimum`."""
    return max(minimum, int(n * SCALE))


def assert_overlapping(lists):
    """Each list's span (its least to its greatest stamp) overlaps another
    list's, or the test proved nothing: stamps taken one thread or process
    after the other are unique with no sharing at all.  The tests make this
    certain with barriers (see meet_halfway); the check keeps them honest."""
    spans = [(min(values), max(values)) for values in lists]
    for i, (lo, hi) in enumerate(spans):
        assert any(j != i and lo < other_hi and other_lo < hi
                   for j, (other_lo, other_hi) in enumerate(spans)), \
            "list %d of %d ran alone; the test proved nothing" % (i, len(spans))


def meet_halfway(n, draw, barrier):
    """[draw() for _ in range(n)], waiting at `barrier` (a threading or
    multiprocessing Barrier of all the drawers) before the first draw and
    again half way.  Every drawer then draws both before and after every
    other one's middle, however the machine schedules them, so their spans
    overlap for certain (assert_overlapping)."""
    barrier.wait(timeout=120)
    values = [draw() for _ in range(n // 2)]
    barrier.wait(timeout=120)
    values += [draw() for _ in range(n - n // 2)]
    return values


#: The same for a child process that has no Barrier to share: meet(phase)
#: makes the file prefix + phase + my_id and waits until those of ids
#: 1..total exist.  As tests/lua/meet.lua, which the Lua children use.
PY_MEET = """
import os, time

def meet(prefix, phase, my_id, total):
    open(prefix + phase + str(my_id), "w").close()
    give_up = time.monotonic() + 120  # a sibling that died
    while not all(os.path.exists(prefix + phase + str(i)) for i in range(1, total + 1)):
        assert time.monotonic() < give_up, "the others never reached " + phase
        time.sleep(0.0001)
"""

#: tests/lua/meet.lua, for Lua children: dofile(LUA_MEET)(prefix, id, total, sleep).
LUA_MEET = str(REPO / "tests" / "lua" / "meet.lua")

#: Lua's end of a child: its n stamps `v` written to `out` as native int64s
#: (in blocks: table.unpack of the whole list would pass Lua's C stack).
LUA_WRITE_STAMPS = """
local f = assert(io.open(out, "wb"))
for i = 1, n, 512 do
  local j = math.min(i + 511, n)
  f:write(string.pack(string.rep("=i8", j - i + 1), table.unpack(v, i, j)))
end
f:close()
"""


def read_vectors(name):
    """The rows of tests/vectors/<name> (or of an absolute path) as lists of str.

    Lines starting with '#' are comments; fields are separated by one TAB.
    A file that is missing or holds no row fails the test, naming it: the
    shared vectors are part of the suite, and a test that read none would
    pass having checked nothing (tests/c/vectors.h and tests/lua/helper.lua
    refuse them alike).
    """
    path = VECTORS / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        pytest.fail("shared vectors missing: %s (%s)" % (path, e.strerror or e), pytrace=False)
    rows = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            rows.append(line.split("\t"))
    if not rows:
        pytest.fail("shared vectors empty: %s holds no row" % path, pytrace=False)
    return rows


def lua_env():
    """(lua5.4's path, an environment) in which a Lua child's
    `require "monostamp"` loads the module make built: the C part from
    MONOSTAMP_LUA_CPATH (else build/lua), the Lua part from bindings/lua.

    Skips when either is missing; fails instead under MONOSTAMP_REQUIRE_LUA
    (make test sets it, so a missing module is never a silent skip there).
    """
    lua = shutil.which("lua5.4")
    cpath = os.environ.get("MONOSTAMP_LUA_CPATH")
    if not cpath and (REPO / "build" / "lua" / "monostamp" / "core.so").exists():
        cpath = str(REPO / "build" / "lua" / "?.so")
    if lua is None or not cpath:
        why = "lua5.4 or the built Lua module is missing (run `make lua`)"
        if os.environ.get("MONOSTAMP_REQUIRE_LUA"):
            pytest.fail(why)
        pytest.skip(why)
    return lua, dict(os.environ, LUA_CPATH=cpath + ";;",
                     LUA_PATH=str(REPO / "bindings" / "lua" / "?.lua") + ";;")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "heavy: long loops shortened by MONOSTAMP_TEST_SCALE")


def pytest_report_header(config):
    import monostamp
    return "monostamp %s from %s, MONOSTAMP_TEST_SCALE=%g" % (
        monostamp.__version__, monostamp._monostamp.__file__, SCALE)
