"""The wavefront model (Hammond et al. 2009, Table 2) against real public
sweep codes that this project did not write, built by the user: LANL's
SNAP, the discrete-ordinates transport proxy (github.com/lanl/SNAP), and
the NAS Parallel Benchmarks' LU (NPB 3.4, MPI).

    python benchmarks/bench_predict_external.py (--snap PATH | --lu PATH) [--runs 3]
        [--priority none|nice|realtime] [--oversubscribe] [--eager-limit 4096]
        [--quiet 2 --max-wait 60] [--json out.json]

Peers: SNAP's own binary (`gsnap`), built outside this repository from its
src/ with its Makefile (`make OPENMP=no`: one thread per rank, the MPI
sweep only), given with --snap; or LU's (`lu.A.x`, NPB3.4-MPI's `make LU
CLASS=A`: arrays for grids up to 64 points a side, the grid itself read
from an inputlu.data written here), given with --lu. Nothing of either is
fetched or built here. Open MPI's mpiexec on PATH runs them.

LU (`lu_*` below) is measured the same way as SNAP: its slowest rank's
total time per SSOR iteration (its timers, with a timer.flag beside it);
W_g from blts + buts (jacld and jacu inside) of serial runs of one rank's
block, over 2 sweeps an iteration; the model with the interior grid
((nx-2) x (ny-2) x (nz-2): LU cuts x over 2 ranks), tiles of one k plane,
faces of LU's 5 unknowns per cell, and its two sweeps, the lower from one
corner and the upper back from the opposite one (two full fills).

For every configuration (SNAP's grid nx x ny x nz over npey x npez ranks,
its chunk ichunk, angles per octant nang and groups ng), in turn and
--runs times (configurations alternate, so that the machine's noise
spreads over all of them):

1. measured: SNAP under `mpiexec -n npey*npez` (one rank per core, bound;
   --oversubscribe adds 4-rank cases on fewer cores, which the model does
   not price and the script reports apart), its own timer
   "Solve" divided by the sweeps it made (tot_iits / ng: every inner
   iteration sweeps every group once; the input keeps every group from
   converging early);
2. W_g as the paper measures it, from serial runs of the code: SNAP on one
   rank with one rank's block (nx x ny/npey x nz/npez), alone (W_g idle)
   and with a second copy beside it (W_g busy: a core computes slower
   while its neighbour works, and in the parallel run every core works).
   W_g = "Transport Sweeps" / (sweeps x 8 octants x ng x cells of the
   block): seconds per cell per octant and group, all nang angles; the
   time outside the sweeps per sweep is (Solve - Transport Sweeps) /
   sweeps of the same serial run;
3. predicted: hpcbench.predict.wavefront with SNAP's input mapped onto the
   model's (`snap_params`): hpcbench's x and y (cut into n columns and m
   rows) are SNAP's y and z (npey, npez); hpcbench's z, the pipelined
   axis, is SNAP's x, walked twice (both x directions of a corner): Nz =
   2 nx, H_tile = ichunk, the ng groups one after the other, each with its
   own faces (groups = ng, group_faces "each"); four sweeps (SNAP's
   corners in y and z) in SNAP's corner order, with the fills it implies
   (`snap_octants`), faces above --eager-limit coupled to their receive;
   W_g busy where more than one rank runs, idle for one.
   The network profile is `mpiexec -n 2 python -m hpcbench run comm`,
   measured first on this machine. The same prediction is then made by
   `python -m hpcbench predict wavefront` with the mapping as flags
   (`cli_args`) and the two are compared.

On a machine shared with other users' jobs a pipeline stalls whenever
another task takes one of its ranks' cores (serial runs do not feel it,
the model does not price it): --quiet waits for a calm moment, and
--priority (root) gives the measured programs the CPU; docs/predict.md
("A code this project did not write") shows what each does.

Prints per configuration measured, predicted and error = (predicted -
measured) / measured (medians of the runs), the prediction with W_g idle
beside it, then the mean absolute and the worst error (targets: mean at
most 10 %, worst at most 20 %). Nothing is asserted: this is a
measurement on a shared machine; note the load (printed).

Bad input (no SNAP binary, --runs below 1, no mpiexec) is one line and
exit status 2.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from build_peers import child_env, fail, tool

SCRIPT = "bench_predict_external.py"
#: Open MPI's btl_vader_eager_limit (bytes, `ompi_info --param btl vader --level 9`).
OPEN_MPI_EAGER = 4096

#: Timers of SNAP's "Timing Summary" this script reads (seconds), and its
#: grind time (ns per cell, angle, octant and group).
TIMERS = {"solve": "Solve", "sweeps": "Transport Sweeps", "inner": "Inner Iterations"}


@dataclass(frozen=True)
class SnapCase:
    """One SNAP input: the global grid, the rank array (npey ranks along y,
    npez along z), the chunk of x planes per pipelined step, angles per
    octant, energy groups, and the inner and outer iterations."""

    nx: int
    ny: int
    nz: int
    npey: int
    npez: int
    ichunk: int
    nang: int
    ng: int
    iitm: int = 5
    oitm: int = 4

    def __post_init__(self) -> None:
        if min(asdict(self).values()) < 1:
            raise ValueError(f"every SNAP input must be a positive whole number: {self}")
        if self.ny % self.npey or self.nz % self.npez or self.nx % self.ichunk:
            raise ValueError(f"SNAP needs npey | ny, npez | nz and ichunk | nx: {self}")

    @property
    def ranks(self) -> int:
        return self.npey * self.npez

    @property
    def block(self) -> SnapCase:
        """One rank's block as a serial run (the paper's W_g measurement)."""
        return replace(self, ny=self.ny // self.npey, nz=self.nz // self.npez, npey=1, npez=1)

    @property
    def label(self) -> str:
        return (f"{self.nx}x{self.ny}x{self.nz} {self.npey}x{self.npez} ich{self.ichunk} "
                f"a{self.nang} g{self.ng}")


#: The configurations: one and two ranks on this 2-core machine, both
#: decompositions, faces at most 4 KiB (Open MPI's shared-memory eager
#: limit) but for the last two, whose faces (16 and 8 KiB) go by rendezvous.
CASES = [SnapCase(32, 16, 16, 1, 1, 8, 8, 4), SnapCase(48, 12, 12, 1, 1, 4, 12, 2),
         SnapCase(32, 32, 16, 2, 1, 2, 8, 4), SnapCase(32, 16, 32, 1, 2, 2, 8, 4),
         SnapCase(64, 24, 12, 2, 1, 4, 6, 3), SnapCase(24, 16, 40, 1, 2, 6, 4, 6),
         SnapCase(32, 48, 8, 2, 1, 8, 4, 2), SnapCase(40, 24, 48, 1, 2, 4, 4, 2),
         SnapCase(32, 32, 32, 1, 2, 4, 16, 2), SnapCase(32, 32, 32, 2, 1, 4, 8, 2)]
#: With --oversubscribe: four ranks on this machine's two cores.
OVERSUBSCRIBED = [SnapCase(32, 32, 32, 2, 2, 4, 8, 2), SnapCase(32, 64, 16, 4, 1, 4, 8, 2),
                  SnapCase(32, 16, 64, 1, 4, 4, 8, 2)]


def snap_input(case: SnapCase) -> str:
    """SNAP's namelist for `case`: steady state (timedep 0), one thread, no
    fixup, a tolerance no inner iteration reaches (so every group is swept
    in every inner iteration and the sweep count is known), no output
    beyond the timers."""
    values = {"nthreads": 1, "nnested": 1, "npey": case.npey, "npez": case.npez, "ndimen": 3,
              "nx": case.nx, "lx": "1.0", "ny": case.ny, "ly": "1.0", "nz": case.nz, "lz": "1.0",
              "ichunk": case.ichunk, "nmom": 1, "nang": case.nang, "ng": case.ng, "mat_opt": 0, "src_opt": 0,
              "timedep": 0, "it_det": 0, "iitm": case.iitm, "oitm": case.oitm, "epsi": "1.E-12", "fluxp": 0,
              "scatp": 0, "fixup": 0, "soloutp": 0, "popout": 0, "swp_typ": 0, "multiswp": 0}
    return "! hpcbench bench_predict_external\n&invar\n" + "".join(
        f"  {k}={v}\n" for k, v in values.items()) + "/\n"


@dataclass(frozen=True)
class SnapTimes:
    """What one SNAP run reports: its timers (seconds), its grind time
    (ns per cell, angle, octant and group) and the group inner iterations
    it made (tot_iits: the inner iterations of every group, summed)."""

    solve: float
    sweeps: float
    inner: float
    grind_ns: float
    group_inners: int

    def sweep_calls(self, groups: int) -> int:
        """Sweeps of the whole grid (each of every group): tot_iits / ng."""
        if self.group_inners % groups:
            raise ValueError(f"{self.group_inners} group inner iterations are not a multiple of {groups} "
                             "groups: a group converged early, the sweep count is unknown")
        return self.group_inners // groups


def parse_snap_output(text: str) -> SnapTimes:
    """The timers of SNAP's output file; ValueError naming what is missing."""
    found = {}
    for key, name in TIMERS.items():
        match = re.search(rf"^\s*{re.escape(name)}\s+([0-9.Ee+-]+)\s*$", text, re.M)
        if not match:
            raise ValueError(f"SNAP's output has no {name!r} timer: not a finished SNAP run")
        found[key] = float(match.group(1))
    grind = re.search(r"Grind Time \(nanoseconds\)\s+([0-9.Ee+-]+)", text)
    inners = re.findall(r"No\. Outers=\s*\d+\s+No\. Inners=\s*(\d+)", text)
    if not grind or not inners:
        raise ValueError("SNAP's output has no grind time or no iteration count: not a finished SNAP run")
    return SnapTimes(grind_ns=float(grind.group(1)), group_inners=int(inners[-1]), **found)


