"""Builds monostamp._monostamp (the binding plus the core's C sources) and
monostamp._patch (monostamp.patch()'s C half).

Metadata lives in pyproject.toml; this file only lists sources and flags.
_monostamp uses the stable ABI unless the interpreter is a free-threaded
build, which has no stable ABI, or MONOSTAMP_LIMITED_API=0 asks for a
version-specific build.  _patch rewrites interpreter internals (the method
tables of time and _datetime), so it is always built for one CPython
version, and the wheel is tagged for that version (cp3X-cp3X), with the
abi3 _monostamp inside it.  _patch compiles no core of its own: it draws
from _monostamp's through the capsule declared in bindings/python/capi.h.
"""
import os
import sys
import sysconfig
from glob import glob

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)  # the globs and paths below are relative to the checkout

free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
limited = os.environ.get("MONOSTAMP_LIMITED_API", "1") != "0" and not free_threaded

macros = []
if limited:
    macros.append(("Py_LIMITED_API", "0x030A0000"))

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

# bindings/python/*.c is _monostamp alone; _patch lives in bindings/python/patch/.
ext = Extension(
    "monostamp._monostamp",
    sources=sorted(glob("bindings/python/*.c")) + sorted(glob("csrc/*.c")),
    depends=sorted(glob("bindings/python/*.h")) + sorted(glob("csrc/*.h")),
    include_dirs=["csrc", "bindings/python"],
    define_macros=macros,
    extra_compile_args=cflags,
    libraries=libraries,
    py_limited_api=limited,
)

patch_ext = Extension(
    "monostamp._patch",
    sources=sorted(glob("bindings/python/patch/*.c")),
    depends=sorted(glob("bindings/python/patch/*.h")) + ["bindings/python/capi.h",
                                                         "csrc/monostamp.h"],
    include_dirs=["csrc", "bindings/python"],
    extra_compile_args=cflags,
)

# No bdist_wheel py_limited_api: _patch is version-specific, so an abi3 tag
# would let the wheel install on interpreters whose _patch it lacks.
options = {"build": {"build_base": "build-python"}}  # not the C build's build/

setup(ext_modules=[ext, patch_ext], options=options)
