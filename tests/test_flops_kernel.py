"""The FMA-chain kernel (hpcbench._core.flops_team): flop counting, its
check after timing (a planted fault is caught), its rules. Structure only:
no measured rate is asserted."""
import numpy as np
import pytest

from hpcbench import _core
from hpcbench.flops._isa import cpu_isas, isa_code

LANES = {"scalar": 1, "sse2": 2, "avx2": 4, "avx512": 8}


@pytest.mark.parametrize("isa", cpu_isas())
@pytest.mark.parametrize("precision", ["double", "single"])
def test_flops_are_two_per_lane_per_step_of_every_chain(isa, precision):
    code = _core.FLOPS_SINGLE if precision == "single" else _core.FLOPS_DOUBLE
    lanes = LANES[isa] * (2 if precision == "single" and isa != "scalar" else 1)
    ns, start, end, used, scalar_fma, flops = _core.flops_team([0], 1000, 2, warmup=0, chains=8,
                                                               isa=isa_code(isa), precision=code)
    assert used == isa_code(isa) and flops == 2 * lanes * 8 * 1000
    assert ns.shape == start.shape == end.shape == (1, 2)
    assert np.all(ns > 0) and np.allclose(end - start, ns)
    assert scalar_fma in (0, 1)


def test_auto_picks_the_widest_the_cpu_runs():
    *_, used, _, _ = _core.flops_team([0], 100, 1, warmup=0)
    assert used == isa_code(cpu_isas()[0])


@pytest.mark.parametrize("precision", [_core.FLOPS_DOUBLE, _core.FLOPS_SINGLE])
@pytest.mark.parametrize("isa", cpu_isas())
def test_a_short_sample_fails_the_check(isa, precision):
    # Member 0 runs one step fewer in its last sample: the chains' values no
    # longer match the replay of the steps asked for.
    with pytest.raises(RuntimeError, match="check"):
        _core.flops_team([0], 3000, 2, warmup=0, isa=isa_code(isa), precision=precision,
                         fault=_core.FLOPS_FAULT_SHORT)


def test_a_team_of_every_pu_keeps_one_row_per_member():
    pus = sorted(int(p) for p in range(2))[: max(1, min(2, len(cpu_isas())))]
    ns, start, end, *_ = _core.flops_team(pus, 500, 3, warmup=0)
    assert ns.shape == (len(pus), 3) and np.all(start >= 0)


@pytest.mark.parametrize("kwargs, field", [
    ({"iterations": 1, "samples": 1}, "iterations"),
    ({"iterations": 10, "samples": 0}, "samples"),
    ({"iterations": 10, "samples": 1, "chains": 7}, "chains"),
    ({"iterations": 10, "samples": 1, "warmup": 1001}, "warmup"),
    ({"iterations": 10, "samples": 1, "precision": 5}, "precision"),
    ({"iterations": 10, "samples": 1, "isa": 9}, "isa"),
])
def test_rules_name_the_field(kwargs, field):
    with pytest.raises(_core.ParameterError) as e:
        _core.flops_check(**kwargs)
    assert e.value.parameter == field


def test_an_isa_the_cpu_lacks_is_refused_by_the_check():
    missing = [n for n in ("avx512", "avx2") if n not in cpu_isas()]
    if not missing:
        pytest.skip("this CPU runs every ISA")
    with pytest.raises(_core.ParameterError, match="supports"):
        _core.flops_check(10, 1, isa=isa_code(missing[0]))
