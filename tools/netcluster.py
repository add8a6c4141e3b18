#!/usr/bin/env python3
"""An emulated cluster on one Linux machine: network namespaces as nodes,
joined in a ring of veth links shaped with tc, with Open MPI launched across
them over TCP. Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN), iproute2 and
Open MPI (the launch options below are Open MPI's).

    sudo python3 tools/netcluster.py up 4 --rate 400      # 4 nodes, 400 Mbit/s links
    sudo python3 tools/netcluster.py mpiexec -n 8 -- python3 -m hpcbench run distance network-access
    sudo python3 tools/netcluster.py down

Layout. Node i is namespace hpcb<i> with its own host name (a UTS
namespace per launched process tree). Two networks:
* control: a bridge hpcbbr in the root namespace (10.77.0.254) with one
  veth per node (hpcbc<i> on the bridge, 10.77.0.<i+1> in the node); Open
  MPI's daemons talk over it (oob);
* data: a ring. Link i joins node i and node i+1 (10.79.<i>.1 and .2/30),
  each direction shaped with a token bucket at --rate. Each node has an
  address 10.78.0.<i+1>/32 on an interface of its own, and routes to every
  other node the shorter way round the ring (forward on ties). MPI's TCP
  transport is restricted to 10.78.0.0/16, so its messages cross the ring.
A message between nodes at ring distance d crosses d links; when every node
sends at distance d at once, each link direction carries d messages, so the
expected ratDist[d] is d; with k processes per node sending to the next
node, k messages share each link direction: expected ratNC[k] is k.

Limits, checked before anything is created (a bad value is one line, exit 2;
from Python, ValueError):
* nodes: 2 to 253. Node i is 10.77.0.<i+1> on the control /24, whose .254
  is the bridge and .255 the broadcast address; the data addresses
  10.78.0.<i+1> and ring links 10.79.<i>.0/30 would allow 255 and 256.
* --rate: a finite number of Mbit/s from 0.007632 to 343576. tc turns the
  rate into whole bytes/s and keeps two figures in 32 bits without checking
  them: the 256 KiB burst as a time in 64 ns ticks (it wraps below 954
  bytes/s, 7632 bit/s) and the queue limit, rate x 100 ms + burst, in
  bytes (it wraps above 42947051510 bytes/s, 343576 Mbit/s). Outside that
  range tc shapes to some other figure (it took nan as 0 bit/s).
* --burst: whole bytes a link may send at once, from 1600 (a 1500-byte
  packet and its headers must fit) to 64 MiB, and with the rate such
  that the burst time and the queue limit above fit their 32 bits. The
  default 256 KiB lets a short exchange pass at the veth's own speed; a
  burst of about 1 ms of the rate makes the link serialise every message
  at its rate, as a real link does (benchmarks/bench_predict.py).
* mpiexec: -n and --slots at least 1, and a command after --.

Cleanup. `up` is all or nothing: when a step fails (or is interrupted), it
deletes what it had created before reporting the failure in one line: the
node namespaces (with them go the veths, addresses, routes, tc qdiscs and
sysctl settings inside them, and the /run/netns entries of `ip netns`), the
hpcbc<i> veths and the bridge. It writes no other files; `mpiexec` writes
its launch agent and host file into a temporary directory it removes. When
pieces of an earlier cluster are still there (hpcb<i> namespaces, hpcbc<i>
links, the bridge), `up` refuses with a line that says to run `down`, and
deletes nothing: the names are machine-wide, and the pieces may be a
cluster that another run is using. `down` deletes every such piece,
whatever an interrupted `up` left behind.
"""
from __future__ import annotations

import argparse
import json
import math
import numbers
import os
import re
import shutil
import subprocess
import sys
import tempfile

PREFIX = "hpcb"
BRIDGE = "hpcbbr"
CONTROL = "hpcbc"                     # root-namespace end of node i's control veth: hpcbc<i>
NODE_NS = re.compile(rf"{PREFIX}\d+")
CONTROL_LINK = re.compile(rf"{CONTROL}\d+")

MAX_NODES = 253                       # 10.77.0.1 .. .253 beside the bridge's .254
BURST = 256 * 1024                    # bytes a link may send at once
LATENCY_MS = 100                      # longest wait in a link's queue
_U32 = 2**32 - 1
_TICK = 64e-9                         # seconds: the kernel's packet-scheduler clock
MIN_RATE_BYTES = math.ceil(BURST / (_U32 * _TICK))            # 954: the burst time fits 32 bits
MAX_RATE_BYTES = (_U32 - BURST) * 1000 // LATENCY_MS          # the queue limit fits 32 bits
MIN_RATE_MBIT = 8 * MIN_RATE_BYTES / 1e6
MAX_RATE_MBIT = 8 * MAX_RATE_BYTES / 1e6
MIN_BURST, MAX_BURST = 1600, 64 << 20


