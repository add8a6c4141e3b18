"""The documentation cannot drift from the code (issue 23):

* docs/cli.md's option tables are what hpcbench.cli._docs makes of the
  parser (every command, defaults and ranges from the options dataclasses);
* every `python -m hpcbench ...` / `hpcbench ...` command in the shell blocks
  (```sh, ```console, ```bash) of README.md and docs/*.md runs and exits 0
  in a temporary directory, or, when it measures (`run`, `--measure`, under
  mpiexec, srun or netcluster), judges this machine (`doctor`) or carries
  the marker `# illustration: REASON`, is at least accepted by the parser;
* docs/architecture.md's and csrc/runtime/hpcb.h's lists of files and
  kernel families match the tree.
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from hpcbench.cli import build_parser
from hpcbench.cli._common import UsageError
from hpcbench.cli._docs import COMMAND, differences, generated_blocks, rewrite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "hpcbench", "examples")
DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
#: The marker that makes a command an illustration: not run, only parsed.
ILLUSTRATION = "# illustration:"
#: Launchers: what they start is a measurement on a job's ranks, never run here.
LAUNCHERS = ("mpiexec", "mpirun", "srun", "netcluster.py")
#: Results files the docs' commands read after a measurement wrote them, and
#: the shipped example that stands in for each (the kind of run that writes
#: it: a default run on one node, a two-rank comm run with a same-cache
#: pair, ...). Per document where one name means another run.
STAND_INS = {
    "hpcbench-results.json": "node-example.json",
    "comm.json": "mapping-example.json",
    "results.json": "cache-example.json",
    "before.json": "cache-example.json",
    "after.json": "node-example.json",
}
STAND_INS_OF = {"docs/network.md": {"hpcbench-results.json": "network-example.json"}}
INVOCATION = re.compile(r"(?:^|[\s(])(?:python3? -m hpcbench|hpcbench)(?=\s|$)")
SHELL_END = {"|", "||", "&&", ";", ")", ">", ">>", "2>", "&"}



def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()

# ------------------------------------------------------------ generated tables

def test_cli_md_tables_are_what_the_parser_gives():
    text = _read(os.path.join(ROOT, "docs", "cli.md"))
    problems = differences(text)
    assert not problems, f"docs/cli.md is stale: {'; '.join(problems)}. Run `{COMMAND}`"


def test_every_command_has_a_block_and_a_new_command_gets_one():
    names = set(generated_blocks())
    assert {"run options", "show options", "advise grid options", "predict wavefront options"} <= names
    assert "advise options" not in names          # a group of commands, no options of its own
    text = "# x\n\n<!-- BEGIN generated: show options -->\nstale\n<!-- END generated -->\n"
    out = rewrite(text, {"show options": "| fresh |\n", "zap options": "| new |\n"})
    assert "<!-- BEGIN generated: show options -->\n| fresh |\n<!-- END generated -->" in out and "stale" not in out
    assert "## `zap`" in out and "<!-- BEGIN generated: zap options -->\n| new |\n<!-- END generated -->" in out
    assert differences(out, {"show options": "| fresh |\n", "zap options": "| new |\n"}) == []
    assert differences(out, {"show options": "| fresh |\n"}) == ["block 'zap options' names no command of the parser"]


def test_run_table_carries_the_dataclass_defaults_and_ranges():
    run = generated_blocks()["run options"]
    from hpcbench.cache._options import CacheOptions
    assert CacheOptions().pages == "huge"           # the issue: docs said `normal`
    assert "| `--cache-pages {normal,huge,system}` |" in run and "| `huge` |" in run
    assert "| `--cache-passes N` | sweeps over all sizes, each a few seconds | `5` | `1..100` |" in run
    for flag in ("--cache-grid", "--cache-isa", "--cache-bandwidth, --no-cache-bandwidth", "--net-cap"):
        assert f"| `{flag}" in run
    assert "1KiB" not in run.split("--cache-stride")[1].split("\n")[0]


# ------------------------------------------------------------ the commands of the docs

def _shell_blocks(path: str):
    """(line number, language, text) of every sh/console/bash block."""
    text = _read(os.path.join(ROOT, path))
    for m in re.finditer(r"^```(sh|console|bash)\n(.*?)^```", text, re.M | re.S):
        yield text[:m.start()].count("\n") + 2, m.group(1), m.group(2)


def _command_lines(language: str, body: str, first: int):
    """(line number, logical line) of each command: continuations joined; in
    a console block only the `$ ` lines (the rest is output)."""
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        number, line = first + i, lines[i]
        if language == "console":
            if not line.startswith("$ "):
                i += 1
                continue
            line = line[2:]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i].strip()
        i += 1
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def _doc_commands():
    """One pytest param per hpcbench invocation in the docs' shell blocks."""
    out = []
    for path in DOCS:
        for first, language, body in _shell_blocks(path):
            for number, line in _command_lines(language, body, first):
                m = INVOCATION.search(line)
                if m is None or not _in_command_position(line[:m.start()]):
                    continue
                out.append(pytest.param(path, number, line, id=f"{path}:{number}"))
    return out


