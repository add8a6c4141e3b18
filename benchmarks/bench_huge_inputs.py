"""Huge but valid results files (issue 24): `show`, `report` and `map` stay
linear in the size of their input, or refuse it early in one line.

    python benchmarks/bench_huge_inputs.py [--sizes 10000,100000,1000000] [--only show,report,map,load]

Writes, in a temporary directory, for each size N:
  * records-N.json: N small records (skipped and failed ones, alternating,
    each on its own node), what a huge run that measured little leaves;
  * ok-N.json: the shipped network example's `distance` record N/10 times
    (a real record that every part of show and report reads), on nodes of
    their own;
  * hosts-N.json: the shipped mapping node example (shared-caches and memory
    of one node, its hwloc topology) whose context names N hosts;
then runs, each in a fresh interpreter against the installed hpcbench,
`show`, `report` and `map -n 4 --kind memory --format list`, plus the
loader alone (`load`), and prints per command and size the wall time, the
peak resident memory (the child's ru_maxrss) and the ratio to the previous
size: linear work is about 10x per 10x of input (at the smallest sizes the
interpreter's start, about 0.3 s and 40 MiB, hides it). The `records` column
is the number of records (for hosts-N: of hosts). A command that refuses an
input (exit status 2) prints its one line instead. Nothing is asserted.

Peer: none (scaling check of hpcbench itself).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from build_peers import fail

SCRIPT = "bench_huge_inputs.py"
COMMANDS = ("load", "show", "report", "map")

# ---- the generators (tests/test_scale_inputs.py has a small copy) ---------------------------------------


def _example(name: str) -> dict:
    import hpcbench.examples
    with open(hpcbench.examples.path(name)) as f:
        return json.load(f)


def _write(path: str, context: dict, records) -> None:
    """A results file written record by record (never the whole list in memory)."""
    with open(path, "w") as f:
        f.write('{"format": "hpcbench-results", "format_version": 1,\n"context": ')
        json.dump(context, f)
        f.write(',\n"benchmarks": [')
        for i, record in enumerate(records):
            f.write(",\n" if i else "\n")
            f.write(json.dumps(record))
        f.write("\n]}\n")


def write_records_file(path: str, n: int) -> None:
    """n small records: skipped and failed, alternating, on n nodes."""
    context = {"hosts": ["n0"], "hpcbench": "scale", "date": "2026-01-01"}

    def records():
        for i in range(n):
            if i % 2:
                yield {"name": "memory", "node": f"n{i}", "status": "failed", "elapsed_s": 0.5,
                       "error": "out of memory on this node", "traceback": "Traceback: ..."}
            else:
                yield {"name": "cache", "node": f"n{i}", "status": "skipped", "reason": "not asked for"}
    _write(path, context, records())


def write_ok_file(path: str, n: int) -> None:
    """n copies of the network example's ok `distance` record, on n nodes."""
    example = _example("network-example.json")
    record = next(r for r in example["benchmarks"] if r["name"] == "distance")

    def records():
        for i in range(n):
            record["node"] = f"n{i}"
            yield record
    _write(path, example["context"], records())


def write_hosts_file(path: str, n: int) -> None:
    """The mapping node example with n hosts named in its context (its own node first)."""
    example = _example("mapping-node-example.json")
    keep = [r for r in example["benchmarks"] if r["name"] in ("shared-caches", "memory")]
    context = dict(example["context"], hosts=[keep[0]["node"]] + [f"node{i:07d}" for i in range(1, n)])
    _write(path, context, keep)


# ---- the measurements -----------------------------------------------------------------------------------

#: The child's own peak resident memory, written as the last line of its stderr when it exits: the
#: kernel's ru_maxrss of a child counts the parent's memory at fork, VmHWM only the child's own.
PEAK = ("import atexit, sys\n"
        "def peak():\n"
        "    with open('/proc/self/status') as f:\n"
        "        kib = [line.split()[1] for line in f if line.startswith('VmHWM:')]\n"
        "    sys.stderr.write('\\npeak-kib ' + kib[0] + '\\n')\n"
        "atexit.register(peak)\n")
LOAD = PEAK + "import hpcbench; r = hpcbench.load(sys.argv[1]); print(len(r.benchmarks), 'records')"
CLI = PEAK + "import runpy; sys.argv[0] = 'hpcbench'; runpy.run_module('hpcbench', run_name='__main__')"


def command(name: str, path: str, tmp: str) -> list:
    if name == "load":
        return [sys.executable, "-c", LOAD, path]
    if name == "show":
        return [sys.executable, "-c", CLI, "show", path]
    if name == "report":
        return [sys.executable, "-c", CLI, "report", path, "-o", os.path.join(tmp, "page.html")]
    return [sys.executable, "-c", CLI, "map", path, "-n", "4", "--kind", "memory", "--format", "list"]


def measure(args: list, cwd: str) -> tuple:
    """(wall seconds, peak RSS in MiB, exit status, the last line it said on stderr) of one child process."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.monotonic() - start
        err.seek(0)
        lines = [line for line in err.read().decode(errors="replace").splitlines() if line.strip()]
    peak = usage.ru_maxrss / 1024                    # where /proc is missing: an upper bound
    if lines and lines[-1].startswith("peak-kib "):
        peak = int(lines.pop().split()[1]) / 1024
    return elapsed, peak, child.returncode, lines[-1] if lines else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000", help="input sizes N, comma-separated "
                    "(default 10000,100000,1000000)")
    ap.add_argument("--only", default=",".join(COMMANDS), help=f"commands to run (default {','.join(COMMANDS)})")
    args = ap.parse_args()
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        fail(SCRIPT, f"--sizes must be whole numbers separated by commas, got {args.sizes!r}")
    if not sizes or min(sizes) < 10:
        fail(SCRIPT, f"--sizes must be at least 10, got {args.sizes!r}")
    only = args.only.split(",")
    if any(c not in COMMANDS for c in only):
        fail(SCRIPT, f"--only must name some of {', '.join(COMMANDS)}, got {args.only!r}")
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for n in sizes:
            for kind, write, count in (("records", write_records_file, n), ("ok", write_ok_file, n // 10),
                                       ("hosts", write_hosts_file, n)):
                path = os.path.join(tmp, f"{kind}-{n}.json")
                write(path, count)
                files[kind, n] = path, count
        print(f"{'command':<8}{'file':<10}{'records':>9}{'MiB':>8}{'seconds':>9}{'x/10x':>7}{'peak MiB':>10}"
              f"{'x/10x':>7}  result")
        for name in only:
            kinds = ("hosts",) if name == "map" else ("records", "ok")
            for kind in kinds:
                before = None
                for n in sizes:
                    path, count = files[kind, n]
                    seconds, rss, code, said = measure(command(name, path, tmp), tmp)
                    ratio = (f"{seconds / before[0]:7.1f}{'':10}{rss / before[1]:7.1f}" if before
                             else f"{'':7}{'':10}{'':7}")
                    ratio = ratio[:7] + f"{rss:10.0f}" + ratio[17:]
                    result = "ok" if code == 0 else f"exit {code}: {said[:90]}"
                    print(f"{name:<8}{kind:<10}{count:>9}{os.path.getsize(path) / 2**20:8.1f}{seconds:9.2f}{ratio}  "
                          f"{result}", flush=True)
                    before = (seconds, rss)


if __name__ == "__main__":
    main()
