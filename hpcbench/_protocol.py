"""The benchmark protocol: what every benchmark of the suite provides, and the
context the runner hands it.

A benchmark is an instance of a `Benchmark` subclass in its domain's
package, listed once in hpcbench/_registry.py. It declares:

* `name`, `title` (one line for `hpcbench list`), `scope` ("node": once per
  node by its lowest rank; "world": every rank takes part);
* `options_type`: a dataclass whose fields hold every default once, each
  made with `option()` (its CLI flag, help and deprecated aliases);
* `check(options, topology, job)`: raises OptionError naming the field that
  breaks a rule (the CLI maps it to the flag) and returns the options with
  machine-dependent defaults resolved;
* `run(ctx)`: measures and returns a typed `Record` (see _record.py);
* `estimate(options, topology, job)`: the seconds `run` will take, from its
  checked options and the machine, without measuring (hpcbench._estimate:
  `run --estimate`, `sbatch --time`, the time left in progress lines);
* `summary(record)`: the lines `hpcbench show` prints;
* `plot(record)`: a matplotlib figure (the notebooks and the report draw it);
* for `hpcbench report` (optional, each empty by default): `meaning(record)`,
  a short sentence per result saying what it means for a user;
  `disagreements(record)`, where the measurement contradicts what the
  machine reports or its own model; `headlines(record)`, the numbers a
  side-by-side report of two results files compares (`Headline`);
  `failed_fits(record)`, fitted figures that came out non-physical;
* `tidy(record)` (optional): the record's rows of the tidy export
  (hpcbench._tidy.Row: `show --format csv|json`, `Results.to_frame()`); by
  default one row per headline.

The CLI, `show`, the runner and the results loader only loop over the
registry; adding a benchmark touches its own package and one registry line
(docs/architecture.md, "How to add a benchmark").
"""
from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from ._errors import OptionError, Skipped
from ._format import format_size
from ._record import Record
from ._tidy import Row, headline_rows
from ._timer import TimerCalibration
from ._validate import Range
from .topology import Topology

if TYPE_CHECKING:          # for the annotations only: the CLI's start-up imports none of them
    from _typeshed import DataclassInstance
    from matplotlib.figure import Figure

    from ._headline import Headline

__all__ = ["AnyBenchmark", "Benchmark", "CliFlag", "Context", "Job", "O", "OptionError", "R", "Skipped",
           "check_ranges", "flag_dest", "option"]

#: A benchmark's options: the frozen dataclass of its flags (CacheOptions, ...).
O = TypeVar("O", bound="DataclassInstance")  # noqa: E741 (the protocol's short name: Benchmark[O, R])
#: A benchmark's record: its Record subclass (CacheRecord, ...).
R = TypeVar("R", bound=Record)
#: Seconds `estimate` answers for a benchmark that has no model of its own.
DEFAULT_ESTIMATE_S = 15.0
#: A value of an option's field (option() hands back its default's type).
T = TypeVar("T")


@dataclass(frozen=True)
class CliFlag:
    """How one option appears on the command line."""

    flag: str                                  #: e.g. "--cache-stride"
    help: str                                  #: what it is, without the default
    metavar: str | None = None
    type: Callable[[str], object] | None = None   #: argparse type (size_arg, int, float, ...)
    choices: tuple[object, ...] | None = None
    aliases: tuple[str, ...] = ()                 #: deprecated spellings that still work
    range: Range | None = None                 #: the documented range of a number (checked before `resolve`)
    default_text: str | None = None            #: the default in words, where it is computed
    size: bool = False                         #: the value is bytes: show the default as a size


def option(default: T, flag: str, help: str, **cli: Any) -> T:
    """A field of an options dataclass: its default (held here only) and its
    flag. `cli` holds CliFlag's other fields (metavar, type, choices, range,
    ...), passed on by name: CliFlag itself rejects a name it does not know."""
    return field(default=default, metadata={"cli": CliFlag(flag, help, **cli)})


def check_ranges(options_type: type, **values: object) -> None:
    """Check values against the documented ranges of the options dataclass's
    fields of the same names: the library functions that take those options
    as keywords apply the same rule as the command line (OptionError)."""
    ranges = {f.name: f.metadata["cli"].range for f in dataclasses.fields(options_type) if "cli" in f.metadata}
    for name, value in values.items():
        if ranges.get(name) is not None and value is not None:
            ranges[name].check(name, value)


def flag_dest(flag: str) -> str:
    """The argparse destination of a flag or a deprecated alias (shared by
    every benchmark that declares it)."""
    return "flag" + flag


@dataclass(frozen=True)
class Job:
    """The shape of the MPI job a benchmark runs in."""

    ranks: int = 1
    nodes: int = 1


