#!/usr/bin/env python3
"""An emulated cluster on one Linux machine: network namespaces as nodes,
joined in a ring, a star or a full mesh of veth links shaped with tc, with
Open MPI launched across them over TCP. Needs root (or CAP_NET_ADMIN and
CAP_SYS_ADMIN), iproute2 and Open MPI (the launch options below are Open MPI's).

    sudo python3 tools/netcluster.py up 4 --rate 400      # 4 nodes in a ring, 400 Mbit/s links
    sudo python3 tools/netcluster.py up 8 --topology mesh --rate 200 --slow-link 2-5:0.5
    sudo python3 tools/netcluster.py mpiexec -n 8 -- python3 -m hpcbench run distance network-access
    sudo python3 tools/netcluster.py down

Layout. Node i is namespace hpcb<i> with its own host name (a UTS
namespace per launched process tree). Two networks:
* control: a bridge hpcbbr in the root namespace (10.77.0.254) with one
  veth per node (hpcbc<i> on the bridge, 10.77.0.<i+1> in the node); Open
  MPI's daemons talk over it (oob);
* data: each node has an address 10.78.0.<i+1>/32 on an interface of its
  own, and one route to every other node; MPI's TCP transport is restricted
  to 10.78.0.0/16, so its messages cross the data links, each direction of
  which is shaped with a token bucket at --rate. --topology says which links:
  - ring (default): link i joins node i and node i+1 (10.79.<i>.1 and
    .2/30); routes go the shorter way round (forward on ties). A message
    between nodes at ring distance d crosses d links; when every node sends
    at distance d at once, each link direction carries d messages, so the
    expected ratDist[d] is d; with k processes per node sending to the next
    node, k messages share each link direction: ratNC[k] is k.
  - star: node i's one link (its uplink, device uplink, 10.81.0.<i+1>/24) joins it to a
    switch, a bridge in the namespace hpcbsw that is not shaped: the switch
    is non-blocking, so every node can send and receive at the rate at once,
    whoever the partners are. Every route is one hop through the switch.
  - mesh: every pair of nodes a < b joined by a link of its own (device m<b>
    in node a, m<a> in node b; the /30 number k of the pair in 10.80.0.0/16);
    every route is that direct link.
* --slow-link A-B:FACTOR: both directions of the link(s) joining nodes A and
  B shaped at FACTOR x rate (ring: A and B must be neighbours; mesh: any
  pair). Refused on the star: there a "link A-B" is a path through the
  switch over A's and B's uplinks, which other traffic shares; slow one
  node's uplink with --slow-node, or take the mesh for one slow pair.
* --slow-node N:FACTOR: every link of node N, both directions, at FACTOR x
  rate (its two ring links, its uplink, its N-1 mesh links). A link given a
  factor twice takes the smaller.
* --cpu-cap N:FRACTION: the processes launched on node N (the launch agent
  puts them in a cgroup of its own) get FRACTION of one CPU, by the
  kernel's CFS bandwidth control: cgroup v2's cpu.max ("quota period") where
  the cpu controller is on the cgroup2 hierarchy, else cgroup v1's cpu
  controller (cpu.cfs_quota_us and cpu.cfs_period_us, the same mechanism),
  period 100 ms. The cgroup is <mount>/hpcbench-netcluster/hpcb<N>.

Limits, checked before anything is created (a bad value is one line, exit 2;
from Python, ValueError):
* nodes: 2 to 253 (ring, star), 2 to 181 (mesh). Node i is 10.77.0.<i+1> on
  the control /24, whose .254 is the bridge and .255 the broadcast address;
  the data addresses 10.78.0.<i+1> and ring links 10.79.<i>.0/30 would allow
  255 and 256. The mesh's N(N-1)/2 links are /30s of 10.80.0.0/16: at most
  16384 links, 181 nodes.
* --rate: a finite number of Mbit/s from 0.007632 to 343576. tc turns the
  rate into whole bytes/s and keeps two figures in 32 bits without checking
  them: the 256 KiB burst as a time in 64 ns ticks (it wraps below 954
  bytes/s, 7632 bit/s) and the queue limit, rate x 100 ms + burst, in
  bytes (it wraps above 42947051510 bytes/s, 343576 Mbit/s). Outside that
  range tc shapes to some other figure (it took nan as 0 bit/s). A slowed
  link's rate (FACTOR x rate) must be in that range too.
* --burst: whole bytes a link may send at once, from 1600 (a 1500-byte
  packet and its headers must fit) to 64 MiB, and with every link's rate
  such that the burst time and the queue limit above fit their 32 bits. The
  default 256 KiB lets a short exchange pass at the veth's own speed; a
  burst of about 1 ms of the rate makes the link serialise every message
  at its rate, as a real link does (benchmarks/bench_predict.py).
* --slow-link, --slow-node: node numbers 0 to N-1 (hpcb<N> also accepted),
  A and B different and joined by a link, FACTOR a number above 0 and at
  most 1, each link or node given once. --cpu-cap: a node given once,
  FRACTION from 0.01 (cpu.max's least quota, 1 ms per 100 ms) to 1.
* mpiexec: -n and --slots at least 1, and a command after --.

Cleanup. `up` is all or nothing: when a step fails (or is interrupted), it
deletes what it had created before reporting the failure in one line: the
node namespaces (with them go the veths, addresses, routes, tc qdiscs and
sysctl settings inside them, and the /run/netns entries of `ip netns`), the
switch namespace, the hpcbc<i> veths, the bridge and the cgroups. It writes
no other files; `mpiexec` writes its launch agent and host file into a
temporary directory it removes. When pieces of an earlier cluster are still
there (hpcb<i> or hpcbsw namespaces, hpcbc<i> links, the bridge, the
hpcbench-netcluster cgroups), `up` refuses with a line that says to run
`down`, and deletes nothing: the names are machine-wide, and the pieces may
be a cluster that another run is using. `down` deletes every such piece,
whatever an interrupted `up` left behind (a cgroup still holding processes
stays, named in the error).
"""
import argparse
import json
import math
import numbers
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

