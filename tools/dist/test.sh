#!/usr/bin/env bash
# tools/dist/test.sh BUILD DIST: make test-dist.  Installs what make dist
# wrote, each in a fresh venv where no compiler is reachable, and tests it:
#
#   - every x86_64 wheel: the whole Python suite (the sdist's own tests/;
#     DIST_TEST_FULL="3.10 3.15" narrows that to those, smoke tests the rest),
#     3.10-3.13 on the machine's interpreters with a PATH that holds no
#     compiler and CC=/bin/false, 3.14 and 3.15 in the forky chroot, which
#     has none at all (tools/chroot/chroot.sh);
#   - every aarch64 wheel that Debian has an arm64 CPython for (3.11 in
#     bookworm, 3.13-3.15 in forky; not 3.10, 3.12): tools/dist/smoke.py in
#     an arm64 chroot under qemu-user; DIST_AARCH64_FULL=3.13 (by hand)
#     adds the whole suite on that version there, MONOSTAMP_TEST_EMULATED
#     set, so tests that need native speed skip saying so;
#   - the x86_64 cp311 wheel's speed, after its suite: the perf gate's
#     counts against the sdist built here with gcc (tools/dist/perf.py;
#     valgrind needed);
#   - the sdist: built and installed by pip with this machine's compiler in
#     a venv without pytest-xdist, and its suite run there (the xdist tests
#     skip; the wheels' runs, with xdist, run them).
#
# Everything is installed with pip --no-index --only-binary=:all:: the
# wheel from DIST, the test dependencies (pytest, hypothesis, pytest-xdist,
# freezegun, time-machine, mypy, Django) from a wheelhouse that pip downloads here
# for each CPython and architecture; one with no wheel for it is left out
# and its tests skip with their reason.  DIST_TEST_PYTHONS and
# DIST_TEST_ARCHES narrow the run, DIST_TEST_SDIST=0 leaves the sdist out,
# DIST_TEST_PYTEST_ARGS go to each wheel's suite's pytest (default -n 2; split at
# blanks, quotes not honoured: -k "a or b" cannot pass, -k truncation can);
# MONOSTAMP_TEST_SCALE (default 0.1, as in make test-pythons) shortens the
# heavy tests' loops.  Needs root (the chroots).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=${1:-build}
DIST=$(cd "${2:-dist}" && pwd)
PYTHONS=${DIST_TEST_PYTHONS:-3.10 3.11 3.12 3.13 3.14 3.15}
ARCHES=${DIST_TEST_ARCHES:-x86_64 aarch64}
FULL_AARCH64=${DIST_AARCH64_FULL:-}
# As make test-pythons runs its versions: the heavy tests' loops at a tenth,
# two xdist workers (the sdist's run, without xdist, takes no -n).
SCALE=${MONOSTAMP_TEST_SCALE:-0.1}
PYTEST_ARGS=${DIST_TEST_PYTEST_ARGS:--n 2}
TEST_REQS="pytest hypothesis pytest-xdist freezegun time-machine mypy"
. tools/chroot/chroot.sh
. tools/dist/tools-venv.sh

say() { echo "test-dist: $*"; }
die() { echo "test-dist: $*" >&2; exit 1; }
started=$SECONDS
# One run at a time mounts into the chroots (a second would unmount the
# first's mounts when it starts).
chroot_root || exit 1
exec 8>"$CHROOT_CACHE/test-dist.lock"
flock -n 8 || { say "waiting for another run's lock on $CHROOT_CACHE/test-dist.lock"; flock 8; }
# What a killed run left mounted (no other run holds the lock); not under a
# NAME.tmp, a chroot that make dist may be building now (its builder, which
# holds that chroot's lock, unmounts there itself).
for m in $(awk -v d="$CHROOT_CACHE/dist-" 'index($2, d) == 1 && $2 !~ /\.tmp\// { print $2 }' /proc/self/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m"
done
mkdir -p "$BUILD"
T="$(cd "$BUILD" && pwd)/dist-test"
rm -rf "$T"
mkdir -p "$T"
trap 'chroot_unmount_all' EXIT
trap 'echo "test-dist: interrupted" >&2; exit 130' INT TERM HUP

tools=$(dist_tools_venv "$BUILD/dist/tools") || die "could not make the tools venv"
VERSION=$(python3 tools/ext_build.py version)
sdist="$DIST/monostamp-$VERSION.tar.gz"
[ -f "$sdist" ] || die "no $sdist: run make dist first"
# The tests as a user gets them: the sdist's tree (no build/ of ours).
tar xzf "$sdist" -C "$T" && mv "$T/monostamp-$VERSION" "$T/src" || die "could not unpack $sdist"

results=()
failed=0
record() { # name status seconds summary [log]
    if [ "$2" = 0 ]; then results+=("passed  $1 ($3 s): $4"); return; fi
    results+=("FAILED  $1 ($3 s): $4")
    failed=1
    # The failing tests by name, so that the summary, the last thing a CI
    # log shows, says which ones (the tracebacks are in the log).
    local line
    if [ -n "${5:-}" ]; then
        while IFS= read -r line; do
            results+=("          ${line:0:300}")
        done < <(grep -E '^(FAILED|ERROR) ' "$5" | head -n 20)
    fi
}
summary_of() { # log -> pytest's or the smoke test's last line
    grep -E '(passed|failed|error)' "$1" | tail -n 1 | sed 's/^=* *//; s/ *=*$//'
}

# A directory of every command on this machine but the compilers, for PATH.
NOCC="$T/nocc-bin"
mkdir -p "$NOCC"
for d in /usr/local/bin /usr/bin /bin; do
    for f in "$d"/*; do
        b=${f##*/}
        case "$b" in
            cc|c89|c99|c++|cpp|gcc|gcc-*|g++|g++-*|clang|clang-*|clang++*|tcc|zig|*-gcc|*-gcc-*|*-g++|*-g++-*|*-cc|*-c++|*-cpp|*-cpp-*|*-clang*) continue ;;
        esac
        [ -x "$f" ] && [ ! -e "$NOCC/$b" ] && ln -s "$f" "$NOCC/$b"
    done
