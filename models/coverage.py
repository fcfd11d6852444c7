"""Which kernels a learned kernel model has seen the like of, and which it has not.

A tree model answers for any feature vector, but for a kernel of a class its training
data never had (a TF32 GEMM when only bf16, fp8 and true-fp32 GEMMs were measured; a
bf16 loop fusion when only fp32 elementwise ops were) the answer is extrapolation
without a measurement behind it. The GPU bundle records the classes of its training
kernels, with the opcodes each class held; a kernel outside them is priced by the
roofline and the prediction says which and why.

The class is what the chip executes: kind, main op and compute dtype, where an f32 dot
runs in the chip's `f32_matmul_as` class unless its precision is HIGHEST (TF32 on
Ampere and later under XLA's default precision, true fp32 at HIGHEST):

    >>> kernel_class(kernel, program, get_hardware("H100-SXM"))    # f32 dot, DEFAULT
    'matmul:dot_general:tf32'
    >>> kernel_class(kernel, program, get_hardware("V100-SXM2"))   # same kernel
    'matmul:dot_general:f32'

A fused cuDNN flash-attention kernel (`__cudnn$fmha*` custom call) is its own class,
forward or backward, by its operands' type: `standalone:fmha:bf16`.

Loop and reduction kernels must also use only opcodes that training kernels of their
class used (layout and broadcast ops aside); a matmul kernel's epilogue is not checked
(the GEMM features describe it).

A CPU bundle records no classes, but one kernel kind is outside its data by
construction: a convolution XLA:CPU runs as its own loop nest (`featurize/
conv_lowering.py`), 25x slower than its library path, which no feature names and
`data/cpu` holds none of. Where the machine's calibration measured that loop rate, the
roofline prices such a kernel better than the trees (they multiply the loop-rate
roofline by the ratio they learned on library convolutions), so it falls back, unless
the kernel model records loop convolutions in its data (`loop_convolution_kernels` in
its meta; a bundle without the count is taken to have none).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from ..dtypes import compute_class
from ..featurize.fusion import LOOP, MATMUL, REDUCTION, Kernel
from ..featurize.program import Program
from ..hardware import Hardware
from .roofline import kernel_dtypes, loop_convolution_macs

# opcodes that move or reinterpret data without work of their own: not checked
_IGNORED = frozenset({"reshape", "constant", "bitcast_convert", "get_tuple_element", "tuple",
                      "optimization_barrier", "broadcast_in_dim", "broadcast"})


def kernel_class(kernel: Kernel, program: Program, hw: Hardware) -> str:
    """`kind:main op:compute class` of `kernel` as `hw` runs it (see the module doc)."""
    matmul_dtype, vector_dtype, precision = kernel_dtypes(kernel, program)
    if kernel.kind == MATMUL:
        main = next(program.ops[i].opcode for i in kernel.ops
                    if program.ops[i].opcode in ("dot_general", "dot", "convolution",
                                                 "dynamic_conv", "chlo.ragged_dot"))
        cls = compute_class(matmul_dtype)
        if cls == "f32" and precision != "HIGHEST":
            cls = hw.f32_matmul_as
        return f"{MATMUL}:{'dot_general' if main == 'dot' else main}:{cls}"
    root = program.ops[kernel.root]
    target = str(root.attributes.get("call_target_name", "")) if root.opcode == "custom_call" \
        else ""
    if target.startswith("__cudnn$fmha"):
        main = "fmha_backward" if "Backward" in target else "fmha"
        return f"{kernel.kind}:{main}:{compute_class(matmul_dtype)}"
    return f"{kernel.kind}:{compute_class(vector_dtype)}"


def kernel_opcodes(kernel: Kernel, program: Program) -> set[str]:
    """The opcodes of `kernel` the coverage check looks at."""
    return {program.ops[i].opcode for i in kernel.ops} - _IGNORED


def coverage_table(kernels: Sequence[tuple[str, set[str]]]) -> dict[str, list[str]]:
    """{class: sorted opcodes} of training kernels given as (class, opcodes)."""
    table: dict[str, set[str]] = {}
    for cls, opcodes in kernels:
        table.setdefault(cls, set()).update(opcodes)
    return {cls: sorted(ops) for cls, ops in sorted(table.items())}


def uncovered(kernel: Kernel, program: Program, hw: Hardware,
              table: Mapping[str, Sequence[str]]) -> str:
    """Why the model trained on `table` does not cover `kernel` on `hw` ("" if it does)."""
    cls = kernel_class(kernel, program, hw)
    seen = table.get(cls)
    if seen is None:
        return f"{cls} (no such kernel in the training data)"
    if kernel.kind in (LOOP, REDUCTION):
        new = sorted(kernel_opcodes(kernel, program) - set(seen))
        if new:
            return f"{cls} with {', '.join(new)} (never in a training kernel of that class)"
    return ""


LOOP_CONVOLUTION = f"{MATMUL}:convolution-loop"


def loop_convolutions_uncovered(hw: Hardware, kernel_meta: Mapping[str, object]) -> bool:
    """Whether kernels holding a loop-nest convolution fall back to the roofline on `hw`
    (see the module docstring)."""
    return (hw.kind == "cpu" and bool(hw.loop_convolution_macs_per_s)
            and not kernel_meta.get("loop_convolution_kernels"))


def cpu_uncovered(kernel: Kernel, program: Program, hw: Hardware,
                  kernel_meta: Mapping[str, object]) -> str:
    """Why a CPU kernel model does not cover `kernel` on `hw` ("" if it does)."""
    if kernel.kind == MATMUL and loop_convolutions_uncovered(hw, kernel_meta) \
            and loop_convolution_macs(kernel, program):
        return (f"{LOOP_CONVOLUTION} (a convolution XLA:CPU runs as a loop nest, priced at "
                f"{hw.name}'s measured loop rate; none in the training data)")
    return ""


def uncovered_rows(loop_convolution: np.ndarray | None, hw: Hardware,
                   kernel_meta: Mapping[str, object]) -> np.ndarray | None:
    """Per feature row, whether the CPU kernel model does not cover it on `hw`
    (`loop_convolution`: per row, holds a loop-nest convolution); None: it covers all."""
    if loop_convolution is None or not loop_convolutions_uncovered(hw, kernel_meta):
        return None
    return np.asarray(loop_convolution, dtype=bool)


def with_roofline_fallback(predicted_s: np.ndarray, roofline_s: np.ndarray,
                           loop_convolution: np.ndarray | None, hw: Hardware,
                           kernel_meta: Mapping[str, object]) -> np.ndarray:
    """The kernel model's predictions of feature rows, with the rows it does not cover
    on `hw` replaced by their roofline time, as `models.learned.predict_kernels` prices
    them; the training paths of the step models take their kernel times from here, so
    that they see what a prediction will."""
    predicted_s = np.asarray(predicted_s, dtype=np.float64)
    outside = uncovered_rows(loop_convolution, hw, kernel_meta)
    if outside is None:
        return predicted_s
    return np.where(outside, np.asarray(roofline_s, np.float64), predicted_s)
