"""The benchmark protocol: every benchmark of the registry declares itself the
same way, its flags come from its options dataclass (defaults held once), a
broken rule names its option, the old unprefixed flags still work, and every
shipped record draws its figure."""
import dataclasses
import glob
import inspect
import os

import pytest

import hpcbench
from hpcbench import _registry
from hpcbench._protocol import Job
from hpcbench.cli import build_parser
from hpcbench.cli._options import checked_options, deprecation_notes
from hpcbench.topology import Topology

PREFIXES = {"cache": "--cache-", "shared-caches": "--shared-", "memory": "--memory-", "stream": "--stream-",
            "bandwidth": "--bw-", "peakflops": "--flops-", "numa": "--numa-", "multibsp": "--mbsp-",
            "comm": "--comm-", "matrix": "--matrix-", "distance": "--net-", "network-access": "--net-",
            "network-map": "--map-", "bisection": "--bisection-"}
# The OSU/IMB families share one options type: the sampling flags are --comm-*, each family's own
# tests --p2p-*, --coll-*, --nbc-*, --rma-* (the window and pairs are p2p's words, as OSU's).
MICRO = ("--comm-", "--p2p-", "--coll-", "--nbc-", "--rma-")
PREFIXES.update({"p2p": MICRO, "collectives": MICRO, "nbc": MICRO, "rma": MICRO})
# Results files only: hpcbench/examples also holds inputs such as francesca-profile.json.
EXAMPLES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "hpcbench", "examples", "*-example.json")))
BENCHMARKS = [pytest.param(b, id=b.name) for b in _registry.BENCHMARKS]


def parse(*args):
    return build_parser().parse_args(["run", *args])


def test_registry_names_are_unique_and_public():
    names = [b.name for b in _registry.BENCHMARKS]
    assert len(set(names)) == len(names) and set(names) == set(PREFIXES)
    assert hpcbench.BENCHMARKS == _registry.BENCHMARKS


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_every_benchmark_declares_itself(bench):
    assert bench.scope in ("node", "world") and bench.title and bench.group
    assert issubclass(bench.record_type, hpcbench.Record) and bench.record_type is not hpcbench.Record
    assert dataclasses.is_dataclass(bench.options_type)
    for f in dataclasses.fields(bench.options_type):   # every option has its default in the dataclass
        assert f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING, f.name
    for name, spec in bench.flags().items():
        prefixes = PREFIXES[bench.name]
        assert spec.flag.startswith(prefixes) or isinstance(prefixes, str) and spec.flag == f"--no-{prefixes[2:]}", name
        assert spec.help and bench.flag_of(name) == spec.flag
    for method in ("run", "summary", "plot"):    # each implements the protocol itself
        assert getattr(type(bench), method) is not getattr(hpcbench.Benchmark, method), method
    # `check` is the protocol's own (documented ranges, then `resolve`): no benchmark may bypass the ranges
    assert type(bench).check is hpcbench.Benchmark.check


def test_flags_are_unique_across_options_types():
    owner = {}
    for bench in _registry.BENCHMARKS:
        for spec in bench.flags().values():
            assert owner.setdefault(spec.flag, bench.options_type) is bench.options_type, spec.flag


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_defaults_check_clean_on_this_machine(bench):
    topology = Topology.load()
    options = bench.check(bench.options_type(), topology, Job(ranks=4, nodes=4))
    assert isinstance(options, bench.options_type)


def test_library_functions_take_their_defaults_from_the_options():
    """measure() and friends read their keyword defaults from the options
    dataclass: a default changed there changes everywhere."""
    from hpcbench.cache import CacheOptions, measure
    from hpcbench.comm.matrix import measure_matrix
    from hpcbench.comm.matrix._options import MatrixOptions
    from hpcbench.memory._measure import measure_pairs
    from hpcbench.memory._options import MemoryOptions
    from hpcbench.multibsp._measure import measure_component
    from hpcbench.multibsp._options import MultiBSPOptions
    for fn, options in ((measure, CacheOptions()), (measure_pairs, MemoryOptions()),
                        (measure_component, MultiBSPOptions()), (measure_matrix, MatrixOptions())):
        for name, p in inspect.signature(fn).parameters.items():
            if hasattr(options, name) and p.default is not inspect.Parameter.empty:
                assert p.default == getattr(options, name), (fn.__name__, name)


@pytest.mark.parametrize("args, bench, option, flag", [
    (["--cache-stride", "3"], "cache", "stride", "--cache-stride"),
    (["--cache-passes", "0"], "cache", "passes", "--cache-passes"),
    (["--memory-tolerance", "1.5"], "memory", "tolerance", "--memory-tolerance"),
    (["--mbsp-hmax", "0"], "multibsp", "hmax", "--mbsp-hmax"),
    (["--comm-rse", "2"], "comm", "rse", "--comm-rse"),
    (["--matrix-dims", "7"], "matrix", "dims", "--matrix-dims"),
    (["--net-size", "0"], "distance", "size", "--net-size"),
    (["--shared-rounds", "0"], "shared-caches", "rounds", "--shared-rounds"),
])
def test_a_broken_rule_names_its_option_and_the_cli_its_flag(args, bench, option, flag):
    b = _registry.get(bench)
    with pytest.raises(hpcbench.OptionError) as err:
        b.check(b.options_from_args(parse(*args)), Topology.load(), Job(4, 4))
    assert err.value.parameter == option and b.flag_of(option) == flag


def test_old_unprefixed_flags_still_work_and_the_new_ones_win():
    args = parse("--rounds", "5", "--memory-rounds", "2", "--pairs", "all", "--no-cache-refine")
    shared, memory = (_registry.get(n).options_from_args(args) for n in ("shared-caches", "memory"))
    assert shared.rounds == 5 and memory.rounds == 2
    assert shared.pairs == memory.pairs == "all"
    assert _registry.get("cache").options_from_args(args).refine is False
    notes = deprecation_notes(args)
    assert any("--rounds is deprecated; use --shared-rounds, --memory-rounds" in n for n in notes)
    assert not any("--no-cache-refine" in n for n in notes)   # the boolean pair is the new flag too


def test_options_a_benchmark_uses_are_checked_with_it():
    """shared-caches measures the cache curve with the cache options when the run has none."""
    from hpcbench.cli._common import UsageError
    with pytest.raises(UsageError, match="--cache-stride"):
        checked_options(parse("--cache-stride", "3"), ["shared-caches"], Topology.load(), Job())
    options = checked_options(parse("--cache-stride", "3"), ["memory"], Topology.load(), Job())
    assert options["cache"].stride == 3                 # not run, not used: not checked


@pytest.mark.parametrize("example", EXAMPLES, ids=os.path.basename)
def test_every_record_draws_its_figure(example):
    pytest.importorskip("matplotlib")
    for record in hpcbench.load(example).benchmarks:
        fig = _registry.get(record.name).plot(record)
        axes = [ax for ax in fig.axes if ax.has_data()]
        assert axes, record.name
        width, height = fig.get_size_inches()
        assert width > 0 and height > 0
