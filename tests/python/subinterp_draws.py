"""Draws from monostamp in isolated interpreters (concurrent.interpreters,
CPython 3.14+), run by test_subinterpreters.py in a child process:

    python -c "import subinterp_draws as d; d.main()" MODE N

with this directory on PYTHONPATH, so that the interpreters import this
module (InterpreterPoolExecutor pickles its functions by name).  Prints one
JSON object: what each interpreter drew, as counts, for the test to judge.
"""
import json
import sys
import threading
from array import array
from datetime import datetime, timedelta

EPOCH = datetime(1970, 1, 1)
US = timedelta(microseconds=1)


def local_us(dt):
    """A naive datetime as whole µs since 1970 in its own wall time (the
    child runs under TZ=UTC, so no wall time repeats)."""
    return (dt - EPOCH) // US


# ---------------------------------------------------------------- in the workers

def draw_now(n):
    """n datetime.now() in this interpreter, packed; and whether monostamp,
    imported here, says the main interpreter's patch reaches this one."""
    import monostamp
    values = array("q", (local_us(datetime.now()) for _ in range(n)))
    return values.tobytes(), monostamp.patched()


def start_patch_here():
    """The error a patch started outside the main interpreter raises."""
    import monostamp
    try:
        monostamp.patch().start()
    except RuntimeError as e:
        return str(e)
    return None


# Pipes and files, not concurrent.interpreters' queues: no buffer of
# CPython's passes between the threads, which TSan (test-python-subinterp-san.sh)
# would see handed over under locks it cannot see.
SUB_TIME_NS = """
import os
from array import array
import monostamp
os.write({ready}, b"r")
os.read({go}, 1)
values = array("q", (monostamp.time_ns() for _ in range({n})))
with open({path!r}, "wb") as f:
    f.write(values.tobytes())
"""


# ---------------------------------------------------------------- modes

def summary(name_to_values):
    every = [v for values in name_to_values.values() for v in values]
    return {
        "counts": {name: len(values) for name, values in name_to_values.items()},
        "total": len(every),
        "distinct": len(set(every)),
        "increasing": {name: all(a < b for a, b in zip(values, values[1:]))
                       for name, values in name_to_values.items()},
    }


def time_ns_everywhere(n, count=4):
    """`count` interpreters, each in a thread, and the main one draw n
    monostamp.time_ns() each, all let go at once."""
    import os
    import tempfile
    from concurrent import interpreters

    import monostamp
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    subs = [interpreters.create() for _ in range(count)]
    threads = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, "sub%d" % i) for i in range(count)]
        for interp, path in zip(subs, paths):
            code = SUB_TIME_NS.format(ready=ready_w, go=go_r, n=n, path=path)
            threads.append(threading.Thread(target=interp.exec, args=(code,)))
            threads[-1].start()
        for _ in subs:  # every interpreter has imported monostamp
            os.read(ready_r, 1)
        os.write(go_w, b"g" * count)
        mine = [monostamp.time_ns() for _ in range(n)]
        for t in threads:
            t.join()
        drawn = {"main": mine}
        for i, path in enumerate(paths):
            with open(path, "rb") as f:
                drawn["sub%d" % i] = array("q", f.read()).tolist()
    for interp in subs:
        interp.close()
    for fd in (ready_r, ready_w, go_r, go_w):
        os.close(fd)
    return summary(drawn)


def pool_now(n, workers=4):
    """monostamp.patch() in the main interpreter, then an
    InterpreterPoolExecutor's `workers` and the main one draw n
    datetime.now() each."""
    from concurrent.futures import InterpreterPoolExecutor

    import monostamp
    result = {}
    with monostamp.patch(), InterpreterPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(draw_now, n) for _ in range(workers)]
        mine = [local_us(datetime.now()) for _ in range(n)]
        drawn = {"main": mine}
        reached = []
        for i, f in enumerate(futures):
            packed, patched = f.result()
            drawn["worker%d" % i] = array("q", packed).tolist()
            reached.append(patched)
        result["refused"] = pool.submit(start_patch_here).result()
    result.update(summary(drawn))
    result["patched_in_workers"] = reached
    real = datetime.now()  # the patch stopped: the stdlib's own again
    result["lead_us_at_end"] = max(mine[-1] - local_us(real), 0)
    return result


SUB_TRAVEL = """
import time
import time_machine
import monostamp
before = time.time_ns()
with time_machine.travel(946684800, tick=False):
    during = [time.time_ns() for _ in range(3)]
    dt = __import__("datetime").datetime.now().isoformat()
after = [time.time_ns() for _ in range(3)]
out.put((before, during[0], during[1], during[2], dt, after[0], after[1], after[2],
         monostamp.patched()))
"""


def travel_beside(n):
    """monostamp.patch() in the main interpreter while an isolated one
    travels with time-machine (its own import, per-interpreter state)."""
    from concurrent import interpreters

    import monostamp
    out = interpreters.create_queue()
    sub = interpreters.create()
    sub.prepare_main(out=out)
    with monostamp.patch():
        main_before = [__import__("time").time_ns() for _ in range(n)]
        sub.exec(SUB_TRAVEL)
        (before, d0, d1, d2, dt, a0, a1, a2, patched) = out.get()
        main_after = [__import__("time").time_ns() for _ in range(n)]
    sub.close()
    # The sub's draws outside its travel, between the main one's.
    sequence = main_before + [before, a0, a1, a2] + main_after
    return {
        "sub_during": [d0, d1, d2],
        "sub_during_datetime": dt,
        "distinct": len(set(sequence)) == len(sequence),
        "increasing": all(a < b for a, b in zip(sequence, sequence[1:])),
        "patched_in_sub": patched,
    }


MODES = {"time_ns": time_ns_everywhere, "pool_now": pool_now, "travel": travel_beside}


def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    json.dump(MODES[mode](n), sys.stdout)
    print()
