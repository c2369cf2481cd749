#!/usr/bin/env bash
# forky-suites.sh: run by tools/chroot/test-forky.sh inside its Debian testing
# chroot, from the copy of the checkout in /src/monostamp.
#
#   - each CPython of FORKY_PYTHONS (default 3.14 3.15) in its own venv
#     (/opt/monostamp-venvs/X.Y, kept in the cached chroot, with what
#     tools/install-deps.sh --python installs, and time-machine and
#     freezegun when they install: without them their interop tests skip,
#     as in tools/checks/test-pythons.sh): `make test-python`, the
#     default interpreter's whole suite (the build's warning check, pytest,
#     stubtest, the docs' snippets under mypy), then
#     tools/checks/test-python-subinterp-san.sh (isolated interpreters, the
#     extension built with ASan+UBSan and with TSan);
#   - each Lua of FORKY_LUAS (default lua5.5): `make test-lua`, every
#     busted spec, the module built against that Lua's headers; their
#     Python children run the first venv that monostamp installed into.
#
# Each suite runs in a BUILD of its own even when another failed; the last
# lines say which passed, and the exit status is 1 if any did not.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
PYTHONS=${FORKY_PYTHONS-3.14 3.15}
LUAS=${FORKY_LUAS-lua5.5}
VENVS=/opt/monostamp-venvs
# The chroot holds what the targets need (FORKY_PACKAGES, the venvs below):
# their own tools/install-deps.sh calls have nothing to install here.
export MONOSTAMP_DEPS_DONE=1

results=()
failed=0
record() { # name status seconds
    if [ "$2" = 0 ]; then
        results+=("passed  $1 ($3 s)")
    else
        results+=("FAILED  $1 ($3 s)")
        failed=1
    fi
}
banner() { printf '\n==== test-forky: %s\n' "$*"; }

# A venv is complete once its marker holds what it was made from; a
# half-made one, or one made from another install-deps.sh, is redone.
OPTIONAL="time-machine freezegun"
venv_for() { # X.Y -> prints the venv's python
    local dir="$VENVS/$1" made
    made="$(sha256sum tools/install-deps.sh | cut -c1-16) $OPTIONAL"
    if [ "$(cat "$dir/.complete" 2>/dev/null)" != "$made" ]; then
        rm -rf "$dir"
        "python$1" -m venv "$dir" >&2 &&
            PYTHON="$dir/bin/python" tools/install-deps.sh --python >&2 || return 1
        # shellcheck disable=SC2086
        "$dir/bin/python" -m pip install --quiet $OPTIONAL >&2 ||
            echo "test-forky: $OPTIONAL not installable for $1; their tests skip" >&2
        echo "$made" >"$dir/.complete"
    fi
    echo "$dir/bin/python"
}

# FORKY_RUN="command": instead of the suites, this tree installed into each
# CPython's venv (no wheel, no checks) and the command run by bash with PY
# naming that venv's python: a quick look at one thing on 3.14/3.15.
if [ -n "${FORKY_RUN:-}" ]; then
    for v in $PYTHONS; do
        banner "CPython $v: $FORKY_RUN"
        py=$(venv_for "$v") || exit 1
        "$py" -m pip install --quiet --no-build-isolation --force-reinstall --no-deps . || exit 1
        PY=$py bash -c "$FORKY_RUN" || failed=1
    done
    exit $failed
fi

lua_python=""
for v in $PYTHONS; do
    banner "CPython $v: make test-python"
    t=$SECONDS
    if py=$(venv_for "$v"); then
        "$py" -VV
        # The venv outlives the run: no earlier run's monostamp may stand in
        # for a build that fails now.
        "$py" -m pip uninstall --yes --quiet monostamp 2>/dev/null
        make --no-print-directory test-python PYTHON="$py" BUILD="build-py$v"
        status=$?
        # Isolated interpreters under their own GILs, with the extension
        # built with ASan+UBSan and with TSan.
        PYTHON="$py" tools/checks/test-python-subinterp-san.sh "build-py$v" || status=1
        if [ -z "$lua_python" ] && (cd / && "$py" -c 'import monostamp') 2>/dev/null; then
            lua_python=$py
        fi
    else
        echo "test-forky: no venv for python$v" >&2
        status=1
    fi
    record "CPython $("python$v" -c 'import platform; print(platform.python_version())' 2>/dev/null || echo "$v"): make test-python" \
        "$status" $((SECONDS - t))
done

for lua in $LUAS; do
    banner "$lua: make test-lua"
    t=$SECONDS
    "$lua" -v
    make --no-print-directory test-lua LUA="$lua" BUILD="build-$lua" PYTHON="${lua_python:-python3}"
    status=$?
    record "$("$lua" -v 2>&1 | awk '{print $1, $2}'): make test-lua" "$status" $((SECONDS - t))
done

banner "summary (tzdata $(dpkg-query -W -f='${Version}' tzdata))"
printf 'test-forky: %s\n' "${results[@]}"
exit $failed
