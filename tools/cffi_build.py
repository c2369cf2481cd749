"""cffi_build.py: PyPy's binding, monostamp._monostamp_cffi, a cffi
out-of-line API-mode module over the same core as the CPython extension
(setup.py builds it when it runs on PyPy, whose C-API emulation is slow).

Its declarations are bindings/lua/monostamp/cdef.lua's, the text LuaJIT's
monostamp.ffi hands to ffi.cdef: one copy for both FFI bindings.  API mode
compiles them against csrc/monostamp.h and csrc/monostamp_host.h, so a
declaration that disagrees with the headers fails the build.  The Python side is
bindings/python/monostamp/_pypy.py.
"""
import os
import re

from cffi import FFI

import ext_build

NAME = "monostamp._monostamp_cffi"
CDEF = os.path.join(ext_build.ROOT, "bindings", "lua", "monostamp", "cdef.lua")


# The error codes are not here: the binding lists them from the core
# (monostamp_error_code and monostamp_error_name), as monostamp.ffi does.
MACROS = ("VERSION_MAJOR", "VERSION_MINOR", "VERSION_PATCH", "DEFAULT_SLEEP_TOLERANCE_NS",
          "DRAW_US", "DRAW_OFFSET")


# The hot draw without out-parameters, which cffi would make a cdata of at
# each call: the stamp's ns returned, INT64_MIN and the core's code (this
# thread's) on failure, the offset kept for this thread.
GLUE_CDEF = """
int64_t monostamp_pypy_draw(monostamp_clock *clock, unsigned flags, int64_t max_lead_ns);
int monostamp_pypy_code(void);
int32_t monostamp_pypy_offset(void);
"""
GLUE = """
static _Thread_local int pypy_code;
static _Thread_local int32_t pypy_offset;
static int64_t monostamp_pypy_draw(monostamp_clock *clock, unsigned flags, int64_t max_lead_ns)
{
    monostamp_stamp s;
    pypy_code = monostamp_draw(clock, flags, max_lead_ns, &s);
    if (pypy_code != MONOSTAMP_OK)
        return INT64_MIN;
    pypy_offset = s.offset_s;
    return s.utc_ns;
}
static int monostamp_pypy_code(void) { return pypy_code; }
static int32_t monostamp_pypy_offset(void) { return pypy_offset; }
"""


def cdef_text():
    """The C text of cdef.lua's `return [[...]]`."""
    with open(CDEF, encoding="utf-8") as f:
        found = re.search(r"^return \[\[\n(.*?)^\]\]", f.read(), re.M | re.S)
    if found is None:
        raise RuntimeError(CDEF + ": no `return [[...]]` block of declarations")
    return found.group(1)


def builder():
    ffi = FFI()
    ffi.cdef(cdef_text())
    # The headers' integer macros (LuaJIT's cdef cannot take `...`).
    ffi.cdef("".join("#define MONOSTAMP_%s ...\n" % m for m in MACROS))
    ffi.cdef(GLUE_CDEF)
    ffi.set_source(NAME, '#include "monostamp.h"\n#include "monostamp_host.h"\n' + GLUE)
    return ffi


def extension(Extension, build_dir, cflags, libraries):
    """A setuptools Extension of the generated C file (written under
    build_dir) and the core's sources."""
    os.makedirs(build_dir, exist_ok=True)
    generated = os.path.join(build_dir, "_monostamp_cffi.c")
    builder().emit_c_code(generated)
    return Extension(NAME, sources=[generated] + ext_build.core_sources(),
                     depends=ext_build.headers() + [os.path.relpath(CDEF, ext_build.ROOT)],
                     include_dirs=["csrc"], extra_compile_args=cflags, libraries=libraries)
