"""The wall clock set back (or forward) under a running process, as NTP, a
person or a VM resume does it: libfaketime preloaded into a child, whose
offset the test changes through a file mid-run, with the monotonic clock
left alone (DONT_FAKE_MONOTONIC=1), as in a real step.

Each child stamps, tells the test it is ready, waits while the test steps
its wall clock, then stamps on.  No call may raise or wait for the step; the
monotonic policies never go back, the forcing ones strictly increase, and
the clock's stats count the step.
"""
import glob
import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO, lua_env, posix_only

HOUR = 3600 * 10**9
DAY = 24 * HOUR


def _libfaketime():
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1") +
                   glob.glob("/usr/lib/faketime/libfaketime.so.1"))
    if not found:
        why = "libfaketime is not installed (tools/install-deps.sh installs it)"
        if os.environ.get("MONOSTAMP_REQUIRE_LUA"):  # make test: never a silent skip
            pytest.fail(why)
        pytest.skip(why)
    return found[0]


@pytest.fixture
def stepped(tmp_path):
    """run(argv, step, env=None) -> the child's JSON report: the child
    prints "ready" once it has stamped, the wall clock is moved by `step`
    (e.g. "-1h"), and the child's stamping goes on."""
    lib = _libfaketime()

    def run(argv, step, env=None):
        control = tmp_path / "faketime"
        control.write_text("+0\n")
        child_env = dict(env or os.environ, LD_PRELOAD=lib, DONT_FAKE_MONOTONIC="1",
                         FAKETIME_TIMESTAMP_FILE=str(control), FAKETIME_NO_CACHE="1")
        # The step is this child's alone: on the session's state file its
        # stamps of a day ahead would become every other test's sequence.
        child_env.pop("MONOSTAMP_SHARED", None)
        child_env.pop("MONOSTAMP_PATCH", None)
        proc = subprocess.Popen(argv, env=child_env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
            control.write_text(step + "\n")
            proc.stdin.write("go\n")
            proc.stdin.flush()
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 0, err
        return json.loads(out.strip().splitlines()[-1])

    return run


PY_CHILD = textwrap.dedent("""
    import datetime, json, sys, time
    import monostamp

    kind, policy = sys.argv[1], sys.argv[2]
    N = 3000
    if kind == "default":
        monostamp.set_policy(policy)
        draw, stats = monostamp.time_ns, None
    elif kind == "now":
        monostamp.set_policy(policy)
        draw, stats = (lambda: monostamp.now().utc_ns), None
    elif kind == "clock":
        clock = monostamp.Clock(policy=policy)
        draw, stats = clock.time_ns, clock.stats
    elif kind == "shared":
        monostamp.create_state_file(sys.argv[3])
        clock = monostamp.Clock(policy=policy, shared=sys.argv[3])
        draw, stats = clock.time_ns, clock.stats
    elif kind == "coarse":
        clock = monostamp.Clock(policy=policy, source="realtime_coarse")
        draw, stats = clock.time_ns, clock.stats
    elif kind == "patched":
        # datetime.now() and time.time_ns() in turn: one sequence, in ns.
        monostamp.patch().start()
        EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        US = datetime.timedelta(microseconds=1)
        def draw():
            if len(seen) % 2:
                return (datetime.datetime.now(datetime.timezone.utc) - EPOCH) // US * 1000
            return time.time_ns()
        stats = None
    seen, slowest = [], 0

    def burst():
        global slowest
        for _ in range(N):
            t0 = time.monotonic_ns()
            seen.append(draw())
            slowest = max(slowest, time.monotonic_ns() - t0)

    burst()
    print("ready", flush=True)
    sys.stdin.readline()
    burst()
    print(json.dumps({"seen": seen, "slowest": slowest,
                      "stats": stats() if stats else None}))
""")


def _check(report, policy, step_ns):
    seen = report["seen"]
    pairs = list(zip(seen, seen[1:]))
    if policy == "acceptPlatformTime":
        assert any(b < a for a, b in pairs), "the step never showed"
    elif policy == "monotonicAllowDuplicates":
        assert all(b >= a for a, b in pairs)
    else:
        assert all(b > a for a, b in pairs)
    # No call waited the step out: where the clock's counters are at hand
    # they show no wait at all; else the slowest call is far below what
    # waiting out even one lead bound would take (1 s), whatever the load.
    assert report["slowest"] < 10**9, report["slowest"]
    stats = report["stats"]
    if stats is not None:
        assert stats["lead_waits"] == 0 and stats["lead_errors"] == 0, stats
    if stats is not None and policy != "acceptPlatformTime":
        assert stats["backward_steps"] >= 1
        assert stats["largest_backward_ns"] >= abs(step_ns) - 10 * 10**9


POLICIES = ["acceptPlatformTime", "monotonicAllowDuplicates",
            "monotonicForceMicrosecondIncrement", "monotonicForceNanosecondIncrement"]


@posix_only("libfaketime is an LD_PRELOAD library")
@pytest.mark.parametrize("step,step_ns", [("-1h", -HOUR), ("-1d", -DAY)])
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("kind", ["clock", "shared", "coarse"])
def test_a_clock_goes_on_through_a_step_back(stepped, tmp_path, kind, policy, step, step_ns):
    report = stepped([sys.executable, "-c", PY_CHILD, kind, policy,
                      str(tmp_path / "seq.state")], step)
    _check(report, policy, step_ns)


@posix_only("libfaketime is an LD_PRELOAD library")
@pytest.mark.parametrize("step", ["-1h", "-1d", "+1d"])
@pytest.mark.parametrize("kind", ["default", "now", "patched"])
def test_the_default_clock_and_the_patch_go_on_through_a_step(stepped, kind, step):
    report = stepped([sys.executable, "-c", PY_CHILD, kind,
                      "monotonicForceNanosecondIncrement"], step)
    _check(report, "monotonicForceNanosecondIncrement", 0)


LUA_CHILD = textwrap.dedent("""
    local monostamp = require "monostamp"
    local policy = arg[1]
    local clock = monostamp.clock{policy = policy}
    local seen, slowest = {}, 0
    local function burst()
      for _ = 1, 3000 do
        local t0 = monostamp.monotonic_ns()
        seen[#seen + 1] = clock:time_ns()
        local took = monostamp.monotonic_ns() - t0
        if took > slowest then slowest = took end
      end
    end
    burst()
    print("ready"); io.stdout:flush()
    io.read("l")
    burst()
    local st = clock:stats()
    io.write('{"seen": [', table.concat(seen, ","), '], "slowest": ', slowest,
             ', "stats": {"backward_steps": ', st.backward_steps,
             ', "largest_backward_ns": ', st.largest_backward_ns,
             ', "lead_waits": ', st.lead_waits, ', "lead_errors": ', st.lead_errors, '}}\\n')
""")


@posix_only("libfaketime is an LD_PRELOAD library")
@pytest.mark.parametrize("policy", POLICIES[1:])
def test_a_lua_clock_goes_on_through_a_step_back(stepped, tmp_path, policy):
    lua, env = lua_env()
    script = tmp_path / "child.lua"
    script.write_text(LUA_CHILD)
    report = stepped([lua, str(script), policy], "-1d", env=env)
    _check(report, policy, -DAY)


@posix_only("libfaketime is an LD_PRELOAD library")
@pytest.mark.parametrize("policy", POLICIES[1:])
def test_a_c_clock_goes_on_through_a_step_back(stepped, policy):
    build = os.environ.get("MONOSTAMP_BUILD", str(REPO / "build"))
    program = os.path.join(build, "plain", "tests", "test_steps")
    if not os.path.exists(program):
        # make test builds it (test-c) before this suite; test-python alone
        # and the forky chroot's run do not.
        pytest.skip("%s is not built (make test-c builds it)" % program)
    report = stepped([program, "step-child", policy], "-1h")
    _check(report, policy, -HOUR)
