"""The layout of the C core (csrc/), checked as text: no build needed.

csrc/runtime/ (no Python) <- csrc/kernels/ (no Python) <- csrc/python/ (the
only files that include Python.h, NumPy or mpi4py). Includes never form a
cycle, and neither do the calls between the glue files: module.c -> family
glue files -> glue.c, never back. Each analyser is also run on small
synthetic sources, so that a broken analyser cannot pass everything."""
import posixpath
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
# Where a quoted include may resolve besides the including file's folder:
# libhpcbdegr's public header lives with the package (setup.py's -I).
OTHER_INCLUDE_DIRS = {"hpcbench/include": ROOT / "hpcbench" / "include"}

PYTHON_HEADERS = re.compile(r'#\s*include\s*[<"](Python\.h|numpy/[^>"]+|mpi4py/[^>"]+)[>"]')
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def read_sources(root: Path = CSRC) -> dict:
    """Every .c and .h file below root, by path relative to it (posix)."""
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(root.rglob("*")) if p.suffix in (".c", ".h")}


def strip_comments_and_strings(text: str) -> str:
    """C text without comments, string and character literals (kept as
    empty quotes), so that names inside them are not taken for code."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)
    return pattern.sub(lambda m: '""' if m.group(0)[0] == '"' else ("''" if m.group(0)[0] == "'" else " "), text)


def resolve_include(path: str, name: str, files: dict):
    """The file a quoted include names: relative to the including file (as
    the build resolves it), else an external include dir; None if neither."""
    candidate = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
    if candidate in files:
        return candidate
    for label, folder in OTHER_INCLUDE_DIRS.items():
        if (folder / name).is_file():
            return f"{label}/{name}"
    return None


def include_graph(files: dict) -> dict:
    """file -> the csrc files it includes (quoted includes only)."""
    graph = {}
    for path, text in files.items():
        names = QUOTED_INCLUDE.findall(text)
        graph[path] = {target for target in (resolve_include(path, n, files) for n in names) if target in files}
    return graph


def find_cycle(graph: dict):
    """A list of nodes forming a cycle (the first repeated at the end), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


# A function definition at file scope: a return type (group 1, which says
# whether it is static), a name, a parameter list and the opening brace.
# This codebase starts them at column 0.
DEFINITION = re.compile(r"^([A-Za-z_][\w \t\*]*?)\b([A-Za-z_]\w*)\s*\([^;{}()]*\)\s*\{", re.MULTILINE)
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


def functions(text: str, public_only: bool = True) -> set:
    """Names of the functions a C file defines (the non-static ones only,
    unless public_only is False)."""
    code = strip_comments_and_strings(text)
    return {m.group(2) for m in DEFINITION.finditer(code)
            if not (public_only and re.match(r"static\b", m.group(1)))}


def public_functions(text: str) -> set:
    return functions(text)


def call_graph(files: dict) -> dict:
    """file -> the files whose non-static functions it uses (calls, or takes
    the address of, as a method table does). Only the .c files given."""
    defined = {path: public_functions(text) for path, text in files.items() if path.endswith(".c")}
    owner = {}
    for path, names in defined.items():
        for name in names:
            owner.setdefault(name, set()).add(path)
    graph = {}
    for path in defined:
        # A name the file defines itself, static or not, is its own.
        used = set(IDENTIFIER.findall(strip_comments_and_strings(files[path]))) - functions(files[path], False)
        graph[path] = {other for name in used for other in owner.get(name, ()) if other != path}
    return graph


def layering_problems(files: dict) -> list:
    """Includes that break the layers: Python, NumPy or mpi4py headers
    outside csrc/python; any header of csrc/python from kernels or runtime;
    any header of csrc/kernels from runtime."""
    problems = []
    graph = include_graph(files)
    for path, text in files.items():
        layer = path.split("/")[0]
        if layer != "python":
            problems += [f"{path} includes {m.group(1)}" for m in PYTHON_HEADERS.finditer(text)]
        for target in graph[path]:
            target_layer = target.split("/")[0]
            if layer in ("kernels", "runtime") and target_layer == "python" or \
                    layer == "runtime" and target_layer == "kernels":
                problems.append(f"{path} ({layer}) includes {target} ({target_layer})")
    return problems