#: The inputs SNAP echoes that say which case an output belongs to.
ECHOED = ("npey", "npez", "ichunk", "nx", "ny", "nz", "nang", "ng")


def parse_snap_echo(text: str) -> dict:
    """SNAP's echo of its input (the first "name= value" of each ECHOED
    name): which grid, ranks, chunk, angles and groups an output ran."""
    echo = {}
    for name in ECHOED:
        match = re.search(rf"^\s*{name}=\s*(\d+)\s*$", text, re.M)
        if not match:
            raise ValueError(f"SNAP's output echoes no {name}=: not a SNAP output")
        echo[name] = int(match.group(1))
    return echo


def check_echo(text: str, case: SnapCase) -> None:
    """ValueError unless the output `text` ran `case` (a stale or foreign output file)."""
    echo = parse_snap_echo(text)
    wanted = {name: getattr(case, name) for name in ECHOED}
    if echo != wanted:
        raise ValueError(f"SNAP's output ran {echo}, not {wanted}")


def wg_per_cell(times: SnapTimes, case: SnapCase) -> float:
    """W_g (seconds per cell, all angles, one octant of one group) from a
    serial run of `case`: its sweep time over the cells it swept."""
    cells = case.nx * case.ny * case.nz
    return times.sweeps / (times.sweep_calls(case.ng) * 8 * case.ng * cells)