PREFIX = "hpcb"
BRIDGE = "hpcbbr"
CONTROL = "hpcbc"                     # root-namespace end of node i's control veth: hpcbc<i>
SWITCH = "hpcbsw"                     # the star's switch: a namespace holding a bridge
SWITCH_BRIDGE = "switch"              # the bridge inside SWITCH
NODE_NS = re.compile(rf"{PREFIX}\d+")
CONTROL_LINK = re.compile(rf"{CONTROL}\d+")
TOPOLOGIES = ("ring", "star", "mesh")

MAX_NODES = 253                       # 10.77.0.1 .. .253 beside the bridge's .254
MAX_MESH_NODES = 181                  # N(N-1)/2 /30 links in 10.80.0.0/16: at most 16384
BURST = 256 * 1024                    # bytes a link may send at once
LATENCY_MS = 100                      # longest wait in a link's queue
_U32 = 2**32 - 1
_TICK = 64e-9                         # seconds: the kernel's packet-scheduler clock
MIN_RATE_BYTES = math.ceil(BURST / (_U32 * _TICK))            # 954: the burst time fits 32 bits
MAX_RATE_BYTES = (_U32 - BURST) * 1000 // LATENCY_MS          # the queue limit fits 32 bits
MIN_RATE_MBIT = 8 * MIN_RATE_BYTES / 1e6
MAX_RATE_MBIT = 8 * MAX_RATE_BYTES / 1e6
MIN_BURST, MAX_BURST = 1600, 64 << 20

CGROUP_DIR = "hpcbench-netcluster"    # under the cpu controller's mount point; one child hpcb<N> per capped node
CPU_PERIOD_US = 100_000               # CFS bandwidth period
MIN_CPU_FRACTION = 0.01               # cpu.max's least quota is 1000 us


class NetclusterError(RuntimeError):
    """A step on the machine failed; the message is one line."""


def _number(value, kind=numbers.Real) -> bool:
    return isinstance(value, kind) and not isinstance(value, bool)


def _got(value) -> str:
    if _number(value):
        return f"got {value}"
    return f"got {type(value).__name__} {value!r}"


