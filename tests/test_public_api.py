"""The public API: every package lists its public names in __all__, each
exists, and every public function and class has a docstring; public
functions carry type hints on every parameter and on the return value."""
import importlib
import inspect
import os

import pytest

PACKAGES = ["hpcbench", "hpcbench.topology", "hpcbench.cache", "hpcbench.memory", "hpcbench.stream",
            "hpcbench.bandwidth", "hpcbench.flops", "hpcbench.numa", "hpcbench.comm",
            "hpcbench.comm.matrix", "hpcbench.micro", "hpcbench.network", "hpcbench.netmap", "hpcbench.multibsp",
            "hpcbench.report", "hpcbench.mapping", "hpcbench.predict", "hpcbench.check", "hpcbench.history",
            "hpcbench.cli"]
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "public_api.txt")


def public(package):
    module = importlib.import_module(package)
    return [(name, getattr(module, name)) for name in module.__all__]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_lists_what_exists_and_nothing_private(package):
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__, key=str.casefold) or len(module.__all__) == len(
        set(module.__all__))
    for name in module.__all__:
        assert hasattr(module, name), name
        assert not name.startswith("_") or name == "__version__", name


@pytest.mark.parametrize("package", PACKAGES)
def test_public_functions_and_classes_are_documented(package):
    missing = [name for name, obj in public(package)
               if (inspect.isfunction(obj) or inspect.isclass(obj)) and not inspect.getdoc(obj)]
    assert not missing, f"{package}: no docstring: {missing}"


@pytest.mark.parametrize("package", PACKAGES)
def test_public_functions_have_type_hints(package):
    missing = []
    for name, obj in public(package):
        if not inspect.isfunction(obj):
            continue
        sig = inspect.signature(obj)
        untyped = [p for p, v in sig.parameters.items() if v.annotation is inspect.Parameter.empty
                   and v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)]
        if untyped or sig.return_annotation is inspect.Signature.empty:
            missing.append(f"{name}({', '.join(untyped)}){'' if untyped else ' -> ?'}")
    assert not missing, f"{package}: {missing}"


def test_the_extension_ships_its_stubs():
    import os

    import hpcbench
    folder = os.path.dirname(hpcbench.__file__)
    assert os.path.isfile(os.path.join(folder, "_core.pyi")) and os.path.isfile(os.path.join(folder, "py.typed"))


def test_the_public_surface_is_the_listed_one():
    """Every public name, listed: a name that joins or leaves the public API
    is a decision, recorded in CHANGES.md and in tests/golden/public_api.txt,
    never a side effect of moving code."""
    with open(GOLDEN) as f:
        listed = f.read().split()
    now = sorted(f"{package}.{name}" for package in PACKAGES for name in importlib.import_module(package).__all__)
    assert now == listed, (f"joined: {sorted(set(now) - set(listed))}; left: {sorted(set(listed) - set(now))} "
                           "(update CHANGES.md and tests/golden/public_api.txt)")


def test_every_public_name_is_in_the_docs_or_a_notebook():
    """The public surface is what users and the docs use: each name appears
    in the README, docs/, notebooks/ or the benchmark scripts."""
    import glob
    import re
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    texts = []
    for pattern in ("README.md", "docs/*.md", "notebooks/*.ipynb", "benchmarks/*.py", "CHANGES.md"):
        for path in glob.glob(os.path.join(root, pattern)):
            with open(path, encoding="utf-8") as f:
                texts.append(f.read())
    text = "\n".join(texts)
    missing = [f"{package}.{name}" for package in PACKAGES for name in importlib.import_module(package).__all__
               if not re.search(r"\b" + re.escape(name) + r"\b", text)]
    assert not missing, missing
