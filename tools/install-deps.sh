#!/bin/sh
# Installs what monostamp's build, tests, demo and benchmarks need and this
# machine lacks: Debian packages with apt-get, Python packages with pip.
# Says what it installs; does nothing when everything is present.
# With --python, the Python packages alone (for PYTHON; the forky chroot's
# venvs, whose Debian packages tools/test-forky.sh installs); with --dist,
# what make dist needs alone (below).
set -eu

PYTHON=${PYTHON:-python3}

# Debian package, and a command or file that proves it is present.
debs=""
need_deb() { # package probe
    case "$2" in
        /*) [ -e "$2" ] && return 0 ;;
        *) command -v "$2" >/dev/null 2>&1 && return 0 ;;
    esac
    debs="$debs $1"
}
install_debs() {
    [ -n "$debs" ] || return 0
    echo "install-deps: installing Debian packages:$debs"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $debs >/dev/null
}

# --dist: what make dist needs for the targets it is asked for alone
# (tools/dist-build.sh runs it): the wheels' gcc, the aarch64 cross gcc
# when DIST_ARCHES (default x86_64 aarch64) has aarch64, mingw-w64 for the
# Windows wheel unless DIST_NO_WINDOWS is set; its chroots' mmdebstrap
# comes with them (tools/dist-chroot.sh), its pinned tools in a venv
# (tools/dist-deps.sh).
if [ "${1:-}" = --dist ]; then
    need_deb gcc gcc
    case " ${DIST_ARCHES:-x86_64 aarch64} " in
        *" aarch64 "*) need_deb gcc-aarch64-linux-gnu aarch64-linux-gnu-gcc ;;
    esac
    [ -n "${DIST_NO_WINDOWS:-}" ] || need_deb gcc-mingw-w64-x86-64-posix x86_64-w64-mingw32-gcc
    install_debs
    exit 0
fi
need_deb gcc gcc
need_deb g++ g++
need_deb gcc-mingw-w64-x86-64-posix x86_64-w64-mingw32-gcc
# Wine runs the mingw-built C tests (make test-windows); ~20 s to install.
need_deb wine wine
need_deb wine64 /usr/lib/wine/wine64
need_deb make make
need_deb pkg-config pkg-config
need_deb lua5.4 lua5.4
need_deb liblua5.4-dev /usr/include/lua5.4/lua.h
need_deb lua-busted /usr/bin/busted
need_deb lua5.3 lua5.3
need_deb liblua5.3-dev /usr/include/lua5.3/lua.h
need_deb lua-socket /usr/share/lua/5.4/socket.lua
need_deb luarocks luarocks
# luajit: Debian's, or luajit2 (OpenResty's branch, also /usr/bin/luajit)
# once its library is installed: libnginx-mod-http-lua (make test-nginx)
# needs libluajit2-5.1-2, which conflicts with luajit's library, so
# installing luajit there would remove the nginx module.
luajit_deb=luajit
if dpkg-query -W -f='${Status}\n' libluajit2-5.1-2 2>/dev/null | grep -q 'ok installed'; then
    luajit_deb=luajit2
fi
need_deb "$luajit_deb" luajit
need_deb clang clang
need_deb libclang-rt-14-dev /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
need_deb tzdata /usr/share/zoneinfo/Europe/Berlin
# libfaketime steps the wall clock under a child (tests/python/test_wall_step.py).
need_deb faketime faketime
# valgrind: make test-perf counts instructions with callgrind (its header, valgrind/callgrind.h, comes with it).
need_deb valgrind valgrind

if [ "${1:-}" = --python ]; then
    debs=""
fi
install_debs

# Module to import, and the pip requirement that provides it.  setuptools 77
# reads pyproject.toml's SPDX license string (make test-python builds without
# build isolation, so with this setuptools); mypy runs stubtest on the .pyi.
pips=""
# freezegun and time-machine: monostamp.patch() gives way to them, tested
# with both (tests/python/test_patch_compose.py, test_suites_both_ways.py).
for mod in pytest:pytest hypothesis:hypothesis xdist:pytest-xdist mypy:mypy \
           freezegun:freezegun time_machine:time-machine; do
    "$PYTHON" -c "import ${mod%%:*}" 2>/dev/null || pips="$pips ${mod#*:}"
done
# Django: tests/python/test_django.py drives a small project's parallel
# test runner.  Pinned; Django 6 needs Python 3.12+, so 3.10/3.11 get 5.2 LTS.
django_pin=$("$PYTHON" -c 'import sys; print("django==6.1.3" if sys.version_info >= (3, 12) else "django==5.2.20")')
"$PYTHON" -c "import django, sys; sys.exit(django.get_version() != '${django_pin#django==}')" 2>/dev/null ||
    pips="$pips $django_pin"
# whenever, pinned: tests/python/test_whenever.py (its now() under the
# preload; what patch() reaches of it).  Wheels only: where none is
# published for this Python, its tests skip rather than build Rust here.
whenever_pin=0.11.0
if ! "$PYTHON" -c "import whenever, sys; sys.exit(whenever.__version__ != '$whenever_pin')" 2>/dev/null; then
    echo "install-deps: installing whenever==$whenever_pin for $PYTHON"
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
        "whenever==$whenever_pin" ||
        echo "install-deps: whenever==$whenever_pin has no wheel for $PYTHON; its tests skip" >&2
fi
"$PYTHON" -c 'import setuptools, sys
sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null ||
    pips="$pips setuptools>=77"
if [ -n "$pips" ]; then
    echo "install-deps: installing Python packages for $PYTHON:$pips"
    # shellcheck disable=SC2086
    "$PYTHON" -m pip install --quiet --disable-pip-version-check $pips
fi

# Older releases of the tools monostamp.patch() composes with, each in a
# directory of its own (pip install --target) beside the current ones
# above, which they would replace in site-packages: the tests put one such
# directory on a child's sys.path (tests/python/test_old_tools.py, where
# the same path is computed).  time-machine 2.x never restores the
# functions it patches; freezegun 1.2 is the oldest widely pinned one.
for req in time-machine==2.10.0 freezegun==1.2.2; do
    dir=$("$PYTHON" -c 'import os, sys
print(os.path.join(os.environ.get("MONOSTAMP_OLD_TOOLS") or os.path.join(
    os.path.expanduser("~"), ".cache", "monostamp", "old-tools"),
    sys.argv[1], sys.implementation.cache_tag))' "$req")
    [ -f "$dir/.complete" ] && continue
    echo "install-deps: installing $req for $PYTHON into $dir"
    rm -rf "$dir.part"
    # Made aside and renamed: a run cut short leaves no half directory.
    if "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-deps \
            --target "$dir.part" "$req" && touch "$dir.part/.complete"; then
        rm -rf "$dir" && mv "$dir.part" "$dir"
    else
        rm -rf "$dir.part"
        # time-machine 2.10 was built for CPython <= 3.12; its tests skip
        # on a newer one, and fail where it should have installed.
        echo "install-deps: $req is not installable for $PYTHON" >&2
        "$PYTHON" -c 'import sys; sys.exit(sys.version_info >= (3, 13))' && exit 1
    fi
done
exit 0
