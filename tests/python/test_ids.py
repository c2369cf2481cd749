"""UUIDv7 ids (monostamp.uuid7, Clock.uuid7, uuid7_ns) and blocks of stamps
(monostamp.take, Clock.take): layout, the shared vectors, round trips, order
and uniqueness across threads, fork() children and processes of both
languages on one state file, and refusal of bad input."""
import multiprocessing
import os
import pickle
import subprocess
import sys
import threading
import time
import uuid

import pytest

import monostamp
from monostamp import Clock, Policy

from conftest import (LUA_MEET, PY_MEET, assert_overlapping, lua_env, meet_halfway, read_vectors,
                      scaled)

TAIL = (1 << 54) - 1


def method3(ns):
    """RFC 9562 method 3: the sub-ms part as 12 bits."""
    return (ns % 1_000_000) * 4096 // 1_000_000


def manual(start_ns, **kw):
    return Clock(source="manual", start_ns=start_ns, **kw)


# ------------------------------------------------------------------ layout

def test_an_id_is_a_stdlib_uuid_of_version_7_and_the_rfc_variant():
    u = monostamp.uuid7()
    assert type(u) is uuid.UUID
    assert u.version == 7
    assert u.variant == uuid.RFC_4122
    assert u.is_safe is uuid.SafeUUID.unknown
    assert uuid.UUID(str(u)) == u and hash(uuid.UUID(str(u))) == hash(u)
    assert pickle.loads(pickle.dumps(u)) == u
    with pytest.raises(TypeError):
        u.int = 5  # still immutable


def test_fields_are_the_stamp_and_the_round_trip_is_exact():
    start = 1_764_777_600_123_456_789
    c = manual(start)
    u = c.uuid7()
    assert u.int >> 80 == start // 1_000_000
    assert (u.int >> 64) & 0xFFF == method3(start)
    fraction = ((u.int >> 64) & 0xFFF) << 8 | (u.int >> 54) & 0xFF
    assert fraction == (start % 1_000_000) * 2**20 // 1_000_000
    assert monostamp.uuid7_ns(u) == start
    assert monostamp.uuid7_ns(str(u)) == start
    assert monostamp.uuid7_ns(str(u).upper()) == start
    assert monostamp.uuid7_ns(c.uuid7()) == start + 1


def test_default_clock_ids_round_trip_to_stamps_between_its_neighbours():
    before = monostamp.time_ns()
    ns = monostamp.uuid7_ns(monostamp.uuid7())
    assert before < ns < monostamp.time_ns()


def test_shared_vectors():
    rows = read_vectors("uuid7.tsv")
    assert len(rows) >= 20
    for ns, _tail, m3, text in rows:
        u = uuid.UUID(text)
        assert u.version == 7 and u.variant == uuid.RFC_4122
        assert (u.int >> 64) & 0xFFF == int(m3) == method3(int(ns))
        assert monostamp.uuid7_ns(u) == int(ns)
        assert monostamp.uuid7_ns(text) == int(ns)


def test_bad_vectors_are_refused_naming_the_value():
    rows = read_vectors("uuid7_bad.tsv")
    assert len(rows) >= 15
    for text, why in rows:
        with pytest.raises(ValueError) as e:
            monostamp.uuid7_ns(text)
        assert repr(text) in str(e.value)
        if why != "syntax":
            with pytest.raises(ValueError) as e:
                monostamp.uuid7_ns(uuid.UUID(text))
            assert text in str(e.value)


@pytest.mark.parametrize("bad", [5, 5.0, b"\x00" * 16, None])
def test_uuid7_ns_refuses_other_types(bad):
    with pytest.raises(TypeError, match="uuid.UUID or str"):
        monostamp.uuid7_ns(bad)


def test_no_id_before_1970():
    c = manual(-1, policy=Policy.ACCEPT_PLATFORM_TIME)
    with pytest.raises(ValueError, match=r"Clock.uuid7\(\)"):
        c.uuid7()


# ------------------------------------------------------------------- order

def test_a_manual_clock_stepped_back_still_gives_increasing_ids():
    # Unbounded: stepped back an hour, its stamps lead it by that hour.
    c = manual(1_764_777_600_000_000_000, max_lead_ns=0)
    a = c.uuid7()
    c.advance(-3_600_000_000_000)
    b, d = c.uuid7(), c.uuid7()
    assert a < b < d
    assert [monostamp.uuid7_ns(x) for x in (a, b, d)] == [
        1_764_777_600_000_000_000 + k for k in range(3)]


