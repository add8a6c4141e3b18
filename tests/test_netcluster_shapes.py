"""tools/netcluster.py's shapes (ring, star, mesh), slowed links and nodes
and CPU caps: the checks (one line, exit 2, nothing run) and the pure
planning functions (which links, which addresses, which routes, which tc
commands and cgroup files) against hand-worked answers. The last test brings
up a small star and a small mesh for real; it is skipped with the reason
where namespaces cannot be created, and when pieces of an emulated cluster
are already there (another run may be using them)."""
import os
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "netcluster.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import netcluster  # noqa: E402
from test_netcluster import cli, machine, refused_in_one_line  # noqa: E402, F401  (machine: the fixture)

RATE = 100_000_000          # bit/s of `plan(..., 100, ...)`


@pytest.fixture
def no_commands(monkeypatch):
    """Fails the test if any command is run."""
    def refuse(cmd, *args, **kwargs):
        raise AssertionError(f"ran {cmd} while planning")
    monkeypatch.setattr(netcluster.subprocess, "run", refuse)


# ---- Links and addresses.

def test_ring_links_are_the_ones_the_ring_always_had():
    links = netcluster.plan_links("ring", 3)
    assert [link.nodes for link in links] == [(0, 1), (1, 2), (2, 0)]
    assert links[2].ends == (netcluster.End("hpcb2", "rn2", "10.79.2.1/30"),
                             netcluster.End("hpcb0", "rp0", "10.79.2.2/30"))


def test_star_links_are_uplinks_to_an_unaddressed_switch_port():
    links = netcluster.plan_links("star", 3)
    assert [link.nodes for link in links] == [(0,), (1,), (2,)]
    assert links[1].ends == (netcluster.End("hpcb1", "uplink", "10.81.0.2/24"), netcluster.End("hpcbsw", "s1", None))


def test_mesh_has_one_link_per_pair_numbered_row_by_row():
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert [netcluster.mesh_pair(a, b, 4) for a, b in pairs] == list(range(6))
    assert netcluster.mesh_pair(3, 1, 4) == netcluster.mesh_pair(1, 3, 4) == 4
    links = netcluster.plan_links("mesh", 4)
    assert len(links) == 6 and len({link.nodes for link in links}) == 6
    # Pair (1, 3) is link 4: the /30 at 10.80.0.16, node 1 its .17 and node 3 its .18.
    assert links[4].ends == (netcluster.End("hpcb1", "m3", "10.80.0.17/30"),
                             netcluster.End("hpcb3", "m1", "10.80.0.18/30"))
    # Link 70 is the 7th /30 of 10.80.1.0/24.
    assert netcluster.mesh_address(70, 1) == "10.80.1.25" and netcluster.mesh_address(70, 2) == "10.80.1.26"
    # The largest mesh: its last link is the last /30 of 10.80.0.0/16 at most.
    n = netcluster.MAX_MESH_NODES
    assert netcluster.mesh_pair(n - 2, n - 1, n) <= 16383 < netcluster.mesh_pair(n - 1, n, n + 1)


def test_routes_name_the_next_hop_on_the_right_device():
    ring = netcluster.plan_routes("ring", 4)[0]
    assert ring == ["route add 10.78.0.2/32 via 10.79.0.2 dev rn0 src 10.78.0.1",
                    "route add 10.78.0.3/32 via 10.79.0.2 dev rn0 src 10.78.0.1",     # distance 2: forward on ties
                    "route add 10.78.0.4/32 via 10.79.3.1 dev rp0 src 10.78.0.1"]
    assert netcluster.plan_routes("star", 3)[2] == ["route add 10.78.0.1/32 via 10.81.0.1 dev uplink src 10.78.0.3",
                                                    "route add 10.78.0.2/32 via 10.81.0.2 dev uplink src 10.78.0.3"]
    mesh = netcluster.plan_routes("mesh", 4)
    assert mesh[3][1] == "route add 10.78.0.2/32 via 10.80.0.17 dev m1 src 10.78.0.4"
    assert mesh[1][2] == "route add 10.78.0.4/32 via 10.80.0.18 dev m3 src 10.78.0.2"