done

# wheelhouse X.Y ARCH [PYTHON]: the test dependencies' wheels for that
# CPython, downloaded by PYTHON's own pip when it runs here (which reads the
# requirements' markers, such as exceptiongroup's for 3.10, as it will),
# else by the tools' pip for that version and platform (a CPython 3.11,
# whose markers answer as 3.11 and later ones do for every dependency here).
wheelhouse() {
    local v=$1 arch=$2 dir="$T/wheelhouse/cp${1/./}-$2" req how=() g
    mkdir -p "$dir"
    if [ -n "${3:-}" ]; then
        how=("$3" -m pip download)
    else
        how=("$tools/bin/python" -m pip download --python-version "$v" --implementation cp)
        for g in $(seq 17 41); do how+=(--platform "manylinux_2_${g}_$arch"); done
    fi
    # Django (test_django.py), pinned as tools/install-deps.sh pins it.
    local django=django==5.2.20
    [ "${v#3.}" -ge 12 ] && django=django==6.1.3
    for req in $TEST_REQS $django; do
        "${how[@]}" --quiet --disable-pip-version-check --only-binary=:all: -d "$dir" "$req" \
            >>"$dir.log" 2>&1 || say "no wheel of $req for CPython $v ($arch): its tests skip" >&2
    done
    echo "$dir"
}

# The commands a run does inside its venv, the same on the host and in a
# chroot: make the venv, install (no index, wheels only), prove no
# compiler is reachable, then the suite or the smoke test.
# Under qemu (PIP_DIR set: tools/chroot/chroot.sh's chroot_native_pip) the venv
# is made without pip and Debian's pip runs from PIP_DIR, the test
# dependencies installed without byte-compiling them (each module compiles
# as it is imported).
INSTALL_AND_RUN='set -e
py=$1 venv=$2 house=$3 what=$4
if [ -n "${PIP_DIR:-}" ]; then
    "$py" -m venv --without-pip "$venv"
    pip() { PYTHONPATH=$PIP_DIR "$venv/bin/python" -m pip "$@"; }
    nocompile=--no-compile
else
    "$py" -m venv "$venv"
    pip() { "$venv/bin/python" -m pip "$@"; }
    nocompile=
fi
pip install --quiet --disable-pip-version-check --no-index --only-binary=:all: \
    --find-links "$DIST_DIR" monostamp
if [ "$what" != smoke ]; then
    reqs=$(ls "$house" | sed -n "s/^\([A-Za-z0-9_.]*\)-[0-9].*\.whl$/\1/p" | tr _ - | sort -u)
    pip install --quiet --disable-pip-version-check --no-index --only-binary=:all: $nocompile \
        --find-links "$house" $reqs
fi
for c in cc gcc clang c99 "$CC"; do
    if command -v "$c" >/dev/null 2>&1 && [ "$c" != /bin/false ]; then echo "a compiler is reachable: $c"; exit 1; fi
done
"$venv/bin/python" -c "import sysconfig, shutil, sys; cc = (sysconfig.get_config_var(\"CC\") or \"cc\").split()[0]; sys.exit(\"sysconfig CC %s is reachable\" % cc if shutil.which(cc) else 0)"
echo "no compiler reachable (PATH=$PATH, CC=$CC); installed: $(pip list --format=freeze 2>/dev/null | tr "\n" " ")"
cd /
if [ "$what" = smoke ]; then
    "$venv/bin/python" "$SRC_DIR/../dist-smoke.py" "$VERSION"
