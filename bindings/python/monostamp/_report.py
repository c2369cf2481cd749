"""The one line that says what monostamp did in a run: the pytest plugin's
summary, `monostamp stats PATH` and `monostamp run --report`.

The counts come from a state file's header (csrc/state_file.h), where every
clock of every process on the file (Python, Lua, C, the preload) adds what
it counted at its checkpoints, when it leaves the file and at exit.  The
line is the core's (monostamp_counts_text): the counts taken apart between
two reads, worded and grouped.
"""
import importlib
from typing import Optional, Tuple

#: (stamps, repeats, backward_steps, largest_lead_ns), as the file holds them.
Counts = Tuple[int, int, int, int]

_extension = importlib.import_module("monostamp._monostamp")


def read(path: str) -> Counts:
    """The counts of the state file at path (OSError, ValueError as Clock(shared=path))."""
    counts: Counts = _extension._state_counts(path)
    return counts


def line(after: Counts, before: Optional[Counts] = None) -> str:
    """The summary of what was counted since `before` (None: since the file
    was made): 'monostamp: 13 stamps handed out, 12 would have repeated
    without monostamp, 1 backward step met, largest lead 1.000000012 s'."""
    text: str = _extension._counts_text(after, before)
    return text
