"""MultiBSP measurements on this machine: h-communications per component
(every component of every level) and the inner product over the tree."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._memory import safe_memory_limit
from ._hmax import PILOT_BLOCKS, PILOT_HMAX, PILOT_ITERATIONS, level_hmax, sweep_iterations
from ._levels import MemoryLevel, rate_slice_doubles
from ._model import fits_side_by_side
from ._options import MultiBSPOptions
from ._tree import Component

_D = MultiBSPOptions()


def measure_component(component: Component, hmax: int | None = _D.hmax, iterations: int = _D.iterations,
                      blocks: int = _D.blocks, warmup: int = _D.warmup, flops_per_tick: float | None = None) -> dict:
    """h-communications among the children of `component`, one pinned thread
    per child, h up to `hmax` (None: chosen for this level from a pilot
    sweep, _hmax.level_hmax, with the iterations scaled to keep the paper's
    superstep budget; the result's "hmax" says which). Returns ticks per superstep (h x blocks), the DAXPY rate of
    each thread (flops per tick) and flops per superstep at `flops_per_tick`
    (MultiBSP's r: one core's peak; None: thread 0's DAXPY rate, as the
    paper's master converts) of the fastest block per h: another
    process on a team PU only adds time, and on a shared machine it lands
    in most blocks of a sweep (a time slice is a few ms), so a median
    follows it and the fit's L went negative under load."""
    if hmax is None:      # chosen for this level from a pilot sweep (_hmax), the superstep budget kept
        pilot = measure_component(component, PILOT_HMAX, PILOT_ITERATIONS, PILOT_BLOCKS, warmup, flops_per_tick)
        first = fits_side_by_side(np.arange(PILOT_HMAX + 1), pilot["flops"], component.p).all
        hmax = level_hmax(component, first.g, first.L)
        iterations = sweep_iterations(iterations, hmax)
    ticks, rate = _core.hcomm(component.child_pus, hmax, iterations, blocks=blocks, warmup=warmup)
    per_step = ticks / iterations
    return {"pus": list(component.child_pus), "ticks_per_superstep": per_step, "rate_flops_per_tick": rate,
            "flops": np.min(per_step, axis=1) * (rate[0] if flops_per_tick is None else flops_per_tick),
            "hmax": hmax}


def _leaves(node) -> list:
    return [node] if isinstance(node, int) else [pu for ch in node.children for pu in _leaves(ch)]


def root_pus(root: Component) -> list[int]:
    """The PUs under `root` in leaf order: the inner product's threads."""
    return _leaves(root)


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
    (after one untimed run). Ticks with and without the team's start-up,
    of each thread's loop (reps x threads, leaf order) and of the reduction
    after the last loop."""
    flat = flatten(root)
    slices = split_slices(root, 0, n, {})
    begin = [slices[pu][0] for pu in flat["pus"]]
    end = [slices[pu][1] for pu in flat["pus"]]
    x = np.full(n, 0.5)
    args = (flat["pus"], flat["leaf_parent"], flat["parent"], flat["master"], flat["nleaves"], begin, end, x)
    _core.inner_product(*args, 1)
    total, inside, leaf, reduce, result = _core.inner_product(*args, reps)
    if result != 0.25 * n:
        raise RuntimeError(f"the inner product of {n} halves came out {result}, not {0.25 * n}")
    return {"n": n, "total_ticks": total, "inside_ticks": inside, "leaf_ticks": leaf, "reduce_ticks": reduce,
            "slices": {pu: e - b for pu, (b, e) in slices.items()}}


def leaf_kernel_rate(pu: int, n: int = 1 << 15, reps: int = 20) -> float:
    """Flops per tick of the inner product's own sequential loop on one PU
    (a one-thread tree, a vector that fits in the L2)."""
    x = np.full(n, 0.5)
    args = ([pu], [0], [-1], [0], [1], [0], [n], x)
    _core.inner_product(*args, 2)
    _, inside, _, _, result = _core.inner_product(*args, reps)
    if result != 0.25 * n:
        raise RuntimeError(f"the sequential inner product of {n} halves came out {result}")
    return 2.0 * n / float(np.min(inside))


def measure_leaf_rates(levels: list[MemoryLevel], pus: list[int], trials: int = 7) -> list[dict]:
    """The inner product's leaf loop with every thread of `pus` running it
    at once on its own slice, one slice size per memory level (the model's
    r per level). Per level: its slice (doubles per thread) and each
    thread's best rate over the trials (flops per tick): the best, as
    DAXPY's r, since a thread that shares its PU with another process for
    one trial (a time slice is a few ms) runs at a fraction of its rate."""
    # The memory level's slices (all threads at once) stay within the memory a benchmark may take.
    cap = max(64, int(safe_memory_limit() / (2 * 8 * len(pus))) // 4 * 4)
    out = []
    for i, lv in enumerate(levels):
        doubles = min(rate_slice_doubles(levels, i), cap)
        rate = _core.sumsq_rate(pus, doubles, trials)
        out.append({"level": lv, "slice_doubles": doubles, "rate_flops_per_tick": np.max(rate, axis=0)})
    return out


def measure_empty_run(root: Component, reps: int = _D.reps) -> dict:
    """The inner product of an empty vector: what remains is the team's
    start-up and join (total - inside) and the supersteps' synchronisation
    and reductions (inside). Medians, in ticks."""
    m = measure_inner_product(root, 0, reps)
    return {"startup_ticks": float(np.median(m["total_ticks"] - m["inside_ticks"])),
            "sync_ticks": float(np.median(m["inside_ticks"]))}
