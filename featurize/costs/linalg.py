"""Rules for the matrix-unit ops: dots, convolutions, FFTs, Cholesky and triangular
solves."""

from __future__ import annotations

import math
from functools import lru_cache

from ..program import Op, Program
from .opcost import COMPLEX_FLOPS, OpCost, full_bytes, is_complex


def dot_general_cost(op: Op, program: Program) -> OpCost:
    dims = op.attributes.get("dot_dimension_numbers", {})
    lhs = op.operands[0]
    contracted = math.prod(lhs.shape[d] for d in dims.get("lhs_contracting_dimensions", []))
    reads, writes = full_bytes(op)
    return OpCost(_dot_flops(op.results[0].num_elements, contracted, is_complex(lhs)), 0.0,
                  reads, writes, "matmul")


def _dot_flops(outputs: int, contracted: int, complex_values: bool = False) -> float:
    """2 FLOPs per multiply-add; a product that contracts nothing (an outer product, or
    a contracted size of 1) is one multiply per output, which is also what XLA's
    algebraic simplifier turns such a dot into. On complex values a multiply-add is
    8 real FLOPs and a multiply 6 (XLA counts them as real ones)."""
    if contracted == 1:
        return float(outputs) * (COMPLEX_FLOPS["multiply"] if complex_values else 1)
    return (8.0 if complex_values else 2.0) * outputs * contracted


def dot_cost(op: Op, program: Program) -> OpCost:
    """Legacy `stablehlo.dot`: contracts the last lhs dim with the first rhs dim."""
    lhs = op.operands[0]
    contracted = lhs.shape[-1] if lhs.shape else 1
    reads, writes = full_bytes(op)
    return OpCost(_dot_flops(op.results[0].num_elements, contracted, is_complex(lhs)), 0.0,
                  reads, writes, "matmul")


@lru_cache(maxsize=4096)
def _valid_positions(input_size: int, kernel_size: int, output_size: int, stride: int,
                     pad_low: int, window_dilation: int, base_dilation: int) -> int:
    """Number of (output index, kernel index) pairs reading a real input element."""
    total = 0
    last = (input_size - 1) * base_dilation  # last real element in dilated coordinates
    for k in range(kernel_size):
        offset = k * window_dilation - pad_low  # input coordinate u(o) = o * stride + offset
        lo = max(0, (stride - 1 - offset) // stride)          # first o with u >= 0
        hi = min(output_size - 1, (last - offset) // stride) if last >= offset else -1
        if hi < lo:
            continue
        if base_dilation == 1:
            total += hi - lo + 1
        else:  # only u on a multiple of the dilation is a real element
            total += sum(1 for o in range(lo, hi + 1)
                         if (o * stride + offset) % base_dilation == 0)
    return total


def convolution_cost(op: Op, program: Program) -> OpCost:
    a = op.attributes
    dims = a.get("dimension_numbers", {})
    lhs, rhs, out = op.operands[0], op.operands[1], op.results[0]
    spatial = len(dims.get("input_spatial_dimensions", []))
    strides = a.get("window_strides") or [1] * spatial
    padding = a.get("padding") or [[0, 0]] * spatial
    lhs_dil = a.get("lhs_dilation") or [1] * spatial
    rhs_dil = a.get("rhs_dilation") or [1] * spatial
    positions = 1
    for i in range(spatial):
        positions *= _valid_positions(
            lhs.shape[dims["input_spatial_dimensions"][i]],
            rhs.shape[dims["kernel_spatial_dimensions"][i]],
            out.shape[dims["output_spatial_dimensions"][i]],
            int(strides[i]), int(padding[i][0]), int(rhs_dil[i]), int(lhs_dil[i]))
    in_features = lhs.shape[dims["input_feature_dimension"]]
    out_features = out.shape[dims["output_feature_dimension"]]
    batch = lhs.shape[dims["input_batch_dimension"]]
    fgc = int(a.get("feature_group_count", 1))
    bgc = int(a.get("batch_group_count", 1))
    flops = 2.0 * (in_features // fgc) * out_features * (batch // bgc) * positions
    if is_complex(lhs):
        flops *= 4   # a complex multiply-add is 8 real FLOPs
    reads, writes = full_bytes(op)
    return OpCost(flops, 0.0, reads, writes, "matmul")


def fft_cost(op: Op, program: Program) -> OpCost:
    """5 n log2 n per complex transform of n points (the radix-2 count), half that for a
    real-input or real-output one. The transforms are the dims in front of the
    transformed ones, counted on the operand for FFT/IFFT/RFFT and on the result for
    IRFFT (whose operand holds only n/2 + 1 points of the last dim)."""
    lengths = op.attributes.get("fft_length") or [1]
    n = math.prod(lengths)
    kind = str(op.attributes.get("fft_type", ""))
    real = "RFFT" in kind                      # RFFT and IRFFT
    side = op.results[0] if "IRFFT" in kind and op.results else op.operands[0]
    transforms = math.prod(side.shape[:len(side.shape) - len(lengths)])
    flops = (2.5 if real else 5.0) * transforms * n * math.log2(max(n, 2))
    reads, writes = full_bytes(op)
    return OpCost(flops, 0.0, reads, writes, "vector")


def cholesky_cost(op: Op, program: Program) -> OpCost:
    shape = op.operands[0].shape
    n = shape[-1]
    batch = math.prod(shape[:-2])
    reads, writes = full_bytes(op)
    return OpCost(batch * n ** 3 / 3.0, 0.0, reads, writes, "matmul")


def triangular_solve_cost(op: Op, program: Program) -> OpCost:
    a, b = op.operands[0].shape, op.operands[1].shape
    n = a[-1]
    batch = math.prod(b[:-2])
    reads, writes = full_bytes(op)
    return OpCost(float(batch * n * n * (b[-1] if op.attributes.get("left_side") else b[-2])),
                  0.0, reads, writes, "matmul")
