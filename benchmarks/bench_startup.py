"""Start-up time of the CLI: how long `hpcbench --help`, `list` and `show` take
from a cold interpreter to exit, against the interpreter alone.

    python benchmarks/bench_startup.py [--runs 20] [--results FILE]

People call `hpcbench show` from scripts and loops, so its start-up is part of
the interface; the target is at most 0.3 s for each of the three commands.
Each command runs --runs times as a child process (sys.executable -m
hpcbench ...) from a temporary directory, so the installed package is what
runs; the script prints the median and the best wall time of each, and the
same for `python -c pass` and `python -c "import numpy"` measured in the same
run (start-up cannot go below the interpreter, and `show` reads NumPy
arrays). Nothing is asserted.

Bytecode: `pip install` compiles the package's modules once; an editable
install writes them on first use, unless PYTHONDONTWRITEBYTECODE is set, in
which case every start compiles every module again (a third of `show`'s
time). The script says which case it measured; `env -u
PYTHONDONTWRITEBYTECODE python benchmarks/bench_startup.py` measures what an
installed package gives.

Peer: none (the interpreter itself is the control).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from build_peers import fail

SCRIPT = "bench_startup.py"
TARGET_S = 0.3


def wall_times(argv: list, runs: int, cwd: str) -> list:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            fail(SCRIPT, f"{' '.join(argv[1:])} exited {done.returncode}: {done.stderr.strip()[:200]}")
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20, help="runs of each command (default 20)")
    ap.add_argument("--results", default="example:cache",
                    help="the results file `show` reads (default example:cache, the shipped example)")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    py = sys.executable
    commands = [("python -c pass (control)", [py, "-c", "pass"], None),
                ('python -c "import numpy" (control)', [py, "-c", "import numpy"], None),
                ("hpcbench --help", [py, "-m", "hpcbench", "--help"], TARGET_S),
                ("hpcbench list", [py, "-m", "hpcbench", "list"], TARGET_S),
                (f"hpcbench show {args.results}", [py, "-m", "hpcbench", "show", args.results], TARGET_S)]
    no_cache = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    print("bytecode cache: " + ("OFF (PYTHONDONTWRITEBYTECODE is set: every start compiles the sources; "
                                "not what an installed package gives)" if no_cache else "on"))
    print(f"wall time from start to exit, {args.runs} runs each (s)")
    print(f"  {'command':<40} {'median':>7} {'best':>7}  target")
    with tempfile.TemporaryDirectory() as cwd:
        wall_times(commands[-1][1], 1, cwd)      # a first run writes the bytecode where it may
        for name, argv, target in commands:
            times = wall_times(argv, args.runs, cwd)
            median = statistics.median(times)
            verdict = "" if target is None else f"<= {target} s: {'met' if median <= target else 'NOT met'}"
            print(f"  {name:<40} {median:7.3f} {min(times):7.3f}  {verdict}", flush=True)


if __name__ == "__main__":
    main()
