"""What-if projections (Hammond et al. 2009, section 6): the measured
machine changed on paper, then simulated (or modelled) again.

    parse_what_if("latency=+25%,bandwidth=-10%,core-speed=+20%,cores-per-node=x2")

Items are KEY=CHANGE, comma separated; a CHANGE is +P% / -P% (a factor 1 +
P/100) or xF (a factor F):

* latency, bandwidth: every class's latency (bandwidth) times the factor
  (Figure 6: latency +25/50/75 %); `latency.CLASS=...` changes one class
  only (CLASS a placement class or the paper's name: `latency.off-node=+50%`);
* core-speed: compute speed times the factor, so compute times divide by it
  (Figure 7: +-10/20 %; x2 halves every compute event);
* cores-per-node: xK, K whole: K times the cores per package (dual to quad
  core: x2, section 6.3.2), nodes and packages unchanged; more ranks a
  node then share its network access, priced as `contention` says;
* contention, how sharing a node's network access is priced:
  `auto` (the default): by the measured ratNC when the profile carries it
  (a network-access record, _contention.py: every message between nodes
  at ratNC[k] of its k sharing ranks, so more ranks per node cost more),
  else, under cores-per-node, by the paper's Table 5 percentages, else not
  at all; `ratnc`: the measured ratNC, an error without one; `table5`:
  Table 5's quad-core projection of the off-node network whatever was
  measured (sizes below 2048 bytes unchanged, 2048 to 4095 bytes latency
  +10 % and bandwidth -10 %, 4096 bytes and up +20 % and -20 %: the paper
  gives those percentages and that the bandwidth drops "in the same
  fashion"; region edges are added to the profile at 2048 and 4096 bytes;
  ratNC is then not applied, so nothing is counted twice); `none`: neither.
  `WhatIf.resolved(profile)` says which one `auto` is on a given profile,
  and `describe` names it.

A projection to another interconnect (Figure 5) is another profile, not a
what-if: build it with NetworkProfile.from_table.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from ._allocate import Machine
from ._classes import OTHER_NODE, class_of_layer
from ._errors import PredictError
from ._profile import NetworkProfile, Region

__all__ = ["CONTENTIONS", "KEYS", "Projection", "WhatIf", "machine_for", "parse_what_if"]

#: What a what-if can change.
KEYS = ("latency", "bandwidth", "core-speed", "cores-per-node", "contention")
#: How sharing a node's network access is priced (the module docstring).
CONTENTIONS = ("auto", "ratnc", "table5", "none")
#: Table 5's contention: (first byte, latency factor, bandwidth factor) of each size range.
TABLE5 = ((0, 1.0, 1.0), (2048, 1.1, 0.9), (4096, 1.2, 0.8))


@dataclass(frozen=True)
class Projection:
    """What a what-if makes of the measured machine."""

    profile: NetworkProfile
    machine: Machine | None
    core_speed: float


@dataclass(frozen=True)
class WhatIf:
    """Factors on the measured machine (1.0: unchanged). `latency_of` and
    `bandwidth_of` hold per-class factors, applied after the global ones."""

    latency: float = 1.0
    bandwidth: float = 1.0
    core_speed: float = 1.0
    cores_per_node: int = 1
    contention: str = "auto"
    latency_of: tuple[tuple[str, float], ...] = field(default=())
    bandwidth_of: tuple[tuple[str, float], ...] = field(default=())
    #: what `auto` became on the profile (resolved()), named by describe()
    contention_from: str = ""

    def apply(self, profile: NetworkProfile, machine: Machine | None = None,
              core_speed: float = 1.0) -> Projection:
        """The profile, machine and core speed (1.0: as measured) this
        what-if turns the given ones into."""
        out = profile.scaled(latency=self.latency, bandwidth=self.bandwidth)
        for cls, f in self.latency_of:
            out = out.scaled(latency=f, classes=[cls])
        for cls, f in self.bandwidth_of:
            out = out.scaled(bandwidth=f, classes=[cls])
        contention = self.resolved(profile).contention
        if contention == "ratnc" and out.access is None:
            raise PredictError("contention=ratnc prices the network access by the measured ratNC, which this "
                               "profile lacks: give --results with a network-access record, or --access-results")
        if contention == "table5":
            out = degrade_off_node(out)
        if contention in ("table5", "none"):
            out = out.with_access(None)
        if machine is not None and self.cores_per_node != 1:
            machine = Machine(machine.nodes, machine.packages_per_node,
                              machine.cores_per_package * self.cores_per_node)
        return Projection(out, machine, core_speed * self.core_speed)

    def resolved(self, profile: NetworkProfile) -> WhatIf:
        """This what-if with `auto` contention made what it is on
        `profile`: `ratnc` when the profile carries a measured ratNC,
        `table5` under cores-per-node without one, else `none`; and
        `contention_from` naming the source, for describe()."""
        contention = self.contention
        if contention == "auto":
            contention = ("ratnc" if profile.access is not None
                          else "table5" if self.cores_per_node != 1 else "none")
        source = {"ratnc": profile.access.describe() if profile.access is not None else "measured ratNC",
                  "table5": "the paper's Table 5 percentages, "
                            + ("no measured ratNC" if profile.access is None else "the measured ratNC not used"),
                  "none": "not priced (contention=none)" if self.contention == "none" else ""}[contention]
        if self.contention == "auto" and self.cores_per_node == 1:
            # No what-if on the network access: nothing to say here (the
            # profile's own source says whether ratNC is applied).
            return replace(self, contention_from="")
        return replace(self, contention=contention, contention_from=source)

    def describe(self) -> str:
        """One line: what changes (with resolved(): where the contention
        for the network access comes from)."""
        parts = [f"{k} x{v:g}" for k, v in (("latency", self.latency), ("bandwidth", self.bandwidth),
                                             ("core speed", self.core_speed)) if v != 1.0]
        parts += [f"latency of {c} x{f:g}" for c, f in self.latency_of]
        parts += [f"bandwidth of {c} x{f:g}" for c, f in self.bandwidth_of]
        if self.cores_per_node != 1:
            parts.append(f"cores per package x{self.cores_per_node}")
        if self.contention == "table5":
            parts.append(f"contention off node from {self.contention_from}" if self.contention_from
                         else "table5 contention off node")
        elif self.contention == "ratnc":
            parts.append(f"contention off node from {self.contention_from or 'the measured ratNC'}")
        elif self.contention == "none" and self.contention_from:
            parts.append("no contention for the network access")
        elif self.contention == "auto" and self.cores_per_node != 1:
            parts.append("contention off node from the measured ratNC if the profile has it, else Table 5's "
                         "percentages")
        return ", ".join(parts) or "nothing changed"


def parse_what_if(text: str) -> WhatIf:
    """A WhatIf from KEY=CHANGE items (see the module docstring)."""
    values: dict[str, Any] = {"latency_of": [], "bandwidth_of": []}
    items = [t.strip() for t in str(text).split(",")]
    if items == [""]:
        return WhatIf()
    for item in items:
        key, eq, change = (s.strip() for s in item.partition("="))
        if not eq or not key or not change:
            raise PredictError(f"a what-if item is KEY=CHANGE (e.g. latency=+25%), got {item!r}")
        name, _, qualifier = key.partition(".")
        if name not in KEYS:
            raise PredictError(f"unknown what-if key {name!r}: one of {', '.join(KEYS)}")
        if qualifier and name not in ("latency", "bandwidth"):
            raise PredictError(f"only latency and bandwidth take a class (latency.CLASS=...), got {key!r}")
        if name == "contention":
            if change not in CONTENTIONS:
                raise PredictError(f"contention is one of {', '.join(CONTENTIONS)}, got {change!r}")
            values["contention"] = change
            continue
        factor = _factor(change, item)
        if name == "cores-per-node":
            if not (factor >= 1 and factor == int(factor)) or not change.startswith("x"):
                raise PredictError(f"cores-per-node takes xK with K a whole number >= 1 (x2: dual to quad core), "
                                   f"got {change!r}")
            values["cores_per_node"] = int(factor)
            continue
        if name == "latency" and factor < 0:
            raise PredictError(f"{item!r} makes the latency negative")
        if name in ("bandwidth", "core-speed") and factor <= 0:
            raise PredictError(f"{item!r} makes the {name.replace('-', ' ')} <= 0")
        if qualifier:
            try:
                cls = class_of_layer(qualifier)
            except PredictError as e:
                raise PredictError(str(e)) from None
            values[f"{name}_of"].append((cls, factor))
        else:
            values[name.replace("-", "_")] = factor
    values["latency_of"] = tuple(values["latency_of"])
    values["bandwidth_of"] = tuple(values["bandwidth_of"])
    return WhatIf(**values)


def machine_for(count: int, machine: Machine) -> Machine:
    """The machine that holds `count` ranks, one per core: `machine` itself
    when it has the cores, else the same machine grown in nodes (packages per
    node and cores per package kept) to the smallest number that holds them,
    ceil(count / cores per node). A sweep over process counts (section 6's
    projections: Figure 4 goes to 4096 cores) asks for larger counts than
    the machine measured; the paper grows the machine the same way."""
    if count <= machine.cores:
        return machine
    return Machine(-(-count // machine.cores_per_node), machine.packages_per_node, machine.cores_per_package)


def degrade_off_node(profile: NetworkProfile) -> NetworkProfile:
    """`profile` with its off-node class degraded as Table 5's quad-core
    projection (TABLE5; the module docstring)."""
    regions = profile.classes.get(OTHER_NODE)
    if regions is None:
        raise PredictError(f"contention=table5 degrades the {OTHER_NODE!r} class, which the profile lacks")
    firsts = sorted({r.first for r in regions} | {f for f, _, _ in TABLE5})
    out = []
    for first in firsts:
        base = profile.region(first, OTHER_NODE)
        _, lat, bw = [t for t in TABLE5 if t[0] <= first][-1]
        out.append(Region(first, base.latency * lat, base.bandwidth * bw))
    classes = dict(profile.classes)
    classes[OTHER_NODE] = tuple(out)
    return NetworkProfile(classes, profile.source)


def _factor(change: str, item: str) -> float:
    """+P% / -P% -> 1 + P/100; xF -> F."""
    try:
        if change.endswith("%") and change[0] in "+-":
            value = 1.0 + float(change[:-1]) / 100.0
        elif change.startswith("x"):
            value = float(change[1:])
        else:
            raise ValueError
    except ValueError:
        raise PredictError(f"a change is +P% or -P% (percent) or xF (a factor), got {item!r}") from None
    if not math.isfinite(value):
        raise PredictError(f"a change must be finite, got {item!r}")
    return value
