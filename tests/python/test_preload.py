"""libmonostamp_preload.so under processes that are not monostamp's
(docs/preload.md): C programs, a Python child without patch(), Lua, date.

The library is the one the package ships (monostamp._run); the children
get it through LD_PRELOAD and a state file in a fresh directory through
MONOSTAMP_SHARED, as `monostamp run --native` gives them.  Each test fails
without the library: µs readings repeat, processes' readings collide, or
values do not carry the state file's sequence.
"""
import array
import datetime
import mmap
import os
import shutil
import struct
import subprocess
import sys
import textwrap
import time

import pytest

from monostamp import _run
from conftest import (PRELOAD_LIBRARY as LIBRARY, PY_MEET, REPO, needs_preload as needs_library,
                      require_cc)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the preload is built on Linux only")


N = 200_000


@pytest.fixture(scope="module")
def stamper(tmp_path_factory):
    """tests/preload/stamper.c built for this run (cc is the project's)."""
    require_cc()
    out = tmp_path_factory.mktemp("stamper") / "stamper"
    subprocess.run(["cc", "-std=c11", "-O2", "-D_DEFAULT_SOURCE", "-I", str(REPO / "tests" / "preload"),
                    str(REPO / "tests" / "preload" / "stamper.c"), "-o", str(out)], check=True)
    return str(out)


@pytest.fixture
def preloaded(tmp_path):
    """The environment of a preloaded child on a fresh state file."""
    state = tmp_path / "fresh" / "state"
    state.parent.mkdir(mode=0o700)
    env = _run.with_preload(os.environ)
    env["MONOSTAMP_SHARED"] = str(state)
    return env


def read_ns(path):
    values = array.array("q")
    with open(path, "rb") as f:
        values.frombytes(f.read())
    return list(values)


def assert_increasing(what, values):
    for i in range(1, len(values)):
        assert values[i] > values[i - 1], "%s: reading %d (%d) not above %d" % (
            what, i, values[i], values[i - 1])


def push_ahead(env, seconds):
    """Makes the state file (through a preloaded `true`) and moves its
    sequence `seconds` past the real clock: from then on every answer of the
    preload is above that, where the real clock never is."""
    subprocess.run(["true"], env=env, check=True)
    floor = time.time_ns() + seconds * 1_000_000_000
    with open(env["MONOSTAMP_SHARED"], "r+b") as f, mmap.mmap(f.fileno(), 128) as m:
        m[64:72] = struct.pack("=q", floor)
    return floor


@needs_library
def test_four_processes_no_equal_value(stamper, preloaded, tmp_path):
    """C clock_gettime, C gettimeofday, a Python child's time.time_ns()
    without patch() and C timespec_get, at once on one state file."""
    prefix = str(tmp_path / "meet-")
    child = PY_MEET + textwrap.dedent("""
        import array, sys
        prefix, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
        v = array.array("q")
        meet(prefix, "a", 3, 4)
        v.extend(time.time_ns() for _ in range(n // 2))
        meet(prefix, "b", 3, 4)
        v.extend(time.time_ns() for _ in range(n - n // 2))
        with open(out, "wb") as f:
            v.tofile(f)
    """)
    outs = [str(tmp_path / ("out%d" % i)) for i in range(4)]
    procs = [
        subprocess.Popen([stamper, "clock_gettime", str(N), outs[0], prefix, "1", "4"], env=preloaded),
        subprocess.Popen([stamper, "gettimeofday", str(N), outs[1], prefix, "2", "4"], env=preloaded),
        subprocess.Popen([sys.executable, "-c", child, prefix, outs[2], str(N)], env=preloaded),
        subprocess.Popen([stamper, "timespec_get", str(N), outs[3], prefix, "4", "4"], env=preloaded),
    ]
    for p in procs:
        assert p.wait(timeout=300) == 0
    every = []
    for name, out in zip(["clock_gettime", "gettimeofday", "time.time_ns()", "timespec_get"], outs):
        values = read_ns(out)
        assert len(values) == N
        assert_increasing(name, values)
        every += values
    assert len(set(every)) == len(every), "%d equal values" % (len(every) - len(set(every)))


@needs_library
def test_date_1000_distinct(preloaded):
    """1000 `date` processes, four loops of 250 at once on one state file:
    each one's first reading finds the sequence an hour ahead and naps its
    lead bound before it answers, so side by side the naps overlap, and
    the values must differ across processes that run at the same time."""
    floor = push_ahead(preloaded, 3600)
    # Each `date` prints its line with one write() of a few bytes: lines
    # from the four loops never mix on the pipe.
    script = ('for j in 1 2 3 4; do (i=0; while [ $i -lt 250 ]; do date +%s%N; i=$((i+1)); done) & '
              'done; wait')
    out = subprocess.run(["sh", "-c", script], env=preloaded, check=True,
                         capture_output=True, text=True).stdout.split()
    values = [int(v) for v in out]
    assert len(values) == 1000
    assert len(set(values)) == 1000
    assert min(values) > floor, "date read the real clock, not the state file's sequence"


