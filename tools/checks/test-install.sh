#!/bin/sh
# test-install.sh [BUILD]: `make install` into a scratch prefix under BUILD,
# then C and C++ programs built from nothing but the installed monostamp.pc
# (pkg-config --cflags --libs), as a user builds them:
#   - with an rpath to pkg-config's libdir: they run, on the installed
#     libmonostamp.so.0 (ldd says which file);
#   - without one: the loader must NOT find it, and says so.  A prefix
#     outside the loader's search path needs an rpath, LD_LIBRARY_PATH, or
#     (for a system prefix such as /usr/local) `ldconfig` after installing;
#     this proves the first two and that something is needed;
#   - linked statically (pkg-config --static and the .a): no run-time
#     lookup at all.
# Also: the .pc's version is the header's, and the installed header is the
# one in csrc/.  Prints "N passed, N failed".
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
CC=${CC:-cc}
CXX=${CXX:-c++}
MAKE=${MAKE:-make}
prefix="$BUILD/install-test/prefix"
out="$BUILD/install-test/bin"
rm -rf "$BUILD/install-test"
mkdir -p "$out"

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "test-install: ok: $*"; }
fail() { failed=$((failed + 1)); echo "test-install: FAIL: $*"; }

"$MAKE" --no-print-directory -s install BUILD="$BUILD" PREFIX="$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
unset LD_LIBRARY_PATH

header_version=$(sed -n 's/^#define MONOSTAMP_VERSION "\(.*\)"/\1/p' csrc/monostamp.h)
if [ "$(pkg-config --modversion monostamp)" = "$header_version" ]; then
    ok "pkg-config --modversion monostamp is $header_version"
else
    fail "pkg-config --modversion monostamp: $(pkg-config --modversion monostamp), header $header_version"
fi
if cmp -s csrc/monostamp.h "$(pkg-config --variable=includedir monostamp)/monostamp.h"; then
    ok "the installed header is csrc/monostamp.h"
else
    fail "the installed header differs from csrc/monostamp.h"
fi
libdir=$(pkg-config --variable=libdir monostamp)

# name compiler source extra-flags...
build() {
    name=$1 compiler=$2 src=$3
    shift 3
    # shellcheck disable=SC2046
    $compiler "$src" $(pkg-config --cflags monostamp) "$@" -o "$out/$name"
}

for lang in c cxx; do
    if [ $lang = c ]; then
        compiler="$CC -std=c99 -pedantic -Wall -Wextra -Werror" src=tests/header/use_header.c
    else
        compiler="$CXX -std=c++17 -pedantic -Wall -Wextra -Werror" src=tests/header/use_cxx.cpp
    fi
    # shellcheck disable=SC2046
    build "$lang-rpath" "$compiler" $src $(pkg-config --libs monostamp) -lpthread \
        -Wl,-rpath,"$libdir"
    if "$out/$lang-rpath" >"$out/$lang-rpath.log" 2>&1; then
        ok "$lang, shared, rpath $libdir: $(tail -n 1 "$out/$lang-rpath.log")"
    else
        fail "$lang, shared, rpath: $(cat "$out/$lang-rpath.log")"
    fi
    loaded=$(ldd "$out/$lang-rpath" | awk '/libmonostamp/ { print $3 }')
    if [ "$loaded" = "$libdir/libmonostamp.so.0" ]; then
        ok "$lang: the loader takes $loaded"
    else
        fail "$lang: the loader takes '$loaded', not $libdir/libmonostamp.so.0"
    fi

    # shellcheck disable=SC2046
    build "$lang-norpath" "$compiler" $src $(pkg-config --libs monostamp) -lpthread
    if "$out/$lang-norpath" >"$out/$lang-norpath.log" 2>&1; then
        fail "$lang, shared, no rpath: ran, so a libmonostamp.so.0 is on the loader's path already"
    elif grep -q "libmonostamp.so.0: cannot open shared object file" "$out/$lang-norpath.log"; then
        ok "$lang, no rpath: the loader does not find the library (as expected)"
    else
        fail "$lang, no rpath: $(cat "$out/$lang-norpath.log")"
    fi
    if LD_LIBRARY_PATH="$libdir" "$out/$lang-norpath" >/dev/null 2>&1; then
        ok "$lang, no rpath, LD_LIBRARY_PATH=$libdir: runs"
    else
        fail "$lang, no rpath, LD_LIBRARY_PATH: does not run"
    fi

    # shellcheck disable=SC2046
    build "$lang-static" "$compiler" $src "$libdir/libmonostamp.a" \
        $(pkg-config --libs-only-other --static monostamp) -lpthread
    if "$out/$lang-static" >/dev/null 2>&1 && ! ldd "$out/$lang-static" | grep -q libmonostamp; then
        ok "$lang, static: runs with no libmonostamp to load"
    else
        fail "$lang, static"
    fi
done

# LuaJIT's FFI on the installed library, named by MONOSTAMP_LIBRARY.
if command -v luajit >/dev/null 2>&1; then
    if got=$(MONOSTAMP_LIBRARY="$libdir/libmonostamp.so" LUA_PATH="$ROOT/bindings/lua/?.lua;;" \
             luajit -e 'local m = require "monostamp.ffi"; local a, b = m.time_ns(), m.time_ns()
                        assert(b > a); io.write(m.library)' 2>&1) &&
       [ "$got" = "$libdir/libmonostamp.so" ]; then
        ok "luajit: monostamp.ffi over MONOSTAMP_LIBRARY=$got"
    else
        fail "luajit: monostamp.ffi over the installed library: $got"
    fi
fi

echo "test-install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
