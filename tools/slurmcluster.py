#!/usr/bin/env python3
"""A real single-node Slurm on this machine, for the tests and by hand:
munged, slurmctld and slurmd from Debian's munge and slurm-wlm
(tools/install.sh), each started by PID with a slurm.conf written for this
machine into a private state folder. Needs root (slurmd starts jobs as
their user).

    sudo python3 tools/slurmcluster.py start          # prints: export SLURM_CONF=/tmp/hpcbench-slurm-.../slurm.conf
    SLURM_CONF=... srun --mpi=pmix -n 2 python3 -m hpcbench run comm
    sudo python3 tools/slurmcluster.py stop           # or: stop STATE_FOLDER

From Python (tests/test_slurm.py):

    with SlurmCluster() as slurm:                     # raises CannotRun("cannot run here: ...") when it cannot
        subprocess.run(["srun", ...], env=slurm.env())

Layout. Everything lives in one folder /tmp/hpcbench-slurm-XXXX (mode 0700):
slurm.conf, a munge key of its own and munged's socket, the daemons' logs,
PID files and spool and state folders. The node is this machine under its
host name (NodeName from `slurmd -C`: CPUs, sockets, cores, threads, memory),
at 127.0.0.1, in one partition `debug`. The daemons listen on free ports
chosen at start, and munged on its own socket, so a Slurm or munge
installed as a service (/etc/slurm, /run/munge) is neither used nor
touched. No cgroups (proctrack/linuxproc): containers rarely delegate
them; binding is task/affinity's (srun --cpu-bind).

On the emulated cluster (tools/netcluster.py, docs/slurm.md):

    sudo python3 tools/netcluster.py up 4
    sudo python3 tools/slurmcluster.py start --netcluster   # or SlurmCluster(nodes=netcluster) from Python
    SLURM_CONF=... srun --mpi=pmix -N 4 --ntasks-per-node 2 python3 -m hpcbench run distance network-access

Each network namespace hpcb<i> is a node of that name, at its control
address (10.77.0.<i+1>), with a slurmd of its own started inside it (and in
a UTS namespace named after it); slurmctld stays in the root namespace at
the bridge's address (10.77.0.254), which every node reaches. The slurmds
share one slurm.conf and differ by their spool folder, log, PID file and
TmpFS (%n). env() also points Open MPI's TCP transport at the data network,
so the ranks' messages cross the shaped ring.

Cleanup. `stop` (and leaving the `with` block, and a failed start) ends the
daemons (munged, slurmctld, each slurmd) by PID, SIGTERM then SIGKILL after 10 s, and deletes the
folder. The folder records the PID of the process that started it (owner):
a start first stops the daemons of any hpcbench-slurm folder whose owner is
gone (a run killed before its cleanup), so a second start after a failed one
works; folders of a live owner, and those of `start` on the command line
(ended only by `stop`), are left alone.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

FOLDER_PREFIX = "hpcbench-slurm-"
DAEMONS = ("munged", "slurmctld", "slurmd")
START_TIMEOUT = 60.0                  # seconds for the node to become idle
STOP_GRACE = 10.0                     # seconds between SIGTERM and SIGKILL
# The emulated cluster's names (tools/netcluster.py): each node's control veth, the bridge, the data network.
CONTROL_DEV, BRIDGE_DEV, DATA_NET = "ctl", "hpcbbr", "10.78.0.0/16"
NETNS_DIR = "/run/netns"              # where `ip netns add` names its namespaces
BY_HAND = "started-by-hand"           # owner of a `start` from the command line: only `stop` ends it


def _ip_addr(dev: str, ns: str | None = None) -> str:
    """The first IPv4 address of interface `dev` (in namespace `ns`); SlurmError when it has none."""
    cmd = (["ip", "netns", "exec", ns] if ns else []) + ["ip", "-j", "-4", "addr", "show", "dev", dev]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    try:
        return json.loads(done.stdout)[0]["addr_info"][0]["local"]
    except (ValueError, IndexError, KeyError) as e:
        where = f" in namespace {ns}" if ns else ""
        raise SlurmError(f"no IPv4 address on {dev}{where}: {done.stderr.strip() or 'is the emulated cluster up?'}"
                         ) from e


def _control_addr(ns: str) -> str:
    """The node's address on the emulated cluster's control network (its `ctl` veth, netcluster.py)."""
    return _ip_addr(CONTROL_DEV, ns)


def _bridge_addr() -> str:
    """The root namespace's address on the control network (netcluster's bridge), where slurmctld listens."""
    return _ip_addr(BRIDGE_DEV)


class CannotRun(RuntimeError):
    """This machine cannot run the Slurm (not root, binaries missing); the message is one line."""


class SlurmError(RuntimeError):
    """A step failed while starting; the message is one line (and where to look)."""


def why_not() -> str:
    """Why a Slurm cannot run here ("" when it can)."""
    if os.geteuid() != 0:
        return "not root (slurmd runs jobs as their user, munged needs its key)"
    missing = [b for b in ("munged", "mungekey", "slurmctld", "slurmd", "sinfo", "srun", "sbatch")
               if shutil.which(b) is None]
    if missing:
        return f"missing {', '.join(missing)} (apt-get install slurm-wlm munge; see tools/install.sh)"
    return ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_line(hostname: str, addr: str = "127.0.0.1", shared_cpus: bool = False) -> str:
    """This machine's NodeName line as `slurmd -C` describes it (CPUs,
    sockets, cores, threads, memory in MiB), named `hostname`, at `addr`.
    `shared_cpus`: the node is one of several emulated on this machine, each
    believing it owns every CPU. Slurm's default binding would then put the
    first task of every node on CPU 0 (four ranks on one CPU, an artefact no
    real cluster has), so such nodes do not bind by default (CpuBind=none),
    as netcluster's mpiexec leaves ranks unbound; --cpu-bind still binds."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, timeout=30).stdout
    line = next((x for x in out.splitlines() if x.startswith("NodeName=")), "")
    if not line:
        raise SlurmError("slurmd -C printed no NodeName line")
    fields = [f for f in line.split() if not f.startswith("NodeName=")]
    bind = ["CpuBind=none"] if shared_cpus else []
    return " ".join([f"NodeName={hostname}", f"NodeAddr={addr}", *fields, *bind, "State=UNKNOWN"])


