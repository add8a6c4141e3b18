"""Evidence for the cache issue: does this machine's L2 follow the page
colours the OS sees? (Run as root: /proc/self/pagemap gives frame numbers.)

    sudo python benchmarks/bench_cache_colors.py [--page-colors PATH] [--colors 32]

Times a pointer chase through pages that all share one colour (frame number
mod --colors, the L2's 32 page colours if it were indexed by these frames)
and through pages with colours spread evenly. Prints ticks per access per
page count. Nothing is asserted.

Peer: this script measures with a plain C program only, no hpcbench kernel:
benchmarks/peers/page_colors.c, built here with $CC (default cc), or given
built with --page-colors PATH. A missing peer, or running without root, is
one line and exit status 2.
"""
import argparse
import os
import subprocess
import sys
import tempfile

from build_peers import fail, peer_binary

SCRIPT = "bench_cache_colors.py"
#: (mode, page counts): mode 0 puts every page in one colour, where 8 ways
#: would overflow from 9 pages; mode 1 spreads the colours evenly.
SERIES = ((0, [4, 8, 9, 16, 32, 64]), (1, [64, 128, 256, 288, 320]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--page-colors", metavar="PATH", help="a built benchmarks/peers/page_colors.c (default: build "
                                                          "it with $CC)")
    ap.add_argument("--colors", type=int, default=32, help="page colours: frame number modulo this (default 32)")
    args = ap.parse_args()
    if args.colors < 1:
        fail(SCRIPT, f"--colors must be at least 1, got {args.colors}")
    if os.geteuid() != 0:
        fail(SCRIPT, "needs root to read physical frame numbers from /proc/self/pagemap")
    with tempfile.TemporaryDirectory() as tmp:
        exe = peer_binary("page_colors", args.page_colors, tmp, SCRIPT)
        for mode, counts in SERIES:
            for n in counts:
                proc = subprocess.run([exe, str(args.colors), str(mode), str(n)], capture_output=True, text=True)
                # A failed point ("only 40 pages": too few of one colour) is printed and the series goes on.
                print((proc.stdout or proc.stderr).strip() or f"{n} pages: exit status {proc.returncode}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
