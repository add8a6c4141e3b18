"""The bandwidth benchmark's pure parts, with known answers: bytes counted
as likwid-bench counts them (hand-computed) with the write-allocate traffic
beside them, the working sets per level on hwloc synthetic topologies, the
ISA choice against a fake set of supported ISAs, and the aggregate of
synthetic start and end times."""
import numpy as np
import pytest

from hpcbench import _core
from hpcbench._errors import OptionError
from hpcbench.bandwidth import KERNELS, aggregate_bandwidth, data_volume, level_sizes, write_allocate
from hpcbench.bandwidth._analysis import summarize_run, table
from hpcbench.bandwidth._kernels import choose_isas, choose_kernels, runs_on, supported_isas
from hpcbench.bandwidth._measure import KernelRun
from hpcbench.bandwidth._plan import default_team, memory_size
from hpcbench.topology import Topology

KIB, MIB = 1 << 10, 1 << 20


@pytest.mark.parametrize("name, volume, allocate", [
    # per pass over arrays of 1 MiB: (bytes loaded + stored, write-allocate bytes)
    ("load", 1, 0), ("store", 1, 1), ("copy", 2, 1), ("update", 2, 0), ("triad", 4, 1), ("stream_triad", 3, 1),
    ("store_nt", 1, 0), ("copy_nt", 2, 0), ("triad_nt", 4, 0), ("stream_triad_nt", 3, 0)])
def test_bytes_are_counted_as_likwid_counts_them(name, volume, allocate):
    k = KERNELS[name]
    assert data_volume(k, MIB) == volume * MIB
    assert data_volume(k, MIB, passes=3) == 3 * volume * MIB
    assert write_allocate(k, MIB, passes=3) == 3 * allocate * MIB


def test_streams_are_the_c_kernels_arrays():
    for k in KERNELS.values():
        assert k.streams == _core.bandwidth_streams(k.code)
    assert [KERNELS[n].streams for n in ("load", "store", "copy", "update", "triad", "stream_triad")] == \
        [1, 1, 2, 1, 4, 3]
    assert _core.bandwidth_streams(99) == 0


def test_the_likwid_names_of_the_kernels():
    assert KERNELS["stream_triad_nt"].likwid == "stream_mem" and KERNELS["triad"].likwid == "triad"
    assert KERNELS["store_nt"].likwid == "store_mem"


SYNTH = "pack:2 l3:1(size=32MiB) l2:4(size=1MiB) l1d:1(size=48KiB) core:1 pu:2"


def test_level_sizes_are_half_of_each_level_and_memory_four_last_levels():
    topo = Topology.from_synthetic(SYNTH)
    levels = level_sizes(topo, 0)
    assert [(lv.label, lv.size) for lv in levels] == [("L1", 24 * KIB), ("L2", 512 * KIB), ("L3", 16 * MIB),
                                                      ("memory", 128 * MIB)]
    # The team spans both packages: each package's L3 counts once.
    assert memory_size(topo, topo.pu_indexes) == 4 * 64 * MIB
    assert memory_size(topo, [0, 1, 2]) == 4 * 32 * MIB


def test_a_level_hardly_larger_than_the_one_below_gets_the_middle():
    topo = Topology.from_synthetic("pack:1 l2:1(size=96KiB) l1d:1(size=64KiB) core:1 pu:1")
    assert [(lv.label, lv.size) for lv in level_sizes(topo, 0)] == [("L1", 32 * KIB), ("L2", 80 * KIB),
                                                                    ("memory", 1 * MIB)]


def test_without_caches_memory_is_64_mib():
    topo = Topology.from_synthetic("pack:1 core:2 pu:1")
    assert [(lv.label, lv.size) for lv in level_sizes(topo, 0)] == [("memory", 64 * MIB)]


def test_the_default_team_is_one_pu_per_core():
    topo = Topology.from_synthetic(SYNTH)
    assert default_team(topo, None) == list(range(0, 16, 2))
    assert default_team(topo, [3, 5]) == [3, 5]


FAKE = {_core.ISA_SCALAR: True, _core.ISA_SSE2: True, _core.ISA_AVX2: True, _core.ISA_AVX512: False}


def test_isa_choice_with_a_fake_supported_set():
    def supported(code):
        return FAKE[code]
    assert supported_isas(supported) == ["scalar", "sse2", "avx2"]
    assert choose_isas(None, everything=True, supported=supported) == ["avx2", "sse2", "scalar"]
    assert choose_isas(None, everything=False, supported=supported) == ["avx2"]
    assert choose_isas(["auto", "sse2", "avx2"], everything=True, supported=supported) == ["avx2", "sse2"]
    with pytest.raises(OptionError, match=r"isas must be instruction sets this CPU has \(avx2, sse2, scalar\), "
                                          r"got avx512"):
        choose_isas(["avx512"], everything=True, supported=supported)
    with pytest.raises(OptionError, match="got 'avx3'"):
        choose_isas(["avx3"], everything=True, supported=supported)