class NetclusterError(RuntimeError):
    """A step on the machine failed; the message is one line."""


def _number(value, kind=numbers.Real) -> bool:
    return isinstance(value, kind) and not isinstance(value, bool)


def _got(value) -> str:
    if _number(value):
        return f"got {value}"
    return f"got {type(value).__name__} {value!r}"


def check_nodes(nodes) -> int:
    """The node count as an int; ValueError unless it is 2 to MAX_NODES."""
    if not (_number(nodes, numbers.Integral) and 2 <= nodes <= MAX_NODES):
        raise ValueError(f"the node count must be a whole number from 2 to {MAX_NODES} (node i is 10.77.0.<i+1> on "
                         f"a /24 whose .254 is the bridge), {_got(nodes)}")
    return int(nodes)


def check_rate(rate_mbit) -> int:
    """The link rate (Mbit/s) as the whole bit/s given to tc; ValueError unless
    tc can shape to it (see Limits in the module docstring)."""
    bits = float(rate_mbit) * 1e6 if _number(rate_mbit) else math.nan
    if not (math.isfinite(bits) and MIN_RATE_BYTES <= round(bits) // 8 <= MAX_RATE_BYTES):
        raise ValueError(f"the link rate must be a finite number of Mbit/s from {MIN_RATE_MBIT:g} to "
                         f"{MAX_RATE_MBIT:.0f} (what tc's token bucket can hold), {_got(rate_mbit)}")
    return round(bits)


def check_burst(burst, rate_bits: int) -> int:
    """The burst (bytes) as an int; ValueError unless it is MIN_BURST to
    MAX_BURST and tc can hold it with this rate (module docstring)."""
    if not (_number(burst, numbers.Integral) and MIN_BURST <= burst <= MAX_BURST):
        raise ValueError(f"the burst must be a whole number of bytes from {MIN_BURST} to {MAX_BURST}, {_got(burst)}")
    rate_bytes = rate_bits // 8
    if burst / rate_bytes / _TICK > _U32 or rate_bytes * LATENCY_MS // 1000 + burst > _U32:
        raise ValueError(f"a burst of {burst} bytes at {rate_bits / 1e6:g} Mbit/s overflows tc's token bucket "
                         "(32-bit burst time and queue limit): take a smaller burst or a rate nearer the default")
    return int(burst)


def check_positive(what: str, value) -> int:
    """value as an int; ValueError naming `what` unless it is a whole number of at least 1."""
    if not (_number(value, numbers.Integral) and value >= 1):
        raise ValueError(f"{what} must be a whole number of at least 1, {_got(value)}")
    return int(value)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def sh(*cmd, ns=None, check=True, stdin=None):
    """Run a command (inside namespace `ns` if given); NetclusterError if it
    cannot start, or if it fails and `check`."""
    full = (["ip", "netns", "exec", ns] if ns else []) + [str(c) for c in cmd]
    try:
        r = subprocess.run(full, capture_output=True, text=True, input=stdin)
    except OSError as e:
        raise NetclusterError(f"cannot run {full[0]}: {e.strerror}") from e
    if check and r.returncode != 0:
        why = _first_line(r.stderr) or f"exit status {r.returncode}"
        raise NetclusterError(f"`{' '.join(full)}` failed: {why}")
    return r


def available() -> str | None:
    """None if namespaces can be made here, else the reason in one line."""
    missing = [tool for tool in ("ip", "tc", "unshare", "sysctl") if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not installed (iproute2, util-linux, procps)"
    probe = f"{PREFIX}probe{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        return f"cannot create network namespaces here ({r.stderr.strip() or 'permission denied'})"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _ip_json(*args) -> list:
    out = sh("ip", "-j", *args).stdout.strip()
    return json.loads(out) if out else []


def nodes_up() -> list:
    """The node namespaces present, hpcb0 first."""
    names = [e["name"] for e in _ip_json("netns", "list") if NODE_NS.fullmatch(e["name"])]
    return sorted(names, key=lambda n: int(n[len(PREFIX):]))


def leftovers() -> list:
    """Every piece of an emulated cluster on this machine: node namespaces,
    control veths, the bridge. Empty when there is none."""
    links = [e["ifname"] for e in _ip_json("link", "show")
             if CONTROL_LINK.fullmatch(e["ifname"]) or e["ifname"] == BRIDGE]
    return nodes_up() + sorted(links)


def _remove(names) -> list:
    """Delete these pieces, namespaces first (that also deletes the veths,
    qdiscs and routes inside them); return those still present, each with
    the reason its deletion gave."""
    why = {}
    for name in sorted(names, key=lambda n: not NODE_NS.fullmatch(n)):
        kind = "netns" if NODE_NS.fullmatch(name) else "link"
        why[name] = _first_line(sh("ip", kind, "del", name, check=False).stderr)
    return [f"{n} ({why[n]})" if why[n] else n for n in leftovers() if n in why]


def down() -> None:
    """Delete every piece of an emulated cluster, whatever a failed or
    interrupted `up` left; NetclusterError naming what could not be deleted."""
    remains = _remove(leftovers())
    if remains:
        raise NetclusterError(f"could not remove {', '.join(remains)}")


def up(nodes: int, rate_mbit: float, burst: int = BURST) -> None:
    """Create `nodes` nodes in a ring of links shaped to `rate_mbit` Mbit/s per
    direction, `burst` bytes at once at most. ValueError for bad arguments (before anything is touched);
    NetclusterError when pieces of an earlier cluster are present (nothing is
    deleted: run down()) or when a step fails (what this call had created is
    deleted first)."""
    nodes, rate_bits = check_nodes(nodes), check_rate(rate_mbit)
    burst = check_burst(burst, rate_bits)
    present = leftovers()
    if present:
        raise NetclusterError(f"an earlier emulated cluster is still here ({', '.join(present)}): "
                              "run `tools/netcluster.py down` first")
    made: list = []
    try:
        _control(nodes, made)
        _ring(nodes, rate_bits, burst)
        _routes(nodes)
    except BaseException as e:
        undone = _undo(made)
        if not isinstance(e, Exception):
            raise
        raise NetclusterError(f"up failed, {undone}: {e}") from e


def _undo(made: list) -> str:
    try:
        remains = _remove(made)
    except NetclusterError as e:
        remains = [str(e)]
    if remains:
        return f"could not remove {', '.join(remains)} (run `tools/netcluster.py down`)"
    return "removed everything it had created"


def _make(made: list, name: str, *cmd) -> None:
    """Run a command that creates the piece `name` and note it in `made`, also
    when interrupted (it may exist then), but not when the command failed."""
    try:
        sh(*cmd)
    except NetclusterError:
        raise
    except BaseException:
        made.append(name)
        raise
    made.append(name)


def _control(nodes: int, made: list) -> None:
    """The bridge, and for each node its namespace, control veth and data address."""
    _make(made, BRIDGE, "ip", "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "addr", "add", "10.77.0.254/24", "dev", BRIDGE)
    sh("ip", "link", "set", BRIDGE, "up")
    for i in range(nodes):
        ns, ctl = f"{PREFIX}{i}", f"{CONTROL}{i}"
        _make(made, ns, "ip", "netns", "add", ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)
        _make(made, ctl, "ip", "link", "add", ctl, "type", "veth", "peer", "name", "ctl", "netns", ns)
        sh("ip", "link", "set", ctl, "master", BRIDGE, "up")
        sh("ip", "addr", "add", f"10.77.0.{i + 1}/24", "dev", "ctl", ns=ns)
        sh("ip", "link", "set", "ctl", "up", ns=ns)
        # The node's data address, on an interface of its own (a veth whose
        # other end stays unused: dummy interfaces need a kernel module).
        sh("ip", "link", "add", "node", "type", "veth", "peer", "name", "nodepeer", ns=ns)
        sh("ip", "link", "set", "nodepeer", "up", ns=ns)
        sh("ip", "addr", "add", f"10.78.0.{i + 1}/32", "dev", "node", ns=ns)
        sh("ip", "link", "set", "node", "up", ns=ns)
        sh("sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0",
           "net.ipv4.conf.default.rp_filter=0", ns=ns)


def _ring(nodes: int, rate_bits: int, burst: int) -> None:
    """Link i joins node i and node i+1; each end's sending is shaped to
    rate_bits bit/s, `burst` bytes at once at most."""
    for i in range(nodes):
        j = (i + 1) % nodes
        a, b = f"rn{i}", f"rp{j}"
        # Created inside the two namespaces: nothing of it is in the root namespace.
        sh("ip", "link", "add", a, "netns", f"{PREFIX}{i}", "type", "veth", "peer", "name", b, "netns",
           f"{PREFIX}{j}")
        for ns, dev, addr in ((f"{PREFIX}{i}", a, f"10.79.{i}.1/30"), (f"{PREFIX}{j}", b, f"10.79.{i}.2/30")):
            sh("ip", "addr", "add", addr, "dev", dev, ns=ns)
            sh("ip", "link", "set", dev, "up", ns=ns)
            sh("sysctl", "-qw", f"net.ipv4.conf.{dev}.rp_filter=0", ns=ns)
            sh("tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", f"{rate_bits}bit", "burst", burst,
               "latency", f"{LATENCY_MS}ms", ns=ns)


def _routes(nodes: int) -> None:
    """Each node reaches every other the shorter way round the ring (forward
    on ties): one `ip -batch` per node."""
    for i in range(nodes):
        prev = (i - 1) % nodes
        lines = []
        for k in range(nodes):
            if k == i:
                continue
            forward = (k - i) % nodes
            via, dev = (f"10.79.{i}.2", f"rn{i}") if 2 * forward <= nodes else (f"10.79.{prev}.1", f"rp{i}")
            lines.append(f"route add 10.78.0.{k + 1}/32 via {via} dev {dev} src 10.78.0.{i + 1}\n")
        sh("ip", "-batch", "-", ns=f"{PREFIX}{i}", stdin="".join(lines))


AGENT = """#!/bin/sh
# An "ssh" for Open MPI: run the command inside the node's network namespace,
# in a UTS namespace of its own that carries the node's host name.
host=$1; shift
exec ip netns exec "$host" unshare --uts sh -c "hostname $host; $*"
"""


def mpiexec_args(slots: int, workdir: str) -> list:
    """mpiexec options that launch across the emulated nodes, `slots` ranks
    each at most; writes the launch agent and host file into `workdir`."""
    slots = check_positive("the slots per node", slots)
    if not os.path.isdir(workdir):
        raise ValueError(f"the work directory must be an existing directory, got {workdir!r}")
    nodes = nodes_up()
    if not nodes:
        raise NetclusterError("no emulated cluster is up (tools/netcluster.py up N)")
    agent = os.path.join(workdir, "nsrsh")
    with open(agent, "w") as f:
        f.write(AGENT)
    os.chmod(agent, 0o755)
    hostfile = os.path.join(workdir, "hosts")
    with open(hostfile, "w") as f:
        f.writelines(f"{n} slots={slots}\n" for n in nodes)
    args = ["--hostfile", hostfile, "--mca", "plm_rsh_agent", agent, "--mca", "plm_rsh_no_tree_spawn", "1",
            "--mca", "oob_tcp_if_include", "10.77.0.0/24", "--mca", "btl", "self,vader,tcp",
            "--mca", "btl_tcp_if_include", "10.78.0.0/16", "-x", "OMPI_MCA_mpi_yield_when_idle=1",
            "-x", "PYTHONPATH", "-x", "PATH"]
    if os.geteuid() == 0:
        args.append("--allow-run-as-root")
    return args


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"netcluster: {message} (see --help)\n")


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(description="An emulated cluster of network namespaces on this machine.")
    sub = ap.add_subparsers(dest="command", required=True)
    u = sub.add_parser("up", help=f"create N nodes in a ring (2 to {MAX_NODES})")
    u.add_argument("nodes", type=int)
    u.add_argument("--rate", type=float, default=400,
                   help=f"link rate per direction, Mbit/s ({MIN_RATE_MBIT:g} to {MAX_RATE_MBIT:.0f}; default 400)")
    u.add_argument("--burst", type=int, default=BURST,
                   help=f"bytes a link may send at once ({MIN_BURST} to {MAX_BURST}; default {BURST})")
    sub.add_parser("down", help="remove the emulated cluster, or whatever pieces of one are left")
    m = sub.add_parser("mpiexec", help="mpiexec across the nodes: mpiexec [-n N] -- COMMAND ...")
    m.add_argument("-n", type=int, default=None, help="ranks (default: one per node)")
    m.add_argument("--slots", type=int, default=2, help="ranks each node may take (default 2)")
    m.add_argument("argv", nargs=argparse.REMAINDER, metavar="COMMAND")
    return ap


def _up(args) -> int:
    check_nodes(args.nodes)
    check_burst(args.burst, check_rate(args.rate))
    reason = available()
    if reason:
        raise NetclusterError(reason)
    up(args.nodes, args.rate, args.burst)
    print(f"{args.nodes} nodes up: {', '.join(nodes_up())}; links {args.rate:g} Mbit/s per direction, "
          f"burst {args.burst} bytes")
    return 0


def _mpiexec(args) -> int:
    command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not command:
        raise ValueError("give the command to run after --")
    n = None if args.n is None else check_positive("-n", args.n)
    check_positive("--slots", args.slots)
    with tempfile.TemporaryDirectory() as work:
        launch = mpiexec_args(args.slots, work)
        n = n or len(nodes_up())
        return subprocess.run(["mpiexec", "-n", str(n), "--map-by", "node", *launch, *command]).returncode


def main(argv=None) -> int:
    """Bad arguments: one line, exit 2, nothing touched. A failed step: one line, exit 1."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "up":
            return _up(args)
        if args.command == "down":
            down()
            return 0
        return _mpiexec(args)
    except ValueError as e:
        print(f"netcluster: {e}", file=sys.stderr)
        return 2
    except (NetclusterError, OSError) as e:
        print(f"netcluster: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("netcluster: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
