"""docs/cli.md's option tables, generated from the parser itself, so that the
reference cannot drift from the code (issue 23: a default and a rule that
the code no longer had, three flags missing).

Every command's parser (hpcbench.cli.build_parser(), nested commands such as
`advise grid` and `predict wavefront` included) gives one block of tables,
one table per argument group. `run`'s benchmark flags are read from their
options dataclasses through the registry: the help, the default (as `run
--help` writes it) and the documented range of each field, in columns of
their own.

In docs/cli.md a block sits between two marker comments:

    <!-- BEGIN generated: predict wavefront options -->
    ...
    <!-- END generated -->

    python -m hpcbench.cli._docs           rewrites the blocks of docs/cli.md
    python -m hpcbench.cli._docs --check   exit 1, naming what differs, when they are stale

A command that has no block yet gets a section of its own at the end of the
file, so a new command is documented by the next rewrite; tests/test_docs.py
fails while the file differs from what this module gives.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator

__all__ = ["CLI_MD", "command_parsers", "generated_blocks", "main", "options_block", "rewrite"]

#: docs/cli.md of the checkout this module belongs to.
CLI_MD = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "cli.md")
#: A generated block: its name, then its text up to the END marker.
BLOCK = re.compile(r"<!-- BEGIN generated: (?P<name>[^>]*?) -->\n(?P<body>.*?)<!-- END generated -->", re.S)
#: The regeneration command, as failures name it.
COMMAND = "python -m hpcbench.cli._docs"


def command_parsers(parser: argparse.ArgumentParser | None = None,
                    prefix: str = "") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(command words, parser) for every command of the CLI in the order
    `--help` lists them, nested commands after their parent ("advise",
    "advise grid"). Defaults to hpcbench.cli.build_parser()."""
    if parser is None:
        from . import build_parser
        parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                words = f"{prefix} {name}".strip()
                yield words, sub
                yield from command_parsers(sub, words)


