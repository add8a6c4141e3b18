"""Figures for the simulator (Hammond et al. 2009, sections 4.2, 5.3 and 7).

    python benchmarks/bench_simulate.py [--wg SECONDS] [--cores 16,64,256,1024,4096] [--what-if TEXT]
                                        [--sends eager|blocking] [--json out.json]

Prints, measured in this run (nothing is asserted):
  * speed: the 240^3 problem on 4096 ranks (64 x 64), H_tile 1, one
    iteration (eight sweeps, about 39 million events), Table 3 of the paper
    as the network profile, node fill on 1024 nodes x 2 processors x 2
    cores (Francesca's nodes): seconds to generate the program, to cost its
    events and to replay them, and the predicted time with its breakdown.
    Target: at most 60 s in all on this machine.
  * Figure 9 in shape: the improvement of node fill and processor fill
    over round robin, (T_rr - T) / T_rr, by core count, on P/4 such nodes
    (the job's own nodes, full), the same program for the three.
  * --what-if TEXT: the 4096-rank run again with the what-if applied.
  * --projections: section 6 by core count, node fill: Table 5 (dual to
    quad core, cores-per-node=x2,contention=table5, on P/8 nodes of 2 x 4)
    and Figure 6 (latency +25, +50, +75 %), as changes of the run time.
  * --sends blocking: all of it with WARPP's rendezvous instead of the
    contract's eager sends (_replay.py).

The code, the machine and W_g are the one calibration of the paper's
machine (hpcbench/predict/_paper.py: CALIBRATION, fitted on Tables 4 and 5
together by benchmarks/bench_hammond_calibration.py): 6 angles, H_tile 1,
each count on its most square array, a grid the array does not divide
split into blocks of ceil and floor sizes (64 over 240: 4 and 3 cells).
The profile is the shipped example francesca-profile.json when present,
else Table 3 written out here. --wg changes W_g alone; --calibrate prints
T(4096) / T(32) against Table 5's 37.29 s / 729.97 s.

Peer: the paper itself (Tables 3 and 5, Figures 6 and 9); no program is run
beside the installed hpcbench's simulator.
"""
import argparse
import json
import time

import numpy as np

import hpcbench.examples
from hpcbench.predict._allocate import Machine, allocate
from hpcbench.predict._paper import CALIBRATION
from hpcbench.predict._profile import NetworkProfile, Region
from hpcbench.predict._replay import replay
from hpcbench.predict._simulate import event_durations, simulate
from hpcbench.predict._wavefront_program import wavefront_program
from hpcbench.predict._whatif import parse_what_if

GRID = 240
WG_DEFAULT = CALIBRATION.wg   # seconds per cell (all angles): the paper's calibration (module docstring)
PROFILE_NAME = "francesca-profile.json"


def table3() -> NetworkProfile:
    """Table 3 of the paper (CSC-Francesca), or the shipped table if present."""
    if PROFILE_NAME in hpcbench.examples.names():
        return NetworkProfile.from_table(hpcbench.examples.path(PROFILE_NAME))
    us, gb = 1e-6, 1e9
    return NetworkProfile({
        "on-chip": [Region(0, 0.655 * us, 2.70 * gb)],
        "off-processor": [Region(0, 0.69 * us, 2.80 * gb), Region(2048, 0.91 * us, 3.83 * gb)],
        "off-node": [Region(0, 2.64 * us, 0.46 * gb), Region(2048, 3.63 * us, 0.73 * gb)],
    }, "Hammond et al. 2009, Table 3 (written out in bench_simulate.py)")


def program_for(cores: int, wg: float, grid: int = GRID, iterations: int = 1):
    """The grid^3 wavefront on `cores` as the calibration lays it out."""
    return wavefront_program(CALIBRATION.with_(wg=wg).params(cores, grid), iterations=iterations)


def speed(wg: float, profile: NetworkProfile, what_if: str | None, sends: str) -> dict:
    t0 = time.perf_counter()
    program = program_for(4096, wg)
    t1 = time.perf_counter()
    placement = allocate(4096, Machine(1024, 2, 2), "node-fill")
    duration = event_durations(program, profile, placement)
    t2 = time.perf_counter()
    r = replay(program, duration, sends=sends)
    t3 = time.perf_counter()
    print(f"speed: 240^3 on 64x64 = 4096 ranks, {program.nevents:,} events, node fill on 1024x2x2")
    print(f"  generate {t1 - t0:6.1f} s   cost events {t2 - t1:6.1f} s   replay {t3 - t2:6.1f} s "
          f"({r.rounds} passes)   total {t3 - t0:6.1f} s   (target <= 60 s)")
    print(f"  predicted time of one iteration: {r.total:.4f} s; per rank (mean of finish): compute "
          f"{r.compute.mean() / r.finish.mean():.1%}, send {r.send.mean() / r.finish.mean():.1%}, receive "
          f"{r.recv.mean() / r.finish.mean():.1%}, idle {r.idle.mean() / r.finish.mean():.1%}")
    out = {"events": program.nevents, "generate_s": t1 - t0, "cost_s": t2 - t1, "replay_s": t3 - t2,
           "total_s": t3 - t0, "predicted_s": r.total}
    if what_if:
        proj = parse_what_if(what_if).apply(profile, Machine(1024, 2, 2))
        s = simulate(program, proj.profile, placement, core_speed=proj.core_speed, sends=sends)
        print(f"  what-if {parse_what_if(what_if).describe()}: {s.total:.4f} s "
              f"({(s.total - r.total) / r.total:+.2%})")
        out["what_if"] = {"text": what_if, "predicted_s": s.total}
    return out


