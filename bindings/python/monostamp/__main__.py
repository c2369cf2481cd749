"""python -m monostamp: unique timestamps and ids for shell scripts.

    $ python -m monostamp
    2026-12-03T11:02:07.123456789+01:00
    $ python -m monostamp --count 3 --digits 6 --zone UTC --z
    $ python -m monostamp --ns
    $ python -m monostamp --uuid7
    $ python -m monostamp --shared /run/user/1000/stamps    # one sequence with other processes

Each line is the next stamp of one clock: the process's default clock (which
joins MONOSTAMP_SHARED if that is set), or, with --zone, --shared or
--digits below 9, a clock made for them (on the same state file).  Stamps
never repeat within a run, and across runs and processes when they share a
state file; the text repeats neither, with 6 or more digits (below 9 the
stamps are whole microseconds).  Exit status 2 for bad arguments
(argparse's convention), 1 when the state file cannot be used.
"""
import argparse
import os
import sys
import types
from typing import List, Optional, Union

import monostamp


def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("invalid count %r: not an integer" % text) from None
    if n < 1:
        raise argparse.ArgumentTypeError("invalid count %r: must be at least 1" % text)
    return n


def _digits(text: str) -> int:
    try:
        d = int(text)
    except ValueError:
        d = -1
    if not 0 <= d <= 9:
        raise argparse.ArgumentTypeError("invalid digits %r: must be 0 to 9" % text)
    return d


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m monostamp",
        description="Print the next unique timestamp(s) as ISO 8601 text, integer ns, "
                    "or UUIDv7 ids, one per line.")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--ns", action="store_true",
                      help="print integer nanoseconds since the epoch")
    form.add_argument("--uuid7", action="store_true",
                      help="print a UUIDv7 made from each stamp (docs/ids.md)")
    p.add_argument("--count", "-n", type=_count, default=1, metavar="N",
                   help="how many stamps to print (default 1)")
    p.add_argument("--zone", metavar="ZONE",
                   help="'UTC', an IANA name or a POSIX TZ string (default: the local zone)")
    p.add_argument("--digits", type=_digits, default=9, metavar="D",
                   help="fractional digits of the ISO text, 0 to 9 (default 9); below 9 "
                        "the stamps are whole microseconds, so lines stay distinct down "
                        "to 6 digits (fewer may repeat)")
    p.add_argument("--z", action="store_true", help="write 'Z' for a zero offset")
    p.add_argument("--shared", metavar="PATH",
                   help="a state file shared with other processes (created if missing)")
    p.add_argument("--version", action="version", version="monostamp " + monostamp.__version__)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    # Text with fewer than 9 digits would show two stamps of one µs alike:
    # there the clock hands out whole µs (the µs policy, on the same state,
    # so the sequence is still one with other processes' ns stamps).
    whole_us = not (args.ns or args.uuid7) and args.digits < 9
    try:
        if args.zone is None and args.shared is None and not whole_us:
            clock = None  # the default clock: MONOSTAMP_SHARED applies
        else:
            shared = args.shared
            if shared is None:
                shared = os.environ.get("MONOSTAMP_SHARED") or None
            policy = (monostamp.Policy.MONOTONIC_FORCE_MICROSECOND_INCREMENT if whole_us
                      else monostamp.Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT)
            clock = monostamp.Clock(policy, zone=args.zone, shared=shared)
    except ValueError as e:
        p.error(str(e))
    except OSError as e:
        print("%s: %s" % (p.prog, e), file=sys.stderr)
        return 1
    source: "Union[monostamp.Clock, types.ModuleType]" = clock if clock is not None else monostamp
    lines = []
    try:
        for _ in range(args.count):
            if args.ns:
                lines.append(str(source.time_ns()))
            elif args.uuid7:
                lines.append(str(source.uuid7()))
            else:
                lines.append(source.now().isoformat(args.digits, args.z))
    except (OSError, ValueError) as e:  # the default clock's MONOSTAMP_SHARED, say
        print("%s: %s" % (p.prog, e), file=sys.stderr)
        return 1
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
