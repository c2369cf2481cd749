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

``--monostamp-no-share`` (or ``monostamp_share = false`` in the ini file)
keeps each process on its own sequence.  See docs/pytest.md.
"""
import datetime as _datetime
import os
import shutil
import tempfile

import pytest

import monostamp

ENV = "MONOSTAMP_SHARED"
EPOCH_2000_NS = 946_684_800 * 10**9
STRICT = monostamp.Policy.MONOTONIC_FORCE_NANOSECOND_INCREMENT
_MARKER_OPTIONS = ("start", "zone", "policy")


class _Session:
    """What this process knows of the session's shared state."""

    def __init__(self, path=None, owned_dir=None, previous_env=None):
        self.path = path            # the state file, or None when not sharing
        self.owned_dir = owned_dir  # the directory this process made (controller)
        self.previous_env = previous_env


_session = _Session()


def pytest_addoption(parser):
    group = parser.getgroup("monostamp", "unique timestamps (monostamp)")
    group.addoption(
        "--monostamp-no-share", action="store_true", default=False,
        help="do not share one monostamp sequence across workers and subprocesses",
    )
    parser.addini(
        "monostamp_share", type="bool", default=True,
        help="share one monostamp sequence across the session (default true)",
    )


def _sharing_wanted(config):
    return config.getini("monostamp_share") and not config.getoption("monostamp_no_share")


def pytest_configure(config):
    global _session
    config.addinivalue_line(
        "markers",
        "monostamp(start=None, zone='UTC', policy=None): configure the manual_clock "
        "fixture; start is ns since the epoch, ISO 8601 text or an aware datetime",
    )
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        # An xdist worker: the controller decided, and said so in two ways.
        # With the variable inherited, the default clock joined at import.
        path = workerinput.get("monostamp_shared")
        if path and os.environ.get(ENV) != path:
            os.environ[ENV] = path
            monostamp._monostamp._share_default(path)
        _session = _Session(path or os.environ.get(ENV))
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
    # This process imported monostamp before the file existed: move its
    # default clock (monostamp.now()) onto the file, which also creates it.
    monostamp._monostamp._share_default(path)
    _session = _Session(path, directory, os.environ.get(ENV))
    os.environ[ENV] = path


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist: hand the state file to each worker explicitly too."""
    node.workerinput["monostamp_shared"] = _session.path


def pytest_unconfigure(config):
    global _session
    if _session.owned_dir is not None:
        if _session.previous_env is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = _session.previous_env
        shutil.rmtree(_session.owned_dir, ignore_errors=True)
    _session = _Session()


def pytest_report_header(config):
    if _session.path is None:
        return "monostamp: session sharing off; monostamp_clock is {} per process".format(STRICT)
    return "monostamp: monostamp_clock is {}, shared through {}={}".format(
        STRICT, ENV, _session.path)


@pytest.fixture
def monostamp_clock():
    """A strict clock, unique across the whole session when sharing is on."""
    return monostamp.Clock(policy=STRICT, shared=_session.path)


class ManualClock:
    """A manual-source monostamp.Clock with a step_back helper.

    Every Clock method and property is available (now, time_ns, set,
    advance, policy, zone, stats, ...); ``clock`` is the Clock itself, for
    code that needs the real type.
    """

    def __init__(self, start_ns=EPOCH_2000_NS, zone="UTC", policy=STRICT):
        self.clock = monostamp.Clock(policy=policy, source="manual", zone=zone,
                                     start_ns=start_ns)

    def step_back(self, ns):
        """Moves the reading back by ns (>= 0), as a wall clock stepped back."""
        if isinstance(ns, bool) or not isinstance(ns, int):
            raise TypeError("step_back() takes int ns, not {}".format(type(ns).__name__))
        if ns < 0:
            raise ValueError("step_back() takes ns >= 0, not {}".format(ns))
        self.clock.advance(-ns)

    def __getattr__(self, name):
        return getattr(self.clock, name)

    def __repr__(self):
        # No reading here: under a forcing policy a stamp moves the clock.
        return "<ManualClock {!r}>".format(self.clock)


def _start_ns(start):
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
def manual_clock(request):
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
    start = options.get("start")
    return ManualClock(
        start_ns=EPOCH_2000_NS if start is None else _start_ns(start),
        zone=options.get("zone") or "UTC",
        policy=options.get("policy") or STRICT,
    )
