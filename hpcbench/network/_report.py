"""What `hpcbench report` says about the distance and network-access
records: how much distance and sharing cost in words, what follows for
placing ranks, and the headline numbers (bandwidth and ratio per step)."""
from __future__ import annotations

from .._format import format_size
from .._headline import Headline, finite
from ._records import AccessRecord, DistanceRecord

#: Ratios up to this are "no real degradation".
FLAT = 1.1


def _mbs(value: float) -> str:
    return f"{value / 1e6:.1f} MB/s"


def distance_meaning(record: DistanceRecord) -> list:
    """Whether distance between nodes costs bandwidth, and what follows for the order of ranks."""
    d = record.derived
    ratios = d.ratios()
    if not ratios:
        return []
    worst = max(ratios, key=lambda k: ratios[k])
    first = _mbs(d.bandwidth.get("1", 0.0))
    if ratios[worst] <= FLAT:
        return [f"With all {d.nodes} nodes sending {format_size(d.size)} messages at once, distance does not "
                f"matter (ratDist at most {ratios[worst]:.2f}, {first} per process at distance 1): any order "
                "of the nodes is as good."]
    return [f"With all {d.nodes} nodes sending at once, a message to a node {worst} away gets "
            f"{_mbs(d.bandwidth[str(worst)])} against {first} next door (ratDist {ratios[worst]:.2f}): "
            "place ranks that exchange the most on neighbouring nodes (`hpcbench advise grid` weighs this)."]


def access_meaning(record: AccessRecord) -> list:
    """How the network's bandwidth divides among processes of a node, and the mapping rule."""
    d = record.derived
    ratios = d.ratios()
    if not ratios:
        return []
    most = max(ratios)
    line = (f"With {most} processes per node using the network at once each gets "
            f"{_mbs(d.bandwidth[str(most)])} against {_mbs(d.bandwidth.get('1', 0.0))} alone (ratNC "
            f"{ratios[most]:.2f})")
    rule = d.mapping_rule
    if rule.first_over_threshold:
        return [line + f": from {rule.first_over_threshold} processes per node ratNC exceeds {rule.threshold}, so "
                       "spread communicating ranks over nodes (the mapping raises the weight of cores sharing "
                       "the network)."]
    return [line + (": sharing the network costs little." if ratios[most] <= FLAT else
                    f": below the mapping threshold {rule.threshold}, so ranks may share nodes.")]


def _steps(bandwidth: dict, ratios: dict, name: str, ratio_name: str) -> list:
    out = []
    for key in sorted(ratios):
        out.append(Headline(f"bandwidth at {name} {key}", finite(bandwidth.get(str(key))), "bytes/s", "higher"))
        out.append(Headline(f"{ratio_name} {key}", finite(ratios[key]), "ratio", "lower"))
    return out


def distance_headlines(record: DistanceRecord) -> list:
    """Bandwidth per process and ratDist at every distance."""
    d = record.derived
    return _steps(d.bandwidth, d.ratios(), "distance", "ratDist")


def access_headlines(record: AccessRecord) -> list:
    """Bandwidth per process and ratNC for every number of processes per node."""
    d = record.derived
    return _steps(d.bandwidth, d.ratios(), "processes per node", "ratNC")
