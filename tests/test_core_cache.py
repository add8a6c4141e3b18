"""The cache sweep's C kernels through hpcbench._core: the pointer chase
over prefixes of one buffer (with its placement read back) and the
read-bandwidth loads. tools/sanitize.sh runs this file against an ASan +
UBSan build of the extension."""
import os

import numpy as np
import pytest

from hpcbench import _core

ISAS = [_core.ISA_SCALAR, _core.ISA_SSE2, _core.ISA_AVX2, _core.ISA_AVX512]


@pytest.mark.parametrize("order", [_core.ORDER_SEQUENTIAL, _core.ORDER_RANDOM, _core.ORDER_WINDOWED])
def test_chase_times_every_size_in_the_order_given(order):
    sizes = [8192, 1024, 65536, 4096]
    ticks, ns, accesses, frames, known, huge = _core.chase_sweep(1 << 20, sizes, 64, order=order,
                                                                 window_bytes=4096, min_accesses=1000, samples=3)
    assert ticks.shape == ns.shape == (4, 3) and np.all(ticks > 0) and np.all(ns > 0)
    # Whole traversals of size / 64 slots, at least 1000 loads.
    assert accesses.tolist() == [-(-1000 // (s // 64)) * (s // 64) for s in sizes]
    assert frames.shape == ((1 << 20) // os.sysconf("SC_PAGE_SIZE"),)
    assert 0 <= known <= frames.size and np.count_nonzero(frames >= 0) == known
    assert huge == -1 or huge >= 0


def test_chase_reads_back_the_frames_where_it_may():
    *_, frames, known, _ = _core.chase_sweep(1 << 20, [4096], 64, page_mode=_core.PAGES_NORMAL)
    if known == 0:
        pytest.skip("frame numbers are hidden from this process (pagemap needs CAP_SYS_ADMIN)")
    assert known == frames.size and len(set(frames.tolist())) == frames.size   # every page its own frame


def test_chase_times_a_long_size_once_and_leaves_the_rest_nan():
    ticks, ns, *_ = _core.chase_sweep(1 << 16, [1024, 1 << 16], 64, samples=3, long_slots=1024)
    assert np.all(np.isfinite(ticks[0])) and np.isfinite(ticks[1, 0]) and np.all(np.isnan(ticks[1, 1:]))


def test_chase_with_one_slot_and_with_a_one_kib_stride():
    ticks, _, accesses, *_ = _core.chase_sweep(1024, [1024], 1024, min_accesses=10, samples=2)
    assert accesses.tolist() == [10] and np.all(ticks > 0)


CHASE_RULES = [
    (dict(buffer_bytes=4096, sizes=[4096], stride_bytes=4), "stride_bytes", "sizeof(void *) (8 bytes), got 4"),
    (dict(buffer_bytes=4000, sizes=[64], stride_bytes=64), "buffer_bytes", "multiple of stride_bytes (64 bytes)"),
    (dict(buffer_bytes=4096, sizes=[8192], stride_bytes=64), "sizes", "at most buffer_bytes (4096), got 8192"),
    (dict(buffer_bytes=4096, sizes=[100], stride_bytes=64), "sizes", "got 100 at index 0"),
    (dict(buffer_bytes=4096, sizes=[], stride_bytes=64), "nsizes", "between 1 and"),
    (dict(buffer_bytes=4096, sizes=[64, -64], stride_bytes=64), "sizes", "must not be negative, got -64 at index 1"),
    (dict(buffer_bytes=4096, sizes=[64], stride_bytes=64, order=7), "order", "got 7"),
    (dict(buffer_bytes=4096, sizes=[64], stride_bytes=64, samples=0), "samples", "between 1 and"),
    (dict(buffer_bytes=4096, sizes=[64], stride_bytes=64, warmup=5000), "warmup", "at most 1000"),
    (dict(buffer_bytes=4096, sizes=[64], stride_bytes=64, page_mode=5), "page_mode", "got 5"),
    (dict(buffer_bytes=4096, sizes=[64], stride_bytes=64, order=2, window_bytes=100), "window_bytes", "got 100"),
    (dict(buffer_bytes=1 << 41, sizes=[64], stride_bytes=64), "buffer_bytes", "between 1 and 1099511627776 bytes"),
]


@pytest.mark.parametrize("kwargs,parameter,rule", CHASE_RULES)
def test_chase_refuses_bad_parameters(kwargs, parameter, rule):
    for call in (_core.chase_sweep, _core.chase_check):      # the kernel and its check say the same
        with pytest.raises(_core.ParameterError) as err:
            call(**kwargs)
        assert err.value.parameter == parameter and rule in err.value.rule, str(err.value)


def test_loads_give_bytes_per_sample_and_the_isa_used():
    sizes = [4096, 65536, 1024]
    ns, ticks, read, isa = _core.load_sweep(1 << 20, sizes, min_bytes=1 << 20, samples=2)
    assert ns.shape == ticks.shape == (3, 2) and np.all(ns > 0) and np.all(ticks > 0)
    assert read.tolist() == [float(-(-(1 << 20) // s) * s) for s in sizes]   # whole passes
    assert isa in ISAS and _core.load_supported(isa)


@pytest.mark.parametrize("isa", ISAS)
def test_every_supported_isa_reads_the_same_sums(isa):
    # The kernel checks its sums after every sample against a scalar pass:
    # a loop that skipped or repeated a load would fail with an error here.
    if not _core.load_supported(isa):
        pytest.skip("this CPU lacks it")
    ns, _, read, used = _core.load_sweep(1 << 16, [64, 128, 192, 4096, 4160, 65536], min_bytes=100000, samples=1,
                                         isa=isa, page_mode=_core.PAGES_NORMAL)
    assert used == isa and np.all(ns > 0)


LOAD_RULES = [
    (dict(buffer_bytes=100, sizes=[64]), "buffer_bytes", "multiple of 64 bytes, got 100"),
    (dict(buffer_bytes=4096, sizes=[96]), "sizes", "got 96 at index 0"),
    (dict(buffer_bytes=4096, sizes=[8192]), "sizes", "at most buffer_bytes (4096)"),
    (dict(buffer_bytes=4096, sizes=[64], min_bytes=0), "min_bytes", "between 1 and"),
    (dict(buffer_bytes=4096, sizes=[64], samples=0), "samples", "between 1 and"),
    (dict(buffer_bytes=4096, sizes=[64], isa=9), "isa", "got 9"),
]


@pytest.mark.parametrize("kwargs,parameter,rule", LOAD_RULES)
def test_loads_refuse_bad_parameters(kwargs, parameter, rule):
    for call in (_core.load_sweep, _core.load_check):
        with pytest.raises(_core.ParameterError) as err:
            call(**kwargs)
        assert err.value.parameter == parameter and rule in err.value.rule, str(err.value)


def test_an_isa_this_cpu_lacks_is_refused():
    missing = [isa for isa in ISAS if not _core.load_supported(isa)]
    if not missing:
        pytest.skip("this CPU has every instruction set the kernel knows")
    with pytest.raises(_core.ParameterError, match="must be one this CPU supports"):
        _core.load_check(4096, [64], isa=missing[0])


def test_chase_and_load_name_themselves_in_type_errors():
    for name in ("chase_sweep", "chase_check", "load_sweep", "load_check", "load_supported"):
        with pytest.raises(TypeError, match=rf"^{name}\(\)"):
            getattr(_core, name)()
