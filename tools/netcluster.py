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
  veth per node (10.77.0.<i+1>); Open MPI's daemons talk over it (oob);
* data: a ring. Link i joins node i and node i+1 (10.79.<i>.1 and .2/30),
  each direction shaped with a token bucket at --rate. Each node has an
  address 10.78.0.<i+1>/32 on an interface of its own, and routes to every
  other node the shorter way round the ring (forward on ties). MPI's TCP
  transport is restricted to 10.78.0.0/16, so its messages cross the ring.
A message between nodes at ring distance d crosses d links; when every node
sends at distance d at once, each link direction carries d messages, so the
expected ratDist[d] is d; with k processes per node sending to the next
node, k messages share each link direction: expected ratNC[k] is k.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

PREFIX = "hpcb"
BRIDGE = "hpcbbr"


def sh(*cmd, ns=None, check=True):
    full = (["ip", "netns", "exec", ns] if ns else []) + [str(c) for c in cmd]
    return subprocess.run(full, check=check, capture_output=True, text=True)


def available() -> str | None:
    """None if namespaces can be made here, else the reason in one line."""
    if shutil.which("ip") is None or shutil.which("tc") is None:
        return "iproute2 (ip, tc) is not installed"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = f"{PREFIX}probe{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        return f"cannot create network namespaces here ({r.stderr.strip() or 'permission denied'})"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def nodes_up() -> list:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return sorted((line.split()[0] for line in out.splitlines() if line.startswith(PREFIX)
                   and line.split()[0][len(PREFIX):].isdigit()), key=lambda n: int(n[len(PREFIX):]))


def down() -> None:
    for ns in nodes_up():
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    subprocess.run(["ip", "link", "del", BRIDGE], capture_output=True)


def up(nodes: int, rate_mbit: float) -> None:
    if nodes < 2:
        raise ValueError(f"an emulated cluster needs at least 2 nodes, got {nodes}")
    down()
    sh("ip", "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "addr", "add", "10.77.0.254/24", "dev", BRIDGE)
    sh("ip", "link", "set", BRIDGE, "up")
    for i in range(nodes):
        ns = f"{PREFIX}{i}"
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)
        sh("ip", "link", "add", f"c{i}", "type", "veth", "peer", "name", "ctl", "netns", ns)
        sh("ip", "link", "set", f"c{i}", "master", BRIDGE, "up")
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
    for i in range(nodes):
        j = (i + 1) % nodes
        a, b = f"rn{i}", f"rp{j}"
        sh("ip", "link", "add", a, "netns", f"{PREFIX}{i}", "type", "veth", "peer", "name", b, "netns",
           f"{PREFIX}{j}")
        for ns, dev, addr in ((f"{PREFIX}{i}", a, f"10.79.{i}.1/30"), (f"{PREFIX}{j}", b, f"10.79.{i}.2/30")):
            sh("ip", "addr", "add", addr, "dev", dev, ns=ns)
            sh("ip", "link", "set", dev, "up", ns=ns)
            sh("sysctl", "-qw", f"net.ipv4.conf.{dev}.rp_filter=0", ns=ns)
            sh("tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", f"{rate_mbit}mbit", "burst", "256kb",
               "latency", "100ms", ns=ns)
    for i in range(nodes):
        prev = (i - 1) % nodes
        for k in range(nodes):
            if k == i:
                continue
            forward = (k - i) % nodes
            via, dev = (f"10.79.{i}.2", f"rn{i}") if 2 * forward <= nodes else (f"10.79.{prev}.1", f"rp{i}")
            sh("ip", "route", "add", f"10.78.0.{k + 1}/32", "via", via, "dev", dev, "src", f"10.78.0.{i + 1}",
               ns=f"{PREFIX}{i}")


AGENT = """#!/bin/sh
# An "ssh" for Open MPI: run the command inside the node's network namespace,
# in a UTS namespace of its own that carries the node's host name.
host=$1; shift
exec ip netns exec "$host" unshare --uts sh -c "hostname $host; $*"
"""


def mpiexec_args(slots: int, workdir: str) -> list:
    """mpiexec options that launch across the emulated nodes."""
    nodes = nodes_up()
    if not nodes:
        raise ValueError("no emulated cluster is up (tools/netcluster.py up N)")
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="An emulated cluster of network namespaces on this machine.")
    sub = ap.add_subparsers(dest="command", required=True)
    u = sub.add_parser("up", help="create N nodes in a ring")
    u.add_argument("nodes", type=int)
    u.add_argument("--rate", type=float, default=400, help="link rate per direction, Mbit/s (default 400)")
    sub.add_parser("down", help="remove the emulated cluster")
    m = sub.add_parser("mpiexec", help="mpiexec across the nodes: mpiexec [-n N] -- COMMAND ...")
    m.add_argument("-n", type=int, default=None, help="ranks (default: one per node)")
    m.add_argument("--slots", type=int, default=2, help="ranks each node may take (default 2)")
    m.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    reason = available() if args.command == "up" else None
    if reason:
        print(f"netcluster: {reason}", file=sys.stderr)
        return 2
    try:
        if args.command == "up":
            up(args.nodes, args.rate)
            print(f"{args.nodes} nodes up: {', '.join(nodes_up())}; links {args.rate} Mbit/s per direction")
        elif args.command == "down":
            down()
        else:
            command = [c for c in args.command if c != "--"]
            if not command:
                raise ValueError("give the command to run after --")
            with tempfile.TemporaryDirectory() as work:
                n = args.n or len(nodes_up())
                return subprocess.run(["mpiexec", "-n", str(n), "--map-by", "node",
                                       *mpiexec_args(args.slots, work), *command]).returncode
    except (ValueError, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", "") or ""
        print(f"netcluster: {e} {detail.strip()}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
