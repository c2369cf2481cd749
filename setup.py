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
import platform
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)  # the paths below are relative to the checkout
sys.path.insert(0, os.path.join(HERE, "tools"))
import ext_build  # noqa: E402  (the line above makes it importable)

if sys.platform == "win32":
    cflags, libraries = ext_build.WINDOWS_CFLAGS, ext_build.WINDOWS_LIBRARIES
else:
    cflags, libraries = ext_build.POSIX_CFLAGS, ext_build.POSIX_LIBRARIES

PYPY = platform.python_implementation() == "PyPy"
if PYPY:
    # PyPy: a cffi module over the core (tools/cffi_build.py; cffi comes
    # with PyPy) and the pure-Python monostamp/_pypy.py, not the extension.
    import cffi_build  # noqa: E402

    ext = cffi_build.extension(Extension, os.path.join("build-python", "cffi"), cflags, libraries)
else:
    ext = Extension(
        ext_build.NAME,
        sources=ext_build.sources(),
        depends=ext_build.headers(),
        include_dirs=ext_build.INCLUDE_DIRS,
        extra_compile_args=cflags,
        libraries=libraries,
    )



class build_ext_and_preload(build_ext):
    """Builds the extension, then libmonostamp_preload.so into the package
    (monostamp/_native/libmonostamp_preload.so, a directory no module finder
    reads) on Linux, for `monostamp run --native` and `monostamp
    preload-path`: a plain shared library, not an extension, made by the same
    compiler from preload/ and its own copy of the core, whose clock_gettime
    calls are renamed so that they never bind to the preload's own export
    (the Makefile's preload block does the same; docs/preload.md)."""

    def run(self):
        super().run()
        if sys.platform.startswith("linux"):
            self.build_preload()

    def build_preload(self):
        temp = os.path.join(self.build_temp, "preload")
        flags = cflags + ["-fPIC"]
        core = self.compiler.compile(
            ext_build.core_sources(), output_dir=os.path.join(temp, "core"),
            macros=[tuple(m.split("=", 1)) if "=" in m else (m, None)
                    for m in ext_build.PRELOAD_CORE_DEFINES],
            include_dirs=["csrc"], extra_postargs=flags)
        own = self.compiler.compile(
            ext_build.preload_sources(), output_dir=temp,
            include_dirs=ext_build.PRELOAD_INCLUDE_DIRS, extra_postargs=flags)
        package = os.path.join("bindings", "python", "monostamp") if self.inplace else \
            os.path.join(self.build_lib, "monostamp")
        out = os.path.join(package, ext_build.PRELOAD_DIR, ext_build.PRELOAD_NAME)
        # A build from before the move left the library at the package's
        # root, from where it would go into the wheel beside the new one.
        stale = os.path.join(package, ext_build.PRELOAD_NAME)
        if os.path.exists(stale):
            os.remove(stale)
        self.compiler.link_shared_object(
            own + core, out, libraries=libraries, extra_postargs=ext_build.PRELOAD_LDFLAGS)


options = {"build": {"build_base": "build-python"}}  # not the C build's build/

# The startup hook (MONOSTAMP_PATCH, monostamp/_startup.py): a .pth file at the
# top of site-packages, beside the package, the way coverage's and
# pytest-cov's process-start hooks are installed.  A wheel carries it at its
# root; an editable install gets it in the wheel setuptools makes for it.
PTH = "monostamp-patch.pth"
PTH_SOURCE = os.path.join("bindings", "python", PTH)


class BuildPyWithPth(build_py):
    """build_py, plus the .pth at the root of the built tree (so the wheel's),
    less the modules the source no longer has."""

    def run(self):
        self.drop_removed_modules()
        super().run()
        if not getattr(self, "editable_mode", False):
            self.copy_file(PTH_SOURCE, os.path.join(self.build_lib, PTH), preserve_mode=False)

    def find_package_modules(self, package, package_dir):
        """The package's modules, less PyPy's binding (monostamp/_pypy*.py)
        off PyPy: a CPython wheel has the extension in its place."""
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if PYPY or not m[1].startswith("_pypy")]

    def drop_removed_modules(self):
        """build_py only copies, so a module deleted from the package would
        stay in build-python/ from an earlier build and go into every later
        wheel: removed here, in a checkout that was built before."""
        built = os.path.join(self.build_lib, "monostamp")
        source = os.path.join("bindings", "python", "monostamp")
        if not os.path.isdir(built):
            return
        for name in os.listdir(built):
            gone = not os.path.exists(os.path.join(source, name))
            foreign = name.startswith("_pypy") and not PYPY  # from a build on PyPy
            if name.endswith((".py", ".pyi")) and (gone or foreign):
                os.remove(os.path.join(built, name))

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [os.path.join(self.build_lib, PTH)]


commands = {"build_py": BuildPyWithPth, "build_ext": build_ext_and_preload}

try:
    from setuptools.command.editable_wheel import editable_wheel
except ImportError:  # a setuptools without PEP 660: pip falls back to develop
    editable_wheel = None

if editable_wheel is not None:
    class EditableWheelWithPth(editable_wheel):
        """pip install -e .: the .pth into the editable wheel's root too."""

        def _run_build_commands(self, dist_name, unpacked_wheel, build_lib, tmp_dir):
            result = super()._run_build_commands(dist_name, unpacked_wheel, build_lib, tmp_dir)
            shutil.copyfile(PTH_SOURCE, os.path.join(unpacked_wheel, PTH))
            return result

    commands["editable_wheel"] = EditableWheelWithPth

setup(version=ext_build.version(), ext_modules=[ext], options=options, cmdclass=commands)
