"""Every ```python block of README.md and docs/*.md runs as written, and the
whole set passes mypy --strict against the installed stub.

A block stands alone, as a reader copies it: its own imports, no names from
the blocks before it. Its text says how it runs:
- an interactive session (its lines start with `>>> `) runs under doctest. It
  shows values of now(), which differ on every run, so a digit of the shown
  output stands for any digit; every other character must match;
- a test module (it defines `test_*` functions) runs under pytest in a child
  process, with the installed monostamp plugin: every test must pass, with no
  warning;
- anything else is a script run by a fresh interpreter, which must exit 0.
Children run with TZ=Europe/Berlin (the zone the docs' examples show) and
TMPDIR in the test's own directory, from a directory without the checkout.
"""
import doctest
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from conftest import REPO, lua_env

FENCE = re.compile(r"^( *)```(\w*)(?: [\w-]+)*[ \t]*$")
PYTHON_FENCES = {"python", "py", "pycon"}


class Snippet:
    def __init__(self, path, line, text):
        self.path, self.line, self.text = path, line, text
        self.id = "%s:%d" % (path.relative_to(REPO), line)

    @property
    def is_session(self):
        return self.text.lstrip().startswith(">>>")

    @property
    def test_count(self):
        return len(re.findall(r"^(?:async )?def test_\w*\(", self.text, re.M))

    def source(self):
        """The block as a module: a session's statements without prompts."""
        if not self.is_session:
            return self.text
        examples = doctest.DocTestParser().get_examples(self.text)
        return "".join(example.source for example in examples)


def read_snippets(path):
    """The Python blocks of one Markdown file; a fence left open is an error,
    so a block can never be skipped by a broken file."""
    snippets, lines = [], path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, language = opening.groups()
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            raise AssertionError("%s:%d: a ``` fence is never closed" % (path, i + 1))
        # <!-- not run: REASON --> on the line before: test_doc_blocks.py
        # holds such a marker to a reason.
        if language in PYTHON_FENCES and not (i > 0 and lines[i - 1].startswith("<!-- not run:")):
            body = "\n".join(line[len(indent):] for line in lines[i + 1:end]) + "\n"
            snippets.append(Snippet(path, i + 1, textwrap.dedent(body)))
        i = end + 1
    return snippets


#: Test dependencies some blocks import (docs/patch.md shows monostamp beside
#: them): a block that needs one that is missing is skipped, saying which.
OPTIONAL = ("freezegun", "time_machine")


def missing_optional(snippet):
    import importlib.util
    return [m for m in OPTIONAL
            if re.search(r"^(?:import|from) %s\b" % m, snippet.text, re.M)
            and importlib.util.find_spec(m) is None]


DOCUMENTS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
SNIPPETS = [s for path in DOCUMENTS for s in read_snippets(path)]


def test_every_python_fence_was_read():
    fence = r" *```(?:%s)[ \t]*$" % "|".join(PYTHON_FENCES)
    texts = [path.read_text(encoding="utf-8") for path in DOCUMENTS]
    opened = sum(len(re.findall("^" + fence, text, re.M)) for text in texts)
    marked = sum(len(re.findall(r"^<!-- not run:.*\n" + fence, text, re.M)) for text in texts)
    assert opened - marked == len(SNIPPETS) > 0


class AnyDigits(doctest.OutputChecker):
    """Shown output matches when it matches exactly, or when each digit shown
    stands for one digit produced ('2026-12-02T15:11:20.123456789+01:00' is
    an example of now()'s text, not its value)."""

    def check_output(self, want, got, optionflags):
        if super().check_output(want, got, optionflags):
            return True
        shape = "".join(r"\d" if c.isdigit() else re.escape(c) for c in want)
        return re.fullmatch(shape, got) is not None


def child_settings(tmp_path):
    """What every child runs with (and without: MONOSTAMP_SHARED)."""
    return {"TZ": "Europe/Berlin", "TMPDIR": str(tmp_path), "PYTHONSAFEPATH": "1"}


def child_env(tmp_path):
    env = dict(os.environ, **child_settings(tmp_path))
    env.pop("MONOSTAMP_SHARED", None)
    return env


def run_session(snippet, tmp_path):
    # In a child, like the others, so the session's TZ and any policy it sets
    # stay out of this process.
    runner = textwrap.dedent("""
        import doctest, sys
        sys.path.insert(0, sys.argv[1])
        from test_doc_snippets import AnyDigits
        text = open(sys.argv[2], encoding="utf-8").read()
        test = doctest.DocTestParser().get_doctest(text, {}, sys.argv[3], sys.argv[3], 0)
        runner = doctest.DocTestRunner(checker=AnyDigits(), optionflags=doctest.ELLIPSIS)
        runner.run(test)
        sys.exit(1 if runner.failures else 0)
    """)
    session = tmp_path / "session.txt"
    session.write_text(snippet.text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-c", runner, str(Path(__file__).parent), str(session), snippet.id],
        cwd=tmp_path, env=child_env(tmp_path), capture_output=True, text=True, timeout=300)


def run_script(snippet, tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(snippet.text, encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path,
                          env=child_env(tmp_path), capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.id for s in SNIPPETS])
