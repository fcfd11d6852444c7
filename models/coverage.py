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

A CPU bundle records no classes, but two kernel kinds are outside its data by
construction, and fall back to the roofline (`cpu_kernel_kind`):
- a convolution XLA:CPU runs as its own loop nest (`featurize/conv_lowering.py`), 25x
  slower than its library path, which no feature names and `data/cpu` holds none of.
  Where the machine's calibration measured that loop rate, the roofline prices such a
  kernel better than the trees (they multiply the loop-rate roofline by the ratio they
  learned on library convolutions), unless the kernel model records loop convolutions
  in its data (`loop_convolution_kernels` in its meta; a bundle without the count is
  taken to have none);
- a dynamic_update_slice or scatter inside a while loop (a `lax.scan` stacking its
  outputs): XLA updates the loop's buffer in place, writing the update's bytes, which
  is what the roofline prices; a kernel sample of the same op, its operand not
  donated, first copied the whole operand, and the trees learned that copy (a Kalman
  filter's 8x8 updates priced at 265 µs each, 256 times a step, against 5.7 µs).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

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


# features whose training range per class a GPU bundle records (`class_ranges`), and how
# far outside it (their log2 units: a factor of 2) a kernel may fall and still be priced
RANGE_FEATURES = ("dot_batch", "dot_m", "dot_n", "dot_k", "flops", "bytes_read")
RANGE_MARGIN = 1.0


def class_ranges(rows: Sequence[tuple[str, np.ndarray]]) -> dict[str, dict[str, list[float]]]:
    """{class: {feature: [min, max]}} of training kernels given as (class, feature row)."""
    from .features import FEATURES

    columns = [FEATURES.index(name) for name in RANGE_FEATURES]
    out: dict[str, dict[str, list[float]]] = {}
    for cls, x in rows:
        entry = out.setdefault(cls, {n: [float("inf"), float("-inf")] for n in RANGE_FEATURES})
        for name, c in zip(RANGE_FEATURES, columns):
            lo, hi = entry[name]
            entry[name] = [min(lo, float(x[c])), max(hi, float(x[c]))]
    return dict(sorted(out.items()))


def out_of_range(cls: str, x: np.ndarray,
                 ranges: Mapping[str, Mapping[str, Sequence[float]]]) -> str:
    """Why a kernel of class `cls` with feature row `x` lies outside its class's training
    range (more than RANGE_MARGIN beyond it in a RANGE_FEATURES feature), "" if it does
    not or the range is unknown. On an H100 the GEMM tables' bf16 GEMMs are all unbatched,
    and the model priced XLA's batched attention GEMMs up to 2x apart from one retrain to
    the next (benchmarks/RESULTS.md, "XLA:GPU on an H100")."""
    from .features import FEATURES

    bounds = ranges.get(cls)
    if not bounds:
        return ""
    for name, (lo, hi) in bounds.items():
        value = float(x[FEATURES.index(name)])
        if value < lo - RANGE_MARGIN or value > hi + RANGE_MARGIN:
            return (f"{cls} with {name} outside its training range (log2 {value:.1f}, "
                    f"trained on {lo:.1f}-{hi:.1f})")
    return ""


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
IN_PLACE_UPDATE = f"{LOOP}:in-place-update"
# per kernel, how XLA:CPU runs it where that takes it outside a CPU kernel model's data
LIBRARY_OR_PLAIN, LOOP_NEST_CONVOLUTION, IN_PLACE_IN_LOOP = 0, 1, 2
_IN_PLACE_ROOTS = frozenset({"dynamic_update_slice", "scatter"})


def cpu_kernel_kind(kernel: Kernel, program: Program) -> int:
    """LOOP_NEST_CONVOLUTION: holds a convolution XLA:CPU runs as a loop nest;
    IN_PLACE_IN_LOOP: a dynamic_update_slice or scatter inside a while loop, which XLA
    updates in place in the loop's buffer, where a kernel sample (its operand not
    donated) copies the whole operand first; else LIBRARY_OR_PLAIN."""
    if kernel.kind == MATMUL and loop_convolution_macs(kernel, program):
        return LOOP_NEST_CONVOLUTION
    if program.ops[kernel.root].opcode in _IN_PLACE_ROOTS and any(
            lo <= kernel.block <= hi for lo, hi in program.loop_blocks):
        return IN_PLACE_IN_LOOP
    return LIBRARY_OR_PLAIN


def cpu_kernel_kinds(kernels: Sequence[Kernel], program: Program) -> np.ndarray:
    return np.array([cpu_kernel_kind(k, program) for k in kernels], dtype=np.int8)


def loop_convolutions_uncovered(hw: Hardware, kernel_meta: Mapping[str, object]) -> bool:
    """Whether kernels holding a loop-nest convolution fall back to the roofline on `hw`
    (see the module docstring)."""
    return (hw.kind == "cpu" and bool(hw.loop_convolution_macs_per_s)
            and not kernel_meta.get("loop_convolution_kernels"))


def cpu_uncovered(kernel: Kernel, program: Program, hw: Hardware,
                  kernel_meta: Mapping[str, object]) -> str:
    """Why a CPU kernel model does not cover `kernel` on `hw` ("" if it does); the
    decision is `uncovered_rows`'s, this adds the reason."""
    if hw.kind != "cpu":
        return ""
    kind = cpu_kernel_kind(kernel, program)
    if uncovered_rows(np.array([kind]), hw, kernel_meta) is None:
        return ""
    if kind == LOOP_NEST_CONVOLUTION:
        return (f"{LOOP_CONVOLUTION} (a convolution XLA:CPU runs as a loop nest, priced at "
                f"{hw.name}'s measured loop rate; none in the training data)")
    return (f"{IN_PLACE_UPDATE} (a dynamic_update_slice or scatter inside a loop, "
            "updated in place; the kernel samples copied the whole operand)")


def uncovered_rows(cpu_kind: np.ndarray | None, hw: Hardware,
                   kernel_meta: Mapping[str, object]) -> np.ndarray | None:
    """Per feature row, whether the CPU kernel model does not cover it on `hw`
    (`cpu_kind`: per row, its `cpu_kernel_kind`); None: it covers all."""
    if cpu_kind is None or hw.kind != "cpu":
        return None
    kinds = np.asarray(cpu_kind)
    outside = kinds == IN_PLACE_IN_LOOP
    if loop_convolutions_uncovered(hw, kernel_meta):
        outside |= kinds == LOOP_NEST_CONVOLUTION
    return outside if outside.any() else None


def table_uncovered_rows(analyses: Sequence[Any], hw: Hardware,
                         table: Mapping[str, Sequence[str]], X: np.ndarray | None = None,
                         ranges: Mapping[str, Any] | None = None) -> np.ndarray:
    """Per feature row of `analyses` (their priced, non-collective kernels in order, as
    `train.data.featurize_rows` lays them out, `X` their features), whether a model
    trained on `table` (and `ranges`) does not cover it on `hw` (`uncovered`,
    `out_of_range`): what a prediction prices by the roofline."""
    kernels = [(k, a.program) for a in analyses for k in a.kernels
               if k.kind != "collective" and k.priced]
    out = np.array([bool(uncovered(k, program, hw, table)) for k, program in kernels],
                   dtype=bool)
    if ranges and X is not None:
        out |= np.array([bool(out_of_range(kernel_class(k, program, hw), x, ranges))
                         for (k, program), x in zip(kernels, X)], dtype=bool)
    return out


def with_roofline_fallback(predicted_s: np.ndarray, roofline_s: np.ndarray,
                           cpu_kind: np.ndarray | None, hw: Hardware,
                           kernel_meta: Mapping[str, object]) -> np.ndarray:
    """The kernel model's predictions of feature rows, with the rows it does not cover
    on `hw` replaced by their roofline time, as `models.learned.predict_kernels` prices
    them; the training paths of the step models take their kernel times from here, so
    that they see what a prediction will."""
    predicted_s = np.asarray(predicted_s, dtype=np.float64)
    outside = uncovered_rows(cpu_kind, hw, kernel_meta)
    if outside is None:
        return predicted_s
    return np.where(outside, np.asarray(roofline_s, np.float64), predicted_s)


def missing_loop_rate_note(kernels: Sequence[Kernel], program: Program, hw: Hardware) -> str:
    """A note when `hw` is a CPU whose calibration has no loop-convolution rate and
    some of `kernels` hold a convolution XLA:CPU runs as a loop nest ("" otherwise):
    they are then priced as library convolutions, far below their time."""
    if hw.kind != "cpu" or hw.loop_convolution_macs_per_s:
        return ""
    count = sum(1 for k in kernels if k.priced and k.kind == MATMUL
                and loop_convolution_macs(k, program))
    if not count:
        return ""
    return (f"{count} kernel(s) hold a convolution XLA:CPU runs as a loop nest (about 25x "
            f"slower than its convolution library); {hw.name}'s spec has no "
            "loop_convolution_macs_per_s, so they are priced as library convolutions: "
            "`stablecost hardware calibrate` measures it")