def outside_sweeps(times: SnapTimes, case: SnapCase) -> float:
    """Seconds per sweep outside the sweeps (sources, convergence, set-up)."""
    return (times.solve - times.sweeps) / times.sweep_calls(case.ng)


#: SNAP's corner orders (setup.f90) as the model's sweeps (starts east?,
#: starts north?, z upward?), the model's columns being SNAP's y and its
#: rows SNAP's z: a corner jd = 1 sweeps y downward, so it starts at the
#: high-y (east) end; kd = 1 starts at the high-z (north) end. The
#: pipelined axis (SNAP's x) is walked both ways within every corner, so
#: "z upward" says nothing here.
SNAP_ORDER_Y_FIRST = ((True, True, True), (False, True, True), (False, False, True), (True, False, True))
SNAP_ORDER_Z_FIRST = ((True, True, True), (True, False, True), (False, False, True), (False, True, True))


def snap_octants(case: SnapCase) -> tuple:
    """SNAP's order of corners: (1,1), (2,1), (2,2), (1,2) in (jd, kd) when
    npey <= npez (two fills across the npey columns, one across the rows),
    else (1,1), (1,2), (2,2), (2,1); the last sweep ends with a full fill."""
    return SNAP_ORDER_Y_FIRST if case.npey <= case.npez else SNAP_ORDER_Z_FIRST


def snap_params(case: SnapCase, wg: float, t_outside: float, eager_limits: tuple = ()):
    """hpcbench's Table 1 for SNAP's `case` (docs/predict.md, "Validation
    on a code this project did not write"): x, y of the model = SNAP's y, z
    (n = npey columns, m = npez rows); the model's pipelined z = SNAP's x,
    walked in both directions within a corner (Nz = 2 nx planes), in tiles
    of ichunk planes, each of the ng groups passing after the other with
    its own faces (group_faces "each"); faces of nang angles (SNAP's psi
    faces: nang x ichunk x nz/npez doubles across y, nang x ichunk x
    ny/npey across z); four sweeps in SNAP's corner order; W_g per cell,
    group and corner-direction (all nang angles)."""
    from hpcbench.predict import WavefrontParams
    return WavefrontParams(nx=case.ny, ny=case.nz, nz=2 * case.nx, m=case.npez, n=case.npey, wg=wg,
                           h_tile=case.ichunk, angles=case.nang, groups=case.ng, group_faces="each",
                           octants=snap_octants(case), t_nonwavefront=t_outside, eager_limits=eager_limits)


def octant_words(case: SnapCase) -> str:
    """SNAP's corner order as `predict wavefront --octants` takes it."""
    return ",".join(("N" if north else "S") + ("E" if east else "W") + ("+" if up else "-")
                    for east, north, up in snap_octants(case))


def cli_args(case: SnapCase, wg: float, t_outside: float, eager_limit: int) -> list:
    """The same prediction as `python -m hpcbench predict wavefront`'s
    arguments (append --results or --profile and --machine): the mapping of
    snap_params, flag by flag."""
    return ["--grid", f"{case.ny}x{case.nz}x{2 * case.nx}", "--procs", f"{case.npez}x{case.npey}",
            "--h-tile", str(case.ichunk), "--angles", str(case.nang), "--groups", str(case.ng),
            "--group-faces", "each", "--octants", octant_words(case), "--wg", repr(wg),
            "--t-nonwavefront", repr(t_outside), "--eager-limit", str(eager_limit)]


def face_bytes(case: SnapCase) -> int:
    """The largest face a rank sends (bytes): nang x ichunk x nz/npez
    doubles across y, nang x ichunk x ny/npey across z; 0 on one rank."""
    across_y = case.nz // case.npez if case.npey > 1 else 0
    across_z = case.ny // case.npey if case.npez > 1 else 0
    return 8 * case.nang * case.ichunk * max(across_y, across_z)


