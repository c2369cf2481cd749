"""Builds monostamp._monostamp: the binding (bindings/python/*.c, the C half
of monostamp.patch() included) and the core's C sources, as one extension.

Metadata lives in pyproject.toml; this file only lists sources and flags.
The extension is built for one CPython version on the full C API, so the
wheel is tagged for that version (cp3X-cp3X): patch() rewrites the method
tables of `time` and `_datetime`, whose layout is the interpreter's own, and
the full API gives the datetime C API and free-threaded builds, which have
no stable ABI.  See docs/python.md.
"""
import os
import sys
from glob import glob

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)  # the globs and paths below are relative to the checkout

if sys.platform == "win32":
    cflags = ["/std:c11", "/experimental:c11atomics"]
    libraries = ["synchronization"]
else:
    # The core is C11 with POSIX 2008; every symbol but PyInit__monostamp
    # stays hidden, so the core cannot clash with the Lua module's copy.
    cflags = ["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE",
              "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
              "-Wno-unused-parameter"]
    libraries = ["pthread"]

ext = Extension(
    "monostamp._monostamp",
    sources=sorted(glob("bindings/python/*.c")) + sorted(glob("csrc/*.c")),
    depends=sorted(glob("bindings/python/*.h")) + sorted(glob("csrc/*.h")),
    include_dirs=["csrc", "bindings/python"],
    extra_compile_args=cflags,
    libraries=libraries,
)

options = {"build": {"build_base": "build-python"}}  # not the C build's build/

setup(ext_modules=[ext], options=options)
