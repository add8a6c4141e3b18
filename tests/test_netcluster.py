"""tools/netcluster.py: arguments are checked before anything is touched (one
line, exit 2, no command run; ValueError from Python), and `up` is all or
nothing. The validation tests need no root. The cleanup tests create the
machine-wide namespaces hpcb0, hpcb1 and the bridge hpcbbr for a few seconds;
they are skipped with the reason where namespaces cannot be created, and
also when pieces of an emulated cluster are already there (another run may
be using them)."""
import ipaddress
import math
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "netcluster.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import netcluster  # noqa: E402


def cli(tmp_path, *args):
    """The CLI with an empty PATH: no ip, tc or mpiexec can run, so nothing can be created."""
    env = dict(os.environ, PATH=str(tmp_path))
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, env=env)


@pytest.mark.parametrize("args, names", [
    (["up", "1"], "node count"),
    (["up", "0"], "node count"),
    (["up", "-3"], "node count"),
    (["up", "254"], "node count"),
    (["up", "2.5"], "argument nodes"),
    (["up", "four"], "argument nodes"),
    (["up", "4", "--rate", "nan"], "link rate"),
    (["up", "4", "--rate", "inf"], "link rate"),
    (["up", "4", "--rate=-inf"], "link rate"),
    (["up", "4", "--rate", "0"], "link rate"),
    (["up", "4", "--rate", "-400"], "link rate"),
    (["up", "4", "--rate", "1e300"], "link rate"),
    (["up", "4", "--rate", "343577"], "link rate"),
    (["up", "4", "--rate", "0.0076"], "link rate"),
    (["up", "4", "--rate", "fast"], "argument --rate"),
    (["up", "4", "--burst", "1599"], "burst must be a whole number of bytes from 1600"),
    (["up", "4", "--burst", "67108865"], "burst must be a whole number of bytes from 1600"),
    (["up", "4", "--rate", "0.01", "--burst", "67108864"], "overflows tc's token bucket"),
    (["up", "4", "--burst", "1.5"], "argument --burst"),
    (["mpiexec", "-n", "0", "--", "true"], "-n"),
    (["mpiexec", "--slots", "0", "--", "true"], "--slots"),
    (["mpiexec", "--"], "command"),
    (["sideways"], "invalid choice"),
])
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, args, names):
    refused_in_one_line(tmp_path, args, names)