def hops(topology: str, nodes: int, source: int, dest: int) -> list:
    """The nodes a packet visits, following each node's route: via address -> the node whose end has it."""
    owner = {end.address.split("/")[0]: int(end.namespace[4:]) for link in netcluster.plan_links(topology, nodes)
             for end in link.ends if end.address}
    device = {(end.namespace, end.device) for link in netcluster.plan_links(topology, nodes) for end in link.ends}
    routes = netcluster.plan_routes(topology, nodes)
    path, at = [source], source
    while at != dest and len(path) <= nodes:
        line = next(r for r in routes[at] if r.startswith(f"route add 10.78.0.{dest + 1}/32 "))
        via, dev = line.split()[4], line.split()[6]
        assert (f"hpcb{at}", dev) in device, line
        at = owner[via]
        path.append(at)
    return path


@pytest.mark.parametrize("topology, nodes", [("ring", 2), ("ring", 5), ("ring", 8), ("star", 5), ("mesh", 2),
                                             ("mesh", 6)])
def test_every_route_arrives_the_shortest_way(topology, nodes):
    for a in range(nodes):
        for b in range(nodes):
            if a != b:
                path = hops(topology, nodes, a, b)
                ring = min((b - a) % nodes, (a - b) % nodes)
                assert path[-1] == b and len(path) - 1 == (ring if topology == "ring" else 1), (a, b, path)


def test_end_commands_address_raise_and_shape_one_end():
    end = netcluster.End("hpcb0", "rn0", "10.79.0.1/30")
    assert netcluster.end_commands(end, 50_000_000, 16384) == [
        ["ip", "addr", "add", "10.79.0.1/30", "dev", "rn0"], ["ip", "link", "set", "dev", "rn0", "up"],
        ["sysctl", "-qw", "net.ipv4.conf.rn0.rp_filter=0"],
        ["tc", "qdisc", "add", "dev", "rn0", "root", "tbf", "rate", "50000000bit", "burst", "16384", "latency",
         "100ms"]]
    port = netcluster.End("hpcbsw", "s4", None)
    assert netcluster.end_commands(port, RATE, 1600) == [
        ["ip", "link", "set", "dev", "s4", "master", "switch"], ["ip", "link", "set", "dev", "s4", "up"],
        ["tc", "qdisc", "add", "dev", "s4", "root", "tbf", "rate", "100000000bit", "burst", "1600", "latency", "100ms"]]


# ---- Slowed links and nodes.

def rates(shape) -> dict:
    return {link.nodes: link.rate_bits for link in shape.links}


def test_a_slow_link_is_that_link_both_ways_and_nothing_else(no_commands):
    shape = netcluster.plan(8, 100, topology="mesh", slow_links=[(5, 2, 0.5)])
    slow = {nodes: r for nodes, r in rates(shape).items() if r != RATE}
    assert slow == {(2, 5): 50_000_000} and len(shape.links) == 28
    assert rates(netcluster.plan(8, 100, slow_links=[(3, 4, 0.25)]))[(3, 4)] == 25_000_000
    assert rates(netcluster.plan(8, 100, slow_links=[(0, 7, 0.25)]))[(7, 0)] == 25_000_000     # the ring closes
    # Two nodes in a ring are joined by two links: both are slowed.
    assert set(rates(netcluster.plan(2, 100, slow_links=[(0, 1, 0.5)])).values()) == {50_000_000}


def test_a_slow_node_slows_every_link_it_has(no_commands):
    ring = rates(netcluster.plan(5, 100, slow_nodes=[(0, 0.5)]))
    assert {n for n, r in ring.items() if r != RATE} == {(0, 1), (4, 0)}
    star = rates(netcluster.plan(5, 100, topology="star", slow_nodes=[(3, 0.1)]))
    assert {n: r for n, r in star.items() if r != RATE} == {(3,): 10_000_000}
    mesh = rates(netcluster.plan(5, 100, topology="mesh", slow_nodes=[(2, 0.5)],
                                 slow_links=[(2, 4, 0.25), (0, 1, 0.5)]))
    assert {n: r for n, r in mesh.items() if r != RATE} == {(0, 1): 50_000_000, (0, 2): 50_000_000,
                                                             (1, 2): 50_000_000, (2, 3): 50_000_000,
                                                             (2, 4): 25_000_000}         # the smaller factor


