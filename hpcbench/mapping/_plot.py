"""The figure of a mapping: each node's hwloc tree as nested bands (NUMA
nodes and packages on top, then caches, cores, PUs), the chosen PUs filled
and labelled with their rank and the order they were chosen in."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._plot import new_figure
from ._result import NodeLevels, ProcessMapping

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Nodes drawn at most (those with processes first).
MAX_NODES = 4


def _node_index(mapping: ProcessMapping, node: int | str) -> int:
    if isinstance(node, str):
        hosts = [n.host for n in mapping.nodes]
        if node not in hosts:
            raise ValueError(f"no node {node!r} in this mapping ({', '.join(hosts)})")
        return hosts.index(node)
    if not 0 <= node < len(mapping.nodes):
        raise ValueError(f"node must be 0 .. {len(mapping.nodes) - 1} or a host name, got {node!r}")
    return node


def _runs(xs: list[int]) -> list[tuple[int, int]]:
    """Sorted positions as (first, last) runs of consecutive ones."""
    out: list[list[int]] = []
    for x in xs:
        if out and x == out[-1][1] + 1:
            out[-1][1] = x
        else:
            out.append([x, x])
    return [(first, last) for first, last in out]


def _outer_first(level: NodeLevels) -> tuple[int, int]:
    """Larger groups on top; on equal sizes NUMA node, package, L3, L2, ... core."""
    size = max((len(g) for g in level.groups), default=0)
    name = level.name
    rank = {"NUMA node": 0, "package": 1, "core": 99}.get(name, 50 - int(name[1:]) if name[1:].isdigit() else 50)
    return -size, rank


def plot_mapping(mapping: ProcessMapping, ax: Any, node: int | str = 0) -> None:
    """Draw one node (index or host) of the mapping on a matplotlib Axes:
    hwloc's levels that group PUs as grey bands (private ones left out), the
    measured groups hwloc does not have as hatched ones, the PUs below, the
    chosen ones filled and labelled with rank and order."""
    from matplotlib.patches import Rectangle

    n = mapping.nodes[_node_index(mapping, node)]
    position = {pu: i for i, pu in enumerate(n.pus)}
    levels = sorted((lv for lv in n.levels if any(len(g) > 1 for g in lv.groups)), key=_outer_first)
    measured = sorted(n.measured, key=lambda lv: -max((len(g) for g in lv.groups), default=0))
    pu_height = 2.0
    top = pu_height + len(levels) + len(measured)
    small = len(n.pus) > 24
    for depth, lv in enumerate(levels + measured):
        y = top - depth - 1
        ours = depth >= len(levels)
        for g in lv.groups:
            for first, last in _runs(sorted(position[p] for p in g if p in position)):
                ax.add_patch(Rectangle((first + 0.05, y + 0.08), last - first + 0.9, 0.84,
                                       facecolor="#fbe3c6" if ours else "0.93", hatch="//" if ours else None,
                                       edgecolor="0.55", linewidth=0.8))
                if last > first or not small:
                    ax.text((first + last + 1) / 2, y + 0.5, lv.name, ha="center", va="center",
                            fontsize=6 if small else 7)
    chosen = {c.pu: c for c in mapping.choices if c.host == n.host}
    allowed = set(n.allowed)
    for pu, x in position.items():
        c = chosen.get(pu)
        face = "tab:orange" if c else ("white" if pu in allowed else "0.75")
        ax.add_patch(Rectangle((x + 0.05, 0.08), 0.9, pu_height - 0.16, facecolor=face, edgecolor="0.3",
                               linewidth=0.8))
        label = f"P{pu}\nr{c.rank}\n#{c.order}" if c else f"P{pu}"
        ax.text(x + 0.5, pu_height / 2, label, ha="center", va="center", fontsize=5 if small else 7)
    ax.set_xlim(0, len(n.pus))
    ax.set_ylim(0, top)
    ax.set_yticks([])
    ax.set_xticks([])
    ax.set_title(f"{n.host}: {len(chosen)} of {mapping.nprocs} processes ({mapping.kind} code); "
                 "r = rank, # = order chosen; grey: PUs the job may not use", fontsize=9)


def mapping_figure(mapping: ProcessMapping, nodes: list[int | str] | None = None) -> Figure:
    """A figure of the mapping: the given nodes (indexes or hosts), default
    the first MAX_NODES nodes that hold processes."""
    if nodes is None:
        used = {c.node for c in mapping.choices}
        nodes = [i for i in range(len(mapping.nodes)) if i in used][:MAX_NODES] or [0]
    width = max(6.0, 0.45 * max(len(mapping.nodes[_node_index(mapping, k)].pus) for k in nodes))
    fig: Figure       # new_figure returns (Figure, axes array)
    fig, axes = new_figure(len(nodes), 1, size=(min(width, 18.0), 2.2 * len(nodes)))
    for k, node in enumerate(nodes):
        plot_mapping(mapping, axes[k, 0], node)
    return fig
