"""Fixtures of the integration tests: the build they test, servers started
and always stopped, and the figures each test reports (printed at the end
of the session, as the runs' summary).

The build is MONOSTAMP_BUILD (the Makefile's BUILD, which the launcher
passes), else ./build of the checkout; each section's fixtures ask for what
they need in it (nginx: libmonostamp.so, `make lib`; the soak: the Lua
module, `make lua`).

Layout, for the next test to join: a test file (test_<what>.py) launched by
its make target through a script in tools/ that only installs; what it runs
beside the test in a module of its own (nginx_server.py) with its programs
in a folder (nginx/); its fixtures in a section of this file; the stamps it
gathers checked with stamps.py (no stamp twice, each process in order).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator

import pytest

import nginx_server
from soak_workers import Workers

FIGURES = pytest.StashKey[list]()
PASSED = pytest.StashKey[bool]()


@pytest.fixture(scope="session")
def build() -> Path:
    """The build directory."""
    return Path(os.environ.get("MONOSTAMP_BUILD") or nginx_server.ROOT / "build").resolve()


def built(build: Path, name: str, target: str) -> Path:
    """build/name, failing the test when it is missing."""
    path = build / name
    if not path.exists():
        pytest.fail("%s is missing: run make %s BUILD=%s" % (path, target, build))
    return path


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Notes whether the test itself passed, for fixtures that keep their
    files when it did not."""
    report = yield
    if report.when == "call":
        item.stash[PASSED] = report.passed
    return report


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """figures(line): a line of the figures the session prints at its end,
    under the test's id."""
    lines = request.config.stash.setdefault(FIGURES, [])
    name = request.node.callspec.id if hasattr(request.node, "callspec") else request.node.name

    def add(line: str) -> None:
        lines.append("%s: %s" % (name, line))
        print(line)  # also in the test's captured output, shown when it fails
    return add


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    lines = config.stash.get(FIGURES, [])
    if lines:
        terminalreporter.section("figures")
        for line in lines:
            terminalreporter.write_line(line)


# {================================================= nginx

@pytest.fixture(scope="session")
def nginx_root(build: Path) -> Path:
    """BUILD/nginx-test, emptied once per session; each nginx gets a folder
    in it (kept after the session: a failed run's bodies stay there)."""
    built(build, "libmonostamp.so", "lib")
    if not nginx_server.present():
        pytest.skip("needs nginx and libnginx-mod-http-lua (make test-nginx installs them)")
    if shutil.which("wrk") is None:
        pytest.skip("needs wrk (make test-nginx installs it)")
    root = build / "nginx-test"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    root.chmod(0o755)  # the workers' user walks through it to the state files
    return root


@pytest.fixture
def start_nginx(nginx_root: Path) -> Iterator[Callable[..., nginx_server.Nginx]]:
    """start_nginx(name, main=, http=, locations=): an nginx running under
    nginx_root/name on a free port, from nginx/nginx.conf.in; every nginx
    started is stopped when the test ends, however it ends."""
    started: list[nginx_server.Nginx] = []

    def start(name: str, main: str = "", http: str = "", locations: str = "") -> nginx_server.Nginx:
        prefix = nginx_root / name  # the test may have made it, for its own files
        prefix.mkdir(mode=0o755, exist_ok=True)
        port = nginx_server.free_port()
        server = nginx_server.Nginx(prefix, port, nginx_server.render(prefix, port, main, http,
                                                                      locations))
        started.append(server)
        server.start()
        return server

    yield start
    for server in started:
        server.stop()

# }=================================================


# {================================================= soak

@pytest.fixture(scope="session")
def soak_python(build: Path) -> tuple[str, Path]:
    """The interpreter running the tests (the binary, not a pyenv shim: what
    the soak kills is then Python) and the folder where it has built this
    checkout's monostamp, build/python-soak/lib (not the installed
    monostamp, which may come from another tree)."""
    python = os.path.realpath(sys.executable)
    out = build / "python-soak"
    run = subprocess.run([python, "setup.py", "--quiet", "build", "--build-base",
                          str(out / "build"), "--build-lib", str(out / "lib")],
                         cwd=nginx_server.ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        pytest.fail("setup.py build failed:\n" + run.stdout + run.stderr)
    return python, out / "lib"


@pytest.fixture
def soak_dir(request: pytest.FixtureRequest, figures: Callable[[str], None]) -> Iterator[Path]:
    """A private directory (mkdtemp, 0700) under TMPDIR: removed when the
    test passes, kept and named in the figures when it does not."""
    path = Path(tempfile.mkdtemp(prefix="monostamp-soak."))
    yield path
    if request.node.stash.get(PASSED, False):
        shutil.rmtree(path)
    else:
        figures("soak: files kept in %s" % path)


@pytest.fixture
def soak_workers(build: Path, soak_python: tuple[str, Path], soak_dir: Path) -> Iterator[Workers]:
    """The soak's eight workers in soak_dir, not started; whatever runs at
    the end is killed.  The Lua ones run under LUA (lua5.4)."""
    built(build, "lua/monostamp/core.so", "lua")
    lua = os.environ.get("LUA", "lua5.4")
    if shutil.which(lua) is None:
        pytest.fail("%s is not installed (make deps installs it)" % lua)
    python, python_path = soak_python
    workers = Workers(soak_dir, python, python_path, shutil.which(lua) or lua,
                      "%s/lua/?.so;;" % build,
                      burst=int(os.environ.get("SOAK_BURST", "100")),
                      pause_ms=int(os.environ.get("SOAK_PAUSE_MS", "20")))
    yield workers
    workers.kill_all()

# }=================================================