@pytest.mark.parametrize("kwargs, names", [
    (dict(topology="star", slow_links=[(0, 1, 0.5)]), "the star has no link between two nodes"),
    (dict(slow_links=[(0, 3, 0.5)]), "no link joins nodes 0 and 3 in a ring of 8"),
    (dict(slow_links=[(2, 2, 0.5)]), "a link joins two different nodes"),
    (dict(slow_links=[(1, 2, 0.5), (2, 1, 0.25)]), "given twice"),
    (dict(slow_links=[(1, 8, 0.5)]), "nodes are numbered 0 to 7"),
    (dict(slow_links=[(-1, 0, 0.5)]), "nodes are numbered 0 to 7"),
    (dict(slow_links=[(1, 2, 0)]), "factor must be a number above 0 and at most 1"),
    (dict(slow_links=[(1, 2, 1.5)]), "factor must be a number above 0 and at most 1"),
    (dict(slow_links=[(1, 2, float("nan"))]), "factor must be a number above 0 and at most 1"),
    (dict(slow_links=[(1, 2, "0.5")]), "factor must be a number above 0 and at most 1"),
    (dict(slow_nodes=[(8, 0.5)]), "nodes are numbered 0 to 7"),
    (dict(slow_nodes=[(True, 0.5)]), "nodes are numbered 0 to 7"),
    (dict(slow_nodes=[(1, -0.5)]), "factor must be a number above 0"),
    (dict(slow_nodes=[(1, 0.5), (1, 0.25)]), "given twice"),
    (dict(cpu_caps=[(1, 0.005)]), "fraction of one CPU must be a number from 0.01"),
    (dict(cpu_caps=[(1, 1.5)]), "fraction of one CPU must be a number from 0.01"),
    (dict(cpu_caps=[(9, 0.5)]), "nodes are numbered 0 to 7"),
    (dict(cpu_caps=[(1, 0.5), (1, 0.5)]), "given twice"),
    (dict(topology="cube"), "topology must be one of ring, star, mesh"),
])
def test_bad_shapes_are_refused_before_anything_runs(no_commands, kwargs, names):
    with pytest.raises(ValueError, match=names):
        netcluster.plan(8, 100, **kwargs)


def test_limits_per_topology_and_of_slowed_rates(no_commands):
    assert netcluster.plan(253, 100, topology="star").nodes == 253
    assert netcluster.plan(181, 100, topology="mesh").nodes == 181
    with pytest.raises(ValueError, match="from 2 to 181 .the mesh's"):
        netcluster.plan(182, 100, topology="mesh")
    # 0.01 Mbit/s is 1250 bytes/s; half of it is below tc's 954 bytes/s.
    with pytest.raises(ValueError, match="would run at 5000 bit/s, below the 7632 bit/s"):
        netcluster.plan(4, 0.01, slow_links=[(0, 1, 0.5)])
    # A 64 MiB burst takes 134 s at 4 Mbit/s, within tc's 2**32 ticks of 64 ns (275 s); at 1 Mbit/s 537 s.
    assert netcluster.plan(4, 4, 64 << 20).burst == 64 << 20
    with pytest.raises(ValueError, match="a burst of 67108864 bytes at 1 Mbit/s overflows tc's token bucket"):
        netcluster.plan(4, 4, 64 << 20, slow_nodes=[(1, 0.25)])


@pytest.mark.parametrize("text, want", [("2-5:0.5", (2, 5, 0.5)), ("hpcb2-hpcb5:0.5", (2, 5, 0.5)),
                                        (" 0-17:1e-1 ", (0, 17, 0.1))])
def test_parse_slow_link(text, want):
    assert netcluster.parse_slow_link(text) == want


@pytest.mark.parametrize("text", ["2-5", "2:0.5", "a-b:0.5", "2-5:x", "2-5:0.5:1", "", None, "2 - 5:0.5"])
def test_parse_slow_link_refuses_other_forms(text):
    with pytest.raises(ValueError, match="--slow-link takes A-B:FACTOR"):
        netcluster.parse_slow_link(text)


def test_parse_slow_node_and_cpu_cap():
    assert netcluster.parse_slow_node("hpcb3:0.5") == (3, 0.5)
    assert netcluster.parse_cpu_cap("3:0.25") == (3, 0.25)
    for bad in ("3", "3-4:0.5", "x:1"):
        with pytest.raises(ValueError, match="--slow-node takes N:FACTOR"):
            netcluster.parse_slow_node(bad)
        with pytest.raises(ValueError, match="--cpu-cap takes N:FRACTION"):
            netcluster.parse_cpu_cap(bad)


