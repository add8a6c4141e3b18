"""Servet's layers in auto mode, as `run comm` runs them (the test pair's
echo sweep measured first and reused, as the benchmark does), timed.
Usage: mpiexec -n P python layers_auto.py; rank 0 prints one JSON line:
seconds (all, and of the pair latencies alone), pairs measured, rounds,
layers, all pairs."""
import json
import time

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

from hpcbench.comm import pingpong, survey_layers  # noqa: E402
from hpcbench.comm._benchmark import _probe_size  # noqa: E402
from hpcbench.comm._sweep import message_sizes  # noqa: E402
from hpcbench.topology import Topology  # noqa: E402

comm = MPI.COMM_WORLD
topology = Topology.load()
sizes = message_sizes()
echo = pingpong(comm, sizes)                 # the benchmark's echo sweep, not timed here
comm.Barrier()
started = time.monotonic()
marks = []
survey = survey_layers(comm, topology, _probe_size(topology), sizes, known={(0, 1): echo},      # mode auto
                       progress=lambda message: marks.append(time.monotonic()))
comm.Barrier()
seconds = time.monotonic() - started
if comm.Get_rank() == 0:
    # The first progress message comes when every pair latency is measured.
    print(json.dumps({"ranks": comm.Get_size(), "seconds": seconds, "rounds_seconds": marks[0] - started,
                      "measured": len(survey.latencies),
                      "rounds": len(survey.plan.rounds), "layers": len(survey.layers),
                      "all_pairs": survey.plan.all_pairs}))
