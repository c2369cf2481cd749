"""One state file shared by a PyPy, a CPython and a Lua process: 200,000
stamps each, 0 equal.  The test runs on either Python and starts the other
one, named by MONOSTAMP_OTHER_PYTHON (a python with monostamp installed:
make test-pypy names a CPython venv's; skipped where none is named, failed
under MONOSTAMP_REQUIRE_OTHER_PYTHON), and a Lua child (conftest.lua_env).
Each meets the others before its first stamp and half way (meet files),
so their spans overlap for certain.
"""
import os
import platform
import struct
import subprocess
import sys
import textwrap

import pytest

from conftest import LUA_MEET, LUA_WRITE_STAMPS, PY_MEET, assert_overlapping, lua_env, scaled

N = scaled(200000)
DRAWER = PY_MEET + textwrap.dedent("""
    import platform, struct, sys
    import monostamp
    state, out, prefix, my_id, n = sys.argv[1:6]
    n = int(n)
    clock = monostamp.Clock(shared=state)
    meet(prefix, "a", my_id, 3)
    v = [clock.time_ns() for _ in range(n // 2)]
    meet(prefix, "b", my_id, 3)
    v += [clock.time_ns() for _ in range(n - n // 2)]
    with open(out, "wb") as f:
        f.write(struct.pack("=%dq" % n, *v))
    print(platform.python_implementation())
""")
LUA_DRAWER = textwrap.dedent("""
    local monostamp = require "monostamp"
    local meet = dofile(%r)
    local state, out, prefix, my_id, n = arg[1], arg[2], arg[3], arg[4], tonumber(arg[5])
    local c = monostamp.clock{ shared = state }
    local nap = function() monostamp.sleep_ns(100000) end
    local v = {}
    meet(prefix .. "a", my_id, 3, nap)
    for i = 1, n // 2 do v[i] = c:time_ns() end
    meet(prefix .. "b", my_id, 3, nap)
    for i = n // 2 + 1, n do v[i] = c:time_ns() end
""" % LUA_MEET) + LUA_WRITE_STAMPS


def other_python():
    other = os.environ.get("MONOSTAMP_OTHER_PYTHON")
    if not other:
        if os.environ.get("MONOSTAMP_REQUIRE_OTHER_PYTHON"):
            pytest.fail("MONOSTAMP_OTHER_PYTHON is not set")
        pytest.skip("needs MONOSTAMP_OTHER_PYTHON: a %s with monostamp installed"
                    % ("CPython" if platform.python_implementation() == "PyPy" else "PyPy"))
    return other


def test_pypy_cpython_and_lua_share_one_state_file(tmp_path):
    other = other_python()
    lua, env = lua_env()
    state, prefix = str(tmp_path / "state"), str(tmp_path / "meet-")
    (tmp_path / "drawer.lua").write_text(LUA_DRAWER)
    outs = [str(tmp_path / ("%d.out" % i)) for i in (1, 2, 3)]
    children = [
        subprocess.Popen([sys.executable, "-c", DRAWER, state, outs[0], prefix, "1", str(N)],
                         stdout=subprocess.PIPE, text=True),
        subprocess.Popen([other, "-c", DRAWER, state, outs[1], prefix, "2", str(N)],
                         stdout=subprocess.PIPE, text=True),
        subprocess.Popen([lua, str(tmp_path / "drawer.lua"), state, outs[2], prefix, "3",
                          str(N)], env=env),
    ]
    printed = [c.communicate(timeout=600)[0] for c in children]
    assert [c.returncode for c in children] == [0, 0, 0]
    # One of each Python: this one and the other are not the same kind.
    assert sorted(p.strip() for p in printed[:2]) == ["CPython", "PyPy"]
    lists = []
    for out in outs:
        with open(out, "rb") as f:
            data = f.read()
        lists.append(list(struct.unpack("=%dq" % N, data)))
    for values in lists:
        assert all(b > a for a, b in zip(values, values[1:]))
    assert_overlapping(lists)
    everything = [v for values in lists for v in values]
    assert len(everything) == 3 * N
    assert len(set(everything)) == len(everything), "equal stamps across the processes"
