"""Fixtures of the integration tests: the build they test, servers started
and always stopped, and the figures each test reports (printed at the end
of the session, as the runs' summary).

The build is MONOSTAMP_BUILD (the Makefile's BUILD, which the launcher
passes), else ./build of the checkout; its libmonostamp.so must exist
(`make lib`).

Layout, for the next test to join: a test file (test_<what>.py) launched by
its make target through a script in tools/ that only installs; what it runs
beside the test in a module of its own (nginx_server.py) with its programs
in a folder (nginx/); its fixtures in a section of this file; the stamps it
gathers checked with stamps.py (no stamp twice, each process in order).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable, Iterator

import pytest

import nginx_server

FIGURES = pytest.StashKey[list]()


@pytest.fixture(scope="session")
def build() -> Path:
    """The build directory, with libmonostamp.so in it."""
    path = Path(os.environ.get("MONOSTAMP_BUILD") or nginx_server.ROOT / "build").resolve()
    if not (path / "libmonostamp.so").exists():
        pytest.fail("%s/libmonostamp.so is missing: run make lib BUILD=%s" % (path, path))
    return path


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
