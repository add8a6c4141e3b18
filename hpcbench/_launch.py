"""How this process was launched, and binding the ranks a launcher left unbound.

Three jobs, each small and pure where it can be:

* which launcher started this process (Open MPI's mpiexec, MPICH's hydra,
  Slurm's srun, another PMI/PMIx launcher, or none: an MPI singleton), read
  from the variables each launcher sets in its ranks' environment;
* the binding rule: a rank whose launcher did not bind it to one PU is bound
  by hpcbench, one rank per PU in rank order within the node (docs/doctor.md).
  `bind_ranks` is the one place that applies it; `hpcbench.cli._run.start_mpi`
  calls it, and every command that starts MPI (`run`, `predict --measure`,
  `doctor`) goes through start_mpi. HPCBENCH_NO_BIND=1 turns it off;
* what a results file records of the launch: the command line, the Slurm
  job, the MPI-related environment variables (only the listed prefixes,
  values capped, names that look like keys left out), the CPU frequency
  governor and turbo state.

Only the standard library at the top: `hpcbench --help` imports this module.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Set to 1 (or yes/true/on) to keep the launcher's placement as it is.
NO_BIND_VARIABLE = "HPCBENCH_NO_BIND"

#: Prefixes of the environment variables a results file records (MPI, its
#: launchers and fabrics). Nothing else of the environment is recorded.
MPI_ENV_PREFIXES = ("OMPI_MCA_", "PRTE_MCA_", "MPICH_", "HYDRA_", "UCX_", "I_MPI_", "FI_")

#: Slurm's description of the job, recorded when present.
SLURM_VARIABLES = ("SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE")

#: Longest value recorded of one variable (characters); longer ones are cut
#: and end in "...".
MAX_VALUE_CHARS = 200

#: Most variables recorded (a job environment with thousands is not a setting).
MAX_VARIABLES = 200

#: Parts of a variable's name that mark a credential or a per-job secret
#: (Open MPI's precondition_transports is a PSM key): never recorded.
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASS", "CRED", "AUTH", "PRECONDITION_TRANSPORTS", "COOKIE")

#: The node-local rank, as each launcher names it (first found wins).
_LOCAL_RANK_VARIABLES = ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMI_LOCAL_RANK",
                         "PALS_LOCAL_RANKID")


# ------------------------------------------------------------ the launcher

def detect_launcher(environ: Mapping[str, str] | None = None) -> str:
    """The launcher of this process, from its environment: "Open MPI mpiexec",
    "MPICH mpiexec (hydra)", "srun", "PMIx launcher", "PMI launcher" or
    "singleton" (no launcher). mpiexec inside a Slurm allocation is named as
    mpiexec: its ranks carry SLURM_* too, but the launcher's own variables
    come first."""
    env = os.environ if environ is None else environ
    if "OMPI_COMM_WORLD_SIZE" in env:
        return "Open MPI mpiexec"
    if "MPI_LOCALRANKID" in env:       # hydra's own; its ranks may sit in a Slurm step too
        return "MPICH mpiexec (hydra)"
    if "SLURM_STEP_ID" in env and "SLURM_PROCID" in env:
        return "srun"                  # before PMI_FD: srun --mpi=pmi2 sets it as hydra does
    if "PMI_FD" in env:
        return "MPICH mpiexec (hydra)"
    if "PMIX_RANK" in env:
        return "PMIx launcher"
    if "PMI_RANK" in env:
        return "PMI launcher"
    return "singleton"


def launcher_version(launcher: str, environ: Mapping[str, str] | None = None) -> str:
    """The launcher's version: the first line `mpiexec --version` or `srun
    --version` prints, for the one on PATH (which is the one that started
    the job unless PATH changed since); "" for a singleton or when it cannot
    be asked within 10 s."""
    env = os.environ if environ is None else environ
    command = {"Open MPI mpiexec": "mpiexec", "MPICH mpiexec (hydra)": "mpiexec", "srun": "srun"}.get(launcher)
    if command is None:
        return env.get("PMIX_VERSION", "") and f"PMIx {env['PMIX_VERSION']}"
    try:
        done = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = [line.strip() for line in (done.stdout or "").splitlines() if line.strip()]
    if not lines:
        return ""
    if lines[0].startswith("HYDRA build details"):        # MPICH: "Version: 4.0.2" on the next line
        version = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("Version:")), "")
        return f"HYDRA {version}".strip()
    return lines[0][:MAX_VALUE_CHARS]


def local_rank_from_env(environ: Mapping[str, str] | None = None) -> int | None:
    """The node-local rank the launcher gives this process, or None."""
    env = os.environ if environ is None else environ
    for name in _LOCAL_RANK_VARIABLES:
        value = env.get(name, "").strip()
        if value.isdigit():
            return int(value)
    return None


# ------------------------------------------------------------ the binding rule

def pu_for_local_rank(allowed: Sequence[int], local_rank: int) -> int:
    """The PU (OS index) of the node-local rank `local_rank` among the PUs
    `allowed` to the node's ranks: one rank per PU in rank order, in
    ascending OS index, starting again at the first when there are more
    ranks than PUs (an oversubscribed job shares PUs evenly)."""
    pus = sorted(set(allowed))
    if not pus:
        raise ValueError("no PU is allowed to this process")
    if local_rank < 0:
        raise ValueError(f"the node-local rank must be 0 or more, got {local_rank}")
    return pus[local_rank % len(pus)]


def pu_for_rank(mine: Sequence[int], node_sets: Sequence[Sequence[int]], local_rank: int) -> int:
    """pu_for_local_rank among the node's ranks that the launcher gave the
    same PUs as this one (`node_sets`: every node-local rank's allowed PUs,
    in local rank order). Under an unbinding launcher all share the node's
    PUs and this is the node-local rank's PU; where the launcher placed each
    rank on a few PUs (a core's hardware threads, a socket), the ranks
    sharing those few take one each."""
    same = [k for k, pus in enumerate(node_sets) if set(pus) == set(mine)]
    index = same.index(local_rank) if local_rank in same else local_rank
    return pu_for_local_rank(mine, index)


def binding_disabled(environ: Mapping[str, str] | None = None) -> bool:
    """True when HPCBENCH_NO_BIND asks to keep the launcher's placement."""
    env = os.environ if environ is None else environ
    return env.get(NO_BIND_VARIABLE, "").strip().lower() in ("1", "yes", "true", "on")


@dataclass(frozen=True)
class RankBinding:
    """Where this rank runs: its PUs and who bound it ("launcher": it was
    on one PU already; "hpcbench": bound by bind_ranks; "none": not bound to
    one PU, with `why`)."""
    pus: tuple[int, ...]
    bound_by: str
    why: str = ""

    def as_dict(self, rank: int, host: str) -> dict:
        """This rank's entry in the context block's `binding` list."""
        out = {"rank": rank, "host": host, "pus": list(self.pus), "bound_by": self.bound_by}
        if self.why:
            out["why"] = self.why
        return out


_binding: RankBinding | None = None
_unbound_pus: tuple | None = None      # what bind_ranks bound this process away from


def bind_ranks(comm, environ: Mapping[str, str] | None = None) -> RankBinding:
    """Bind this rank to one PU if its launcher did not (collective over
    `comm`, an mpi4py intracommunicator: every rank must call it). The
    node-local rank comes from MPI_Comm_split_type(SHARED); each rank's
    allowed PUs are gathered on its node and `pu_for_rank` picks this
    rank's. The whole process is bound (topology._binding.bind_process), so
    threads it starts later inherit the PU. A singleton is rank 0 of its
    node and takes the first PU it may use, as under any launcher (the node
    benchmarks bind their own threads; the main thread only waits). Every
    rank is left as it is when HPCBENCH_NO_BIND is set. A failure to bind is
    a line on stderr and a rank "not bound", never an exception: the
    collective part is over by then, so no rank can hang. Calling it again
    returns the first answer, until release_binding()."""
    global _binding, _unbound_pus
    if _binding is not None:
        return _binding
    from mpi4py import MPI

    from .topology._binding import bind_process, current_pus
    mine = current_pus()
    shared = comm.Split_type(MPI.COMM_TYPE_SHARED, key=comm.Get_rank())
    try:
        local_rank, node_sets = shared.Get_rank(), shared.allgather(mine)
    finally:
        shared.Free()
    if len(mine) == 1:
        _binding = RankBinding(tuple(mine), "launcher")
    elif binding_disabled(environ):
        _binding = RankBinding(tuple(mine), "none", f"{NO_BIND_VARIABLE} is set")
    else:
        pu = pu_for_rank(mine, node_sets, local_rank)
        try:
            bind_process([pu])
            _binding = RankBinding((pu,), "hpcbench")
            _unbound_pus = tuple(mine)
        except (OSError, ValueError, RuntimeError) as e:
            print(f"hpcbench: rank {comm.Get_rank()} could not bind itself to PU {pu}: {e}; it runs unbound",
                  file=sys.stderr, flush=True)
            _binding = RankBinding(tuple(mine), "none", f"binding to PU {pu} failed: {e}")
    return _binding


def release_binding() -> None:
    """Give the process back the PUs it had before bind_ranks bound it (the
    CLI's main() calls it when a command ends), so that a caller that runs a
    command in its own process (a test runner, a notebook) and the programs
    it starts afterwards are not left on one PU. The next bind_ranks binds
    again."""
    global _binding, _unbound_pus
    if _unbound_pus is not None:
        from .topology._binding import bind_process
        # If the system refuses, the process carries on bound: nothing measured depends on it.
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            bind_process(list(_unbound_pus))
    _binding, _unbound_pus = None, None


def my_binding() -> RankBinding | None:
    """This rank's binding as bind_ranks left it (None before it ran)."""
    return _binding


def binding_summary(binding: Sequence[Any]) -> str:
    """One line for `show`: how many ranks, on which PUs, bound by whom
    ("2 ranks on 1 host, each on one PU (bound by hpcbench)"); `binding`:
    the context's entries (anything with .get: dicts or records)."""
    if not binding:
        return ""
    hosts = {b.get("host") for b in binding}
    single = [b for b in binding if len(b.get("pus") or []) == 1]
    by = sorted({str(b.get("bound_by")) for b in single})
    n = len(binding)
    where = f"{n} rank{'s' if n != 1 else ''} on {len(hosts)} host{'s' if len(hosts) != 1 else ''}"
    if len(single) == n:
        return f"{where}, each on one PU (bound by {' and '.join(by)})"
    return f"{where}, {n - len(single)} not bound to one PU"


# ------------------------------------------------------------ what a results file records

def _cap(value: str) -> str:
    return value if len(value) <= MAX_VALUE_CHARS else value[:MAX_VALUE_CHARS - 3] + "..."


def mpi_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The MPI-related environment variables (MPI_ENV_PREFIXES), sorted by
    name, values capped at MAX_VALUE_CHARS, names that look like keys or
    passwords left out."""
    env = os.environ if environ is None else environ
    names = sorted(k for k in env if k.startswith(MPI_ENV_PREFIXES)
                   and not any(word in k.upper() for word in _SECRET_WORDS))
    return {k: _cap(env[k]) for k in names[:MAX_VARIABLES]}


def slurm_job(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_NTASKS_PER_NODE and
    SLURM_TASKS_PER_NODE, those present (empty outside Slurm)."""
    env = os.environ if environ is None else environ
    return {k: _cap(env[k]) for k in SLURM_VARIABLES if k in env}


def command_line(argv: Sequence[str] | None = None) -> list[str]:
    """The command line (sys.argv, each word capped), with the path of
    hpcbench's __main__ written as `python -m hpcbench` would be typed."""
    words = list(sys.argv if argv is None else argv)
    if words and os.path.basename(words[0]) == "__main__.py" and \
            os.path.basename(os.path.dirname(words[0])) == "hpcbench":
        words[:1] = ["python", "-m", "hpcbench"]
    return [_cap(w) for w in words[:MAX_VARIABLES]]


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def cpu_governor(root: str = "/sys") -> str:
    """The CPU frequency governor of every CPU ("performance"), "mixed:
    performance x2, powersave x2" when they differ, or "unavailable" (no
    cpufreq driver, as in most virtual machines)."""
    base = os.path.join(root, "devices/system/cpu")
    try:
        cpus = sorted(d for d in os.listdir(base) if d.startswith("cpu") and d[3:].isdigit())
    except OSError:
        return "unavailable"
    counts: dict[str, int] = {}
    for cpu in cpus:
        governor = _read(os.path.join(base, cpu, "cpufreq/scaling_governor"))
        if governor:
            counts[governor] = counts.get(governor, 0) + 1
    if not counts:
        return "unavailable"
    if len(counts) == 1:
        return next(iter(counts))
    return "mixed: " + ", ".join(f"{g} x{n}" for g, n in sorted(counts.items()))


def turbo_state(root: str = "/sys") -> str:
    """Turbo/boost: "on" or "off" with where it was read ("off
    (intel_pstate)"), or "unavailable" where neither intel_pstate/no_turbo
    nor cpufreq/boost exists."""
    no_turbo = _read(os.path.join(root, "devices/system/cpu/intel_pstate/no_turbo"))
    if no_turbo in ("0", "1"):
        return f"{'off' if no_turbo == '1' else 'on'} (intel_pstate)"
    boost = _read(os.path.join(root, "devices/system/cpu/cpufreq/boost"))
    if boost in ("0", "1"):
        return f"{'on' if boost == '1' else 'off'} (cpufreq boost)"
    return "unavailable"


#: The srun MPI plugins (`srun --mpi=...`) hpcbench names, by MPI library.
SRUN_MPI_PLUGINS = ("pmix", "pmi2", "none")


def srun_mpi_plugin(maps: str = "/proc/self/maps") -> str:
    """The `srun --mpi=` plugin the MPI library this process loaded needs:
    "pmix" for Open MPI (4 and 5 start under srun only through PMIx; with
    Debian's Open MPI 4.1, pmi2 and none abort), "pmi2" for MPICH and its
    derivatives (Slurm's PMI-2 is what they are built with by default).
    Read from the libraries mapped into this process (hpcbench._core links
    the MPI library; nothing is initialised); "pmix" where none is seen."""
    try:
        with open(maps, encoding="utf-8", errors="replace") as f:
            loaded = f.read()
    except OSError:
        loaded = ""
    if "libopen-pal" in loaded or "libmpi.so.40" in loaded:
        return "pmix"
    if "libmpich" in loaded or "libmpi.so.12" in loaded:
        return "pmi2"
    return "pmix"
