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

Cleanup. `stop` (and leaving the `with` block, and a failed start) ends the
three daemons by PID, SIGTERM then SIGKILL after 10 s, and deletes the
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
BY_HAND = "started-by-hand"           # owner of a `start` from the command line: only `stop` ends it


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


def node_line(hostname: str) -> str:
    """This machine's NodeName line as `slurmd -C` describes it (CPUs,
    sockets, cores, threads, memory in MiB), named `hostname`, at 127.0.0.1."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, timeout=30).stdout
    line = next((x for x in out.splitlines() if x.startswith("NodeName=")), "")
    if not line:
        raise SlurmError("slurmd -C printed no NodeName line")
    fields = [f for f in line.split() if not f.startswith("NodeName=")]
    return " ".join([f"NodeName={hostname}", "NodeAddr=127.0.0.1", *fields, "State=UNKNOWN"])


def slurm_conf(folder: str, node: str, hostname: str, ctld_port: int, slurmd_port: int) -> str:
    """The text of slurm.conf for one node `node` (a NodeName line) with every path inside `folder`."""
    return f"""\
# Written by tools/slurmcluster.py: a private single-node Slurm.
ClusterName=hpcbench
SlurmctldHost={hostname}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={folder}/munge.socket
CredType=cred/munge
StateSaveLocation={folder}/ctld
SlurmdSpoolDir={folder}/slurmd
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/slurmctld.log
SlurmdLogFile={folder}/slurmd.log
# No cgroups (containers rarely delegate them); task/affinity binds (--cpu-bind).
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


def _read_pids(folder: str) -> list[int]:
    """The PIDs of the daemons started with `folder`, in start order (those recorded so far)."""
    pids = []
    for name in DAEMONS:
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
    if len(pids) == len(DAEMONS) and all(_alive(p) and _ours(p, folder) for p in pids):
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

    def __init__(self, timeout: float = START_TIMEOUT) -> None:
        self.timeout = timeout
        self.folder = ""
        self.conf = ""
        self.node = socket.gethostname().split(".")[0]
        self.started_seconds = 0.0          # how long start() took
        self.procs: dict[str, subprocess.Popen] = {}    # the daemons this object started, by name

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """An environment for srun, sbatch and sinfo aimed at this Slurm."""
        return dict(os.environ if base is None else base, SLURM_CONF=self.conf)

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
                    raise SlurmError(f"{name} exited while waiting for {what}; see {self.folder}/{name}.out "
                                     f"and {name}.log")
            if ready():
                return
            time.sleep(0.2)
        raise SlurmError(f"timed out after {self.timeout:.0f} s waiting for {what}; see the logs in {self.folder}")

    def _node_state(self) -> str:
        done = subprocess.run(["sinfo", "-h", "-n", self.node, "-o", "%T"], capture_output=True, text=True,
                              env=self.env(), timeout=10)
        return done.stdout.strip()

    def start(self) -> SlurmCluster:
        reason = why_not()
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
        for sub in ("ctld", "slurmd"):
            os.mkdir(os.path.join(f, sub), 0o700)
        with open(self.conf, "w") as out:
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
        self._spawn("slurmd", ["slurmd", "-D", "-N", self.node, "-f", self.conf])
        self._wait(f"node {self.node} to be idle", lambda: self._node_state() == "idle", deadline)

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("start", help="start munged, slurmctld and slurmd; print the SLURM_CONF to use")
    stop = sub.add_parser("stop", help="stop a Slurm started here (default: every hpcbench-slurm folder)")
    stop.add_argument("folder", nargs="?", help="its state folder (printed by start)")
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            cluster = SlurmCluster().start()
            # The daemons outlive this process: only `stop` ends them, not a later start.
            with open(os.path.join(cluster.folder, "owner"), "w") as out:
                out.write(f"{BY_HAND}\n")
            print(f"export SLURM_CONF={cluster.conf}   # node {cluster.node} idle after "
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
