"""tools/docs/gen_python_api.py SITE OUT: the docs site's Python API page.

Every public name of the monostamp package, as the type stubs
(bindings/python/monostamp/__init__.pyi) declare it, typed, with the
docstring of the object the package really has (imported from SITE, the
tree's wheel unpacked; defaults from its signatures where the stub writes
`...`).  The stub's private aliases (_PolicyLike, ...) are written out.
Fails, naming it, on a name of __all__ the stub lacks, or one the stub
declares that the module does not have.
"""
import ast
import inspect
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mdtext import paragraphs  # noqa: E402

REPO = Path(__file__).resolve().parent.parent.parent
STUB = REPO / "bindings" / "python" / "monostamp" / "__init__.pyi"


class Aliases(ast.NodeTransformer):
    """Replaces the stub's private names by what they stand for."""

    def __init__(self, table):
        self.table = table

    def visit_Name(self, node):
        if node.id in self.table:
            return self.visit(ast.parse(ast.unparse(self.table[node.id]), mode="eval").body)
        return node

    def visit_Constant(self, node):  # "Stamp" as a forward reference
        if isinstance(node.value, str) and node.value.isidentifier() and node.value[0].isupper():
            return ast.Name(node.value)
        return node


def alias_table(tree):
    table = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id.startswith("_"):
            value = node.value
            if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "TypeVar":
                bound = [k.value for k in value.keywords if k.arg == "bound"]
                value = bound[0] if bound else ast.Name("object")
            table[node.targets[0].id] = value
    return table


def runtime_defaults(obj):
    try:
        return {name: p.default for name, p in inspect.signature(obj).parameters.items()
                if p.default is not inspect.Parameter.empty}
    except (TypeError, ValueError):
        return {}


def signature(func, aliases, runtime, name=None):
    """name(args) -> ret from a stub def, self/cls dropped."""
    func = ast.fix_missing_locations(aliases.visit(ast.parse(ast.unparse(func)).body[0]))
    args = func.args
    if args.posonlyargs or args.args:
        first = (args.posonlyargs or args.args)[0].arg
        if first in ("self", "cls"):
            if args.posonlyargs:
                args.posonlyargs = args.posonlyargs[1:]
            else:
                args.args = args.args[1:]
    defaults = runtime_defaults(runtime) if runtime is not None else {}
    positional = args.posonlyargs + args.args
    for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if isinstance(default, ast.Constant) and default.value is Ellipsis and arg.arg in defaults:
            args.defaults[args.defaults.index(default)] = ast.Constant(defaults[arg.arg])
    for i, (arg, default) in enumerate(zip(args.kwonlyargs, args.kw_defaults)):
        if isinstance(default, ast.Constant) and default.value is Ellipsis \
                and arg.arg in defaults:
            args.kw_defaults[i] = ast.Constant(defaults[arg.arg])
    text = "%s(%s)" % (name or func.name, ast.unparse(args))
    if func.returns is not None and (name is None):
        text += " -> " + ast.unparse(func.returns)
    return text


def decorators(func):
    return {ast.unparse(d) for d in func.decorator_list}


RENDERED = []  # every docstring the page shows, for check_pointers()


def doc(obj):
    text = inspect.getdoc(obj) if obj is not None else None
    if text:
        RENDERED.append(text)
    return paragraphs(text) if text else ""


def page_titles():
    """{title of a docs/ page: its file name}."""
    return {page.read_text(encoding="utf-8").split("\n", 1)[0][2:].replace("`", ""): page.name
            for page in sorted((REPO / "docs").glob("*.md"))}


def link_pointers(markdown):
    """'see "Precise sleep" in the monostamp docs' made a link to that page."""
    titles = page_titles()

    def link(match):
        said = " ".join(match.group(1).split())
        pages = [name for title, name in titles.items() if title.startswith(said)]
        return ('"[%s](../docs/%s)"%s' % (match.group(1), pages[0], match.group(2))
                if pages else match.group(0))
    return re.sub(r'"([^"\[\]]+)"(\s+in\s+the\s+monostamp\s+docs)', link, markdown)


def check_pointers(package_dir):
    """Docstrings point to pages by title ('see "Precise sleep" in the
    monostamp docs': the wheel ships no docs/); each title must open the
    title of a page of docs/.  Read from the docstrings shown and from the
    package's sources (the private modules' and the plugin's too)."""
    titles = list(page_titles())
    texts = RENDERED + [p.read_text(encoding="utf-8") for p in sorted(
        Path(package_dir).glob("*.py*")) if p.suffix in (".py", ".pyi")]
    faults = []
    for text in texts:
        flat = " ".join(text.replace("#:", " ").split())
        for title in re.findall(r'"([^"]+)" in the monostamp docs', flat):
            if not any(t.startswith(title) for t in titles):
                faults.append('"%s" in the monostamp docs: no page of docs/ has that title '
                              "(%s)" % (title, "; ".join(titles)))
    return sorted(set(faults))