def _silent(message: str) -> None:
    """Progress sink when nobody listens."""


@dataclass
class Context(Generic[O]):
    """What the runner hands every benchmark's `run`; `options` are this
    benchmark's checked options (a `Benchmark[O, R]` gets a `Context[O]`).

    comm: the communicator of the run (COMM_WORLD under `hpcbench run`);
    node benchmarks run on one rank per node and must not call collectives
    on it. earlier: this node's finished records of this run, by name (the
    shared-cache benchmark reads the cache benchmark's curve from it).
    run_options: every benchmark's options of this run, by name."""

    topology: Topology
    options: O
    timer: TimerCalibration
    # An mpi4py communicator (None outside MPI). Any, not MPI.Comm: mpi4py is
    # imported only by the functions that use it, and its stubs are optional.
    comm: Any = None
    job: Job = field(default_factory=Job)
    # Any, not Record: a reader knows the record type it asked for
    # (earlier["cache"] is a CacheRecord) and hands it on as that type.
    earlier: dict[str, Any] = field(default_factory=dict)
    # Each benchmark's own options type, by name: no one type fits them all,
    # and a reader knows which one it asked for (run_options["cache"]).
    run_options: dict[str, Any] = field(default_factory=dict)
    progress: Callable[[str], None] = _silent