def check_topology(topology) -> str:
    if topology not in TOPOLOGIES:
        raise ValueError(f"the topology must be one of {', '.join(TOPOLOGIES)}, {_got(topology)}")
    return topology


def check_nodes(nodes, topology: str = "ring") -> int:
    """The node count as an int; ValueError unless it is 2 to MAX_NODES (MAX_MESH_NODES for the mesh)."""
    most, why = ((MAX_MESH_NODES, "the mesh's N(N-1)/2 links are /30s of 10.80.0.0/16") if topology == "mesh" else
                 (MAX_NODES, "node i is 10.77.0.<i+1> on a /24 whose .254 is the bridge"))
    if not (_number(nodes, numbers.Integral) and 2 <= nodes <= most):
        raise ValueError(f"the node count must be a whole number from 2 to {most} ({why}), {_got(nodes)}")
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


_NODE = rf"(?:{PREFIX})?(\d+)"
_FACTOR = r"([0-9.eE+-]+)"


def _parse(text, pattern: str, option: str, form: str) -> tuple:
    match = re.fullmatch(pattern, text.strip()) if isinstance(text, str) else None
    try:
        values = tuple(int(g) for g in match.groups()[:-1]) + (float(match.groups()[-1]),) if match else None
    except ValueError:
        values = None
    if values is None:
        raise ValueError(f"{option} takes {form} (node numbers, hpcb<i> also accepted), {_got(text)}")
    return values


def parse_slow_link(text) -> tuple:
    """'A-B:FACTOR' (e.g. '2-5:0.5' or 'hpcb2-hpcb5:0.5') as (A, B, FACTOR); ValueError if malformed."""
    return _parse(text, rf"{_NODE}-{_NODE}:{_FACTOR}", "--slow-link", "A-B:FACTOR")


def parse_slow_node(text) -> tuple:
    """'N:FACTOR' as (N, FACTOR); ValueError if malformed."""
    return _parse(text, rf"{_NODE}:{_FACTOR}", "--slow-node", "N:FACTOR")


def parse_cpu_cap(text) -> tuple:
    """'N:FRACTION' as (N, FRACTION); ValueError if malformed."""
    return _parse(text, rf"{_NODE}:{_FACTOR}", "--cpu-cap", "N:FRACTION")


# ---- Planning: which links, which addresses, which commands. Pure: runs nothing.

@dataclass(frozen=True)
class End:
    """One end of a link: its device in a namespace, its address with the
    prefix length (None for a switch port, which is on the bridge)."""
    namespace: str
    device: str
    address: str | None


@dataclass(frozen=True)
class Link:
    """A veth pair: `nodes` it joins ((a, b); (i,) for a star uplink), `ends`
    (two End), `rate_bits` each direction is shaped to."""
    nodes: tuple
    ends: tuple
    rate_bits: int = 0


@dataclass(frozen=True)
class Shape:
    """A checked cluster: every link with its rate, and the capped nodes ((node, fraction) each)."""
    topology: str
    nodes: int
    rate_bits: int
    burst: int
    links: tuple
    cpu_caps: tuple
    cgroup: str = ""           # "<kind> <mount point>" of the caps, once made


def _ns(i: int) -> str:
    return f"{PREFIX}{i}"


def mesh_pair(a: int, b: int, nodes: int) -> int:
    """The number of the mesh link joining a and b: pairs (0,1), (0,2), ..., (1,2), ... counted from 0."""
    a, b = min(a, b), max(a, b)
    return a * nodes - a * (a + 1) // 2 + (b - a - 1)


def mesh_address(k: int, host: int) -> str:
    """Host 1 (the lower node) or 2 of mesh link k's /30 in 10.80.0.0/16."""
    return f"10.80.{k // 64}.{(k % 64) * 4 + host}"