@pytest.mark.parametrize("args, names", [
    (["up", "4", "--topology", "cube"], "topology must be one of"),
    (["up", "8", "--slow-link", "0-3:0.5"], "no link joins nodes 0 and 3 in a ring of 8"),
    (["up", "8", "--topology", "star", "--slow-link", "0-1:0.5"], "the star has no link between two nodes"),
    (["up", "8", "--topology", "mesh", "--slow-link", "0-1"], "--slow-link takes A-B:FACTOR"),
    (["up", "8", "--slow-node", "8:0.5"], "nodes are numbered 0 to 7"),
    (["up", "8", "--cpu-cap", "1:0"], "fraction of one CPU"),
    (["up", "182", "--topology", "mesh"], "from 2 to 181"),
])
def test_bad_options_are_one_line_and_exit_2(tmp_path, args, names):
    refused_in_one_line(tmp_path, args, names)


def test_describe_says_what_was_made(no_commands):
    shape = netcluster.plan(4, 100, 16384, "mesh", [(0, 1, 0.5)], [], [(2, 0.25)])
    assert netcluster.describe(shape) == ("4 nodes up in a mesh: hpcb0 .. hpcb3; links 100 Mbit/s per direction, burst "
                                          "16384 bytes; slowed (Mbit/s): 0-1 at 50; CPU capped (share of one CPU): "
                                          "hpcb2 0.25 (cgroup )")


# ---- CPU caps.

MOUNTS_HYBRID = """tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0
cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
"""
MOUNTS_V2 = "proc /proc proc rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n"


def test_the_cpu_controller_is_found_where_it_is():
    v2 = {"/sys/fs/cgroup": ["cpuset", "cpu", "io"], "/sys/fs/cgroup/unified": []}
    assert netcluster.cgroup_mounts(MOUNTS_HYBRID) == ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory",
                                                       "/sys/fs/cgroup/unified"]
    assert netcluster.cpu_cgroup(MOUNTS_V2, v2.get) == ("v2", "/sys/fs/cgroup")
    # cgroup2 without the cpu controller delegated: v1's cpu hierarchy.
    assert netcluster.cpu_cgroup(MOUNTS_HYBRID, v2.get) == ("v1", "/sys/fs/cgroup/cpu")
    with pytest.raises(netcluster.NetclusterError, match=r"here: /sys/fs/cgroup \(cgroup2\)$"):
        netcluster.cpu_cgroup(MOUNTS_V2, lambda point: ["memory"])
    with pytest.raises(netcluster.NetclusterError, match=r"read-only"):
        netcluster.cpu_cgroup(MOUNTS_V2.replace("rw,", "ro,"), v2.get)
    with pytest.raises(netcluster.NetclusterError, match="none mounted"):
        netcluster.cpu_cgroup("proc /proc proc rw 0 0\n", v2.get)


def test_cgroup_files_give_the_fraction_per_100_ms():
    child, writes = netcluster.cgroup_plan("v2", "/sys/fs/cgroup", 3, 0.25)
    assert child == "/sys/fs/cgroup/hpcbench-netcluster/hpcb3"
    assert writes == [("/sys/fs/cgroup/hpcbench-netcluster/cgroup.subtree_control", "+cpu"),
                      ("/sys/fs/cgroup/hpcbench-netcluster/hpcb3/cpu.max", "25000 100000")]
    child, writes = netcluster.cgroup_plan("v1", "/sys/fs/cgroup/cpu", 0, 0.01)
    assert writes == [("/sys/fs/cgroup/cpu/hpcbench-netcluster/hpcb0/cpu.cfs_period_us", "100000"),
                      ("/sys/fs/cgroup/cpu/hpcbench-netcluster/hpcb0/cpu.cfs_quota_us", "1000")]


def test_the_launch_agent_joins_the_nodes_cgroup(monkeypatch, tmp_path):
    monkeypatch.setattr(netcluster, "nodes_up", lambda: ["hpcb0", "hpcb1"])
    monkeypatch.setattr(netcluster, "_cgroup_parents", lambda: ["/sys/fs/cgroup/cpu/hpcbench-netcluster", "/a b"])
    netcluster.mpiexec_args(1, str(tmp_path))
    agent = (tmp_path / "nsrsh").read_text()
    assert "for cg in /sys/fs/cgroup/cpu/hpcbench-netcluster '/a b'; do" in agent
    assert 'echo $$ > "$cg/$host/cgroup.procs"' in agent
    assert (tmp_path / "hosts").read_text() == "hpcb0 slots=1\nhpcb1 slots=1\n"


# ---- On the machine.

# the `machine` fixture (root, namespaces available, no cluster here; everything removed after): test_netcluster's


