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

The stack of patches, the switching and the one lock they change under
live in _patching.py, which calls in here under that lock and hands over
what to call back (watch()): this module imports no other of the package
and keeps no lock.  It imports nothing costly at the top (a child started
with MONOSTAMP_PATCH=1 runs it before its own code): the finder and loader
are plain classes, as the import system asks no more.
"""
import sys

#: The tools: module name -> (class whose start/stop to wrap, "is it active?").
#: time-machine 3.x keeps its travels in traveller_stack, 2.x in coordinates_stack.
_TOOLS = {
    "time_machine": ("travel", lambda m: bool(getattr(m, "traveller_stack", None) or
                                              getattr(m, "coordinates_stack", None))),
    "freezegun.api": ("_freeze_time", lambda m: bool(getattr(m, "freeze_factories", None))),
}
_MARK = "_monostamp_composed"  # set on a wrapped class
#: Every module the finder waits for: the tools, and uuid (_patching's).
_WATCHED = ("time_machine", "freezegun.api", "uuid")


def foreign_active():
    """True while a time-machine travel or a freezegun freeze is active."""
    for name, (_, active) in _TOOLS.items():
        module = sys.modules.get(name)
        if module is not None and active(module):
            return True
    return False


def adopt_left_behind(c):
    """time-machine before 3.0 patches the clock functions at its first
    travel and leaves them in (they pass through while no travel is
    active): those are what the tables hold from then on, so the C half
    (`c`, the extension) takes them as the originals to install over and
    write back.  Called before each install, with no travel active."""
    module = sys.modules.get("time_machine")
    if module is None or not hasattr(module, "coordinates_stack"):
        return  # not imported, or 3.x, which restores the functions itself
    witness = getattr(sys.modules.get("_time_machine"), "original_time", None)
    if witness is not None:
        c._adopt(witness)


def _wrap(module, step_aside, resume):
    """Wraps start() and stop() of the tool's class in `module` (once):
    step_aside() before a start, resume() after a stop or a failed start."""
    class_name, _ = _TOOLS[module.__name__]
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type) or _MARK in vars(cls):
        return
    original_start, original_stop = cls.start, cls.stop
    import functools

    @functools.wraps(original_start)
    def start(self, *args, **kwargs):
        step_aside()
        try:
            return original_start(self, *args, **kwargs)
        except BaseException:
            resume()  # it did not start: monostamp again, if ours
            raise

    @functools.wraps(original_stop)
    def stop(self, *args, **kwargs):
        try:
            return original_stop(self, *args, **kwargs)
        finally:
            resume()  # only once the last travel or freeze ended

    cls.start, cls.stop = start, stop
    setattr(cls, _MARK, True)


class _Loader:
    """The module's own loader, which hands the module to `loaded` once it
    has run."""

    def __init__(self, loader, loaded):
        self._loader = loader
        self._loaded = loaded

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._loaded(module)

    def __getattr__(self, name):  # get_data, get_filename, is_package ...
        return getattr(self._loader, name)


class _Finder:
    """Finds nothing itself: for the watched modules it asks the finders after
    it and hands back their spec with the loader wrapped."""

    def __init__(self, loaded):
        self._loaded = loaded

    def find_spec(self, fullname, path, target=None):
        if fullname not in _WATCHED:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, self._loaded)
                return spec
        return None


_finder = None
_watched = False  # watch() has run: later imports are the finder's


def loaded(module, step_aside, resume):
    """A watched module has just run: a tool is wrapped; the finder leaves
    once every watched module is in."""
    global _finder
    if module.__name__ in _TOOLS:
        _wrap(module, step_aside, resume)
    if _finder is not None and all(name in sys.modules for name in _WATCHED):
        try:
            sys.meta_path.remove(_finder)
        except ValueError:
            pass
        _finder = None


def watch(step_aside, resume, on_loaded):
    """Wraps the tools already imported; the others as they are imported,
    when the finder hands each watched module to on_loaded(module)."""
    global _finder, _watched
    if _watched:
        return
    _watched = True
    missing = any(name not in sys.modules for name in _WATCHED)
    for name in _TOOLS:
        module = sys.modules.get(name)
        if module is not None:
            _wrap(module, step_aside, resume)
    if missing and _finder is None:
        _finder = _Finder(on_loaded)
        sys.meta_path.insert(0, _finder)
