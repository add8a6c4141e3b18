"""The network profile: Hammond et al.'s regionalised model of a message's
cost (2009, section 5.1, Table 3), one set of regions per placement class.

For a message of x bytes between two ranks of class c, in the region of c
that holds x (region k covers first_k <= x < first_{k+1}):

    t_send(x) = x / B + n_l      the sender's time (it also sets up the transfer)
    t_recv(x) = x / B            the receiver's time (it accepts the data)

Built from a comm results file (every comm layer's regional fit, each
layer's name folded into its class by _classes.class_of_layer; where
several layers fold into one class the layer of most pairs speaks for it),
from a user's table (JSON, the shape of docs/examples/francesca-profile.json,
Table 3 of the paper), or edited from another (`scaled`: latency x1.25,
bandwidth x0.9, as the what-if projections do).
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ._classes import CLASSES, ClassError, class_of_layer

PROFILE_FORMAT = "hpcbench-network-profile"


class ProfileError(ValueError):
    """A profile that cannot be built or used; the message is one line."""


@dataclass(frozen=True)
class Region:
    """From `first` bytes up (to the next region's first): latency n_l in
    seconds and bandwidth B in bytes per second."""

    first: int
    latency: float
    bandwidth: float

    def __post_init__(self) -> None:
        if int(self.first) < 0:
            raise ProfileError(f"a region starts at a size >= 0 bytes, got {self.first}")
        if not math.isfinite(self.latency):
            raise ProfileError(f"a region's latency must be a finite number of seconds, got {self.latency}")
        if not self.bandwidth > 0:
            raise ProfileError(f"a region's bandwidth must be > 0 bytes/s, got {self.bandwidth}")


class NetworkProfile:
    """Regions per placement class; `t_send` / `t_recv` as section 5.1."""

    def __init__(self, classes: Mapping[str, Iterable[Region]], source: str = ""):
        table: dict[str, tuple[Region, ...]] = {}
        for name, regions in classes.items():
            cls = class_of_layer(name)
            ordered = tuple(sorted(regions, key=lambda r: r.first))
            if not ordered:
                raise ProfileError(f"class {cls!r} has no region")
            if ordered[0].first != 0:
                ordered = (Region(0, ordered[0].latency, ordered[0].bandwidth),) + ordered[1:]
            if len({r.first for r in ordered}) != len(ordered):
                raise ProfileError(f"class {cls!r} has two regions starting at the same size")
            table[cls] = ordered
        if not table:
            raise ProfileError("a network profile needs at least one placement class")
        self.classes = {c: table[c] for c in CLASSES if c in table}
        self.source = source

    # -- costs ---------------------------------------------------------
    def region(self, x: float, cls: str) -> Region:
        regions = self._regions(cls)
        k = int(np.searchsorted([r.first for r in regions], x, side="right")) - 1
        return regions[max(k, 0)]

    def t_send(self, x, cls: str):
        """Seconds the sender spends on x bytes to a rank of class `cls`
        (x a number or an array); never below zero (a fitted latency may be
        slightly negative)."""
        lat, inv_bw = self._coefficients(x, cls)
        return np.maximum(np.asarray(x, dtype=float) * inv_bw + lat, 0.0)[()]

    def t_recv(self, x, cls: str):
        """Seconds the receiver spends on x bytes from a rank of class `cls`."""
        _, inv_bw = self._coefficients(x, cls)
        return (np.asarray(x, dtype=float) * inv_bw)[()]

    def costs(self, x: np.ndarray, class_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(t_send, t_recv) for arrays of sizes and class indexes (positions
        in _classes.CLASSES), one pass per class: what the simulator uses
        for millions of messages."""
        x = np.asarray(x, dtype=float)
        class_index = np.asarray(class_index)
        send, recv = np.zeros_like(x), np.zeros_like(x)
        for k in np.unique(class_index):
            at = class_index == k
            cls = CLASSES[int(k)]
            send[at] = self.t_send(x[at], cls)
            recv[at] = self.t_recv(x[at], cls)
        return send, recv

    def require(self, needed: Iterable[str]) -> None:
        """ProfileError naming the first class in `needed` this profile lacks."""
        for cls in needed:
            self._regions(cls)

    # -- editing -------------------------------------------------------
    def scaled(
        self, latency: float = 1.0, bandwidth: float = 1.0, classes: Iterable[str] | None = None
    ) -> NetworkProfile:
        """A copy with every latency multiplied by `latency` and every
        bandwidth by `bandwidth` (only in `classes`, if given)."""
        if not (latency >= 0 and math.isfinite(latency)):
            raise ProfileError(f"a latency factor must be finite and >= 0, got {latency}")
        if not (bandwidth > 0 and math.isfinite(bandwidth)):
            raise ProfileError(f"a bandwidth factor must be finite and > 0, got {bandwidth}")
        only = None if classes is None else {class_of_layer(c) for c in classes}
        out = {}
        for cls, regions in self.classes.items():
            if only is None or cls in only:
                regions = tuple(Region(r.first, r.latency * latency, r.bandwidth * bandwidth) for r in regions)
            out[cls] = regions
        return NetworkProfile(out, self.source)

    # -- building ------------------------------------------------------
    @classmethod
    def from_table(cls, table: Mapping | str) -> NetworkProfile:
        """From a table: a path to JSON or the parsed mapping
        {"format": "hpcbench-network-profile", "classes": {"same cache":
        [{"from_bytes": 0, "latency_us": 0.655, "bandwidth_GBps": 2.70}],
        ...}} (GB = 1e9 bytes; the paper's names on-chip, off-processor,
        off-node are accepted for classes)."""
        source = "table"
        if isinstance(table, str):
            source = table
            try:
                with open(table, encoding="utf-8") as f:
                    table = json.load(f)
            except OSError as e:
                raise ProfileError(f"cannot read the profile {source}: {e.strerror or e}") from None
            except ValueError as e:
                raise ProfileError(f"the profile {source} is not JSON: {e}") from None
        if not isinstance(table, Mapping) or not isinstance(table.get("classes"), Mapping):
            raise ProfileError(f"a profile table is an object with \"classes\": {{class: [regions]}} ({source})")
        classes = {}
        try:
            for name, rows in table["classes"].items():
                if not isinstance(rows, list):
                    raise ProfileError(f"class {name!r} must list its regions ({source})")
                classes[name] = [Region(int(r.get("from_bytes", 0)), float(r["latency_us"]) * 1e-6,
                                        float(r["bandwidth_GBps"]) * 1e9) for r in rows]
        except (KeyError, TypeError, AttributeError) as e:
            raise ProfileError(f"a profile region needs latency_us and bandwidth_GBps (and from_bytes), "
                               f"missing {e} in {source}") from None
        except ClassError as e:
            raise ProfileError(str(e)) from None
        return cls(classes, source)

    @classmethod
    def from_results(cls, results) -> NetworkProfile:
        """From a comm results file (path or hpcbench.Results): the regional
        fit of every comm layer, by class (see the module docstring)."""
        from .._results import Results, load
        data = results if isinstance(results, Results) else load(str(results))
        where = data.path or "these results"
        rec = data.finished("comm")
        layers = list(getattr(rec.derived, "layers", None) or []) if rec is not None else []
        if not layers:
            raise ProfileError(f"{where} has no comm layers to build a network profile from: "
                               "run `mpiexec -n N python -m hpcbench run comm` (N >= 2) first")
        best: dict[str, tuple[int, list]] = {}
        for layer in layers:
            try:
                klass = class_of_layer(layer.name)
            except ClassError:
                continue
            regions = [Region(int(r.first), float(r.latency), 1.0 / float(r.seconds_per_byte))
                       for r in layer.regions if r.seconds_per_byte and r.seconds_per_byte > 0]
            if regions and len(layer.pairs) > best.get(klass, (-1, []))[0]:
                best[klass] = (len(layer.pairs), regions)
        if not best:
            raise ProfileError(f"the comm layers of {where} have no regional fit with a bandwidth")
        return cls({k: v for k, (_, v) in best.items()}, where)

    def to_dict(self) -> dict:
        """The table form (from_table reads it back)."""
        return {"format": PROFILE_FORMAT, "source": self.source,
                "classes": {c: [{"from_bytes": r.first, "latency_us": r.latency * 1e6,
                                 "bandwidth_GBps": r.bandwidth / 1e9} for r in regions]
                            for c, regions in self.classes.items()}}

    def __repr__(self) -> str:
        return f"NetworkProfile({', '.join(self.classes)}; from {self.source or 'code'})"

    # -- internals -----------------------------------------------------
    def _regions(self, cls: str) -> tuple[Region, ...]:
        try:
            key = class_of_layer(cls)
        except ClassError as e:
            raise ProfileError(str(e)) from None
        if key not in self.classes:
            raise ProfileError(f"the network profile ({self.source or 'code'}) has no {key!r} class, which the "
                               f"placement needs (it has: {', '.join(self.classes)})")
        return self.classes[key]

    def _coefficients(self, x, cls: str) -> tuple[np.ndarray, np.ndarray]:
        regions = self._regions(cls)
        firsts = np.array([r.first for r in regions], dtype=float)
        k = np.maximum(np.searchsorted(firsts, np.asarray(x, dtype=float), side="right") - 1, 0)
        lat = np.array([r.latency for r in regions])[k]
        inv_bw = np.array([1.0 / r.bandwidth for r in regions])[k]
        return lat, inv_bw