def directive(kind, sigs, body, options=()):
    """{py:kind} for each signature (an overload each), the last with the
    body and the index entry: MyST reads a directive's argument from its
    first line alone."""
    fence = "````" if "```" in body else "```"
    out = []
    for i, sig in enumerate(sigs):
        last = i == len(sigs) - 1
        lines = [fence + "{py:%s} %s" % (kind, sig)]
        lines += [":%s" % o for o in options]  # "key: value" or "flag:"
        lines += [] if last else [":no-index:"]
        out.append("\n".join(lines) + "\n" + ("\n" + body if body and last else "") + fence
                   + "\n")
    return "\n".join(out)


def main(out_path):
    import monostamp

    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    aliases = Aliases(alias_table(tree))
    declared = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.setdefault(node.target.id, []).append(node)
    faults = ["monostamp.%s is in __all__ but not in %s" % (n, STUB.relative_to(REPO))
              for n in monostamp.__all__ if n not in declared]
    public = [n for n in declared if not n.startswith("_") or n == "__version__"]
    faults += ["%s declares monostamp.%s, which the module does not have"
               % (STUB.relative_to(REPO), n) for n in public if not hasattr(monostamp, n)]
    if faults:
        sys.exit("\n".join(faults))

    parts = ["# Python API\n",
             "Every public name of the `monostamp` package, with its types as the package's "
             "stubs (`monostamp/__init__.pyi`) declare them and the docstring the module "
             "itself carries: generated from both by `tools/docs/gen_python_api.py` when "
             "the site is built. The guides are [Python](../docs/python.md), "
             "[pytest](../docs/pytest.md) and [patching](../docs/patch.md).\n",
             "```{py:module} monostamp\n```\n"]
    constants, classes, functions = [], [], []
    for name in public:
        nodes = declared[name]
        kind = type(nodes[0]).__name__
        {"AnnAssign": constants, "ClassDef": classes, "FunctionDef": functions}[kind].append(name)

    parts.append("## Constants\n")
    for name in constants:
        value = getattr(monostamp, name)
        ann = ast.unparse(aliases.visit(declared[name][0].annotation))
        parts.append(directive("data", [name], "`%s = %r`\n" % (ann, value)))

    parts.append("## Classes\n")
    for name in classes:
        cls_node, runtime = declared[name][0], getattr(monostamp, name)
        ctor = [n for n in cls_node.body if isinstance(n, ast.FunctionDef)
                and n.name in ("__new__", "__init__")]
        sig = signature(ctor[0], aliases, runtime, name) if ctor else name
        bases = [ast.unparse(b) for b in cls_node.bases]
        body = doc(runtime)
        if bases and bases != ["object"]:
            body = "Bases: %s\n\n" % ", ".join("`%s`" % b for b in bases) + body
        members = []
        seen = set()
        for node in cls_node.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                    and not node.target.id.startswith("_"):
                attr = node.target.id
                ann = ast.unparse(aliases.visit(node.annotation))
                value = getattr(runtime, attr, None)
                text = "`%s`" % ann + ("; `%r`" % (value,) if value is not None else "")
                members.append(directive("attribute", [attr], text + "\n"))
            elif isinstance(node, ast.FunctionDef) and not node.name.startswith("_") \
                    and node.name not in seen:
                seen.add(node.name)
                member = inspect.getattr_static(runtime, node.name, None)
                obj = getattr(runtime, node.name, None)
                decos = decorators(node)
                if "property" in decos:
                    ret = ast.unparse(aliases.visit(node.returns))
                    opts = ["type: " + ret]
                    members.append(directive("property", [node.name], doc(member), opts))
                else:
                    overloads = [n for n in cls_node.body if isinstance(n, ast.FunctionDef)
                                 and n.name == node.name]
                    sigs = [signature(n, aliases, obj) for n in overloads]
                    opts = ["classmethod:"] if "classmethod" in decos else []
                    members.append(directive("method", sigs, doc(obj), opts))
        inner = body + ("\n" + "\n".join(members) if members else "")
        parts.append(directive("class", [sig], inner))

    parts.append("## Functions\n")
    for name in sorted(functions, key=lambda n: monostamp.__all__.index(n)
                       if n in monostamp.__all__ else 999):
        runtime = getattr(monostamp, name)
        sigs = [signature(n, aliases, runtime) for n in declared[name]]
        parts.append(directive("function", sigs, doc(runtime)))

    faults = check_pointers(Path(monostamp.__file__).parent)
    if faults:
        sys.exit("gen_python_api: " + "\ngen_python_api: ".join(faults))
    Path(out_path).write_text(link_pointers("\n".join(parts)), encoding="utf-8")
    print("gen_python_api: %d constants, %d classes, %d functions -> %s"
          % (len(constants), len(classes), len(functions), out_path))


if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])
    main(sys.argv[2])