def predict_sweep(case: SnapCase, wg: float, t_outside: float, profile, placement,
                  eager_limits: tuple = ()) -> float:
    """Seconds per SNAP sweep (every group, four corners) as the model
    predicts it."""
    from hpcbench.predict import wavefront
    return wavefront(snap_params(case, wg, t_outside, eager_limits), profile, placement).time


# -- NPB LU ----------------------------------------------------------------

#: The largest grid axis of a CLASS=A build of LU (its arrays' isiz01..03).
LU_MAX = 64
#: LU's five unknowns per cell: the values a face carries per cell.
LU_VALUES = 5


@dataclass(frozen=True)
class LuCase:
    """NAS LU's input (inputlu.data): the grid of nx x ny x nz points
    (boundaries included), the ranks and the SSOR iterations. LU cuts x
    over xdim ranks and y over ydim (proc_grid.f; 2 ranks: 2 x 1)."""

    nx: int
    ny: int
    nz: int
    ranks: int
    itmax: int = 50

    def __post_init__(self) -> None:
        if self.ranks not in (1, 2):
            raise ValueError(f"LU cases run on 1 or 2 ranks (one per core of a small machine): {self}")
        if min(self.nx // self.xdim, self.ny, self.nz) < 4 or max(self.nx, self.ny, self.nz) > LU_MAX:
            raise ValueError(f"LU needs at least 4 points per rank and axis and at most {LU_MAX}: {self}")
        if self.nx % self.xdim or self.itmax < 1:
            raise ValueError(f"LU's x must split evenly over its {self.xdim} ranks: {self}")

    @property
    def xdim(self) -> int:
        return self.ranks          # 1 rank: 1 x 1; 2 ranks: 2 x 1 (x cut), as LU's proc_grid decides

    @property
    def block(self) -> LuCase:
        """A serial grid whose interior is one rank's: a rank of a 2-way cut
        holds nx/2 points of x, one of them a global boundary point."""
        nx = self.nx if self.xdim == 1 else self.nx // self.xdim + 1
        return replace(self, nx=nx, ranks=1)

    @property
    def label(self) -> str:
        return f"LU {self.nx}x{self.ny}x{self.nz} {self.xdim}x1 it{self.itmax}"


LU_CASES = [LuCase(32, 32, 32, 1), LuCase(48, 40, 24, 1),
            LuCase(32, 32, 32, 2), LuCase(48, 40, 24, 2), LuCase(24, 48, 40, 2), LuCase(64, 32, 16, 2),
            LuCase(40, 24, 48, 2), LuCase(32, 64, 24, 2)]


def lu_input(case: LuCase) -> str:
    """LU's inputlu.data for `case` (read_input.f: two lines skipped before
    each value): the norm, and the convergence test that comes with it,
    only at the end (inorm = itmax), so that every run makes itmax
    iterations."""
    values = [("ipr inorm", f"1 {case.itmax}"), ("itmax", str(case.itmax)), ("dt", "2.0e+00"),
              ("omega", "1.2"), ("tolrsd(m), m = 1, 5", " ".join(["1.0e-08"] * 5)),
              ("nx ny nz", f"{case.nx} {case.ny} {case.nz}")]
    return "".join(f"c\nc {name}\n {value}\n" for name, value in values) + "c\n"


@dataclass(frozen=True)
class LuTimes:
    """What one LU run reports with timer.flag: the slowest rank's timers
    (seconds) and its size, iterations and processes."""

    timers: dict
    size: tuple
    iterations: int
    processes: int


def parse_lu_output(text: str) -> LuTimes:
    """LU's standard output; ValueError naming what is missing."""
    size = re.search(r"Size:\s+(\d+)x\s*(\d+)x\s*(\d+)", text)
    iterations = re.search(r"Iterations:\s+(\d+)", text)
    processes = re.search(r"Total number of processes:\s+(\d+)", text)
    # " timer  3(blts    ) :      0.0598      0.0603      0.0600": minimum, maximum, average over the ranks
    timers = {m.group(1): float(m.group(2)) for m in
              re.finditer(r"timer\s+\d+\(\s*(\w+)\s*\)\s*:\s+\S+\s+(\S+)\s+\S+", text)}
    if not (size and iterations and processes):
        raise ValueError("LU's output has no size, iterations or process count: not a finished LU run")
    missing = [t for t in ("total", "blts", "buts", "lcomm", "ucomm") if t not in timers]
    if missing:
        raise ValueError(f"LU's output has no {missing[0]!r} timer: run it with a timer.flag file beside it")
    return LuTimes(timers, tuple(int(v) for v in size.groups()), int(iterations.group(1)),
                   int(processes.group(1)))


def lu_interior(case: LuCase) -> int:
    """Cells LU solves in a sweep: the interior points, (nx-2)(ny-2)(nz-2)."""
    return (case.nx - 2) * (case.ny - 2) * (case.nz - 2)


def lu_wg(times: LuTimes, case: LuCase) -> float:
    """W_g (seconds per interior cell of one sweep, all five unknowns) from a
    serial run: blts and buts (jacld and jacu inside) over 2 sweeps an
    iteration."""
    return (times.timers["blts"] + times.timers["buts"]) / (times.iterations * 2 * lu_interior(case))


def lu_outside(times: LuTimes) -> float:
    """Seconds per iteration outside the two sweeps and their messages (rhs, norms, updates)."""
    t = times.timers
    return (t["total"] - t["blts"] - t["buts"] - t["lcomm"] - t["ucomm"]) / times.iterations


#: LU's two sweeps: the lower from (ist, jst) (the model's SW), the upper
#: back from the opposite corner (NE, k downward): two full fills.
LU_ORDER = ((False, False, True), (True, True, False))


def lu_params(case: LuCase, wg: float, t_outside: float, eager_limits: tuple = ()):
    """hpcbench's Table 1 for LU: the interior grid, x cut into n = xdim
    columns, y into m = 1 row, z the pipelined axis in tiles of one plane,
    faces of LU's 5 unknowns per cell, the two sweeps of LU_ORDER."""
    from hpcbench.predict import WavefrontParams
    return WavefrontParams(nx=case.nx - 2, ny=case.ny - 2, nz=case.nz - 2, m=1, n=case.xdim, wg=wg, h_tile=1,
                           angles=LU_VALUES, octants=LU_ORDER, t_nonwavefront=t_outside, eager_limits=eager_limits)


def lu_predict(case: LuCase, wg: float, t_outside: float, profile, placement, eager_limits: tuple = ()) -> float:
    """Seconds per LU iteration as the model predicts it."""
    from hpcbench.predict import wavefront
    return wavefront(lu_params(case, wg, t_outside, eager_limits), profile, placement).time


def lu_cli_args(case: LuCase, wg: float, t_outside: float, eager_limit: int) -> list:
    """lu_params as `predict wavefront` flags."""
    return ["--grid", f"{case.nx - 2}x{case.ny - 2}x{case.nz - 2}", "--procs", f"1x{case.xdim}", "--h-tile", "1",
            "--angles", str(LU_VALUES), "--octants", "SW+,NE-", "--wg", repr(wg), "--t-nonwavefront",
            repr(t_outside), "--eager-limit", str(eager_limit)]


def lu_face_bytes(case: LuCase) -> int:
    """The face a rank sends across x: 5 unknowns x (ny - 2) cells; 0 on one rank."""
    return 8 * LU_VALUES * (case.ny - 2) if case.xdim > 1 else 0


def _lu_dir(case: LuCase, work_dir: str, name: str) -> str:
    """A folder with LU's inputlu.data and timer.flag (LU reads both from its working directory)."""
    folder = os.path.join(work_dir, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "inputlu.data"), "w") as f:
        f.write(lu_input(case))
    with open(os.path.join(folder, "timer.flag"), "w") as f:
        f.write("\n")
    return folder


