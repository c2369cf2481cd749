"""tzrule_zoneinfo.py: Python's zoneinfo as the second oracle of
test_tzrule_glibc.c.

Reads queries on stdin, one a line:
    R<TAB>rule       a POSIX TZ rule; the instants after it use it
    T<TAB>seconds    a UTC instant
and writes every line back; to each T line it adds a TAB and the UTC offset
in seconds that zoneinfo gives there, or "ERR <reason>" when zoneinfo
refuses the rule or the instant.  (The test puts its own fields after the
instant; they come back untouched, so it can read the answers as a stream.)

Each rule becomes a TZif version 3 file with no transitions and the rule as
its footer (RFC 8536 section 3.3), so zoneinfo evaluates the rule alone.
The offset is taken from zoneinfo's fromutc(), the UTC-to-local direction
the engine computes, not from utcoffset() of a local time.
"""

import io
import struct
import sys
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

EPOCH = datetime(1970, 1, 1)


def tzif(rule: str) -> bytes:
    """A TZif v3 file: no transitions, one type (UTC+0, "UTC"), the footer."""
    counts = struct.pack(">6l", 0, 0, 0, 0, 1, 4)  # isut isstd leap time type char
    header = b"TZif3" + bytes(15) + counts
    data = struct.pack(">lBB", 0, 0, 0) + b"UTC\0"
    footer = b"\n" + rule.encode("ascii") + b"\n"
    return header + data + header + data + footer


def offset_at(zone: ZoneInfo, t: int) -> int:
    utc = EPOCH + timedelta(seconds=t)
    local = zone.fromutc(utc.replace(tzinfo=zone))
    return int((local.replace(tzinfo=None) - utc).total_seconds())


def main() -> None:
    zone: ZoneInfo | None = None
    error = "no rule"
    out = sys.stdout
    for line in sys.stdin:
        line = line.rstrip("\n")
        kind, _, value = line.partition("\t")
        if kind == "R":
            out.write(line + "\n")
            try:
                zone = ZoneInfo.from_file(io.BytesIO(tzif(value)), key=value)
                error = ""
            except Exception as e:  # zoneinfo refused the rule: report it
                zone, error = None, type(e).__name__
        elif kind == "T":
            if zone is None:
                out.write(line + "\tERR " + error + "\n")
                continue
            try:
                answer = str(offset_at(zone, int(value.partition("\t")[0])))
            except (OverflowError, ValueError) as e:
                answer = "ERR " + type(e).__name__
            out.write(line + "\t" + answer + "\n")


if __name__ == "__main__":
    main()
