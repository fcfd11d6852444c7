"""How XLA:CPU lowers a `convolution`: a call into its convolution library (Eigen), or
a loop nest of its own that runs two orders of magnitude slower.

XLA:CPU calls the library only for a convolution of 1 to 3 spatial dimensions without
window reversal (`PotentiallyImplementedAsEigenConvolution` in XLA's
`service/cpu/ir_emission_utils.cc`); any other falls back to an elemental loop nest
that recomputes its indices in the innermost loop. One rewrite sends ordinary training
steps there: XLA's `ConvOperandSwapper` pass (`hlo/transforms/simplifiers/
conv_operand_swapper.cc`) exchanges input and kernel when the kernel's window is larger
than the input it slides over, and the exchanged convolution always reverses its
window. The filter gradient of a transposed convolution (a decoder's or a GAN
generator's upsampling layer) is such a convolution: its "kernel" is the output
gradient, whose spatial extent is twice the input's. Measured on the second reference
CPU (AMD EPYC family 25 model 17, 2 cores): those ran at 1.8-1.9 G multiply-adds/s in
f32 and bf16 alike, against 40-50 G for a plain 3x3 convolution of the same data
(`stablecost hardware calibrate` measures the rate of each machine).

The rule below is read from the StableHLO op alone, so it holds for any program; it
restates the swapper's test in terms of StableHLO's attributes.

A depthwise convolution's filter gradient takes the library path, but not at its own
size: XLA:CPU has no batch-grouped convolution and computes it as a dense convolution over
every pair of channels, C times the multiply-adds the program states
(`dense_on_cpu_groups`).

Inside a loop body one more kind goes to the loop nest: a convolution whose dimension
numbers are not the library's (input batch-spatial-feature, kernel spatial-input-output,
output batch-spatial-feature). Outside loops XLA's layout assignment gives such a
convolution (the input gradient, with its kernel's input and output features swapped,
and the filter gradient, whose batch is the contracted dimension) operand layouts that
make it the library's; inside a `while` body, whose buffers keep the loop's layouts, it
keeps its dimension numbers and runs as a loop nest. Measured on the Intel machine
(family 6 model 167): a 5-step `lax.scan` of a 3x3 convolution on 32 8x8x64 maps took
323 ms to differentiate, the same steps unrolled 13.6 ms, the forward scan 5.2 ms like
its unrolled twin; over the stored profiled steps, such convolutions in loop bodies ran
at a median 3.3 G multiply-adds/s (0.59 of the loop-nest time, 0.3-1.1 by program), the
library-shaped ones in loop bodies at 14 G and at their learned price.

A convolution with feature groups (a depthwise one above all) takes the library path
but costs about the same per group and output pixel whatever its multiply-adds: on the
Zen 5 machine (AMD family 26 model 2, jaxlib 0.10.2), 3x3 depthwise convolutions over
4 256x256 maps took 17-21 ns per group and output pixel for 8 to 64 channels, 1x7 ones
20 ns (0.3 G multiply-adds/s, against 4 G for the same data as one dense 3-channel
convolution). The cost grows slowly with the window and with the input channels per
group (`grouped_units`); `stablecost hardware calibrate` measures each machine's rate
on a 3x3 depthwise convolution, one unit per group and output pixel.
"""

from __future__ import annotations

import math

from .program import Op