def qdisc_rate(ns: str, dev: str) -> str:
    out = netcluster.sh("tc", "qdisc", "show", "dev", dev, ns=ns).stdout.split()
    return out[out.index("rate") + 1]


def tcp_reaches(source: int, dest: int) -> bool:
    """A TCP connection from node `source`'s data address to a listener on node `dest`'s."""
    address = f"10.78.0.{dest + 1}"
    listen = (f"import socket; s = socket.socket(); s.bind(('{address}', 5599)); s.listen(1); s.settimeout(20); "
              "c, a = s.accept(); print(a[0])")
    server = subprocess.Popen(["ip", "netns", "exec", f"hpcb{dest}", sys.executable, "-c", listen],
                              stdout=subprocess.PIPE, text=True)
    try:
        connect = ("import socket, time\nfor _ in range(100):\n    try:\n"
                   f"        socket.create_connection(('{address}', 5599), timeout=5).close(); break\n"
                   "    except OSError: time.sleep(0.1)")
        subprocess.run(["ip", "netns", "exec", f"hpcb{source}", sys.executable, "-c", connect], timeout=30,
                       check=True)
        out, _ = server.communicate(timeout=30)
    finally:
        server.kill()
        server.wait()
    return out.strip() == f"10.78.0.{source + 1}"


@pytest.mark.usefixtures("machine")
def test_star_and_mesh_come_up_shaped_routed_and_go_down():
    netcluster.up(3, 100, 16384, "star", slow_nodes=[(1, 0.5)])
    assert netcluster.leftovers() == ["hpcb0", "hpcb1", "hpcb2", "hpcbsw", "hpcbbr", "hpcbc0", "hpcbc1", "hpcbc2"]
    assert (qdisc_rate("hpcb1", "uplink"), qdisc_rate("hpcbsw", "s1")) == ("50Mbit", "50Mbit")
    assert (qdisc_rate("hpcb0", "uplink"), qdisc_rate("hpcbsw", "s2")) == ("100Mbit", "100Mbit")
    assert tcp_reaches(0, 2) and tcp_reaches(2, 1)
    netcluster.down()
    assert netcluster.leftovers() == []
    caps = []
    try:
        netcluster.cpu_cgroup_here()
        caps = [(2, 0.5)]
    except netcluster.NetclusterError:
        pass                            # the mesh without a cap; the rest of the test still runs
    shape = netcluster.up(3, 100, 16384, "mesh", slow_links=[(0, 2, 0.25)], cpu_caps=caps)
    assert (qdisc_rate("hpcb0", "m2"), qdisc_rate("hpcb2", "m0"), qdisc_rate("hpcb0", "m1")) == \
        ("25Mbit", "25Mbit", "100Mbit")
    assert tcp_reaches(0, 2) and tcp_reaches(1, 0)
    if caps:
        kind, mount = shape.cgroup.split(" ", 1)
        cgroup = os.path.join(mount, netcluster.CGROUP_DIR, "hpcb2")
        assert netcluster.leftovers()[-2:] == [cgroup, os.path.dirname(cgroup)]
        with tempfile.TemporaryDirectory() as work:
            netcluster.mpiexec_args(1, work)
            agent = subprocess.run([os.path.join(work, "nsrsh"), "hpcb2", "cat /proc/self/cgroup; hostname"],
                                   capture_output=True, text=True, timeout=30)
        assert "/hpcbench-netcluster/hpcb2" in agent.stdout and agent.stdout.split()[-1] == "hpcb2", agent
        time.sleep(0.1)                 # the agent's processes have left the cgroup: down can remove it
    netcluster.down()
    assert netcluster.leftovers() == []


@pytest.mark.usefixtures("machine")
def test_up_that_fails_at_the_cgroups_leaves_nothing(monkeypatch):
    try:
        netcluster.cpu_cgroup_here()
    except netcluster.NetclusterError as e:
        pytest.skip(f"no cgroup with the cpu controller here: {e}")
    real = netcluster.cgroup_plan

    def broken(kind, mount, node, fraction):
        child, _ = real(kind, mount, node, fraction)
        return child, [(os.path.join(child, "no-such-file"), "1")]
    monkeypatch.setattr(netcluster, "cgroup_plan", broken)
    with pytest.raises(netcluster.NetclusterError, match="up failed, removed everything it had created: cannot write"):
        netcluster.up(2, 100, topology="mesh", cpu_caps=[(1, 0.5)])
    assert netcluster.leftovers() == []
