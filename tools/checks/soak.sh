#!/bin/sh
# soak.sh [MINUTES [BUILD]]: runs tests/integration/test_soak.py (make soak):
# 4 Python and 4 Lua processes on one shared state file for MINUTES
# (default 10; decimals allowed) while they are killed and the file's path
# is attacked; the test says what it checks and prints the figures.  The
# Lua module must be built (make lua); the test builds the Python one from
# this checkout.  PYTHON (python3) runs pytest and the Python workers, LUA
# (lua5.4) the Lua ones; SOAK_BURST, SOAK_PAUSE_MS, SOAK_KILL_MAX_S,
# SOAK_EVENTS and SOAK_SEED pass through (the test's docstring).
set -eu
cd "$(dirname "$0")/../.."
MINUTES=${1:-10}
BUILD=${2:-build}
case "$BUILD" in /*) ;; *) BUILD="$(pwd)/$BUILD" ;; esac

# The installed monostamp's pytest plugin has no part here (-p no:monostamp).
SOAK_MINUTES=$MINUTES MONOSTAMP_BUILD="$BUILD" LUA=${LUA:-lua5.4} \
    exec "${PYTHON:-python3}" -m pytest -p no:cacheprovider -p no:monostamp -v \
    tests/integration/test_soak.py
