"""Convolutions XLA:CPU runs as its own loop nest: the operand-swap rule read from
StableHLO, their multiply-adds, the roofline at a measured loop rate, and the learned
fidelity falling back to that roofline where its data has no such kernel."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from specs import cpu_spec

from stablecost.errors import HardwareSpecError
from stablecost.featurize.analysis import analyze
from stablecost.featurize.conv_lowering import (
    multiply_adds,
    operands_swapped,
    runs_as_loop_on_cpu,
)
from stablecost.featurize.fusion import MATMUL
from stablecost.featurize.ingest import load_program
from stablecost.hardware import get_hardware, parse_spec
from stablecost.models.coverage import (
    LOOP_CONVOLUTION,
    LOOP_NEST_CONVOLUTION,
    cpu_kernel_kinds,
    with_roofline_fallback,
)
from stablecost.models.roofline import kernel_time

DN = ("NHWC", "HWIO", "NHWC")
N, SIDE, CIN, COUT, K = 2, 8, 4, 3, 4


def _lowered(fn, *shapes):
    import jax
    import jax.numpy as jnp

    return jax.jit(fn).lower(*(jnp.zeros(s, jnp.float32) for s in shapes)).as_text()


def _transposed(x, w):
    from jax import lax

    return lax.conv_transpose(x, w, (2, 2), "VALID", dimension_numbers=DN)


def _filter_gradient_text() -> str:
    """The filter gradient of a stride-2 transposed convolution, as a decoder's training
    step runs it: its window (the output gradient, 2*SIDE+2 square) is larger than the
    input it slides over (SIDE square). VALID, so that no tap falls outside the output."""
    import jax
    import jax.numpy as jnp

    w_struct = jax.ShapeDtypeStruct((K, K, CIN, COUT), jnp.float32)

    def filter_gradient(x, dy):
        (dw,) = jax.linear_transpose(lambda w: _transposed(x, w), w_struct)(dy)
        return dw
    side = 2 * SIDE + 2
    return _lowered(filter_gradient, (N, SIDE, SIDE, CIN), (N, side, side, COUT))


def _convolutions(text: str):
    program = load_program(text)
    return [op for op in program.ops if op.opcode == "convolution"]


def test_the_transposed_convolutions_filter_gradient_swaps_operands():
    (conv,) = _convolutions(_filter_gradient_text())
    assert operands_swapped(conv) and runs_as_loop_on_cpu(conv)
    # every input pixel meets every kernel tap once
    assert multiply_adds(conv) == N * SIDE * SIDE * CIN * COUT * K * K


def test_library_convolutions_stay_on_the_library_path():
    import jax
    import jax.numpy as jnp
    from jax import lax

    x, w = (N, SIDE, SIDE, CIN), (3, 3, CIN, COUT)

    def plain(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=DN)

    def strided(x, w):
        return lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=DN)

    x_struct = jax.ShapeDtypeStruct(x, jnp.float32)
    w_struct = jax.ShapeDtypeStruct(w, jnp.float32)

    def strided_data_gradient(w, dy):
        return jax.linear_transpose(lambda x: strided(x, w), x_struct)(dy)[0]

    def filter_gradient(x, dy):   # window = the output gradient, as large as the input
        return jax.linear_transpose(lambda w: plain(x, w), w_struct)(dy)[0]

    texts = [_lowered(plain, x, w), _lowered(_transposed, x, (K, K, CIN, COUT)),
             _lowered(strided_data_gradient, w, (N, SIDE // 2, SIDE // 2, COUT)),
             _lowered(filter_gradient, x, (N, SIDE, SIDE, COUT))]
    for text in texts:
        for conv in _convolutions(text):
            assert not operands_swapped(conv) and not runs_as_loop_on_cpu(conv), text


def test_grouped_convolutions_are_never_swapped():
    from jax import lax

    def grouped(x, dy):   # a depthwise filter gradient: window = the whole image
        return lax.conv_general_dilated(x, dy, (1, 1), "VALID", dimension_numbers=(
            "CHWN", "HWIO", "CHWN"), feature_group_count=CIN)
    (conv,) = _convolutions(_lowered(grouped, (CIN, SIDE, SIDE, 1), (SIDE, SIDE, 1, CIN)))
    assert not operands_swapped(conv)


def test_reversed_windows_and_four_spatial_dims_run_as_loops():
    from jax import lax

    def plain(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=DN)
    text = _lowered(plain, (N, SIDE, SIDE, CIN), (3, 3, CIN, COUT))
    assert "reverse = [false, false]" in text
    (reversed_conv,) = _convolutions(text.replace("reverse = [false, false]",
                                                  "reverse = [true, false]"))
    assert runs_as_loop_on_cpu(reversed_conv)

    def four_d(x, w):
        return lax.conv_general_dilated(x, w, (1, 1, 1, 1), "SAME", dimension_numbers=(
            "NHWXYC", "HWXYIO", "NHWXYC"))
    (conv,) = _convolutions(_lowered(four_d, (1, 4, 4, 1, 1, 2), (3, 3, 1, 1, 2, 2)))
    assert runs_as_loop_on_cpu(conv)


def _cpu(loop_rate: float | None = None):
    extra = {} if loop_rate is None else {"loop_convolution_macs_per_s": loop_rate}
    return parse_spec(cpu_spec(**extra), "test")


def _conv_kernel(text: str):
    analysis = analyze(load_program(text))
    (kernel,) = [k for k in analysis.kernels if k.kind == MATMUL]
    return analysis, kernel


def test_the_roofline_prices_loop_convolutions_at_the_measured_rate():
    analysis, kernel = _conv_kernel(_filter_gradient_text())
    macs = N * SIDE * SIDE * CIN * COUT * K * K
    with_rate = kernel_time(kernel, analysis.program, _cpu(1e9))
    without = kernel_time(kernel, analysis.program, _cpu())
    vector_s = (kernel.flops - kernel.matmul_flops) / 1e10
    assert with_rate.compute_s == pytest.approx(macs / 1e9 + vector_s)
    assert without.compute_s == pytest.approx(kernel.matmul_flops / 1e11 + vector_s)
    assert list(cpu_kernel_kinds(analysis.kernels, analysis.program)) == [
        LOOP_NEST_CONVOLUTION if k is kernel else 0 for k in analysis.kernels]


def test_only_a_cpu_spec_may_carry_a_loop_rate():
    with pytest.raises(HardwareSpecError, match="loop_convolution_macs_per_s"):
        dataclasses.replace(get_hardware("H100-SXM"), loop_convolution_macs_per_s=1e9)
    with pytest.raises(HardwareSpecError, match="loop_convolution_macs_per_s"):
        _cpu(-1.0)


def test_with_roofline_fallback_replaces_only_uncovered_rows():
    predicted, roofline = np.array([1.0, 2.0]), np.array([10.0, 20.0])
    loop = np.array([0, LOOP_NEST_CONVOLUTION])
    assert list(with_roofline_fallback(predicted, roofline, loop, _cpu(1e9), {})) == [1, 20]
    # no measured loop rate, or a model whose data held loop convolutions: unchanged
    assert list(with_roofline_fallback(predicted, roofline, loop, _cpu(), {})) == [1, 2]
    assert list(with_roofline_fallback(predicted, roofline, loop, _cpu(1e9),
                                       {"loop_convolution_kernels": 35})) == [1, 2]


def test_the_learned_fidelity_falls_back_on_loop_convolutions():
    from stablecost.models.learned import load_models, predict_kernels

    bundle = load_models("host-cpu")
    assert bundle is not None and bundle.spec is not None
    models = dataclasses.replace(bundle, spec=None)   # price with the spec given
    analysis, kernel = _conv_kernel(_filter_gradient_text())
    index = analysis.kernels.index(kernel)
    hw = dataclasses.replace(bundle.spec, loop_convolution_macs_per_s=1.5e9)
    result = predict_kernels(models, analysis, hw)
    assert result.fallback is not None and result.fallback[index]
    assert LOOP_CONVOLUTION in result.note
    rl = kernel_time(kernel, analysis.program, hw).time_s
    assert result.time_s[index] == pytest.approx(rl)
    plain = predict_kernels(models, analysis, bundle.spec)
    assert plain.fallback is None and LOOP_CONVOLUTION not in plain.note


def _decoder_step_text() -> str:
    """An SGD step of a three-layer transposed-convolution decoder (14 kernels, three of
    them filter gradients XLA:CPU runs as loop nests)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def loss(params, z):
        h = z
        for w in params:
            h = jax.nn.relu(lax.conv_transpose(h, w, (2, 2), "SAME", dimension_numbers=DN))
        return jnp.mean(jnp.square(h))

    def step(params, z):
        grads = jax.grad(loss)(params, z)
        return [p - 0.01 * g for p, g in zip(params, grads)]
    params = [jnp.zeros((4, 4, 16, 8)), jnp.zeros((4, 4, 8, 4)), jnp.zeros((4, 4, 4, 4))]
    return jax.jit(step).lower(params, jnp.zeros((8, 8, 8, 16))).as_text()