# ---- the analysers on synthetic sources ------------------------------------

def test_cycle_finder_finds_cycles_and_only_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"a"}}) == ["a", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"d"}, "d": {"b"}}) == ["b", "c", "d", "b"]
    assert find_cycle({}) is None


def test_include_graph_resolves_relative_paths():
    files = {
        "python/glue.c": '#include "glue.h"\n#include "../kernels/k.h"\n#include <Python.h>\n',
        "python/glue.h": '#include "../runtime/r.h"\n',
        "kernels/k.h": '#include "../runtime/r.h"\n/* #include "../python/glue.h" is only a comment */\n',
        "runtime/r.h": "",
    }
    graph = include_graph(files)
    assert graph["python/glue.c"] == {"python/glue.h", "kernels/k.h"}
    assert graph["kernels/k.h"] == {"runtime/r.h"} and find_cycle(graph) is None
    files["runtime/r.h"] = '#include "../kernels/k.h"\n'
    assert find_cycle(include_graph(files)) == ["kernels/k.h", "runtime/r.h", "kernels/k.h"]


def test_call_graph_sees_public_functions_only():
    files = {
        "python/module.c": ("static int helper(void) { return 1; }\nint init(void)\n{\n"
                            "    return glue_raise() + helper();\n}\n"),
        "python/glue.c": "/* init() is named here */\nint glue_raise(void)\n{\n    return 0;\n}\n",
        "python/family.c": "static int init(void) { return 2; }\nint family(void)\n{\n    return init();\n}\n",
    }
    graph = call_graph(files)
    assert graph == {"python/module.c": {"python/glue.c"}, "python/glue.c": set(), "python/family.c": set()}
    assert find_cycle(graph) is None
    files["python/glue.c"] += "int back(void)\n{\n    return init();\n}\n"   # glue.c calls module.c
    assert find_cycle(call_graph(files)) == ["python/glue.c", "python/module.c", "python/glue.c"]


def test_public_functions_reads_multiline_definitions():
    text = ("PyMODINIT_FUNC PyInit__core(void)\n{\n}\n"
            "int hpcb_x_check(const struct hpcb_x_params *p,\n                 struct hpcb_why *why)\n{\n}\n"
            "static inline int hidden(void) { return 0; }\n"
            "static PyMethodDef methods[] = {\n    {\"f\", f, METH_VARARGS, \"f(x)\"},\n};\n")
    assert public_functions(text) == {"PyInit__core", "hpcb_x_check"}


def test_layering_finds_python_below_the_glue():
    files = {
        "python/glue.h": "#include <Python.h>\n",
        "kernels/k.c": '#include "../python/glue.h"\n#include <numpy/arrayobject.h>\n',
        "runtime/r.c": '#include "../kernels/k.h"\n',
        "kernels/k.h": "",
    }
    assert sorted(layering_problems(files)) == [
        "kernels/k.c (kernels) includes python/glue.h (python)",
        "kernels/k.c includes numpy/arrayobject.h",
        "runtime/r.c (runtime) includes kernels/k.h (kernels)",
    ]


# ---- the real tree ---------------------------------------------------------

@pytest.fixture(scope="module")
def sources():
    files = read_sources()
    assert any(p.startswith("python/") for p in files) and any(p.startswith("kernels/") for p in files)
    return files


def test_every_quoted_include_resolves(sources):
    missing = [f"{path}: {name}" for path, text in sources.items() for name in QUOTED_INCLUDE.findall(text)
               if resolve_include(path, name, sources) is None]
    assert not missing, "includes that resolve to no file: " + ", ".join(missing)


def test_includes_form_no_cycle(sources):
    assert find_cycle(include_graph(sources)) is None


def test_glue_files_call_each_other_without_cycles(sources):
    glue = {p: t for p, t in sources.items() if p.startswith("python/")}
    graph = call_graph(glue)
    assert find_cycle(graph) is None, graph
    # The direction the layout promises: module.c reaches the others, glue.c none.
    assert graph["python/glue.c"] == set()
    assert "python/glue.c" in graph["python/module.c"]


def test_only_the_glue_sees_python(sources):
    assert layering_problems(sources) == []
