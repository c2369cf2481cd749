"""pytest plugin: unique timestamps across a whole test session, and a manual clock.

Active once monostamp is installed (entry point ``pytest11: monostamp``).

* ``monostamp_clock``: a strict clock (``monotonicForceNanosecondIncrement``)
  whose stamps are unique and increasing across every test, every
  pytest-xdist worker and every subprocess the tests start.  The controller
  creates a state file in a temporary directory of the session and points
  ``MONOSTAMP_SHARED`` at it; workers and subprocesses inherit the variable,
  and the directory is removed when the session ends.
* ``manual_clock``: a clock on the manual source, at 2000-01-01T00:00:00Z in
  zone UTC unless ``@pytest.mark.monostamp(start=..., zone=..., policy=...)``
  says otherwise; ``set``, ``advance`` and ``step_back`` move it.

* ``monostamp_patch``: ``monostamp.patch()`` for one test, on the
  session's shared clock: ``time.time()``, ``datetime.now()`` and the rest
  of the standard library's wall-clock calls return unique stamps, even in
  code that bound them before the test.  ``@pytest.mark.monostamp(patch=True)``
  patches a test with its ``manual_clock``; ``--monostamp-patch`` (or
  ``monostamp_patch = true``) patches every test of the run, around its
  fixtures too.  A test's own time-machine travel or freezegun freeze wins
  while it is active; the patch resumes when it ends.

``--monostamp-no-share`` (or ``monostamp_share = false`` in the ini file)
keeps each process on its own sequence.  See docs/pytest.md and docs/patch.md.
"""
import datetime as _datetime
import importlib
import os
import shutil
import tempfile
from typing import Any, Generator, Iterator, List, Optional

import pytest

import monostamp

ENV = "MONOSTAMP_SHARED"
#: Set to "1" for children, so that each Python child patches itself at
#: startup (monostamp/_startup.py) and continues the session's sequence.
PATCH_ENV = "MONOSTAMP_PATCH"
EPOCH_2000_NS = 946_684_800 * 10**9
STRICT = monostamp.Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
#: The extension itself, for its private _share_default (not in the stub).
_ext = importlib.import_module("monostamp._monostamp")
_MARKER_OPTIONS = ("start", "zone", "policy", "patch")


class MarkerWarning(pytest.PytestWarning):
    """A monostamp marker that cannot act on its test."""


#: Where the whole-run patch of a test is kept between its setup and teardown.
_RUN_PATCH: "pytest.StashKey[Optional[monostamp.patch]]" = pytest.StashKey()
#: Why a patch of the test could not start: the test fails with it.
_REFUSED: "pytest.StashKey[str]" = pytest.StashKey()


class _Session:
    """What this process knows of the session's shared state."""

    def __init__(self, path: Optional[str] = None, owned_dir: Optional[str] = None,
                 previous_env: Optional[str] = None) -> None:
        self.path = path            # the state file, or None when not sharing
        self.owned_dir = owned_dir  # the directory this process made (controller)
        self.previous_env = previous_env
        # MONOSTAMP_PATCH as it was before --monostamp-patch exported it
        # (controller), or not exported by this plugin: _NOT_EXPORTED.
        self.previous_patch_env: object = _NOT_EXPORTED


_NOT_EXPORTED = object()
_session = _Session()


class _PatchEnv:
    """MONOSTAMP_PATCH=1 in os.environ until undo(), which puts back what was
    there: children started meanwhile (subprocess, spawn and forkserver
    workers) patch themselves at startup."""

    def __init__(self) -> None:
        self.previous = os.environ.get(PATCH_ENV)
        os.environ[PATCH_ENV] = "1"

    def undo(self) -> None:
        if self.previous is None:
            os.environ.pop(PATCH_ENV, None)
        else:
            os.environ[PATCH_ENV] = self.previous


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("monostamp", "unique timestamps (monostamp)")
    group.addoption(
        "--monostamp-no-share", action="store_true", default=False,
        help="do not share one monostamp sequence across workers and subprocesses",
    )
    group.addoption(
        "--monostamp-patch", action="store_true", default=False,
        help="patch time.time(), datetime.now() & co. with monostamp.patch() in every test",
    )
    parser.addini(
        "monostamp_share", type="bool", default=True,
        help="share one monostamp sequence across the session (default true)",
    )
    parser.addini(
        "monostamp_patch", type="bool", default=False,
        help="patch the standard library's clocks in every test (default false)",
    )