else
    cd "$SRC_DIR/tests/python"
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -rfEs $PYTEST_ARGS
fi'
cp tools/dist/smoke.py "$T/dist-smoke.py"

run_host() { # X.Y what
    local v=$1 what=$2 py log t tag="cp${1/./}"
    log="$T/$tag-x86_64-$what.log"
    t=$SECONDS
    py=$(for p in "$HOME"/.pyenv/versions/"$v".*/bin/python"$v" /usr/bin/python"$v"; do [ -x "$p" ] && echo "$p" && break; done)
    if [ -z "$py" ]; then record "$tag x86_64 $what" 1 0 "no CPython $v here"; return; fi
    house=/nonexistent  # the smoke test needs no test dependency
    [ "$what" = smoke ] || house=$(wheelhouse "$v" x86_64 "$py")
    say "$tag x86_64: $what on the host ($py), log $log"
    env -i HOME="$T/home" PATH="$NOCC" CC=/bin/false CXX=/bin/false LANG=C.UTF-8 MONOSTAMP_TEST_SCALE="$SCALE" \
        PYTEST_ARGS="$PYTEST_ARGS" \
        DIST_DIR="$DIST" SRC_DIR="$T/src" VERSION="$VERSION" \
        bash -c "$INSTALL_AND_RUN" run "$py" "$T/venv-$tag-x86_64" "$house" "$what" >"$log" 2>&1
    local rc=$?
    tail -n 3 "$log"
    record "$tag x86_64 $what (host)" $rc $((SECONDS - t)) "$(summary_of "$log")" "$log"
}

run_chroot() { # X.Y arch what chroot-function [emulated]
    local v=$1 arch=$2 what=$3 tag="cp${1/./}" log t root
    log="$T/$tag-$arch-$what.log"
    t=$SECONDS
    if ! "$4" >>"$T/chroots.log" 2>&1; then
        tail -n 5 "$T/chroots.log"
        record "$tag $arch $what" 1 $((SECONDS - t)) "no chroot"
        return
    fi
    root=$CHROOT
    house=/nonexistent  # the smoke test needs no test dependency
    [ "$what" = smoke ] || house=$(wheelhouse "$v" "$arch")
    chroot_mount_system "$root" && chroot_mount "$root" --bind "$T" /dist-test &&
        chroot_mount "$root" --bind "$DIST" /dist-test/dist || { chroot_unmount_all; record "$tag $arch $what" 1 0 "mount failed"; return; }
    say "$tag $arch: $what in $(basename "$root")${5:+ under $5}, log $log"
    chroot "$root" /usr/bin/env -i HOME=/tmp PATH=/usr/local/bin:/usr/bin:/bin CC=/bin/false CXX=/bin/false \
        LANG=C.UTF-8 MONOSTAMP_TEST_SCALE="$SCALE" PYTEST_ARGS="$PYTEST_ARGS" MONOSTAMP_TEST_EMULATED="${5:-}" \
        PIP_DIR="${5:+/opt/pip}" DIST_DIR=/dist-test/dist SRC_DIR=/dist-test/src \
        VERSION="$VERSION" /bin/bash -c "$INSTALL_AND_RUN" run "/usr/bin/python$v" \
        "/tmp/venv-$tag-$arch-$what" "/dist-test/wheelhouse/$tag-$arch" "$what" >"$log" 2>&1
    local rc=$?
    chroot "$root" rm -rf "/tmp/venv-$tag-$arch-$what"
    chroot_unmount_all
    tail -n 3 "$log"
    record "$tag $arch $what (${4#dist_})" $rc $((SECONDS - t)) "$(summary_of "$log")" "$log"
}

# The whole suite on the x86_64 wheels of DIST_TEST_FULL (default: every
# version; CI runs it so, in place of make test-pythons), the smoke test on
# the others (it still proves a wheel installs and loads with no compiler).
x86_64_run() { # X.Y -> suite or smoke
    case " ${DIST_TEST_FULL-$PYTHONS} " in *" $1 "*) echo suite ;; *) echo smoke ;; esac
}