def plan_links(topology: str, nodes: int) -> list:
    """The links of the topology, unshaped (rate_bits 0)."""
    if topology == "ring":
        return [Link((i, (i + 1) % nodes), (End(_ns(i), f"rn{i}", f"10.79.{i}.1/30"),
                                             End(_ns((i + 1) % nodes), f"rp{(i + 1) % nodes}", f"10.79.{i}.2/30")))
                for i in range(nodes)]
    if topology == "star":
        return [Link((i,), (End(_ns(i), "uplink", f"10.81.0.{i + 1}/24"), End(SWITCH, f"s{i}", None)))
                for i in range(nodes)]
    links = []
    for a in range(nodes):
        for b in range(a + 1, nodes):
            k = mesh_pair(a, b, nodes)
            links.append(Link((a, b), (End(_ns(a), f"m{b}", f"{mesh_address(k, 1)}/30"),
                                       End(_ns(b), f"m{a}", f"{mesh_address(k, 2)}/30"))))
    return links


def _next_hop(topology: str, nodes: int, i: int, k: int) -> tuple:
    """(via address, device) of node i's route to node k."""
    if topology == "star":
        return f"10.81.0.{k + 1}", "uplink"
    if topology == "mesh":
        return mesh_address(mesh_pair(i, k, nodes), 2 if i < k else 1), f"m{k}"
    forward = (k - i) % nodes
    if 2 * forward <= nodes:                       # the shorter way, forward on ties
        return f"10.79.{i}.2", f"rn{i}"
    return f"10.79.{(i - 1) % nodes}.1", f"rp{i}"


def plan_routes(topology: str, nodes: int) -> dict:
    """Node -> its `ip -batch` lines: one route to every other node's data address."""
    return {i: [f"route add 10.78.0.{k + 1}/32 via {via} dev {dev} src 10.78.0.{i + 1}"
                for k in range(nodes) if k != i for via, dev in [_next_hop(topology, nodes, i, k)]]
            for i in range(nodes)}


def tc_command(rate_bits: int, burst: int, device: str) -> list:
    """The token bucket on one end's sending side."""
    return ["tc", "qdisc", "add", "dev", device, "root", "tbf", "rate", f"{rate_bits}bit", "burst", str(burst),
            "latency", f"{LATENCY_MS}ms"]


def end_commands(end: End, rate_bits: int, burst: int) -> list:
    """The commands (run in end.namespace) that address, raise and shape one end of a link."""
    cmds = []
    if end.address is None:
        cmds.append(["ip", "link", "set", "dev", end.device, "master", SWITCH_BRIDGE])
    else:
        cmds.append(["ip", "addr", "add", end.address, "dev", end.device])
    cmds.append(["ip", "link", "set", "dev", end.device, "up"])
    if end.address is not None:
        cmds.append(["sysctl", "-qw", f"net.ipv4.conf.{end.device}.rp_filter=0"])
    cmds.append(tc_command(rate_bits, burst, end.device))
    return cmds


def _check_node(option: str, node, nodes: int) -> int:
    if not (_number(node, numbers.Integral) and 0 <= node < nodes):
        raise ValueError(f"{option}: nodes are numbered 0 to {nodes - 1}, {_got(node)}")
    return int(node)


def _check_factor(option: str, value) -> float:
    if not (_number(value) and 0 < value <= 1):
        raise ValueError(f"{option}: the factor must be a number above 0 and at most 1, {_got(value)}")
    return float(value)


def _check_cpu_fraction(option: str, value) -> float:
    if not (_number(value) and MIN_CPU_FRACTION <= value <= 1):
        raise ValueError(f"{option}: the fraction of one CPU must be a number from {MIN_CPU_FRACTION:g} (cpu.max's "
                         f"least quota) to 1, {_got(value)}")
    return float(value)


