"""monostamp.patch() beside time-machine and freezegun: theirs win while active.

Just before a tool's start() monostamp steps aside (the real functions back,
which time-machine saves as its originals), after its stop() it resumes:
start() and stop() are wrapped on the class every form of them goes through,
as the tool loads if it is imported later (a finder on sys.meta_path, which
watches uuid too).  docs/patch.md, "Beside time-machine and freezegun".

_patching.py owns the patch state and its lock and calls in here under it:
this module imports no other of the package, keeps no lock, and imports
nothing costly at the top (MONOSTAMP_PATCH=1 runs it at startup).
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
    return any(sys.modules.get(name) is not None and active(sys.modules[name])
               for name, (_, active) in _TOOLS.items())


def adopt_left_behind(c):
    """time-machine before 3.0 leaves its pass-through functions in the tables
    after its first travel: the C half (`c`) takes them as the originals to
    install over and write back.  Called before each install."""
    module = sys.modules.get("time_machine")
    if module is None or not hasattr(module, "coordinates_stack"):
        return  # not imported, or 3.x, which restores the functions itself
    witness = getattr(sys.modules.get("_time_machine"), "original_time", None)
    if witness is not None:
        c._adopt(witness)


def _wrap(module, step_aside, resume):
    """Wraps start() and stop() of the tool's class in `module` (once):
    step_aside() before a start, resume() after a stop or a failed start."""
    cls = getattr(module, _TOOLS[module.__name__][0], None)
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
    """The module's own loader (the rest passes through), handing the module
    to `loaded` once it has run."""

    def __init__(self, loader, loaded):
        self._loader, self._loaded = loader, loaded

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._loaded(module)

    def __getattr__(self, name):
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
        if _finder in sys.meta_path:
            sys.meta_path.remove(_finder)
        _finder = None


def watch(step_aside, resume, on_loaded):
    """Wraps the tools already imported; the others as they are imported,
    when the finder hands each watched module to on_loaded(module)."""
    global _finder, _watched
    if _watched:
        return
    _watched = True
    for name in _TOOLS:
        if sys.modules.get(name) is not None:
            _wrap(sys.modules[name], step_aside, resume)
    if any(name not in sys.modules for name in _WATCHED) and _finder is None:
        _finder = _Finder(on_loaded)
        sys.meta_path.insert(0, _finder)
