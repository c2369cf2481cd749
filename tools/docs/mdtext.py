"""Plain text (a docstring, a C comment) as Markdown that renders as written:
the generators of the API pages (tools/docs/gen_*.py) share it."""
import re

CODE_SPAN = re.compile(r"(``?)([^`]+?)\1")
SPECIAL = re.compile(r"([\\*_\[\]<>|#$~])")


def escape(line: str) -> str:
    """Markdown's special characters escaped outside code spans; ``x``
    (reST's literal) becomes `x`."""
    out, pos = [], 0
    for match in CODE_SPAN.finditer(line):
        out.append(SPECIAL.sub(r"\\\1", line[pos:match.start()]))
        out.append("`%s`" % match.group(2))
        pos = match.end()
    out.append(SPECIAL.sub(r"\\\1", line[pos:]))
    text = "".join(out)
    # A line opening with "1. " or "+ " would start a list; "- " does on
    # purpose (the comments' own lists).
    return re.sub(r"^(\s*)(\d+)([.)] )", r"\1\2\\\3", re.sub(r"^(\s*)\+ ", r"\1\\+ ", text))


def paragraphs(text: str) -> str:
    """A docstring or comment body as Markdown: its paragraphs and lists as
    they are, `>>>` sessions and indented blocks as code."""
    lines = text.splitlines()
    out, block = [], None
    for line in lines:
        stripped = line.strip()
        is_code = stripped.startswith(">>>") or (block is not None and stripped
                                                 and line.startswith("    "))
        if is_code:
            if block is None:
                block = []
            block.append(line)
            continue
        if block is not None:
            indent = min(len(b) - len(b.lstrip()) for b in block if b.strip())
            out += ["```text"] + [b[indent:] for b in block] + ["```"]
            block = None
        out.append(escape(line.rstrip()) if stripped else "")
    if block is not None:
        indent = min(len(b) - len(b.lstrip()) for b in block if b.strip())
        out += ["```text"] + [b[indent:] for b in block] + ["```"]
    return "\n".join(out).strip() + "\n"