@pytest.mark.heavy
def test_8_threads_ids_increase_per_thread_and_are_all_distinct():
    c = Clock()
    n = scaled(200_000, 2_000)
    results = [None] * 8
    barrier = threading.Barrier(8)

    def work(k):
        results[k] = meet_halfway(n, c.uuid7, barrier)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for ids in results:
        assert all(a < b for a, b in zip(ids, ids[1:]))
    assert len({u.int for ids in results for u in ids}) == 8 * n
    assert_overlapping([[u.int for u in ids] for ids in results])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_fork_children_repeat_no_id_and_no_random_tail(tmp_path):
    n = scaled(30_000, 1_000)
    monostamp.uuid7()  # the parent's random buffer is warm before it forks
    barrier = multiprocessing.get_context("fork").Barrier(4)
    pids = []
    for k in range(3):
        pid = os.fork()
        if pid == 0:  # child: write its ids, then leave without cleanup
            status = 1
            try:
                ids = meet_halfway(n, monostamp.uuid7, barrier)
                with open(tmp_path / ("child%d" % k), "w") as f:
                    f.write("\n".join(map(str, ids)))
                status = 0
            finally:
                os._exit(status)
        pids.append(pid)
    mine = meet_halfway(n, monostamp.uuid7, barrier)
    for pid in pids:
        assert os.waitpid(pid, 0)[1] == 0
    lists = [mine] + [[uuid.UUID(line) for line in
                       (tmp_path / ("child%d" % k)).read_text().split()] for k in range(3)]
    for ids in lists:
        assert len(ids) == n
        assert all(a < b for a, b in zip(ids, ids[1:]))
    everything = [u.int for ids in lists for u in ids]
    assert len(set(everything)) == 4 * n
    assert_overlapping([[u.int for u in ids] for ids in lists])
    # A child that reused its parent's buffered random bytes would repeat
    # the parent's tails (54 bits each: a chance repeat is ~1e-8 here).
    assert len({x & TAIL for x in everything}) == 4 * n


# Child k of 4 (argv: state file, n, meeting prefix, k) meets the others
# before its first id and half way (conftest.PY_MEET, tests/lua/meet.lua),
# so the four certainly interleave.
PY_CHILD = PY_MEET + """
import sys, monostamp
c = monostamp.Clock(shared=sys.argv[1])
n, prefix, k = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
meet(prefix, "start", k, 4)
ids = [c.uuid7() for _ in range(n // 2)]
meet(prefix, "half", k, 4)
ids += [c.uuid7() for _ in range(n - n // 2)]
sys.stdout.write("\\n".join(map(str, ids)))
"""

LUA_CHILD = """
local monostamp = require "monostamp"
local meet = dofile(arg[5])
local function nap() monostamp.sleep_ns(100000) end
local c = assert(monostamp.clock{shared = arg[1]})
local n, prefix, k = tonumber(arg[2]), arg[3], tonumber(arg[4])
local out = {}
meet(prefix .. "start", k, 4, nap)
for i = 1, n // 2 do out[i] = c:uuid7() end
meet(prefix .. "half", k, 4, nap)
for i = n // 2 + 1, n do out[i] = c:uuid7() end
io.stdout:write(table.concat(out, "\\n"))
"""


