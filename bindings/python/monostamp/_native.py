"""libmonostamp_preload.so, shipped in the package, for `monostamp run --native`:
docs/preload.md.  The runner turns NativeUnavailable into one line, status 125."""
import os
import sys
from typing import Mapping

LIBRARY = "libmonostamp_preload.so"


class NativeUnavailable(RuntimeError):
    """The preload cannot be used here; str() is one line for the user."""


def library_path() -> str:
    """The absolute path of the shipped libmonostamp_preload.so."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY)
    if not os.path.isfile(path):
        raise NativeUnavailable(
            "monostamp: %s is not installed beside %s (this build has no preload library)"
            % (LIBRARY, os.path.dirname(path)))
    return path


def with_preload(env: Mapping[str, str]) -> "dict[str, str]":
    """A copy of `env` with the library first in LD_PRELOAD, ahead of what is
    there already (a libfaketime listed after it is wrapped, not winning)."""
    if sys.platform in ("win32", "darwin"):
        raise NativeUnavailable(
            "monostamp: --native needs LD_PRELOAD, which %s does not have" % sys.platform)
    path = library_path()
    # The loader splits LD_PRELOAD on spaces and colons; a copy further on
    # is dropped, so the library is first exactly once.
    rest = [p for p in env.get("LD_PRELOAD", "").replace(":", " ").split() if p != path]
    return dict(env, LD_PRELOAD=" ".join([path] + rest))
