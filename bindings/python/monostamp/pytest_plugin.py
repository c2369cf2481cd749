"""pytest plugin: unique timestamps across a whole test session, and a manual clock.

Fixtures monostamp_clock (one sequence across tests, xdist workers and
subprocesses, through a state file in MONOSTAMP_SHARED), manual_clock and
monostamp_patch; @pytest.mark.monostamp(...); --monostamp-patch and
--monostamp-no-share; a summary line of what monostamp did, at the end of
a run that used it.  See "Testing with monostamp" in the monostamp docs.
"""
import contextlib
import difflib
import importlib
import os
import shutil
import signal
import tempfile
import threading
from typing import Any, Callable, Generator, Iterator, List, Optional, Tuple

import pytest

import monostamp

ENV = "MONOSTAMP_SHARED"
PATCH_ENV = "MONOSTAMP_PATCH"  # "1": each Python child patches itself at startup
EPOCH_2000_NS = 946_684_800 * 10**9
STRICT = monostamp.Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
#: The extension itself, for its private _share_default and the counts'
#: _state_counts and _counts_text (not in the stub).
_ext = importlib.import_module("monostamp._monostamp")
_MARKER_OPTIONS = ("start", "zone", "policy", "patch")
#: The flags and ini keys: flag, its help, ini key, ini default, ini help.
_OPTIONS = (
    ("--monostamp-no-share",
     "do not share one monostamp sequence across workers and subprocesses",
     "monostamp_share", True, "share one monostamp sequence across the session (default true)"),
    ("--monostamp-patch",
     "patch time.time(), datetime.now() & co. with monostamp.patch() in every test",
     "monostamp_patch", False,
     "patch the standard library's clocks in every test (default false)"),
)


class MarkerWarning(pytest.PytestWarning):
    """A monostamp marker that cannot act on its test."""


#: Where the whole-run patch of a test is kept between its setup and teardown.
_RUN_PATCH: "pytest.StashKey[Optional[monostamp.patch]]" = pytest.StashKey()
#: Why a patch of the test could not start: the test fails with it.
_REFUSED: "pytest.StashKey[str]" = pytest.StashKey()


#: The session's state file, or None when not sharing.
_path: Optional[str] = None
#: Where the session's clocks publish their counts (the summary line): the
#: state file, or with sharing off a file of the session's made for them.
_report_path: Optional[str] = None
#: The counts the file held when the session began (an outer run's file).
_report_before: Optional[Tuple[int, int, int, int]] = None
#: Whether this process handed out a clock of the plugin's, or patched a
#: test: the summary is printed only for a run that used monostamp.
_active = False
#: What pytest_unconfigure undoes, last first (the controller's changes).
_undo: List[Callable[[], object]] = []


def _setenv(name: str, value: str) -> None:
    """os.environ[name] = value until pytest_unconfigure."""
    env = pytest.MonkeyPatch()
    env.setenv(name, value)
    _undo.append(env.undo)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("monostamp", "unique timestamps (monostamp)")
    for flag, flag_help, ini, default, ini_help in _OPTIONS:
        group.addoption(flag, action="store_true", default=False, help=flag_help)
        parser.addini(ini, type="bool", default=default, help=ini_help)


def _patch_run(config: pytest.Config) -> bool:
    """True when --monostamp-patch or the ini's monostamp_patch asks for every test."""
    return bool(config.getoption("monostamp_patch") or config.getini("monostamp_patch"))


def pytest_configure(config: pytest.Config) -> None:
    global _path, _undo, _report_path, _report_before, _active
    _path, _undo = None, []  # this session's (pytester runs one inside another)
    _report_path, _report_before, _active = None, None, False
    config.addinivalue_line(
        "markers",
        "monostamp(start=None, zone='UTC', policy=None, patch=False): configure the "
        "manual_clock fixture; start is ns since the epoch, ISO 8601 text or an aware "
        "datetime; patch=True runs the test inside monostamp.patch(manual_clock)",
    )
    _configure_sharing(config)
    _configure_report(config)
    # --monostamp-patch: every child of the session patches itself at
    # startup, beside MONOSTAMP_SHARED.  Not in an xdist worker: the
    # controller exported it already, for the whole tree.
    if getattr(config, "workerinput", None) is None and _patch_run(config):
        _setenv(PATCH_ENV, "1")