class Benchmark(Generic[O, R]):
    """Base class of the suite's benchmarks; see the module docstring. A
    benchmark names its types: `class CacheBenchmark(Benchmark[CacheOptions,
    CacheRecord])`; `run` then takes a `Context[CacheOptions]` and returns a
    `CacheRecord`, and `summary`, `plot`, ... take that record."""

    name: ClassVar[str]
    title: ClassVar[str]                 #: one line for `hpcbench list`: the docstring's first paragraph
    scope: ClassVar[str]                 #: "node" or "world"
    group: ClassVar[str]                 #: heading of its flags in `run --help` (default "NAME benchmark")
    # Class attributes set by each subclass (not ClassVar: a ClassVar cannot
    # name the class's type variables).
    options_type: type[O]
    # The default, for a benchmark that declares no record type of its own
    # (every registered one does; tests' stand-ins may not): a plain Record,
    # which is an R only when R is Record itself, hence the cast.
    record_type: type[R] = cast("type[R]", Record)
    default: ClassVar[bool] = True       #: in the default suite ...
    min_ranks: ClassVar[int] = 1         #: ... with at least this many ranks
    min_nodes: ClassVar[int] = 1         #: ... and nodes
    needs_ranks: ClassVar[int] = 1       #: asked for by name with fewer ranks: a usage error
    uses: ClassVar[tuple[str, ...]] = ()  #: benchmarks whose options it may use (checked with its own)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "title" not in cls.__dict__ and cls.__doc__:
            cls.title = " ".join(cls.__doc__.strip().split("\n\n")[0].split())
        if "group" not in cls.__dict__ and "name" in cls.__dict__:
            cls.group = f"{cls.name} benchmark"

    # ---- options and flags -------------------------------------------------------------

    def flags(self) -> dict[str, CliFlag]:
        """Option field name -> CliFlag."""
        return {f.name: f.metadata["cli"] for f in dataclasses.fields(self.options_type) if "cli" in f.metadata}

    def dest(self, parameter: str) -> str:
        """The argparse destination of an option: named after its flag, so
        benchmarks that share an options type share the flag's value."""
        return flag_dest(self.flags()[parameter].flag)

    def flag_of(self, parameter: str) -> str:
        """The flag of an option field (the parameter itself if it has none)."""
        spec = self.flags().get(parameter)
        return spec.flag if spec else parameter

    def add_arguments(self, group: argparse._ActionsContainer) -> None:
        """This benchmark's flags. argparse defaults are None ("not given"):
        the options dataclass holds the defaults, once."""
        defaults = self.options_type()
        for name, spec in self.flags().items():
            default = getattr(defaults, name)
            text = spec.default_text or _default_text(default, spec)
            limits = f"{spec.range}; " if spec.range else ""
            kwargs: dict[str, Any] = {"dest": self.dest(name), "default": None,
                                      "help": f"{spec.help} ({limits}default: {text})"}
            if isinstance(default, bool):
                kwargs["action"] = argparse.BooleanOptionalAction
            else:
                kwargs.update(type=spec.type, metavar=spec.metavar)
                if spec.choices:
                    kwargs.update(choices=spec.choices, metavar=None)
            group.add_argument(spec.flag, **kwargs)

    def given_flags(self, args: argparse.Namespace) -> dict[str, tuple[str, object]]:
        """Option field -> (the flag the command line set it with, value); a
        deprecated alias counts where the flag itself was not given."""
        given: dict[str, tuple[str, object]] = {}
        for name, spec in self.flags().items():
            for flag, dest in [(spec.flag, self.dest(name))] + [(a, flag_dest(a)) for a in spec.aliases]:
                value = getattr(args, dest, None)
                if value is not None:
                    given[name] = (flag, value)
                    break
        return given

    def options_from_args(self, args: argparse.Namespace) -> O:
        """The options a parsed command line gives (defaults where not given)."""
        given = {name: value for name, (_, value) in self.given_flags(args).items()}
        return dataclasses.replace(self.options_type(), **given)

    def in_default_suite(self, job: Job) -> bool:
        """Whether `run` without benchmark names runs it in a job of this shape."""
        return self.default and job.ranks >= self.min_ranks and job.nodes >= self.min_nodes

    def in_unnamed_run(self, options: O, job: Job) -> bool:
        """Whether `run` without benchmark names runs it, given its options
        as the command line set them (unchecked): by default when it is in
        the default suite (the OSU/IMB families also when --comm-suite all)."""
        return self.in_default_suite(job)

    def unnamed_options(self, options: O) -> O:
        """Its options in a run that names no benchmark, before they are
        checked (by default as they are; the OSU/IMB families run their
        short subset there unless told otherwise)."""
        return options

    # ---- what each benchmark implements ------------------------------------------------

    def check(self, options: O, topology: Topology, job: Job = Job()) -> O:
        """Raise OptionError naming the option that breaks a rule; return the
        options with machine-dependent defaults resolved. First every
        option's documented range (its flag's `range`), then the benchmark's
        own rules, which depend on the machine and the job (`resolve`)."""
        check_ranges(self.options_type, **{name: getattr(options, name) for name in self.flags()})
        return self.resolve(options, topology, job)

    def resolve(self, options: O, topology: Topology, job: Job) -> O:
        """The benchmark's own rules (memory, PUs, the job) and its machine
        defaults; OptionError naming the option."""
        raise NotImplementedError

    def estimate(self, options: O, topology: Topology, job: Job = Job()) -> float:
        """Seconds `run` will take with these checked options on this
        machine and job, without measuring (models in hpcbench._estimate,
        fitted as docs/slurm.md says); DEFAULT_ESTIMATE_S without a model."""
        return DEFAULT_ESTIMATE_S

    def run(self, ctx: Context[O]) -> R:
        """Measure (ctx.options are this benchmark's checked options) and
        return the record."""
        raise NotImplementedError

    def summary(self, record: R) -> list[str]:
        """The lines `show` prints for an ok record."""
        raise NotImplementedError

    def plot(self, record: R) -> Figure:
        """A matplotlib Figure of the record."""
        raise NotImplementedError

    # ---- what the report asks (optional: a benchmark without them still has its section) ----

    def meaning(self, record: R) -> list[str]:
        """What an ok record means for a user: one short sentence per result
        (the report's "what this means"). None by default."""
        return []

    def disagreements(self, record: R) -> list[str]:
        """Where an ok record contradicts what the machine reports (hwloc,
        the job's layout) or its own model, one line each: the report
        highlights them. None by default."""
        return []

    def headlines(self, record: R) -> list[Headline]:
        """The numbers of an ok record that a side-by-side report of two
        results files compares (a list of hpcbench._headline.Headline, labels
        unique within the record). None by default."""
        return []

    def failed_fits(self, record: R) -> list[str]:
        """Fits of an ok record that came out non-physical (a negative
        per-hop cost or latency intercept), one line each with why
        (hpcbench._physical): the report shows them as fits that failed,
        never as findings. None by default."""
        return []

    def machine_figures(self, record: R) -> list[Headline]:
        """The few figures of an ok record that describe the machine itself
        (STREAM Triad, peak FLOP/s): the report's machine header lists them
        beside hwloc's topology. None by default."""
        return []

    # ---- the tidy export (optional: by default the headlines) ----------------------------

    def tidy(self, record: R) -> list[Row]:
        """The rows of an ok record in the tidy export (hpcbench._tidy): its
        headline figures and its curves, one number per row. By default one
        row per headline; a benchmark overrides it in its package's
        `_tidy.py`."""
        return headline_rows(record, self.headlines(record))


#: Any benchmark of the registry, whatever its options and record types (the
#: registry, the CLI and `show` hand each its own options and records).
AnyBenchmark = Benchmark[Any, Any]


def _default_text(default: object, spec: CliFlag) -> str:
    if isinstance(default, bool):
        return "on" if default else "off"
    if default is None:
        return "automatic"
    if spec.size and isinstance(default, int):
        return format_size(default)
    return str(default)
