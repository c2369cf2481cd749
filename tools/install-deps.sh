#!/bin/sh
# tools/install-deps.sh TARGET...: installs what the named make targets
# need and this machine lacks, and nothing else: Debian packages with
# apt-get, Python packages with pip.  Every target of the Makefile runs it
# first with its own name (the Makefile's deps-% rule), so `make test`
# installs no Wine and `make dist` for one wheel no Lua.  Says what it
# installs; does nothing when everything is present.
#
#   tools/install-deps.sh test-lua53     what make test-lua53 needs
#   tools/install-deps.sh everything     what every target needs (make deps)
#   tools/install-deps.sh --python       the Python packages alone, for
#                                        PYTHON (the forky chroot's venvs)
#
# Installing a Lua never changes which `lua` the machine runs: Debian's
# lua5.3 takes the `lua` alternative from lua5.4 (priority 120 against 20),
# so the lua-* alternatives are put back as they were (keep_lua below).
# MONOSTAMP_DEPS_DONE=1 (set by make test for its suites, once it has
# installed what they all need) makes it return at once.
set -eu

PYTHON=${PYTHON:-python3}
ALTERNATIVES=${MONOSTAMP_UPDATE_ALTERNATIVES:-update-alternatives}

# ---------------------------------------------------------------- which `lua`
# lua_selections: "group value" for each lua-* alternative (lua-interpreter
# is /usr/bin/lua, lua-compiler /usr/bin/luac, and the pkg-config ones).
lua_selections() {
    $ALTERNATIVES --get-selections 2>/dev/null | awk '$1 ~ /^lua-/ { print $1, $3 }'
}
# keep_lua BEFORE: each lua-* group back to BEFORE's value (in manual mode,
# so a later package does not move it again); a group BEFORE lacks, which
# the install made, removed: no `lua` before means no `lua` after.
keep_lua() {
    lua_selections | while read -r group now; do
        was=$(printf '%s\n' "$1" | awk -v g="$group" '$1 == g { print $2 }')
        if [ -z "$was" ]; then
            echo "install-deps: keeping the machine without a $group alternative"
            $ALTERNATIVES --quiet --remove-all "$group"
        elif [ "$was" != "$now" ]; then
            echo "install-deps: keeping $group at $was (the install chose $now)"
            $ALTERNATIVES --quiet --set "$group" "$was"
        fi
    done
}
# Sourced by a test with MONOSTAMP_DEPS_FUNCTIONS=1: the functions above alone.
[ -z "${MONOSTAMP_DEPS_FUNCTIONS:-}" ] || return 0

