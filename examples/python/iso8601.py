"""A stamp as ISO 8601 text with its UTC offset, and back again exactly."""
import monostamp

stamp = monostamp.now()
print("now, local zone:       ", stamp.isoformat())
print("milliseconds:          ", stamp.isoformat(digits=3))
print("as a datetime:         ", stamp.datetime().isoformat())

# The same instant in other zones: a manual clock set to it, one per zone.
for zone in ("UTC", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe"):
    clock = monostamp.Clock(source="manual", start_ns=stamp.utc_ns, zone=zone,
                            policy=monostamp.Policy.ACCEPT_PLATFORM_TIME)
    print("{:<23}".format(zone + ":"), clock.now().isoformat())

back = monostamp.Stamp.fromisoformat(stamp.isoformat())
assert back == stamp, (back, stamp)
print("round trip exact:      ", back == stamp)