for arch in $ARCHES; do
    for v in $PYTHONS; do
        tag="cp${v/./}"
        if ! ls "$DIST"/monostamp-"$VERSION"-"$tag"-"$tag"-*"$arch".whl >/dev/null 2>&1; then
            record "$tag $arch" 1 0 "no wheel in $DIST"
            continue
        fi
        case "$arch/$v" in
            x86_64/3.14|x86_64/3.15) run_chroot "$v" x86_64 "$(x86_64_run "$v")" dist_forky_amd64 ;;
            x86_64/*) run_host "$v" "$(x86_64_run "$v")" ;;
            aarch64/3.11) run_chroot "$v" aarch64 smoke dist_bookworm_arm64 qemu-user ;;
            aarch64/3.13|aarch64/3.14|aarch64/3.15)
                run_chroot "$v" aarch64 smoke dist_forky_arm64 qemu-user
                [ "$v" = "$FULL_AARCH64" ] && run_chroot "$v" aarch64 suite dist_forky_arm64 qemu-user ;;
            aarch64/*) results+=("not run $tag aarch64: Debian has no arm64 CPython $v to run it (built and checked by auditwheel only)") ;;
        esac
    done
done

# ---------------------------------------------------------------- speed
# The x86_64 cp311 wheel, once its tests have passed in its venv, against
# the sdist built by pip with this machine's gcc for the same CPython, in a
# venv beside it: tools/dist/perf.py runs the perf gate on both and fails
# when a path's count, as a ratio to its anchor, is more than 2 % over the
# build's, so that a wheel compiled slower than a `pip install .` is
# caught.  Here, not in the compiler-free venv: the gate needs valgrind
# and a C compiler, and it counts instructions, which PATH does not change.
perf_wheel() {
    local t=$SECONDS log="$T/cp311-x86_64-perf.log" py rc
    py=$(for p in "$HOME"/.pyenv/versions/3.11.*/bin/python3.11 /usr/bin/python3.11; do [ -x "$p" ] && echo "$p" && break; done)
    if ! command -v valgrind >/dev/null 2>&1; then
        record "cp311 x86_64 speed against a build here" 1 0 "no valgrind (make deps installs it)"
        return
    fi
    say "cp311 x86_64: the wheel's counts against the sdist built here ($py), log $log"
    (
        set -e
        "$py" -m venv "$T/venv-cp311-gccbld"
        "$T/venv-cp311-gccbld/bin/python" -m pip install --quiet --disable-pip-version-check \
            --no-binary monostamp "$sdist"
        python3 tools/dist/perf.py "$BUILD" "$T/venv-cp311-x86_64/bin/python" "$T/venv-cp311-gccbld/bin/python"
    ) >"$log" 2>&1
    rc=$?
    grep -E '^(\||dist-perf: .* (slower|over))' "$log"
    record "cp311 x86_64 speed against a build here" $rc $((SECONDS - t)) \
        "$(grep -c 'slower than the build here' "$log") of $(grep -cE '^\| .*\| [0-9.]+ \|$' "$log") paths over" "$log"
}
case " $ARCHES " in
    *" x86_64 "*)
        case " $PYTHONS " in
            *" 3.11 "*)
                if [ -x "$T/venv-cp311-x86_64/bin/python" ] &&
                    printf '%s\n' "${results[@]}" | grep -Eq '^passed  cp311 x86_64 (suite|smoke)'; then
                    perf_wheel
                else
                    results+=("not run cp311 x86_64 speed: its wheel did not pass its tests here")
                fi ;;
        esac ;;
esac

# ---------------------------------------------------------------- the sdist
if [ "${DIST_TEST_SDIST:-1}" = 0 ]; then
    results+=("not run the sdist's install and suite (DIST_TEST_SDIST=0)")
else
t=$SECONDS
log="$T/sdist.log"
say "the sdist: pip builds it with the machine's compiler, suite without pytest-xdist, log $log"
(
    set -e
    python3 -m venv "$T/venv-sdist"
    "$T/venv-sdist/bin/python" -m pip install --quiet --disable-pip-version-check --no-binary monostamp \
        "$sdist"
    reqs=$(echo "$TEST_REQS" | tr ' ' '\n' | grep -vx pytest-xdist)
    reqs="$reqs $(python3 -c 'import sys; print("django==6.1.3" if sys.version_info >= (3, 12) else "django==5.2.20")')"
    "$T/venv-sdist/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: $reqs
    ! "$T/venv-sdist/bin/python" -c 'import xdist' 2>/dev/null
    cd "$T/src/tests/python"
    MONOSTAMP_TEST_SCALE="$SCALE" "$T/venv-sdist/bin/python" -m pytest -q -p no:cacheprovider -rfEs
) >"$log" 2>&1
rc=$?
tail -n 3 "$log"
record "sdist, built here, without pytest-xdist" $rc $((SECONDS - t)) "$(summary_of "$log")" "$log"
fi

echo
say "summary ($((SECONDS - started)) s)"
printf 'test-dist: %s\n' "${results[@]}"
exit $failed