# ---------------------------------------------------------------- Debian
# Debian package, and a command or file that proves it is present.
debs=""
need_deb() { # package probe
    case "$2" in
        /*) [ -e "$2" ] && return 0 ;;
        *) command -v "$2" >/dev/null 2>&1 && return 0 ;;
    esac
    case " $debs " in *" $1 "*) ;; *) debs="$debs $1" ;; esac
}
install_debs() {
    [ -n "$debs" ] || return 0
    echo "install-deps: installing Debian packages:$debs"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    before=$(lua_selections)
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $debs >/dev/null
    ALTERNATIVES="$sudo $ALTERNATIVES" keep_lua "$before"
}

# One function per job: the Debian packages it needs.
deb_c() { need_deb gcc gcc; need_deb make make; need_deb pkg-config pkg-config; need_deb tzdata /usr/share/zoneinfo/Europe/Berlin; }
deb_cxx() { need_deb g++ g++; need_deb clang clang; }
deb_lua() {
    need_deb lua5.4 lua5.4
    need_deb liblua5.4-dev /usr/include/lua5.4/lua.h
    need_deb lua-busted /usr/bin/busted
    need_deb lua-socket /usr/share/lua/5.4/socket.lua
}
deb_lua53() { need_deb lua5.3 lua5.3; need_deb liblua5.3-dev /usr/include/lua5.3/lua.h; }
deb_luarocks() { need_deb luarocks luarocks; }
# luajit: Debian's, or luajit2 (OpenResty's branch, also /usr/bin/luajit)
# once its library is installed: libnginx-mod-http-lua (make test-nginx)
# needs libluajit2-5.1-2, which conflicts with luajit's library, so
# installing luajit there would remove the nginx module.
deb_luajit() {
    luajit_deb=luajit
    if dpkg-query -W -f='${Status}\n' libluajit2-5.1-2 2>/dev/null | grep -q 'ok installed'; then
        luajit_deb=luajit2
    fi
    need_deb "$luajit_deb" luajit
    need_deb lua-busted /usr/bin/busted
}
# libfaketime steps the wall clock under a child (tests/python/test_wall_step.py).
deb_python() { need_deb faketime faketime; }
# valgrind: make test-perf counts instructions with callgrind.
deb_perf() { need_deb valgrind valgrind; }
deb_fuzz() {
    need_deb clang clang
    need_deb libclang-rt-14-dev /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
}
# Wine runs the mingw-built C tests (make test-windows); ~20 s to install.
deb_mingw() { need_deb gcc-mingw-w64-x86-64-posix x86_64-w64-mingw32-gcc; }
deb_wine() { need_deb wine wine; need_deb wine64 /usr/lib/wine/wine64; }
# make dist: the wheels' gcc, the aarch64 cross gcc when DIST_ARCHES
# (default x86_64 aarch64) has aarch64, mingw-w64 for the Windows wheel
# unless DIST_NO_WINDOWS is set; its pinned tools go in a venv of their own
# (tools/dist/tools-venv.sh).
deb_dist() {
    need_deb gcc gcc
    case " ${DIST_ARCHES:-x86_64 aarch64} " in
        *" aarch64 "*) need_deb gcc-aarch64-linux-gnu aarch64-linux-gnu-gcc ;;
    esac
    [ -n "${DIST_NO_WINDOWS:-}" ] || deb_mingw
}
# make test-nginx: Debian's nginx with libnginx-mod-http-lua, and wrk.  The
# Lua module needs libluajit2, which conflicts with Debian's luajit, so
# luajit2 comes in the same apt transaction (install_debs installs all at
# once) to keep /usr/bin/luajit.
deb_nginx() {
    need_deb nginx /usr/sbin/nginx
    need_deb libnginx-mod-http-lua /usr/lib/nginx/modules/ngx_http_lua_module.so
    if ! dpkg-query -W -f='${Status}\n' luajit2 2>/dev/null | grep -q 'ok installed'; then
        debs=$(echo " $debs " | sed 's/ luajit / /')  # deb_luajit's, which luajit2 replaces
        debs="$debs luajit2"
    fi
    need_deb wrk wrk
}
# The chroots (tools/chroot/chroot.sh): mmdebstrap, and qemu-user for the
# arm64 ones.
deb_chroot() { need_deb mmdebstrap mmdebstrap; }
# make docs: Debian's chromium loads the built site (tools/docs/browser_check.py);
# venv for the generator's own venv (tools/docs/build.sh pip-installs its
# pinned packages there).
deb_docs() {
    need_deb chromium chromium
    "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || debs="$debs python3-venv"
}
deb_qemu() { need_deb qemu-user-static /usr/libexec/qemu-binfmt/aarch64-binfmt-P; need_deb binfmt-support update-binfmts; }

# ---------------------------------------------------------------- targets
# target_jobs TARGET: the jobs a make target needs ("python" also means the Python
# packages below).  A target missing here fails, so a new one gets a line.
NATIVE_JOBS="c cxx lua luajit luarocks python perf"
target_jobs() {
    case "$1" in
        everything) echo "$NATIVE_JOBS lua53 fuzz mingw wine dist chroot qemu nginx docs" ;;
        test | test-all | test-release) echo "$NATIVE_JOBS" ;;
        all | lib | install | test-c | test-asan | test-tsan | test-install | test-preload | \
            test-preload-asan | test-preload-tsan | test-tzrule-full | bench-preload) echo c ;;
        test-header) echo "c cxx python" ;;
        test-cxx) echo "c cxx" ;;
        lua) echo "c lua" ;;
        test-exports) echo "c lua luarocks luajit python" ;;
        test-python | test-pythons | test-python-tsan | soak | test-soak) echo "c lua python" ;;
        test-lua | test-lua-asan) echo "c lua python" ;;
        test-luajit) echo "c lua luajit" ;;
        test-perf) echo "c lua python perf" ;;
        test-lua53) echo "c lua53" ;;
        test-fuzz | fuzz) echo "c fuzz" ;;
        test-windows) echo "c mingw wine python setuptools" ;;
        windows-wheel) echo "mingw setuptools" ;;
        dist) echo "dist" ;;
        test-dist) echo "chroot qemu" ;;
        test-forky | test-pypy) echo "chroot" ;;
        test-nginx) echo "c python nginx" ;;
        bench-nginx) echo "c" ;;  # it skips, saying so, without nginx (make test-nginx installs it)
        test-real-suites | bench-real-suites | test-real-time-machine) echo "python" ;;
        demo | bench | bench-sleep) echo "c cxx lua luajit python" ;;
        docs) echo "c lua docs setuptools" ;;
        test-markdown) echo "" ;;  # the standard library alone
        *) echo "install-deps: no entry for make target '$1' in tools/install-deps.sh's target_jobs(): add one" >&2
           return 1 ;;
    esac
}

[ $# -gt 0 ] || { echo "usage: tools/install-deps.sh TARGET... | everything | --python" >&2; exit 2; }
want=""
if [ "$1" = --python ]; then
    want=pips
elif [ "$1" = --dist ]; then  # the name tools/dist/build.sh used
    want=dist
else
    [ -z "${MONOSTAMP_DEPS_DONE:-}" ] || exit 0
    for target in "$@"; do
        j=$(target_jobs "$target") || exit 1
        want="$want $j"
    done
fi
for job in $want; do
    case "$job" in pips | setuptools) ;; *) "deb_$job" ;; esac
done
install_debs

# setuptools 77 or later alone (for PYTHON): the wheel's metadata comes
# from it (tools/dist/pack_wheel.py), as pip's builds read pyproject.toml's
# SPDX license string with it.
need_setuptools() {
    "$PYTHON" -c 'import setuptools, sys
sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null && return 0
    echo "install-deps: installing setuptools>=77 for $PYTHON"
    "$PYTHON" -m pip install --quiet --disable-pip-version-check 'setuptools>=77'
}
case " $want " in
    *" python "* | *" pips "*) ;;
    *" setuptools "*) need_setuptools; exit 0 ;;
    *) exit 0 ;;
esac

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
