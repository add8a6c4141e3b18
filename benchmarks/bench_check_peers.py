"""Would the peers' compare tools judge hpcbench's samples as `hpcbench
check` does? (issue 30: "10 repeated runs of an unchanged machine against
each other: no false regression at the default significance".)

    python benchmarks/bench_check_peers.py FOLDER [--pyperf] [--gbench-compare PATH] [--by-figure]

For every ordered pair (J, K) of the results files in FOLDER (*.json, read
by hpcbench.load), J is judged against K as its reference, three ways, on
the very same samples:
  hpcbench  hpcbench.check.compare_results, the function `hpcbench check J
            --against K` calls: a two-sided Mann-Whitney U test per headline
            figure with samples on both sides (Headline.samples), Holm over
            the file at alpha 0.01, and a change of at least 5 % (check's
            defaults); the tolerance where there are no samples;
  pyperf    `python -m pyperf compare_to K.json J.json` on a BenchmarkSuite
            file per side (one benchmark per figure, its samples as the
            values): pyperf's own "significant" (a two-sample Student's t
            test at 95 %, one figure at a time; its default, no --min-speed);
  gbench    google/benchmark's `compare.py benchmarks K.json J.json` on the
            JSON of a run with repetitions per side (one "iteration" entry per
            sample, the mean/median/stddev/cv aggregates as the library
            writes them): its U test's p-value (real time) against its
            default alpha 0.05, one figure at a time.
The figures the peers see are the rows of hpcbench's comparison with at
least 2 positive, finite samples on both sides (the figures of
hpcbench.check._figures.results_figures, matched by benchmark, node and
label as check matches them); the others are not the peers' business and
are counted apart (hpcbench judges them by tolerance). How far a figure
moved: hpcbench's relative change of the headline value; pyperf's and
gbench's change of the mean (what compare_to prints as "1.05x slower" and
compare.py as the _mean aggregate's change). Printed per pair and in total:
figures compared, how many each tool calls significant, how many are
significant AND moved by at least 5 % (hpcbench's --min-change), and the
pairs with at least one such figure; with --by-figure, which figures.

Peers: pyperf (PyPI: `pip install pyperf`; with --pyperf, used where this
Python can import it, else one line says so and its column is skipped) and
google/benchmark's tools/compare.py (--gbench-compare PATH: the user's copy,
with its gbench/ package beside it; it needs numpy and scipy). Neither is
fetched or installed by this script. Runs the installed hpcbench. Bad input
(a missing folder, fewer than 2 results files, an unreadable one, a missing
compare.py, a peer that fails) is one line and exit status 2. Nothing is
asserted: the script prints what the tools said.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from itertools import permutations

from build_peers import fail

SCRIPT = "bench_check_peers.py"
#: What decided a failing figure of hpcbench's: its test, its tolerance though it has samples (too few for
#: the test), its tolerance for want of samples.
FAILING_BY = ("test", "tolerance", "no samples")
FAILING_WORDS = {"test": "by the test", "tolerance": "by the tolerance of figures with too few samples for it",
                 "no samples": "by the tolerance of figures without samples"}
#: compare.py's default --alpha.
GBENCH_ALPHA = 0.05
#: The fewest samples a side needs to go to the peers (the U test's minimum, gbench's UTEST_MIN_REPETITIONS).
MIN_SAMPLES = 2
#: pyperf's unit of an hpcbench unit (pyperf knows second, byte and integer; the unit only formats its output).
PYPERF_UNITS = {"s": "second", "bytes": "byte"}
#: The figure names the peers see (ours: no spaces or commas, which their outputs would split).
NAME = "fig{:03d}"


class PeerError(Exception):
    """A peer that failed or printed what we cannot read: one line."""


@dataclass(frozen=True)
class Figure:
    """One headline figure of a pair with samples on both sides, and hpcbench's verdict on it."""
    name: str
    place: str
    unit: str
    reference: tuple[float, ...]
    current: tuple[float, ...]
    better: str | None             #: "higher", "lower", or None (neither side is better)
    significant: bool | None       #: hpcbench's test (Holm-adjusted p < alpha); None: judged by tolerance
    change: float | None           #: hpcbench's relative change of the headline value
    word: str                      #: hpcbench's verdict (same, better, worse, different)


@dataclass(frozen=True)
class Call:
    """One tool's call on one figure: significant or not, and how far the figure moved by its measure."""
    significant: bool
    change: float | None


