"""tools/docs/gen_c_api.py OUT [HEADER...]: the docs site's C API page.

Reads every public header, csrc/monostamp*.h (or the HEADERs given), as a
sequence of comments, preprocessor lines and declarations, and writes each
header's section: its opening comment, its "/* ---- name */" rules as
headings, every MONOSTAMP_API function with the comment right above it
(functions that follow it with no comment and no blank line share it), every
type (its definition shown whole, member comments and all) and every
MONOSTAMP_ macro.  Nothing depends on line numbers or on which header holds
what: a header split in two is two sections.  Fails on a header with no
function, or a function whose declaration Sphinx cannot read (make docs).
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mdtext import paragraphs  # noqa: E402

REPO = Path(__file__).resolve().parent.parent.parent
RULE = re.compile(r"^-{3,}\s*(.*?)\s*-*$")
DEFINE = re.compile(r"^#\s*define\s+(MONOSTAMP_\w+)(\([^)]*\))?\s*(.*)$")
IFNDEF = re.compile(r"^#\s*ifndef\s+(MONOSTAMP_\w+)")
TYPEDEF_NAME = re.compile(r"(\w+)\s*;\s*$")
FUNCTION_NAME = re.compile(r"(\w+)\s*\(")
# Every function, type and macro the headers document, with the MyST role
# that links to it: filled by a first pass over the headers, used by the
# second to link the names the comments mention.
KNOWN = {}
ROLES = {}


def items(text: str):
    """(kind, text, blank_before) for each comment ("comment"), preprocessor
    line ("pp") and declaration up to its ';' at depth 0 ("decl"), in order.
    blank_before: a blank line separates it from the item before."""
    pos, n = 0, len(text)
    while pos < n:
        ws = re.match(r"\s*", text[pos:]).group(0)
        blank = ws.count("\n") >= 2
        pos += len(ws)
        if pos >= n:
            break
        if text.startswith("/*", pos):
            end = text.index("*/", pos) + 2
            yield "comment", text[pos:end], blank
            pos = end
        elif text.startswith("//", pos):
            end = text.find("\n", pos)
            end = n if end < 0 else end
            yield "comment", text[pos:end], blank
            pos = end
        elif text[pos] == "#":
            end = pos
            while True:
                nl = text.find("\n", end)
                if nl < 0:
                    nl = n
                if text[end:nl].rstrip().endswith("\\"):
                    end = nl + 1
                    continue
                break
            yield "pp", text[pos:nl], blank
            pos = nl
        elif text.startswith("}", pos) or text.startswith('extern "C"', pos):
            # the C++ guard's braces
            end = text.find("\n", pos)
            pos = n if end < 0 else end
        else:
            depth, end = 0, pos
            while end < n:
                if text.startswith("/*", end):
                    end = text.index("*/", end) + 2
                    continue
                c = text[end]
                depth += c == "{"
                depth -= c == "}"
                end += 1
                if c == ";" and depth == 0:
                    break
            yield "decl", text[pos:end], blank
            pos = end


def comment_text(comment: str) -> str:
    body = comment[2:-2] if comment.startswith("/*") else comment[2:]
    lines = [re.sub(r"^\s?\*+ ?", "", line) if line.strip().startswith("*") else line
             for line in body.splitlines()]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    indent = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
    return "\n".join(l[indent:] for l in lines)


def strip_comments(code: str) -> str:
    return re.sub(r"/\*.*?\*/", "", code, flags=re.S)


def directive_sig(kind: str, sigs: list[str], body: str) -> str:
    """{kind} for each signature, the last with the body: MyST reads a
    directive's argument from its first line alone, so functions that share
    a comment are entries stacked over it."""
    fence = "`" * max([3] + [len(f) + 1 for f in re.findall(r"`{3,}", body)])
    return "".join("%s{%s} %s\n\n%s%s\n" % (fence, kind, sig, body if i == len(sigs) - 1
                                                 else "", fence)
                   for i, sig in enumerate(sigs))


def section_of(path: Path, emitted: set) -> tuple[list[str], int]:
    """The header's part of the page, and how many functions it declares."""
    text = path.read_text(encoding="utf-8")
    out = ["## `%s`\n" % path.name]
    sequence = list(items(text))
    functions = 0
    pending = None        # the comment right above the next item
    group = None          # the open c:function directive's signatures, and its doc

    def close_group():
        nonlocal group
        if group:
            sigs, doc = group
            out.append(directive_sig("c:function", sigs, doc))
        group = None

    for index, (kind, chunk, blank) in enumerate(sequence):
        if kind == "comment":
            text_ = comment_text(chunk)
            rule = RULE.match(text_)
            if index == 0:
                out.append(paragraphs(text_, ROLES))
            elif rule and "\n" not in text_:
                close_group()
                out.append("### %s\n" % (rule.group(1)[:1].upper() + rule.group(1)[1:]))
                pending = None
            else:
                if pending is not None and not blank:
                    pending += "\n" + text_
                else:
                    pending = text_
            continue
        doc = pending if pending is not None and not blank else None
        if kind == "pp":
            define, ifndef = DEFINE.match(chunk), IFNDEF.match(chunk)
            # A macro is documented once, where it is first defined; one
            # whose definition sits in #if branches (MONOSTAMP_API) by the
            # comment above its #ifndef.  Include guards are no macros.
            if ifndef and doc:
                name = ifndef.group(1)
            elif define and not (define.group(1).endswith("_H") and not define.group(3)):
                name = define.group(1)
            else:
                name = None
            if name is None or name in emitted:
                pending = pending if chunk.startswith("#if") else None
                continue
            close_group()
            emitted.add(name)
            KNOWN[name] = "c:macro"
            code = chunk if define else "#define %s" % name
            body = "```c\n%s\n```\n" % code.strip()
            if doc:
                body += "\n" + paragraphs(doc, ROLES)
            else:
                trail = re.search(r"/\*(.*?)\*/", chunk)
                if trail:
                    body += "\n" + paragraphs(trail.group(1).strip(), ROLES)
            out.append(directive_sig("c:macro", [name + (define.group(2) if define and define.group(2)
                                                          else "")], body))
            pending = None
            continue
        # a declaration
        code = strip_comments(chunk).strip()
        flat = " ".join(code.split())
        if flat.startswith("MONOSTAMP_API"):
            functions += 1
            sig = flat[len("MONOSTAMP_API"):].strip().rstrip(";").strip()
            KNOWN[FUNCTION_NAME.search(sig).group(1)] = "c:func"
            if doc is None and group is not None and not blank:
                group[0].append(sig)
            else:
                close_group()
                group = ([sig], paragraphs(doc, ROLES) if doc else "")
        elif flat.startswith("typedef") or flat.startswith("enum") or flat.startswith("struct"):
            close_group()
            name = TYPEDEF_NAME.search(flat)
            body = "```c\n%s\n```\n" % chunk.strip()
            if doc:
                body = paragraphs(doc, ROLES) + "\n" + body
            if flat.startswith("typedef") and name:
                KNOWN[name.group(1)] = "c:type"
                out.append(directive_sig("c:type", [name.group(1)], body))
            else:
                out.append(body)
        pending = None
    close_group()
    if functions == 0:
        sys.exit("gen_c_api: %s declares no MONOSTAMP_API function" % path)
    return out, functions


def main(args):
    out_path = Path(args[0])
    headers = [Path(a) for a in args[1:]] or sorted((REPO / "csrc").glob("monostamp*.h"))
    if not headers:
        sys.exit("gen_c_api: no csrc/monostamp*.h")
    parts = ["# C API\n",
             "Every public header of the C library (`csrc/monostamp*.h`), each function with "
             "the comment the header gives it: generated from the headers by "
             "`tools/docs/gen_c_api.py` when the site is built. Building and linking are in "
             "[the C library](../docs/c.md).\n"]
    emitted = set()
    for header in headers:  # the first pass: the names to link
        section_of(header, emitted)
    ROLES.update(KNOWN)
    total, emitted = 0, set()
    for header in headers:
        section, count = section_of(header, emitted)
        parts += section
        total += count
    out_path.write_text("\n".join(parts), encoding="utf-8")
    print("gen_c_api: %d functions from %s -> %s"
          % (total, ", ".join(h.name for h in headers), out_path))


if __name__ == "__main__":
    main(sys.argv[1:])
