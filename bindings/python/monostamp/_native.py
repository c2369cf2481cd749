"""libmonostamp_preload.so for `monostamp run --native` (docs/preload.md).

The library ships inside the package (setup.py builds it next to the
extension on Linux); putting it first in LD_PRELOAD makes every dynamically
linked process of a tree read unique wall-clock time through libc's own
calls.  The runner calls with_preload() on the child's environment and turns
NativeUnavailable into its one line and exit status 125.
"""
from __future__ import annotations

import os
import sys
from typing import Mapping

__all__ = ["NativeUnavailable", "library_path", "with_preload"]

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


def with_preload(env: Mapping[str, str]) -> dict[str, str]:
    """A copy of `env` with the library first in LD_PRELOAD, ahead of what is
    there already (a libfaketime listed after it is wrapped, not winning)."""
    if sys.platform == "win32" or sys.platform == "darwin":
        raise NativeUnavailable(
            "monostamp: --native needs LD_PRELOAD, which %s does not have" % sys.platform)
    path = library_path()
    out = dict(env)
    # The loader splits LD_PRELOAD on spaces and colons; a copy already
    # listed further on is dropped, so the library is first exactly once.
    rest = [p for p in out.get("LD_PRELOAD", "").replace(":", " ").split() if p != path]
    out["LD_PRELOAD"] = " ".join([path] + rest)
    return out