def test_roofline_priced_kernels_join_the_step_outside_the_calibration():
    from stablecost.models.learned import load_models, predict_kernels
    from stablecost.models.step_calibration import kernel_groups

    bundle = load_models("host-cpu")
    assert bundle is not None and bundle.spec is not None and bundle.calibration is not None
    models = dataclasses.replace(bundle, spec=None)
    analysis = analyze(load_program(_decoder_step_text()))
    hw = dataclasses.replace(bundle.spec, loop_convolution_macs_per_s=1.5e9)
    result = predict_kernels(models, analysis, hw)
    chosen = [i for i, k in enumerate(analysis.kernels) if k.priced]
    outside = result.fallback[chosen]
    assert outside.sum() == 3
    # the filter gradients carry most of the kernel time: the GNN, which learned from
    # the kernel model's answers, stays out, and the notes say why
    assert result.gnn_s is None and result.step_source == "step_calibration"
    assert "do not cover" in result.note or "does not cover" in result.note
    from stablecost.models.features import program_features

    X = program_features([analysis.kernels[i] for i in chosen], analysis.program, hw)
    counts = np.array([analysis.kernels[i].count for i in chosen])
    covered = bundle.calibration.step_s(kernel_groups(X), result.time_s[chosen],
                                        np.where(outside, 0.0, counts))
    assert result.calibrated_s == pytest.approx(
        covered + float(np.dot(counts[outside], result.time_s[chosen][outside])))
    # without a measured loop rate nothing falls back and the GNN takes part
    plain = predict_kernels(models, analysis, bundle.spec)
    assert plain.fallback is None and plain.gnn_s is not None


