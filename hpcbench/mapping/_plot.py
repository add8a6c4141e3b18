"""The figure of a mapping: each node's hwloc tree as nested bands (NUMA
nodes and packages on top, then caches, cores, PUs), the chosen PUs filled
and labelled with their rank and the order they were chosen in."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._plot import new_figure
from ._result import ProcessMapping

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


def plot_mapping(mapping: ProcessMapping, ax: Any, node: int | str = 0) -> None:
    """Draw one node (index or host) of the mapping on a matplotlib Axes."""
    from matplotlib.patches import Rectangle

    n = mapping.nodes[_node_index(mapping, node)]
    position = {pu: i for i, pu in enumerate(n.pus)}
    levels = sorted(n.levels, key=lambda lv: -max((len(g) for g in lv.groups), default=0))
    rows = len(levels) + 1
    for depth, lv in enumerate(levels):
        y = rows - depth - 1
        for g in lv.groups:
            xs = sorted(position[p] for p in g if p in position)
            if not xs:
                continue
            ax.add_patch(Rectangle((xs[0] + 0.05, y + 0.08), xs[-1] - xs[0] + 0.9, 0.84, facecolor="0.93",
                                   edgecolor="0.55", linewidth=0.8))
            if len(xs) > 1 or len(n.pus) <= 16:
                ax.text((xs[0] + xs[-1] + 1) / 2, y + 0.5, lv.name, ha="center", va="center", fontsize=7)
    chosen = {c.pu: c for c in mapping.choices if c.host == n.host}
    allowed = set(n.allowed)
    for pu, x in position.items():
        c = chosen.get(pu)
        face = "tab:orange" if c else ("white" if pu in allowed else "0.75")
        ax.add_patch(Rectangle((x + 0.05, 0.08), 0.9, 0.84, facecolor=face, edgecolor="0.3", linewidth=0.8))
        label = f"P{pu}\nr{c.rank}\n#{c.order}" if c else f"P{pu}"
        ax.text(x + 0.5, 0.5, label, ha="center", va="center", fontsize=7 if len(n.pus) <= 32 else 5)
    ax.set_xlim(0, len(n.pus))
    ax.set_ylim(0, rows)
    ax.set_yticks([])
    ax.set_xticks([])
    ax.set_title(f"{n.host}: {len(chosen)} of {mapping.nprocs} processes ({mapping.kind} code); "
                 "r = rank, # = order chosen", fontsize=9)


def mapping_figure(mapping: ProcessMapping, nodes: list | None = None) -> Figure:
    """A figure of the mapping: the given nodes (indexes or hosts), default
    the first MAX_NODES nodes that hold processes."""
    if nodes is None:
        used = {c.node for c in mapping.choices}
        nodes = [i for i in range(len(mapping.nodes)) if i in used][:MAX_NODES] or [0]
    width = max(6.0, 0.45 * max(len(mapping.nodes[_node_index(mapping, k)].pus) for k in nodes))
    fig, axes = new_figure(len(nodes), 1, size=(min(width, 18.0), 1.9 * len(nodes)))
    for k, node in enumerate(nodes):
        plot_mapping(mapping, axes[k, 0], node)
    return fig
