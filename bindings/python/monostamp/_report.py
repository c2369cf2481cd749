"""The one line that says what monostamp did in a run: the pytest plugin's
summary, `monostamp stats PATH` and `monostamp run --report`.

The counts come from a state file's header (csrc/state_file.h), where every
clock of every process on the file (Python, Lua, C, the preload) adds what
it counted at its checkpoints, when it leaves the file and at exit.  Any
process on the file may write them, so they are only numbers: a count that
went down reads as a sum that wrapped, never as an error.
"""
import importlib
from typing import NamedTuple

#: Sums in the file are 64-bit and wrap.
_WRAP = 1 << 64


class Counts(NamedTuple):
    stamps: int           # stamps handed out
    repeats: int          # of them, made from a reading not above the last stamp
    backward_steps: int   # readings below their clock's previous one
    largest_lead_ns: int  # the largest lead of a stamp over its reading


NONE = Counts(0, 0, 0, 0)


def read(path: str) -> Counts:
    """The counts of the state file at path (OSError, ValueError as Clock(shared=path))."""
    extension = importlib.import_module("monostamp._monostamp")
    stamps, repeats, backward, lead = extension._state_counts(path)
    return Counts(stamps, repeats, backward, lead)


def since(before: Counts, after: Counts) -> Counts:
    """What was counted between two reads of one file.  The largest lead is
    the file's (a maximum cannot be taken apart), unless nothing was counted."""
    stamps, repeats, backward = ((a - b) % _WRAP for a, b in zip(after[:3], before[:3]))
    lead = after.largest_lead_ns if stamps or after.largest_lead_ns != before.largest_lead_ns \
        else 0
    return Counts(stamps, repeats, backward, lead)


def _many(n: int, one: str, many: str) -> str:
    return "{:,} {}".format(n, one if n == 1 else many)


def duration(ns: int) -> str:
    """ns in the largest unit it reaches, exact: 12 ns, 1.500 us, 2.000001 ms, 1.000000012 s."""
    for unit, size, digits in (("s", 10**9, 9), ("ms", 10**6, 6), ("us", 10**3, 3)):
        if ns >= size:
            return "{}.{:0{}d} {}".format(ns // size, ns % size, digits, unit)
    return "{} ns".format(ns)


def line(counts: Counts) -> str:
    """The summary: 'monostamp: 13 stamps handed out, 12 would have repeated
    without monostamp, 1 backward step met, largest lead 1.000000012 s'."""
    return "monostamp: {} handed out, {} would have repeated without monostamp, {} met, " \
           "largest lead {}".format(
               _many(counts.stamps, "stamp", "stamps"), "{:,}".format(counts.repeats),
               _many(counts.backward_steps, "backward step", "backward steps"),
               duration(counts.largest_lead_ns))
