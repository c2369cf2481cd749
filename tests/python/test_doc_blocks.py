"""Every ```python, ```lua, ```sh and ```c block of README.md and docs/*.md
runs in a test, unless the line before its fence says why it cannot:

    <!-- not run: needs root (apt-get) -->

The Python blocks run in test_doc_snippets.py (as scripts, doctest sessions or
pytest modules); this file runs the others, checks that every block is run or
carries a reason, and compares a block's printed output with the ```text
block that follows it (blank lines between at most), where the docs show one:
exactly, or under ```text digits-vary with each digit shown standing for any
digit (a stamp's text differs on every run).

- lua: `lua5.4 -` with the module make built on the path; a block that
  requires "monostamp.ffi" under luajit with MONOSTAMP_LIBRARY set; a busted
  spec (describe/it at the top) as spec/doc_spec.lua under
  `lua5.4 /usr/bin/busted`.
- sh: `sh -e` in a temp dir holding a copy of examples/, with `python`,
  `python3` and `monostamp` on the PATH being this interpreter's.
- c: a block with a main() is a program; any other is the body of main()
  after #include <monostamp.h>, <stdio.h>, <stdint.h> and <inttypes.h>.
  Compiled with -Wall -Wextra -Werror against csrc/ and the static library of
  MONOSTAMP_BUILD (make test-python sets it and builds the library; else
  build/, skipped where there is none: a wheel's suite), then run.
"""
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO, lua_env

FENCE = re.compile(r"^( *)```(\w*)((?: [\w-]+)*)[ \t]*$")
NOT_RUN = re.compile(r"^\s*<!-- not run: (.*\S) -->\s*$")
RUN_HERE = ("lua", "sh", "c")
RUN_ELSEWHERE = ("python",)  # test_doc_snippets.py
DOCUMENTS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
BUILD = os.environ.get("MONOSTAMP_BUILD") or str(REPO / "build")


class Block:
    def __init__(self, path, line, language, text, not_run, output):
        self.path, self.line, self.language = path, line, language
        self.text, self.not_run, self.output = text, not_run, output
        self.id = "%s:%d" % (path.relative_to(REPO), line)


def read_blocks(path):
    """Every fenced block of one Markdown file, with the marker above it and
    the ```text block after it; a fence left open fails."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, language, vary = opening.groups()
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        assert end < len(lines), "%s:%d: a ``` fence is never closed" % (path, i + 1)
        text = textwrap.dedent("\n".join(line[len(indent):] for line in lines[i + 1:end]) + "\n")
        marker = NOT_RUN.match(lines[i - 1]) if i > 0 else None
        found.append(Block(path, i + 1, language, text, marker and marker.group(1), None))
        found[-1].end, found[-1].digits_vary = end, "digits-vary" in vary.split()
        i = end + 1
    # A ```text block right after a block (blank lines between) is its output.
    for before, after in zip(found, found[1:]):
        between = lines[before.end + 1:after.line - 1]
        if after.language == "text" and all(not line.strip() for line in between):
            before.output = after.text
            before.digits_vary = after.digits_vary
    return found


BLOCKS = [b for path in DOCUMENTS for b in read_blocks(path)]
# A Python block with shown output runs here too, to compare it.
HERE = [b for b in BLOCKS if not b.not_run
        and (b.language in RUN_HERE or b.language == "python" and b.output is not None)]


def test_every_block_is_run_or_says_why_not():
    languages = RUN_HERE + RUN_ELSEWHERE
    counted = sum(len(re.findall(r"^ *```(?:%s)[ \t]*$" % "|".join(languages),
                                 path.read_text(encoding="utf-8"), re.M)) for path in DOCUMENTS)
    assert counted == len([b for b in BLOCKS if b.language in languages]) > 0
    # A marker names a reason, and sits only above a block of a run language.
    for path in DOCUMENTS:
        lines = path.read_text(encoding="utf-8").splitlines()
        inside = {n for b in BLOCKS if b.path == path for n in range(b.line - 1, b.end + 1)}
        for n, line in enumerate(lines):
            if "<!-- not run" in line and n not in inside:  # not one shown in a block
                assert NOT_RUN.match(line), "%s:%d: marker without a reason" % (path, n + 1)
                opening = FENCE.match(lines[n + 1]) if n + 1 < len(lines) else None
                assert opening and opening.group(2) in languages, \
                    "%s:%d: a marker not above a runnable block" % (path, n + 1)


def test_output_blocks_follow_a_block_that_runs():
    for b in BLOCKS:
        if b.output is not None:
            assert b.language in RUN_HERE + RUN_ELSEWHERE and not b.not_run, b.id


def shows(want, got, digits_vary):
    """`got` is what the docs show; under digits-vary a digit shown stands
    for any digit."""
    if want == got or not digits_vary:
        return want == got
    shape = "".join(r"\d" if c.isdigit() else re.escape(c) for c in want)
    return re.fullmatch(shape, got) is not None


# ---------------------------------------------------------------- runners

def child_env(tmp_path):
    _, env = lua_env()
    env.update(TZ="Europe/Berlin", TMPDIR=str(tmp_path), PYTHONSAFEPATH="1")
    for name in ("MONOSTAMP_SHARED", "MONOSTAMP_PATCH", "LD_PRELOAD", "MONOSTAMP_GRAIN"):
        env.pop(name, None)
    return env


def shell_bin(tmp_path, env):
    """A PATH entry where python, python3 and monostamp are this install's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python", "python3"):
        # A script, not a link: an interpreter started through a link in
        # another folder looks for its venv's pyvenv.cfg beside the link and
        # runs without the venv (CPython's in a venv, PyPy's).
        (bin_dir / name).write_text('#!/bin/sh\nexec "%s" "$@"\n' % sys.executable)
        (bin_dir / name).chmod(0o755)
    script = shutil.which("monostamp", path=os.path.dirname(sys.executable))
    if script is not None:
        (bin_dir / "monostamp").symlink_to(script)
    else:
        (bin_dir / "monostamp").write_text('#!/bin/sh\nexec "%s" -m monostamp "$@"\n'
                                           % sys.executable)
        (bin_dir / "monostamp").chmod(0o755)
    env["PATH"] = str(bin_dir) + os.pathsep + env.get("PATH", "")


