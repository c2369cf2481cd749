"""Plain text (a docstring, a C comment) as Markdown that renders as written:
the generators of the API pages (tools/docs/gen_*.py) share it."""
import re

CODE_SPAN = re.compile(r"(``?)([^`]+?)\1")
SPECIAL = re.compile(r"([\\*_\[\]<>|#$~])")
NAME = re.compile(r"\b([A-Za-z_]\w*)\b")


def plain(text: str, roles: dict) -> str:
    """Text outside code spans: escaped, and each name in `roles` (name ->
    a MyST role such as "c:func") a link to its entry."""
    if not roles:
        return SPECIAL.sub(r"\\\1", text)
    out, pos = [], 0
    for match in NAME.finditer(text):
        if match.group(1) in roles:
            out.append(SPECIAL.sub(r"\\\1", text[pos:match.start()]))
            out.append("{%s}`%s`" % (roles[match.group(1)], match.group(1)))
            pos = match.end(1)
    out.append(SPECIAL.sub(r"\\\1", text[pos:]))
    return "".join(out)


def escape(line: str, roles: dict = None) -> str:
    """Markdown's special characters escaped outside code spans; ``x``
    (reST's literal) becomes `x`; names in `roles` become links."""
    out, pos = [], 0
    for match in CODE_SPAN.finditer(line):
        out.append(plain(line[pos:match.start()], roles))
        out.append("`%s`" % match.group(2))
        pos = match.end()
    out.append(plain(line[pos:], roles))
    text = "".join(out)
    # A line opening with "1. " or "+ " would start a list; "- " does on
    # purpose (the comments' own lists).
    return re.sub(r"^(\s*)(\d+)([.)] )", r"\1\2\\\3", re.sub(r"^(\s*)\+ ", r"\1\\+ ", text))


def paragraphs(text: str, roles: dict = None) -> str:
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
        out.append(escape(line.rstrip(), roles) if stripped else "")
    if block is not None:
        indent = min(len(b) - len(b.lstrip()) for b in block if b.strip())
        out += ["```text"] + [b[indent:] for b in block] + ["```"]
    return "\n".join(out).strip() + "\n"