def _window(op: Op) -> list[dict[str, int | bool]] | None:
    """Per spatial dimension: the window's size, the input's size, and the window's
    padding, stride, dilations and reversal; None when the op is not a readable
    convolution."""
    a = op.attributes
    dims = a.get("dimension_numbers") or {}
    try:
        lhs, rhs = op.operands[0], op.operands[1]
        in_dims = list(dims["input_spatial_dimensions"])
        k_dims = list(dims["kernel_spatial_dimensions"])
        n = len(in_dims)
        padding = a.get("padding") or [[0, 0]] * n
        strides = a.get("window_strides") or [1] * n
        lhs_dil = a.get("lhs_dilation") or [1] * n
        rhs_dil = a.get("rhs_dilation") or [1] * n
        reversal = a.get("window_reversal") or [False] * n
        return [{"size": int(rhs.shape[k_dims[i]]), "input": int(lhs.shape[in_dims[i]]),
                 "low": int(padding[i][0]), "high": int(padding[i][1]),
                 "stride": int(strides[i]), "base_dilation": int(lhs_dil[i]),
                 "window_dilation": int(rhs_dil[i]), "reversal": bool(reversal[i])}
                for i in range(n)]
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def operands_swapped(op: Op) -> bool:
    """Whether XLA exchanges the convolution's input and kernel (see the module
    docstring): an ungrouped convolution whose window, over the spatial dimensions that
    are not pure contractions or group dimensions, holds more points than the input."""
    a = op.attributes
    if op.opcode != "convolution" or int(a.get("feature_group_count", 1)) > 1 \
            or int(a.get("batch_group_count", 1)) > 1:
        return False
    window = _window(op)
    if window is None:
        return False
    kernel_points = swapped_points = 1
    for d in window:
        size, n_in = d["size"], d["input"]
        plain = (not d["reversal"] and d["low"] == 0 and d["high"] == 0
                 and d["window_dilation"] == 1)
        group_dim = plain and d["base_dilation"] == size and d["stride"] == size - 1
        contraction = plain and size == n_in and d["base_dilation"] == 1 and d["stride"] == 1
        if group_dim or contraction:
            continue
        kernel_points *= int(size)
        full_pad = (n_in == 1 and d["stride"] == 1 and d["window_dilation"] == 1
                    and d["low"] == size - 1 and d["high"] == size - 1)
        swapped_points *= int(size) if full_pad else int(n_in)
    return kernel_points > swapped_points


def runs_as_loop_on_cpu(op: Op, in_loop_body: bool = False) -> bool:
    """Whether XLA:CPU runs this convolution as its own loop nest rather than a library
    call: its operands are swapped (which reverses the window), its window is already
    reversed, it has no or more than 3 spatial dimensions, it has batch groups other
    than one per output feature (the filter gradient of a grouped, not depthwise,
    convolution, which XLA rewrites into a convolution over an extra, input-dilated
    group dimension; a depthwise one's becomes a dense library convolution,
    `dense_on_cpu_groups`), or it sits
    in a loop body (`in_loop_body`) with dimension numbers other than the library's
    (`library_layout`; see the module docstring)."""
    if op.opcode != "convolution":
        return False
    window = _window(op)
    if window is None:
        return False
    if not 1 <= len(window) <= 3 or any(d["reversal"] for d in window) \
            or _batch_grouped(op):
        return True
    if in_loop_body and not library_layout(op):
        return True
    return operands_swapped(op)


def library_layout(op: Op) -> bool:
    """Whether the convolution's dimension numbers are the ones XLA:CPU's convolution
    library takes as they are: input (batch, spatial..., feature), kernel (spatial...,
    input feature, output feature), output (batch, spatial..., feature)."""
    dims = op.attributes.get("dimension_numbers") or {}
    try:
        n = len(dims["input_spatial_dimensions"])
        spatial = list(range(1, n + 1))
        return (dims["input_batch_dimension"] == 0 and dims["input_feature_dimension"] == n + 1
                and list(dims["input_spatial_dimensions"]) == spatial
                and list(dims["kernel_spatial_dimensions"]) == list(range(n))
                and dims["kernel_input_feature_dimension"] == n
                and dims["kernel_output_feature_dimension"] == n + 1
                and dims["output_batch_dimension"] == 0
                and dims["output_feature_dimension"] == n + 1
                and list(dims["output_spatial_dimensions"]) == spatial)
    except (KeyError, TypeError):
        return False


def _batch_grouped(op: Op) -> bool:
    groups = int(op.attributes.get("batch_group_count", 1))
    if groups <= 1:
        return False
    try:
        dims = op.attributes["dimension_numbers"]
        return groups != op.results[0].shape[dims["output_feature_dimension"]]
    except (KeyError, IndexError, TypeError):
        return True


