#!/usr/bin/env bash
# pypy-suite.sh: run by tools/chroot/test-forky.sh (make test-pypy) inside
# its Debian testing chroot, from the copy of the checkout in /src/monostamp.
# `pip install .` of the tree into a PyPy venv (the cffi binding: setup.py
# picks it on PyPy), then tests/python there, with the Lua module built for
# the tests that start a Lua child.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The chroot holds what the targets need (FORKY_PACKAGES): their own
# tools/install-deps.sh calls have nothing to install here.
export MONOSTAMP_DEPS_DONE=1
VENV=/opt/monostamp-venvs/pypy3
# The test dependencies as wheels (a newer sdist may be all the index has
# for PyPy, and building one may need the network); Django pinned as
# tools/install-deps.sh pins it for 3.11.  time-machine refuses PyPy.
# setuptools builds the tree without build isolation, as make test-python
# does: the metadata test compares what it writes with tools/dist's.
DEPS="setuptools>=77 pytest hypothesis pytest-xdist freezegun django==5.2.20"
if [ "$(cat "$VENV/.complete" 2>/dev/null)" != "$DEPS" ]; then
    rm -rf "$VENV"
    pypy3 -m venv "$VENV"
    # shellcheck disable=SC2086
    "$VENV/bin/pip" install --quiet --only-binary :all: $DEPS
    echo "$DEPS" >"$VENV/.complete"
fi
"$VENV/bin/python" -VV
make --no-print-directory lua BUILD=build-pypy >/dev/null
"$VENV/bin/pip" uninstall --yes --quiet monostamp 2>/dev/null || true
"$VENV/bin/pip" install --quiet --no-build-isolation .
# FORKY_RUN="command": instead of the suite, the command run by bash with PY
# naming the PyPy venv's python, as forky-suites.sh does for each CPython
# (FORKY_RUN='$PY bench/python/bench_pypy.py' make test-pypy: the benchmark).
if [ -n "${FORKY_RUN:-}" ]; then
    PY="$VENV/bin/python" bash -c "$FORKY_RUN"
    exit
fi
# A CPython beside it (the C extension of the same tree), for the test of
# one state file shared by PyPy, CPython and Lua (test_pypy_shared.py).
CPYTHON=${PYPY_SUITE_CPYTHON:-python3.14}
OTHER=/opt/monostamp-venvs/pypy-suite-cpython
[ -x "$OTHER/bin/python" ] || "$CPYTHON" -m venv "$OTHER"
"$OTHER/bin/pip" install --quiet --force-reinstall --no-deps .
cd tests/python
MONOSTAMP_LUA_CPATH="$PWD/../../build-pypy/lua/?.so" MONOSTAMP_REQUIRE_LUA=1 \
    MONOSTAMP_OTHER_PYTHON="$OTHER/bin/python" MONOSTAMP_REQUIRE_OTHER_PYTHON=1 \
    "$VENV/bin/python" -m pytest -q -p no:cacheprovider -n "${PYTEST_JOBS:-2}" -rfEs