def run_lua(block, tmp_path, env):
    if "monostamp.ffi" in block.text:
        luajit = shutil.which("luajit")
        if luajit is None:
            pytest.skip("no luajit")
        env["MONOSTAMP_LIBRARY"] = os.path.join(BUILD, "libmonostamp.so")
        return subprocess.run([luajit, "-"], input=block.text, cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)
    lua, _ = lua_env()
    if re.search(r"^(describe|it)\(", block.text, re.M):
        if not os.path.exists("/usr/bin/busted"):
            pytest.skip("no busted at /usr/bin/busted (Debian's lua-busted)")
        (tmp_path / "spec").mkdir()
        (tmp_path / "spec" / "doc_spec.lua").write_text(block.text, encoding="utf-8")
        return subprocess.run([lua, "/usr/bin/busted", "-o", "utfTerminal"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)
    return subprocess.run([lua, "-"], input=block.text, cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


def run_sh(block, tmp_path, env):
    shell_bin(tmp_path, env)
    if (REPO / "examples").is_dir():  # not in the sdist, nor are the pages that use it
        shutil.copytree(REPO / "examples", tmp_path / "examples",
                        ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return subprocess.run(["sh", "-ec", block.text], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


C_PRELUDE = ("#include <monostamp.h>\n#include <inttypes.h>\n#include <stdint.h>\n"
             "#include <stdio.h>\n")


def run_c(block, tmp_path, env):
    library = os.path.join(BUILD, "libmonostamp.a")
    if not os.path.exists(library):
        why = "%s is missing: make lib (make test-python builds it)" % library
        if os.environ.get("MONOSTAMP_BUILD"):
            pytest.fail(why)
        pytest.skip(why)  # a wheel's suite, run away from the build
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler")
    if re.search(r"\bmain\s*\(", block.text):
        source = block.text
    else:
        source = C_PRELUDE + "\nint main(void)\n{\n" + block.text + "    return 0;\n}\n"
    (tmp_path / "block.c").write_text(source, encoding="utf-8")
    cc = os.environ.get("CC", "cc")
    built = subprocess.run(
        [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(REPO / "csrc"),
         "block.c", library, "-lpthread", "-o", "block"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    if built.returncode != 0:
        return built
    return subprocess.run([str(tmp_path / "block")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


def run_python(block, tmp_path, env):
    (tmp_path / "block.py").write_text(block.text, encoding="utf-8")
    return subprocess.run([sys.executable, "block.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


RUNNERS = {"lua": run_lua, "sh": run_sh, "c": run_c, "python": run_python}


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="the blocks are written for a Linux shell and compiler")
@pytest.mark.parametrize("block", HERE, ids=[b.id for b in HERE])
def test_block_runs(block, tmp_path):
    env = child_env(tmp_path)
    done = RUNNERS[block.language](block, tmp_path, env)
    assert done.returncode == 0, "%s failed:\n%s%s" % (block.id, done.stdout, done.stderr)
    if "/usr/bin/busted" in done.args:  # a spec that ran no test passes too
        assert re.search(r"\b[1-9]\d* successes? / 0 failures / 0 errors", done.stdout), done.stdout
    if block.output is not None:
        assert shows(block.output, done.stdout, block.digits_vary), (block.output, done.stdout)