def test_kernel_choice():
    assert [k.name for k in choose_kernels(None, everything=False)] == ["load", "store", "copy", "triad"]
    assert len(choose_kernels(None, everything=True)) == 10
    assert [k.name for k in choose_kernels(["triad", "load"], everything=True)] == ["load", "triad"]
    with pytest.raises(OptionError, match="kernels must name kernels of"):
        choose_kernels(["sum"], everything=True)
    assert not runs_on(KERNELS["copy_nt"], "scalar") and runs_on(KERNELS["copy"], "scalar")


def test_the_aggregate_is_all_bytes_over_the_common_span():
    # Two members, two samples: 1000 bytes each; spans 100 ns and 200 ns.
    start = np.array([[0.0, 1000.0], [10.0, 1000.0]])
    end = np.array([[90.0, 1150.0], [100.0, 1200.0]])
    assert aggregate_bandwidth(1000.0, start, end) == pytest.approx([2000 / 100e-9, 2000 / 200e-9])


def test_summarize_a_synthetic_run():
    k = KERNELS["copy"]
    # One member, one size, three samples of 2 MiB data volume in 100, 200 and 400 us.
    run = KernelRun(kernel=k, isa="sse2", pus=[0], array_bytes=[MIB], bytes_per_sample=[2.0 * MIB],
                    start_ns=np.zeros((1, 1, 3)), end_ns=np.array([[[1e5, 2e5, 4e5]]]))
    samples, results = summarize_run(run, ["L2"])
    r = results[0]
    assert r.bandwidth == pytest.approx(2 * MIB / 2e-4) and r.best == pytest.approx(2 * MIB / 1e-4)
    assert r.write_allocate == pytest.approx(r.bandwidth / 2)     # one array read again per two counted
    assert (r.working_set, r.cores, r.level, r.isa) == (2 * MIB, 1, "L2", "sse2")
    assert samples[0].bytes_per_sample == 2.0 * MIB
    columns, rows = table(results)
    assert columns == [("L2", 1)] and rows == {("copy", "sse2"): {("L2", 1): r.bandwidth}}


def _result(kernel, level, bandwidth, best=None, cores=1, isa="avx2"):
    from hpcbench.bandwidth._records import KernelBandwidth
    return KernelBandwidth(kernel=kernel, isa=isa, nontemporal=False, level=level, cores=cores, working_set=1024,
                           array_bytes=1024, bandwidth=bandwidth, best=best or bandwidth, write_allocate=0.0)


def test_a_wide_spread_of_samples_is_one_warning():
    from hpcbench.bandwidth._analysis import spread_warning
    assert spread_warning([_result("load", "L1", 100.0, 150.0)]) is None
    text = spread_warning([_result("load", "L1", 100.0, 250.0), _result("copy", "memory", 10.0, 30.0, cores=2)])
    assert "2 result(s)" in text and "load (avx2) L1" in text and "copy (avx2) memory x2" in text


def test_loads_faster_in_a_deeper_level_disagree():
    from hpcbench.bandwidth._records import (
        BandwidthDerived,
        BandwidthParameters,
        BandwidthRaw,
        BandwidthRecord,
        LevelRecord,
    )
    from hpcbench.bandwidth._report import bandwidth_disagreements, bandwidth_headlines
    results = [_result("load", "L1", 100e9), _result("load", "L2", 130e9), _result("load", "memory", 20e9),
               _result("store", "L1", 50e9), _result("store", "L2", 90e9), _result("load", "memory", 30e9, cores=2)]
    params = BandwidthParameters(kernels=["load", "store"], isas=["avx2"], levels=[LevelRecord(label="L1", size=1024)],
                                 pu=0, team=[0, 1], team_size=1024, samples=1, min_bytes=1, warmup=1, pages="normal",
                                 counting="")
    rec = BandwidthRecord(name="bandwidth", parameters=params, raw=BandwidthRaw(runs=[]),
                          derived=BandwidthDerived(results=results))
    lines = bandwidth_disagreements(rec)
    assert len(lines) == 1 and lines[0].startswith("load (avx2) is faster in L2 (130.0 GB/s) than in L1")
    labels = [h.label for h in bandwidth_headlines(rec)]
    assert labels == ["load L1", "load L2", "load memory", "store L1", "store L2", "load memory, 2 cores"]
