"""The GPU kernel model's power prior (models/power_prior.py): which kernels it applies
to, the curve it fits, and how it reaches a learned prediction."""

from __future__ import annotations

import math

import numpy as np
import pytest

import stablecost
from stablecost.errors import HardwareSpecError, ModelError
from stablecost.hardware import get_hardware
from stablecost.models import learned
from stablecost.models.power_prior import (
    PowerPrior,
    fit_power_prior,
    tensor_tflops_per_watt,
)
from stablecost.models.roofline import KernelTime


def _dot(dtype: str, precision: str = "", n: int = 512) -> str:
    t = f"tensor<{n}x{n}x{dtype}>"
    attr = f", precision = [{precision}, {precision}]" if precision else ""
    return f"""
func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]{attr} : ({t}, {t}) -> {t}
  %1 = stablehlo.exponential %0 : {t}
  %2 = stablehlo.add %1, %a : {t}
  return %2 : {t}
}}"""


def _per_watt(text: str, chip: str) -> list[float]:
    analysis = stablecost.analyze(text)
    hw = learned.bundled_hardware(chip) if chip == "host-cpu" else get_hardware(chip)
    assert hw is not None
    return [tensor_tflops_per_watt(k, analysis.program, hw) for k in analysis.kernels]


def test_tensor_flops_per_watt_follows_the_dtype_the_tensor_units_run():
    # H100 SXM: 989 TFLOP/s dense bf16, 700 W; the dot's kernel carries it, the
    # elementwise kernel after it has none
    bf16 = [x for x in _per_watt(_dot("bf16"), "H100-SXM") if not math.isnan(x)]
    assert bf16 == [pytest.approx(989e12 / 1e12 / 700, rel=0.01)]
    # f32 at DEFAULT runs as TF32 on Hopper (half the bf16 rate)
    tf32 = [x for x in _per_watt(_dot("f32"), "H100-SXM") if not math.isnan(x)]
    assert tf32 == [pytest.approx(bf16[0] / 2, rel=0.01)]
    # f32 at HIGHEST, f32 on a chip without TF32, a TPU without a board power, a CPU:
    # no tensor-unit prior anywhere
    for text, chip in ((_dot("f32", "HIGHEST"), "H100-SXM"), (_dot("f32"), "V100-PCIe-32GB"),
                       (_dot("bf16"), "TPU-v5p"), (_dot("bf16"), "host-cpu")):
        assert all(math.isnan(x) for x in _per_watt(text, chip)), chip


def test_the_curve_is_flat_to_the_knee_and_falls_as_a_power_above_it():
    prior = PowerPrior(e_max=0.8, knee=1.5, alpha=0.5)
    eff = prior.efficiency(np.array([0.5, 1.5, 6.0, math.nan]))
    assert eff == pytest.approx([0.8, 0.8, 0.8 * 4 ** -0.5, 1.0])
    # only the compute term is divided: a memory-bound kernel keeps its roofline time
    times = [KernelTime(1e-3 + 1e-6, 1e-3, 1e-4, 1e-6, "compute"),
             KernelTime(1e-3 + 1e-6, 1e-5, 1e-3, 1e-6, "memory")]
    base = prior.baseline_s(times, np.array([6.0, 6.0]))
    assert base == pytest.approx([1e-3 / 0.4 + 1e-6, 1e-3 + 1e-6])


def test_the_fit_recovers_a_curve_from_the_largest_gemms_of_each_chip():
    truth = PowerPrior(e_max=0.79, knee=1.45, alpha=0.4)
    rng = np.random.default_rng(0)
    x, ratio, size = [], [], []
    for per_watt in (0.78, 1.41, 2.25, 2.83, 4.5):
        roofline = rng.uniform(1e-6, 1e-3, 400)
        small = roofline < np.quantile(roofline, 0.75)
        # small GEMMs run far from peak; the largest at the curve's efficiency
        r = np.where(small, 3.0, 1.0 / truth.efficiency(np.array([per_watt]))[0])
        x += [per_watt] * 400
        ratio += list(r * rng.lognormal(0.0, 0.01, 400))
        size += list(roofline)
    fitted = fit_power_prior(np.array(x), np.array(ratio), np.array(size))
    assert fitted is not None
    for per_watt in (0.78, 2.25, 4.5):
        assert fitted.efficiency(np.array([per_watt]))[0] == pytest.approx(
            truth.efficiency(np.array([per_watt]))[0], rel=0.05)
    # two chips are too few to place a knee
    assert fit_power_prior(np.array([1.0, 2.0]), np.ones(2), np.ones(2)) is None


def test_a_damaged_prior_or_board_power_is_refused_in_one_line():
    for bad in ({"e_max": 0.8, "knee": 1.5}, {"e_max": -1, "knee": 1.5, "alpha": 0.4},
                {"e_max": 0.8, "knee": 1.5, "alpha": math.inf}, "0.8"):
        with pytest.raises(ModelError, match="power_prior"):
            PowerPrior.from_dict(bad)
    import dataclasses

    with pytest.raises(HardwareSpecError, match="board_power_w"):
        dataclasses.replace(get_hardware("H100-SXM"), board_power_w=-700.0)


def test_the_bundled_gpu_model_prices_through_its_prior():
    models = learned.models_for(get_hardware("B200"))
    assert models is not None and models.power_prior is not None
    prior = models.power_prior
    # the prior the bundle fitted says B200 fp8 (4.5 TFLOP/s per W) sustains a smaller
    # share of its peak than A100 bf16 (0.78)
    low, high = prior.efficiency(np.array([0.78, 4.5]))
    assert high < low <= 1.0
    # and the learned time of a large bf16 GEMM on B200 is what the kernel model gives
    # against the prior's baseline, not against the plain roofline
    analysis = stablecost.analyze(_dot("bf16", n=4096))
    hw = get_hardware("B200")
    out = learned.predict_kernels(models, analysis, hw)
    dot = next(i for i, k in enumerate(analysis.kernels) if k.matmul_flops)
    from stablecost.models.features import kernel_features
    from stablecost.models.roofline import kernel_time

    kernel = analysis.kernels[dot]
    X = kernel_features(kernel, analysis.program, hw)[None, :]
    rl = kernel_time(kernel, analysis.program, hw)
    base = prior.baseline_s([rl], np.array([tensor_tflops_per_watt(
        kernel, analysis.program, hw)]))
    assert out.time_s[dot] == pytest.approx(models.kernel.predict(X, base)[0], rel=1e-6)
    assert out.time_s[dot] != pytest.approx(models.kernel.predict(X, np.array([rl.time_s]))[0],
                                            rel=1e-3)
