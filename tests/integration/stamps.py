"""stamps.py: stamps recorded by many processes, and what must hold of them.

A record is one line "<stamp> <process> <count>": the stamp (ns since the
epoch), the process that made it, and that process's own count, which
orders its stamps as it made them.  The checks: no stamp twice in the union
(or, where the processes' sequences are independent, some twice: else the
check could not fail), and each process's stamps strictly increasing in
count order.  Kept apart from any one server so that other integration
tests (many processes on one state file) can record the same way.

A soak writes too many stamps to hold as records (tens of millions in ten
minutes), so its processes each write a file of their own, one stamp a
line in the order made, and the last section checks such files one at a
time, and the duplicates across them with sort(1).
"""
from __future__ import annotations

import os
import re
import subprocess
from array import array
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Records:
    """Columns of the records read so far; `bad` keeps lines that are not one."""
    ns: array = field(default_factory=lambda: array("q"))
    pid: array = field(default_factory=lambda: array("q"))
    count: array = field(default_factory=lambda: array("q"))
    # 1 where the line came from the main client, 0 from another (/hold).
    main: bytearray = field(default_factory=bytearray)
    bad: list[str] = field(default_factory=list)

    def add(self, text: bytes, main: bool = True) -> None:
        """Adds the lines of `text`."""
        for line in text.splitlines():
            fields = line.split()
            if len(fields) == 3 and all(f.isdigit() for f in fields):
                self.ns.append(int(fields[0]))
                self.pid.append(int(fields[1]))
                self.count.append(int(fields[2]))
                self.main.append(main)
            elif line.strip():
                self.bad.append(line.decode(errors="replace"))

    def __len__(self) -> int:
        return len(self.ns)

    def by_process(self) -> dict[int, list[int]]:
        """Each process's records (indexes), in the order of its count."""
        out: dict[int, list[int]] = {}
        for i, pid in enumerate(self.pid):
            out.setdefault(pid, []).append(i)
        for rows in out.values():
            rows.sort(key=self.count.__getitem__)
        return out


def duplicates(values: array) -> int:
    """How many values repeat an earlier one."""
    return len(values) - len(set(values))


def counts_repeated(records: Records, rows: list[int]) -> bool:
    """Whether one process recorded a count twice (rows in count order)."""
    return any(records.count[a] == records.count[b] for a, b in zip(rows, rows[1:]))


def not_above_previous(records: Records, rows: list[int]) -> int:
    """Stamps, among `rows` in count order, not above the one before."""
    ns = records.ns
    return sum(1 for a, b in zip(rows, rows[1:]) if ns[b] <= ns[a])


def not_whole_us(values: array) -> int:
    """Stamps that are not whole microseconds."""
    return sum(1 for v in values if v % 1000)


def overlap_ms(records: Records, old: set[int], main_only: bool = False) -> float | None:
    """How long two generations of processes both stamped: the old ones'
    last stamp less the new ones' first, in ms (negative: a gap); None
    when one generation made none."""
    last_old = first_new = None
    for i, (ns, pid) in enumerate(zip(records.ns, records.pid)):
        if main_only and not records.main[i]:
            continue
        if pid in old:
            last_old = ns if last_old is None else max(last_old, ns)
        else:
            first_new = ns if first_new is None else min(first_new, ns)
    if last_old is None or first_new is None:
        return None
    return (last_old - first_new) / 1e6


# {================================================= files of one stamp a line
# Every stamp is 19 digits (2001-2286), so bytes compare as the numbers do:
# the checks never convert a line, and the duplicates are found by sort(1).

WHOLE = re.compile(rb"(?:[0-9]{19}\n)*")


def drop_partial_line(path: Path) -> bool:
    """Cuts a last line without its newline off the file: its process was
    killed mid-write, so that stamp was never written whole.  Whether it
    did."""
    with open(path, "rb+") as f:
        data = f.read()
        if not data or data.endswith(b"\n"):
            return False
        f.truncate(data.rfind(b"\n") + 1)
        return True


@dataclass
class StampFile:
    """One process's file (drop_partial_line() done): its stamps in the
    order written, as lines without their newline, and the lines that are
    not a stamp."""
    lines: list[bytes]
    malformed: list[str]


def read_stamp_file(path: Path) -> StampFile:
    data = path.read_bytes()
    lines = data.split(b"\n")[:-1]
    if WHOLE.fullmatch(data):
        return StampFile(lines, [])
    good = [line for line in lines if len(line) == 19 and line.isdigit()]
    return StampFile(good, [line.decode(errors="replace") for line in lines
                            if not (len(line) == 19 and line.isdigit())])


def not_increasing(lines: list[bytes]) -> int:
    """Stamps not above the one before."""
    if all(map(bytes.__lt__, lines, lines[1:])):  # the common case, at C speed
        return 0
    return sum(1 for a, b in zip(lines, lines[1:]) if b <= a)


def file_duplicates(paths: list[Path], each_in_order: bool, scratch: Path,
                    keep: int = 3) -> tuple[int, list[bytes]]:
    """How many stamps repeat an earlier one across the files, and the
    first `keep` of them: sort -m merges files each in order (without
    holding them), plain sort takes any (with its temporary files in
    scratch)."""
    sort = ["sort", "-m"] if each_in_order else ["sort", "-S", "25%", "-T", str(scratch)]
    count, previous = 0, None
    first: list[bytes] = []
    with subprocess.Popen(sort + ["--"] + [str(p) for p in paths], stdout=subprocess.PIPE,
                          env=dict(os.environ, LC_ALL="C")) as merged:
        assert merged.stdout is not None
        for line in merged.stdout:
            if line == previous:
                count += 1
                if len(first) < keep:
                    first.append(line.rstrip())
            previous = line
    if merged.returncode != 0:
        raise RuntimeError("%s failed with status %d" % (" ".join(sort), merged.returncode))
    return count, first

# }=================================================
