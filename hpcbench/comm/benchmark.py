"""The `comm` benchmark of the suite: every rank of COMM_WORLD takes part.

Order: echo (ping-pong) over all sizes, regionalised fit, extra sizes around
each detected protocol change; pairwise exchange; broadcast; global sum;
barrier; DAXPY rate; overlap; echo with contention and echo over hops (with
4 ranks or more); Servet's communication layers. Every part is collective;
measurements are broadcast, so every rank computes the same derived values.
"""
from __future__ import annotations

import numpy as np

from .. import _validate
from ..suite import Skipped
from . import kernels
from .layers import DEFAULT_TOLERANCE, measure_layers
from .mesh import hop_node, make_mesh, max_hops
from .models import (bandwidth_thresholds, hockney_fit, hop_fit, refinement_sizes, regional_fit, vector_rate)
from .sweep import message_sizes

UNITS = {"sizes": "bytes", "samples": "ns (rounded to 0.1 ns)", "median": "s", "minimum": "s", "p10": "s",
         "p90": "s", "p99": "s", "bandwidth": "bytes/s", "latency": "s", "seconds_per_byte": "s/byte",
         "rank_average": "s", "flops": "flop/s", "r_inf": "flop/s", "n_half": "doubles", "per_hop": "s",
         "overlap_percent": "%", "saved": "s", "load_bandwidth": "bytes/s", "slowdown": "x"}

DEFAULTS = dict(max_size=4 << 20, rse=kernels.DEFAULT_RSE, cap_s=kernels.DEFAULT_CAP_S, probe_size=None,
                layer_tolerance=DEFAULT_TOLERANCE)
CONTENTION_SIZES = [0, 1024, 65536, 1 << 20]
HOP_SIZES = [0, 1024, 16384, 262144]


def _ns(samples) -> list:
    """Raw samples for the results file: ns, rounded to 0.1 ns (below the
    timer's resolution, so nothing measured is lost, and the file stays small)."""
    return [np.round(np.asarray(s, dtype=float) * 1e9, 1) for s in samples]


def _raw(sweep) -> dict:
    out = {"sizes": sweep.sizes, "statistic": sweep.statistic, "samples": _ns(sweep.samples),
           "warmup": sweep.warmup, "rse": sweep.rse, "inner": sweep.inner}
    if sweep.per_rank:
        out["per_rank"] = _ns(sweep.per_rank)
    return out


def _fits(sweep) -> dict:
    sizes, median = sweep.sizes, np.maximum(sweep.median, 1e-12)
    regions = regional_fit(sizes, median)
    derived = {"summary": sweep.summary(), "regions": [r.to_dict() for r in regions],
               "hockney": hockney_fit(sizes, median).to_dict()}
    if np.count_nonzero(sizes) >= 2:
        thresholds = bandwidth_thresholds(sizes, median)
        derived.update(peak_bandwidth=thresholds["peak"], n_half=thresholds[0.5], n_90=thresholds[0.9])
    return derived


def check_options(options: dict) -> dict:
    o = dict(DEFAULTS)
    o.update({k: v for k, v in options.items() if v is not None})
    _validate.positive_int("the largest message (--comm-max)", o["max_size"])
    if o["max_size"] > 1 << 30:
        raise ValueError(f"the largest message must be at most 1 GiB, got {o['max_size']}")
    if not 0 < o["rse"] < 1:
        raise ValueError(f"the target relative standard error must be between 0 and 1, got {o['rse']}")
    if not 0 < o["cap_s"] <= 60:
        raise ValueError(f"the time cap per size must be in (0, 60] seconds, got {o['cap_s']}")
    if not 0 < o["layer_tolerance"] < 10:
        raise ValueError(f"the layer tolerance must be positive, got {o['layer_tolerance']}")
    return o


def _probe_size(topology) -> int:
    l1 = [c.size for c in topology.caches if c.level == 1 and c.kind != "instruction"]
    return int(l1[0]) if l1 else 32768


