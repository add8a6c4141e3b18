"""Co-run ratio against array size for one pair of cores: the evidence behind a
shared-caches verdict.

    python benchmarks/bench_corun.py [--pair 0,1] [--sizes 8MiB,16MiB,...] [--rounds 5]

For each size per core: each core alone, then both at once (mcalibrator,
windowed order, 1 KiB stride), the ratio together/alone per round. If the two
cores share a cache of size CS, the ratio climbs once 2 x size passes CS; if
each has its own, it stays near 1 until one core alone no longer fits.
Nothing is asserted: the script reports what it measured.

Peer: none. hpcbench's own team kernel (the installed hpcbench._core) runs
alone and co-run; the comparison is each core against itself.
"""
import argparse

import numpy as np
from build_peers import fail

from hpcbench import _core
from hpcbench._format import format_size
from hpcbench._validate import parse_size
from hpcbench.cache import co_run_ratio
from hpcbench.topology import Topology

DEFAULT_SIZES = "8MiB,12MiB,16MiB,20MiB,24MiB,28MiB,40MiB"
SCRIPT = "bench_corun.py"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pair", default=None, help="two PU OS indexes, e.g. 0,1 (default: the first two)")
    ap.add_argument("--sizes", default=DEFAULT_SIZES, help=f"bytes per core (default {DEFAULT_SIZES})")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per size; the ratio is their median (default 5)")
    args = ap.parse_args()
    if args.rounds < 1:
        fail(SCRIPT, f"--rounds must be at least 1, got {args.rounds}")
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",")]
    except ValueError as e:
        fail(SCRIPT, f"--sizes: {e}")
    pus = Topology.load().pu_indexes
    a, b = (int(x) for x in args.pair.split(",")) if args.pair else pus[:2]
    kw = dict(order=2, min_accesses=1 << 18, samples=3, warmup=1, window_bytes=128 << 10)
    print(f"pair {a},{b}: ticks per access alone and together, ratio (median of {args.rounds} rounds)")
    for size in sizes:
        alone = np.empty((args.rounds, 2, 3))
        together = np.empty((args.rounds, 2, 3))
        for r in range(args.rounds):
            alone[r, 0] = _core.traverse_team([a], size, 1024, seed=3 * r + 1, **kw)[0][0]
            alone[r, 1] = _core.traverse_team([b], size, 1024, seed=3 * r + 2, **kw)[0][0]
            together[r] = _core.traverse_team([a, b], size, 1024, seed=3 * r + 3, **kw)[0]
        print(f"  {format_size(size):>10} per core: alone {np.median(alone.min(axis=2)):6.1f}  together "
              f"{np.median(together.min(axis=2)):6.1f}  ratio {co_run_ratio(alone, together):5.2f}", flush=True)


if __name__ == "__main__":
    main()
