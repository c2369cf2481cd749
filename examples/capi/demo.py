"""The C API example: stamps from C (the `stamps` extension of this folder)
and the patched time.time_ns() in one increasing sequence."""
import time

import monostamp
import stamps

with monostamp.patch():
    seq = []
    for _ in range(1000):
        seq.append(time.time_ns())
        seq.extend(stamps.many(3))
        seq.append(stamps.time_ns())
ns, offset_s = stamps.now()
assert all(a < b for a, b in zip(seq, seq[1:])), "not one increasing sequence"
print("%d stamps from C and the patched time.time_ns(), one increasing sequence, %d equal"
      % (len(seq), len(seq) - len(set(seq))))
print("stamps.now(): %d ns at UTC offset %+d s" % (ns, offset_s))
