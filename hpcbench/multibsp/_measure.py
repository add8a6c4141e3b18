"""MultiBSP measurements on this machine: h-communications per component
(every component of every level) and the inner product over the tree."""
from __future__ import annotations

import numpy as np

from .. import _core
from ._options import MultiBSPOptions
from ._tree import Component

_D = MultiBSPOptions()


def measure_component(component: Component, hmax: int = _D.hmax, iterations: int = _D.iterations,
                      blocks: int = _D.blocks, warmup: int = _D.warmup) -> dict:
    """h-communications among the children of `component`, one pinned thread
    per child. Returns ticks per superstep (h x blocks), the DAXPY rate of
    each thread (flops per tick) and flops per superstep (thread 0's rate,
    as the paper's master converts)."""
    ticks, rate = _core.hcomm(component.child_pus, hmax, iterations, blocks=blocks, warmup=warmup)
    per_step = ticks / iterations
    return {"pus": list(component.child_pus), "ticks_per_superstep": per_step, "rate_flops_per_tick": rate,
            "flops": np.median(per_step, axis=1) * rate[0]}


def _leaves(node) -> list:
    return [node] if isinstance(node, int) else [pu for ch in node.children for pu in _leaves(ch)]


def split_slices(node: Component | int, begin: int, end: int, out: dict) -> dict:
    """Algorithm 1.3's recursive split: a component gives each child an equal
    share of its range; returns PU -> (begin, end)."""
    if isinstance(node, int):
        out[node] = (begin, end)
        return out
    bounds = np.linspace(begin, end, node.p + 1).round().astype(int)
    for ch, b, e in zip(node.children, bounds[:-1], bounds[1:]):
        split_slices(ch, int(b), int(e), out)
    return out


def flatten(root: Component) -> dict:
    """The arrays hpcbench._core.inner_product takes: threads in leaf order,
    components bottom up with the root last."""
    leaves = _leaves(root)
    index = {pu: i for i, pu in enumerate(leaves)}
    comps = []

    def post(node):
        if isinstance(node, int):
            return
        for ch in node.children:
            post(ch)
        comps.append(node)

    post(root)
    cid = {id(c): i for i, c in enumerate(comps)}
    parent = [-1] * len(comps)
    leaf_parent = [0] * len(leaves)
    for c in comps:
        for ch in c.children:
            if isinstance(ch, int):
                leaf_parent[index[ch]] = cid[id(c)]
            else:
                parent[cid[id(ch)]] = cid[id(c)]
    master = [index[_leaves(c)[0]] for c in comps]
    nleaves = [len(_leaves(c)) for c in comps]
    return {"pus": leaves, "leaf_parent": leaf_parent, "parent": parent, "master": master, "nleaves": nleaves,
            "components": comps}


def measure_inner_product(root: Component, n: int, reps: int = _D.reps) -> dict:
    """Run the MultiBSP inner product of a vector of n doubles `reps` times
    (after one untimed run). Ticks with and without the team's start-up."""
    flat = flatten(root)
    slices = split_slices(root, 0, n, {})
    begin = [slices[pu][0] for pu in flat["pus"]]
    end = [slices[pu][1] for pu in flat["pus"]]
    x = np.full(n, 0.5)
    args = (flat["pus"], flat["leaf_parent"], flat["parent"], flat["master"], flat["nleaves"], begin, end, x)
    _core.inner_product(*args, 1)
    total, inside, result = _core.inner_product(*args, reps)
    if result != 0.25 * n:
        raise RuntimeError(f"the inner product of {n} halves came out {result}, not {0.25 * n}")
    return {"n": n, "total_ticks": total, "inside_ticks": inside,
            "slices": {pu: e - b for pu, (b, e) in slices.items()}}


def leaf_kernel_rate(pu: int, n: int = 1 << 15, reps: int = 20) -> float:
    """Flops per tick of the inner product's own sequential loop on one PU
    (a one-thread tree, a vector that fits in the L2)."""
    x = np.full(n, 0.5)
    args = ([pu], [0], [-1], [0], [1], [0], [n], x)
    _core.inner_product(*args, 2)
    _, inside, result = _core.inner_product(*args, reps)
    if result != 0.25 * n:
        raise RuntimeError(f"the sequential inner product of {n} halves came out {result}")
    return 2.0 * n / float(np.min(inside))
