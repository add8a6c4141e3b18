"""Readable summaries of results files (`python -m hpcbench show`)."""
from __future__ import annotations

import math

from ._validate import format_size


def _fmt_diff(rec):
    if rec.get("relative_difference") is None:
        return "-"
    return f"{100 * rec['relative_difference']:+.1f}%"


def cache_summary(record: dict) -> list:
    lines = []
    params = record.get("parameters", {})
    lines.append(f"cache levels on {record.get('node', '?')} (PU {params.get('pu')}, {params.get('order')} order, "
                 f"{params.get('pages')} pages, stride {format_size(params.get('stride', 0))})")
    lines.append(f"  {'level':<6}{'measured':>12}{'method':>15}{'misses from':>13}{'hwloc':>12}{'diff':>9}  flag")
    for lv in record.get("derived", {}).get("levels", []):
        hw = format_size(lv["hwloc_size"]) if lv.get("hwloc_size") else "-"
        flag = "" if lv.get("agrees") is not False else "DISAGREES"
        onset = format_size(lv["onset"]) if lv.get("onset") else "-"
        lines.append(f"  L{lv['level']:<5}{format_size(lv['size']):>12}{lv['method']:>15}{onset:>13}{hw:>12}"
                     f"{_fmt_diff(lv):>9}  {flag}")
    derived = record.get("derived", {})
    found = len(derived.get("levels", []))
    expected = len(derived.get("hwloc_levels", []))
    if found != expected:
        lines.append(f"  note: {found} levels measured, hwloc reports {expected}")
    return lines


def _groups(groups) -> str:
    return " ".join("{" + ",".join(str(c) for c in g) + "}" for g in groups) or "-"


def _gbs(value) -> str:
    return f"{value / 1e9:.1f} GB/s"


def shared_caches_summary(record: dict) -> list:
    params = record.get("parameters", {})
    derived = record.get("derived", {})
    plan = derived.get("plan", {})
    lines = [f"shared caches on {record.get('node', '?')} ({params.get('pair_mode')} pairs: "
             f"{len(plan.get('tested', []))} of {plan.get('all_pairs', '?')} tested; levels from "
             f"{params.get('levels_from', '?')})",
             f"  {'level':<6}{'co-run':>11}{'threshold':>11}  {'sharing groups (measured)':<28}hwloc"]
    for lv in derived.get("levels", []):
        measured = _groups(lv["groups"]) if lv.get("decidable", True) else "undecidable"
        flag = "" if not lv.get("decidable", True) or lv["groups"] == lv.get("hwloc_groups") else "  DISAGREES"
        lines.append(f"  L{lv['level']:<5}{format_size(lv['corun_size']):>11}{lv['threshold']:>11.2f}  "
                     f"{measured:<28}{_groups(lv.get('hwloc_groups', []))}{flag}")
        ratios = ", ".join(f"{r['pair'][0]}-{r['pair'][1]}: {r['ratio']:.2f}" for r in lv.get("ratios", [])[:6])
        more = len(lv.get("ratios", [])) - 6
        lines.append(f"        ratios {ratios}{f' (+{more} more)' if more > 0 else ''}")
    return lines


def memory_summary(record: dict) -> list:
    params = record.get("parameters", {})
    derived = record.get("derived", {})
    overhead = derived.get("overhead", {})
    lines = [f"memory access on {record.get('node', '?')} (copy of {format_size(params.get('array_bytes', 0))} "
             f"arrays, {params.get('pair_mode')} pairs, tolerance {params.get('tolerance')})",
             f"  one core alone: {_gbs(overhead.get('reference', 0))}"]
    levels = overhead.get("levels", [])
    if not levels:
        lines.append("  no pair of cores slows the other down")
    for i, lv in enumerate(levels, 1):
        lines.append(f"  overhead level {i}: {_gbs(lv['bandwidth'])} per core ({100 * lv['relative']:.0f}% of alone), "
                     f"{len(lv['pairs'])} pair(s), groups {_groups(lv['groups'])}")
    for sc in derived.get("scalability", []):
        points = "  ".join(f"{p['cores']}: {p['per_core'] / 1e9:.1f}/{p['total'] / 1e9:.1f}" for p in sc["points"])
        lines.append(f"  scalability, {sc['group']} {_groups([sc['cores']])} (cores: GB/s per core/total): {points}")
    return lines


def _us(seconds) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.2f} us"