def _lu_checked(text: str, case: LuCase) -> LuTimes:
    times = parse_lu_output(text)
    if times.size != (case.nx, case.ny, case.nz) or times.processes != case.ranks:
        raise ValueError(f"LU ran {times.size} on {times.processes} ranks, not {case.label}")
    return times


def run_lu(lu: str, case: LuCase, work_dir: str) -> LuTimes:
    folder = _lu_dir(case, work_dir, "run")
    return _lu_checked(_run(_launch(case.ranks) + [lu], folder), case)


def run_lu_serial(lu: str, block: LuCase, work_dir: str, copies: int) -> LuTimes:
    """As run_serial, for LU (its report on standard output)."""
    procs = []
    for k in range(copies):
        cmd = ["mpiexec", "-n", "1", "--bind-to", "core", "--cpu-set", str(k % (os.cpu_count() or 1)), lu]
        procs.append(subprocess.Popen(cmd, cwd=_lu_dir(block, work_dir, f"serial{k}"), env=child_env(),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      preexec_fn=_preexec()))
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=900)
        if proc.returncode != 0:
            raise RuntimeError(f"serial LU failed: {(err or out).strip()[-800:]}")
        outs.append(out)
    return _lu_checked(outs[0], block)


#: --priority: how every measured program runs (set in main): "none",
#: "nice" (a session of its own whose Linux autogroup has nice -20) or
#: "realtime" (SCHED_RR at priority 1).
PRIORITY = {"mode": "none"}
PRIORITIES = ("none", "nice", "realtime")
AUTOGROUP = "/proc/sys/kernel/sched_autogroup_enabled"


def _niced() -> None:
    """In the child, before it runs the command: a new session (so a new
    autogroup) whose nice is -20. With autogroups Linux shares the CPU
    between sessions first, so a plain `nice` would not reach past the
    other users' sessions."""
    os.setsid()
    with open("/proc/self/autogroup", "w") as f:
        f.write("-20")


def _realtime() -> None:
    """In the child: SCHED_RR at priority 1, inherited by mpiexec's ranks.
    Round robin, not FIFO, so that ranks sharing a core still take turns;
    the kernel's real-time throttling leaves the other tasks 5 % of the CPU."""
    os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(1))


def _preexec():
    return {"nice": _niced, "realtime": _realtime}.get(PRIORITY["mode"])