def _sharing_wanted(config: pytest.Config) -> bool:
    return bool(config.getini("monostamp_share")) and not config.getoption("monostamp_no_share")


def _patch_run(config: pytest.Config) -> bool:
    """True when --monostamp-patch or the ini's monostamp_patch asks for every test."""
    return bool(config.getoption("monostamp_patch") or config.getini("monostamp_patch"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "monostamp(start=None, zone='UTC', policy=None, patch=False): configure the "
        "manual_clock fixture; start is ns since the epoch, ISO 8601 text or an aware "
        "datetime; patch=True runs the test inside monostamp.patch(manual_clock)",
    )
    _configure_sharing(config)
    _export_patch(config)


def _configure_sharing(config: pytest.Config) -> None:
    global _session
    workerinput: Optional[Any] = getattr(config, "workerinput", None)
    if workerinput is not None:
        # An xdist worker: the controller decided, and said so in two ways.
        # With the variable inherited, the default clock joined at import.
        path = workerinput.get("monostamp_shared")
        if path and os.environ.get(ENV) != path:
            os.environ[ENV] = path
            _ext._share_default(path)
        _session = _Session(path or os.environ.get(ENV))
        if workerinput.get("monostamp_patch_exported"):
            _unpatch_worker_startup()
        return
    if not _sharing_wanted(config):
        _session = _Session()
        return
    if os.environ.get(ENV):
        # An outer run (or the user) already shares a file: join it.
        _session = _Session(os.environ[ENV])
        return
    directory = tempfile.mkdtemp(prefix="monostamp-pytest-")
    path = os.path.join(directory, "state")
    # A directory of our own: no earlier sequence used the path, so the
    # file starts at the real clock, not a lead bound ahead of it.
    monostamp.create_state_file(path)
    # This process imported monostamp before the file existed: move its
    # default clock (monostamp.now()) onto the file.
    _ext._share_default(path)
    _session = _Session(path, directory, os.environ.get(ENV))
    os.environ[ENV] = path


def _export_patch(config: pytest.Config) -> None:
    """--monostamp-patch: every child of the session patches itself at
    startup, beside MONOSTAMP_SHARED (set by _configure_sharing).  Not in an
    xdist worker: the controller exported it already, for the whole tree."""
    if getattr(config, "workerinput", None) is None and _patch_run(config):
        _session.previous_patch_env = os.environ.get(PATCH_ENV)
        os.environ[PATCH_ENV] = "1"


def _unpatch_worker_startup() -> None:
    """An xdist worker started with the MONOSTAMP_PATCH=1 that the
    controller's --monostamp-patch exported patched itself at startup for
    its whole life; as in a run without xdist, pytest's own machinery gets
    real time between tests (each test is patched by pytest_runtest_setup),
    so that startup patch stops here.  The variable stays, for the tests'
    children."""
    importlib.import_module("monostamp._startup").stop()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: hand the state file to each worker explicitly too."""
    node.workerinput["monostamp_shared"] = _session.path
    node.workerinput["monostamp_patch_exported"] = (
        _session.previous_patch_env is not _NOT_EXPORTED)


def pytest_unconfigure(config: pytest.Config) -> None:
    global _session
    if _session.previous_patch_env is not _NOT_EXPORTED:
        if _session.previous_patch_env is None:
            os.environ.pop(PATCH_ENV, None)
        else:
            os.environ[PATCH_ENV] = str(_session.previous_patch_env)
    if _session.owned_dir is not None:
        if _session.previous_env is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = _session.previous_env
        shutil.rmtree(_session.owned_dir, ignore_errors=True)
    _session = _Session()


def _patch_clock(run: bool) -> str:
    """Which clock the whole run's patch (run) or the fixture's draws from."""
    bound = "lead bound {:g} ms".format(monostamp.PATCH_MAX_LEAD_NS / 1e6)
    if _session.path is not None:
        return "the session's clock (the process default clock on {}, {})".format(
            _session.path, bound)
    if run:
        return "the process default clock, private to each process ({})".format(bound)
    return "a strict Clock private to the test"


def pytest_report_header(config: pytest.Config) -> List[str]:
    if _session.path is None:
        clock = "monostamp: session sharing off; monostamp_clock is {} per process".format(
            STRICT)
    else:
        clock = "monostamp: monostamp_clock is {}, shared through {}={}".format(
            STRICT, ENV, _session.path)
    if not hasattr(monostamp, "patch"):
        patch = "monostamp: patch: none (this build has no monostamp.patch)"
    elif _patch_run(config):
        patch = ("monostamp: patch: the whole run (--monostamp-patch): every test, "
                 "fixtures included, reads the standard library's clocks from {}; a test's "
                 "time-machine travel or freezegun freeze wins while active".format(
                     _patch_clock(True)))
    else:
        patch = ("monostamp: patch: per test only (the monostamp_patch fixture on {}, "
                 "@pytest.mark.monostamp(patch=True) on the test's manual_clock)".format(
                     _patch_clock(False)))
    return [clock, patch]


# ---------------------------------------------------------------- patching
# monostamp.patch() swaps the C functions behind time.time(), datetime.now()
# & co. (docs/patch.md).  A test's own time-machine travel or freezegun
# freeze is the more specific request: monostamp.patch() gives way to it
# while it is active and resumes after (monostamp/_compose.py), so a whole
# suite runs under --monostamp-patch as it runs without.

def _start_patch(item: pytest.Item,
                 clock: Optional[monostamp.Clock] = None) -> Optional[monostamp.patch]:
    """monostamp.patch(clock), started.

    None if it cannot start (no monostamp.patch in this build, or another
    tool than time-machine and freezegun holds the functions): the reason
    is kept on the item, and the test fails with it when it is called,
    instead of running unpatched.
    """
    patch = getattr(monostamp, "patch", None)
    if patch is None:
        item.stash[_REFUSED] = "monostamp.patch is not in this build ({})".format(
            _ext.__file__)
        return None
    p: monostamp.patch = patch(clock)
    try:
        p.start()
    except RuntimeError as e:
        item.stash[_REFUSED] = "monostamp.patch() cannot start: {}".format(e)
        return None
    return p


def _stop_patch(p: Optional[monostamp.patch]) -> None:
    if p is not None:
        p.stop()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    # --monostamp-patch: started before any fixture of the test is set up
    # (session and module fixtures included), stopped after the last is
    # torn down, below.
    if _patch_run(item.config):
        item.stash[_RUN_PATCH] = _start_patch(item)
    return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    refused = item.stash.get(_REFUSED, None)
    if refused is not None:
        pytest.fail("monostamp: " + refused, pytrace=False)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item,
                            nextitem: Optional[pytest.Item]) -> Generator[None, object, object]:
    try:
        return (yield)
    finally:
        p = item.stash.get(_RUN_PATCH, None)
        if p is not None:
            del item.stash[_RUN_PATCH]
            _stop_patch(p)


@pytest.fixture
def monostamp_patch(request: pytest.FixtureRequest) -> Iterator[monostamp.Clock]:
    """monostamp.patch() for this test on the session's shared clock; yields the clock.

    time.time(), datetime.now() & co. draw from the process default clock,
    which the plugin moved onto the session's state file: unique across
    tests, xdist workers and subprocesses.  The clock yielded is a strict
    Clock on that file, so its stamps and the patched calls are one
    sequence.  With sharing off there is no file: the test is patched with
    the strict Clock it yields, its own.
    """
    clock = monostamp.Clock(policy=STRICT, shared=_session.path)
    p = _start_patch(request.node, None if _session.path is not None else clock)
    env = _PatchEnv()
    try:
        yield clock
    finally:
        env.undo()
        _stop_patch(p)


@pytest.fixture(autouse=True)
def _monostamp_marker_patch(request: pytest.FixtureRequest) -> Iterator[None]:
    """@pytest.mark.monostamp(patch=True): the test inside monostamp.patch(manual_clock)."""
    marker = request.node.get_closest_marker("monostamp")
    if marker is None or not marker.kwargs.get("patch"):
        if marker is not None and "manual_clock" not in request.fixturenames:
            # The marker's options reach the test only through manual_clock
            # (or patch=True): said, not silently dropped.
            request.node.warn(MarkerWarning(
                "@pytest.mark.monostamp({}) has no effect on {}: the test uses neither the "
                "manual_clock fixture nor patch=True".format(
                    ", ".join("{}={!r}".format(k, v) for k, v in marker.kwargs.items()),
                    request.node.name)))
        yield
        return
    p = _start_patch(request.node, request.getfixturevalue("manual_clock"))
    # Children cannot read this process's manual clock: they patch on the
    # session's clock (unique beside the test's values, but real time).
    env = _PatchEnv()
    try:
        yield
    finally:
        env.undo()
        _stop_patch(p)


@pytest.fixture
def monostamp_clock() -> monostamp.Clock:
    """A strict clock, unique across the whole session when sharing is on."""
    return monostamp.Clock(policy=STRICT, shared=_session.path)


#: What the ``manual_clock`` fixture gives: a ``monostamp.Clock`` whose
#: source is "manual" (``step_back``, ``set`` and ``advance`` are Clock
#: methods), so it passes wherever a Clock is expected.  The name stays for
#: annotations written against the wrapper class it replaces.
ManualClock = monostamp.Clock


def _manual_clock(start_ns: int = EPOCH_2000_NS, zone: str = "UTC",
                  policy: "monostamp.Policy | str" = STRICT) -> monostamp.Clock:
    # No lead bound: the test moves this source at will, and a clock
    # stepped back an hour leads it by an hour (the default bound is 1 s).
    return monostamp.Clock(policy=policy, source="manual", zone=zone, start_ns=start_ns,
                           max_lead_ns=0)


def _start_ns(start: object) -> int:
    """start as ns: an int, ISO 8601 text, or an aware datetime."""
    if isinstance(start, bool):
        raise TypeError("monostamp marker: start must be int ns, ISO 8601 text or an "
                        "aware datetime, not bool")
    if isinstance(start, int):
        return start
    if isinstance(start, str):
        return monostamp.Stamp.fromisoformat(start).utc_ns
    if isinstance(start, _datetime.datetime):
        if start.tzinfo is None or start.utcoffset() is None:
            raise ValueError("monostamp marker: start={!r} is naive; give it a tzinfo".format(start))
        delta = start - _datetime.datetime(1970, 1, 1, tzinfo=_datetime.timezone.utc)
        return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    raise TypeError("monostamp marker: start must be int ns, ISO 8601 text or an aware "
                    "datetime, not {}".format(type(start).__name__))


@pytest.fixture
def manual_clock(request: pytest.FixtureRequest) -> monostamp.Clock:
    """A manual clock (default 2000-01-01T00:00:00Z, zone UTC, strict policy)."""
    marker = request.node.get_closest_marker("monostamp")
    options = dict(marker.kwargs) if marker is not None else {}
    if marker is not None and marker.args:
        raise TypeError("monostamp marker takes keyword arguments only ({})".format(
            ", ".join(_MARKER_OPTIONS)))
    unknown = sorted(set(options) - set(_MARKER_OPTIONS))
    if unknown:
        raise TypeError("monostamp marker: unknown option {!r} (known: {})".format(
            unknown[0], ", ".join(_MARKER_OPTIONS)))
    if not isinstance(options.get("patch", False), bool):
        raise TypeError("monostamp marker: patch must be True or False, not {!r}".format(
            options["patch"]))
    start = options.get("start")
    return _manual_clock(
        start_ns=EPOCH_2000_NS if start is None else _start_ns(start),
        zone=options.get("zone") or "UTC",
        policy=options.get("policy") or STRICT,
    )
