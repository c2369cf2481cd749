"""monostamp.patch(): the standard library's wall clocks hand out monostamp stamps.

While a patch is active, in every thread, time.time(), time.time_ns(),
time.clock_gettime(_ns)(CLOCK_REALTIME), datetime.datetime.now(),
.utcnow(), .today(), datetime.date.today(), and time.gmtime(),
localtime(), ctime(), asctime(), strftime(fmt) called without a time, each
draw a fresh stamp from the patch's clock.  The C half (in
monostamp._monostamp: bindings/python/patch_*.c) swaps the C function pointers of those built-ins; this half keeps the
stack of nested patches, the decorator forms, uuid, giving way to
time-machine and freezegun (_compose.py), and fork safety.

A child started with MONOSTAMP_PATCH=1 imports this module and starts a
patch before its own code runs (_startup.py), so it imports nothing at the
top that a start does not need: inspect and functools only for the
decorator form, uuid not at all (its module is adjusted when it is
imported, or at a start if it was imported before).
"""
import _thread
import os
import sys

# Bound by monostamp/__init__.py before it imports this module.
from . import Clock
from . import _compose

# The extension, whose _activate etc. are private and so not in the
# package's stub: taken from sys.modules (the package imported it), so
# that mypy does not look for one.
_c = sys.modules["monostamp._monostamp"]

# The stack of active patches, innermost last, and the lock around every
# change of it (and of the C half's state, which follows the stack).
_lock = _thread.allocate_lock()
_stack: "list[patch]" = []
# uuid's attributes as they were before the outermost patch started.
_uuid_saved: "dict[str, object]" = {}
_UUID_GENERATORS = ("_generate_time_safe", "_UuidCreate")
# uuid's memory of its last timestamps (uuid1, and uuid6/uuid7 on 3.14+),
# with the values Lib/uuid.py starts them at: each patch start and stop puts
# them back there, so that no timestamp of one clock holds back the next.
_UUID_LAST = {"_last_timestamp": None, "_last_timestamp_v6": None,
              "_last_timestamp_v7": None, "_last_counter_v7": 0}


def _resolve(clock):
    """The monostamp.Clock (or None: the default clock) behind `clock`."""
    if clock is None or isinstance(clock, Clock):
        return clock
    # A wrapper of the caller's own holding a Clock.
    for name in ("_clock", "clock"):
        inner = getattr(clock, name, None)
        if isinstance(inner, Clock):
            return inner
    raise TypeError("monostamp.patch(): clock must be a monostamp.Clock, an object "
                    "with a _clock attribute holding one, or None, not {}".format(
                        type(clock).__name__))


# uuid's namespace is read and written as a dict: hasattr() of a name this
# version lacks raises and catches an AttributeError, which made uuid's part
# of a start+stop cycle cost more than the rest together.  uuid is adjusted
# only if it is imported: one imported while a patch is engaged is adjusted
# as it loads (_uuid_imported, called by _compose's import watch).

def _reset_uuid_timestamps(namespace):
    for name, initial in _UUID_LAST.items():
        if name in namespace:
            namespace[name] = initial


def _uuid_start():
    """uuid1() (and uuid7() where it exists) through time.time_ns(): patched."""
    module = sys.modules.get("uuid")
    if module is None:
        return
    namespace = vars(module)
    if not _uuid_saved:
        for name in _UUID_GENERATORS:
            if name in namespace:
                _uuid_saved[name] = namespace[name]
                namespace[name] = None
    _reset_uuid_timestamps(namespace)


def _uuid_stop():
    module = sys.modules.get("uuid")
    if module is not None:
        namespace = vars(module)
        namespace.update(_uuid_saved)
        _reset_uuid_timestamps(namespace)
    _uuid_saved.clear()


def _uuid_imported():
    """uuid has just been imported: adjusted at once if a patch is engaged."""
    with _lock:
        if _c._installed():
            _uuid_start()


# ------------------------------------------------- engaging and stepping aside
# "Engaged": monostamp's functions are in the method tables (_c._installed()).
# A patch is started but not engaged while a time-machine travel or a
# freezegun freeze is active (_compose.py): theirs win, ours resume after.
# _engage and _disengage run under _lock; _step_aside and _resume take it.