def _in_command_position(before: str) -> bool:
    """Whether what precedes an invocation leaves it the command that runs:
    nothing, variable assignments, `timeout`, a launcher and its options, or a
    command substitution; not `pip install hpcbench` or prose."""
    words = before.replace("$(", " ").split()
    if any(os.path.basename(w) in LAUNCHERS or w in ("timeout", "env", "exec") for w in words):
        return True
    return all("=" in w for w in words)


def _argv(line: str) -> list:
    """The hpcbench arguments of a command line: after the invocation, up to
    the end of the shell command or the comment."""
    m = INVOCATION.search(line)
    words = shlex.split(line[m.end():], comments=True)
    argv = []
    for word in words:
        if word in SHELL_END or word.startswith((">", "2>")):
            break
        argv.append(word.rstrip(")") if word.endswith(")") else word)
        if word.endswith(")"):
            break
    return argv


def _is_measurement(line: str, argv: list) -> bool:
    """A command whose outcome is this machine's: it measures (`run`,
    `--measure`, anything under a launcher), or its exit status is a verdict
    on the machine (`doctor`: 1 when a check FAILs), which no test asserts."""
    before = line[:INVOCATION.search(line).start()]
    return (argv[:1] in (["run"], ["doctor"]) or "--measure" in argv
            or any(launcher in before for launcher in LAUNCHERS))


def _parses(argv: list) -> None:
    try:
        build_parser().parse_args(argv)
    except UsageError as e:
        pytest.fail(f"the parser refuses it: {e}")
    except SystemExit as e:      # --help, --version
        assert e.code == 0


DOC_COMMANDS = _doc_commands()


def test_the_docs_have_commands_of_every_kind():
    lines = [p.values[2] for p in DOC_COMMANDS]
    assert len(lines) >= 20
    assert any(ILLUSTRATION in line for line in lines)
    assert any(_is_measurement(line, _argv(line)) for line in lines)
    assert any("predict wavefront" in line and "--sweep" in line for line in lines)


@pytest.mark.parametrize("path, number, line", DOC_COMMANDS)
def test_doc_command(path, number, line, tmp_path):
    argv = _argv(line)
    assert argv, f"{path}:{number}: no hpcbench arguments in {line!r}"
    _parses(argv)
    if ILLUSTRATION in line or _is_measurement(line, argv):
        return                                   # accepted by the parser: what an illustration must be
    for name, example in {**STAND_INS, **STAND_INS_OF.get(path, {})}.items():
        shutil.copy(os.path.join(EXAMPLES, example), tmp_path / name)
    argv = [os.path.join(ROOT, a) if a.startswith("hpcbench/examples/") else a for a in argv]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI", "PMIX", "SLURM"))}
    done = subprocess.run([sys.executable, "-m", "hpcbench", *argv], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, (f"{path}:{number}: `{line.strip()}` exited {done.returncode}: "
                                  f"{done.stderr.strip()[-2000:]}")


def test_argv_extraction():
    assert _argv("cc app.c $(python -m hpcbench config --cflags --libs)") == ["config", "--cflags", "--libs"]
    assert _argv("python -m hpcbench report a.json   # -> a.html") == ["report", "a.json"]
    assert _argv("sudo python3 tools/netcluster.py mpiexec -n 4 -- python3 -m hpcbench run distance") == \
        ["run", "distance"]
    line = "mpiexec -n 2 python -m hpcbench predict wavefront --grid 64 --procs 1x2 --measure"
    assert _is_measurement(line, _argv(line))
    blocks = list(_command_lines("console", "$ python -m hpcbench map a.json \\\n    -n 6\noutput\n", 10))
    assert blocks == [(10, "python -m hpcbench map a.json  -n 6")]


# ------------------------------------------------------------ lists of files

def _fenced(path: str, first_line: str) -> str:
    text = _read(os.path.join(ROOT, path))
    start = text.index("```\n" + first_line) + 4
    return text[start:text.index("```", start)]


def test_architecture_lists_every_package_and_module_and_nothing_else():
    layout = _fenced("docs/architecture.md", "python -m hpcbench (hpcbench/cli/)")
    listed_dirs = {d.rstrip("/") for d in re.findall(r"hpcbench/[\w/]*/", layout)}
    top_modules, domain_files = set(), set()
    for line in layout.split("\n"):
        names = set(re.findall(r"(?<![\w/])(_\w+\.py)", line))
        (domain_files if line.startswith("    _") else top_modules).update(names)
        top_modules.update(re.findall(r"(?<![\w/])hpcbench/(_\w+\.py)", line))
        for path in re.findall(r"(?<![\w/])hpcbench/[\w/]+\.py", line):
            assert os.path.exists(os.path.join(ROOT, path)), f"docs/architecture.md lists {path}, which does not exist"
    for d in listed_dirs:
        assert os.path.isdir(os.path.join(ROOT, d)), f"docs/architecture.md lists {d}/, which does not exist"
    packages = {os.path.relpath(os.path.dirname(p), ROOT) for p in glob.glob(os.path.join(ROOT, "hpcbench", "**",
                                                                                           "__init__.py"),
                                                                              recursive=True)} - {"hpcbench"}
    assert not packages - listed_dirs, f"docs/architecture.md's layout lacks {sorted(packages - listed_dirs)}"
    modules = {os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "hpcbench", "_*.py"))} - {"__init__.py"}
    assert not top_modules - modules, f"docs/architecture.md lists modules that do not exist: " \
                                      f"{sorted(top_modules - modules)}"
    assert not modules - top_modules, f"docs/architecture.md's layout lacks {sorted(modules - top_modules)}"
    domains = ("cache", "memory", "comm", "network", "multibsp")
    for name in domain_files - {"__init__.py"}:
        assert any(os.path.exists(os.path.join(ROOT, "hpcbench", d, name)) for d in domains), \
            f"docs/architecture.md's domain layout lists {name}, which no domain has"