def link_factors(topology: str, nodes: int, links: list, slow_links=(), slow_nodes=()) -> list:
    """The factor of every link (1: at the rate): a link named by --slow-link
    (A, B, FACTOR) or touching a node of --slow-node (N, FACTOR) takes the
    smallest factor given. ValueError for a bad or repeated value, or a link
    that is not there."""
    factors = [1.0] * len(links)
    seen: set = set()
    for a, b, factor in slow_links:
        option = f"--slow-link {a}-{b}:{factor}"
        pair = frozenset((_check_node(option, a, nodes), _check_node(option, b, nodes)))
        factor = _check_factor(option, factor)
        if topology == "star":
            raise ValueError(f"{option}: the star has no link between two nodes, only each node's uplink to the "
                             "switch: slow a node's uplink with --slow-node, or take --topology mesh")
        if len(pair) < 2 or pair in seen:
            raise ValueError(f"{option}: {'a link joins two different nodes' if len(pair) < 2 else 'given twice'}")
        seen.add(pair)
        hits = [n for n, link in enumerate(links) if frozenset(link.nodes) == pair]
        if not hits:
            raise ValueError(f"{option}: no link joins nodes {a} and {b} in a ring of {nodes} (its links join "
                             "neighbours; take --topology mesh for any pair)")
        for n in hits:
            factors[n] = min(factors[n], factor)
    for node, factor in slow_nodes:
        option = f"--slow-node {node}:{factor}"
        node, factor = _check_node(option, node, nodes), _check_factor(option, factor)
        if ("node", node) in seen:
            raise ValueError(f"{option}: given twice")
        seen.add(("node", node))
        for n, link in enumerate(links):
            if node in link.nodes:
                factors[n] = min(factors[n], factor)
    return factors


def check_cpu_caps(nodes: int, cpu_caps=()) -> tuple:
    """((node, fraction), ...) checked: each node once, fractions MIN_CPU_FRACTION to 1."""
    out: dict = {}
    for node, fraction in cpu_caps:
        option = f"--cpu-cap {node}:{fraction}"
        node, fraction = _check_node(option, node, nodes), _check_cpu_fraction(option, fraction)
        if node in out:
            raise ValueError(f"{option}: given twice")
        out[node] = fraction
    return tuple(sorted(out.items()))


def plan(nodes, rate_mbit, burst=BURST, topology="ring", slow_links=(), slow_nodes=(), cpu_caps=()) -> Shape:
    """Every value checked and every link planned with its rate; runs nothing.
    ValueError naming the first bad value (module docstring, Limits)."""
    topology = check_topology(topology)
    nodes, rate_bits = check_nodes(nodes, topology), check_rate(rate_mbit)
    burst = check_burst(burst, rate_bits)
    links = plan_links(topology, nodes)
    factors = link_factors(topology, nodes, links, list(slow_links), list(slow_nodes))
    shaped = []
    for link, factor in zip(links, factors):
        rate = round(rate_bits * factor)
        if rate // 8 < MIN_RATE_BYTES:
            raise ValueError(f"slowed by {factor:g}, the link joining {'-'.join(map(str, link.nodes))} would run at "
                             f"{rate} bit/s, below the {8 * MIN_RATE_BYTES} bit/s tc's token bucket can hold")
        check_burst(burst, rate)
        shaped.append(Link(link.nodes, link.ends, rate))
    return Shape(topology, nodes, rate_bits, burst, tuple(shaped), check_cpu_caps(nodes, list(cpu_caps)))


# ---- CPU caps: a cgroup per capped node. Planning pure, the rest on the machine.

def cgroup_mounts(mounts: str) -> list:
    """The mount points of the cgroup hierarchies (v1 and v2) in `mounts` (the text of /proc/self/mounts)."""
    fields = (line.split() for line in mounts.splitlines())
    return [f[1] for f in fields if len(f) > 2 and f[2] in ("cgroup", "cgroup2")]


def cpu_cgroup(mounts: str, delegated) -> tuple:
    """('v2', mount point) of a writable cgroup2 hierarchy whose root
    delegates the cpu controller (`delegated(point)`: the words of its
    cgroup.subtree_control), else ('v1', mount point) of a writable cgroup v1
    hierarchy holding the cpu controller; NetclusterError saying why not."""
    v1, seen = None, []
    for fields in (line.split() for line in mounts.splitlines()):
        if len(fields) < 4 or fields[2] not in ("cgroup", "cgroup2"):
            continue
        point, kind, options = fields[1], fields[2], fields[3].split(",")
        seen.append(f"{point} ({kind}{', read-only' if 'ro' in options else ''})")
        if "ro" in options:
            continue
        if kind == "cgroup2" and "cpu" in delegated(point):
            return "v2", point
        if kind == "cgroup" and "cpu" in options and v1 is None:
            v1 = point
    if v1 is not None:
        return "v1", v1
    raise NetclusterError("--cpu-cap needs a writable cgroup hierarchy with the cpu controller (cgroup v2 with cpu in "
                          f"its root's cgroup.subtree_control, or v1's cpu); here: {', '.join(seen) or 'none mounted'}")


