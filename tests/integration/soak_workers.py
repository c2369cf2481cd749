"""soak_workers.py: the soak's eight worker processes (soak/worker.py and
soak/worker.lua) on one shared state file, for test_soak.py's fixtures.

Slot s (0..7): 0-3 Python, 4-7 Lua; even slots draw from Clock(shared=) /
clock{shared=}, odd ones from the default clock joined through
MONOSTAMP_SHARED.  Every worker starts in the soak directory and opens the
state file by the relative path STATE, so a clock that followed the name
from another working directory would split the sequence.  Each incarnation
of a slot appends to a file of its own, out/<lang>-<slot>.<run>, and its
stderr goes to err/ under the same name.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROGRAMS = HERE / "soak"
STATE = "d/state"  # relative: the workers start in the soak directory
SLOTS = range(8)


def lang_of(slot: int) -> str:
    return "py" if slot < 4 else "lua"


def mode_of(slot: int) -> str:
    return "clock" if slot % 2 == 0 else "default"


@dataclass
class Slot:
    """One slot's current process and how many incarnations it has had."""
    number: int
    runs: int = 0
    process: subprocess.Popen[bytes] | None = None
    outs: list[Path] = field(default_factory=list)  # one file a run, in order

    @property
    def name(self) -> str:
        return "%s-%d" % (lang_of(self.number), self.number)


class Workers:
    """The eight workers of one soak in `directory`: python is the
    interpreter (a binary, not a shim: what is killed is then Python),
    python_path where its monostamp is, lua the Lua interpreter and
    lua_cpath where monostamp.core is."""

    def __init__(self, directory: Path, python: str, python_path: Path, lua: str,
                 lua_cpath: str, burst: int, pause_ms: int):
        self.dir = directory
        self.stop_file = directory / "stop"
        for sub in ("out", "err", "elsewhere", "d"):
            (directory / sub).mkdir()
        base = {k: v for k, v in os.environ.items() if not k.startswith("MONOSTAMP_")}
        self.env = {
            "py": dict(base, PYTHONPATH=str(python_path)),
            "lua": dict(base, LUA_CPATH=lua_cpath, LUA_PATH="%s/bindings/lua/?.lua;;" % ROOT),
        }
        self.argv = {"py": [python, str(PROGRAMS / "worker.py")],
                     "lua": [lua, str(PROGRAMS / "worker.lua")]}
        self.burst, self.pause_ms = burst, pause_ms
        self.slots = [Slot(s) for s in SLOTS]

    def start(self, slot: Slot) -> None:
        """Starts the slot's next incarnation."""
        slot.runs += 1
        lang, mode = lang_of(slot.number), mode_of(slot.number)
        run = "%s.%04d" % (slot.name, slot.runs)
        out = self.dir / "out" / run
        slot.outs.append(out)
        env = dict(self.env[lang], MONOSTAMP_SHARED=STATE if mode == "default" else "")
        with open(self.dir / "err" / run, "wb") as err:
            slot.process = subprocess.Popen(
                self.argv[lang] + [STATE, str(out), mode, str(self.burst), str(self.pause_ms),
                                   str(self.stop_file)],
                cwd=self.dir, env=env, stdin=subprocess.DEVNULL, stdout=err, stderr=err)

    def start_all(self) -> None:
        for slot in self.slots:
            self.start(slot)

    def kill(self, slot: Slot) -> None:
        """SIGKILL, reaped: the slot has no process until start()."""
        if slot.process is not None:
            slot.process.kill()
            slot.process.wait()
            slot.process = None

    def ended(self) -> list[tuple[Slot, int]]:
        """The slots whose process ended by itself, with its status."""
        return [(slot, slot.process.returncode) for slot in self.slots
                if slot.process is not None and slot.process.poll() is not None]

    def wander(self, slot: Slot, within_s: float = 10) -> bool | None:
        """Sends the Python worker SIGUSR1 (chdir elsewhere or back) once its
        output file exists, that is once its handler is in place: True.
        False when it ended first (ended() reports it); None when it did
        not get that far within_s."""
        assert lang_of(slot.number) == "py" and slot.process is not None
        deadline = time.monotonic() + within_s
        while not slot.outs[-1].exists():
            if slot.process.poll() is not None:
                return False
            if time.monotonic() > deadline:
                return None
            time.sleep(0.05)
        slot.process.send_signal(signal.SIGUSR1)
        return True

    def stop(self, within_s: float = 10) -> list[str]:
        """Asks every worker to stop between bursts (the stop file); returns
        what went wrong: one still running within_s later (then killed), or
        a last run that did not exit 0."""
        self.stop_file.touch()
        problems = []
        deadline = time.monotonic() + within_s
        for slot in self.slots:
            p = slot.process
            if p is None:
                continue
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.kill(slot)
                problems.append("%s did not stop within %g s" % (slot.name, within_s))
                continue
            if p.returncode != 0:
                problems.append("%s's last run exited with status %d: %s" % (
                    slot.name, p.returncode, self.err_tail(slot)))
            slot.process = None
        return problems

    def kill_all(self) -> None:
        """The teardown, however the test ended."""
        for slot in self.slots:
            self.kill(slot)

    def err_tail(self, slot: Slot, lines: int = 3) -> str:
        """The last lines the slot's current run wrote to stderr, on one line."""
        err = self.dir / "err" / ("%s.%04d" % (slot.name, slot.runs))
        text = err.read_text(errors="replace") if err.exists() else ""
        return " ".join(text.splitlines()[-lines:])