def test_updates_inside_a_loop_run_in_place_and_fall_back_to_the_roofline():
    import jax.numpy as jnp
    from jax import lax

    from stablecost.models.coverage import IN_PLACE_IN_LOOP, IN_PLACE_UPDATE
    from stablecost.models.learned import load_models, predict_kernels

    def scan(x, w):   # stacks each step's state: a dynamic_update_slice in the body
        def body(h, _):
            h = jnp.tanh(h @ w)
            return h, h
        return lax.scan(body, x, None, length=16)[1]

    def update(table, row):   # the same update outside any loop
        return lax.dynamic_update_slice(table, row, (3, 0))

    looped = analyze(load_program(_lowered(scan, (8, 32), (32, 32))))
    kinds = cpu_kernel_kinds(looped.kernels, looped.program)
    roots = [looped.program.ops[k.root].opcode for k in looped.kernels]
    in_place = [i for i, r in enumerate(roots) if r == "dynamic_update_slice"]
    assert in_place and all(kinds[i] == IN_PLACE_IN_LOOP for i in in_place)
    assert all(kinds[i] == 0 for i in range(len(roots)) if i not in in_place)
    plain = analyze(load_program(_lowered(update, (64, 32), (1, 32))))
    assert not cpu_kernel_kinds(plain.kernels, plain.program).any()

    bundle = load_models("host-cpu")
    assert bundle is not None and bundle.spec is not None
    models = dataclasses.replace(bundle, spec=None)
    result = predict_kernels(models, looped, bundle.spec)   # no loop rate needed
    assert result.fallback is not None and IN_PLACE_UPDATE in result.note
    assert [bool(result.fallback[i]) for i in in_place] == [True] * len(in_place)
    for i in in_place:
        assert result.time_s[i] == pytest.approx(
            kernel_time(looped.kernels[i], looped.program, bundle.spec).time_s)
    # a GPU spec never takes the CPU rules
    assert with_roofline_fallback(np.ones(1), np.zeros(1), np.array([IN_PLACE_IN_LOOP]),
                                  get_hardware("H100-SXM"), {})[0] == 1.0