def test_two_python_and_two_lua_processes_on_one_state_file(tmp_path):
    lua, env = lua_env()
    state = str(tmp_path / "state")
    n = scaled(100_000, 5_000)
    Clock(shared=state)  # the file exists before the four race to open it
    prefix = str(tmp_path / "meet-")
    children = [subprocess.Popen([sys.executable, "-c", PY_CHILD, state, str(n), prefix, str(k)],
                                 stdout=subprocess.PIPE, env=env) for k in (1, 2)]
    children += [subprocess.Popen([lua, "-", state, str(n), prefix, str(k), LUA_MEET],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
                 for k in (3, 4)]
    for child in children[2:]:
        child.stdin.write(LUA_CHILD.encode())
        child.stdin.close()
    outputs = [child.stdout.read().decode() for child in children]
    assert [child.wait(timeout=120) for child in children] == [0, 0, 0, 0]
    everything, lists = [], []
    for text in outputs:
        ids = [uuid.UUID(line) for line in text.split()]
        assert len(ids) == n
        assert all(a < b for a, b in zip(ids, ids[1:])), "a process's ids did not increase"
        everything.extend(u.int for u in ids)
        lists.append([u.int for u in ids])
    assert len(set(everything)) == 4 * n
    assert_overlapping(lists)
    # One sequence: the stamps behind the ids (ms and fraction, above the
    # 54 random bits) are distinct too.
    assert len({x >> 54 for x in everything}) == 4 * n


# -------------------------------------------------------------------- take

def test_take_returns_a_range_by_policy_and_moves_the_clock_past_it():
    c = manual(1_000_000)
    r = c.take(5)
    assert r == range(1_000_000, 1_000_005)
    assert c.time_ns() == 1_000_005
    c.policy = Policy.MONOTONIC_FORCE_MICROSECOND_INCREMENT
    r = c.take(3)
    assert r == range(1_001_000, 1_004_000, 1000) and len(r) == 3
    assert c.time_ns() == 1_004_000
    stats = c.stats()
    assert stats["readings"] == 5 + 1 + 3 + 1


def test_take_a_million_is_a_range_not_a_list():
    r = monostamp.take(10**6)
    assert isinstance(r, range) and len(r) == 10**6 and r.step == 1
    after = monostamp.time_ns()
    assert after > r[-1]


@pytest.mark.parametrize("policy", [Policy.ACCEPT_PLATFORM_TIME, Policy.MONOTONIC_ALLOW_DUPLICATES])
def test_take_refuses_policies_that_allow_equal_stamps(policy):
    c = manual(10, policy=policy)
    with pytest.raises(ValueError, match=policy.value):
        c.take(2)


@pytest.mark.parametrize("bad,error", [
    (0, ValueError), (-1, ValueError), (2**63, ValueError), (10**30, ValueError),
    (1.0, TypeError), ("3", TypeError), (True, TypeError), (None, TypeError)])
def test_take_refuses_bad_n_naming_it_and_leaves_the_state(bad, error):
    c = manual(1_000)
    assert c.time_ns() == 1_000
    with pytest.raises(error, match="n"):
        c.take(bad)
    if error is ValueError:
        with pytest.raises(ValueError, match=repr(bad)):
            c.take(bad)
    assert c.time_ns() == 1_001


def test_take_2_62_on_a_default_clock_is_refused_and_changes_nothing():
    # Unbounded, this moved the clock (and every joiner of a shared file)
    # to the year 2173 for good.
    for take, time_ns in ((Clock().take, None), (monostamp.take, monostamp.time_ns)):
        clock_time_ns = time_ns or take.__self__.time_ns
        before = clock_time_ns()
        with pytest.raises(monostamp.LeadError):
            take(2**62)
        after = clock_time_ns()
        # Within the bound of the wall clock (the default clock may be on
        # the plugin's session file, which starts the bound ahead).
        assert before < after <= time.time_ns() + monostamp.Clock().max_lead_ns


def test_take_past_int64_or_the_lead_bound_is_refused():
    c = manual(2**63 - 10)
    with pytest.raises(ValueError, match="n=12 "):
        c.take(12)
    assert c.take(10) == range(2**63 - 10, 2**63)
    bounded = manual(0, max_lead_ns=1_000)
    # Longer than the bound: the lead error, as a stamp past it gets.
    with pytest.raises(monostamp.LeadError):
        bounded.take(1_002)
    assert bounded.take(1_001) == range(0, 1_001)
    with pytest.raises(monostamp.LeadError):
        bounded.take(1)  # the block leads its frozen source by the whole bound


@pytest.mark.heavy
def test_take_blocks_are_disjoint_from_single_stamps_under_4_threads():
    c = Clock(source="realtime_coarse")
    rounds = scaled(20_000, 500)
    results = [None] * 4
    barrier = threading.Barrier(4)

    def work(k):
        got, take, single = [], c.take, c.time_ns
        barrier.wait()
        for i in range(rounds):
            if i == rounds // 2:
                barrier.wait()  # every thread takes before and after every other's middle
            got.extend(take(i % 16 + 1))
            got.append(single())
        results[k] = got

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in results:
        assert all(a < b for a, b in zip(got, got[1:]))
    everything = [x for got in results for x in got]
    assert len(set(everything)) == len(everything)
    assert_overlapping(results)
