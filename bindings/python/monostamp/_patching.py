"""monostamp.patch(): the standard library's wall clocks hand out monostamp stamps.

This module owns the patch state: the stack of started patches and the one
lock under which it, the C half's switches and _compose's watch change.

The C half (bindings/python/patch_*.c) swaps the function pointers when
told, with no lock or stack of its own.  MONOSTAMP_PATCH=1 starts a patch
before a child's own code (_startup.py), so nothing is imported at the top
that a start does not need.  See docs/patch.md.
"""
import _thread
import os
import sys

from . import _compose

# The extension, whose private _activate etc. are not in the stub: taken
# from sys.modules, so that mypy does not look for one.
_c = sys.modules["monostamp._monostamp"]

_lock = _thread.allocate_lock()
_stack: "list[patch]" = []  # the started patches, innermost last
# uuid's generators as they were before the outermost patch started; while
# patched, uuid1() (and uuid7()) go through the patched time.time_ns().
_uuid_saved: "dict[str, object]" = {}
_UUID_GENERATORS = ("_generate_time_safe", "_UuidCreate")
# uuid's memory of its last timestamps, at the values Lib/uuid.py starts them
# at: put back at each start and stop, so that no clock holds back the next.
_UUID_LAST = {"_last_timestamp": None, "_last_timestamp_v6": None,
              "_last_timestamp_v7": None, "_last_counter_v7": 0}


def _resolve(clock):
    """The monostamp.Clock (or None: the default clock) behind `clock`."""
    if clock is None or isinstance(clock, _c.Clock):
        return clock
    for name in ("_clock", "clock"):  # a wrapper of the caller's own
        inner = getattr(clock, name, None)
        if isinstance(inner, _c.Clock):
            return inner
    raise TypeError("monostamp.patch(): clock must be a monostamp.Clock, an object with a "
                    "_clock attribute holding one, or None, not " + type(clock).__name__)


# uuid (only if imported; one imported later is adjusted as it loads) is
# read and written as a dict: hasattr() of a name this version lacks raises
# and catches an AttributeError, which once cost more than the rest.

def _uuid_switch(on):
    module = sys.modules.get("uuid")
    namespace = vars(module) if module is not None else {}
    if not on:
        namespace.update(_uuid_saved)
        _uuid_saved.clear()
    elif not _uuid_saved:
        for name in _UUID_GENERATORS:
            if name in namespace:
                _uuid_saved[name], namespace[name] = namespace[name], None
    for name, initial in _UUID_LAST.items():
        if name in namespace:
            namespace[name] = initial


# "Engaged": our functions are in the method tables (_c._installed()).  A
# patch is started but not engaged while a travel or freeze is active.
# _set_engaged runs under _lock; _step_aside and _resume take it.

def _set_engaged(on):
    """Our functions in, drawing from the innermost patch's clock; or (on
    False) the real ones back, after the lead bound is waited out."""
    if on:
        _compose.adopt_left_behind(_c)
        _c._activate(_stack[-1].clock)
    else:
        _c._deactivate()
    _uuid_switch(on)


def _step_aside():
    """A travel or freeze is about to start: give it the real functions."""
    with _lock:
        # Another interpreter's calls may draw from the main one's patch
        # (_installed() says so there), which only the main one stops.
        if _stack and _c._installed():
            _set_engaged(False)


def _resume():
    """A travel or freeze ended (or failed to start): ours again, if no other
    is active and a patch is started; told the zone engine, as a travel to a
    zone may have changed TZ."""
    with _lock:
        if _stack and not _c._installed() and not _compose.foreign_active():
            _c.zone_changed()
            _set_engaged(True)


def _loaded(module):
    """A watched module was just imported: uuid adjusted, a tool wrapped."""
    with _lock:
        if module.__name__ == "uuid" and _c._installed():
            _uuid_switch(True)
        _compose.loaded(module, _step_aside, _resume)


def _after_fork_in_child():
    """A fork while another thread held the lock leaves it held for good in
    the child: a new one.  The tables and the stack change only under the
    lock and the GIL, which fork() holds too, so they are whole."""
    global _lock
    _lock = _thread.allocate_lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class patch:
    """Makes the standard library's wall clocks draw from a monostamp clock.

    ``clock`` is a ``monostamp.Clock``, an object whose ``_clock`` holds one,
    or None for the process's default clock.  Use it as a context manager, a
    decorator (of plain and ``async def`` functions), or by ``start()`` and
    ``stop()``.  Patches nest: the innermost clock wins.  See "Unique time for
    code that calls the standard library" in the monostamp docs.
    """

    def __init__(self, clock=None):
        self._given = clock
        self.clock = _resolve(clock)

    def __repr__(self):
        # The default clock is the default argument: monostamp.patch().
        return "monostamp.patch({})".format("" if self._given is None else repr(self._given))

    @property
    def active(self):
        """True between start() and stop()."""
        return self in _stack

    def start(self):
        """Activates this patch (the innermost) and returns it.

        RuntimeError if it is already started, or if another tool than
        time-machine and freezegun has replaced the functions.  While a
        travel or freeze is active, it is started but waits for its end.
        """
        _c._check_start()  # only in the main interpreter
        with _lock:
            _compose.watch(_step_aside, _resume, _loaded)
            if self in _stack:
                raise RuntimeError("{!r} is already started".format(self))
            _stack.append(self)
            if not _compose.foreign_active():
                try:
                    _set_engaged(True)
                except BaseException:
                    _stack.pop()
                    raise
        return self

    def stop(self):
        """Deactivates this patch (RuntimeError if not started); the next one
        out, if any, is active again."""
        with _lock:
            if self not in _stack:
                raise RuntimeError("{!r} is not started".format(self))
            _stack.remove(self)  # normally the innermost; any may leave
            if _c._installed():  # else waiting behind a travel: nothing to undo
                _set_engaged(bool(_stack))

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


def patching():
    """The innermost started monostamp.patch, or None; it stays started while
    a travel or freeze has precedence, and patched() says that (see "Unique
    time for code that calls the standard library" in the monostamp docs)."""
    with _lock:
        return _stack[-1] if _stack else None


def patched():
    """True while time.time(), datetime.now() & co. draw from monostamp."""
    return bool(_c._installed())