def dense_on_cpu_groups(op: Op) -> int:
    """G when XLA:CPU runs this convolution as a dense library convolution with G times
    its multiply-adds, else 1. The filter gradient of a depthwise convolution has one
    batch group per output feature; XLA:CPU has no batch-grouped convolution and rewrites
    it into a convolution over every pair of channels (f32[C,3,3,C] instead of
    f32[3,3,1,C]), then masks the diagonal and reduces it. Measured on the Intel machine
    (family 6 model 167, jaxlib 0.10.2): the filter gradient of a 3x3 depthwise
    convolution over 8 32x32 maps of 128 channels took 43.7 ms, 0.22 G stated multiply-adds
    a second and 28 G counted densely; 7x7 over 96 channels 48.6 ms (0.61 and 58 G)."""
    groups = int(op.attributes.get("batch_group_count", 1) or 1)
    if op.opcode != "convolution" or groups <= 1 or _batch_grouped(op):
        return 1
    return groups


def multiply_adds(op: Op) -> float:
    """The convolution's multiply-adds that touch real input (holes of a dilated input
    skipped), as the cost model counts its FLOPs."""
    from .costs.linalg import convolution_cost

    return convolution_cost(op, None).flops / 2.0  # type: ignore[arg-type]


def loop_iterations(op: Op) -> float:
    """Multiply-adds a loop nest runs for this convolution: `multiply_adds`, times the
    batch groups of a batch-grouped one (its group dimension is input-dilated by the
    group count, and the loop visits every window position of it, one in that many a
    real element), or of a depthwise filter gradient, which XLA makes dense over every
    pair of channels before the loop body's layouts send it to a loop nest
    (`dense_on_cpu_groups`). Measured on the Zen 5 machine: never-seen-32's keyword
    spotter differentiates 1-D depthwise convolutions of 192 channels in a `lax.scan`,
    and each filter gradient took 27-39 ms for 0.3-0.8 M stated multiply-adds, 3.4-3.9 G
    a second counted densely (the loop-nest probe: 2.1 G)."""
    groups = int(op.attributes.get("batch_group_count", 1)) if _batch_grouped(op) \
        else dense_on_cpu_groups(op)
    return multiply_adds(op) * max(groups, 1)



# `grouped_units` weights, fitted by hand on the Zen 5 machine (jaxlib 0.10.2, 4x256x256
# maps): ns per group and output pixel of a depthwise convolution grew as (33 + taps)
# for 3 to 49 taps (1x3 17.3, 3x3 17.5, 5x5 26.5, 7x7 38.5), and per group by about half
# the 1-channel cost for each further input channel of the group (1, 2, 4 channels:
# 17.5, 27, 44 ns at 3x3).
GROUPED_WINDOW_OFFSET = 33.0
GROUPED_EXTRA_CHANNEL = 0.5


def grouped_units(op: Op) -> float:
    """Work of a feature-grouped convolution XLA:CPU runs in its library, in units of one
    group and output pixel of a 3x3 depthwise convolution (module docstring); 0 for any
    other op, and for convolutions that run as loop nests (`runs_as_loop_on_cpu`) or
    with batch groups."""
    groups = int(op.attributes.get("feature_group_count", 1) or 1)
    if op.opcode != "convolution" or groups <= 1 \
            or int(op.attributes.get("batch_group_count", 1) or 1) > 1 \
            or runs_as_loop_on_cpu(op):
        return 0.0
    window = _window(op)
    if window is None:
        return 0.0
    try:
        dims = op.attributes["dimension_numbers"]
        lhs, out = op.operands[0].shape, op.results[0].shape
        pixels = out[dims["output_batch_dimension"]] * math.prod(
            out[d] for d in dims["output_spatial_dimensions"])
        per_group = max(lhs[dims["input_feature_dimension"]] // groups, 1)
    except (KeyError, IndexError, TypeError):
        return 0.0
    taps = math.prod(int(d["size"]) for d in window)
    shape = (GROUPED_WINDOW_OFFSET + taps) / (GROUPED_WINDOW_OFFSET + 9.0)
    return float(groups * pixels * shape * (1.0 + GROUPED_EXTRA_CHANNEL * (per_group - 1)))