def _configure_sharing(config: pytest.Config) -> None:
    global _path
    workerinput: Optional[Any] = getattr(config, "workerinput", None)
    if workerinput is not None:
        # An xdist worker: the controller decided, and said so in two ways.
        # With the variable inherited, the default clock joined at import.
        path = workerinput.get("monostamp_shared")
        if path and os.environ.get(ENV) != path:
            os.environ[ENV] = path
            _ext._share_default(path)
        _path = path or os.environ.get(ENV)
        if _patch_run(config):
            # The controller (same options) exported MONOSTAMP_PATCH=1, so it
            # patched itself at startup; as without xdist, pytest's machinery
            # gets real time between tests.  The variable stays, for children.
            importlib.import_module("monostamp._startup").stop()
        return
    if not config.getini("monostamp_share") or config.getoption("monostamp_no_share"):
        return
    if os.environ.get(ENV):
        # An outer run (or the user) already shares a file: join it, or stop
        # the session at start in one line rather than fail each test.
        try:
            monostamp.Clock(policy=STRICT, shared=os.environ[ENV])
        except (OSError, ValueError) as e:
            raise pytest.UsageError("monostamp: {}={!r} cannot be the session's state file: "
                                    "{}".format(ENV, os.environ[ENV], e)) from None
        _path = os.environ[ENV]
        return
    directory = tempfile.mkdtemp(prefix="monostamp-pytest-")
    path = os.path.join(directory, "state")
    # A directory of our own: no earlier sequence used the path, so the
    # file starts at the real clock, not a lead bound ahead of it.
    try:
        monostamp.create_state_file(path)
    except (OSError, ValueError) as e:
        shutil.rmtree(directory, ignore_errors=True)
        raise pytest.UsageError("monostamp: the session's state file: {}".format(e)) from None
    # This process imported monostamp before the file existed: move its
    # default clock (monostamp.now()) onto the file.
    _ext._share_default(path)
    _path = path
    _undo.append(lambda: shutil.rmtree(directory, ignore_errors=True))
    _setenv(ENV, path)
    _remove_on_sigterm(directory)


def _configure_report(config: pytest.Config) -> None:
    """Where the counts go: the session's state file; with sharing off, a
    file made for them alone (a worker is told by the controller)."""
    global _report_path, _report_before
    workerinput: Optional[Any] = getattr(config, "workerinput", None)
    if workerinput is not None:
        _report_path = workerinput.get("monostamp_report")
        return
    if _path is not None:
        _report_path = _path
    else:
        directory = tempfile.mkdtemp(prefix="monostamp-pytest-counts-")
        try:
            monostamp.create_state_file(os.path.join(directory, "counts"))
        except (OSError, ValueError):
            shutil.rmtree(directory, ignore_errors=True)
            return  # no summary, rather than no run
        _report_path = os.path.join(directory, "counts")
        _undo.append(lambda: shutil.rmtree(directory, ignore_errors=True))
    try:
        _report_before = _ext._state_counts(_report_path)
    except (OSError, ValueError):
        _report_path = None


def _publish(clock: Optional[monostamp.Clock] = None) -> None:
    """What `clock` (None: the process's default clock) counted and did not
    publish yet, into the session's counts."""
    if _report_path is None:
        return
    try:
        if clock is None:
            _ext._publish_default(_report_path)
        else:
            clock._publish(_report_path)  # type: ignore[attr-defined]
    except (OSError, ValueError):
        pass  # the file went (a test removed it): the summary counts less


