"""The preload beside monostamp's other layers on one state file
(docs/preload.md): one lead bound and one sequence, whoever draws.

- A flat-out drawer (a preloaded C loop of gettimeofday, a Python µs Clock,
  a Lua µs clock) beside a patched Python that reads once per ms: every
  patched value within the file's 5 ms of the raw clock, no patched call
  over 10 ms, no value in both processes, none going back.
- `monostamp run --native --grain us` gives a Python without monostamp
  distinct datetime.now() values, and four µs readers of four kinds on one
  file read no value twice.
- The docs' recipes that start processes on a state file in a directory
  just made, run as written: the first call returns at once, and within
  5 ms of the raw clock.

The raw clock is one no layer touches: libc's clock_gettime in a process
the preload is not loaded into (the patch changes Python's functions, not
libc), the preload's own exported read past itself, or the system call.
"""
import array
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
import time

import pytest

from monostamp import _run
from conftest import (LUA_MEET, LUA_WRITE_STAMPS, PRELOAD_LIBRARY as LIBRARY, PY_MEET, REPO,
                      lua_env, native_speed_only, needs_preload as needs_library, require_cc)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the preload is built on Linux only")


BOUND_NS = 5_000_000    # the preload's and the patch's lead bound
SLOWEST_NS = 10_000_000  # the longest a patched call may take
US_POLICY = "monotonicForceMicrosecondIncrement"


LAYERS = ("LD_PRELOAD", "MONOSTAMP_PATCH", "MONOSTAMP_SHARED", "MONOSTAMP_GRAIN")


def without_layers(env):
    return {k: v for k, v in env.items() if k not in LAYERS}


def clean_env(**extra):
    """os.environ without any layer of monostamp's, plus `extra`."""
    env = without_layers(os.environ)
    env.update(extra)
    return env


def preloaded_env(state, **extra):
    env = _run.with_preload(clean_env(MONOSTAMP_SHARED=state))
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def c_programs(tmp_path_factory):
    """tests/preload's child programs, built for this run."""
    require_cc()
    out = tmp_path_factory.mktemp("native-seams")
    built = {}
    for name in ("flat_out", "stamper", "first_call"):
        built[name] = str(out / name)
        subprocess.run(["cc", "-std=c11", "-O2", "-D_DEFAULT_SOURCE", "-D_GNU_SOURCE",
                        "-I", str(REPO / "tests" / "preload"),
                        str(REPO / "tests" / "preload" / (name + ".c")), "-o", built[name]],
                       check=True)
    return built


@pytest.fixture
def state(tmp_path):
    """A state file's path, the first entry of a fresh private directory."""
    d = tmp_path / "fresh"
    d.mkdir(mode=0o700)
    return str(d / "state")


def read_ns(path):
    values = array.array("q")
    with open(path, "rb") as f:
        values.frombytes(f.read())
    return values


def assert_increasing(what, values):
    for i in range(1, len(values)):
        assert values[i] > values[i - 1], "%s: value %d (%d) not above %d" % (
            what, i, values[i], values[i - 1])


def assert_none_shared(lists):
    seen = set()
    for name, values in lists.items():
        common = seen.intersection(values)
        assert not common, "%s read %d values another reader read too, e.g. %d" % (
            name, len(common), min(common))
        seen.update(values)


# ------------------------------------------------------ one bound, all layers

#: A patched Python (MONOSTAMP_PATCH=1): time.time() and time.time_ns() once
#: per ms for the given seconds, each call timed on the monotonic clock and
#: its value compared with libc's clock_gettime read after it (libc is not
#: patched, and no preload is loaded here).
PATCHED_READER = textwrap.dedent("""
    import array, ctypes, json, os, sys, time
    assert "monostamp" in sys.modules, "the startup hook did not patch this process"
    assert "LD_PRELOAD" not in os.environ
    class timespec(ctypes.Structure):
        _fields_ = [("s", ctypes.c_long), ("ns", ctypes.c_long)]
    libc = ctypes.CDLL(None)
    def raw():
        ts = timespec()
        assert libc.clock_gettime(0, ctypes.byref(ts)) == 0
        return ts.s * 10**9 + ts.ns
    out, seconds, ready, drawing = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
    # A first draw makes the patch's promise of 5 ms to the file; then the
    # drawer may start, and the reading starts once it draws.
    time.time_ns()
    open(ready, "w").close()
    give_up = time.monotonic() + 60
    while not os.path.exists(drawing):
        assert time.monotonic() < give_up, "the drawer never started drawing"
        time.sleep(0.001)
    values, floats = array.array("q"), []
    slowest = lead = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic_ns()
        f = time.time()
        t1 = time.monotonic_ns()
        n = time.time_ns()
        t2 = time.monotonic_ns()
        r = raw()
        slowest = max(slowest, t1 - t0, t2 - t1)
        # The float holds the stamp to about 0.25 us: enough for a lead.
        lead = max(lead, n - r, round(f * 1e9) - r)
        values.append(n)
        floats.append(f)
        time.sleep(0.001)
    assert all(b > a for a, b in zip(floats, floats[1:])), "time.time() went back or repeated"
    with open(out, "wb") as fh:
        values.tofile(fh)
    print(json.dumps({"slowest_ns": slowest, "lead_ns": lead, "n": len(values)}))
""")