def test_snippet_runs(snippet, tmp_path, pytester, monkeypatch):
    if "time.tzset()" in snippet.text and not hasattr(time, "tzset"):
        pytest.skip("POSIX only: the snippet calls time.tzset()")
    if missing_optional(snippet):
        pytest.skip("needs %s (test dependencies: tools/install-deps.sh)" % ", ".join(
            missing_optional(snippet)))
    if snippet.test_count:
        if "lua5.4" in snippet.text:
            # As a reader whose rock is installed: lua5.4 finds monostamp.
            _, env = lua_env()
            monkeypatch.setenv("LUA_PATH", env["LUA_PATH"])
            monkeypatch.setenv("LUA_CPATH", env["LUA_CPATH"])
        for name, value in child_settings(tmp_path).items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("MONOSTAMP_SHARED", raising=False)
        pytester.makepyfile(test_snippet=snippet.text)
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
        result.assert_outcomes(passed=snippet.test_count, warnings=0)
        return
    done = (run_session if snippet.is_session else run_script)(snippet, tmp_path)
    assert done.returncode == 0, "%s failed:\n%s%s" % (snippet.id, done.stdout, done.stderr)


def test_snippets_pass_mypy_strict(tmp_path):
    pytest.importorskip("mypy")
    names = []
    for snippet in SNIPPETS:
        if missing_optional(snippet):
            continue
        # One module per block (blocks stand alone), named after where it is.
        name = re.sub(r"\W", "_", snippet.id) + ".py"
        (tmp_path / name).write_text(snippet.source(), encoding="utf-8")
        names.append(name)
    cache = Path(tempfile.gettempdir(), "monostamp-mypy-cache")  # shared with test_typing
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *names],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------ the Lua and sh blocks

def blocks(path, language):
    """The ```language blocks of one Markdown file, as written."""
    text = path.read_text(encoding="utf-8")
    return re.findall(r"^```%s\n(.*?)^```" % re.escape(language), text, re.S | re.M)


README_LUA = blocks(REPO / "README.md", "lua")


def run_lua(code, tmp_path):
    lua, env = lua_env()
    return subprocess.run([lua, "-"], input=code, cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("block", README_LUA, ids=["README.md lua %d" % i
                                                   for i in range(len(README_LUA))])
def test_readme_lua_block_runs(block, tmp_path):
    done = run_lua(block, tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(sys.platform == "win32",
                    reason="the zone database is not walked for suggestions on Windows")
def test_readme_lua_block_with_a_zone_typo_says_did_you_mean(tmp_path):
    # The binding returns nil, message for a zone it cannot find: the block
    # shows that message, not "attempt to index a nil value" further on.
    with_zone = [b for b in README_LUA if 'zone = "Europe/Berlin"' in b]
    assert len(with_zone) == 1, README_LUA
    done = run_lua(with_zone[0].replace('zone = "Europe/Berlin"', 'zone = "Europe/Berln"'),
                   tmp_path)
    assert done.returncode != 0
    assert "zone='Europe/Berln' is not a zone this machine knows" in done.stderr, done.stderr
    assert "did you mean 'Europe/Berlin'?" in done.stderr, done.stderr
    assert "attempt to index" not in done.stderr, done.stderr


#: A word `busted` run as a command: not a path's last part (/usr/bin/busted)
#: nor a module's name (busted.runner).
BARE_BUSTED = re.compile(r"(?<![\w/.-])busted(?![\w.-])")


def commands_in(path):
    """The code of one Markdown file that runs something: each line of its
    ```sh blocks, and each `code span` of more than one word."""
    text = path.read_text(encoding="utf-8")
    lines = [line for block in blocks(path, "sh") for line in block.splitlines()]
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return lines + [span for span in re.findall(r"`([^`\n]+)`", prose) if " " in span]


def test_every_busted_command_names_its_interpreter():
    # Debian's busted starts `lua` from the PATH (Lua 5.3 or LuaJIT there),
    # which cannot load the module built for Lua 5.4.
    bare = ["%s: %s" % (path.name, code) for path in DOCUMENTS for code in commands_in(path)
            if BARE_BUSTED.search(code)]
    assert bare == []


def monostamp_on_the_path(env):
    """A shell prelude and `env` in which `monostamp` is this install's: its
    console script, or python -m where there is none."""
    import shutil
    script = shutil.which("monostamp", path=os.path.dirname(sys.executable))
    if script is not None:
        env["PATH"] = os.path.dirname(script) + os.pathsep + env.get("PATH", "")
        return ""
    return 'monostamp() { "%s" -m monostamp "$@"; }\n' % sys.executable


def test_lua_md_busted_commands_run_the_docs_spec(tmp_path):
    # Each ```sh block of docs/lua.md that runs busted, as written, on the
    # page's own example spec, under the preload.
    if not sys.platform.startswith("linux"):
        pytest.skip("the preload library is built on Linux only")
    if not os.path.exists("/usr/bin/busted"):
        pytest.skip("no busted at /usr/bin/busted (Debian's lua-busted)")
    lua_md = REPO / "docs" / "lua.md"
    commands = [b for b in blocks(lua_md, "sh") if "busted" in b]
    specs = [b for b in blocks(lua_md, "lua") if "describe(" in b and "monostamp.testing" in b]
    assert len(commands) == 2 and len(specs) == 1, (commands, specs)
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "orders_spec.lua").write_text(specs[0], encoding="utf-8")
    _, env = lua_env()
    env["TMPDIR"] = str(tmp_path)
    for name in ("MONOSTAMP_SHARED", "MONOSTAMP_PATCH", "LD_PRELOAD"):
        env.pop(name, None)
    prelude = monostamp_on_the_path(env)
    for command in commands:
        done = subprocess.run(["sh", "-ec", prelude + command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, command + done.stdout + done.stderr
        assert "2 successes / 0 failures / 0 errors" in done.stdout, command + done.stdout
        assert done.stderr == "", command + done.stderr
