"""The soak: 4 Python and 4 Lua processes (soak_workers.py) stamp on one
shared state file for SOAK_MINUTES (default 10; decimals allowed) while,
every 1 to SOAK_KILL_MAX_S (4) seconds, something happens to them:

  kill       (half the events) one worker, chosen at random, killed with
             SIGKILL and started again
  chdir      a Python worker told (SIGUSR1) to chdir() elsewhere and back
             (Lua has no chdir)
  rename     a complete new state file, made by the library, renamed over
             the shared one
  delete     the shared file deleted
  directory  its directory renamed away and a new one made in its place
  overwrite  its last stamp (8 bytes at offset 64) overwritten with 0
  truncate   the file truncated to 0 bytes

SOAK_EVENTS=0 leaves kills alone.  The checks, at the end: no stamp appears
twice in the union of every process's output; each process's stamps
increase, and so do each slot's across its restarts (every stamp of a
killed process was handed out before its successor began); no worker ended
by itself, and each stopped when asked; a state file never appeared in
elsewhere/ (a clock that followed the name from another working directory
would have made one) and no fresh file was left behind by a rename.  The
figures: seconds, processes, kills, path events and stamps.

Everything lives in a private directory under TMPDIR, removed when the test
passes and kept (and named) when it fails.  The Lua module is
BUILD/lua/monostamp/core.so (`make lua`), built against LUA (lua5.4); the
Python one is built from this checkout into BUILD/python-soak/ by the
interpreter running the test (not the installed monostamp, which may come
from another tree).  SOAK_BURST stamps a burst (100), SOAK_PAUSE_MS between
bursts (20), SOAK_SEED the schedule's random seed (printed).

Run by `make soak` (tools/checks/soak.sh); `make test-all` runs it for 30 s.
"""
from __future__ import annotations

import os
import random
import subprocess
import time
from collections import Counter
from pathlib import Path

import stamps
from soak_workers import STATE, Workers

MINUTES = float(os.environ.get("SOAK_MINUTES", "10"))
SECONDS = max(1, round(MINUTES * 60))
KILL_MAX_S = int(os.environ.get("SOAK_KILL_MAX_S", "4"))
EVENTS = os.environ.get("SOAK_EVENTS", "1") != "0"
SEED = int(os.environ.get("SOAK_SEED") or random.SystemRandom().randrange(10**9))
# A draw of 0-11: half kills, then one each of the path events.
DRAWS = ["kill"] * 6 + ["chdir", "rename", "delete", "directory", "overwrite", "truncate"]


class Checks:
    """Counts the checks that hold and keeps what failed."""

    def __init__(self) -> None:
        self.passed = 0
        self.failures: list[str] = []

    def __call__(self, holds: bool, what: str) -> None:
        if holds:
            self.passed += 1
        else:
            self.failures.append(what)


def check_outputs(runs: dict[str, list[Path]], check: Checks, scratch: Path) -> Counter:
    """The checks on the workers' output: runs holds each slot's files in
    the order of its runs (a run killed before it opened its file has
    none); scratch takes sort's temporary files.  Returns the figures:
    stamps by language, files, partial lines and duplicates."""
    figures: Counter = Counter()
    paths, in_order = [], True
    for slot, files in runs.items():
        last, last_file = None, None
        for path in files:
            if not path.exists():
                continue
            paths.append(path)
            figures["partial"] += stamps.drop_partial_line(path)
            got = stamps.read_stamp_file(path)
            figures["files"] += 1
            figures[slot.split("-")[0]] += len(got.lines)
            check(not got.malformed, "%s: %d malformed lines, the first %r"
                  % (path.name, len(got.malformed), got.malformed[:1]))
            back = stamps.not_increasing(got.lines)
            check(not back, "%s: %d stamps not above the one before" % (path.name, back))
            in_order = in_order and not back and not got.malformed
            if got.lines:
                check(last is None or got.lines[0] > last,
                      "%s: stamps do not increase across the restart after %s"
                      % (path.name, last_file))
                last, last_file = got.lines[-1], path.name
    duplicates, first = stamps.file_duplicates(paths, in_order, scratch)
    figures["duplicates"] = duplicates
    where = ["%s in %s" % (value.decode(), " ".join(
        p.name for p in paths if value in p.read_bytes().split(b"\n"))) for value in first]
    check(not duplicates, "%d stamps appear more than once: %s" % (duplicates, "; ".join(where)))
    check(figures["py"] + figures["lua"] > 0, "no stamps at all")
    check(figures["py"] > 0, "the Python workers wrote no stamps")
    check(figures["lua"] > 0, "the Lua workers wrote no stamps")
    return figures


def rename_over(workers: Workers, python: str, python_path: Path) -> None:
    """A complete new state file, made by the library, renamed over the
    shared one while the workers stamp on it."""
    subprocess.run([python, "-c", 'import monostamp; monostamp.Clock(shared="d/fresh")'],
                   cwd=workers.dir, env=workers.env["py"], check=True, capture_output=True)
    os.replace(workers.dir / "d" / "fresh", workers.dir / STATE)


