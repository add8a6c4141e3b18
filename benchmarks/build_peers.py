"""Build the C peers of benchmarks/peers/ (the plain programs the scripts in
benchmarks/ time beside hpcbench), and what the scripts share to find them.

    python benchmarks/build_peers.py [--out DIR] [NAME ...]

Peers: this script compiles them, from benchmarks/peers/*.c (this clone),
with $CC (default cc) or, for the MPI ones, $MPICC (default mpicc), into
--out (default: the current directory). Each script compiles the peers it
needs by itself into a temporary directory; build them here to keep them,
or build your own, and point a script at a binary with its option (the
table below). No peer is fetched from the network.

The scripts run against the installed hpcbench (`pip install hpcbench`):
they never put this clone on the module path, and they start their child
processes (`python -m hpcbench ...`, `python peers/x.py`) with
sys.executable from a temporary working directory, so that a clone's
hpcbench/ in the current directory is not imported instead.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
from typing import NoReturn

HERE = os.path.dirname(os.path.abspath(__file__))
PEER_SOURCES = os.path.join(HERE, "peers")
#: The clone's root: only for tools/ and tests/ helpers a script names in its --help.
CLONE = os.path.dirname(HERE)

#: name: (compiler variable, default compiler, the option of the scripts that take a built binary, scripts).
PEERS = {
    "chase_ref": ("CC", "cc", "--chase-ref", "bench_cache.py"),
    "page_colors": ("CC", "cc", "--page-colors", "bench_cache_colors.py"),
    "pingpong_ref": ("MPICC", "mpicc", "--pingpong-ref", "bench_comm.py"),
    "allreduce_ref": ("MPICC", "mpicc", "--allreduce-ref", "bench_comm_scale.py"),
    "matrix_ref": ("MPICC", "mpicc", "--matrix-ref", "bench_matrix.py"),
    "shift_ref": ("MPICC", "mpicc", "--shift-ref", "bench_network.py"),
    "node_ring": ("MPICC", "mpicc", "--node-ring", "bench_mapping.py"),
    "micro_ref": ("MPICC", "mpicc", "--ref", "bench_micro.py"),
    "stream_ref": ("CC", "cc", "--stream-ref", "bench_stream.py"),
    "numa_ref": ("CC", "cc", "--numa-ref", "bench_numa.py"),
}
#: Flags beyond -O2 of the peers that need them: stream_ref is compiled as hpcbench's kernels are
#: (setup.py's cflags), with POSIX threads.
PEER_FLAGS = {"stream_ref": ["-std=gnu11", "-fno-strict-aliasing", "-pthread"],
              "numa_ref": ["-std=gnu11", "-fno-strict-aliasing", "-pthread"]}


def fail(script: str, message: str) -> NoReturn:
    """One line on stderr and exit status 2: bad input or a missing peer."""
    print(f"{script}: {message}", file=sys.stderr)
    sys.exit(2)


def compile_peer(name: str, folder: str, script: str) -> str:
    """Compile benchmarks/peers/<name>.c into `folder`; the binary's path.
    A missing compiler or a failed build is one line and exit 2."""
    variable, default, option, _ = PEERS[name]
    compiler = os.environ.get(variable, default)
    source = os.path.join(PEER_SOURCES, f"{name}.c")
    if not shutil.which(compiler):
        fail(script, f"{compiler} is not found, which builds {os.path.relpath(source, CLONE)}: install it "
                     f"(or set {variable}), or give a built peer with {option} PATH")
    exe = os.path.join(folder, name)
    proc = subprocess.run([compiler, "-O2", *PEER_FLAGS.get(name, []), "-o", exe, source], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        first = next((line for line in proc.stderr.splitlines() if "error" in line), proc.stderr.strip()[:200])
        fail(script, f"{compiler} failed to build {name}: {first}")
    return exe


def peer_binary(name: str, given: str | None, folder: str, script: str) -> str:
    """The peer `name`: the user's binary `given` (checked), else built here into `folder`."""
    if given is None:
        return compile_peer(name, folder, script)
    if not (os.path.isfile(given) and os.access(given, os.X_OK)):
        fail(script, f"{PEERS[name][2]} {given}: not an executable file")
    return os.path.abspath(given)


def tool(command: str, script: str, why: str) -> str:
    """The path of `command` (a name on PATH or a path), or one line and exit 2 saying `why` it is needed."""
    found = shutil.which(command)
    if not found:
        fail(script, f"{command} is not found: {why}")
    return found


def child_env(**extra: str) -> dict:
    """The environment of a child MPI or Python process: this one's, with
    Open MPI's consent to run as root where we are root, plus `extra`."""
    env = dict(os.environ, **extra)
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def from_clone(relative: str, name: str, script: str, needs: tuple = ()):
    """Load a helper module of this clone (tools/netcluster.py, tests/...) by
    its path, without putting the clone on the module path; `needs` are
    modules it imports from its own folder, loaded first. Missing: exit 2."""
    path = os.path.join(CLONE, relative)
    for dependency in needs:
        from_clone(os.path.join(os.path.dirname(relative), f"{dependency}.py"), dependency, script)
    if name in sys.modules:
        return sys.modules[name]
    if not os.path.isfile(path):
        fail(script, f"{path} is missing: this script needs the repository's {relative} beside benchmarks/")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    table = "\n".join(f"  {name:<14} {PEERS[name][1]:<6} {PEERS[name][2]:<16} {PEERS[name][3]}" for name in PEERS)
    ap = argparse.ArgumentParser(description=__doc__ + f"\n  {'peer':<14} {'built':<6} {'option':<16} script\n"
                                 + table, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=".", help="directory for the binaries (default: the current one)")
    ap.add_argument("names", nargs="*", metavar="NAME", help="peers to build (default: all)")
    args = ap.parse_args()
    unknown = [n for n in args.names if n not in PEERS]
    if unknown:
        fail("build_peers.py", f"unknown peer {unknown[0]!r}; there are: {', '.join(PEERS)}")
    if not os.path.isdir(args.out):
        fail("build_peers.py", f"--out {args.out}: not a directory")
    for name in args.names or PEERS:
        print(compile_peer(name, args.out, "build_peers.py"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