def slurm_conf(folder: str, node: str, hostname: str, ctld_port: int, slurmd_port: int,
               ctld_addr: str = "127.0.0.1", per_node: bool = False) -> str:
    """The text of slurm.conf for the nodes of `node` (NodeName lines) with
    every path inside `folder`, slurmctld at `ctld_addr`. `per_node`: one
    slurmd per node on this machine (the emulated cluster), so each has its
    own spool folder, PID file, log and TmpFS (Slurm expands %n to the node's
    name; PMIx puts its sockets in TmpFS, which must not be shared)."""
    slurmd = "slurmd-%n" if per_node else "slurmd"
    spool = "slurmd/%n" if per_node else "slurmd"
    tmpfs = f"TmpFS={folder}/tmp/%n\n" if per_node else ""
    return f"""\
# Written by tools/slurmcluster.py: a private {"Slurm on the emulated cluster" if per_node else "single-node Slurm"}.
ClusterName=hpcbench
SlurmctldHost={hostname}({ctld_addr})
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={folder}/munge.socket
CredType=cred/munge
StateSaveLocation={folder}/ctld
SlurmdSpoolDir={folder}/{spool}
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/{slurmd}.pid
SlurmctldLogFile={folder}/slurmctld.log
SlurmdLogFile={folder}/{slurmd}.log
{tmpfs}# No cgroups (containers rarely delegate them); task/affinity binds (--cpu-bind).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=300
{node}
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
"""


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, ended but not yet collected by its parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _ours(pid: int, folder: str) -> bool:
    """True when `pid` is a process whose command line names `folder` (never
    signal a PID that a reused number gave to someone else)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return folder.encode() in f.read()
    except OSError:
        return False


def _stop_pids(pids: list[int], folder: str) -> None:
    """SIGTERM the processes of `pids` that are ours, SIGKILL those left after STOP_GRACE."""
    mine = [p for p in pids if _alive(p) and _ours(p, folder)]
    for pid in mine:
        with contextlib.suppress(ProcessLookupError):      # it ended meanwhile
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    while any(_alive(p) for p in mine) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in mine:
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):      # it ended meanwhile
                os.kill(pid, signal.SIGKILL)


def _daemon_names(folder: str) -> list[str]:
    """The daemons started with `folder` so far, in start order: munged,
    slurmctld, then slurmd (one, or slurmd-NODE per emulated node)."""
    started = [os.path.basename(p)[:-len(".started")] for p in glob.glob(os.path.join(folder, "*.started"))]
    return sorted(started, key=lambda name: (DAEMONS.index(name.split("-")[0]) if name.split("-")[0] in DAEMONS
                                             else len(DAEMONS), name))


def _read_pids(folder: str) -> list[int]:
    """The PIDs of the daemons started with `folder`, in start order (those recorded so far)."""
    pids = []
    for name in _daemon_names(folder):
        try:
            with open(os.path.join(folder, f"{name}.started")) as f:
                pids.append(int(f.read().strip()))
        except (OSError, ValueError):
            pass
    return pids


def _active_jobs(env: dict[str, str]) -> list[str]:
    done = subprocess.run(["squeue", "-h", "-t", "PENDING,RUNNING,COMPLETING,CONFIGURING,SUSPENDED", "-o", "%i"],
                          env=env, capture_output=True, text=True, timeout=STOP_GRACE)
    return done.stdout.split()


def cancel_jobs(conf: str) -> None:
    """Cancel every job of the Slurm of `conf` (its slurm.conf) and wait up
    to STOP_GRACE until none is left, so no job step outlives the daemons."""
    env = dict(os.environ, SLURM_CONF=conf)
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        jobs = _active_jobs(env)
        if jobs:
            subprocess.run(["scancel", "--full", *jobs], env=env, capture_output=True, timeout=STOP_GRACE)
        deadline = time.monotonic() + STOP_GRACE
        while jobs and time.monotonic() < deadline:
            time.sleep(0.2)
            jobs = _active_jobs(env)


def stop_folder(folder: str) -> None:
    """Cancel the jobs of the Slurm started with `folder`, end its daemons
    (by their recorded PIDs) and delete the folder."""
    pids = _read_pids(folder)
    if len(pids) >= len(DAEMONS) and all(_alive(p) and _ours(p, folder) for p in pids):
        cancel_jobs(os.path.join(folder, "slurm.conf"))
    _stop_pids(pids, folder)
    shutil.rmtree(folder, ignore_errors=True)


def clean_orphans(tmp: str | None = None) -> list[str]:
    """Stop and delete every hpcbench-slurm folder whose owner process is
    gone; the folders deleted."""
    gone = []
    for folder in glob.glob(os.path.join(tmp or tempfile.gettempdir(), FOLDER_PREFIX + "*")):
        try:
            with open(os.path.join(folder, "owner")) as f:
                owner = f.read().strip()
        except OSError:
            owner = ""
        if owner == BY_HAND or (owner.isdigit() and _alive(int(owner))):
            continue
        stop_folder(folder)
        gone.append(folder)
    return gone


class SlurmCluster:
    """A running single-node Slurm; `with SlurmCluster() as s:` starts it
    (CannotRun when this machine cannot, SlurmError when a step fails,
    after stopping what it started) and stops it on leaving."""

    def __init__(self, timeout: float = START_TIMEOUT, nodes=None) -> None:
        """`nodes`: None for this machine as the one node; or the emulated
        cluster (the tools/netcluster.py module, whose cluster is up, or its
        namespace names): one slurmd per network namespace, each node named
        after its namespace at the namespace's control address."""
        self.timeout = timeout
        self.folder = ""
        self.conf = ""
        self.node = socket.gethostname().split(".")[0]
        self.namespaces: list[str] = []     # the emulated nodes (empty: single-node)
        self._netcluster = nodes
        self.started_seconds = 0.0          # how long start() took
        self.procs: dict[str, subprocess.Popen] = {}    # the daemons this object started, by name

    @property
    def nodes(self) -> list[str]:
        """The Slurm node names: the namespaces of the emulated cluster, or this machine's host name."""
        return self.namespaces or [self.node]

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """An environment for srun, sbatch and sinfo aimed at this Slurm. On
        the emulated cluster it also keeps Open MPI's TCP transport on the
        data addresses (10.78.0.0/16), so the ranks' messages cross the shaped
        ring as under netcluster's mpiexec (srun passes the environment on)."""
        env = dict(os.environ if base is None else base, SLURM_CONF=self.conf)
        if self.namespaces:
            env.update(OMPI_MCA_btl="self,vader,tcp", OMPI_MCA_btl_tcp_if_include=DATA_NET,
                       OMPI_MCA_mpi_yield_when_idle="1")
        return env

    def _spawn(self, name: str, argv: list[str]) -> None:
        with open(os.path.join(self.folder, f"{name}.out"), "wb") as log:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    env=self.env(), start_new_session=True)
        self.procs[name] = proc
        with open(os.path.join(self.folder, f"{name}.started"), "w") as f:
            f.write(f"{proc.pid}\n")

    def _wait(self, what: str, ready, deadline: float) -> None:
        """Poll `ready()` until true; SlurmError when a daemon exits or `deadline` passes."""
        while time.monotonic() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    # The folder goes with the failed start: quote the daemon's last words.
                    raise SlurmError(f"{name} exited while waiting for {what}: {self._last_words(name)}")
            if ready():
                return
            time.sleep(0.2)
        raise SlurmError(f"timed out after {self.timeout:.0f} s waiting for {what}; see the logs in {self.folder}")

    def _last_words(self, name: str) -> str:
        """The last error line of daemon `name` (its log, else its output), or where to look."""
        for suffix in (".log", ".out"):
            with contextlib.suppress(OSError):
                with open(os.path.join(self.folder, name + suffix), errors="replace") as f:
                    lines = [x.strip() for x in f if x.strip()]
                errors = [x for x in lines if "error" in x.lower()] or lines
                if errors:
                    return errors[-1]
        return f"nothing in {self.folder}/{name}.log or .out"

    def _node_state(self) -> str:
        done = subprocess.run(["sinfo", "-h", "-n", self.node, "-o", "%T"], capture_output=True, text=True,
                              env=self.env(), timeout=10)
        return done.stdout.strip()

    def node_states(self) -> dict[str, str]:
        """Each node's state as sinfo shows it ("idle", "down", ...)."""
        done = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %T"], capture_output=True, text=True,
                              env=self.env(), timeout=10)
        return dict(line.split() for line in done.stdout.splitlines() if len(line.split()) == 2)

    def _all_idle(self) -> bool:
        states = self.node_states()
        return all(states.get(n) == "idle" for n in self.nodes)

    def start(self) -> SlurmCluster:
        reason = why_not()
        if not reason and self._netcluster is not None:
            reason = self._find_namespaces()
        if reason:
            raise CannotRun(f"cannot run here: {reason}")
        began = time.monotonic()
        clean_orphans()
        self.folder = tempfile.mkdtemp(prefix=FOLDER_PREFIX)
        self.conf = os.path.join(self.folder, "slurm.conf")
        try:
            self._start(began + self.timeout)
        except BaseException:
            self.stop()
            raise
        self.started_seconds = time.monotonic() - began
        return self

    def _start(self, deadline: float) -> None:
        f = self.folder
        with open(os.path.join(f, "owner"), "w") as out:
            out.write(f"{os.getpid()}\n")
        for sub in ("ctld", "slurmd", "tmp"):
            os.mkdir(os.path.join(f, sub), 0o700)
        for ns in self.namespaces:
            for sub in ("slurmd", "tmp"):
                os.mkdir(os.path.join(f, sub, ns), 0o700)
        with open(self.conf, "w") as out:
            if self.namespaces:
                # slurmctld stays in the root namespace, at the bridge's address that every node reaches.
                lines = "\n".join(node_line(ns, _control_addr(ns), shared_cpus=True) for ns in self.namespaces)
                out.write(slurm_conf(f, lines, self.node, _free_port(), _free_port(), ctld_addr=_bridge_addr(),
                                     per_node=True))
            else:
                out.write(slurm_conf(f, node_line(self.node), self.node, _free_port(), _free_port()))
        key = os.path.join(f, "munge.key")
        subprocess.run(["mungekey", "--create", "--keyfile", key], check=True, capture_output=True, timeout=30)
        socket_path = os.path.join(f, "munge.socket")
        self._spawn("munged", ["munged", "--foreground", "--force", f"--socket={socket_path}",
                               f"--key-file={key}", f"--pid-file={f}/munged.pid", f"--log-file={f}/munged.log",
                               f"--seed-file={f}/munged.seed"])
        self._wait("munged's socket", lambda: os.path.exists(socket_path), deadline)
        # -i: a fresh state (no jobs of an earlier run); -D: stay in the foreground, so the PID is the daemon's.
        self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf])
        if not self.namespaces:
            self._spawn("slurmd", ["slurmd", "-D", "-N", self.node, "-f", self.conf])
            self._wait(f"node {self.node} to be idle", lambda: self._node_state() == "idle", deadline)
            return
        for ns in self.namespaces:
            # In the node's network namespace, and in a UTS namespace of its own named after the node (as
            # netcluster's mpiexec agent does), so the jobs' tasks see the node's host name. nsenter, not
            # `ip netns exec`: that one mounts a sysfs of its own over /sys, which hides /sys/fs/cgroup, and
            # slurmd 22.05 will not start without it. Each program execs the next: the PID recorded is slurmd's.
            self._spawn(f"slurmd-{ns}", ["nsenter", f"--net={NETNS_DIR}/{ns}", "unshare", "--uts", "sh", "-c",
                                         f'hostname {ns} && exec slurmd -D -N {ns} -f "$0"', self.conf])
        self._wait(f"nodes {','.join(self.namespaces)} to be idle", self._all_idle, deadline)

    def _find_namespaces(self) -> str:
        """Fill self.namespaces from the emulated cluster; why it cannot be used ("" when it can)."""
        missing = [b for b in ("ip", "nsenter", "unshare") if shutil.which(b) is None]
        if missing:
            return f"missing {', '.join(missing)} (iproute2, util-linux)"
        given = self._netcluster
        names = list(given.nodes_up()) if hasattr(given, "nodes_up") else list(given)
        if len(names) < 2:
            return "no emulated cluster is up (tools/netcluster.py up N)"
        self.namespaces = names
        return ""

    def stop(self) -> None:
        """Cancel the jobs, end the daemons (by PID) and delete the state folder; safe to call twice."""
        if self.folder:
            stop_folder(self.folder)
            self.folder = ""
        for proc in self.procs.values():      # collect them (zombies until then)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=STOP_GRACE)
        self.procs = {}

    def __enter__(self) -> SlurmCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _netcluster():
    """tools/netcluster.py, the module beside this one (loaded by path: tools/ is not a package)."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netcluster.py")
    spec = importlib.util.spec_from_file_location("netcluster", path)
    if not os.path.isfile(path) or spec is None or spec.loader is None:
        raise CannotRun(f"cannot run here: {path} is missing (tools/netcluster.py makes the emulated cluster)")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="start munged, slurmctld and slurmd; print the SLURM_CONF to use")
    start.add_argument("--netcluster", action="store_true",
                       help="one slurmd per node of the emulated cluster that is up (tools/netcluster.py up N)")
    stop = sub.add_parser("stop", help="stop a Slurm started here (default: every hpcbench-slurm folder)")
    stop.add_argument("folder", nargs="?", help="its state folder (printed by start)")
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            cluster = SlurmCluster(nodes=_netcluster() if args.netcluster else None).start()
            # The daemons outlive this process: only `stop` ends them, not a later start.
            with open(os.path.join(cluster.folder, "owner"), "w") as out:
                out.write(f"{BY_HAND}\n")
            print(f"export SLURM_CONF={cluster.conf}   # node(s) {','.join(cluster.nodes)} idle after "
                  f"{cluster.started_seconds:.1f} s; stop: {sys.argv[0]} stop {cluster.folder}")
        else:
            folders = [args.folder] if args.folder else glob.glob(
                os.path.join(tempfile.gettempdir(), FOLDER_PREFIX + "*"))
            for folder in folders:
                stop_folder(folder)
                print(f"stopped {folder}")
    except (CannotRun, SlurmError, subprocess.SubprocessError, OSError) as e:
        print(f"slurmcluster: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