@needs_library
def test_lua_never_backwards(preloaded):
    lua = shutil.which("lua5.4")
    if lua is None:
        pytest.skip("no lua5.4")
    has_socket = subprocess.run([lua, "-e", "require 'socket'"], capture_output=True).returncode == 0
    script = textwrap.dedent("""
        local ok, socket = pcall(require, "socket")
        local n, last = 100000, 0
        for i = 1, n do
          local t = os.time()
          assert(t >= math.floor(last), "os.time() " .. t .. " behind " .. last)
          last = t
          if ok then
            local g = socket.gettime()
            assert(g > last or (g >= last and math.floor(g) == g), "gettime " .. g .. " behind " .. last)
            assert(g >= t, "gettime " .. g .. " behind os.time() " .. t)
            last = g
          end
        end
        print(os.time())
    """)
    floor = push_ahead(preloaded, 3600)
    out = subprocess.run([lua, "-e", script], env=preloaded, check=True, capture_output=True,
                         text=True).stdout
    # os.time() went through the preload: it carries the sequence's hour.
    assert int(out) >= floor // 1_000_000_000
    if not has_socket:
        pytest.skip("LuaSocket not installed: os.time() alone was checked")


NATIVE = textwrap.dedent("""
    import ctypes, datetime, sys, time
    import monostamp
    libc = ctypes.CDLL(None)
    class timespec(ctypes.Structure):
        _fields_ = [("s", ctypes.c_long), ("ns", ctypes.c_long)]
    def native():
        ts = timespec()
        assert libc.clock_gettime(0, ctypes.byref(ts)) == 0
        return ts.s * 10**9 + ts.ns
""")


@needs_library
def test_monostamp_clocks_read_past_the_preload(preloaded):
    """The extension's core reads what libc gives, not the preload's answer
    (which carries the state file's sequence, an hour ahead here)."""
    floor = push_ahead(preloaded, 3600)
    child = NATIVE + "print(monostamp.Clock('acceptPlatformTime').time_ns(), native())"
    out = subprocess.run([sys.executable, "-c", child], env=preloaded, check=True,
                         capture_output=True, text=True).stdout.split()
    raw, answer = int(out[0]), int(out[1])
    assert answer > floor
    assert raw < floor - 1800 * 10**9, "a monostamp clock read the preload's answer"


@needs_library
def test_patched_and_native_readers_one_sequence(preloaded):
    """patch()'s time.time_ns() and datetime.now() (the core, on the same
    state file) and libc's clock_gettime (the preload): one sequence."""
    child = NATIVE + textwrap.dedent("""
        seq = []
        with monostamp.patch():
            for _ in range(5000):
                seq.append(time.time_ns())
                seq.append(native())
                dt = datetime.datetime.now(datetime.timezone.utc)
                seq.append((int(dt.timestamp()) * 10**6 + dt.microsecond) * 1000)
        print(*seq)
    """)
    out = subprocess.run([sys.executable, "-c", child], env=preloaded, check=True,
                         capture_output=True, text=True).stdout.split()
    seq = [int(v) for v in out]
    assert len(seq) == 15000
    assert_increasing("patched time_ns / native clock_gettime / datetime.now", seq)


