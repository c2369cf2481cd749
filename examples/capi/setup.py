"""Builds the example extension `stamps` against the installed monostamp's
C API header: monostamp.get_include() is all it needs (monostamp's C API is
fetched at import from its capsule; nothing is linked)."""
import monostamp
from setuptools import Extension, setup

setup(
    name="monostamp-capi-example",
    version="1.0",
    ext_modules=[Extension("stamps", sources=["stamps.c"],
                           include_dirs=[monostamp.get_include()])],
)