def _c_listed(block: str) -> dict:
    """csrc folder -> the file names its entry of the block gives."""
    listed: dict = {}
    folder = None
    for line in block.split("\n"):
        m = re.match(r"(csrc/\w+/)", line)
        if m:
            folder = m.group(1).rstrip("/")
        if folder is None:
            continue
        for stem, ext in re.findall(r"\b(\w+)\.(\{c,h\}|c|h)(?!\w)", line.replace(m.group(1), "") if m else line):
            for e in ("c", "h") if ext == "{c,h}" else (ext,):
                listed.setdefault(folder, set()).add(f"{stem}.{e}")
    return listed


def test_architecture_lists_every_c_file_and_nothing_else():
    block = _fenced("docs/architecture.md", "csrc/python/   module.c")
    listed = _c_listed(block)
    on_disk = {}
    for p in glob.glob(os.path.join(ROOT, "csrc", "*", "*.[ch]")):
        on_disk.setdefault(os.path.relpath(os.path.dirname(p), ROOT), set()).add(os.path.basename(p))
    for folder in sorted(set(listed) | set(on_disk)):
        missing = on_disk.get(folder, set()) - listed.get(folder, set())
        extra = listed.get(folder, set()) - on_disk.get(folder, set())
        assert not missing, f"docs/architecture.md's C core lacks {folder}/{sorted(missing)}"
        assert not extra, f"docs/architecture.md's C core lists {folder}/{sorted(extra)}, which do not exist"


def _families_on_disk() -> set:
    families = set()
    for p in glob.glob(os.path.join(ROOT, "csrc", "kernels", "*.h")):
        text = _read(p)
        families |= set(re.findall(r"int hpcb_(\w+)_check\(const struct hpcb_\1_params", text))
    return families


def test_hpcb_h_names_every_kernel_family_and_runtime_file():
    text = _read(os.path.join(ROOT, "csrc", "runtime", "hpcb.h"))
    header = text[:text.index("*/")]
    listed = re.search(r"A kernel family <f> \(([^)]*)\)", header).group(1)
    families = {w.strip() for w in listed.replace("*", " ").replace("\n", " ").split(",")}
    on_disk = _families_on_disk()
    assert len(on_disk) >= 10
    assert families == on_disk, f"csrc/runtime/hpcb.h: families listed but absent {sorted(families - on_disk)}, " \
                                f"present but not listed {sorted(on_disk - families)}"
    runtime = header[header.index("csrc/runtime/"):header.index("THE KERNEL CONTRACT")]
    named = set(re.findall(r"\b(\w+\.c)\b", runtime)) | set(re.findall(r"\b(\w+\.h)\b", runtime))
    sources = {os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "csrc", "runtime", "*.c"))} | {"hpcb.h"}
    assert named - {"hpcb.h"} <= sources and sources <= named, \
        f"csrc/runtime/hpcb.h's layout names {sorted(named)}; the folder's sources are {sorted(sources)}"


def test_parse_only_is_the_real_parser():
    # A command the parser refuses fails the test, whatever kind it is.
    with pytest.raises(pytest.fail.Exception):
        _parses(["predict", "wavefront", "--grid"])
    assert isinstance(build_parser(), argparse.ArgumentParser)