def cgroup_plan(kind: str, mount: str, node: int, fraction: float) -> tuple:
    """(the node's cgroup directory, [(file, value) to write in order]) for
    FRACTION of one CPU per CPU_PERIOD_US (cgroup v2's cpu.max, or v1's pair of files)."""
    parent = os.path.join(mount, CGROUP_DIR)
    child = os.path.join(parent, _ns(node))
    quota = round(fraction * CPU_PERIOD_US)
    if kind == "v2":
        return child, [(os.path.join(parent, "cgroup.subtree_control"), "+cpu"),
                       (os.path.join(child, "cpu.max"), f"{quota} {CPU_PERIOD_US}")]
    return child, [(os.path.join(child, "cpu.cfs_period_us"), str(CPU_PERIOD_US)),
                   (os.path.join(child, "cpu.cfs_quota_us"), str(quota))]


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def cpu_cgroup_here() -> tuple:
    """cpu_cgroup() of this machine: (kind, mount point) or NetclusterError."""
    return cpu_cgroup(_read("/proc/self/mounts"),
                      lambda point: _read(os.path.join(point, "cgroup.subtree_control")).split())


def _cgroup_parents() -> list:
    return [os.path.join(point, CGROUP_DIR) for point in cgroup_mounts(_read("/proc/self/mounts"))]


def _cgroup_leftovers() -> list:
    """Our cgroup directories on this machine, each node's before its parent's."""
    found = []
    for parent in _cgroup_parents():
        if os.path.isdir(parent):
            found += sorted(os.path.join(parent, d) for d in os.listdir(parent)
                            if NODE_NS.fullmatch(d) and os.path.isdir(os.path.join(parent, d)))
            found.append(parent)
    return found


def _cgroups(made: list, where: tuple, caps: tuple) -> None:
    """Create the capped nodes' cgroups and write their quota."""
    if not caps:
        return
    kind, mount = where
    parent = os.path.join(mount, CGROUP_DIR)
    for node, fraction in caps:
        child, writes = cgroup_plan(kind, mount, node, fraction)
        for folder in (parent, child):
            if folder not in made:
                try:
                    os.mkdir(folder)
                except OSError as e:
                    raise NetclusterError(f"cannot create the cgroup {folder}: {e.strerror}") from e
                made.append(folder)
        for path, value in writes:
            try:
                with open(path, "w") as f:
                    f.write(value)
            except OSError as e:
                raise NetclusterError(f"cannot write {value!r} to {path}: {e.strerror}") from e


# ---- On the machine.

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


def _is_namespace(name: str) -> bool:
    return bool(NODE_NS.fullmatch(name)) or name == SWITCH


def _node_names(namespaces) -> list:
    return sorted((n for n in namespaces if NODE_NS.fullmatch(n)), key=lambda n: int(n[len(PREFIX):]))


def nodes_up() -> list:
    """The node namespaces present, hpcb0 first."""
    return _node_names(e["name"] for e in _ip_json("netns", "list"))


def leftovers() -> list:
    """Every piece of an emulated cluster on this machine: node namespaces,
    the switch namespace, control veths, the bridge, our cgroups (paths).
    Empty when there is none."""
    namespaces = [e["name"] for e in _ip_json("netns", "list")]
    links = [e["ifname"] for e in _ip_json("link", "show")
             if CONTROL_LINK.fullmatch(e["ifname"]) or e["ifname"] == BRIDGE]
    return _node_names(namespaces) + [n for n in namespaces if n == SWITCH] + sorted(links) + _cgroup_leftovers()