def path_event(event: str, workers: Workers, rng: random.Random, done: Counter,
               check: Checks, soak_python: tuple[str, Path]) -> None:
    """One of the events other than a kill, counted in `done` when it happened."""
    state = workers.dir / STATE
    if event == "chdir":
        slot = rng.choice(workers.slots[:4])
        sent = workers.wander(slot)
        check(sent is not None, "%s had not opened its output 10 s after it was asked to"
              " chdir" % slot.name)
        done[event] += bool(sent)  # not when it ended: the next look reports that
    elif event == "rename":
        try:
            rename_over(workers, *soak_python)
            done[event] += 1
        except (OSError, subprocess.CalledProcessError) as e:
            check(False, "could not rename a new file over %s: %s %s"
                  % (STATE, e, getattr(e, "stderr", b"").decode(errors="replace")))
    elif event == "delete":
        state.unlink(missing_ok=True)
        done[event] += 1
    elif event == "directory":
        done[event] += 1
        try:
            (workers.dir / "d").rename(workers.dir / ("d.away.%d" % done[event]))
            (workers.dir / "d").mkdir()
        except OSError as e:
            check(False, "could not replace %s/d: %s" % (workers.dir, e))
    elif event == "overwrite":
        try:  # a file truncated before is extended with zeros: so be it
            with open(state, "r+b") as f:
                f.seek(64)
                f.write(bytes(8))
            done[event] += 1
        except FileNotFoundError:
            pass
    elif event == "truncate":
        try:
            os.truncate(state, 0)
            done[event] += 1
        except FileNotFoundError:
            pass


def test_soak(soak_workers: Workers, soak_python: tuple[str, Path], figures) -> None:
    workers, rng, check = soak_workers, random.Random(SEED), Checks()
    done: Counter[str] = Counter()
    figures("soak: 4 Python + 4 Lua processes on %s/%s for %d s, one event every 1-%d s"
            " (SOAK_SEED=%d)" % (workers.dir, STATE, SECONDS, KILL_MAX_S, SEED))
    workers.start_all()
    begin = time.monotonic()
    while time.monotonic() - begin < SECONDS:
        time.sleep(min(rng.randint(1, KILL_MAX_S), SECONDS - (time.monotonic() - begin)))
        # A worker that ended by itself is a failure: say why, start another.
        for slot, status in workers.ended():
            check(False, "%s run %d ended by itself (status %d): %s"
                  % (slot.name, slot.runs, status, workers.err_tail(slot)))
            done["died"] += 1
            workers.start(slot)
        if time.monotonic() - begin >= SECONDS:
            break
        event = rng.choice(DRAWS) if EVENTS else "kill"
        if event == "kill":
            slot = rng.choice(workers.slots)
            workers.kill(slot)
            workers.start(slot)
            done["kill"] += 1
        else:
            path_event(event, workers, rng, done, check, soak_python)
    for problem in workers.stop():
        check(False, problem)
    elapsed = time.monotonic() - begin

    found = check_outputs({slot.name: slot.outs for slot in workers.slots}, check, workers.dir)
    check(not (workers.dir / "elsewhere" / STATE).exists(),
          "a state file appeared in elsewhere/ (a chdir split the sequence)")
    check(not (workers.dir / "d" / "fresh").exists(), "a fresh file was left behind by a rename")

    figures("soak: %.0f s, %d processes (%d killed with -9 and restarted, %d ended by themselves)"
            % (elapsed, found["files"], done["kill"], done["died"]))
    figures("soak: path events: %d chdir, %d rename-over, %d delete, %d directory replaced,"
            " %d overwritten with 0, %d truncated" % tuple(done[e] for e in DRAWS[6:]))
    figures("soak: %d stamps (%d Python, %d Lua), %d duplicates, %d partial last lines dropped"
            % (found["py"] + found["lua"], found["py"], found["lua"], found["duplicates"],
               found["partial"]))
    figures("soak: %d checks passed, %d failed" % (check.passed, len(check.failures)))
    assert not check.failures, "\n".join(check.failures)


def write(path: Path, *lines: str, end: str = "\n") -> Path:
    path.write_text("\n".join(lines) + end)
    return path


def test_checks_find_a_stamp_twice_and_a_process_out_of_order(tmp_path: Path) -> None:
    """The checks above can fail: on made-up files they find what they look
    for, and a last line cut short is dropped, not a failure."""
    a, b, c = ("17%017d" % n for n in (1, 2, 3))

    def failures(runs: dict[str, list[Path]]) -> tuple[list[str], Counter]:
        check = Checks()
        found = check_outputs(runs, check, tmp_path)
        return check.failures, found

    # Slot lua-4's second run was killed mid-line: nothing whole from Lua.
    cut = {"py-0": [write(tmp_path / "g1", a, c), tmp_path / "never-opened"],
           "lua-4": [write(tmp_path / "g2", b, end="")]}
    assert failures(cut) == (["the Lua workers wrote no stamps"],
                             Counter(files=2, py=2, lua=0, partial=1, duplicates=0))
    good = dict(cut)
    good["lua-4"] = [write(tmp_path / "g3", b)]
    assert failures(good)[0] == []
    twice = {"py-0": [write(tmp_path / "t1", a, b)], "lua-4": [write(tmp_path / "t2", b, c)]}
    assert failures(twice)[0] == ["1 stamps appear more than once: %s in t1 t2" % b]
    back = {"py-0": [write(tmp_path / "b1", b, a)], "lua-4": [write(tmp_path / "b2", c)]}
    assert failures(back)[0] == ["b1: 1 stamps not above the one before"]
    restart = {"py-0": [write(tmp_path / "r1", a, c), write(tmp_path / "r2", b)],
               "lua-4": [write(tmp_path / "r3", "1" * 19)]}
    assert failures(restart)[0] == ["r2: stamps do not increase across the restart after r1"]
    bad = {"py-0": [write(tmp_path / "m1", a, "12")], "lua-4": [write(tmp_path / "m2", b)]}
    assert failures(bad)[0] == ["m1: 1 malformed lines, the first ['12']"]