def run(options: dict, topology, progress, earlier, comm) -> dict:
    size = comm.Get_size()
    if size < 2:
        raise Skipped("the communication benchmark needs at least 2 MPI ranks (mpiexec -n 2 or more)")
    o = check_options(options)
    probe = o["probe_size"] or _probe_size(topology)
    sizes = message_sizes(o["max_size"])
    common = dict(rse=o["rse"], cap_s=o["cap_s"])
    say = progress or (lambda message: None)
    raw, derived = {}, {}

    echo = kernels.pingpong(comm, sizes, **common)
    extra = refinement_sizes(echo.sizes, regional_fit(echo.sizes, np.maximum(echo.median, 1e-12)))
    if extra.size:
        echo = echo.merged(kernels.pingpong(comm, extra, **common))
    raw["echo"], derived["echo"] = _raw(echo), _fits(echo)
    derived["echo"]["refined_sizes"] = extra
    say(f"comm: echo over {echo.sizes.size} sizes ({extra.size} added around protocol changes)")

    lengths = np.unique(sizes // 8)
    for name, measure in (("exchange", lambda: kernels.exchange(comm, sizes, **common)),
                          ("broadcast", lambda: kernels.bcast(comm, sizes, **common)),
                          ("global_sum", lambda: kernels.allreduce(comm, lengths, **common))):
        sweep = measure()
        raw[name], derived[name] = _raw(sweep), _fits(sweep)
        say(f"comm: {name} done")
    bar = kernels.barrier(comm)
    raw["barrier"] = {"samples": _ns([bar.samples])[0], "per_rank": _ns(bar.per_rank)}
    derived["barrier"] = {"minimum": bar.minimum, "median": bar.typical,
                          "p90": float(np.percentile(bar.samples, 90))}

    daxpy = kernels.daxpy() if comm.Get_rank() == 0 else None
    daxpy = comm.bcast(daxpy, root=0)
    raw["daxpy"] = {"lengths": daxpy.lengths, "samples": _ns(daxpy.samples)}
    derived["daxpy"] = _daxpy_fit(daxpy, topology)

    grid = kernels.overlap(comm, **common)
    raw["overlap"] = {"vector_lengths": grid.vector_lengths, "sizes": grid.sizes,
                      "samples": {m: [_ns(row) for row in rows] for m, rows in grid.samples.items()}}
    derived["overlap"] = {"vector_lengths": grid.vector_lengths, "sizes": grid.sizes, "median": grid.times,
                          "saved": grid.saved, "overlap_percent": grid.overlap_percent}
    say("comm: daxpy and overlap done")

    notes = []
    if size >= 4:
        raw["contention"], derived["contention"] = _contention(comm, derived["echo"], common)
        raw["hops"], derived["hops"] = _hops(comm, common)
        say("comm: contention and hops done")
    else:
        notes.append("echo with contention and echo over hops need 4 ranks or more; skipped")

    placement, latencies, layers = measure_layers(comm, topology, probe, sizes, o["layer_tolerance"],
                                                  progress=progress)
    raw["layers"] = {"probe_size": probe, "latencies": [{"pair": list(p), "latency": t} for p, t in latencies.items()],
                     "sweeps": [_raw(layer.sweep) for layer in layers]}
    derived["layers"] = [{k: v for k, v in layer.to_dict().items() if k != "sweep"} | {"summary": layer.sweep.summary()}
                         for layer in layers]
    derived["placement"] = placement
    mesh = make_mesh(size)
    derived["mesh"] = {"rows": mesh.rows, "cols": mesh.cols, "layout": mesh.layout,
                       "neighbours": [mesh.neighbours(r) for r in range(size)]}
    return {
        "parameters": {"ranks": size, "max_size": o["max_size"], "rse_target": o["rse"], "cap_s": o["cap_s"],
                       "probe_size": probe, "layer_tolerance": o["layer_tolerance"],
                       "collectives": kernels.COLLECTIVE_NOTE + "; the time of an iteration is the slowest rank's",
                       "echo": "one-way time = round trip / 2 on the test rank (CoMet)", "test_pair": [0, 1]},
        "raw": raw, "derived": derived, "units": UNITS, "warnings": notes,
    }


def _daxpy_fit(daxpy, topology) -> dict:
    """r_inf and n_1/2 from the lengths whose two vectors fit in the L2 (the
    vector-pipe regime Hockney's model describes); the rate per length too."""
    l2 = [c.size for c in topology.caches if c.level == 2 and c.kind != "instruction"]
    fits = daxpy.lengths * 16 <= (l2[0] if l2 else 1 << 20)
    keep = fits if np.count_nonzero(fits) >= 3 else np.ones_like(fits)
    rate = vector_rate(daxpy.lengths[keep], daxpy.median[keep])
    return {"lengths": daxpy.lengths, "median": daxpy.median, "flops": daxpy.flops,
            "fit_lengths": daxpy.lengths[keep], **rate.to_dict()}


def _contention(comm, echo_derived, common):
    """Echo between ranks 1 and 2 while 0 streams to 3, at the loads that
    reach 50% and 90% of peak bandwidth, against the same echo alone."""
    loads = sorted({int(round(echo_derived["n_half"])), int(round(echo_derived["n_90"]))})
    alone = kernels.pingpong(comm, CONTENTION_SIZES, peer=2, test_rank=1, **common)
    raw, runs = {"alone": _raw(alone), "loaded": []}, []
    for load in loads:
        c = kernels.contention(comm, CONTENTION_SIZES, load)
        raw["loaded"].append({"load_size": load, **_raw(c.echo)})
        runs.append({"load_size": load, "load_bandwidth": c.load_bandwidth, "median": c.echo.median,
                     "slowdown": c.echo.median / alone.median})
    return raw, {"sizes": CONTENTION_SIZES, "alone_median": alone.median, "loads": runs}


def _hops(comm, common):
    """Echo from rank 0 to the rank n hops away in a hypercube numbering."""
    size = comm.Get_size()
    points, raw = [], []
    for n in range(1, max_hops(size) + 1):
        peer = hop_node(0, n, size)
        sweep = kernels.pingpong(comm, HOP_SIZES, peer=peer, test_rank=0, **common)
        raw.append({"hops": n, "peer": peer, **_raw(sweep)})
        points.extend((s, n, t) for s, t in zip(sweep.sizes, sweep.median))
    derived = {"points": [{"size": int(s), "hops": n, "median": t} for s, n, t in points]}
    if len({n for _, n, _ in points}) >= 2:
        s, n, t = (np.array(v, dtype=float) for v in zip(*points))
        derived["model"] = hop_fit(s, n, np.maximum(t, 1e-12)).to_dict()
    return raw, derived
