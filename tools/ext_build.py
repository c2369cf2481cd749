"""The Python extension's build settings, in one place: setup.py (pip
install from a checkout or the sdist, with the machine's compiler) and
make dist's headers-only builds (tools/dist/build.sh: gcc against a
CPython's headers and glibc 2.17's alone) read them here, so a wheel is
compiled as a source install is.  Also the version, read from
csrc/monostamp.h, where it is defined once.

    python3 tools/ext_build.py version|sources|include-dirs|cflags|libraries|...

prints one of them, space-separated, for the shell (the preload's too).
"""
import os
import re
import sys
from glob import glob

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "monostamp._monostamp"
INCLUDE_DIRS = ["csrc", "bindings/python"]

# The core is C11 with POSIX 2008; every symbol but PyInit__monostamp stays
# hidden, so the core cannot clash with the Lua module's copy.  The two
# -Wno- are for CPython's own idioms: PyMethodDef/PyType_Slot tables that
# leave fields out, METH_NOARGS functions that ignore their argument.
# No -D_POSIX_C_SOURCE here: CPython's pyconfig.h defines it for the
# binding's files (3.15: 202405L, which a 200809L on the command line would
# clash with), csrc/config.h for the core's.  The C standard is the
# Makefile's C_STD (tests/python/test_build_flags.py).
POSIX_CFLAGS = ["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                "-Wno-unused-parameter"]
# make dist's wheels only (tools/dist/build.sh): the optimization flags
# that CPython's own configure gives its extensions, and so setup.py's
# build of the same sources: -O3 and -fwrapv.  The wheels are compiled by
# the same compiler as that build, gcc, against zig's glibc 2.17 headers,
# and zig links them: zig's clang, given these flags, counted 3-5 % more
# instructions per stamp than gcc (callgrind; docs/python.md).
WHEEL_CFLAGS = ["-O3", "-fwrapv"]
# dlsym (the core looks for the preload once, at load) lives in libdl
# before glibc 2.34, which a manylinux wheel must still run on.
POSIX_LIBRARIES = ["pthread", "dl"] if sys.platform.startswith("linux") else ["pthread"]

# libmonostamp_preload.so, shipped in the package on Linux for `monostamp
# run --native` (docs/preload.md): preload/*.c with its own copy of the
# core, whose clock_gettime calls are renamed so that they never bind to
# the preload's own export (the Makefile's preload block does the same).
PRELOAD_NAME = "libmonostamp_preload.so"
# Its directory in the package: one without __init__.py, so that no module
# finder (pkgutil.iter_modules, pydoc -k) lists the library as a module
# named libmonostamp_preload whose import fails (monostamp/_run.py's
# library_path() looks there).
PRELOAD_DIR = "_native"
PRELOAD_CORE_DEFINES = ["MONOSTAMP_PRELOAD_BUILD",
                        "clock_gettime=monostamp_preload__next_clock_gettime"]
PRELOAD_INCLUDE_DIRS = ["csrc", "preload"]
PRELOAD_LDFLAGS = ["-Wl,--version-script=preload/exports.map", "-Wl,-z,now",
                   "-Wl,--no-undefined"]
WINDOWS_CFLAGS = ["/std:c11", "/experimental:c11atomics"]
WINDOWS_LIBRARIES = ["synchronization"]


def _rel(paths):
    return sorted(os.path.relpath(p, ROOT).replace(os.sep, "/") for p in paths)


def sources():
    """Relative to the checkout: the binding's C files, then the core's."""
    return (_rel(glob(os.path.join(ROOT, "bindings", "python", "*.c")))
            + _rel(glob(os.path.join(ROOT, "csrc", "*.c"))))


def core_sources():
    return _rel(glob(os.path.join(ROOT, "csrc", "*.c")))


def preload_sources():
    return _rel(glob(os.path.join(ROOT, "preload", "*.c")))


def headers():
    return (_rel(glob(os.path.join(ROOT, "bindings", "python", "*.h")))
            + _rel(glob(os.path.join(ROOT, "bindings", "python", "monostamp", "*.h")))
            + _rel(glob(os.path.join(ROOT, "csrc", "*.h"))))


def version():
    """MONOSTAMP_VERSION of csrc/monostamp.h, checked against its parts."""
    with open(os.path.join(ROOT, "csrc", "monostamp.h"), encoding="utf-8") as f:
        text = f.read()
    found = re.search(r'^#define MONOSTAMP_VERSION "([^"]+)"$', text, re.M)
    parts = [re.search(r"^#define MONOSTAMP_VERSION_%s (\d+)$" % p, text, re.M)
             for p in ("MAJOR", "MINOR", "PATCH")]
    if not found or not all(parts):
        raise RuntimeError("csrc/monostamp.h: no MONOSTAMP_VERSION and its three parts")
    joined = ".".join(m.group(1) for m in parts)
    if found.group(1) != joined:
        raise RuntimeError("csrc/monostamp.h: MONOSTAMP_VERSION %r but its parts say %r"
                           % (found.group(1), joined))
    return found.group(1)


if __name__ == "__main__":
    what = {
        "version": lambda: [version()],
        "sources": sources,
        "include-dirs": lambda: INCLUDE_DIRS,
        "cflags": lambda: POSIX_CFLAGS,
        "wheel-cflags": lambda: WHEEL_CFLAGS,
        "libraries": lambda: POSIX_LIBRARIES,
        "core-sources": core_sources,
        "preload-sources": preload_sources,
        "preload-core-defines": lambda: PRELOAD_CORE_DEFINES,
        "preload-include-dirs": lambda: PRELOAD_INCLUDE_DIRS,
        "preload-ldflags": lambda: PRELOAD_LDFLAGS,
    }
    if len(sys.argv) != 2 or sys.argv[1] not in what:
        sys.exit("usage: ext_build.py " + "|".join(what))
    print(" ".join(what[sys.argv[1]]()))
