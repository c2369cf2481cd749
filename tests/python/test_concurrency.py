"""Uniqueness across threads, fork(), multiprocessing and a shared file."""
import ctypes
import multiprocessing
import os
import threading
import time

import pytest

import monostamp
from monostamp import Clock
from conftest import cpython_only, assert_overlapping, meet_halfway, scaled

posix_only = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


def draw(n, fn=monostamp.time_ns):
    return [fn() for _ in range(n)]


def assert_unique_increasing_per_source(lists):
    for values in lists:
        assert values == sorted(values)
    allv = [v for values in lists for v in values]
    assert len(set(allv)) == len(allv), "%d duplicates" % (len(allv) - len(set(allv)))


@pytest.mark.heavy
def test_four_threads_draw_unique_stamps():
    n = scaled(200_000, 1000)
    results = [None] * 4
    barrier = threading.Barrier(4)

    def work(i):
        draws = iter(range(n))
        results[i] = meet_halfway(n, lambda: monostamp.now().utc_ns if next(draws) & 1
                                  else monostamp.time_ns(), barrier)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert_unique_increasing_per_source(results)
    assert_overlapping(results)


@pytest.mark.heavy
def test_four_threads_on_one_clock_with_policy_changes():
    """A fifth thread flips the clock between the two strict policies while
    four draw from it: stamps stay unique and increasing per thread.  Each
    drawer waits half way until the flipper has flipped twice more, so the
    policy certainly changes in the middle of every thread's draws."""
    c = Clock()
    n = scaled(100_000, 1000)
    results = [None] * 4
    stop = threading.Event()
    flips = []

    def work(i):
        values = draw(n // 2, c.time_ns)
        seen = len(flips)
        while len(flips) < seen + 2:
            time.sleep(0.0001)
        results[i] = values + draw(n - n // 2, c.time_ns)

    def flip():
        strict = [monostamp.Policy.MONOTONIC_FORCE_MICROSECOND_INCREMENT,
                  monostamp.Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT]
        while not stop.is_set():
            c.policy = strict[len(flips) % 2]
            flips.append(1)
    flipper = threading.Thread(target=flip)
    flipper.start()
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    flipper.join()
    assert len(flips) > 1
    assert_unique_increasing_per_source(results)


def _child_draw(n, barrier, queue):
    queue.put(meet_halfway(n, monostamp.time_ns, barrier))


def _child_draw_shared(path, n, barrier, queue):
    queue.put(meet_halfway(n, Clock(shared=path).time_ns, barrier))


def _run_children(ctx, target, args, count=3, parent_draw=None):
    """The lists of `count` children running target(*args, barrier, queue),
    and then of parent_draw(barrier) if given: all meet at one barrier."""
    queue = ctx.Queue()
    barrier = ctx.Barrier(count + (parent_draw is not None))
    procs = [ctx.Process(target=target, args=args + (barrier, queue)) for _ in range(count)]
    for p in procs:
        p.start()
    mine = [parent_draw(barrier)] if parent_draw is not None else []
    lists = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    return lists + mine


@posix_only
def test_fork_parent_and_child_share_the_default_sequence():
    n = scaled(20_000, 500)
    barrier = multiprocessing.get_context("fork").Barrier(2)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: write its stamps and leave without pytest's atexit
        status = 1
        try:
            data = ",".join(map(str, meet_halfway(n, monostamp.time_ns, barrier))).encode()
            with os.fdopen(w, "wb") as f:
                f.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(w)
    mine = meet_halfway(n, monostamp.time_ns, barrier)
    with os.fdopen(r, "rb") as f:
        theirs = [int(x) for x in f.read().split(b",")]
    _, status = os.waitpid(pid, 0)
    assert status == 0
    assert len(theirs) == n
    assert_unique_increasing_per_source([mine, theirs])
    assert_overlapping([mine, theirs])


@posix_only
def test_multiprocessing_fork_children_share_the_default_sequence():
    ctx = multiprocessing.get_context("fork")
    n = scaled(20_000, 500)
    lists = _run_children(ctx, _child_draw, (n,),
                          parent_draw=lambda b: meet_halfway(n, monostamp.time_ns, b))
    assert_unique_increasing_per_source(lists)
    assert_overlapping(lists)


def test_multiprocessing_spawn_children_share_a_named_file(tmp_path, monkeypatch):
    path = str(tmp_path / "state")
    # Spawned children start fresh: MONOSTAMP_SHARED joins their default
    # clocks through the file.  The parent uses a Clock on the same file.
    monkeypatch.setenv("MONOSTAMP_SHARED", path)
    ctx = multiprocessing.get_context("spawn")
    n = scaled(20_000, 500)
    mine = Clock(shared=path)
    lists = _run_children(ctx, _child_draw, (n,),
                          parent_draw=lambda b: meet_halfway(n, mine.time_ns, b))
    assert_unique_increasing_per_source(lists)
    assert_overlapping(lists)


def test_two_processes_on_one_shared_file(tmp_path):
    path = str(tmp_path / "state")
    ctx = multiprocessing.get_context("spawn")
    n = scaled(20_000, 500)
    lists = _run_children(ctx, _child_draw_shared, (path, n), count=2)
    assert_unique_increasing_per_source(lists)
    assert_overlapping(lists)
    c = Clock(shared=path)
    assert c.shared == path
    assert c.time_ns() > max(max(v) for v in lists)


def test_two_clocks_on_one_file_in_one_process(tmp_path):
    path = tmp_path / "state"
    # Unbounded: frozen at 100 ns, they lead their source by decades.
    a = Clock(source="manual", start_ns=100, shared=path, max_lead_ns=0)
    b = Clock(source="manual", start_ns=100, shared=path, max_lead_ns=0)
    # A file made first in a fresh private directory (tmp_path) starts at
    # "no stamp yet", so the first stamp is the frozen reading itself; where
    # the file system tells no directory's history (Windows, a kernel
    # without statx), above the wall clock, and the readings are forced
    # past that (tests/c/test_shared_bound.c tells the two apart).  Then
    # each stamp is the last one + 1, from either clock.
    first = a.time_ns()
    assert first >= 100
    assert [b.time_ns(), a.time_ns()] == [first + 1, first + 2]


def hold_the_gil_for(seconds):
    """A C call that keeps the GIL while it sleeps (ctypes.PyDLL does not
    let it go), as a long extension call or a busy machine can."""
    if os.name == "nt":
        ctypes.PyDLL("kernel32").Sleep(int(seconds * 1000))
    else:
        ctypes.PyDLL(None).usleep(int(seconds * 1_000_000))
@cpython_only('ctypes.PyDLL holding the GIL from C')
def test_a_lead_wait_outlasts_the_gil_held_elsewhere(tmp_path):
    # A waiting stamp lets the GIL go while it naps and takes it back
    # after; held elsewhere for longer than one call may wait (0.2 s bound
    # + 0.1 s), the nap ends late.  By then the source has caught up with
    # the push: the stamp goes out, rather than fail for the time it took.
    path = str(tmp_path / "pushed.state")
    bound = 200_000_000
    pusher = Clock(source="manual", start_ns=time.time_ns() + 450_000_000,
                   shared=path, max_lead_ns=1_000_000)
    pushed = pusher.time_ns()
    waiter = Clock(shared=path, max_lead_ns=bound)
    got = []

    def wait():
        try:
            got.append(waiter.time_ns())
        except Exception as e:  # said by the assert below
            got.append(e)

    t = threading.Thread(target=wait, daemon=True)
    t.start()
    while waiter.stats()["lead_waits"] == 0 and t.is_alive():
        time.sleep(0.0001)
    hold_the_gil_for(0.45)
    t.join(timeout=30)
    assert len(got) == 1 and isinstance(got[0], int), got
    assert pushed < got[0] <= time.time_ns() + bound


def test_threads_draw_while_others_wait_for_the_lead_bound(tmp_path):
    # Under the GIL, two threads run the core at the same moment only while
    # a stamp naps in a lead wait, which lets the GIL go: the one place
    # where a data race in the core can show, and where the TSan build
    # (make test-python-tsan) can see it.  Two waiters on a file pushed
    # ahead wait out the push; meanwhile two drawers stamp (one on the same
    # file, a manual clock: its readings are its own, so the file's bound,
    # which the waiters set, does not hold it, and it never waits; one on a
    # private clock) and a
    # meddler changes a waiter's policy and reads the counters.  The drawers
    # start only once both waiters are in their waits, and draw until one
    # is back: the overlap is certain, not hoped for.
    path = str(tmp_path / "pushed.state")
    bound = 200_000_000
    pusher = Clock(source="manual", start_ns=time.time_ns() + bound + 250_000_000,
                   shared=path, max_lead_ns=1_000_000)
    pushed = pusher.time_ns()
    waiters = [Clock(shared=path, max_lead_ns=bound) for _ in range(2)]
    same_file = Clock(source="manual", start_ns=0, shared=path, max_lead_ns=0)
    private = Clock()
    waited = [None, None]
    drawn = [[], []]
    back = threading.Event()
    stop = threading.Event()
    start = threading.Barrier(5)

    def wait(i):
        start.wait()
        try:
            waited[i] = waiters[i].time_ns()
        except Exception as e:  # said by the assert below
            waited[i] = e
        finally:
            back.set()

    def both_waiting():
        return all(w.stats()["lead_waits"] > 0 for w in waiters)

    # A waiter that never came back would have the drawers fill the memory
    # (one run was killed by the OOM killer at 20 GB): they give up after
    # a minute, and the test fails saying so.
    give_up = time.monotonic() + 60

    def draw_while_they_wait(i, clock):
        start.wait()
        while not both_waiting() and not back.is_set() and time.monotonic() < give_up:
            time.sleep(0.001)
        while not back.is_set():
            drawn[i].append(clock.time_ns() if len(drawn[i]) & 1 else clock.now().utc_ns)
            if not len(drawn[i]) & 0xFFFF and time.monotonic() > give_up:
                return

    def meddle():
        start.wait()
        policies = ["monotonicForceMicrosecondIncrement", "monotonicForceNanosecondIncrement"]
        k = 0
        while not stop.is_set():
            waiters[1].policy = policies[k & 1]
            waiters[0].stats()
            k += 1
            time.sleep(0.0005)
        waiters[1].policy = policies[1]

    # Daemons, so that a waiter stuck for good fails the test, not the exit.
    threads = [threading.Thread(target=wait, args=(i,), daemon=True) for i in range(2)]
    threads += [threading.Thread(target=draw_while_they_wait, args=(0, same_file)),
                threading.Thread(target=draw_while_they_wait, args=(1, private)),
                threading.Thread(target=meddle)]
    for t in threads:
        t.start()
    for t in threads[2:4]:
        t.join()
    for t in threads[:2]:
        t.join(timeout=5)
    stop.set()
    threads[4].join()
    assert back.is_set() and None not in waited, \
        "a waiter did not come back within 60 s (bound 0.2 s, push 0.45 s): %r" % (waited,)
    assert all(isinstance(w, int) for w in waited), "a waiter failed: %r" % (waited,)
    assert all(w > pushed for w in waited)
    assert drawn[0] and drawn[1], "the drawers never drew while both waited"
    assert_unique_increasing_per_source([drawn[0], [waited[0]], [waited[1]], [pushed]])
    assert_unique_increasing_per_source([drawn[1]])
