"""The repository's scripts (benchmarks/*.py, tools/*.py) imported by path
for the tests, once each: a benchmark script imports its siblings
(build_peers) as top-level modules, so they are loaded under their own
names and kept in sys.modules."""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_script(folder: str, name: str):
    """ROOT/folder/name.py as the module `name` (the one already loaded, if any)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, folder, f"{name}.py"))
    assert spec is not None and spec.loader is not None, f"no script {folder}/{name}.py"
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_benchmark(name: str):
    """benchmarks/name.py, with its sibling build_peers loaded first."""
    load_script("benchmarks", "build_peers")
    return load_script("benchmarks", name)