def _remove_on_sigterm(directory: str) -> None:
    """A CI timeout's SIGTERM runs no unconfigure: the handler removes the
    directory, then lets the signal do what it did before.  Only from the
    main thread, and never over an ignored SIGTERM."""
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_IGN:
        return

    def handler(signum: int, frame: Any) -> None:
        shutil.rmtree(directory, ignore_errors=True)
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        if callable(previous):
            previous(signum, frame)
        else:
            os.kill(os.getpid(), signal.SIGTERM)

    def undo() -> None:
        if signal.getsignal(signal.SIGTERM) is handler:
            signal.signal(signal.SIGTERM, previous)

    signal.signal(signal.SIGTERM, handler)
    _undo.append(undo)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: hand the state file to each worker explicitly too."""
    node.workerinput["monostamp_shared"] = _path
    node.workerinput["monostamp_report"] = _report_path


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist: a worker that used monostamp makes the controller's run one."""
    global _active
    if getattr(node, "workeroutput", {}).get("monostamp_active"):
        _active = True


def pytest_sessionfinish(session: pytest.Session) -> None:
    # Every process's default clock (patched calls draw from it), before an
    # xdist worker says it is done, so the controller reads all of it.
    _publish()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["monostamp_active"] = _active


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    """One line, by the controller alone, also under -q: what the session's
    clocks counted in all its processes."""
    if getattr(config, "workerinput", None) is not None or _report_path is None:
        return
    if not (_active or _patch_run(config)):
        return
    try:
        text = _ext._counts_text(_ext._state_counts(_report_path), _report_before)
    except (OSError, ValueError) as e:
        terminalreporter.write_line("monostamp: no summary: {}".format(e))
        return
    terminalreporter.write_line(text)


def pytest_unconfigure(config: pytest.Config) -> None:
    global _path, _undo, _report_path
    for undo in reversed(_undo):
        undo()
    _path, _undo, _report_path = None, [], None


def pytest_report_header(config: pytest.Config) -> List[str]:
    bound = "lead bound {:g} ms".format(monostamp.PATCH_MAX_LEAD_NS / 1e6)
    if _path is None:
        clock = "monostamp: session sharing off; monostamp_clock is {} per process".format(
            STRICT)
        run_clock = "the process default clock, private to each process ({})".format(bound)
        test_clock = "a strict Clock private to the test"
    else:
        clock = "monostamp: monostamp_clock is {}, shared through {}={}".format(
            STRICT, ENV, _path)
        run_clock = test_clock = ("the session's clock (the process default clock on {}, {})"
                                  .format(_path, bound))
    if _patch_run(config):
        patch = ("monostamp: patch: the whole run (--monostamp-patch): every test, "
                 "fixtures included, reads the standard library's clocks from {}; a test's "
                 "time-machine travel or freezegun freeze wins while active".format(run_clock))
    else:
        patch = ("monostamp: patch: per test only (the monostamp_patch fixture on {}, "
                 "@pytest.mark.monostamp(patch=True) on the test's manual_clock)".format(
                     test_clock))
    return [clock, patch]


# ---------------------------------------------------------------- patching
# A test's own time-machine travel or freezegun freeze wins while active
# (_compose.py): a suite runs under --monostamp-patch as it runs without.

def _start_patch(item: pytest.Item,
                 clock: Optional[monostamp.Clock] = None) -> Optional[monostamp.patch]:
    """monostamp.patch(clock), started; None if it cannot start (another tool
    holds the functions): the test then fails with the reason, not unpatched."""
    try:
        return monostamp.patch(clock).start()
    except RuntimeError as e:
        item.stash[_REFUSED] = str(e)  # "monostamp.patch() cannot start: ..."
        return None


@contextlib.contextmanager
def _patched(item: pytest.Item, clock: Optional[monostamp.Clock]) -> Iterator[None]:
    """The test patched on `clock`, and MONOSTAMP_PATCH=1 for its children."""
    p = _start_patch(item, clock)
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setenv(PATCH_ENV, "1")
            yield
    finally:
        if p is not None:
            p.stop()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    # --monostamp-patch: started before any fixture of the test is set up
    # (session and module ones too), stopped after the last is torn down.
    global _active
    if _patch_run(item.config):
        _active = True
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
            p.stop()


