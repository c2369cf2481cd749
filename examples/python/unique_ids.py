"""Unique, ordered event ids in a tight loop: what datetime.now() cannot give.

A loop creating records can call the clock faster than it ticks; monostamp's
default policy (monotonicForceNanosecondIncrement) raises a repeated reading
by 1 ns, so every id is distinct and ids sort in creation order.
"""
import datetime

import monostamp

events = [("event", monostamp.time_ns()) for _ in range(100_000)]
ids = [ns for _, ns in events]
assert len(set(ids)) == len(ids) and ids == sorted(ids)
print("monostamp.time_ns():      {:>7,} ids, {:>7,} distinct".format(len(ids), len(set(ids))))

naive = [datetime.datetime.now() for _ in range(100_000)]
print("datetime.datetime.now():  {:>7,} ids, {:>7,} distinct".format(len(naive), len(set(naive))))

# The coarse wall clock ticks every few ms and costs a few ns to read; the
# policy still makes its stamps unique.
coarse = monostamp.Clock(source="realtime_coarse")
ids = [coarse.time_ns() for _ in range(100_000)]
assert len(set(ids)) == len(ids)
stats = coarse.stats()
print("realtime_coarse clock:    {:>7,} ids, {:>7,} distinct, {:,} raised above their reading"
      .format(len(ids), len(set(ids)), stats["forced_increments"]))