@dataclass
class PairResult:
    """One ordered pair: J (current) against K (reference)."""
    current: str
    reference: str
    figures: list[Figure]
    without_samples: int
    tolerance_beyond: int          #: figures without samples that hpcbench found beyond their tolerance (or missing)
    failing: dict[str, int]        #: figures `check J --against K` fails on (worse, missing), by what decided
    calls: dict[str, dict[str, Call]] = field(default_factory=dict)


# ---- hpcbench's side (the public API check uses) and the figures the peers get.

def usable(samples: tuple[float, ...] | None) -> bool:
    """Samples the peers can take: at least MIN_SAMPLES, each finite and > 0 (pyperf refuses others)."""
    return samples is not None and len(samples) >= MIN_SAMPLES and all(math.isfinite(v) and v > 0 for v in samples)


def pair_figures(current, reference) -> PairResult:
    """hpcbench's comparison of `current` against `reference` (Results), as
    `hpcbench check` makes it, split into the figures with usable samples on
    both sides (for the peers) and the others (hpcbench's tolerance)."""
    from hpcbench.check import compare_results
    comparison = compare_results(current, reference)
    figures: list[Figure] = []
    without = beyond = 0
    failing = dict.fromkeys(FAILING_BY, 0)
    for row in comparison.rows:
        ref, cur, verdict = row.reference, row.current, row.verdict
        if ref is None or cur is None or not usable(ref.samples) or not usable(cur.samples):
            without += 1
            beyond += verdict.word in ("better", "worse", "different", "missing")
            failing["no samples"] += verdict.failing
            continue
        assert ref.samples is not None and cur.samples is not None, "usable samples are there"
        tested = verdict.test == "Mann-Whitney U"
        significant = (verdict.p_adjusted is not None and verdict.p_adjusted < comparison.settings.alpha) \
            if tested else None
        failing["test" if tested else "tolerance"] += verdict.failing
        figures.append(Figure(NAME.format(len(figures)), f"{row.benchmark} on {row.node}: {row.label}", row.unit,
                              ref.samples, cur.samples, row.better, significant, verdict.change, verdict.word))
    return PairResult("", "", figures, without, beyond, failing)


def hpcbench_calls(figures: list[Figure]) -> dict[str, Call]:
    """hpcbench's calls: significant by its test; a figure its test could not decide (too few samples for
    the family: the tolerance judged it) is not significant."""
    return {f.name: Call(bool(f.significant), f.change) for f in figures}


def worse(call: Call, better: str | None) -> bool:
    """The call's change is in the figure's worse direction (a figure with no better side never is)."""
    if call.change is None or better not in ("higher", "lower"):
        return False
    return (call.change < 0) if better == "higher" else (call.change > 0)


# ---- The peers' file formats.

def pyperf_suite(figures: list[Figure], side: str) -> dict:
    """A pyperf BenchmarkSuite (file format 1.0): one benchmark per figure, one run whose values are the
    samples of `side` ("reference" or "current")."""
    benchmarks = [{"metadata": {"name": f.name, "unit": PYPERF_UNITS.get(f.unit, "integer")},
                   "runs": [{"values": list(getattr(f, side))}]} for f in figures]
    return {"version": "1.0", "metadata": {}, "benchmarks": benchmarks}


def gbench_aggregates(values: tuple[float, ...]) -> list[tuple[str, float, str]]:
    """(name, value, aggregate_unit) of the aggregates google/benchmark writes after repetitions."""
    mean = statistics.fmean(values)
    stddev = statistics.stdev(values) if len(values) > 1 else 0.0
    return [("mean", mean, "time"), ("median", statistics.median(values), "time"), ("stddev", stddev, "time"),
            ("cv", stddev / mean if mean else 0.0, "percentage")]


def gbench_run(figures: list[Figure], side: str) -> dict:
    """The JSON of a google/benchmark run with repetitions: per figure, one
    "iteration" entry per sample of `side` (real and CPU time both the
    sample), then its aggregates. compare.py only reads the numbers; the
    time unit "s" is a label (a bandwidth's samples are bytes/s)."""
    entries = []
    for family, f in enumerate(figures):
        values = getattr(f, side)
        common = {"family_index": family, "per_family_instance_index": 0, "run_name": f.name,
                  "repetitions": len(values), "threads": 1, "time_unit": "s"}
        entries += [{"name": f.name, **common, "run_type": "iteration", "repetition_index": k, "iterations": 1,
                     "real_time": v, "cpu_time": v} for k, v in enumerate(values)]
        entries += [{"name": f"{f.name}_{name}", **common, "run_type": "aggregate", "aggregate_name": name,
                     "aggregate_unit": unit, "iterations": len(values), "real_time": v, "cpu_time": v}
                    for name, v, unit in gbench_aggregates(values)]
    context = {"executable": "hpcbench", "num_cpus": 1, "library_build_type": "release", "caches": []}
    return {"context": context, "benchmarks": entries}


