"""Feature-grouped convolutions on XLA:CPU: their work in depthwise units, the calibrated
rate a spec may carry, and the floor that rate puts under the learned price."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from specs import cpu_spec

from stablecost.errors import HardwareSpecError
from stablecost.featurize.analysis import analyze
from stablecost.featurize.conv_lowering import grouped_units
from stablecost.featurize.fusion import MATMUL
from stablecost.featurize.ingest import load_program
from stablecost.hardware import get_hardware, parse_spec
from stablecost.models.roofline import (
    GROUPED_FLOOR_SHARE,
    grouped_convolution_floor_s,
    kernel_time,
)

DN = ("NHWC", "HWIO", "NHWC")


def _text(n, side, channels, groups, window, cout=None):
    import jax
    import jax.numpy as jnp
    from jax import lax

    cout = channels if cout is None else cout

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=DN,
                                        feature_group_count=groups)
    shapes = ((n, side, side, channels), (*window, channels // groups, cout))
    return jax.jit(conv).lower(*(jnp.zeros(s, jnp.float32) for s in shapes)).as_text()


def _convolution(text):
    (op,) = [op for op in load_program(text).ops if op.opcode == "convolution"]
    return op


def test_a_depthwise_3x3_convolution_is_one_unit_per_group_and_output_pixel():
    assert grouped_units(_convolution(_text(2, 8, 4, 4, (3, 3)))) == pytest.approx(
        4 * 2 * 8 * 8)


def test_units_grow_with_the_window_and_the_channels_per_group():
    pixels = 2 * 8 * 8
    # (33 + 7) / (33 + 9) of a 3x3 window's cost per group and pixel
    assert grouped_units(_convolution(_text(2, 8, 4, 4, (1, 7)))) == pytest.approx(
        4 * pixels * 40 / 42)
    # two input channels per group: half a 1-channel group's cost more
    assert grouped_units(_convolution(_text(2, 8, 4, 2, (3, 3)))) == pytest.approx(
        2 * pixels * 1.5)


def test_ungrouped_and_non_convolution_ops_have_no_units():
    assert grouped_units(_convolution(_text(2, 8, 4, 1, (3, 3)))) == 0.0
    other = [op for op in load_program(_text(2, 8, 4, 4, (3, 3))).ops
             if op.opcode != "convolution"]
    assert all(grouped_units(op) == 0.0 for op in other)


def _cpu(rate=None):
    extra = {} if rate is None else {"grouped_convolution_units_per_s": rate}
    return parse_spec(cpu_spec(**extra), "test")


def test_only_a_cpu_spec_may_carry_a_positive_grouped_rate():
    assert _cpu(4e7).grouped_convolution_units_per_s == 4e7
    assert _cpu().grouped_convolution_units_per_s is None
    with pytest.raises(HardwareSpecError, match="grouped_convolution_units_per_s"):
        _cpu(0.0)
    with pytest.raises(HardwareSpecError, match="grouped_convolution_units_per_s"):
        dataclasses.replace(get_hardware("H100-SXM"), grouped_convolution_units_per_s=4e7)


def _kernel(text):
    analysis = analyze(load_program(text))
    (kernel,) = [k for k in analysis.kernels if k.kind == MATMUL]
    return analysis, kernel


def test_the_floor_is_a_share_of_the_calibrated_time_and_leaves_the_roofline_alone():
    analysis, kernel = _kernel(_text(4, 64, 8, 8, (1, 7)))
    units = 8 * 4 * 64 * 64 * 40 / 42
    with_rate, without = _cpu(4e7), _cpu()
    assert grouped_convolution_floor_s(kernel, analysis.program, with_rate) == \
        pytest.approx(GROUPED_FLOOR_SHARE * units / 4e7)
    assert grouped_convolution_floor_s(kernel, analysis.program, without) == 0.0
    assert grouped_convolution_floor_s(kernel, analysis.program,
                                       get_hardware("H100-SXM")) == 0.0
    assert kernel_time(kernel, analysis.program, with_rate) == \
        kernel_time(kernel, analysis.program, without)


def test_the_learned_price_of_a_depthwise_convolution_does_not_go_under_the_floor():
    from stablecost.models.learned import load_models, predict_kernels

    bundle = load_models("host-cpu")
    assert bundle is not None and bundle.spec is not None
    models = dataclasses.replace(bundle, spec=None)    # price with the spec given
    analysis, kernel = _kernel(_text(4, 128, 3, 3, (1, 7)))
    index = analysis.kernels.index(kernel)
    plain = predict_kernels(models, analysis, bundle.spec)
    # a rate slow enough that the floor is over the kernel model's answer
    floor_rate = GROUPED_FLOOR_SHARE * grouped_units(_convolution(
        _text(4, 128, 3, 3, (1, 7)))) / (10 * plain.time_s[index])
    hw = dataclasses.replace(bundle.spec, grouped_convolution_units_per_s=floor_rate)
    raised = predict_kernels(models, analysis, hw)
    assert raised.time_s[index] == pytest.approx(10 * plain.time_s[index])
    assert raised.low_s[index] <= raised.time_s[index] <= raised.high_s[index]
    assert raised.step_s > plain.step_s
    assert "raised to 50% of" in raised.note and "raised to" not in plain.note
    # a fast machine: the floor stays under the answer and changes nothing
    fast = dataclasses.replace(bundle.spec, grouped_convolution_units_per_s=floor_rate * 1e3)
    unchanged = predict_kernels(models, analysis, fast)
    assert np.allclose(unchanged.time_s, plain.time_s) and unchanged.step_s == plain.step_s