def refused_in_one_line(tmp_path, args, names):
    """The CLI refuses `args`: exit 2, nothing on stdout, one line on stderr that names `names`."""
    proc = cli(tmp_path, *args)
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and proc.stdout == "", (proc.stdout, proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("netcluster: ") and names in lines[0], proc.stderr


def test_a_failing_step_is_one_line_and_exit_1(tmp_path):
    # Good arguments, but no iproute2 on PATH: the check that comes after the arguments fails.
    proc = cli(tmp_path, "up", "4", "--rate", "400")
    lines = proc.stderr.splitlines()
    assert proc.returncode == 1 and len(lines) == 1 and "not installed" in lines[0], proc.stderr


@pytest.fixture
def no_commands(monkeypatch):
    """Fails the test if any command is run."""
    def refuse(cmd, *args, **kwargs):
        raise AssertionError(f"ran {cmd} while checking arguments")
    monkeypatch.setattr(netcluster.subprocess, "run", refuse)


@pytest.mark.parametrize("nodes", [1, 0, -2, 254, 10**9, True, 4.0, "4", None])
def test_up_rejects_bad_node_counts_before_touching_anything(no_commands, nodes):
    with pytest.raises(ValueError, match="node count must be a whole number from 2 to 253"):
        netcluster.up(nodes, 400)


@pytest.mark.parametrize("rate", [math.nan, math.inf, -math.inf, 0, 0.0, -1, 1e-9, 0.0076, 343577, 1e300, True,
                                  "400", None])
def test_up_rejects_bad_rates_before_touching_anything(no_commands, rate):
    with pytest.raises(ValueError, match="link rate must be a finite number of Mbit/s from 0.007632 to 343576"):
        netcluster.up(4, rate)


@pytest.mark.parametrize("burst", [0, 1599, 64 * 2**20 + 1, 1600.0, True, "1600", None])
def test_up_rejects_bad_bursts_before_touching_anything(no_commands, burst):
    with pytest.raises(ValueError, match="burst must be a whole number of bytes from 1600 to 67108864"):
        netcluster.up(4, 400, burst)


def test_burst_limits_follow_tc():
    """The burst time at the rate must fit 2**32 ticks of 64 ns, the queue
    limit (100 ms of data + burst) 2**32 bytes."""
    assert netcluster.check_burst(1600, 100_000_000) == 1600
    assert netcluster.check_burst(64 << 20, 400_000_000) == 64 << 20
    with pytest.raises(ValueError, match="overflows"):
        netcluster.check_burst(64 << 20, 80_000)        # 10 kB/s: 6711 s of burst, beyond 2**32 x 64 ns (275 s)
    with pytest.raises(ValueError, match="overflows"):
        netcluster.check_burst(64 << 20, 343_000_000_000)   # 4.29 GB of queue + 64 MiB


def test_mpiexec_args_rejects_bad_slots_and_workdirs(no_commands, tmp_path):
    for slots in (0, -1, 1.5, None):
        with pytest.raises(ValueError, match="slots per node"):
            netcluster.mpiexec_args(slots, str(tmp_path))
    with pytest.raises(ValueError, match="existing directory"):
        netcluster.mpiexec_args(2, str(tmp_path / "absent"))
    assert os.listdir(tmp_path) == []


def test_limits_follow_the_address_plan_and_tc():
    assert netcluster.check_nodes(2) == 2 and netcluster.check_nodes(253) == 253
    control = ipaddress.ip_network("10.77.0.0/24")
    bridge = ipaddress.ip_address("10.77.0.254")
    last = ipaddress.ip_address(f"10.77.0.{netcluster.MAX_NODES}")      # node MAX_NODES - 1
    assert last in control.hosts() and last != bridge and last + 1 == bridge
    # tc stores bytes/s: the lowest rate whose 256 KiB burst fits 2**32 ticks of
    # 64 ns, the highest whose queue limit (100 ms of data + burst) fits 2**32 bytes.
    assert netcluster.check_rate(netcluster.MIN_RATE_MBIT) == 7632
    assert 262144 / 954 < 2**32 * 64e-9 < 262144 / 953
    assert netcluster.check_rate(400) == 400_000_000
    assert netcluster.check_rate(343576) == 343_576_000_000
    assert netcluster.MAX_RATE_BYTES * 0.1 + 262144 <= 2**32 - 1 < (netcluster.MAX_RATE_BYTES + 1) * 0.1 + 262144


# The cleanup tests below create namespaces.

@pytest.fixture
def machine():
    if os.geteuid() != 0:
        pytest.skip("creating network namespaces needs root")
    reason = netcluster.available()
    if reason:
        pytest.skip(f"network namespaces unavailable: {reason}")
    present = netcluster.leftovers()
    if present:
        pytest.skip(f"pieces of an emulated cluster are already here, perhaps in use: {', '.join(present)}")
    try:
        yield
    finally:
        netcluster.down()
        assert netcluster.leftovers() == []


def fail_at(monkeypatch, step, error):
    """Make the `step`-th command netcluster runs (0 first; None: none) raise `error` instead; count them all."""
    real, count = netcluster.sh, []

    def sh(*cmd, **kwargs):
        count.append(cmd)
        if step is not None and len(count) == step + 1:
            raise error
        return real(*cmd, **kwargs)
    monkeypatch.setattr(netcluster, "sh", sh)
    return count


def test_up_that_fails_midway_leaves_nothing(machine, monkeypatch, capsys):
    count = fail_at(monkeypatch, None, None)
    netcluster.up(2, 400)
    steps = len(count)
    netcluster.down()
    assert netcluster.leftovers() == []
    # The bridge (the first thing made), half-way, the last route batch.
    for step in (2, steps // 2, steps - 1):
        fail_at(monkeypatch, step, netcluster.NetclusterError("injected failure"))
        with pytest.raises(netcluster.NetclusterError) as info:
            netcluster.up(2, 400)
        assert str(info.value) == "up failed, removed everything it had created: injected failure"
        monkeypatch.undo()
        assert netcluster.leftovers() == [], step
    # Interrupted: the interrupt goes through, after the cleanup.
    fail_at(monkeypatch, steps // 3, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        netcluster.up(2, 400)
    monkeypatch.undo()
    assert netcluster.leftovers() == []
    # From the command line: one line, exit 1.
    fail_at(monkeypatch, steps - 4, netcluster.NetclusterError("injected failure"))
    assert netcluster.main(["up", "2"]) == 1
    monkeypatch.undo()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "removed everything" in err[0], err
    assert netcluster.leftovers() == []
    netcluster.up(2, 400)
    assert netcluster.nodes_up() == ["hpcb0", "hpcb1"]
    netcluster.down()
    assert netcluster.leftovers() == []


def test_up_refuses_leftovers_and_down_removes_them(machine, capsys):
    # What an up killed early can leave: a namespace, a control veth, the bridge.
    for cmd in (["netns", "add", "hpcb1"], ["link", "add", "hpcbbr", "type", "bridge"],
                ["link", "add", "hpcbc7", "type", "veth", "peer", "name", "hpcbx7"]):
        subprocess.run(["ip", *cmd], check=True)
    left = ["hpcb1", "hpcbbr", "hpcbc7"]
    assert netcluster.leftovers() == left
    with pytest.raises(netcluster.NetclusterError, match="run `tools/netcluster.py down` first"):
        netcluster.up(2, 400)
    assert netcluster.main(["up", "2"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "hpcb1, hpcbbr, hpcbc7" in err[0], err
    assert netcluster.leftovers() == left
    assert netcluster.main(["down"]) == 0
    assert netcluster.leftovers() == []
    netcluster.up(2, 400)
    netcluster.down()
    assert netcluster.leftovers() == []