def _cell(text: object) -> str:
    """A markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _spelling(action: argparse.Action) -> str:
    """How the option is typed: `-o, --output FILE`, `--cache-pages {normal,huge,system}`."""
    if not action.option_strings:
        return str(action.metavar or action.dest)
    if action.choices is not None:
        value = "{" + ",".join(str(c) for c in action.choices) + "}"
    elif action.nargs == 0:
        value = ""
    else:
        value = str(action.metavar or action.dest.upper())
    names = ", ".join(action.option_strings)
    return f"{names} {value}".strip()


#: A benchmark option's cells: (help, default in words, range in words or "").
_FlagCells = tuple[str, str, str]


def _benchmark_flags() -> dict[str, _FlagCells]:
    """Flag -> (help, default text, range text) of every benchmark option,
    from the options dataclasses (what `run --help` is made from)."""
    import dataclasses

    from .. import _registry
    from .._protocol import _default_text
    out: dict[str, _FlagCells] = {}
    for bench in _registry.BENCHMARKS:
        defaults = bench.options_type()
        for f in dataclasses.fields(bench.options_type):
            spec = f.metadata.get("cli")
            if spec is None:
                continue
            default = getattr(defaults, f.name)
            text = spec.default_text or _default_text(default, spec)
            out[spec.flag] = (spec.help, text, str(spec.range) if spec.range else "")
    return out


def _generic_default(action: argparse.Action) -> str:
    """An argparse default worth printing (not None, not off, not empty)."""
    default = action.default
    if default is None or default is False or default == "" or default == argparse.SUPPRESS:
        return ""
    return "on" if default is True else str(default)


def _exclusive(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """What a mutually exclusive group says of `action`, in words ("" if none)."""
    for group in parser._mutually_exclusive_groups:
        if action in group._group_actions:
            others = ", ".join(f"`{a.option_strings[0]}`" for a in group._group_actions if a is not action)
            return f"{'required unless' if group.required else 'not with'} {others}"
    return ""


def _rows(parser: argparse.ArgumentParser, action: argparse.Action,
          flags: dict[str, _FlagCells]) -> list[str]:
    """(option, meaning, default, range) of one action."""
    spelled = _spelling(action)
    if not action.option_strings and action.nargs in ("*", "+"):
        spelled = f"{spelled} ..."
    dest = action.dest
    if dest.startswith("flag--") and dest[len("flag"):] in flags:        # a benchmark's option
        help_text, default, limits = flags[dest[len("flag"):]]
        return [spelled, help_text, default, limits]
    words = [action.help % {"default": action.default, "prog": "hpcbench"}] if action.help else []
    if action.option_strings and action.required:
        words.insert(0, "required")
    elif not action.option_strings:
        words.insert(0, {"*": "none or more", "?": "optional", "+": "one or more"}.get(str(action.nargs), "required"))
    if _exclusive(parser, action):
        words.insert(0, _exclusive(parser, action))
    return [spelled, "; ".join(words), _generic_default(action), ""]


def _code(text: str) -> str:
    """A default or a range in a cell: a literal value as code, words as words."""
    if not text:
        return ""
    return _cell(text) if " " in text.strip() and not re.fullmatch(r"[\d.]+ [KMG]?i?B", text.strip()) else f"`{text}`"


def options_block(parser: argparse.ArgumentParser) -> str:
    """The markdown of one command's options: a table per argument group
    (positional arguments first), without --help."""
    flags = _benchmark_flags()
    parts = []
    for group in parser._action_groups:
        actions = [a for a in group._group_actions
                   if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]
        if not actions:
            continue
        rows = [_rows(parser, a, flags) for a in actions]
        with_range = any(r[3] for r in rows)
        head = ["option", "meaning", "default"] + (["range"] if with_range else [])
        lines = [f"*{group.title}*", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in rows:
            cells = [f"`{r[0]}`", _cell(r[1]), _code(r[2]), f"`{r[3]}`" if r[3] else ""]
            lines.append("| " + " | ".join(cells[:len(head)]) + " |")
        parts.append("\n".join(lines))
    return ("\n\n".join(parts) or "No options besides `--help`.") + "\n"


def generated_blocks() -> dict[str, str]:
    """Block name ("run options", "advise grid options", ...) -> its text, for
    every command of the CLI (a command that only groups others, `advise`,
    `predict`, has none of its own)."""
    return {f"{words} options": options_block(parser) for words, parser in command_parsers()
            if not any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)}


def _section(name: str, body: str) -> str:
    """A new section for a command that docs/cli.md does not have yet."""
    words = name[:-len(" options")]
    return (f"\n## `{words}`\n\n(Added by `{COMMAND}`: describe the command here.)\n\n"
            f"<!-- BEGIN generated: {name} -->\n{body}<!-- END generated -->\n")


def rewrite(text: str, blocks: dict[str, str] | None = None) -> str:
    """`text` (docs/cli.md) with every generated block replaced by what the
    parser gives now, and a section appended for each command without one.
    A block whose command is gone is left for a person to remove (the
    check names it)."""
    blocks = generated_blocks() if blocks is None else blocks
    out = BLOCK.sub(lambda m: (f"<!-- BEGIN generated: {m['name']} -->\n{blocks[m['name']]}<!-- END generated -->"
                               if m["name"] in blocks else m.group(0)), text)
    present = {m["name"] for m in BLOCK.finditer(text)}
    for name, body in blocks.items():
        if name not in present:
            out = out.rstrip("\n") + "\n" + _section(name, body)
    return out


def differences(text: str, blocks: dict[str, str] | None = None) -> list[str]:
    """One line per generated block of `text` that differs from the parser
    (stale, missing, or of a command that no longer exists)."""
    blocks = generated_blocks() if blocks is None else blocks
    found = {m["name"]: m["body"] for m in BLOCK.finditer(text)}
    lines = [f"block {name!r} differs from the parser" for name in blocks
             if name in found and found[name] != blocks[name]]
    lines += [f"no block for {name!r}" for name in blocks if name not in found]
    lines += [f"block {name!r} names no command of the parser" for name in found if name not in blocks]
    return lines


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(prog=COMMAND, description="Rewrite the generated option tables of docs/cli.md.")
    args.add_argument("--check", action="store_true", help="change nothing; exit 1 when the tables are stale")
    args.add_argument("path", nargs="?", default=CLI_MD, help="the file (default: this checkout's docs/cli.md)")
    ns = args.parse_args(argv)
    try:
        with open(ns.path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"{COMMAND}: cannot read {ns.path}: {e.strerror or e}", file=sys.stderr)
        return 2
    if ns.check:
        problems = differences(text)
        for line in problems:
            print(f"{COMMAND}: {ns.path}: {line}; run `{COMMAND}`", file=sys.stderr)
        return 1 if problems else 0
    new = rewrite(text)
    if new != text:
        with open(ns.path, "w", encoding="utf-8") as f:
            f.write(new)
        print(f"{COMMAND}: rewrote the generated blocks of {ns.path}")
    else:
        print(f"{COMMAND}: {ns.path} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