def _delete(name: str) -> str:
    """Delete one piece; '' or why it could not be."""
    if name.startswith("/"):
        try:
            os.rmdir(name)
        except FileNotFoundError:
            return ""
        except OSError as e:
            return e.strerror or "cannot remove"
        return ""
    return _first_line(sh("ip", "netns" if _is_namespace(name) else "link", "del", name, check=False).stderr)


def _remove(names) -> list:
    """Delete these pieces, namespaces first (that also deletes the veths,
    qdiscs and routes inside them), cgroups last, each node's before their
    parent; return those still present, each with the reason its deletion gave."""
    def order(name):
        return (2 if name.startswith("/") else 0 if _is_namespace(name) else 1), -len(name)
    why = {name: _delete(name) for name in sorted(names, key=order)}
    return [f"{n} ({why[n]})" if why[n] else n for n in leftovers() if n in why]


def down() -> None:
    """Delete every piece of an emulated cluster, whatever a failed or
    interrupted `up` left; NetclusterError naming what could not be deleted."""
    remains = _remove(leftovers())
    if remains:
        raise NetclusterError(f"could not remove {', '.join(remains)}")


def up(nodes, rate_mbit, burst=BURST, topology="ring", slow_links=(), slow_nodes=(), cpu_caps=()) -> Shape:
    """Create `nodes` nodes joined in `topology` by links shaped to
    `rate_mbit` Mbit/s per direction, `burst` bytes at once at most;
    slow_links ((A, B, FACTOR), ...), slow_nodes ((N, FACTOR), ...) and
    cpu_caps ((N, FRACTION), ...) as the options of the same names (module
    docstring). Returns the Shape made. ValueError for bad arguments (before
    anything is touched); NetclusterError when pieces of an earlier cluster
    are present (nothing is deleted: run down()), when CPU caps are asked
    for and this machine cannot give them, or when a step fails (what this
    call had created is deleted first)."""
    shape = plan(nodes, rate_mbit, burst, topology, slow_links, slow_nodes, cpu_caps)
    where = cpu_cgroup_here() if shape.cpu_caps else None
    present = leftovers()
    if present:
        raise NetclusterError(f"an earlier emulated cluster is still here ({', '.join(present)}): "
                              "run `tools/netcluster.py down` first")
    made: list = []
    try:
        _control(shape.nodes, made)
        _links(shape, made)
        _routes(shape)
        _cgroups(made, where or ("", ""), shape.cpu_caps)
    except BaseException as e:
        undone = _undo(made)
        if not isinstance(e, Exception):
            raise
        raise NetclusterError(f"up failed, {undone}: {e}") from e
    return Shape(shape.topology, shape.nodes, shape.rate_bits, shape.burst, shape.links, shape.cpu_caps,
                 " ".join(where) if where else "")


def _undo(made: list) -> str:
    try:
        remains = _remove(made)
    except NetclusterError as e:
        remains = [str(e)]
    if remains:
        return f"could not remove {', '.join(remains)} (run `tools/netcluster.py down`)"
    return "removed everything it had created"


def _make(made: list, name: str, *cmd, ns=None) -> None:
    """Run a command that creates the piece `name` and note it in `made`, also
    when interrupted (it may exist then), but not when the command failed."""
    try:
        sh(*cmd, ns=ns)
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
        ns, ctl = _ns(i), f"{CONTROL}{i}"
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


def _links(shape: Shape, made: list) -> None:
    """The data links (and the star's switch), each end's sending shaped to its link's rate."""
    if shape.topology == "star":
        _make(made, SWITCH, "ip", "netns", "add", SWITCH)
        sh("ip", "link", "add", "name", SWITCH_BRIDGE, "type", "bridge", ns=SWITCH)
        sh("ip", "link", "set", "dev", SWITCH_BRIDGE, "up", ns=SWITCH)
    for link in shape.links:
        a, b = link.ends
        # Created inside the two namespaces: nothing of it is in the root namespace.
        sh("ip", "link", "add", "name", a.device, "netns", a.namespace, "type", "veth", "peer", "name", b.device,
           "netns", b.namespace)
        for end in link.ends:
            for cmd in end_commands(end, link.rate_bits, shape.burst):
                sh(*cmd, ns=end.namespace)


