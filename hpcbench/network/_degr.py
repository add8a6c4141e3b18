"""The degradation file: ratDist and ratNC as plain text, for the C API
(libhpcbdegr, `hpcb_load_degr_info`) and any other reader.

    hpcbench-degradation 1
    # comment lines start with '#'
    ratDist 4 1 1.23 1.5 1.9        <- count, then ratDist[1..count]
    ratNC 2 1 1.8                    <- count, then ratNC[1..count]

A count of 0 means the benchmark did not run. Written by `run` beside the
results file (RESULTS.json -> RESULTS.degr) and by
`python -m hpcbench degr RESULTS.json`.
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterable
from typing import Any, Protocol

from .._atomic import atomic_write_text

MAGIC = "hpcbench-degradation"
VERSION = 1
DEFAULT_NAME = "hpcbench-results.degr"


class RatioSource(Protocol):
    """What export_from_results reads: hpcbench.Results has it."""

    @property
    def network_dist_ratios(self) -> dict: ...

    @property
    def network_access_ratios(self) -> dict: ...

    @property
    def path(self) -> str | None: ...

    @property
    def context(self) -> Any: ...


def write_degradation_file(path: str, rat_dist: dict, rat_nc: dict, comments: Iterable[str] = ()) -> None:
    """Atomic write (temporary file, then rename)."""
    lines = [f"{MAGIC} {VERSION}"] + [f"# {c}" for c in comments]
    for name, table in (("ratDist", rat_dist), ("ratNC", rat_nc)):
        keys = sorted(table)
        if keys and keys != list(range(1, len(keys) + 1)):
            raise ValueError(f"{name} must hold every value from 1 to {len(keys)}, got keys {keys}")
        lines.append(" ".join([name, str(len(keys))] + [repr(float(table[k])) for k in keys]))
    atomic_write_text(path, "\n".join(lines) + "\n")


def read_degradation_file(path: str) -> tuple:
    """(ratDist, ratNC) as dicts; ValueError with one line if missing or damaged."""
    if not os.path.isfile(path):
        raise ValueError(f"degradation file not found: {path}")
    with open(path) as f:
        lines = [ln.strip() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines or lines[0].split() != [MAGIC, str(VERSION)]:
        raise ValueError(f"{path} is not an hpcbench degradation file (version {VERSION})")
    tables = {}
    for line in lines[1:]:
        parts = line.split()
        try:
            count = int(parts[1])
            values = [float(v) for v in parts[2:]]
        except (IndexError, ValueError):
            raise ValueError(f"{path} is damaged: bad line {line!r}") from None
        if parts[0] not in ("ratDist", "ratNC") or count != len(values) or not all(
                math.isfinite(v) and v > 0 for v in values):
            raise ValueError(f"{path} is damaged: bad line {line!r}")
        tables[parts[0]] = {i + 1: v for i, v in enumerate(values)}
    if set(tables) != {"ratDist", "ratNC"}:
        raise ValueError(f"{path} is damaged: it must have a ratDist and a ratNC line")
    return tables["ratDist"], tables["ratNC"]


def degradation_path(results_path: str) -> str:
    """RESULTS.json -> RESULTS.degr (beside it)."""
    root, ext = os.path.splitext(results_path)
    return (root if ext == ".json" else results_path) + ".degr"


def export_from_results(results: RatioSource, path: str) -> tuple:
    """Write the degradation file of a Results object; returns (ratDist, ratNC)."""
    rat_dist, rat_nc = results.network_dist_ratios, results.network_access_ratios
    if not rat_dist and not rat_nc:
        raise ValueError("these results have neither a distance nor a network-access benchmark that finished")
    comments = [f"from {results.path or 'a results file'} of {results.context.get('date', '?')}",
                f"hosts: {', '.join(results.context.get('hosts', []))}"]
    write_degradation_file(path, rat_dist, rat_nc, comments)
    return rat_dist, rat_nc