def priority_problem(mode: str) -> str:
    """Why --priority `mode` cannot work here ('' if it can)."""
    if mode == "none":
        return ""
    if os.geteuid() != 0:
        return f"--priority {mode} needs root"
    if mode == "realtime":
        return "" if hasattr(os, "sched_setscheduler") else "--priority realtime needs Linux's sched_setscheduler"
    try:
        with open(AUTOGROUP) as f:
            enabled = f.read().strip() == "1"
    except OSError:
        enabled = False
    return "" if enabled else f"--priority nice needs Linux's scheduler autogroups ({AUTOGROUP} is not 1)"


def _run(cmd: list, work_dir: str, timeout: int = 900) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=timeout, cwd=work_dir,
                          preexec_fn=_preexec())
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:8])}...: {(proc.stderr or proc.stdout).strip()[-800:]}")
    return proc.stdout


def _launch(ranks: int) -> list:
    if ranks <= (os.cpu_count() or 1):
        return ["mpiexec", "-n", str(ranks), "--bind-to", "core", "--map-by", "core"]
    return ["mpiexec", "-n", str(ranks), "--oversubscribe", "--bind-to", "none"]


def _write_input(case: SnapCase, work_dir: str, name: str) -> tuple[str, str]:
    path = os.path.join(work_dir, f"{name}.in")
    with open(path, "w") as f:
        f.write(snap_input(case))
    out = os.path.join(work_dir, f"{name}.out")
    if os.path.exists(out):
        os.remove(out)      # a failed run must not leave the last run's timers to be read
    return path, out


def _read(path: str, case: SnapCase) -> SnapTimes:
    with open(path) as f:
        text = f.read()
    check_echo(text, case)
    return parse_snap_output(text)


def run_snap(snap: str, case: SnapCase, work_dir: str) -> SnapTimes:
    """SNAP on case.ranks ranks (bound, one per core, where they fit)."""
    inp, out = _write_input(case, work_dir, "run")
    _run(_launch(case.ranks) + [snap, inp, out], work_dir)
    return _read(out, case)


def run_serial(snap: str, block: SnapCase, work_dir: str, copies: int) -> SnapTimes:
    """`copies` serial runs of `block` at once, each bound to its own core
    (copies = 1: alone; 2: every core of this machine busy); the first's
    times."""
    procs, outs = [], []
    for k in range(copies):
        inp, out = _write_input(block, work_dir, f"serial{k}")
        cmd = ["mpiexec", "-n", "1", "--bind-to", "core", "--cpu-set", str(k % (os.cpu_count() or 1)),
               snap, inp, out]
        procs.append(subprocess.Popen(cmd, cwd=work_dir, env=child_env(), stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True, preexec_fn=_preexec()))
        outs.append(out)
    for proc in procs:
        _, err = proc.communicate(timeout=900)
        if proc.returncode != 0:
            raise RuntimeError(f"serial SNAP failed: {err.strip()[-800:]}")
    return _read(outs[0], block)


@dataclass
class Sample:
    """One run of one configuration: measured, and the serial calibration."""

    case: Any                   #: a SnapCase or an LuCase
    measured_s: float           #: seconds per iteration of the parallel run (SNAP: Solve / sweeps)
    wg_idle: float
    wg_busy: float
    outside_idle: float
    outside_busy: float


def snap_sample(snap: str, case: SnapCase, work_dir: str) -> Sample:
    """One run of `case` and, right after it, its serial block alone and
    with a second copy beside it (so that all three see the same machine)."""
    times = run_snap(snap, case, work_dir)
    alone = run_serial(snap, case.block, work_dir, 1)
    busy = run_serial(snap, case.block, work_dir, 2)
    return Sample(case, times.solve / times.sweep_calls(case.ng), wg_per_cell(alone, case.block),
                  wg_per_cell(busy, case.block), outside_sweeps(alone, case.block),
                  outside_sweeps(busy, case.block))


def lu_sample(lu: str, case: LuCase, work_dir: str) -> Sample:
    """As snap_sample, for LU: its slowest rank's total time per iteration."""
    times = run_lu(lu, case, work_dir)
    alone = run_lu_serial(lu, case.block, work_dir, 1)
    busy = run_lu_serial(lu, case.block, work_dir, 2)
    return Sample(case, times.timers["total"] / times.iterations, lu_wg(alone, case.block),
                  lu_wg(busy, case.block), lu_outside(alone), lu_outside(busy))


@dataclass(frozen=True)
class Code:
    """What the script needs of one external code: its configurations, a
    run of one (measured and calibrated), the model's figure, the same as
    `predict wavefront` flags, its largest face, and a tiny input that
    shows in a second whether a binary is that code."""

    name: str
    option: str
    cases: list
    oversubscribed: list
    sample: Callable[[str, Any, str], Sample]
    predict: Callable[..., float]
    cli_args: Callable[..., list]
    face_bytes: Callable[[Any], int]
    tiny_run: Callable[[str, str], Any]


