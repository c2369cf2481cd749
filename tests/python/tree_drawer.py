"""A process tree that draws from the standard library's wall clocks at once.

tree(out_dir, n) is run by the test in a process that was started patched
(or is a pytest test under --monostamp-patch): it starts 4 `spawn` and 4
`forkserver` multiprocessing workers and 2 `subprocess` Python children,
and draws itself, 11 drawers in all.  Each drawer calls datetime.now() and
time.time_ns() n times each, alternating, meeting the others at a file
barrier before its first draw and half way (so every drawer's span overlaps
the others': conftest.meet_halfway's rule, across unrelated processes), and
writes its values as int ns (a datetime's whole µs times 1000; TZ=UTC, so
the naive local time is UTC) to out_dir/values-<id>, with whether
monostamp.patched() held, to out_dir/patched-<id>.

Nothing here patches: the tree relies on MONOSTAMP_PATCH and
MONOSTAMP_SHARED in its environment (test_process_tree.py checks the files).
"""
import array
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
SPAWN, FORKSERVER, SUBPROCESS = 4, 4, 2
TOTAL = 1 + SPAWN + FORKSERVER + SUBPROCESS
_EPOCH = datetime(1970, 1, 1)
_US = timedelta(microseconds=1)


def meet(prefix, phase, my_id, total):
    """Makes prefix+phase+my_id and waits until those of 1..total exist."""
    open(prefix + phase + str(my_id), "w").close()
    give_up = time.monotonic() + 120  # a sibling that died
    while not all(os.path.exists(prefix + phase + str(i)) for i in range(1, total + 1)):
        if time.monotonic() > give_up:
            raise RuntimeError("drawer %d: the others never reached %s" % (my_id, phase))
        time.sleep(0.0005)


def draw(out_dir, my_id, total, n):
    """One drawer's part (see the module's text)."""
    import monostamp

    now, time_ns, epoch, us = datetime.now, time.time_ns, _EPOCH, _US
    values = array.array("q")
    append = values.append
    prefix = os.path.join(out_dir, "meet-")
    meet(prefix, "a", my_id, total)
    for _ in range(n // 2):
        append((now() - epoch) // us * 1000)
        append(time_ns())
    meet(prefix, "b", my_id, total)
    for _ in range(n - n // 2):
        append((now() - epoch) // us * 1000)
        append(time_ns())
    with open(os.path.join(out_dir, "values-%d" % my_id), "wb") as f:
        values.tofile(f)
    with open(os.path.join(out_dir, "patched-%d" % my_id), "w") as f:
        f.write("%s %d" % (monostamp.patched(), os.getpid()))


def child_code(out_dir, my_id, total, n):
    """The `python -c` text of a drawer."""
    return "import sys; sys.path.insert(0, %r); import tree_drawer; " \
           "tree_drawer.draw(%r, %d, %d, %d)" % (HERE, out_dir, my_id, total, n)


def tree(out_dir, n):
    """Starts the 10 other drawers, draws, and waits for them all."""
    import multiprocessing

    workers = []
    my_id = 2
    for method, count in (("spawn", SPAWN), ("forkserver", FORKSERVER)):
        context = multiprocessing.get_context(method)
        for _ in range(count):
            worker = context.Process(target=draw, args=(out_dir, my_id, TOTAL, n))
            worker.start()
            workers.append(worker)
            my_id += 1
    children = []
    for _ in range(SUBPROCESS):
        children.append(subprocess.Popen(
            [sys.executable, "-c", child_code(out_dir, my_id, TOTAL, n)]))
        my_id += 1
    draw(out_dir, 1, TOTAL, n)
    for worker in workers:
        worker.join(300)
    statuses = [worker.exitcode for worker in workers] + [c.wait(300) for c in children]
    if statuses != [0] * (TOTAL - 1):
        raise RuntimeError("a drawer failed: exit statuses %r" % statuses)


if __name__ == "__main__":
    tree(sys.argv[1], int(sys.argv[2]))
