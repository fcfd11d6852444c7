"""Convolutions: the 2-D `convolution` family (layouts, strides, dilation,
groups, transposed, both backward passes, of strided and transposed ones too) and the
3-D `conv3d` family.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...dtypes import jax_dtype
from .core import (
    MAX_FLOPS,
    ArgSpec,
    KernelSpec,
    builder,
    log2_bucket,
    log_uniform_int,
    maybe_round,
    sampler,
    shrink_to_fit,
)

# --------------------------------------------------------------------------- convolution
CONV_VARIANTS = ("fwd_nhwc", "fwd_nchw", "strided", "dilated", "grouped", "depthwise",
                 "bwd_data", "bwd_filter")
# backward passes of the strided and transposed draws (see sample_conv)
GRADIENT_VARIANTS = ("strided_bwd_data", "strided_bwd_filter", "transposed_bwd_data",
                     "transposed_bwd_filter")


@sampler("convolution")
def sample_conv(rng: np.random.Generator) -> KernelSpec:
    dtype = str(rng.choice(["f32", "bf16"], p=[0.75, 0.25]))
    variant = str(rng.choice(CONV_VARIANTS))
    n = log_uniform_int(rng, 1, 32)
    hw = maybe_round(rng, log_uniform_int(rng, 7, 112), 0.3)
    cin = maybe_round(rng, log_uniform_int(rng, 3, 256))
    cout = maybe_round(rng, log_uniform_int(rng, 8, 256))
    kernel = int(rng.choice([1, 3, 3, 5, 7]))
    stride = 2 if variant == "strided" else 1
    dilation = int(rng.choice([2, 3])) if variant == "dilated" else 1
    groups = 1
    if variant == "grouped":
        groups = int(rng.choice([2, 4, 8]))
        cin = max(groups, cin // groups * groups)
        cout = max(groups, cout // groups * groups)
    elif variant == "depthwise":
        groups = cin
        cout = cin
    hw = max(hw, (kernel - 1) * dilation + 1)

    def flops(s: list[int]) -> float:
        nn, hh, ci, co = s
        per_group = ci // groups if groups > 1 else ci
        return 2.0 * nn * hh * hh * co * per_group * kernel * kernel / stride ** 2

    limit = MAX_FLOPS / 4 if dtype == "f32" else MAX_FLOPS / 32
    n, hw, cin2, cout2 = shrink_to_fit([n, hw, cin, cout], flops, limit)
    if groups == 1:
        cin, cout = cin2, cout2
    hw = max(hw, (kernel - 1) * dilation + 1)
    if variant == "strided" and rng.random() < 0.5:
        # Half the strided draws become the decoder's op, its transpose: a stride-2
        # transposed convolution (an input dilated by 2). Drawn last, so the other
        # variants' samples (and their ids) are what they were before it existed.
        variant = "transposed"

        def flops(s: list[int]) -> float:
            nn, hh, ci, co = s
            return 2.0 * nn * (2 * hh) ** 2 * co * ci * kernel * kernel

        n, hw, cin, cout = shrink_to_fit([n, hw, cin, cout], flops, limit)
    if variant in ("strided", "transposed") and rng.random() < 2 / 3:
        # Two thirds of the strided and transposed draws become their backward passes,
        # what a CNN or decoder training step runs: the input gradient of a strided
        # convolution is input-dilated, the filter gradient of a transposed one is
        # input-dilated with the output gradient's whole spatial extent as its window,
        # in a layout that is not channels-last. Drawn last, as above.
        variant = f"{variant}_{rng.choice(['bwd_data', 'bwd_filter'])}"
    params = {"n": n, "hw": hw, "cin": cin, "cout": cout, "kernel": kernel, "stride": stride,
              "dilation": dilation, "groups": groups, "dtype": dtype,
              "layout": "NCHW" if variant == "fwd_nchw" else "NHWC"}
    return KernelSpec("convolution", variant, dtype, params, log2_bucket(flops([n, hw, cin, cout])))


@builder("convolution", *CONV_VARIANTS, "transposed", *GRADIENT_VARIANTS)
def _build_conv(p: dict[str, Any]):
    from jax import lax

    layout = p["layout"]
    lhs_spec = "NCHW" if layout == "NCHW" else "NHWC"
    dn = (lhs_spec, "HWIO", lhs_spec)
    n, hw, cin, cout, kk = p["n"], p["hw"], p["cin"], p["cout"], p["kernel"]
    groups, stride, dil = p["groups"], p["stride"], p["dilation"]
    x_shape = (n, cin, hw, hw) if layout == "NCHW" else (n, hw, hw, cin)
    w_shape = (kk, kk, cin // groups, cout)
    dtype = p["dtype"]

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (stride, stride), "SAME", rhs_dilation=(dil, dil),
                                        dimension_numbers=dn, feature_group_count=groups)

    variant = p.get("variant", "fwd")
    if variant.startswith("transposed"):
        def conv_transpose(x, w):
            return lax.conv_transpose(x, w, (stride, stride), "SAME", dimension_numbers=dn)
        return _conv_pass(conv_transpose, variant.removeprefix("transposed").lstrip("_"),
                          x_shape, (kk, kk, cin, cout), dtype)
    return _conv_pass(conv, variant.removeprefix("strided_"), x_shape, w_shape, dtype)


def _conv_pass(conv: Callable[[Any, Any], Any], variant: str, x_shape: tuple[int, ...],
               w_shape: tuple[int, ...], dtype: str):
    """`conv` itself, or its backward-data / backward-filter convolution (the transpose
    of the linear map in the input or in the weights), with the argument specs."""
    import jax

    if variant not in ("bwd_data", "bwd_filter"):
        return conv, [ArgSpec(x_shape, dtype), ArgSpec(w_shape, dtype)]
    x_struct = jax.ShapeDtypeStruct(x_shape, jax_dtype(dtype))
    w_struct = jax.ShapeDtypeStruct(w_shape, jax_dtype(dtype))
    y_shape = tuple(jax.eval_shape(conv, x_struct, w_struct).shape)
    if variant == "bwd_data":
        def bwd_data(w, dy):
            (dx,) = jax.linear_transpose(lambda x: conv(x, w), x_struct)(dy)
            return dx
        return bwd_data, [ArgSpec(w_shape, dtype), ArgSpec(y_shape, dtype)]

    def bwd_filter(x, dy):
        (dw,) = jax.linear_transpose(lambda w: conv(x, w), w_struct)(dy)
        return dw
    return bwd_filter, [ArgSpec(x_shape, dtype), ArgSpec(y_shape, dtype)]


# --------------------------------------------------------------------------- 3-D convolution
CONV3D_VARIANTS = ("fwd", "strided", "bwd_data", "bwd_filter")


@sampler("conv3d")
def sample_conv3d(rng: np.random.Generator) -> KernelSpec:
    """Volumetric convolutions (video, medical imaging, 3-D U-Nets) in NDHWC, forward
    and both backward passes."""
    dtype = str(rng.choice(["f32", "bf16"], p=[0.75, 0.25]))
    variant = str(rng.choice(CONV3D_VARIANTS))
    n = log_uniform_int(rng, 1, 8)
    dhw = maybe_round(rng, log_uniform_int(rng, 4, 48), 0.4)
    cin = maybe_round(rng, log_uniform_int(rng, 1, 128))
    cout = maybe_round(rng, log_uniform_int(rng, 4, 128))
    kernel = int(rng.choice([1, 3, 3, 3]))
    stride = 2 if variant == "strided" else 1

    def flops(s: list[int]) -> float:
        nn, dd, ci, co = s
        return 2.0 * nn * dd ** 3 * ci * co * kernel ** 3 / stride ** 3

    # XLA:CPU runs 3-D convolutions at a few GFLOP/s: smaller caps than 2-D ones
    limit = MAX_FLOPS / 16 if dtype == "f32" else MAX_FLOPS / 64
    n, dhw, cin, cout = shrink_to_fit([n, dhw, cin, cout], flops, limit)
    dhw = max(dhw, kernel)
    params = {"n": n, "dhw": dhw, "cin": cin, "cout": cout, "kernel": kernel,
              "stride": stride, "dtype": dtype}
    return KernelSpec("conv3d", variant, dtype, params, log2_bucket(flops([n, dhw, cin, cout])))


@builder("conv3d", *CONV3D_VARIANTS)
def _build_conv3d(p: dict[str, Any]):
    from jax import lax

    n, d, cin, cout, kk, stride = p["n"], p["dhw"], p["cin"], p["cout"], p["kernel"], p["stride"]
    dtype = p["dtype"]
    dn = ("NDHWC", "DHWIO", "NDHWC")
    x_shape, w_shape = (n, d, d, d, cin), (kk, kk, kk, cin, cout)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (stride,) * 3, "SAME", dimension_numbers=dn)

    return _conv_pass(conv, p["variant"], x_shape, w_shape, dtype)