@pytest.fixture
def monostamp_patch(request: pytest.FixtureRequest) -> Iterator[monostamp.Clock]:
    """monostamp.patch() for this test on the session's shared clock; yields the clock.

    The clock yielded is a strict Clock on the session's state file, so its
    stamps and time.time(), datetime.now() & co. are one sequence; with
    sharing off, the test's own strict Clock (see "Testing with monostamp" in
    the monostamp docs).
    """
    global _active
    _active = True
    clock = monostamp.Clock(policy=STRICT, shared=_path)
    try:
        with _patched(request.node, None if _path is not None else clock):
            yield clock
    finally:
        _publish(clock)
        _publish()  # the patched calls' clock, with sharing on


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
    # Children cannot read this process's manual clock: they patch on the
    # session's clock (unique beside the test's values, but real time).
    with _patched(request.node, request.getfixturevalue("manual_clock")):
        yield
    # Published by manual_clock's teardown, which follows this one.


@pytest.fixture
def monostamp_clock() -> Iterator[monostamp.Clock]:
    """A strict clock, unique across the whole session when sharing is on."""
    global _active
    _active = True
    clock = monostamp.Clock(policy=STRICT, shared=_path)
    yield clock
    _publish(clock)


@pytest.fixture
def manual_clock(request: pytest.FixtureRequest) -> Iterator[monostamp.Clock]:
    """A manual clock (default 2000-01-01T00:00:00Z, zone UTC, strict policy)."""
    global _active
    _active = True
    try:
        clock = _marker_clock(request)
    except (TypeError, ValueError) as e:
        message = str(e)
    else:
        yield clock
        _publish(clock)
        return
    # The marker is the user's mistake: its message alone, once, without the
    # plugin's frames (failed outside the except block, so that no
    # "During handling of the above exception" repeats it).
    pytest.fail(message, pytrace=False)


def _marker_clock(request: pytest.FixtureRequest) -> monostamp.Clock:
    marker = request.node.get_closest_marker("monostamp")
    options = dict(marker.kwargs) if marker is not None else {}
    if marker is not None and marker.args:
        raise TypeError("@pytest.mark.monostamp(): takes keyword arguments only, not {!r} "
                        "; name them: {}".format(marker.args[0], ", ".join(
                            o + "=" for o in _MARKER_OPTIONS)))
    unknown = sorted(set(options) - set(_MARKER_OPTIONS))
    if unknown:
        near = difflib.get_close_matches(unknown[0], _MARKER_OPTIONS, 1)
        raise TypeError("@pytest.mark.monostamp(): unknown option {!r}: {}".format(
            unknown[0], "did you mean {!r}?".format(near[0]) if near else
            "the options are " + ", ".join(_MARKER_OPTIONS)))
    if not isinstance(options.get("patch", False), bool):
        raise TypeError("@pytest.mark.monostamp(): patch={!r} is not a bool: give True "
                        "or False".format(options["patch"]))
    start = options.get("start")
    try:
        # ISO 8601 text here; an int, an aware datetime or a Stamp the
        # extension takes, and words what it refuses.
        start_ns = (EPOCH_2000_NS if start is None else
                    monostamp.Stamp.fromisoformat(start) if isinstance(start, str) else start)
        # No lead bound: the test moves this source at will, and a clock
        # stepped back an hour leads it by an hour (the default bound is 1 s).
        return monostamp.Clock(policy=options.get("policy") or STRICT, source="manual",
                               zone=options.get("zone") or "UTC", start_ns=start_ns,
                               max_lead_ns=0)
    except (TypeError, ValueError) as e:
        # "Clock(): zone='Europe/Berln' is not ..." said of the marker's option.
        message = str(e).replace("Clock(): ", "", 1).replace("start_ns", "start", 1)
        raise type(e)("@pytest.mark.monostamp(): " + message) from None