@needs_library
def test_pytime_time_through_the_c_api(preloaded, tmp_path):
    if sys.version_info < (3, 13):
        pytest.skip("PyTime_Time() is public from CPython 3.13")
    require_cc()
    import sysconfig
    src = tmp_path / "pytime.c"
    src.write_text(textwrap.dedent("""
        #include <Python.h>
        static PyObject *now(PyObject *m, PyObject *a) {
            PyTime_t t;
            if (PyTime_Time(&t) < 0) return NULL;
            return PyLong_FromLongLong(t);
        }
        static PyMethodDef methods[] = {{"now", now, METH_NOARGS, ""}, {0}};
        static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "pytime", "", -1, methods};
        PyMODINIT_FUNC PyInit_pytime(void) { return PyModule_Create(&def); }
    """))
    so = tmp_path / ("pytime" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run(["cc", "-shared", "-fPIC", "-I", sysconfig.get_paths()["include"], str(src),
                    "-o", str(so)], check=True)
    floor = push_ahead(preloaded, 3600)
    child = "import pytime; v = [pytime.now() for _ in range(100000)]; " \
            "assert all(b > a for a, b in zip(v, v[1:])); print(v[0])"
    env = dict(preloaded, PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", child], env=env, check=True,
                         capture_output=True, text=True).stdout
    assert int(out) > floor


@needs_library
def test_unusable_state_file_one_line(tmp_path):
    env = _run.with_preload(os.environ)
    env["MONOSTAMP_SHARED"] = str(tmp_path / "missing-dir" / "state")
    r = subprocess.run(["sh", "-c", "date +%s; date +%s"], env=env, capture_output=True, text=True)
    assert r.returncode == 0
    # sh and each date say it once: one line per process, never more.
    lines = r.stderr.splitlines()
    assert lines and all(line.startswith("monostamp_preload: MONOSTAMP_SHARED=") for line in lines)
    assert len(lines) == 3, r.stderr
    assert abs(int(r.stdout.split()[0]) - time.time()) < 60


def test_with_preload_goes_first_and_keeps_the_rest(monkeypatch, tmp_path):
    lib = tmp_path / "libmonostamp_preload.so"
    lib.write_bytes(b"")
    monkeypatch.setattr(_run, "library_path", lambda: str(lib))
    if sys.platform in ("win32", "darwin"):
        with pytest.raises(_run.NativeUnavailable):
            _run.with_preload({})
        return
    assert _run.with_preload({})["LD_PRELOAD"] == str(lib)
    env = {"LD_PRELOAD": "/x/libfaketime.so.1:%s /y.so" % lib, "A": "1"}
    got = _run.with_preload(env)
    assert got["LD_PRELOAD"] == "%s /x/libfaketime.so.1 /y.so" % lib
    assert got["A"] == "1" and env["LD_PRELOAD"].startswith("/x/")  # a copy


def test_library_path_missing_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(_run, "__file__", str(tmp_path / "_run.py"))
    with pytest.raises(_run.NativeUnavailable) as err:
        _run.library_path()
    assert "\n" not in str(err.value) and "libmonostamp_preload.so" in str(err.value)


@pytest.mark.parametrize("places,found", [(["_native"], "_native"), ([""], None)],
                         ids=["_native", "the package itself"])
def test_library_path_is_in_native_alone(monkeypatch, tmp_path, places, found):
    # _native/, where no module finder sees it; a library at the package's
    # own directory (where builds put it before) is not used.
    package = tmp_path / "monostamp"
    for place in places:
        (package / place).mkdir(parents=True, exist_ok=True)
        (package / place / "libmonostamp_preload.so").write_bytes(b"")
    monkeypatch.setattr(_run, "__file__", str(package / "_run.py"))
    if found is None:
        with pytest.raises(_run.NativeUnavailable):
            _run.library_path()
    else:
        assert _run.library_path() == str(package / found / "libmonostamp_preload.so")


@pytest.mark.parametrize("name", ["site packages", "site:packages"])
def test_library_path_that_ld_preload_cannot_carry_is_one_line(monkeypatch, tmp_path, name):
    # The loader splits LD_PRELOAD at spaces and colons: a path holding one
    # would load nothing, silently.
    package = tmp_path / name / "monostamp"
    (package / "_native").mkdir(parents=True)
    (package / "_native" / "libmonostamp_preload.so").write_bytes(b"")
    monkeypatch.setattr(_run, "__file__", str(package / "_run.py"))
    with pytest.raises(_run.NativeUnavailable) as err:
        _run.library_path()
    assert "\n" not in str(err.value) and "LD_PRELOAD cannot carry" in str(err.value)
    assert repr(str(package / "_native" / "libmonostamp_preload.so")) in str(err.value)


def test_every_module_a_finder_lists_imports():
    # pydoc -k and pkgutil.iter_modules list what they find in the package:
    # the library, in _native/, is not among them.
    import importlib
    import pkgutil

    import monostamp
    names = [m.name for m in pkgutil.iter_modules(monostamp.__path__)]
    assert "libmonostamp_preload" not in names, names
    for name in names:
        importlib.import_module("monostamp." + name)


@needs_library
def test_run_native(tmp_path):
    # The run's fresh state file starts at the real clock: the values are
    # distinct, and none is more than a second from it.
    script = 'i=0; while [ $i -lt 1000 ]; do date +%s%N; i=$((i+1)); done'
    out = subprocess.run([sys.executable, "-m", "monostamp", "run", "--native", "--", "sh", "-c",
                          script], check=True, capture_output=True, text=True).stdout.split()
    assert len(set(out)) == 1000
    assert abs(int(out[-1]) - time.time_ns()) < 10**9


@needs_library
@pytest.mark.parametrize("grain", ["ns", "us"])
def test_a_preloaded_process_counts_into_the_state_file(stamper, preloaded, tmp_path, grain):
    # The preload's sequence is the core's clock: it adds what it counted to
    # the file's counts at exit, which monostamp stats reads.  At the µs
    # grain a tight loop reads the same µs over and over: most of its
    # stamps would have repeated without monostamp.
    out = str(tmp_path / "out")
    env = dict(preloaded, MONOSTAMP_GRAIN=grain)
    subprocess.run([stamper, "clock_gettime", "20000", out], env=env, check=True)
    counts = sys.modules["monostamp._monostamp"]._state_counts(env["MONOSTAMP_SHARED"])
    assert counts[0] == 20000
    assert_increasing(grain, read_ns(out))
    if grain == "us":
        assert counts[1] > 10000
        assert counts[3] >= 1000
