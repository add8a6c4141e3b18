"""Contention for a node's network access, from measurement: Servet 3.0's
ratNC (the network-access benchmark, docs/network.md) applied to the
messages that share a node's access (Hammond et al. 2009, section 6.3.2:
Figure 8's measured degradation with processes per node is what Table 5's
quad-core projection prices).

ratNC[k] = bandwidth(1) / bandwidth(k): with k processes of every node
sending off-node at once, each gets 1 / ratNC[k] of the bandwidth one
process alone gets. A message between two nodes is priced with its
bandwidth divided by ratNC[k] (its x / B and its link time g multiplied
by it; the latency and the CPU overheads o_s, o_r stay: ratNC is a
bandwidth measured with large messages, and the overheads are CPU time),
where k is how many ranks of its nodes use the network access at once:

    k(a -> b) = max(senders off-node on a's node, receivers off-node on b's node)

counted over the messages of the code (a rank counts once however many
off-node partners it has). Why every such rank counts as "at once": a
wavefront's stack keeps every rank sending its faces every tile, so during
the stacks (most of a sweep) every rank with an off-node neighbour is
sending to it, or receiving from it, at the same time as the others of
its node. Where that is not so the rule is an upper bound: in the fills
only the diagonal of the front sends; a rank whose off-node neighbours
lie on opposite sides (round robin on a 1 x N array) uses the access in
every sweep but with half of them in a given direction. Messages within a
node pay nothing for it (they do not cross the network access).

Beyond the largest k measured, K, each more process is taken to take an
equal share: ratNC[k] = ratNC[K] k / K (said in `describe`).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._errors import PredictError

__all__ = ["AccessContention", "array_slowdowns", "pair_slowdowns"]

#: ratNC tables longer than this are refused (the benchmark's own bound).
MAX_PER_NODE = 1 << 16


@dataclass(frozen=True)
class AccessContention:
    """ratNC[1..K] (`ratios[k-1]`, the first exactly 1) and where it came
    from (a results file's network-access record, or a table)."""

    ratios: tuple[float, ...]
    source: str = ""

    def __post_init__(self) -> None:
        values = tuple(float(v) for v in self.ratios)
        if not values or len(values) > MAX_PER_NODE:
            raise PredictError(f"ratNC needs 1 to {MAX_PER_NODE} values (processes per node 1, 2, ...), "
                               f"got {len(values)}")
        bad = next((k for k, v in enumerate(values, 1) if not (math.isfinite(v) and v > 0)), None)
        if bad is not None:
            raise PredictError(f"ratNC[{bad}] must be a finite number > 0, got {values[bad - 1]!r}")
        if values[0] != 1.0:
            raise PredictError(f"ratNC[1] is the reference and must be 1, got {values[0]!r}: are these ratios?")
        object.__setattr__(self, "ratios", values)

    @property
    def measured_upto(self) -> int:
        return len(self.ratios)

    def ratio(self, k: ArrayLike) -> np.ndarray:
        """ratNC[k] for processes per node k >= 1 (a number or an array);
        beyond the largest measured K, ratNC[K] k / K."""
        k = np.maximum(np.asarray(k, dtype=np.int64), 1)
        table = np.asarray(self.ratios)
        top = len(table)
        return np.asarray(np.where(k <= top, table[np.minimum(k, top) - 1], table[-1] * k / top))

    def describe(self) -> str:
        """One line: the ratios and their source."""
        shown = ", ".join(f"[{k}] {v:.2f}" for k, v in enumerate(self.ratios[:8], 1))
        more = ", ..." if len(self.ratios) > 8 else ""
        return (f"measured ratNC {shown}{more} (from {self.source or 'a table'}; beyond {self.measured_upto} "
                f"per node: ratNC[{self.measured_upto}] x k/{self.measured_upto})")

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "rat_nc": {str(k): v for k, v in enumerate(self.ratios, 1)}}

    @classmethod
    def from_mapping(cls, table: Mapping[Any, Any], source: str = "") -> AccessContention:
        """From {processes per node: ratio} (keys 1..K, as ints or JSON
        strings); PredictError (one line) for gaps or bad values."""
        try:
            items = sorted((int(k), v) for k, v in table.items())
        except (TypeError, ValueError):
            raise PredictError(f"ratNC is {{processes per node: ratio}} with keys 1, 2, ..., got "
                               f"{list(table)[:4]!r}") from None
        keys = [k for k, _ in items]
        if keys != list(range(1, len(keys) + 1)):
            raise PredictError(f"ratNC needs one ratio per processes per node 1, 2, ..., got keys {keys[:8]}")
        values = []
        for k, v in items:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise PredictError(f"ratNC[{k}] must be a finite number > 0, got {v!r}")
            values.append(float(v))
        return cls(tuple(values), source)

    @classmethod
    def from_results(cls, results: Any) -> AccessContention | None:
        """The network-access record of a results file (path or
        hpcbench.Results), None if it has none finished."""
        from .._results import Results, load
        data = results if isinstance(results, Results) else load(str(results))
        ratios = data.network_access_ratios
        if not ratios:
            return None
        return cls.from_mapping(ratios, f"the network-access record of {data.path or 'these results'}")


def pair_slowdowns(access: AccessContention | None, node: np.ndarray, senders: ArrayLike,
                   receivers: ArrayLike) -> np.ndarray | None:
    """The bandwidth divisor of every message senders[i] -> receivers[i]
    (ranks; node[r] is rank r's node): ratNC[k] for messages between nodes
    with k as the module docstring counts it over these messages, 1.0
    within a node. None when there is nothing to apply (no ratNC, or no
    message leaves its node)."""
    if access is None:
        return None
    a, b = np.asarray(senders, dtype=np.int64), np.asarray(receivers, dtype=np.int64)
    _, node_of = np.unique(np.asarray(node), return_inverse=True)
    node_of = node_of.reshape(-1)
    off = node_of[a] != node_of[b]
    if not off.any():
        return None
    nodes = int(node_of.max()) + 1
    # Each rank once: a rank with three off-node partners is one process
    # using the access, as the benchmark's processes are.
    sending = np.unique(a[off])
    receiving = np.unique(b[off])
    out_k = np.bincount(node_of[sending], minlength=nodes)
    in_k = np.bincount(node_of[receiving], minlength=nodes)
    k = np.maximum(out_k[node_of[a]], in_k[node_of[b]])
    return np.where(off, access.ratio(np.maximum(k, 1)), 1.0)


def array_slowdowns(access: AccessContention | None, node: np.ndarray,
                    rank: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """pair_slowdowns for the neighbour pairs of a process array (`rank`,
    (m, n)): the E/W pairs ((m, n-1)) and the N/S pairs ((m-1, n)), faces
    flowing both ways over an iteration's sweeps, each pair taking the
    larger of its two directions. (None, None) when nothing applies."""
    pairs = [(rank[:, :-1], rank[:, 1:]), (rank[:-1, :], rank[1:, :])]
    a = np.concatenate([p.ravel() for p, _ in pairs])
    b = np.concatenate([q.ravel() for _, q in pairs])
    slow = pair_slowdowns(access, node, np.concatenate([a, b]), np.concatenate([b, a]))
    if slow is None:
        return None, None
    both = np.maximum(slow[:a.size], slow[a.size:])
    ew_count = pairs[0][0].size
    return both[:ew_count].reshape(pairs[0][0].shape), both[ew_count:].reshape(pairs[1][0].shape)
