"""The import graph of the hpcbench package has no cycle (data flows one
way, docs/architecture.md). Built from the source with ast: no module is
imported, and imports inside functions count as much as those at the top."""
import ast
import os
from pathlib import Path

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hpcbench")


def module_name(path: str) -> str:
    rel = os.path.relpath(path, os.path.dirname(ROOT))[:-3].replace(os.sep, ".")
    return rel[:-len(".__init__")] if rel.endswith(".__init__") else rel


def modules() -> dict:
    """Module name -> its source file, for every .py file of the package;
    compiled extensions (hpcbench._core) are modules without imports (None)."""
    out = {}
    for folder, _, files in os.walk(ROOT):
        for f in files:
            path = os.path.join(folder, f)
            if f.endswith(".py"):
                out[module_name(path)] = path
            elif f.endswith((".so", ".pyi")) and f.split(".")[0].startswith("_"):
                out.setdefault(module_name(os.path.join(folder, f.split(".")[0] + ".py")), None)
    return out


def imported(name: str, path: str, known: dict) -> set:
    """Package modules that `name` imports (from x import y counts x, and
    x.y where y is a module)."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(Path(path).read_text(), path)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            # `from pkg import mod` depends on pkg.mod; `from pkg import name` on pkg
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def graph() -> dict:
    known = modules()
    return {name: imported(name, path, known) if path else set() for name, path in known.items()}


def find_cycle(edges: dict):
    """A list of nodes forming a cycle, or None (iterative depth-first search)."""
    state = {}
    for start in sorted(edges):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(edges.get(start, ()))))]
        path = [start]
        state[start] = 1                      # 1: on the current path, 2: done
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif not state.get(child):
                state[child] = 1
                stack.append((child, iter(sorted(edges.get(child, ())))))
                path.append(child)
    return None


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"a"}}) == ["a", "a"]


def test_the_graph_sees_relative_imports():
    g = graph()
    assert "hpcbench._record" in g["hpcbench._results"]
    assert "hpcbench._registry" in g["hpcbench._results"]
    assert "hpcbench.cache" in g["hpcbench._registry"]
    assert g["hpcbench._core"] == set()     # the extension imports nothing of the package
    assert "hpcbench._core" in g["hpcbench._timer"] and "hpcbench" not in g["hpcbench._timer"]


def test_no_import_cycle():
    cycle = find_cycle(graph())
    assert cycle is None, " -> ".join(cycle)


@pytest.mark.parametrize("package", ["cache", "memory", "comm", "network", "multibsp", "topology"])
def test_domains_do_not_import_the_registry_or_the_cli(package):
    """A domain owns its benchmark; only the registry knows them all."""
    g = graph()
    for name, targets in g.items():
        if name.startswith(f"hpcbench.{package}"):
            bad = {t for t in targets if t.startswith(("hpcbench._registry", "hpcbench.cli", "hpcbench._runner",
                                                       "hpcbench._show", "hpcbench._results"))}
            assert not bad, f"{name} imports {bad}"


LAZY_PACKAGES = ["hpcbench", "hpcbench.cache", "hpcbench.comm", "hpcbench.comm.matrix", "hpcbench.memory",
                 "hpcbench.multibsp", "hpcbench.network", "hpcbench.topology", "hpcbench.stream",
                 "hpcbench.bandwidth", "hpcbench.flops", "hpcbench.numa", "hpcbench.netmap"]


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_a_lazy_package_says_each_name_once_the_same_way(package):
    """__all__, the lazy export table and the TYPE_CHECKING imports list the
    same names, each from the submodule that defines it."""
    import importlib
    module = importlib.import_module(package)
    with open(module.__file__) as f:
        tree = ast.parse(f.read())
    table = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                 and getattr(n.targets[0], "id", "") in ("_EXPORTS", "_LAZY"))
    guarded = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    imported = {(("." * imp.level) + (imp.module or ""), a.name) for imp in guarded.body
                if isinstance(imp, ast.ImportFrom) for a in imp.names}
    exported = {(where.partition(":")[0], where.partition(":")[2] or name)
                for where, names in table.items() for name in names}
    assert imported == exported
    eager = {"__version__"} if package == "hpcbench" else set()
    assert set(module.__all__) == {name for names in table.values() for name in names} | eager
    for name in module.__all__:
        assert getattr(module, name) is not None