def write_json(path: str, data: dict) -> str:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return path


# ---- Running the peers and reading what they say.

def mean_change(f: Figure) -> float:
    """mean(current) / mean(reference) - 1: pyperf's normalized mean (its "1.05x slower"), minus 1."""
    return statistics.fmean(f.current) / statistics.fmean(f.reference) - 1.0


def parse_pyperf(stdout: str, names: list[str]) -> dict[str, bool]:
    """Which figures `pyperf compare_to` (default output) calls significant:
    a line "NAME: Mean +- std dev: ... -> ...: 1.05x slower" (no "NAME: "
    where the suites have one benchmark) is significant; "Benchmark hidden
    because not significant (N): A, B" lists the others. PeerError where a
    figure is in neither."""
    out: dict[str, bool] = {}
    block = names[0] if len(names) == 1 else None
    for line in stdout.splitlines():
        hidden = re.match(r"Benchmark hidden because not significant \(\d+\): (.*)$", line)
        if hidden:
            out.update((name.strip(), False) for name in hidden.group(1).split(","))
            continue
        if line in names:           # a title (a comparison of several lines: an error of pyperf's test)
            block = line
            continue
        head, sep, _ = line.partition(": ")
        if sep and head in names:
            out[head] = True
        elif block is not None and re.search(r" -> .*: (no change|[\d.]+x (slower|faster))$", line):
            out[block] = True
    missing = [name for name in names if name not in out]
    if missing:
        raise PeerError(f"pyperf compare_to said nothing of {missing[0]} (of {len(missing)}): {stdout[:200]!r}")
    return out


def parse_gbench(report: list, names: list[str], alpha: float = GBENCH_ALPHA) -> dict[str, Call]:
    """compare.py's calls from its --dump_to_json report: the U test's real-time
    p-value of NAME against alpha, the change of NAME_mean. PeerError where a
    figure has no U test or no mean."""
    by_name = {entry["name"]: entry for entry in report}
    out = {}
    for name in names:
        utest = by_name.get(name, {}).get("utest") or {}
        mean = by_name.get(f"{name}_mean", {}).get("measurements") or []
        if "time_pvalue" not in utest or not mean:
            raise PeerError(f"compare.py reported no U test or no mean of {name}")
        out[name] = Call(float(utest["time_pvalue"]) < alpha, float(mean[0]["time"]))
    return out


def run_peer(command: list[str], folder: str, what: str) -> str:
    """The stdout of a peer's command run in `folder`; PeerError (its last line of stderr) where it fails."""
    proc = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise PeerError(f"{what} failed (exit {proc.returncode}): {last}")
    return proc.stdout


def pyperf_calls(figures: list[Figure], folder: str) -> dict[str, Call]:
    """pyperf compare_to on the figures: reference as its baseline, current as the changed run."""
    ref = write_json(os.path.join(folder, "reference.json"), pyperf_suite(figures, "reference"))
    cur = write_json(os.path.join(folder, "current.json"), pyperf_suite(figures, "current"))
    stdout = run_peer([sys.executable, "-m", "pyperf", "compare_to", ref, cur], folder, "pyperf compare_to")
    significant = parse_pyperf(stdout, [f.name for f in figures])
    return {f.name: Call(significant[f.name], mean_change(f)) for f in figures}


def gbench_calls(figures: list[Figure], folder: str, compare: str) -> dict[str, Call]:
    """google/benchmark's compare.py on the figures: reference as the baseline, current as the contender."""
    ref = write_json(os.path.join(folder, "reference-gbench.json"), gbench_run(figures, "reference"))
    cur = write_json(os.path.join(folder, "current-gbench.json"), gbench_run(figures, "current"))
    dump = os.path.join(folder, "gbench-report.json")
    run_peer([sys.executable, compare, "--no-color", "--dump_to_json", dump, "benchmarks", ref, cur], folder,
             "compare.py")
    with open(dump, encoding="utf-8") as f:
        return parse_gbench(json.load(f), [fig.name for fig in figures])


# ---- The pairs, the tallies and the output.

