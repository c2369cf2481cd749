"""A stamp as ISO 8601 text with its UTC offset, in other zones, and back again exactly."""
import datetime
import json
import zoneinfo

import monostamp

stamp = monostamp.now()
print("now, local zone:       ", stamp.isoformat())
print("milliseconds:          ", stamp.isoformat(timespec="milliseconds"))
print("as a datetime:         ", stamp.datetime().isoformat())

# The same instant in other zones: a name the core opens, or any tzinfo.
for zone in ("UTC", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe"):
    print("{:<23}".format(zone + ":"), stamp.astimezone(zone).isoformat())
print("{:<23}".format("ZoneInfo('Europe/Berlin'):"),
      stamp.astimezone(zoneinfo.ZoneInfo("Europe/Berlin")).isoformat())

# Stamps from the datetimes and floats other code hands over, and arithmetic.
meeting = datetime.datetime(2026, 12, 24, 18, 30, tzinfo=zoneinfo.ZoneInfo("Europe/Berlin"))
start = monostamp.Stamp.fromdatetime(meeting)
print("from a datetime:       ", start)
print("an hour later:         ", start + datetime.timedelta(hours=1))
print("ns from now to then:   ", start - stamp)
print("from a float:          ", monostamp.Stamp.fromtimestamp(1796224280.25, "UTC"))
print("as JSON:               ", json.dumps({"at": start}, default=monostamp.json_default))

back = monostamp.Stamp.fromisoformat(stamp.isoformat())
assert back == stamp, (back, stamp)
print("round trip exact:      ", back == stamp)
