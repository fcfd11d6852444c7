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
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ..dtypes import compute_class
from ..featurize.fusion import LOOP, MATMUL, REDUCTION, Kernel
from ..featurize.program import Program
from ..hardware import Hardware
from .roofline import kernel_dtypes

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
