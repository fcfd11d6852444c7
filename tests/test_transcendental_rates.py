"""Transcendentals priced per opcode where the spec measured their rates: the roofline
charges each elementwise op at its own rate, the rest at `transcendentals_per_s`, and
a spec's table names only opcodes it may rate."""

from __future__ import annotations

import dataclasses

import pytest
from specs import cpu_spec

from stablecost.errors import HardwareSpecError
from stablecost.featurize.analysis import analyze
from stablecost.featurize.costs.elementwise import TRANSCENDENTAL_OPS
from stablecost.featurize.ingest import load_program
from stablecost.hardware import get_hardware, parse_spec
from stablecost.hardware.spec import RATED_TRANSCENDENTALS
from stablecost.models.roofline import kernel_time, transcendental_seconds

N = 4096
SINE_THEN_EXP = f"""
func.func @main(%a: tensor<{N}xf32>) -> tensor<{N}xf32> {{
  %0 = stablehlo.sine %a : tensor<{N}xf32>
  %1 = stablehlo.exponential %0 : tensor<{N}xf32>
  return %1 : tensor<{N}xf32>
}}
"""


def _cpu(by_op=None):
    extra = {} if by_op is None else {"transcendentals_per_s_by_op": by_op}
    return parse_spec(cpu_spec(**extra), "test")


def _kernel():
    analysis = analyze(load_program(SINE_THEN_EXP))
    (kernel,) = [k for k in analysis.kernels if k.transcendentals]
    assert kernel.transcendentals == 2 * N     # both ops fused into one loop
    return analysis.program, kernel


def test_each_rated_opcode_is_priced_at_its_own_rate():
    program, kernel = _kernel()
    rated = _cpu({"sine": 1e8})
    # the sine at its 1e8/s, the exponential (not in the table) at the 1e9/s of the rest
    assert transcendental_seconds(kernel, program, rated) == pytest.approx(N / 1e8 + N / 1e9)
    assert transcendental_seconds(kernel, program, _cpu()) == pytest.approx(2 * N / 1e9)
    vector_s = (kernel.flops - kernel.matmul_flops) / 1e10
    assert kernel_time(kernel, program, rated).compute_s == pytest.approx(
        N / 1e8 + N / 1e9 + vector_s)
    both = _cpu({"sine": 1e8, "exponential": 4e9})
    assert transcendental_seconds(kernel, program, both) == pytest.approx(N / 1e8 + N / 4e9)


def test_a_rate_table_names_only_opcodes_it_may_rate():
    with pytest.raises(HardwareSpecError, match=r"\['sinh'\].*allowed: \['exponential'"):
        _cpu({"sinh": 1e9})
    with pytest.raises(HardwareSpecError, match="not positive"):
        _cpu({"sine": 0.0})
    with pytest.raises(HardwareSpecError, match="must be a table"):
        _cpu(3.0)      # type: ignore[arg-type]
    with pytest.raises(HardwareSpecError, match="transcendentals_per_s_by_op"):
        dataclasses.replace(get_hardware("H100-SXM"), transcendentals_per_s_by_op={"x": 1.0})
    # any kind of chip may carry one, and a catalog chip carries none
    assert dataclasses.replace(get_hardware("H100-SXM"), transcendentals_per_s_by_op={
        "atan2": 1e11}).transcendentals_per_s_by_op == {"atan2": 1e11}
    assert get_hardware("H100-SXM").transcendentals_per_s_by_op == {}


def test_the_table_is_read_only_and_kept_by_to_dict():
    hw = _cpu({"power": 2e8})
    with pytest.raises(TypeError, match="read-only"):
        hw.transcendentals_per_s_by_op["sine"] = 1.0   # type: ignore[index]
    assert hw.to_dict()["transcendentals_per_s_by_op"] == {"power": 2e8}


def test_every_rated_opcode_is_a_transcendental_the_featurizer_counts():
    assert set(RATED_TRANSCENDENTALS) <= TRANSCENDENTAL_OPS


COMPLEX_EXP_THEN_LOG = f"""
func.func @main(%a: tensor<{N}xcomplex<f32>>) -> tensor<{N}xcomplex<f32>> {{
  %0 = stablehlo.exponential %a : tensor<{N}xcomplex<f32>>
  %1 = stablehlo.log %0 : tensor<{N}xcomplex<f32>>
  return %1 : tensor<{N}xcomplex<f32>>
}}
"""


def test_a_complex_transcendental_counts_and_costs_the_real_ones_it_expands_to():
    """exp(a+bi) = e^a (cos b + i sin b): an exponential, a cosine and a sine per element;
    log z = log|z| + i atan2(b, a): a log, an atan2 and the square root of |z|."""
    analysis = analyze(load_program(COMPLEX_EXP_THEN_LOG))
    (kernel,) = [k for k in analysis.kernels if k.transcendentals]
    assert kernel.transcendentals == 6 * N
    rates = {"exponential": 4e9, "sine": 1e8, "cosine": 2e8, "log": 3e9, "atan2": 5e7}
    # each rated real op at its own rate; the square root (not rated) at the 1e9/s rest
    assert transcendental_seconds(kernel, analysis.program, _cpu(rates)) == pytest.approx(
        N / 4e9 + N / 2e8 + N / 1e8 + N / 3e9 + N / 5e7 + N / 1e9)
    # without a table all six at the one rate
    assert transcendental_seconds(kernel, analysis.program, _cpu()) == pytest.approx(6 * N / 1e9)


def test_every_complex_expansion_names_opcodes_a_spec_may_rate():
    from stablecost.featurize.costs.opcost import COMPLEX_TRANSCENDENTALS

    assert set(COMPLEX_TRANSCENDENTALS) <= TRANSCENDENTAL_OPS
    for parts in COMPLEX_TRANSCENDENTALS.values():
        assert set(parts) <= set(RATED_TRANSCENDENTALS)
