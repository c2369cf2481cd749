"""monostamp.ffi inside a real nginx (Debian's nginx with
libnginx-mod-http-lua), set up as docs/lua.md's OpenResty section says.

For each setup an nginx with 4 workers (as an unprivileged user) serves
nginx/stamp.lua, and wrk (nginx/record.lua) records NGINX_RESPONSES
(default 50,000) response bodies of BURST lines "<whole-µs stamp> <worker
pid> <worker's count>":

  init      monostamp.ffi required in init_by_lua, before the workers fork
  shared    required by each worker, MONOSTAMP_SHARED (via `env`) naming a
            state file in a directory the worker user owns
  control   required by each worker, no state file: the workers' sequences
            are independent, so this run must find duplicates (its
            responses carry CONTROL_BURST lines, a tenth as many of them,
            so that it finds them even when the workers never run at once)

The checks (stamps.py): no stamp twice among the responses (control: some
twice, or the check could not fail), and each worker's stamps strictly
increasing in the order it made them.  init and shared run a second time
with an `nginx -s reload` mid-run, the same checks over old and new
workers, and the old and new generations must overlap (certain: /hold
requests keep old workers stamping for 3 s after the reload).  Any [error],
[crit], [alert] or [emerg] in the error log fails a run.  Last, make
test-luajit under the luajit that stays beside the nginx Lua module.

Run by `make test-nginx` (tools/checks/test-nginx.sh installs the packages first).
"""
from __future__ import annotations

import grp
import http.client
import os
import pwd
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

import nginx_server
import stamps
from stamps import Records

RESPONSES = int(os.environ.get("NGINX_RESPONSES", "50000"))
THREADS, CONNECTIONS = 2, 16
BURST = 10          # stamps per response
# The control's: each response leads real time by most of a ms, so the next
# worker to answer within it repeats its stamps even when the workers never
# run at once (both cores busy elsewhere); as many stamps as the others.
CONTROL_BURST = 1000
HOLDERS, HOLD_MS = 4, 3000
WORKERS = 4         # nginx.conf.in's worker_processes
RECORD = nginx_server.HERE / "nginx" / "record.lua"
LOCATIONS = """\
        location = /stamp { content_by_lua_block { require("stamp").stamp(%d) } }
        location = /hold { content_by_lua_block { require("stamp").hold(%d) } }"""

SETUPS = [
    # name, what the stamps must be, whether nginx reloads mid-run
    pytest.param("init", "unique", False, id="init"),
    pytest.param("shared", "unique", False, id="shared"),
    pytest.param("control", "duplicates", False, id="control"),
    pytest.param("init", "unique", True, id="init-reload"),
    pytest.param("shared", "unique", True, id="shared-reload"),
]


class LineCount:
    """Lines wrk's threads have written so far, read on from where the
    last look stopped (the files grow to ~100 MB across a reload)."""

    def __init__(self, out: Path):
        self.out, self.offsets, self.lines = out, {}, 0

    def __call__(self) -> int:
        for path in self.out.glob("responses.[0-9]*"):
            with open(path, "rb") as f:
                f.seek(self.offsets.get(path, 0))
                data = f.read()
            self.offsets[path] = self.offsets.get(path, 0) + len(data)
            self.lines += data.count(b"\n")
        return self.lines


class Holders:
    """HOLDERS /hold requests at once, each keeping its worker stamping for
    HOLD_MS; streaming() returns once every one has its first burst."""

    def __init__(self, port: int):
        self.port = port
        self.bodies: list[bytes] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.barrier = threading.Barrier(HOLDERS + 1, timeout=20)
        self.threads = [threading.Thread(target=self.hold, daemon=True) for _ in range(HOLDERS)]
        for t in self.threads:
            t.start()

    def hold(self) -> None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
            conn.request("GET", "/hold?ms=%d" % HOLD_MS)
            resp = conn.getresponse()
            first = resp.readline()
            self.barrier.wait()
            body = first + resp.read()
            with self.lock:
                if resp.status == 200:
                    self.bodies.append(body)
                else:
                    self.errors.append("/hold: status %d" % resp.status)
        except Exception as e:  # reported by the test, not lost in a thread
            with self.lock:
                self.errors.append("/hold: %r" % e)
            self.barrier.abort()

    def streaming(self) -> None:
        self.barrier.wait()

    def done(self) -> bool:
        return not any(t.is_alive() for t in self.threads)

    def join(self) -> None:
        for t in self.threads:
            t.join(30)


