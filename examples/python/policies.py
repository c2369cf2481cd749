"""The four clock policies side by side, on manual clocks that step backwards.

Each clock reads the same script of readings: a frozen clock (the same value
three times), then a step back of 2.5 µs, then time moving on.
"""
import monostamp

readings = [10_000, 10_000, 10_000, 7_500, 12_345]

print("{:<40}".format("reading (ns)") + "".join("{:>9}".format(r) for r in readings))
for policy in monostamp.Policy:
    clock = monostamp.Clock(policy=policy, source="manual", zone="UTC", start_ns=readings[0])
    row = []
    for reading in readings:
        clock.set(reading)
        row.append(clock.time_ns())
    print("{:<40}".format(policy.value) + "".join("{:>9}".format(ns) for ns in row))
