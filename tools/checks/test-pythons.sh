#!/bin/sh
# Builds and tests the Python binding on every CPython >= 3.10 on this
# machine (pyenv's versions and python3.X on PATH), each in its own venv
# under build/pyvenv-X.Y, with pytest, hypothesis and pytest-xdist there.
#
# Kept lean for CI: each suite runs on two xdist workers, and the heavy
# tests (threads, the leak loop) at a tenth of their size
# (MONOSTAMP_TEST_SCALE, default 0.1); `make test-python` runs them in full,
# serially, on the default interpreter.  Set PYTHONS to a list of
# interpreters to test those only.
#
# Each venv builds its own monostamp._monostamp: one extension per CPython
# version, on the full C API (docs/python.md says why).
set -eu

cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SCALE=${MONOSTAMP_TEST_SCALE:-0.1}

candidates() {
    if [ -n "${PYTHONS:-}" ]; then
        echo "$PYTHONS" | tr ' ' '\n'
        return
    fi
    pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
    for p in "$pyenv_root"/versions/3.*/bin/python3; do
        [ -x "$p" ] && echo "$p"
    done
    for minor in 10 11 12 13 14 15; do
        command -v "python3.$minor" 2>/dev/null || true
    done
}

seen=" "
passed=""
failed=""
for py in $(candidates); do
    # CPython 3.10+ only (requires-python), one interpreter per X.Y (and per
    # free-threading).
    tag=$("$py" -c 'import sys, sysconfig
ok = sys.implementation.name == "cpython" and sys.version_info >= (3, 10)
ft = "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
print("%d.%d%s" % (sys.version_info[:2] + (ft,)) if ok else "")' 2>/dev/null || true)
    [ -n "$tag" ] || continue
    case "$seen" in *" $tag "*) continue ;; esac
    seen="$seen$tag "

    venv="$ROOT/build/pyvenv-$tag"
    echo "== Python $tag ($py)"
    if [ ! -x "$venv/bin/python" ]; then
        "$py" -m venv "$venv"
    fi
    vpy="$venv/bin/python"
    if ! "$vpy" -c 'import pytest, hypothesis, xdist' 2>/dev/null; then
        "$vpy" -m pip install --quiet --disable-pip-version-check pytest hypothesis pytest-xdist
    fi
    # Optional: the tests of monostamp.patch() against time-machine and
    # freezegun skip without them, so a failed install is no failure.
    if ! "$vpy" -c 'import time_machine, freezegun' 2>/dev/null; then
        "$vpy" -m pip install --quiet --disable-pip-version-check time-machine freezegun ||
            echo "test-pythons: time-machine/freezegun not installable for $tag; their tests skip"
    fi
    # Django for test_django.py (skips without it): pinned as install-deps.sh pins it.
    if ! "$vpy" -c 'import django' 2>/dev/null; then
        "$vpy" -m pip install --quiet --disable-pip-version-check "$("$vpy" -c 'import sys
print("django==6.1.3" if sys.version_info >= (3, 12) else "django==5.2.20")')" ||
            echo "test-pythons: Django not installable for $tag; test_django.py skips"
    fi
    if "$vpy" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps . &&
       (cd tests/python && MONOSTAMP_TEST_SCALE=$SCALE "$vpy" -m pytest -q -p no:cacheprovider -n 2 \
            -W ignore::DeprecationWarning); then
        passed="$passed $tag"
    else
        failed="$failed $tag"
    fi
done

echo "test-pythons: passed:${passed:- none}; failed:${failed:- none}"
[ -z "$failed" ] && [ -n "$passed" ]