def pooled_row(code: Code, samples: list, profile, cores: int, eager_limit: int) -> dict:
    """Medians of one configuration's runs and the prediction from them."""
    from hpcbench.predict import Machine, allocate
    case = samples[0].case
    med = {key: statistics.median(getattr(s, key) for s in samples)
           for key in ("measured_s", "wg_idle", "wg_busy", "outside_idle", "outside_busy")}
    # More ranks than cores (--oversubscribe): priced on a node with a core per rank, which is not
    # what runs; those rows are reported apart as not modelled.
    placement = allocate(case.ranks, Machine(1, 1, max(cores, case.ranks)), "node-fill")
    busy = case.ranks > 1
    # The library's eager limit for every class of the profile: faces above it are coupled to their receive.
    limits = tuple((cls, eager_limit) for cls in profile.classes)
    wg = med["wg_busy"] if busy else med["wg_idle"]
    outside = med["outside_busy"] if busy else med["outside_idle"]
    predicted = code.predict(case, wg, outside, profile, placement, limits)
    predicted_idle = code.predict(case, med["wg_idle"], med["outside_idle"], profile, placement, limits)
    return {"case": case.label, "ranks": case.ranks, "runs": len(samples), "wg_ns": wg * 1e9, "wg_s": wg,
            "outside_s": outside, "cores": cores,
            "measured_s": med["measured_s"], "predicted_s": predicted,
            "error": predicted / med["measured_s"] - 1, "predicted_idle_s": predicted_idle,
            "error_idle": predicted_idle / med["measured_s"] - 1,
            "face_bytes": code.face_bytes(case)}


def cli_time(code: Code, case: Any, row: dict, comm: str, eager_limit: int, work_dir: str) -> float:
    """The same prediction by `python -m hpcbench predict wavefront` (its
    model time per iteration), from the row's W_g and time outside."""
    out = os.path.join(work_dir, "predict.json")
    machine = f"1x1x{max(row['cores'], case.ranks)}"
    _run([sys.executable, "-m", "hpcbench", "predict", "wavefront", "--results", comm, "--machine", machine,
          *code.cli_args(case, row["wg_s"], row["outside_s"], eager_limit), "-o", out, "--force"], work_dir)
    with open(out) as f:
        return float(json.load(f)["model"]["time_s"])


def _format(r: dict) -> str:
    return (f"{r['case']:<34} W_g {r['wg_ns']:7.1f} ns  measured {r['measured_s'] * 1e3:8.2f} ms  "
            f"predicted {r['predicted_s'] * 1e3:8.2f} ms ({r['error'] * 100:+6.1f} %)  "
            f"with W_g idle {r['predicted_idle_s'] * 1e3:8.2f} ms ({r['error_idle'] * 100:+6.1f} %)")


def summary(rows: list, key: str = "error") -> str:
    errors = [abs(r[key]) for r in rows]
    return (f"mean absolute error {statistics.mean(errors) * 100:.1f} % (target <= 10 %), worst "
            f"{max(errors) * 100:.1f} % (target <= 20 %) over {len(rows)} configurations")


def running_tasks() -> int:
    """Tasks running or runnable on the machine now (/proc/loadavg's 4th
    field), this script included; 0 where the kernel does not say."""
    try:
        with open("/proc/loadavg") as f:
            return int(f.read().split()[3].split("/")[0])
    except (OSError, IndexError, ValueError):
        return 0


def wait_quiet(most: int, max_wait: float) -> tuple[int, float]:
    """Wait until at most `most` tasks run for two checks in a row (a
    pipeline stalls whenever another task takes one of its ranks' cores,
    which the model does not price), at most `max_wait` seconds; the tasks
    seen last and the seconds waited."""
    began = time.monotonic()
    calm = 0
    while True:
        seen = running_tasks()
        calm = calm + 1 if seen <= most else 0
        waited = time.monotonic() - began
        if calm >= 2 or waited >= max_wait:
            return seen, waited
        time.sleep(0.5)


def measure(code: Code, binary: str, cases: list, runs: int, work_dir: str, quiet: tuple[int, float]) -> dict:
    samples: dict = {case: [] for case in cases}
    for k in range(runs):
        for case in cases:
            seen, waited = wait_quiet(*quiet)
            samples[case].append(code.sample(binary, case, work_dir))
            s = samples[case][-1]
            print(f"run {k + 1}: {case.label:<34} measured {s.measured_s * 1e3:8.2f} ms per iteration, "
                  f"W_g idle {s.wg_idle * 1e9:6.1f} ns, busy {s.wg_busy * 1e9:6.1f} ns  "
                  f"({seen} tasks running after {waited:.0f} s of waiting; load {os.getloadavg()[0]:.2f})",
                  flush=True)
    return samples


#: Runs small enough to check in a second that a binary is the code.
TINY = SnapCase(8, 4, 4, 1, 1, 2, 2, 1, iitm=1, oitm=1)
LU_TINY = LuCase(8, 8, 8, 1, itmax=2)