def _engage():
    """Our functions in, drawing from the innermost patch's clock."""
    _c._activate(_stack[-1].clock)
    _uuid_start()


def _disengage():
    """The real functions back (after the lead bound is waited out)."""
    _c._deactivate()
    _uuid_stop()


def _step_aside():
    """A travel or freeze is about to start: give it the real functions."""
    with _lock:
        if _c._installed():
            _disengage()


def _resume():
    """A travel or freeze ended (or failed to start): ours again, if no other
    is active and a patch is started.  TZ may have changed under it (a
    travel to a zone), so the zone engine is told."""
    with _lock:
        if _stack and not _c._installed() and not _compose.foreign_active():
            _c.zone_changed()
            _engage()


def _after_fork_in_child():
    """A fork while another thread was inside start() or stop() leaves both
    locks held by a thread the child does not have: the child makes new
    ones.  The method tables are whole (they change only under both locks
    and the GIL); the patch that thread was starting or stopping may be
    left on the child's stack, as the child inherits every active one."""
    global _lock
    _lock = _thread.allocate_lock()
    _compose._watch_lock = _thread.allocate_lock()
    _c._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class patch:
    """Makes the standard library's wall clocks draw from a monostamp clock.

    ``clock`` is a ``monostamp.Clock``, an object whose ``_clock`` holds one
    (the pytest plugin's ManualClock), or None for the process's default
    clock.  Use it as a context manager, a decorator (of plain and
    ``async def`` functions), or by ``start()`` and ``stop()``.  Patches
    nest: the innermost clock wins, and stopping it brings back the outer
    one.  See docs/python.md.
    """

    def __init__(self, clock=None):
        self._given = clock
        self.clock = _resolve(clock)
        self._started = False

    def __repr__(self):
        return "monostamp.patch({!r})".format(self._given)

    @property
    def active(self):
        """True between start() and stop()."""
        return self._started

    def start(self):
        """Activates this patch (the innermost) and returns it.

        RuntimeError if it is already started, or if another tool than
        time-machine and freezegun has replaced the functions.  While a
        time-machine travel or a freezegun freeze is active, the patch is
        started but waits: theirs win until the last of them stops.
        """
        _compose.watch()
        with _lock:
            if self._started:
                raise RuntimeError("{!r} is already started".format(self))
            _stack.append(self)
            if not _compose.foreign_active():
                try:
                    _engage()
                except BaseException:
                    _stack.pop()
                    raise
            self._started = True
        return self

    def stop(self):
        """Deactivates this patch; the next one out (if any) is active again.

        RuntimeError if it is not started.
        """
        with _lock:
            if not self._started:
                raise RuntimeError("{!r} is not started".format(self))
            # Normally the innermost; one stopped out of order just leaves.
            _stack.remove(self)
            self._started = False
            if not _c._installed():
                return  # waiting behind a travel or freeze: nothing to undo
            if _stack:
                _engage()
            else:
                _disengage()

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        self.stop()

    def __call__(self, func):
        """Decorates ``func`` (plain or async) to run under a fresh patch of
        the same clock for each call."""
        if not callable(func):
            raise TypeError("monostamp.patch() decorates a function, not {}".format(
                type(func).__name__))
        import functools
        import inspect

        given = self._given
        if inspect.iscoroutinefunction(func):
            @functools.wraps(func)
            async def async_wrapper(*args, **kwargs):
                with patch(given):
                    return await func(*args, **kwargs)
            return async_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with patch(given):
                return func(*args, **kwargs)
        return wrapper


def active_patches():
    """The active patches, outermost first (a new list)."""
    with _lock:
        return list(_stack)


def patching():
    """The innermost started monostamp.patch, or None.

    Its ``clock`` is the monostamp.Clock the standard library's clocks draw
    from (None: the process default clock).  A patch stays started while a
    time-machine travel or freezegun freeze has precedence; patched() says
    whether the standard library draws from it right now.
    """
    with _lock:
        return _stack[-1] if _stack else None


def patched():
    """True while time.time(), datetime.now() & co. draw from monostamp."""
    return bool(_c._installed())