#: A Python µs Clock on the file, drawing flat out until STOP exists.
PY_DRAWER = textwrap.dedent("""
    import array, os, sys, monostamp
    state, out, ready, stop = sys.argv[1:5]
    c = monostamp.Clock(shared=state, policy=%r)
    v = array.array("q")
    while True:
        for _ in range(4096):
            v.append(c.time_ns())
        if len(v) == 4096:
            open(ready, "w").close()
        if os.path.exists(stop):
            break
    with open(out, "wb") as f:
        v.tofile(f)
""" % US_POLICY)

#: The same in Lua.
LUA_DRAWER = textwrap.dedent("""
    local monostamp = require "monostamp"
    local state, out, ready, stop = arg[1], arg[2], arg[3], arg[4]
    local c = monostamp.clock{ shared = state, policy = "%s" }
    local v, n = {}, 0
    while true do
      for _ = 1, 4096 do n = n + 1; v[n] = c:time_ns() end
      if n == 4096 then assert(io.open(ready, "w")):close() end
      local f = io.open(stop, "r")
      if f then f:close() break end
    end
""" % US_POLICY) + LUA_WRITE_STAMPS


def drawer_command(kind, c_programs, state, out, ready, stop):
    """(argv, env) of a flat-out drawer of the given kind on `state`."""
    if kind == "c-gettimeofday":
        return ([c_programs["flat_out"], "gettimeofday", out, ready, stop], preloaded_env(state))
    if kind == "python-clock":
        return ([sys.executable, "-c", PY_DRAWER, state, out, ready, stop], clean_env())
    lua, env = lua_env()
    script = os.path.join(os.path.dirname(out), "drawer.lua")
    with open(script, "w") as f:
        f.write(LUA_DRAWER)
    return ([lua, script, state, out, ready, stop], without_layers(env))