def _routes(shape: Shape) -> None:
    """Each node's routes to every other (plan_routes): one `ip -batch` per node."""
    for i, lines in plan_routes(shape.topology, shape.nodes).items():
        sh("ip", "-batch", "-", ns=_ns(i), stdin="".join(f"{line}\n" for line in lines))


AGENT = """#!/bin/sh
# An "ssh" for Open MPI: run the command inside the node's network namespace,
# in a UTS namespace of its own that carries the node's host name, and in
# the node's cgroup where it has one (--cpu-cap): its process tree inherits it.
host=$1; shift
for cg in @CGROUPS@; do
  if [ -d "$cg/$host" ]; then echo $$ > "$cg/$host/cgroup.procs" || exit 1; fi
done
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
        f.write(AGENT.replace("@CGROUPS@", " ".join(shlex.quote(p) for p in _cgroup_parents())))
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


def describe(shape: Shape) -> str:
    """One line: what `up` made."""
    rate = shape.rate_bits / 1e6
    slowed = [f"{'-'.join(map(str, link.nodes))} at {link.rate_bits / 1e6:g}" for link in shape.links
              if link.rate_bits != shape.rate_bits]
    line = (f"{shape.nodes} nodes up in a {shape.topology}: {_ns(0)} .. {_ns(shape.nodes - 1)}; links {rate:g} Mbit/s "
            f"per direction, burst {shape.burst} bytes")
    if slowed:
        line += f"; slowed (Mbit/s): {', '.join(dict.fromkeys(slowed))}"
    if shape.cpu_caps:
        caps = ", ".join(f"{_ns(n)} {f:g}" for n, f in shape.cpu_caps)
        line += f"; CPU capped (share of one CPU): {caps} (cgroup {shape.cgroup})"
    return line


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"netcluster: {message} (see --help)\n")


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(description="An emulated cluster of network namespaces on this machine.")
    sub = ap.add_subparsers(dest="command", required=True)
    u = sub.add_parser("up", help=f"create N nodes (2 to {MAX_NODES}; a mesh 2 to {MAX_MESH_NODES})")
    u.add_argument("nodes", type=int)
    u.add_argument("--topology", default="ring", help="ring (default), star (non-blocking switch) or mesh")
    u.add_argument("--rate", type=float, default=400,
                   help=f"link rate per direction, Mbit/s ({MIN_RATE_MBIT:g} to {MAX_RATE_MBIT:.0f}; default 400)")
    u.add_argument("--burst", type=int, default=BURST,
                   help=f"bytes a link may send at once ({MIN_BURST} to {MAX_BURST}; default {BURST})")
    u.add_argument("--slow-link", action="append", default=[], metavar="A-B:FACTOR",
                   help="both directions of the link joining nodes A and B at FACTOR x rate (ring, mesh); repeatable")
    u.add_argument("--slow-node", action="append", default=[], metavar="N:FACTOR",
                   help="every link of node N at FACTOR x rate; repeatable")
    u.add_argument("--cpu-cap", action="append", default=[], metavar="N:FRACTION",
                   help="node N's processes get FRACTION of one CPU (cgroup cpu.max, or v1's CFS quota); repeatable")
    sub.add_parser("down", help="remove the emulated cluster, or whatever pieces of one are left")
    m = sub.add_parser("mpiexec", help="mpiexec across the nodes: mpiexec [-n N] -- COMMAND ...")
    m.add_argument("-n", type=int, default=None, help="ranks (default: one per node)")
    m.add_argument("--slots", type=int, default=2, help="ranks each node may take (default 2)")
    m.add_argument("argv", nargs=argparse.REMAINDER, metavar="COMMAND")
    return ap


def _up(args) -> int:
    options = (args.nodes, args.rate, args.burst, args.topology, [parse_slow_link(t) for t in args.slow_link],
               [parse_slow_node(t) for t in args.slow_node], [parse_cpu_cap(t) for t in args.cpu_cap])
    plan(*options)
    reason = available()
    if reason:
        raise NetclusterError(reason)
    print(describe(up(*options)))
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
