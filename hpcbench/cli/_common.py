"""What every command of the CLI shares: the one-line usage error, the
parser that raises it, and the one line each command shows in `hpcbench
--help` (said once here: the command's own parser and the start-up stub of
it both read it)."""
from __future__ import annotations

import argparse
from typing import NoReturn

from .._errors import InputError

SUMMARIES = {
    "run": "run benchmarks (default: the default suite) and write a results file",
    "list": "list the benchmarks",
    "show": "print a summary of a results file",
    "report": "write one self-contained HTML page of a results file (or two side by side)",
    "degr": "write the network degradation file (ratDist, ratNC) of a results file",
    "params": "write the parameters file (caches, memory, layers, ratDist, ratNC) of a results file",
    "config": "compiler flags for the C degradation and parameters API (libhpcbdegr)",
    "advise": "turn measured figures into decisions",
    "map": "map processes onto cores from measurements (Servet's weighted selection)",
    "predict": "predict run times from measurements (Hammond et al. 2009)",
    "sbatch": "write a Slurm batch script for a run, its --time from the run's estimate",
    "doctor": "check this machine and launch: MPI, binding, hwloc, timer, pages, frequency",
    "history": "each headline figure's trend over the runs of a history folder, and the runs where it moved",
    "check": "each headline figure of a results file better, same or worse than a reference; exit 1 on a regression",
}


class UsageError(InputError):
    """A bad command line, already worded for the user (the command's name
    first): one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors are UsageError (one line, exit 2)
    instead of a usage text and SystemExit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see --help)")
