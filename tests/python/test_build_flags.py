"""The C build flags are written once: the C standard (C_STD) and the
warnings in the Makefile, the feature-test macros in csrc/config.h, which the
Makefile reads for the files that do not include it, and exports with the
rest to the scripts its targets run.  Two builds run without make and say
the standard again: setup.py's (tools/ext_build.py, for pip) and the rock's
(tools/lua/build-rock.sh, for luarocks).  Held together here, with the
rule that no other build file of the project spells the macros out."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAKEFILE = REPO / "Makefile"

pytestmark = pytest.mark.skipif(not MAKEFILE.exists() or sys.platform == "win32",
                                reason="needs the checkout (an sdist has no Makefile)")


def make_var(name):
    return re.search(r"^%s\s*:=\s*(.*)$" % name, MAKEFILE.read_text(), re.M).group(1).strip()


def test_setup_py_and_the_rock_compile_with_the_makefiles_c_standard():
    std = make_var("C_STD")
    assert re.fullmatch(r"-std=\S+", std), std
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import ext_build
    finally:
        sys.path.pop(0)
    assert [f for f in ext_build.POSIX_CFLAGS if f.startswith("-std=")] == [std]
    rock = (REPO / "tools" / "lua" / "build-rock.sh").read_text()
    stds = set(re.findall(r"-std=\S+", rock))
    assert stds == {std}, stds


def test_the_makefile_reads_the_feature_macros_from_config_h():
    config = (REPO / "csrc" / "config.h").read_text()
    macros = re.findall(r"^#define (_[A-Z_]*_SOURCE) (\S+)$", config, re.M)
    assert dict(macros).keys() == {"_POSIX_C_SOURCE", "_DEFAULT_SOURCE"}, macros
    done = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(REPO), "-p", "-n", "help"],
                          capture_output=True, text=True, check=False)
    cstd = re.search(r"^CSTD := (.*)$", done.stdout, re.M)
    assert cstd, done.stderr
    assert cstd.group(1).split() == [make_var("C_STD")] + ["-D%s=%s" % m for m in macros]


def test_no_other_build_file_spells_the_flags_out():
    # The files that build what the project ships or tests through make; the
    # examples and the tests' own small programs compile as a user would.
    files = [MAKEFILE, REPO / "monostamp-0.1.0-1.rockspec", REPO / "setup.py"]
    files += sorted((REPO / "tools").rglob("*.sh")) + sorted((REPO / "tools").rglob("*.py"))
    for path in files:
        # What it runs, not what its comments say.
        text = "\n".join(line for line in path.read_text().splitlines()
                         if not line.lstrip().startswith(("#", "--")))
        assert "-D_POSIX_C_SOURCE" not in text and "-D_DEFAULT_SOURCE" not in text, path
        # The C standard of the project's own build (a user's program, as
        # test-install.sh compiles the header as C99, may name another).
        if path.name not in ("Makefile", "ext_build.py", "build-rock.sh"):
            assert make_var("C_STD") not in text, path