def figure9(wg: float, profile: NetworkProfile, cores_list, sends: str) -> dict:
    print("Figure 9 in shape: improvement over round robin, (T_rr - T) / T_rr, P/4 nodes x 2 x 2")
    print(f"  {'cores':>6} {'round robin (s)':>16} {'node fill':>10} {'processor fill':>15} {'seconds':>8}")
    rows = {}
    for cores in cores_list:
        t0 = time.perf_counter()
        program = program_for(cores, wg)
        machine = Machine(max(cores // 4, 1), 2, 2)
        totals = {s: simulate(program, profile, allocate(cores, machine, s), sends=sends).total
                  for s in ("round-robin", "node-fill", "processor-fill")}
        rr = totals["round-robin"]
        gain = {s: (rr - t) / rr for s, t in totals.items()}
        print(f"  {cores:>6} {rr:>16.4f} {gain['node-fill']:>10.2%} {gain['processor-fill']:>15.2%} "
              f"{time.perf_counter() - t0:>8.1f}")
        rows[cores] = {"seconds": totals, "improvement": gain}
    return rows


def projections(wg: float, profile: NetworkProfile, cores_list, sends: str) -> dict:
    print("Section 6 by core count, node fill: run-time change against the dual-core machine as measured")
    print(f"  {'cores':>6} {'dual (s)':>9} {'quad, Table 5':>14} {'lat +25%':>9} {'lat +50%':>9} {'lat +75%':>9}")
    rows = {}
    for cores in cores_list:
        program = program_for(cores, wg)
        dual = Machine(max(cores // 4, 1), 2, 2)
        base = simulate(program, profile, allocate(cores, dual, "node-fill"), sends=sends).total
        quad = parse_what_if("cores-per-node=x2,contention=table5").apply(profile, Machine(max(cores // 8, 1), 2, 2))
        assert quad.machine is not None
        t_quad = simulate(program, quad.profile, allocate(cores, quad.machine, "node-fill"), sends=sends).total
        lat = [simulate(program, parse_what_if(f"latency=+{p}%").apply(profile).profile,
                        allocate(cores, dual, "node-fill"), sends=sends).total for p in (25, 50, 75)]
        change = [(t - base) / base for t in [t_quad] + lat]
        print(f"  {cores:>6} {base:>9.4f} {change[0]:>14.2%} " + " ".join(f"{c:>9.2%}" for c in change[1:]))
        rows[cores] = {"dual_s": base, "quad_s": t_quad, "latency_s": dict(zip(("+25%", "+50%", "+75%"), lat))}
    return rows


def calibrate(wg: float, profile: NetworkProfile) -> None:
    """T(4096) / T(32) for this W_g (Table 5, dual core: 37.29 / 729.97 = 0.0511)."""
    t32 = simulate(program_for(32, wg), profile, allocate(32, Machine(8, 2, 2), "node-fill")).total
    t4096 = simulate(program_for(4096, wg), profile, allocate(4096, Machine(1024, 2, 2), "node-fill")).total
    print(f"calibrate: W_g {wg:g} s: T(32) {t32:.4f} s, T(4096) {t4096:.4f} s, ratio {t4096 / t32:.4f} "
          f"(Table 5: {37.29 / 729.97:.4f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wg", type=float, default=WG_DEFAULT, help="W_g, seconds per cell (all angles)")
    ap.add_argument("--cores", default="16,64,256,1024,4096", help="core counts of the Figure 9 table")
    ap.add_argument("--what-if", default=None, help="a what-if for the 4096-rank run, e.g. latency=+50%%")
    ap.add_argument("--sends", default="eager", choices=("eager", "blocking"), help="transfer semantics")
    ap.add_argument("--projections", action="store_true", help="also section 6's Table 5 and Figure 6")
    ap.add_argument("--calibrate", action="store_true", help="only print T(4096)/T(32) for --wg")
    ap.add_argument("--json", default=None, help="write the numbers there")
    args = ap.parse_args()
    profile = table3()
    print(f"profile: {profile.source}; W_g {args.wg:g} s per cell; {args.sends} sends")
    if args.calibrate:
        calibrate(args.wg, profile)
        return
    out = {"wg": args.wg, "profile": profile.source, "sends": args.sends,
           "speed": speed(args.wg, profile, args.what_if, args.sends),
           "figure9": figure9(args.wg, profile, [int(c) for c in args.cores.split(",")], args.sends)}
    if args.projections:
        out["projections"] = projections(args.wg, profile, [int(c) for c in args.cores.split(",")], args.sends)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, default=lambda o: o.item() if isinstance(o, np.generic) else str(o))


if __name__ == "__main__":
    main()
