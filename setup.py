"""Builds monostamp._monostamp: the binding (bindings/python/*.c, the C half
of monostamp.patch() included) and the core's C sources, as one extension.

Metadata lives in pyproject.toml; the version, the sources and the flags
come from tools/ext_build.py (the version from csrc/monostamp.h), which
make dist's wheels are built with too.  The extension is built for one
CPython version on the full C API, so the wheel is tagged for that version
(cp3X-cp3X): patch() rewrites the method tables of `time` and `_datetime`,
whose layout is the interpreter's own, and the full API gives the datetime
C API and free-threaded builds, which have no stable ABI.  See
docs/python.md.
"""
import os
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)  # the paths below are relative to the checkout
sys.path.insert(0, os.path.join(HERE, "tools"))
import ext_build  # noqa: E402  (the line above makes it importable)

if sys.platform == "win32":
    cflags, libraries = ext_build.WINDOWS_CFLAGS, ext_build.WINDOWS_LIBRARIES
else:
    cflags, libraries = ext_build.POSIX_CFLAGS, ext_build.POSIX_LIBRARIES

ext = Extension(
    ext_build.NAME,
    sources=ext_build.sources(),
    depends=ext_build.headers(),
    include_dirs=ext_build.INCLUDE_DIRS,
    extra_compile_args=cflags,
    libraries=libraries,
)

options = {"build": {"build_base": "build-python"}}  # not the C build's build/

setup(version=ext_build.version(), ext_modules=[ext], options=options)
