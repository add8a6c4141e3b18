"""Reading a history folder: every results file in it, in time order,
each with the machine it ran on; the files that cannot be read are set
aside with the reason (the command prints one warning line for each).

The runs are the folder's `*.json` files (hidden names, such as the
temporary files of a write in progress, are not runs). A run's time is its
context date (when the run started), else the date its entry's name
carries; runs of equal time keep the order of their names, and runs of no
known time come last."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime

from .._errors import InputError
from .._headline import Headline
from .._results import Results, load
from ._errors import HistoryError
from ._figures import FigureKey, figures_of
from ._names import date_of_name, parse_date

#: Hosts a machine's name lists before "and N more".
_HOSTS_NAMED = 4


@dataclass(frozen=True, order=True)
class Machine:
    """What a run ran on, from its results' context: the CPU model and the
    hosts of the job. Runs of different machines are different histories."""
    cpu_model: str
    hosts: tuple[str, ...]

    def text(self) -> str:
        """'AMD EPYC on vm', 'Xeon on n01, n02, n03, n04 and 4 more'."""
        names = ", ".join(self.hosts[:_HOSTS_NAMED]) or "?"
        more = f" and {len(self.hosts) - _HOSTS_NAMED} more" if len(self.hosts) > _HOSTS_NAMED else ""
        return f"{self.cpu_model} on {names}{more}"


@dataclass(frozen=True)
class Run:
    """One results file of the history: its headline figures (the records
    themselves are not kept: a history of hundreds of runs would hold every
    raw sample of each in memory)."""
    file: str                  #: its name in the folder
    path: str
    date: datetime | None      #: UTC; None when neither the file nor its name says
    machine: Machine
    figures: dict[FigureKey, Headline]


@dataclass
class History:
    """The runs of a history folder in time order, and the files set aside."""
    directory: str
    runs: list[Run] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)    #: (file name, why), one warning each

    def machines(self) -> list[Machine]:
        """Every machine of the history, in the order of its first run."""
        return list(dict.fromkeys(run.machine for run in self.runs))

    def runs_of(self, machine: Machine) -> list[Run]:
        return [run for run in self.runs if run.machine == machine]


def machine_of(results: Results) -> Machine:
    context = results.context
    hosts = tuple(sorted(str(h) for h in (getattr(context, "hosts", None) or [])))
    return Machine(str(getattr(context, "cpu_model", None) or "unknown CPU"), hosts)


def read_history(directory: str) -> History:
    """The history in `directory`; HistoryError (one line) when it is not
    a folder that can be listed, or holds no run that can be read."""
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        raise HistoryError(f"the history folder {directory} does not exist") from None
    except NotADirectoryError:
        raise HistoryError(f"the history folder {directory} is not a folder") from None
    except OSError as e:
        raise HistoryError(f"cannot list the history folder {directory}: {e.strerror or e}") from None
    history = History(directory)
    for name in names:
        path = os.path.join(directory, name)
        if name.startswith(".") or not name.endswith(".json") or os.path.isdir(path):
            continue
        try:
            results = load(path)
        except (InputError, OSError) as e:
            history.skipped.append((name, str(e)))
            continue
        date = parse_date(getattr(results.context, "date", None)) or date_of_name(name)
        history.runs.append(Run(name, path, date, machine_of(results), figures_of(results)))
    if not history.runs:
        unread = f" ({len(history.skipped)} file(s) could not be read)" if history.skipped else ""
        raise HistoryError(f"the history folder {directory} holds no run{unread}", history.skipped)
    history.runs.sort(key=lambda run: (run.date is None, run.date or datetime.min, run.file))
    return history
