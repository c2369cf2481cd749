"""nginx_server.py: one nginx (Debian's, with libnginx-mod-http-lua) started
from tests/integration/nginx/nginx.conf.in, for the integration tests'
fixtures and bench/nginx.sh.

Everything of one nginx lives under its prefix: the rendered nginx.conf, the
pid file, temp paths and logs/error.log.  It runs with `daemon off`, so the
master is our child and stop() can be sure it is gone.  Run as root, the
workers run as nobody:nogroup (as Debian's www-data would); otherwise as
the caller, since only root can switch.

As a script, `python3 nginx_server.py PREFIX PORT MAIN HTTP LOCATIONS`
prints the config render() makes (bench/nginx.sh's use).
"""
from __future__ import annotations

import grp
import os
import pwd
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "nginx" / "nginx.conf.in"
MODULES = Path("/usr/lib/nginx/modules")
NGINX = "/usr/sbin/nginx"
# Where the workers' require() looks: the checkout's Lua binding (for
# monostamp.ffi), then the handlers beside the template.
LUA_PATH = "%s/bindings/lua/?.lua;%s/nginx/?.lua" % (ROOT, HERE)
# The error log's levels that fail a run.
BAD_LEVELS = re.compile(r"\[(error|crit|alert|emerg)\]")


def present() -> bool:
    """Whether nginx and its Lua module (with NDK) are installed."""
    return (os.access(NGINX, os.X_OK) and (MODULES / "ndk_http_module.so").exists()
            and (MODULES / "ngx_http_lua_module.so").exists())


def free_port() -> int:
    """A port on 127.0.0.1 nobody listens on at the moment."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker_identity() -> tuple[str, str]:
    """The user and group the workers run as."""
    if os.getuid() == 0:
        return "nobody", "nogroup"
    return pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name


def render(prefix: Path | str, port: int, main: str = "", http: str = "",
           locations: str = "") -> str:
    """nginx.conf.in with its placeholders filled: MAIN goes at the top
    level (env lines), HTTP into http{}, LOCATIONS into the server."""
    user = "user %s %s;" % worker_identity() if os.getuid() == 0 else ""
    values = {"user": user, "prefix": str(prefix), "modules": str(MODULES), "main": main,
              "http": http, "locations": locations, "port": str(port), "lua_path": LUA_PATH}

    def fill(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise KeyError("%s: no value for @%s@" % (TEMPLATE, m.group(1)))
        return values[m.group(1)]

    return re.sub(r"@(\w+)@", fill, TEMPLATE.read_text())


def _children(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return sorted(out)


class Nginx:
    """One nginx under `prefix`, listening on 127.0.0.1:`port`."""

    def __init__(self, prefix: Path, port: int, conf: str):
        self.prefix, self.port = Path(prefix), port
        (self.prefix / "logs").mkdir(parents=True, exist_ok=True)
        (self.prefix / "tmp").mkdir(exist_ok=True)
        self.conf = self.prefix / "nginx.conf"
        self.conf.write_text(conf)
        self.error_log = self.prefix / "logs" / "error.log"
        self.master: subprocess.Popen[bytes] | None = None

    def _args(self, *more: str) -> list[str]:
        return [NGINX, "-p", str(self.prefix), "-c", str(self.conf), "-e", str(self.error_log),
                *more]

    def start(self, within_s: float = 15) -> None:
        """Starts nginx and waits until its port answers; raises, with the
        error log, when nginx exits or does not answer."""
        self.master = subprocess.Popen(self._args())
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            if self.master.poll() is not None:
                break  # nginx gave up (its log says why)
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        log = self.error_log.read_text() if self.error_log.exists() else "(no error log)"
        self.stop()
        raise RuntimeError("nginx did not answer on 127.0.0.1:%d; %s:\n%s"
                           % (self.port, self.error_log, log))

    def workers(self) -> list[int]:
        """The master's current children (its workers), by pid."""
        assert self.master is not None
        return _children(self.master.pid)

    def worker_users(self) -> set[str]:
        """The users the current workers run as."""
        users = set()
        for pid in self.workers():
            try:
                users.add(pwd.getpwuid(os.stat("/proc/%d" % pid).st_uid).pw_name)
            except FileNotFoundError:
                pass
        return users

    def reload(self) -> None:
        """`nginx -s reload`: new workers, the old ones finish their requests."""
        subprocess.run(self._args("-s", "reload"), check=True)

    def stop(self) -> None:
        """Stops nginx gracefully (QUIT), and for sure after 10 s."""
        if self.master is None:
            return
        master, self.master = self.master, None
        if master.poll() is None:
            master.send_signal(signal.SIGQUIT)
            try:
                master.wait(10)
            except subprocess.TimeoutExpired:
                print("nginx %d ignored QUIT for 10 s; killing it" % master.pid, file=sys.stderr)
                for pid in _children(master.pid):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                master.kill()
                master.wait()

    def log_errors(self) -> list[str]:
        """The error log's lines at the levels that fail a run."""
        if not self.error_log.exists():
            return []
        return [line for line in self.error_log.read_text().splitlines()
                if BAD_LEVELS.search(line)]


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit("usage: nginx_server.py PREFIX PORT MAIN HTTP LOCATIONS")
    sys.stdout.write(render(sys.argv[1], int(sys.argv[2]), *sys.argv[3:6]))
