"""tools/install-deps.sh never changes which `lua` the machine runs: Debian's
lua5.3 registers /usr/bin/lua at priority 120 against lua5.4's 20, so
installing it for make test-lua53 would make a plain `lua` (and busted's
`#!/usr/bin/env lua`) Lua 5.3.  The script records the lua-* alternatives
before apt-get runs and puts them back after (keep_lua).  Here the same
functions run against an alternatives database of their own
(update-alternatives --altdir/--admindir), the install being the
registration lua5.3's maintainer script makes."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "tools" / "install-deps.sh"

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or shutil.which("update-alternatives") is None or not SCRIPT.exists(),
    reason="needs Debian's update-alternatives and the checkout's tools/")


@pytest.fixture
def alternatives(tmp_path):
    """A private alternatives database, two fake Luas, and the link they
    compete for; returns a function that runs shell code with
    install-deps.sh's functions sourced and ALTERNATIVES pointed here."""
    for d in ("alt", "admin", "bin"):
        (tmp_path / d).mkdir()
    for lua in ("lua5.3", "lua5.4"):
        (tmp_path / "bin" / lua).write_text("#!/bin/sh\n")
    ua = "update-alternatives --altdir %s --admindir %s --log %s" % (
        tmp_path / "alt", tmp_path / "admin", tmp_path / "log")

    def run(code):
        env = dict(os.environ, MONOSTAMP_DEPS_FUNCTIONS="1", MONOSTAMP_UPDATE_ALTERNATIVES=ua,
                   LINK=str(tmp_path / "bin" / "lua"), BIN=str(tmp_path / "bin"))
        done = subprocess.run(["sh", "-c", '. "$0"; ' + code, str(SCRIPT)], env=env,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run, tmp_path / "bin" / "lua"


def test_installing_lua53_leaves_lua_at_lua54(alternatives):
    run, link = alternatives
    run('$ALTERNATIVES --quiet --install "$LINK" lua-interpreter "$BIN/lua5.4" 20')
    assert os.path.realpath(link).endswith("lua5.4")
    out = run('before=$(lua_selections)\n'
              '$ALTERNATIVES --quiet --install "$LINK" lua-interpreter "$BIN/lua5.3" 120\n'
              'keep_lua "$before"')
    assert os.path.realpath(link).endswith("lua5.4"), out
    assert "keeping lua-interpreter at" in out
    # In manual mode now: a later package's higher priority does not move it.
    assert "manual" in run("$ALTERNATIVES --get-selections")


def test_installing_a_lua_where_there_was_none_leaves_no_lua(alternatives):
    run, link = alternatives
    run('before=$(lua_selections)\n'
        '$ALTERNATIVES --quiet --install "$LINK" lua-interpreter "$BIN/lua5.3" 120\n'
        'keep_lua "$before"')
    assert not os.path.lexists(link)


def test_a_user_choice_stays_as_it_was(alternatives):
    run, link = alternatives
    run('$ALTERNATIVES --quiet --install "$LINK" lua-interpreter "$BIN/lua5.4" 20\n'
        '$ALTERNATIVES --quiet --install "$LINK" lua-interpreter "$BIN/lua5.3" 120\n'
        '$ALTERNATIVES --quiet --set lua-interpreter "$BIN/lua5.4"')
    out = run('before=$(lua_selections); keep_lua "$before"')
    assert out == ""
    assert os.path.realpath(link).endswith("lua5.4")