def judge_pair(current, reference, peers: dict[str, str | None], folder: str) -> PairResult:
    """Every tool's calls on one pair; `peers`: tool -> its compare.py path (None for pyperf), only those asked."""
    result = pair_figures(current, reference)
    result.calls["hpcbench"] = hpcbench_calls(result.figures)
    if result.figures and "pyperf" in peers:
        result.calls["pyperf"] = pyperf_calls(result.figures, folder)
    if result.figures and peers.get("gbench"):
        result.calls["gbench"] = gbench_calls(result.figures, folder, peers["gbench"])  # type: ignore[arg-type]
    return result


def flagged(call: Call, min_change: float) -> bool:
    """Significant and moved by at least min_change."""
    return call.significant and call.change is not None and abs(call.change) >= min_change


@dataclass
class Tally:
    """One tool over the pairs: figures compared, called significant, significant and moved >= 5 %, of those
    in the figure's worse direction (a regression), and the pairs with one of each."""
    compared: int = 0
    significant: int = 0
    moved: int = 0
    worse: int = 0
    pairs: int = 0
    pairs_worse: int = 0

    def add(self, calls: dict[str, Call], figures: list[Figure], min_change: float) -> tuple[int, int]:
        """Count one pair's calls; (significant, significant and moved) of this pair."""
        better = {f.name: f.better for f in figures}
        significant = sum(c.significant for c in calls.values())
        moved = [name for name, c in calls.items() if flagged(c, min_change)]
        regressions = sum(worse(calls[name], better[name]) for name in moved)
        self.compared += len(calls)
        self.significant += significant
        self.moved += len(moved)
        self.worse += regressions
        self.pairs += bool(moved)
        self.pairs_worse += regressions > 0
        return significant, len(moved)