def test_a_grouped_convolutions_filter_gradient_runs_as_a_loop_over_its_groups():
    import jax
    import jax.numpy as jnp
    from jax import lax

    from stablecost.featurize.conv_lowering import loop_iterations

    groups, channels = 4, 8
    w_struct = jax.ShapeDtypeStruct((3, 3, channels // groups, channels), jnp.float32)

    def grouped(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=DN,
                                        feature_group_count=groups)

    def filter_gradient(x, dy):
        return jax.linear_transpose(lambda w: grouped(x, w), w_struct)(dy)[0]
    text = _lowered(filter_gradient, (N, SIDE, SIDE, channels), (N, SIDE, SIDE, channels))
    (conv,) = _convolutions(text)
    assert conv.attributes["batch_group_count"] == groups and runs_as_loop_on_cpu(conv)
    assert loop_iterations(conv) == groups * multiply_adds(conv)
    (forward,) = _convolutions(_lowered(grouped, (N, SIDE, SIDE, channels),
                                        (3, 3, channels // groups, channels)))
    assert not runs_as_loop_on_cpu(forward)

    def depthwise(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=DN,
                                        feature_group_count=channels)
    d_struct = jax.ShapeDtypeStruct((3, 3, 1, channels), jnp.float32)

    def depthwise_gradient(x, dy):   # one batch group per output feature: not a loop
        return jax.linear_transpose(lambda w: depthwise(x, w), d_struct)(dy)[0]
    (conv_dw,) = _convolutions(_lowered(depthwise_gradient, (N, SIDE, SIDE, channels),
                                        (N, SIDE, SIDE, channels)))
    assert conv_dw.attributes["batch_group_count"] == channels
    assert not runs_as_loop_on_cpu(conv_dw)
    analysis, kernel = _conv_kernel(text)
    vector_s = (kernel.flops - kernel.matmul_flops) / 1e10
    assert kernel_time(kernel, analysis.program, _cpu(1e9)).compute_s == pytest.approx(
        groups * multiply_adds(conv) / 1e9 + vector_s)


def _depthwise_gradient_text(channels: int) -> str:
    """The filter gradient of a 3x3 depthwise convolution over `channels` channels."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def depthwise(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=DN,
                                        feature_group_count=channels)
    d_struct = jax.ShapeDtypeStruct((3, 3, 1, channels), jnp.float32)

    def depthwise_gradient(x, dy):
        return jax.linear_transpose(lambda w: depthwise(x, w), d_struct)(dy)[0]
    return _lowered(depthwise_gradient, (N, SIDE, SIDE, channels), (N, SIDE, SIDE, channels))


def test_a_depthwise_filter_gradient_runs_densely_over_every_pair_of_channels_on_cpu():
    from jax import lax

    from stablecost.featurize.conv_lowering import dense_on_cpu_groups

    channels = 8
    text = _depthwise_gradient_text(channels)
    (conv,) = _convolutions(text)
    assert dense_on_cpu_groups(conv) == channels and not runs_as_loop_on_cpu(conv)
    analysis, kernel = _conv_kernel(text)
    vector_s = (kernel.flops - kernel.matmul_flops) / 1e10
    # a CPU prices it at the library rate, C times the multiply-adds the program states
    assert kernel_time(kernel, analysis.program, _cpu()).compute_s == pytest.approx(
        kernel.matmul_flops * channels / 1e11 + vector_s)
    # a GPU runs batch groups natively: no more than the stated work
    gpu = get_hardware("H100-SXM")
    stated = kernel.matmul_flops / gpu.matmul_peak_flops_per_s("f32", None)
    assert kernel_time(kernel, analysis.program, gpu).compute_s <= stated * 1.01 + \
        (kernel.flops - kernel.matmul_flops) / gpu.vector_peak_flops_per_s("f32")
    # a forward depthwise convolution is not dense
    def forward(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=DN,
                                        feature_group_count=channels)
    (plain,) = _convolutions(_lowered(forward, (N, SIDE, SIDE, channels), (3, 3, 1, channels)))
    assert dense_on_cpu_groups(plain) == 1


def test_a_spec_without_the_loop_rate_says_so():
    from stablecost.models.cost_model import Roofline
    from stablecost.models.learned import load_models, predict_kernels

    analysis = analyze(load_program(_decoder_step_text()))
    roofline = Roofline()
    without, with_rate = _cpu(), _cpu(1e9)
    note = roofline.estimate(analysis, without, kernel_time_list(analysis, without)).note
    assert "3 kernel(s) hold a convolution XLA:CPU runs as a loop nest" in note
    assert "hardware calibrate" in note
    assert not roofline.estimate(analysis, with_rate,
                                 kernel_time_list(analysis, with_rate)).note
    bundle = load_models("host-cpu")
    assert bundle is not None and bundle.spec is not None
    assert bundle.spec.loop_convolution_macs_per_s is None   # data/cpu predates the probe
    models = dataclasses.replace(bundle, spec=None)
    assert "loop_convolution_macs_per_s" in predict_kernels(models, analysis, bundle.spec).note
    # a GPU prices convolutions with its own library: no note
    assert not roofline.estimate(analysis, get_hardware("H100-SXM"), kernel_time_list(
        analysis, get_hardware("H100-SXM"))).note


def kernel_time_list(analysis, hw):
    return [kernel_time(k, analysis.program, hw) for k in analysis.kernels]


def test_gradient_convolutions_inside_a_loop_body_run_as_loops():
    """Differentiating a `lax.scan` of a 3x3 convolution: inside the while body the input
    gradient (kernel features swapped) and the filter gradient (batch contracted) keep
    dimension numbers other than the library's and run as loop nests; the forward one
    there, and the same gradients outside any loop, take the library."""
    import jax
    from jax import lax

    from stablecost.featurize.conv_lowering import library_layout

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=DN)

    def scanned(w, x):
        return lax.scan(lambda h, _: (jax.numpy.tanh(conv(h, w)), None), x, None,
                        length=3)[0].sum()

    def unrolled(w, x):
        h = x
        for _ in range(3):
            h = jax.numpy.tanh(conv(h, w))
        return h.sum()

    shapes = ((3, 3, CIN, CIN), (N, SIDE, SIDE, CIN))
    for step, in_loop in ((scanned, True), (unrolled, False)):
        analysis = analyze(load_program(_lowered(jax.grad(step), *shapes)))
        program = analysis.program
        looped = {k.block for k in analysis.kernels
                  if any(a <= k.block <= b for a, b in (lp.blocks for lp in program.loops))}
        convs = [(op, op.block in looped) for op in program.ops
                 if op.opcode == "convolution"]
        assert any(inside for _, inside in convs) == in_loop
        library = [op for op, _ in convs if library_layout(op)]
        other = [op for op, _ in convs if not library_layout(op)]
        assert library and other       # the forward ones; the two gradients
        for op, inside in convs:
            assert runs_as_loop_on_cpu(op, inside) == (inside and not library_layout(op))
            assert not runs_as_loop_on_cpu(op)           # outside a loop: the library
        priced = [k for k in analysis.kernels if k.kind == MATMUL
                  and kernel_time(k, program, _cpu(1e9)).compute_s
                  != kernel_time(k, program, _cpu()).compute_s]
        # the roofline prices exactly the loop body's gradient kernels at the loop rate
        assert bool(priced) == in_loop
        assert all(k.block in looped for k in priced)


def test_a_depthwise_filter_gradient_in_a_loop_body_runs_densely_as_a_loop_nest():
    """In a `lax.scan` body the depthwise filter gradient keeps JAX's dimension numbers
    and runs as a loop nest, over the dense convolution XLA makes of it: the channel
    count times its stated multiply-adds."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    from stablecost.featurize.conv_lowering import dense_on_cpu_groups, loop_iterations

    channels = 8

    def depthwise(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=DN,
                                        feature_group_count=channels)

    def steps(w, xs):
        def body(w, x):
            g = jax.grad(lambda w: jnp.sum(depthwise(x, w) ** 2))(w)
            return w - 0.1 * g, None
        return lax.scan(body, w, xs)[0]
    text = _lowered(steps, (3, 3, 1, channels), (4, N, SIDE, SIDE, channels))
    analysis = analyze(load_program(text))
    program = analysis.program
    (kernel,) = [k for k in analysis.kernels if k.kind == MATMUL and any(
        program.ops[i].opcode == "convolution"
        and program.ops[i].attributes.get("batch_group_count", 1) == channels
        for i in k.ops)]
    (conv,) = [program.ops[i] for i in kernel.ops if program.ops[i].opcode == "convolution"]
    assert dense_on_cpu_groups(conv) == channels and runs_as_loop_on_cpu(conv, True)
    assert loop_iterations(conv) == channels * multiply_adds(conv)
    vector_s = (kernel.flops - kernel.matmul_flops) / 1e10
    assert kernel_time(kernel, program, _cpu(1e9)).compute_s == pytest.approx(
        channels * multiply_adds(conv) / 1e9 + vector_s)
