"""tools/docs/check-markdown.py: make test-markdown.

Checks every Markdown file git tracks (or the files given) for what a
renderer silently gets wrong:
  - a table that is not whole: rows with no header and delimiter row above
    them (a table cut by a paragraph or a blank line renders its second half
    as text), a delimiter row that is not one, or rows whose cell count is
    not the header's (GitHub pads or drops cells without a word);
  - a relative link or image whose file does not exist, or whose #anchor is
    no heading of the target file (GitHub's slugs, which the docs site's
    MyST uses too: tools/docs/conf.py).
Fenced code blocks and code spans are skipped.  Prints one line per fault,
FILE:LINE: what, and exits 1; else one line and 0.  --self-test first runs
it on planted faults of each kind and fails unless it finds every one.
"""
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
DELIMITER_CELL = re.compile(r"^:?-+:?$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target); the target may be <...> and have a title.
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^\s)]*)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(\S+)")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text: str):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line.lstrip() if fence is None else line.lstrip())
        if fence is None:
            if match:
                fence = match.group(1)
                continue
            yield number, line
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and not line.strip()[len(match.group(1)):].strip():
            fence = None


def split_cells(row: str) -> list[str]:
    """A table row's cells as GFM splits them: on every | not escaped by a
    backslash (a | inside a code span splits too, in GFM)."""
    row = row.strip()
    cells, cell, escaped = [], "", False
    for char in row:
        if char == "|" and not escaped:
            cells.append(cell)
            cell = ""
        else:
            cell += char
        escaped = char == "\\" and not escaped
    cells.append(cell)
    if row.startswith("|"):
        cells = cells[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        cells = cells[:-1]
    return [c.strip() for c in cells]


def slug(title: str) -> str:
    """GitHub's anchor for a heading (and MyST's: myst_heading_anchors)."""
    text = CODE_SPAN.sub(lambda m: m.group(2), title)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path, cache: dict) -> set[str]:
    if path not in cache:
        found, seen = set(), {}
        text = path.read_text(encoding="utf-8")
        for _, line in prose_lines(text):
            heading = HEADING.match(line)
            if heading:
                base = slug(heading.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else "%s-%d" % (base, n))
            found.update(HTML_ANCHOR.findall(line))
        cache[path] = found
    return cache[path]


def check_tables(lines) -> list[tuple[int, str]]:
    faults = []
    blocks, block, last = [], [], None
    for number, line in lines:
        if line.lstrip().startswith("|"):
            if block and last != number - 1:
                blocks.append(block)
                block = []
            block.append((number, line))
            last = number
    if block:
        blocks.append(block)
    previous_end = None
    for block in blocks:
        first = block[0][0]
        delimiter = split_cells(block[1][1]) if len(block) > 1 else []
        if len(block) < 2 or not all(DELIMITER_CELL.match(c) for c in delimiter):
            where = ("; the table above (ending on line %d) was cut here by a paragraph or a "
                     "blank line" % previous_end) if previous_end else ""
            faults.append((first, "table rows without a header and a delimiter row (|---|) "
                           "under it: a renderer shows them as text%s" % where))
        else:
            width = len(split_cells(block[0][1]))
            for number, row in [block[0]] + block[1:]:
                count = len(split_cells(row))
                if count != width and number == block[1][0]:
                    faults.append((number, "the delimiter row has %d cells, the header %d"
                                   % (count, width)))
                elif count != width:
                    faults.append((number, "row has %d cells, the table's header %d (an "
                                   "unescaped | in a cell? write \\|)" % (count, width)))
        previous_end = block[-1][0]
    return faults


def link_targets(line: str):
    bare = CODE_SPAN.sub("", line)
    for match in INLINE_LINK.finditer(bare):
        yield match.group(1).strip("<>")
    ref = REFERENCE_DEF.match(bare)
    if ref:
        yield ref.group(1).strip("<>")


def check_links(path: Path, lines, cache: dict) -> list[tuple[int, str]]:
    faults = []
    for number, line in lines:
        for target in link_targets(line):
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            if not dest.exists():
                faults.append((number, "link to %s: no such file" % target))
            elif anchor and dest.is_file() and dest.suffix == ".md" \
                    and anchor not in anchors(dest, cache):
                faults.append((number, "link to %s: %s has no heading with the anchor #%s"
                               % (target, dest.relative_to(REPO) if dest.is_relative_to(REPO)
                                  else dest, anchor)))
    return faults


def markdown_files(args: list[str]) -> list[Path]:
    if args:
        return [Path(a).resolve() for a in args]
    listed = subprocess.run(["git", "ls-files", "-z", "*.md"], cwd=REPO,
                            capture_output=True, text=True)
    if listed.returncode == 0 and listed.stdout:
        return [REPO / name for name in listed.stdout.split("\0") if name]
    return sorted(p for p in REPO.rglob("*.md") if not any(
        part.startswith((".", "build")) for part in p.relative_to(REPO).parts))


PLANTED = {
    "a.md": "# Top\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nA paragraph.\n| 3 | 4 |\n\n"
            "| x | y |\n|---|---|\n| 1 | 2 | 3 |\n\n[ok](#top) [here](#nowhere) "
            "[gone](missing.md) [far](b.md#nowhere)\n\n```\n| code | not a table\n"
            "[code](not-checked.md)\n```\n",
    "b.md": "# B\n\n## Two words\n\n[ok](a.md#top) [ok](#two-words)\n",
}
EXPECTED = ["a.md:8: table rows without a header", "a.md:12: row has 3 cells",
            "a.md:14: link to #nowhere", "a.md:14: link to missing.md",
            "a.md:14: link to b.md#nowhere"]


def self_test() -> bool:
    import contextlib
    import io
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in PLANTED.items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = main([str(Path(tmp) / name) for name in PLANTED])
    lines = [l.replace(tmp + "/", "") for l in out.getvalue().splitlines()]
    missed = [e for e in EXPECTED if not any(l.startswith(e) for l in lines)]
    extra = len(lines) - 1 - len(EXPECTED)  # the last line is the count
    if status != 1 or missed or extra:
        print("check-markdown: self-test failed: missed %s, %d unexpected; it printed:\n%s"
              % (missed, extra, "\n".join(lines)))
        return False
    print("check-markdown: self-test: all %d planted faults found, nothing else"
          % len(EXPECTED))
    return True


def main(args: list[str]) -> int:
    if "--self-test" in args:
        if not self_test():
            return 1
        args = [a for a in args if a != "--self-test"]
    faults, cache = [], {}
    files = markdown_files(args)
    for path in files:
        lines = list(prose_lines(path.read_text(encoding="utf-8")))
        shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        for number, what in sorted(check_tables(lines) + check_links(path, lines, cache)):
            faults.append("%s:%d: %s" % (shown, number, what))
    for fault in faults:
        print(fault)
    if faults:
        print("check-markdown: %d fault(s) in %d file(s)" % (len(faults), len(files)))
        return 1
    print("check-markdown: %d files, every table whole, every relative link resolving"
          % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