def _regions(regions) -> str:
    parts = []
    for r in regions:
        bw = f"{r['bandwidth'] / 1e9:.2f} GB/s" if r.get("bandwidth") else "inf"
        parts.append(f"[{format_size(r['first'])}..{format_size(r['last'])}] {_us(r['latency'])} + N/{bw}")
    return "; ".join(parts)


def _at(summary, size, key="median"):
    sizes = list(summary["sizes"])
    return summary[key][sizes.index(size)] if size in sizes else None


def comm_summary(record: dict) -> list:
    p, d = record.get("parameters", {}), record.get("derived", {})
    echo = d.get("echo", {})
    s = echo.get("summary", {})
    lines = [f"communication over {p.get('ranks')} ranks (echo between ranks 0 and 1, one-way = round trip / 2)"]
    if s:
        largest = max(s["sizes"])
        bw = _at(s, largest, "bandwidth")
        lines.append(f"  echo latency 0 B {_us(_at(s, 0))}, 8 B {_us(_at(s, 8))}; bandwidth at "
                     f"{format_size(largest)} {bw / 1e9:.2f} GB/s; n_1/2 {format_size(echo.get('n_half', 0))}, "
                     f"n_90 {format_size(echo.get('n_90', 0))}")
        lines.append(f"  echo regions: {_regions(echo.get('regions', []))}")
    for name, label in (("exchange", "exchange"), ("broadcast", "broadcast"), ("global_sum", "global sum")):
        if name in d:
            ss = d[name]["summary"]
            lines.append(f"  {label:<10} 8 B {_us(_at(ss, 8))}, {format_size(max(ss['sizes']))} "
                         f"{_us(_at(ss, max(ss['sizes'])))}; regions: {len(d[name]['regions'])}")
    if "barrier" in d:
        lines.append(f"  barrier: minimum {_us(d['barrier']['minimum'])}, median {_us(d['barrier']['median'])}")
    if "daxpy" in d:
        lines.append(f"  DAXPY: r_inf {d['daxpy']['r_inf'] / 1e9:.2f} Gflop/s, n_1/2 {d['daxpy']['n_half']:.0f} doubles")
    if "overlap" in d:
        pct = [v for row in d["overlap"]["overlap_percent"] for v in row if v is not None and math.isfinite(v)]
        if pct:
            lines.append(f"  overlap of exchange with DAXPY: {min(pct):.0f}% to {max(pct):.0f}% of what could be hidden "
                         f"({len(pct)} measurable points)")
    for load in d.get("contention", {}).get("loads", []):
        slow = ", ".join(f"{format_size(sz)} x{x:.2f}" for sz, x in zip(d["contention"]["sizes"], load["slowdown"]))
        lines.append(f"  echo 1<->2 with {format_size(load['load_size'])} load 0->3: slowdown {slow}")
    if "model" in d.get("hops", {}):
        lines.append(f"  hops: per extra hop {_us(d['hops']['model']['per_hop'])}")
    layers = d.get("layers", [])
    if layers:
        lines.append(f"  layers at {format_size(p.get('probe_size', 0))}: {'layer':<34}{'latency':>11}{'pairs':>7}  "
                     "scalability (pairs: slowdown)")
        for lv in layers:
            scal = " ".join(f"{x['pairs']}:x{x['slowdown']:.2f}" for x in lv["scalability"])
            lines.append(f"    {lv['name']:<48}{_us(lv['latency']):>11}{len(lv['pairs']):>7}  {scal}")
            lines.append(f"      regions: {_regions(lv['regions'])}")
    return lines


def distance_summary(record: dict) -> list:
    d = record.get("derived", {})
    lines = [f"network degradation with distance ({d.get('nodes')} nodes, one process each, "
             f"{format_size(d.get('size', 0))} messages, all sending at once)",
             f"  {'distance':>8}{'bandwidth':>14}{'ratDist':>9}"]
    for dist in d.get("distances", []):
        lines.append(f"  {dist:>8}{d['bandwidth'][str(dist)] / 1e6:>10.1f} MB/s{d['rat_dist'][str(dist)]:>9.2f}")
    return lines


