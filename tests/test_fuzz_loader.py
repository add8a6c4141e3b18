"""Mutants of the shipped examples: the loader accepts a file or refuses it
with its own one-line ResultsError, never another exception; and whatever it
accepts, `show`, `degr`, `advise grid` and the ratio accessors handle (exit
status 0, or 2 with one line; finite positive ratios). Seeded: the same
mutants every run, 500 of them. Whatever the loader accepts, the HTML
report draws too: a well-formed page with no part missing, figures for one
in ten (each costs a few tenths of a second); in the same loop, so that
each mutant is made and loaded once."""
import copy
import glob
import io
import json
import math
import os
import random
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import hpcbench
from hpcbench.cli import main

HERE = os.path.dirname(os.path.abspath(__file__))
def slim(node):
    """The examples with long lists of numbers cut to 8: the same structure,
    a tenth of the text to parse 500 times."""
    if isinstance(node, dict):
        return {k: slim(v) for k, v in node.items()}
    if isinstance(node, list):
        if len(node) > 8 and all(isinstance(v, (int, float)) or v is None for v in node):
            return node[:8]
        return [slim(v) for v in node]
    return node


# Results files only: hpcbench/examples also holds inputs such as francesca-profile.json.
EXAMPLES = {os.path.basename(p): json.loads(Path(p).read_text())
            for p in sorted(glob.glob(os.path.join(HERE, "..", "hpcbench", "examples", "*-example.json")))}
SLIM = {name: slim(data) if name == "comm-example.json" else data for name, data in EXAMPLES.items()}
# Each example's text once: a mutant starts from json.loads of it, a deep copy made in C (copy.deepcopy of the
# 6 MB mapping example took most of the half minute the 500 mutants cost to make; the mutants are the same).
SLIM_TEXT = {name: json.dumps(data) for name, data in SLIM.items()}
MUTANTS = int(os.environ.get("HPCBENCH_FUZZ_MUTANTS", "500"))   # more for a long hunt
SEED = int(os.environ.get("HPCBENCH_FUZZ_SEED", "20261123"))

#: Values a mutation puts in place of another.
REPLACEMENTS = [None, True, False, "x", "", -1, 0, 1, -1.5, 0.0, 1e308, -1e308, 10 ** 30, [], {}, [[]], {"a": 1},
                [1, 2, 3], "1", 3.5, 2 ** 63, -(2 ** 63)]


def places(node, path=()):
    """Every (container, key) of the tree, raw samples and the topology
    summary aside (plain data no summary reads): the places a mutation may
    change."""
    out = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, value in items:
        if key in ("raw", "topology") and isinstance(node, dict):     # plain data nothing reads
            continue
        out.append((node, key))
        if not (isinstance(value, list) and all(isinstance(v, (int, float)) or v is None for v in value)):
            out.extend(places(value, path + (key,)))    # a list of numbers is one place, not one per number
    return out


