"""No import cycle inside the monostamp package, and no module __getattr__.

Every import between the package's modules is read from their source
(ast), the deferred ones inside functions included, so a cycle that only
closes when a function first runs is found too.  Every submodule whose name
the package's __init__ holds as a string counts as imported by it, should
it load one by name.
"""
import ast
import os
import sys

import monostamp


def import_graph(package_dir, package="monostamp"):
    """{module: set of package modules it imports}, for the .py files."""
    modules = {name[:-3] for name in os.listdir(package_dir) if name.endswith(".py")}

    def full(name):
        return package if name == "__init__" else package + "." + name

    def submodule(name):
        # An extension module counts too: a leaf, it imports nothing of ours.
        exists = name in modules or any(
            f.startswith(name + ".") and not f.endswith((".py", ".pyi", ".pyc"))
            for f in os.listdir(package_dir))
        return full(name) if exists else None

    graph = {}
    for name in sorted(modules):
        with open(os.path.join(package_dir, name + ".py"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == package:
                        edges.add(alias.name if len(parts) == 2 else package)
            elif isinstance(node, ast.ImportFrom):
                target = node.module or ""
                if node.level == 0 and not target.startswith(package):
                    continue
                if node.level > 0 and target:
                    edges.add(full(target.split(".")[0]))
                elif target and target != package:
                    edges.add(target)
                else:  # from . import x / from monostamp import x
                    for alias in node.names:
                        edges.add(submodule(alias.name) or package)
            elif (name == "__init__" and isinstance(node, ast.Constant)
                  and isinstance(node.value, str) and node.value in modules):
                edges.add(full(node.value))
        edges.discard(full(name))
        graph[full(name)] = edges
    return graph


def find_cycle(graph):
    """One cycle as a list of modules (first == last), or None."""
    state = {}  # module -> 1 on the path, 2 done

    def visit(node, path):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def test_the_package_has_no_import_cycle():
    graph = import_graph(os.path.dirname(monostamp.__file__))
    # The scan sees the imports it must (else it would prove nothing).
    assert "monostamp._compose" in graph["monostamp._patching"]
    assert "monostamp._patching" in graph["monostamp"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_scan_finds_a_deferred_cycle(tmp_path):
    # Two modules importing each other, one only inside a function, as
    # _compose and _patching once did: the check above can fail.
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "a.py").write_text("from . import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from . import a\n")
    cycle = find_cycle(import_graph(str(tmp_path), package="pkg"))
    assert cycle is not None and set(cycle) == {"pkg.a", "pkg.b"}


def test_no_module_of_the_package_has_a_module_getattr():
    # CPython does not specialise attribute reads on a module whose
    # namespace holds __getattr__ (PEP 562): monostamp.time_ns() cost 1.6x
    # time.time_ns() while the package had one.  Every public name is
    # bound at import instead, Policy included.
    package_dir = os.path.dirname(monostamp.__file__)
    for name in sorted(os.listdir(package_dir)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(package_dir, name), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        top = {node.name for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        top |= {target.id for node in tree.body if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Name)}
        assert "__getattr__" not in top, name
    # The extension's namespace too, and every submodule loaded by now.
    loaded = [m for n, m in sorted(sys.modules.items())
              if n == "monostamp" or n.startswith("monostamp.")]
    assert monostamp._monostamp in loaded and monostamp._policy in loaded
    for module in loaded:
        assert "__getattr__" not in vars(module), module.__name__
    assert vars(monostamp)["Policy"] is monostamp._policy.Policy