def natural_key(name: str) -> list:
    """run2 before run10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def results_files(folder: str) -> list[str]:
    """The *.json files of `folder`, in natural order; exit 2 where there are fewer than two."""
    if not os.path.isdir(folder):
        fail(SCRIPT, f"{folder}: not a folder")
    names = sorted((n for n in os.listdir(folder) if n.endswith(".json")), key=natural_key)
    if len(names) < 2:
        fail(SCRIPT, f"{folder}: {len(names)} results file(s) (*.json); a comparison needs at least 2")
    return [os.path.join(folder, n) for n in names]


def load_all(paths: list[str]) -> dict:
    """name -> Results of every file; exit 2 (one line) on the first that cannot be read."""
    from hpcbench import load
    from hpcbench._errors import ResultsError
    out = {}
    for path in paths:
        try:
            out[os.path.splitext(os.path.basename(path))[0]] = load(path)
        except ResultsError as e:
            fail(SCRIPT, str(e))
    return out


def pair_line(result: PairResult, counts: dict[str, tuple[int, int]], tools: list[str]) -> str:
    cells = [f"{result.current:<10} {result.reference:<10} {len(result.figures):>7} {result.without_samples:>10}"
             f" {result.tolerance_beyond:>6} {sum(result.failing.values()):>7}"]
    cells += [f"{counts[t][0]:>8} {counts[t][1]:>6}" for t in tools]
    return " ".join(cells)


def header(tools: list[str]) -> str:
    head = f"{'current':<10} {'reference':<10} {'figures':>7} {'no samples':>10} {'beyond':>6} {'failing':>7}"
    return head + "".join(f" {t + ' sig':>8} {'>=5 %':>6}" for t in tools)


RULES = {"hpcbench": "Mann-Whitney U, Holm over the pair, alpha 0.01",
         "pyperf": "Student's t, 95 %, each figure alone",
         "gbench": f"Mann-Whitney U, alpha {GBENCH_ALPHA:g}, each figure alone"}


def print_totals(results: list[PairResult], tallies: dict[str, Tally], tools: list[str], files: int) -> None:
    with_samples = sum(len(r.figures) for r in results)
    untested = sum(f.significant is None for r in results for f in r.figures)
    print(f"\n{len(results)} ordered pairs of {files} results files: {with_samples} figures with samples on both "
          f"sides (the peers' figures), {sum(r.without_samples for r in results)} without (hpcbench's tolerance: "
          f"{sum(r.tolerance_beyond for r in results)} beyond it or missing).")
    failing = {by: sum(r.failing[by] for r in results) for by in FAILING_BY}
    pairs = {by: sum(r.failing[by] > 0 for r in results) for by in FAILING_BY}
    print(f"hpcbench check: exit 1 (a regression) in {sum(any(r.failing.values()) for r in results)} of "
          f"{len(results)} pairs, {sum(failing.values())} failing figures: "
          + ", ".join(f"{failing[by]} {FAILING_WORDS[by]} (in {pairs[by]} pairs)" for by in FAILING_BY) + ".")
    if untested:
        print(f"hpcbench: {untested} of the figures with samples judged by tolerance, not by the test (too few "
              f"samples for it to reach alpha over the pair's family); counted not significant.")
    print(f"\n{'tool':<9} {'rule':<48} {'compared':>8} {'significant':>11} {'sig. & >=5 %':>12} {'pairs':>6} "
          f"{'of them worse':>13} {'pairs':>6}")
    for tool in tools:
        t = tallies[tool]
        print(f"{tool:<9} {RULES[tool]:<48} {t.compared:>8} {t.significant:>11} {t.moved:>12} "
              f"{t.pairs:>3}/{len(results)} {t.worse:>13} {t.pairs_worse:>3}/{len(results)}")


def print_by_figure(results: list[PairResult], tools: list[str], min_change: float) -> None:
    """Per figure (by its place): in how many pairs each tool called it significant and moved >= min_change."""
    counts: dict[str, dict[str, int]] = {}
    for result in results:
        place = {f.name: f.place for f in result.figures}
        for tool in tools:
            for name, call in result.calls.get(tool, {}).items():
                row = counts.setdefault(place[name], dict.fromkeys(tools, 0))
                row[tool] += flagged(call, min_change)
    print(f"\nPairs (of {len(results)}) in which each tool calls a figure significant and moved >= "
          f"{100 * min_change:g} %:")
    print(" ".join(f"{t:>8}" for t in tools) + "  figure")
    for place, row in sorted(counts.items(), key=lambda item: (-max(item[1].values()), item[0])):
        if max(row.values()):
            print(" ".join(f"{row[t]:>8}" for t in tools) + f"  {place}")


def chosen_peers(pyperf: bool, gbench_compare: str | None) -> dict[str, str | None]:
    """tool -> what runs it, for the peers asked for and there; one line for each one skipped."""
    peers: dict[str, str | None] = {}
    if not pyperf:
        print("pyperf: not asked for (--pyperf): its column is skipped")
    elif importlib.util.find_spec("pyperf") is None:
        print("pyperf: not importable by this Python (pip install pyperf): its column is skipped")
    else:
        peers["pyperf"] = None
    if gbench_compare is None:
        print("gbench: no --gbench-compare PATH (google/benchmark's tools/compare.py): its column is skipped")
    elif not os.path.isfile(gbench_compare):
        fail(SCRIPT, f"--gbench-compare {gbench_compare}: no such file (google/benchmark's tools/compare.py, "
                     "with its gbench/ package beside it)")
    else:
        peers["gbench"] = os.path.abspath(gbench_compare)
    return peers


def compare_all(runs: dict, peers: dict[str, str | None], min_change: float) -> list[PairResult]:
    """Every ordered pair judged by every tool, a line each as it goes; the totals after."""
    tools = ["hpcbench", *peers]
    tallies = {t: Tally() for t in tools}
    results = []
    print(header(tools))
    with tempfile.TemporaryDirectory(prefix="check-peers-") as folder:
        for j, k in permutations(runs, 2):
            try:
                result = judge_pair(runs[j], runs[k], peers, folder)
            except PeerError as e:
                fail(SCRIPT, f"{j} against {k}: {e}")
            result.current, result.reference = j, k
            counts = {t: tallies[t].add(result.calls.get(t, {}), result.figures, min_change) for t in tools}
            print(pair_line(result, counts, tools), flush=True)
            results.append(result)
    print_totals(results, tallies, tools, len(runs))
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="a folder of results files (*.json) of one machine")
    ap.add_argument("--pyperf", action="store_true", help="also ask pyperf's compare_to (if importable)")
    ap.add_argument("--gbench-compare", metavar="PATH",
                    help="google/benchmark's tools/compare.py (its gbench/ package beside it): also ask it")
    ap.add_argument("--by-figure", action="store_true",
                    help="also list, per figure, in how many pairs each tool flags it")
    args = ap.parse_args()
    paths = results_files(args.folder)
    peers = chosen_peers(args.pyperf, args.gbench_compare)
    runs = load_all(paths)
    from hpcbench.check import Settings
    min_change = Settings().min_change
    results = compare_all(runs, peers, min_change)
    if args.by_figure:
        print_by_figure(results, ["hpcbench", *peers], min_change)
    return 0


if __name__ == "__main__":
    sys.exit(main())
