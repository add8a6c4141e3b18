"""The sdist and the wheel hold what a build and a user need (issue #23):
every C source setup.py compiles and every header they include are in
MANIFEST.in's reach, the shipped examples are package data, the licence
and the citation are there, and a missing matplotlib names the `plot` extra.

Read from the files themselves (setup.py is parsed, not run). The slow test
makes a real sdist with `python -m build` from a copy of the checkout; the
whole install is tools/smoke.sh's job (CI runs it)."""
from __future__ import annotations

import ast
import fnmatch
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def setup_list(name: str) -> list[str]:
    """The list literal assigned to `name` at the top of setup.py."""
    with open(os.path.join(ROOT, "setup.py")) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"setup.py assigns no {name}")


def manifest_files() -> set[str]:
    """Every file of the checkout that MANIFEST.in's lines reach, with setuptools'
    own reading of them (relative paths, '/' separators)."""
    from setuptools.command.egg_info import FileList

    files = FileList()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        files.findall()
        with open("MANIFEST.in") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    files.process_template_line(line)
    finally:
        os.chdir(cwd)
    return {path.replace(os.sep, "/") for path in files.files}


def included_headers(source: str) -> set[str]:
    """The files a C source includes with quotes, resolved against its own
    directory and the include path setup.py gives (hpcbench/include)."""
    found = set()
    with open(os.path.join(ROOT, source)) as f:
        for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), flags=re.M):
            for base in (os.path.dirname(source), "hpcbench/include"):
                candidate = os.path.normpath(os.path.join(base, name))
                if os.path.isfile(os.path.join(ROOT, candidate)):
                    found.add(candidate.replace(os.sep, "/"))
                    break
            else:
                raise AssertionError(f"{source} includes {name!r}, which is not in the checkout")
    return found


def package_data_patterns() -> list[str]:
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]["package-data"]["hpcbench"]


def test_setup_compiles_every_c_source_of_the_checkout():
    compiled = setup_list("SOURCES") + setup_list("DEGR_SOURCES")
    assert len(compiled) == len(set(compiled))
    for source in compiled:
        assert os.path.isfile(os.path.join(ROOT, source)), source
    on_disk = {os.path.relpath(p, ROOT).replace(os.sep, "/") for p in glob.glob(os.path.join(ROOT, "csrc/*/*.c"))}
    assert on_disk == set(compiled), "a C file in csrc/ that setup.py does not compile, or the other way round"
    assert "csrc/degr/degr.c" in compiled


def test_manifest_reaches_every_source_and_header_the_build_reads():
    reached = manifest_files()
    compiled = setup_list("SOURCES") + setup_list("DEGR_SOURCES")
    needed = set(compiled) | {"setup.py", "pyproject.toml", "README.md", "LICENSE", "hpcbench/include/hpcb_degr.h"}
    pending = list(compiled)
    while pending:   # headers include headers
        for header in included_headers(pending.pop()) - needed:
            needed.add(header)
            pending.append(header)
    assert not needed - reached, f"not in MANIFEST.in's reach: {sorted(needed - reached)}"
    headers = {os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "csrc/*/*.h"))}
    assert not headers - reached


def test_manifest_leaves_out_tests_and_built_files():
    reached = manifest_files()
    for prefix in ("tests/", "benchmarks/", "tools/", ".ci/", "notebooks/"):
        assert not [p for p in reached if p.startswith(prefix)], prefix
    assert not [p for p in reached if p.endswith((".so", ".o"))]


def test_every_shipped_example_is_package_data():
    patterns = package_data_patterns()
    examples = sorted(os.listdir(os.path.join(ROOT, "hpcbench", "examples")))
    shipped = [name for name in examples if name.endswith((".json", ".degr"))]
    assert shipped, "no example files in hpcbench/examples"
    for name in shipped:
        assert any(fnmatch.fnmatch(f"examples/{name}", p) for p in patterns), name
    assert "include/*.h" in patterns and "lib/*.so" in patterns


def test_licence_and_citation():
    with open(os.path.join(ROOT, "LICENSE")) as f:
        licence = f.read()
    assert "BSD 3-Clause License" in licence
    assert "Copyright (c) 2026, the hpcbench developers" in licence
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]
    assert {"plot", "test", "notebooks"} <= set(project["optional-dependencies"])
    assert all(url.startswith("https://github.com/hpcbench/hpcbench") for url in project["urls"].values())
    with open(os.path.join(ROOT, "CITATION.cff")) as f:
        citation = f.read()
    assert citation.startswith("cff-version: 1.2.0")
    references = citation[citation.index("\nreferences:"):]
    assert references.count("\n  - type:") == 5
    for title in ("Servet: A Benchmark Suite", "The Servet 3.0 Benchmark Suite", "MBSPDiscover",
                  "CoMet: A Synthetic Benchmark", "Performance prediction and procurement in practice"):
        assert title in references, title


def test_missing_matplotlib_names_the_plot_extra(monkeypatch):
    # None in sys.modules makes `import matplotlib...` raise ImportError, as when it is not installed.
    for name in ("matplotlib", "matplotlib.figure"):
        monkeypatch.setitem(sys.modules, name, None)
    from hpcbench import _plot
    from hpcbench.report._figures import matplotlib_missing

    assert "pip install 'hpcbench[plot]'" in matplotlib_missing()
    with pytest.raises(ImportError, match=re.escape("pip install 'hpcbench[plot]'")):
        _plot.new_figure()


@pytest.mark.slow
def test_sdist_holds_the_build_inputs_and_no_tests(tmp_path):
    if importlib.util.find_spec("build") is None:
        pytest.skip("the 'build' package is not installed (tools/install.sh installs it)")
    # From a copy: building in the checkout would write hpcbench.egg-info into it.
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "build-*", "*.egg-info", "__pycache__", ".pytest_cache", ".ipynb_checkpoints"))
    # No isolation: an sdist needs only setuptools (tools/install.sh installs 77+), not the network.
    run = subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--skip-dependency-check",
                          "--outdir", str(tmp_path / "dist"), str(source)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (sdist,) = (tmp_path / "dist").glob("hpcbench-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    examples = [f"hpcbench/examples/{n}" for n in os.listdir(os.path.join(ROOT, "hpcbench", "examples"))
                if n.endswith(".json")]
    expected = {"csrc/degr/degr.c", "LICENSE", "CITATION.cff", "setup.py", "pyproject.toml",
                "hpcbench/include/hpcb_degr.h", "hpcbench/examples/__init__.py", *examples,
                *setup_list("SOURCES")}
    assert not expected - names, sorted(expected - names)
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", "tools/", ".ci/"))]
    assert not [n for n in names if n.endswith((".so", ".o", ".pyc"))]