@needs_library
@native_speed_only("the drawer must outrun one us per us for the bound to matter")
@pytest.mark.parametrize("drawer", ["c-gettimeofday", "python-clock", "lua-clock"])
def test_one_bound_beside_a_flat_out_drawer(drawer, c_programs, state, tmp_path):
    out, drawing, stop = (str(tmp_path / name) for name in ("drawer.out", "drawing", "stop"))
    patched_out, patched_ready = str(tmp_path / "patched.out"), str(tmp_path / "patched-ready")
    # The patched reader first, so that its bound is the file's before the
    # drawer draws (a file a looser reader already drove ahead is waited
    # out once, by the first draw that promises less: docs/preload.md).
    reader = subprocess.Popen([sys.executable, "-c", PATCHED_READER, patched_out, "5",
                               patched_ready, drawing],
                              env=clean_env(MONOSTAMP_PATCH="1", MONOSTAMP_SHARED=state),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    drawer_proc = None
    try:
        give_up = time.monotonic() + 60
        while not os.path.exists(patched_ready):
            assert reader.poll() is None, "the patched reader died: %s" % (
                reader.communicate()[1],)
            assert time.monotonic() < give_up, "the patched reader never started"
            time.sleep(0.01)
        argv, env = drawer_command(drawer, c_programs, state, out, drawing, stop)
        # The drawer runs niced: the test is of the clock's waits, not of
        # the scheduler's, so the patched reader is the one served first.
        drawer_proc = subprocess.Popen(["nice", "-n", "10"] + argv, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        reader_stdout, reader_stderr = reader.communicate(timeout=300)
        assert reader.returncode == 0, reader_stderr
    finally:
        open(stop, "w").close()
        if reader.poll() is None:
            reader.kill()
            reader.wait()
        if drawer_proc is not None:
            drawer_stdout, drawer_stderr = drawer_proc.communicate(timeout=300)
    assert drawer_proc.returncode == 0, drawer_stderr
    stats = json.loads(reader_stdout)
    patched, drawn = read_ns(patched_out), read_ns(out)
    assert stats["n"] >= 1000, stats  # about 4,000-5,000: once per ms for 5 s
    assert stats["lead_ns"] <= BOUND_NS, "a patched value led the raw clock by %.3f ms" % (
        stats["lead_ns"] / 1e6)
    assert stats["slowest_ns"] <= SLOWEST_NS, "a patched call took %.3f ms" % (
        stats["slowest_ns"] / 1e6)
    assert_increasing("the patched reader", patched)
    assert_increasing("the %s drawer" % drawer, drawn)
    # The drawer drew before the first patched value and after the last.
    assert drawn[0] < patched[0] and patched[-1] < drawn[-1]
    assert_none_shared({"the patched reader": patched, "the %s drawer" % drawer: drawn})
    if drawer == "c-gettimeofday":
        n, seconds, raw_end = drawer_stdout.split()
        # Held to one unique µs per µs of real time (and its lead within
        # the bound at the end): never run ahead by its own speed.
        assert int(n) <= float(seconds) * 1e6 + 2 * BOUND_NS / 1000, drawer_stdout
        assert drawn[-1] - int(raw_end) <= BOUND_NS


@needs_library
@native_speed_only("counts calls against one us per us")
def test_the_c_drawer_outruns_one_us_per_us_without_the_preload(c_programs, tmp_path):
    """The control of the test above: unbounded, the C loop reads far more
    than 1 M times a second (and repeats µs), so the bound is what held it."""
    out, ready, stop = (str(tmp_path / name) for name in ("out", "ready", "stop"))
    p = subprocess.Popen([c_programs["flat_out"], "gettimeofday", out, ready, stop],
                         env=clean_env(), stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    open(stop, "w").close()
    n, seconds, _ = p.communicate(timeout=60)[0].split()
    assert p.returncode == 0
    values = read_ns(out)
    assert int(n) / float(seconds) > 1e6, "%s calls in %s s" % (n, seconds)
    assert len(set(values)) < len(values)


# ------------------------------------------------------ the grain for µs readers

#: A Python that cannot patch itself nor import monostamp (-I -S: no site,
#: so neither the startup hook nor site-packages).
BARE = textwrap.dedent("""
    import importlib.util, sys
    assert importlib.util.find_spec("monostamp") is None, "monostamp is importable here"
    assert "monostamp" not in sys.modules
""")

#: A µs reader of datetime.now() (as aware UTC, to count µs since the
#: epoch): N values, meeting the others before the first and half way.
US_READER = PY_MEET + textwrap.dedent("""
    import array, datetime, sys
    EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    US = datetime.timedelta(microseconds=1)
    def now_ns():
        return (datetime.datetime.now(datetime.timezone.utc) - EPOCH) // US * 1000
    prefix, out, n, my_id = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    v = array.array("q")
    meet(prefix, "a", my_id, 4)
    v.extend(now_ns() for _ in range(n // 2))
    meet(prefix, "b", my_id, 4)
    v.extend(now_ns() for _ in range(n - n // 2))
    with open(out, "wb") as f:
        v.tofile(f)
""")

#: The same in Lua, from a µs clock on the file.
LUA_US_READER = textwrap.dedent("""
    local monostamp = require "monostamp"
    local meet = dofile(%r)
    local state, prefix, out, n = arg[1], arg[2], arg[3], tonumber(arg[4])
    local c = monostamp.clock{ shared = state, policy = "%s" }
    local function pause() monostamp.sleep_ns(100000) end
    local v = {}
    meet(prefix .. "a", 4, 4, pause)
    for i = 1, n // 2 do v[i] = c:time_ns() end
    meet(prefix .. "b", 4, 4, pause)
    for i = n // 2 + 1, n do v[i] = c:time_ns() end
""" % (LUA_MEET, US_POLICY)) + LUA_WRITE_STAMPS


@needs_library
def test_run_native_grain_us_gives_a_bare_python_distinct_datetimes():
    child = BARE + textwrap.dedent("""
        import datetime
        v = [datetime.datetime.now() for _ in range(100000)]
        print(len(set(v)), all(b > a for a, b in zip(v, v[1:])))
    """)
    r = subprocess.run([sys.executable, "-m", "monostamp", "run", "--native", "--grain", "us",
                        "--", sys.executable, "-I", "-S", "-c", child],
                       env=clean_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    distinct, increasing = r.stdout.split()
    assert (int(distinct), increasing) == (100000, "True"), r.stdout


@needs_library
def test_four_kinds_of_us_reader_on_one_file(c_programs, state, tmp_path):
    """A preloaded C gettimeofday reader, a preloaded bare Python's
    datetime.now() at grain us, a patched Python's datetime.now(), a Lua µs
    clock: meeting before they read and half way, 0 values twice."""
    lua, lua_environment = lua_env()
    n = 50000
    prefix = str(tmp_path / "meet-")
    outs = [str(tmp_path / ("out%d" % i)) for i in range(4)]
    lua_script = tmp_path / "reader.lua"
    lua_script.write_text(LUA_US_READER)
    procs = {
        "preloaded C gettimeofday": subprocess.Popen(
            [c_programs["stamper"], "gettimeofday", str(n), outs[0], prefix, "1", "4"],
            env=preloaded_env(state)),
        "preloaded bare Python, grain us": subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", BARE + US_READER, prefix, outs[1], str(n), "2"],
            env=preloaded_env(state, MONOSTAMP_GRAIN="us")),
        "patched Python": subprocess.Popen(
            [sys.executable, "-c", US_READER, prefix, outs[2], str(n), "3"],
            env=clean_env(MONOSTAMP_PATCH="1", MONOSTAMP_SHARED=state)),
        "Lua us clock": subprocess.Popen(
            [lua, str(lua_script), state, prefix, outs[3], str(n)],
            env=without_layers(lua_environment)),
    }
    for name, p in procs.items():
        assert p.wait(timeout=300) == 0, name
    lists = {}
    for name, out in zip(procs, outs):
        values = read_ns(out)
        assert len(values) == n, name
        assert_increasing(name, values)
        assert all(v % 1000 == 0 for v in values), name + " read a value that is not a whole us"
        lists[name] = values
    assert_none_shared(lists)


# ------------------------------------------------------ the docs' recipes

def recipes():
    """Each ```sh block of README.md, docs/preload.md and docs/patch.md that
    starts processes on MONOSTAMP_SHARED in a directory it just made."""
    found = []
    for doc in ("README.md", "docs/preload.md", "docs/patch.md"):
        text = (REPO / doc).read_text(encoding="utf-8")
        for block in re.findall(r"```sh\n(.*?)```", text, re.S):
            if "MONOSTAMP_SHARED" in block and re.search(r"\bmkdir\b|\bmktemp -d\b", block):
                found.append((doc, block))
    return found


#: A patched Python's first time.time_ns(), timed, against libc's clock
#: (which the patch does not change).
FIRST_CALL_PY = textwrap.dedent("""
    import ctypes, sys, time
    t0 = time.monotonic_ns()
    v = time.time_ns()
    t1 = time.monotonic_ns()
    class timespec(ctypes.Structure):
        _fields_ = [("s", ctypes.c_long), ("ns", ctypes.c_long)]
    ts = timespec()
    assert ctypes.CDLL(None).clock_gettime(0, ctypes.byref(ts)) == 0
    assert "monostamp" in sys.modules, "not patched"
    print(t1 - t0, v - (ts.s * 10**9 + ts.ns))
""")


def test_the_docs_have_recipes_to_run():
    docs = {doc for doc, _ in recipes()}
    assert {"docs/preload.md", "docs/patch.md"} <= docs, docs


@needs_library
@pytest.mark.parametrize("doc,recipe", recipes(), ids=lambda v: v if v.endswith(".md") else "")
def test_recipe_on_a_fresh_directory(doc, recipe, c_programs, tmp_path):
    """Run as written, with what it stands for filled in: the library the
    package ships for the installed one, a fresh path of the test's for
    /tmp/stamps, and a timed first call for the user's command."""
    probe = tmp_path / "first_call.py"
    probe.write_text(FIRST_CALL_PY)
    commands = {
        "your-command": shlex.quote(c_programs["first_call"]),
        "python manage.py test --parallel 4": "%s %s" % (shlex.quote(sys.executable),
                                                         shlex.quote(str(probe))),
    }
    script = recipe.replace("/usr/local/lib/libmonostamp_preload.so", shlex.quote(LIBRARY))
    script = script.replace('"$(monostamp preload-path)"', shlex.quote(LIBRARY))
    script = script.replace("/tmp/stamps", shlex.quote(str(tmp_path / "stamps")))
    known = [placeholder for placeholder in commands if placeholder in script]
    assert len(known) == 1, "%s: a recipe whose command the test does not know:\n%s" % (
        doc, recipe)
    script = script.replace(known[0], commands[known[0]])
    r = subprocess.run(["sh", "-ec", script], env=clean_env(TMPDIR=str(tmp_path)),
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, "%s\n%s" % (script, r.stderr)
    duration, lead = (int(v) for v in r.stdout.split())
    assert duration <= SLOWEST_NS, "%s: the first call took %.3f ms" % (doc, duration / 1e6)
    assert lead <= BOUND_NS, "%s: the first call led the raw clock by %.3f ms" % (
        doc, lead / 1e6)