CODES = {
    "snap": Code("SNAP", "--snap", CASES, OVERSUBSCRIBED, snap_sample, predict_sweep, cli_args, face_bytes,
                 lambda binary, work_dir: run_serial(binary, TINY, work_dir, 1)),
    "lu": Code("LU", "--lu", LU_CASES, [], lu_sample, lu_predict, lu_cli_args, lu_face_bytes,
               lambda binary, work_dir: run_lu_serial(binary, LU_TINY, work_dir, 1)),
}


def check_binary(code: Code, binary: str, work_dir: str) -> None:
    """RuntimeError unless `binary` runs the code's tiny input and reports its timers."""
    try:
        code.tiny_run(binary, work_dir)
    except (OSError, ValueError, RuntimeError) as e:
        raise RuntimeError(f"{code.option} {binary} did not run {code.name}'s input to the end ({e})") from None


def run_all(code: Code, binary: str, cases: list, args: argparse.Namespace) -> list:
    """The comm profile, every run of every case, the pooled rows (with the
    command line's figure for each)."""
    from hpcbench.predict import NetworkProfile
    with tempfile.TemporaryDirectory(prefix="hpcb-external-") as work_dir:
        check_binary(code, binary, work_dir)
        print(f"{code.name}: load before: {os.getloadavg()}; priority: {args.priority}", flush=True)
        comm = os.path.join(work_dir, "comm.json")
        _run(_launch(2) + [sys.executable, "-m", "hpcbench", "run", "comm", "-q", "-o", comm], work_dir)
        profile = NetworkProfile.from_results(comm)
        samples = measure(code, binary, cases, args.runs, work_dir, (args.quiet, args.max_wait))
        rows = [pooled_row(code, samples[case], profile, os.cpu_count() or 1, args.eager_limit) for case in cases]
        for case, row in zip(cases, rows):
            row["cli_s"] = cli_time(code, case, row, comm, args.eager_limit, work_dir)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--snap", metavar="PATH", help="SNAP's binary (gsnap), built by you")
    which.add_argument("--lu", metavar="PATH", help="NAS LU's MPI binary (NPB 3.4, CLASS=A: lu.A.x), built by you")
    parser.add_argument("--runs", type=int, default=3, help="runs of every configuration (default 3)")
    parser.add_argument("--oversubscribe", action="store_true",
                        help="add 4-rank configurations on this machine's cores (ranks share cores)")
    parser.add_argument("--eager-limit", type=int, default=OPEN_MPI_EAGER, metavar="BYTES",
                        help=f"the MPI library's eager limit between ranks of this node (default {OPEN_MPI_EAGER}: "
                             "Open MPI's btl_vader_eager_limit)")
    parser.add_argument("--quiet", type=int, default=2, metavar="TASKS",
                        help="before each configuration, wait until at most TASKS tasks run (this script "
                             "included; default 2)")
    parser.add_argument("--max-wait", type=float, default=60.0, metavar="SECONDS",
                        help="...but at most this long (default 60; the table says how many tasks ran)")
    parser.add_argument("--priority", choices=PRIORITIES, default="none",
                        help="on a machine shared with other users' jobs, give every measured program the CPU (root, "
                             "Linux): 'nice', a session of its own with autogroup nice -20; 'realtime', SCHED_RR "
                             "(others keep 5 %%). A pipeline stalls whenever one of its ranks loses its core, which "
                             "serial runs do not feel and the model does not price (default none)")
    parser.add_argument("--json", default=None, help="write every row here")
    args = parser.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    if args.eager_limit < 0:
        fail(SCRIPT, f"--eager-limit must be a whole number of bytes >= 0, got {args.eager_limit}")
    code = CODES["snap" if args.snap else "lu"]
    given = args.snap or args.lu
    if not (os.path.isfile(given) and os.access(given, os.X_OK)):
        fail(SCRIPT, f"{code.option} {given}: not an executable file (build {code.name} with its own Makefile)")
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    problem = priority_problem(args.priority)
    if problem:
        fail(SCRIPT, problem)
    PRIORITY["mode"] = args.priority
    cases = code.cases + (code.oversubscribed if args.oversubscribe else [])
    try:
        rows = run_all(code, os.path.abspath(given), cases, args)
    except (RuntimeError, ValueError, OSError, subprocess.TimeoutExpired) as e:
        fail(SCRIPT, " ".join(str(e).split())[-400:] or type(e).__name__)
    print(f"medians of {args.runs} runs (load after: {os.getloadavg()}):")
    for r in rows:
        print(_format(r))
    worst_cli = max(abs(r["cli_s"] / r["predicted_s"] - 1) for r in rows)
    print(f"`python -m hpcbench predict wavefront` with the same inputs: within {worst_cli * 100:.2g} % of the API's "
          "figures")
    fitting = [r for r in rows if r["ranks"] <= (os.cpu_count() or 1)]
    print(f"one rank per core: {summary(fitting)}")
    print(f"  (with W_g idle everywhere: {summary(fitting, 'error_idle')})")
    if len(fitting) < len(rows):
        print("ranks sharing cores (not modelled: the model gives every rank a core of its own, and `predict "
              f"wavefront` refuses more ranks than cores): {summary([r for r in rows if r not in fitting])}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
