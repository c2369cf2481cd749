"""monostamp.patch() beside time-machine and freezegun: theirs win while active.

A test that travels (time-machine) or freezes (freezegun) asks for a more
specific time than a suite-wide monostamp.patch(): while any travel or
freeze is active it must win, and monostamp must resume when the last one
ends, in either nesting order, however they are started (context manager,
decorator, fixture).  Neither tool may be left holding the other's
functions:

* time-machine swaps the same ml_meth slots monostamp does, saving what it
  finds as "the originals" when its first travel starts and writing them
  back when its last one stops.  So, just before that first start, monostamp
  steps aside (writes the real functions back), and time-machine saves the
  real ones; after its last stop, monostamp installs its own again.
* freezegun replaces module attributes and the datetime classes, and calls
  the real functions it imported for its own ticking and ignored modules.
  It is treated the same way, so those calls see real time, as they would
  without monostamp.

Both are caught by wrapping their start() and stop() methods on the class
(time_machine.travel, freezegun.api._freeze_time), which every form of
them goes through.  A tool imported after the first patch started is
wrapped as its module finishes loading, by a finder on sys.meta_path that
wraps and then removes itself once both are wrapped.

The same finder watches uuid, whose uuid1() a patch adjusts: a uuid
imported while a patch is engaged is adjusted as it loads.

The stack of patches and the switching live in _patching.py; this module
only tells it when to step aside (_patching._step_aside) and when it may
resume (_patching._resume).  It imports nothing costly at the top (a
child started with MONOSTAMP_PATCH=1 runs it before its own code): the
finder and loader are plain classes, as the import system asks no more.
"""
import _thread
import sys

#: The tools: module name -> (class whose start/stop to wrap, "is it active?").
_TOOLS = {
    "time_machine": ("travel", lambda m: bool(getattr(m, "traveller_stack", None))),
    "freezegun.api": ("_freeze_time", lambda m: bool(getattr(m, "freeze_factories", None))),
}
_MARK = "_monostamp_composed"  # set on a wrapped class: its (start, stop)
_watch_lock = _thread.allocate_lock()  # around wrapping and the finder's (un)installation
#: Every module the finder waits for: the tools, and uuid (_patching's).
_WATCHED = ("time_machine", "freezegun.api", "uuid")


def foreign_active():
    """True while a time-machine travel or a freezegun freeze is active."""
    for name, (_, active) in _TOOLS.items():
        module = sys.modules.get(name)
        if module is not None and active(module):
            return True
    return False


def _wrap(module):
    """Wraps start() and stop() of the tool's class in `module` (once)."""
    class_name, _ = _TOOLS[module.__name__]
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type) or _MARK in vars(cls):
        return
    original_start, original_stop = cls.start, cls.stop
    import functools

    from . import _patching  # a cycle at import time otherwise

    @functools.wraps(original_start)
    def start(self, *args, **kwargs):
        _patching._step_aside()
        try:
            return original_start(self, *args, **kwargs)
        except BaseException:
            _patching._resume()  # it did not start: monostamp again, if ours
            raise

    @functools.wraps(original_stop)
    def stop(self, *args, **kwargs):
        try:
            return original_stop(self, *args, **kwargs)
        finally:
            _patching._resume()  # only once the last travel or freeze ended

    cls.start, cls.stop = start, stop
    setattr(cls, _MARK, (original_start, original_stop))


class _Loader:
    """The module's own loader, which wraps a tool (or adjusts uuid) once the
    module has run."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        if module.__name__ == "uuid":
            from . import _patching

            _patching._uuid_imported()
        with _watch_lock:
            if module.__name__ in _TOOLS:
                _wrap(module)
            _unwatch_if_done()

    def __getattr__(self, name):  # get_data, get_filename, is_package ...
        return getattr(self._loader, name)


class _Finder:
    """Finds nothing itself: for the watched modules it asks the finders after
    it and hands back their spec with the loader wrapped."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _WATCHED:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


_finder = None
_watched = False  # watch() has run: later imports are the finder's


def _unwatch_if_done():
    global _finder
    if _finder is not None and all(name in sys.modules for name in _WATCHED):
        try:
            sys.meta_path.remove(_finder)
        except ValueError:
            pass
        _finder = None


def watch():
    """Wraps the tools already imported; the others as they are imported."""
    global _finder, _watched
    if _watched:
        return
    with _watch_lock:
        _watched = True
        missing = any(name not in sys.modules for name in _WATCHED)
        for name in _TOOLS:
            module = sys.modules.get(name)
            if module is not None:
                _wrap(module)
        if missing and _finder is None:
            _finder = _Finder()
            sys.meta_path.insert(0, _finder)


def unwrap():
    """Puts the tools' own start() and stop() back and stops watching (tests)."""
    global _finder, _watched
    with _watch_lock:
        _watched = False
        for name, (class_name, _) in _TOOLS.items():
            cls = getattr(sys.modules.get(name), class_name, None)
            if isinstance(cls, type) and _MARK in vars(cls):
                cls.start, cls.stop = vars(cls)[_MARK]
                delattr(cls, _MARK)
        if _finder is not None:
            sys.meta_path.remove(_finder)
            _finder = None