def network_access_summary(record: dict) -> list:
    d = record.get("derived", {})
    lines = [f"network degradation with processes per node ({d.get('total')} processes, "
             f"{format_size(d.get('size', 0))} messages to the next node)",
             f"  {'per node':>8}{'nodes':>7}{'bandwidth':>14}{'ratNC':>8}"]
    for k in d.get("per_node", []):
        lines.append(f"  {k:>8}{d['nodes_used'][str(k)]:>7}{d['bandwidth'][str(k)] / 1e6:>10.1f} MB/s"
                     f"{d['rat_nc'][str(k)]:>8.2f}")
    rule = d.get("mapping_rule", {})
    if rule.get("first_over_threshold"):
        lines.append(f"  mapping rule: ratNC > {rule['threshold']} from {rule['first_over_threshold']} processes "
                     "per node: raise the weights of cores sharing the network")
    return lines


def multibsp_summary(record: dict) -> list:
    d = record.get("derived", {})
    tuples = []
    for lv in d.get("levels", []):
        p = lv["p"] if not isinstance(lv["p"], list) else "/".join(str(x) for x in sorted(set(lv["p"])))
        m = lv["m"] if not isinstance(lv["m"], list) else max(lv["m"])
        tuples.append(f"<p={p}, m={format_size(m)}, g={lv['g']:.1f}, L={lv['L']:.0f}>")
    lines = [f"MultiBSP tree of {record.get('node', '?')} (g in flops per word, L in flops, r = "
             f"{d.get('rate', 0) / 1e9:.2f} Gflop/s per core)", "  [" + ", ".join(tuples) + "]"]
    for lv in d.get("levels", []):
        for c in lv["components"]:
            fits = c["fits"]
            bsp = fits.get("h_ge_p") or {}
            lines.append(f"  level {lv['level']} PUs {_groups([c['pus']])}: all h g={fits['all']['g']:.1f} "
                         f"L={fits['all']['L']:.0f} (rms {fits['all']['rms_residual']:.0f}); h>=p g={bsp.get('g', 0):.1f} "
                         f"L={bsp.get('L', 0):.0f} (rms {bsp.get('rms_residual', 0):.0f})")
    ip = d.get("inner_product", [])
    if ip:
        lines.append(f"  inner product (measured / predicted with r = DAXPY, and with the loop's own rate "
                     f"{d.get('inner_product_kernel_rate', 0) / 1e9:.2f} Gflop/s):")
        for v in ip:
            lines.append(f"    2^{v['n'].bit_length() - 1:<3} measured {v['measured_s'] * 1e6:9.1f} us  "
                         f"x{v['measured_over_predicted']:.2f}  x{v.get('measured_over_predicted_kernel_rate', 0):.2f}"
                         f"  (with thread start-up {v['measured_with_startup_s'] * 1e6:.0f} us)")
    return lines


SUMMARIES = {"cache": cache_summary, "shared-caches": shared_caches_summary, "memory": memory_summary,
             "comm": comm_summary, "multibsp": multibsp_summary, "distance": distance_summary, "network-access": network_access_summary}


def summary(results) -> str:
    ctx = results.context
    lines = [f"hpcbench {ctx.get('hpcbench', '?')} results of {ctx.get('date', '?')}",
             f"  hosts: {', '.join(ctx.get('hosts', []))}; CPU: {ctx.get('cpu_model', '?')}; "
             f"MPI ranks: {ctx.get('mpi', {}).get('ranks', '?')}",
             f"  timer: {ctx.get('timer', {}).get('source', '?')} at "
             f"{ctx.get('timer', {}).get('ticks_per_ns', 0):.3f} ticks/ns, overhead "
             f"{ctx.get('timer', {}).get('overhead_ns', 0):.0f} ns; transparent huge pages: "
             f"{ctx.get('transparent_huge_pages', '?')}", ""]
    if not results.benchmarks:
        lines.append("no benchmark finished")
    for rec in results.benchmarks:
        if rec.get("status") == "skipped":
            lines.append(f"{rec.get('name')} on {rec.get('node', '?')}: skipped: {rec.get('reason', '')}")
        elif rec.get("status") != "ok":
            lines.append(f"{rec.get('name')} on {rec.get('node', '?')}: FAILED: {rec.get('error', 'unknown error')}")
        elif rec.get("name") in SUMMARIES:
            lines.extend(SUMMARIES[rec["name"]](rec))
        else:
            lines.append(f"{rec.get('name')}: (no summary for this benchmark in this hpcbench version)")
        for w in rec.get("warnings", []):
            lines.append(f"  warning: {w}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
