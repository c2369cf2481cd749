#!/bin/sh
# tools/lua/build-rock.sh CC CFLAGS LIBFLAG LUA_INCDIR: the rock's C
# parts, run by `luarocks make` (the rockspec's build_command, with
# luarocks' own compiler and flags), into build/luarocks/ alone:
#
#   build/luarocks/monostamp/core.so          require "monostamp.core":
#                                             bindings/lua/*.c and csrc/*.c
#   build/luarocks/monostamp/libmonostamp.so  the plain C library for
#                                             monostamp.ffi: csrc/*.c,
#                                             exporting the monostamp_* API
#
# Each is compiled and linked by one compiler call, so no object file is
# left anywhere, and nothing lands in the source root, where a Python
# started there would take a monostamp/ directory for a namespace package.
# The rockspec's `install` table copies both into the rock tree.  The
# feature-test macros and the hidden symbols come from csrc/config.h (and
# bindings/lua/lmonostamp.h), so luarocks' flags need add nothing; the
# C standard is the Makefile's (tests/python/test_build_flags.py holds the
# two to each other).
set -eu
[ $# -eq 4 ] || { echo "usage: $0 CC CFLAGS LIBFLAG LUA_INCDIR" >&2; exit 2; }
cc=$1 cflags=$2 libflag=$3 incdir=$4
cd "$(dirname "$0")/../.."
out=build/luarocks/monostamp
rm -rf "$out" && mkdir -p "$out"
# shellcheck disable=SC2086  # luarocks' flags are words
$cc $cflags -std=c11 -I"$incdir" -Icsrc bindings/lua/*.c csrc/*.c $libflag \
    -o "$out/core.so" -lpthread
# shellcheck disable=SC2086
$cc $cflags -std=c11 -DMONOSTAMP_EXPORTS -Icsrc csrc/*.c $libflag \
    -o "$out/libmonostamp.so" -lpthread