def wanted(reload: bool, burst: int = BURST) -> int:
    """The responses a run records at least: NGINX_RESPONSES (as many stamps
    for another burst), twice across a reload, rounded up to a whole share
    for each wrk thread."""
    total = (RESPONSES * 2 if reload else RESPONSES) * BURST // burst
    return -(-total // THREADS) * THREADS


def main_conf(name: str, build: Path, prefix: Path) -> tuple[str, str]:
    """The setup's top-level lines and http{} lines."""
    main = "env MONOSTAMP_LIBRARY=%s/libmonostamp.so;" % build
    in_http = ""
    if name == "init":
        in_http = '    init_by_lua_block { require "monostamp.ffi" }'
    elif name == "shared":
        # The state file's directory belongs to the worker user: the workers
        # create the file, and monostamp accepts only a file of the
        # process's own user.
        state = prefix / "state"
        prefix.mkdir(mode=0o755, exist_ok=True)
        state.mkdir()
        user, group = nginx_server.worker_identity()
        os.chown(state, pwd.getpwnam(user).pw_uid, grp.getgrnam(group).gr_gid)
        state.chmod(0o700)
        main += "\nenv MONOSTAMP_SHARED=%s/monostamp.state;" % state
    return main, in_http


def record(server: nginx_server.Nginx, out: Path, reload: bool,
           burst: int) -> tuple[Records, set, float]:
    """Has wrk record the bodies (and, across a reload, the /hold ones);
    returns the records, the old workers (empty without a reload) and the
    seconds wrk ran."""
    total = wanted(reload, burst)
    # Across a reload wrk runs until the old workers' /hold requests are
    # over (and total is in), however long the reload takes.
    want = 10**9 if reload else total // THREADS
    started = time.monotonic()
    log = open(out.parent / "wrk.txt", "wb")
    # wrk runs for a time, not a count: its threads stop themselves at their
    # share, and it is interrupted once every share is in.
    wrk = subprocess.Popen(
        ["wrk", "-t%d" % THREADS, "-c%d" % CONNECTIONS, "-d240s", "--timeout", "10s",
         "-s", str(RECORD), "http://127.0.0.1:%d/stamp" % server.port, "--", str(out), str(want)],
        stdout=log, stderr=subprocess.STDOUT)
    old: set[int] = set()
    holders = None
    lines = LineCount(out)
    try:
        while wrk.poll() is None:
            assert time.monotonic() - started < 300, "wrk still running after 300 s"
            if len(list(out.glob("done.*"))) >= THREADS:
                break
            got = lines() // burst
            if reload and holders is None and got >= total // 10:
                # Mid-run, with /hold requests keeping the old workers
                # stamping while the new ones take over wrk's connections
                # (an old worker closes each after its current request).
                old = set(server.workers())
                holders = Holders(server.port)
                holders.streaming()
                server.reload()
            if holders is not None and holders.done() and got >= total:
                break
            time.sleep(0.05)
        wrk.send_signal(signal.SIGINT)
        rc = wrk.wait(30)
        seconds = time.monotonic() - started
    finally:
        if wrk.poll() is None:
            wrk.kill()
            wrk.wait()
        log.close()
    assert rc == 0, "wrk failed, or hit its bound of 240 s:\n" + (out.parent / "wrk.txt").read_text()
    records = Records()
    for path in sorted(out.glob("responses.[0-9]*")):
        records.add(path.read_bytes())
    if reload:
        assert holders is not None, "no reload was sent"
        holders.join()
        assert not holders.errors, holders.errors
        for body in holders.bodies:
            records.add(body, main=False)
    return records, old, seconds


def check(records: Records, want: int, expect: str, old: set,
          burst: int = BURST) -> tuple[str, list[str]]:
    """The figures line of one run (`burst` stamps a response) and what
    failed in it."""
    failures = []
    if records.bad:
        failures.append("%d bad lines, e.g. %r" % (len(records.bad), records.bad[0]))
    responses = sum(records.main) // burst
    if responses < want:
        failures.append("%d responses recorded, %d wanted" % (responses, want))
    if stamps.not_whole_us(records.ns):
        failures.append("%d stamps are not whole microseconds" % stamps.not_whole_us(records.ns))
    by_pid = records.by_process()
    out_of_order = 0
    for pid, rows in by_pid.items():
        if stamps.counts_repeated(records, rows):
            failures.append("worker %d: a count recorded twice" % pid)
        out_of_order += stamps.not_above_previous(records, rows)
    if out_of_order:
        failures.append("%d stamps not above their worker's previous one" % out_of_order)
    if len(by_pid) < 2:
        failures.append("only %d worker answered: nothing crossed workers" % len(by_pid))
    duplicates = stamps.duplicates(records.ns)
    line = ("%d responses, %d stamps from %d workers (%s), %d duplicate stamps,"
            " %d out of order within a worker") % (
        responses, len(records), len(by_pid), " ".join(str(len(by_pid[p])) for p in sorted(by_pid)),
        duplicates, out_of_order)
    if old:
        n_old = sum(len(rows) for pid, rows in by_pid.items() if pid in old)
        n_new = len(records) - n_old
        overlap = stamps.overlap_ms(records, old)
        if overlap is None or overlap <= 0:
            failures.append("old and new workers did not both stamp: %d stamps from old, %d from"
                            " new, overlap %s ms" % (n_old, n_new, overlap))
        else:
            line += "; %d stamps from old workers, %d from new, overlapping %.1f ms" % (
                n_old, n_new, overlap)
        wrk_overlap = stamps.overlap_ms(records, old, main_only=True)
        if wrk_overlap is not None:
            line += " (%.1f ms in wrk's requests alone)" % wrk_overlap
    if expect == "unique" and duplicates:
        failures.append("%d duplicate stamps" % duplicates)
    if expect == "duplicates" and not duplicates:
        failures.append("no duplicates where the workers' sequences are independent:"
                        " this check could not fail")
    return line, failures


@pytest.mark.parametrize("name, expect, reload", SETUPS)
def test_stamps_in_nginx_workers(name, expect, reload, build, nginx_root, start_nginx, figures):
    folder = name + ("-reload" if reload else "")
    main, in_http = main_conf(name, build, nginx_root / folder)
    burst = CONTROL_BURST if name == "control" else BURST
    server = start_nginx(folder, main, in_http, LOCATIONS % (burst, burst))
    user = nginx_server.worker_identity()[0]
    # The port answers before the master has forked every worker and each
    # has taken its user: wait for that, on a busy machine too.
    deadline = time.monotonic() + 15
    while ((len(server.workers()) < WORKERS or server.worker_users() != {user})
           and time.monotonic() < deadline):
        time.sleep(0.05)
    workers = server.workers()
    assert len(workers) == WORKERS, "%d workers, not %d" % (len(workers), WORKERS)
    assert server.worker_users() == {user}, "workers run as %s, not %s" % (
        server.worker_users(), user)

    out = server.prefix / "out"
    out.mkdir()
    records, old, seconds = record(server, out, reload, burst)
    figures("wrk: %.1f s, %.0f responses/s (-t%d -c%d, recording every body), %d workers as %s"
            % (seconds, sum(records.main) // burst / seconds, THREADS, CONNECTIONS, WORKERS, user))
    if reload:
        # wrk has closed its connections: the old workers must be gone.
        deadline = time.monotonic() + 10
        while old & set(server.workers()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not old & set(server.workers()), "old workers still running 10 s after the run"

    line, failures = check(records, wanted(reload, burst), expect, old, burst)
    figures(line)
    if name == "shared":
        # The workers made it, as their own user, private to it.
        st = (server.prefix / "state" / "monostamp.state").stat()
        owner = "%s %o" % (pwd.getpwuid(st.st_uid).pw_name, st.st_mode & 0o777)
        figures("state file: %s:%s %o" % (pwd.getpwuid(st.st_uid).pw_name,
                                          grp.getgrgid(st.st_gid).gr_name, st.st_mode & 0o777))
        if owner != "%s 600" % user:
            failures.append("state file: %s, not %s 600" % (owner, user))
    server.stop()
    errors = server.log_errors()
    if errors:
        failures.append("%d errors in %s, the first: %s" % (len(errors), server.error_log,
                                                           errors[:5]))
    assert not failures, "\n".join(failures)
    # The bodies (~35 bytes a stamp, 100 MB across a reload) stay only for a failure.
    shutil.rmtree(out)


def test_luajit_suite_beside_the_nginx_module(build, nginx_root, figures):
    """monostamp.ffi's own suite under the luajit that stays once the
    nginx Lua module (and so luajit2) is installed."""
    version = subprocess.run(["luajit", "-v"], capture_output=True, text=True).stdout.split()[:2]
    package = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}", "luajit2"],
                             capture_output=True, text=True).stdout
    run = subprocess.run(["make", "--no-print-directory", "-s", "test-luajit", "BUILD=%s" % build],
                         cwd=nginx_server.ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    figures("%s (%s): %s" % (" ".join(version), package, run.stdout.strip().splitlines()[-1]))


def bodies(*lines: str) -> Records:
    """Records of the lines given."""
    records = Records()
    records.add("".join(line + "\n" for line in lines).encode())
    return records


def test_check_finds_a_stamp_twice_and_a_worker_out_of_order():
    """The checks above can fail: on made-up records, one stamp a
    response, they find what they look for."""
    good = bodies("1000 7 1", "3000 7 2", "2000 8 1", "4000 8 2")
    assert check(good, 4, "unique", set(), 1)[1] == []
    assert check(good, 4, "duplicates", set(), 1)[1] == [
        "no duplicates where the workers' sequences are independent: this check could not fail"]
    twice = bodies("1000 7 1", "3000 7 2", "3000 8 1")
    assert check(twice, 3, "unique", set(), 1)[1] == ["1 duplicate stamps"]
    # Worker 7 made 3000 before 2000 (its counts say so), whatever the lines' order.
    back = bodies("2000 7 2", "3000 7 1", "5000 8 1")
    assert check(back, 3, "unique", set(), 1)[1] == [
        "1 stamps not above their worker's previous one"]
    assert check(bodies("1000 7 1", "2000 7 1", "3000 8 1"), 3, "unique", set(), 1)[1] == [
        "worker 7: a count recorded twice"]
    lone = bodies("1000 7 1", "2000 7 2", "1500 7 2 x", "4000 7 3")
    assert check(lone, 4, "unique", set(), 1)[1] == [
        "1 bad lines, e.g. '1500 7 2 x'", "3 responses recorded, 4 wanted",
        "only 1 worker answered: nothing crossed workers"]
    assert check(bodies("1000 7 1", "2500 8 1"), 2, "unique", set(), 1)[1] == [
        "1 stamps are not whole microseconds"]
    # Across a reload: old worker 7 stopped before new worker 8 began.
    gap = bodies("1000000 7 1", "3000000 8 1")
    assert check(gap, 2, "unique", {7}, 1)[1] == [
        "old and new workers did not both stamp: 1 stamps from old, 1 from new,"
        " overlap -2.0 ms"]