def mutate_value(value, rng):
    """A change that keeps the type where it can: what a bug or a careless
    edit produces, and what the record types must catch when it matters."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return rng.choice([0, -value, value * 1e300, value + 0.5, -1, 10 ** 30, value // 2 if value else 1])
    if isinstance(value, str):
        return rng.choice(["", "x", value * 2, "0", "abc"])
    if isinstance(value, list):
        if not value or rng.random() < 0.3:
            return []
        return rng.choice([value[:-1], value[1:], value + value[-1:], list(reversed(value)), [value[0]]])
    if isinstance(value, dict):
        value = dict(value)
        if value and rng.random() < 0.6:
            del value[rng.choice(list(value))]
        else:
            value[rng.choice(["abc", "0", "-1", "999999999", "1.5"])] = rng.choice([1.0, 0, "x", None])
        return value
    return rng.choice(REPLACEMENTS)


def mutate_tree(data, rng):
    spots = places(data)
    for _ in range(rng.choice([1, 1, 2, 3])):
        parent, key = rng.choice(spots)
        op = rng.random()
        if op < 0.6:
            parent[key] = mutate_value(parent[key], rng)
        elif op < 0.75:
            parent[key] = copy.deepcopy(rng.choice(REPLACEMENTS))
        elif op < 0.9 and isinstance(parent, dict):
            del parent[key]
            spots = places(data)
        elif isinstance(parent, dict):
            parent[f"{key}_renamed"] = parent.pop(key)
            spots = places(data)
    return json.dumps(data)


def mutate_text(text, rng):
    op = rng.random()
    if op < 0.3:
        return text[: rng.randrange(len(text))]
    if op < 0.5:
        i = rng.randrange(len(text))
        return text[:i] + rng.choice(["NaN", "Infinity", "-", "}", "]", ",", "\x00", "\"", "9" * 5000]) + text[i:]
    if op < 0.6:
        return "[" * 5000 + "]" * 5000
    if op < 0.7:
        return text.replace('"format_version": 1', rng.choice(['"format_version": true', '"format_version": 1.0',
                                                                '"format_version": "1"']))
    if op < 0.8:
        return '{"format": "hpcbench-results", "format_version": 1, "context": ' + "[" * 3000 + "]" * 3000 + \
            ', "benchmarks": []}'
    i = rng.randrange(len(text))
    return text[:i] + chr(rng.randrange(32, 127)) + text[i + 1:]


def mutants():
    rng = random.Random(SEED)
    names = sorted(EXAMPLES)
    for n in range(MUTANTS):
        name = names[n % len(names)]
        if rng.random() < 0.8:
            yield name, n, mutate_tree(json.loads(SLIM_TEXT[name]), rng)
        else:
            yield name, n, mutate_text(SLIM_TEXT[name], rng)


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def check_accepted(results, path, tmp_path):
    problems = []
    status, _, err = cli("show", path)
    if status != 0:
        problems.append(f"show: exit {status}: {err.strip()}")
    for accessor, table in (("dist", results.network_dist_ratios), ("access", results.network_access_ratios)):
        for key, value in table.items():
            if not (isinstance(key, int) and key >= 1 and math.isfinite(value) and value > 0):
                problems.append(f"{accessor} ratio {key}: {value}")
    for args in (("degr", path, "-o", str(tmp_path / "m.degr")),
                 ("advise", "grid", "--rows", "2", "--cols", "4", "--row-volume", "1MiB", "--col-volume", "1KiB",
                  "--results", path)):
        status, _, err = cli(*args)
        if status not in (0, 2) or (status == 2 and len(err.strip().splitlines()) != 1) or "internal error" in err:
            problems.append(f"{args[0]}: exit {status}: {err.strip()}")
        if args[0] == "degr" and status == 0:
            hpcbench.network.read_degradation_file(str(tmp_path / "m.degr"))   # what degr writes reads back
    return problems


def report_problems(results, figures: bool) -> list:
    """What is wrong with the report page of `results`: html_errors of the
    page and every part's problems; an exception is one."""
    from htmlcheck import html_errors

    from hpcbench.report._page import single_page
    try:
        page, views = single_page(results, figures=figures)
    except Exception as e:  # noqa: BLE001 - the point of the test
        return [f"report: {type(e).__name__}: {e}"]
    return [f"report: {e}" for e in html_errors(page) + [p for v in views for p in v.problems]]


@pytest.mark.slow      # 500 mutants, each loaded and, if accepted, shown, exported, advised on and reported
def test_mutants_load_or_fail_cleanly_and_what_loads_is_handled(tmp_path):
    failures, accepted = [], 0
    path = str(tmp_path / "mutant.json")
    for name, n, text in mutants():
        with open(path, "w") as f:
            f.write(text)
        try:
            results = hpcbench.load(path)
        except hpcbench.ResultsError as e:
            if "\n" in str(e):
                failures.append(f"{name} #{n}: a ResultsError of several lines")
            continue
        except Exception as e:  # noqa: BLE001 - the point of the test
            failures.append(f"{name} #{n}: load raised {type(e).__name__}: {e}")
            continue
        accepted += 1
        try:
            failures.extend(f"{name} #{n}: {p}" for p in check_accepted(results, path, tmp_path))
        except Exception as e:  # noqa: BLE001
            failures.append(f"{name} #{n}: {type(e).__name__}: {e}")
        failures.extend(f"{name} #{n}: {p}" for p in report_problems(results, figures=accepted % 10 == 0))
    assert not failures, f"{len(failures)} of {MUTANTS} mutants:\n" + "\n".join(failures[:40])
    assert 0 < accepted < MUTANTS        # the mutants reach both sides of the loader
    assert accepted > 50 or MUTANTS < 500                # enough pages for the report's check


@pytest.mark.parametrize("special", ["fifo", "dev_zero", "directory", "too_large"])
def test_the_loader_refuses_what_is_not_a_regular_file(tmp_path, special, monkeypatch):
    if special == "fifo":
        path = str(tmp_path / "pipe.json")
        os.mkfifo(path)            # nobody writes: reading would block forever
    elif special == "dev_zero":
        path = "/dev/zero"         # reading would never end
    elif special == "directory":
        path = str(tmp_path)
    else:
        from hpcbench import _results
        monkeypatch.setattr(_results, "MAX_FILE_BYTES", 1000)
        path = os.path.join(HERE, "..", "hpcbench", "examples", "network-example.json")
    with pytest.raises(hpcbench.ResultsError) as err:
        hpcbench.load(path)
    assert "\n" not in str(err.value)
