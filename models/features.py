"""Per-kernel feature vectors for the learned models.

One row per fused kernel: what the kernel does (opcode mix, FLOPs, bytes, arithmetic
intensity, shapes and their alignment, dtypes, layout, reduction and window sizes,
fusion size), what the chip offers for it (peak FLOP/s for its dtype, bandwidth,
cache, compute units, launch overhead) and the roofline's answer, so one model can
serve several chips. Every size enters as log2(1 + x). The column list is the schema a
saved model records and checks on load (`FEATURE_SCHEMA_VERSION`).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..dtypes import compute_class
from ..featurize.costs import effective_window
from ..featurize.fusion import COLLECTIVE, LOOP, MATMUL, REDUCTION, STANDALONE, Kernel
from ..featurize.program import Op, Program
from ..hardware import Hardware
from .roofline import kernel_dtypes, kernel_time

FEATURE_SCHEMA_VERSION = "3"

KINDS = (LOOP, REDUCTION, MATMUL, STANDALONE, COLLECTIVE)
DTYPE_CLASSES = ("f32", "bf16", "f16", "f8", "i8", "int", "f64")
OPCODES = (
    "dot_general", "convolution", "add", "multiply", "subtract", "divide", "maximum",
    "minimum", "negate", "abs", "exponential", "log", "tanh", "logistic", "sqrt", "rsqrt",
    "power", "sine", "cosine", "log_plus_one", "exponential_minus_one", "floor", "sign",
    "compare", "select", "clamp", "convert", "broadcast_in_dim", "transpose", "reshape",
    "slice", "pad", "concatenate", "reverse", "iota", "reduce", "reduce_window", "gather",
    "scatter", "dynamic_slice", "dynamic_update_slice", "sort", "constant", "fft",
    "chlo.top_k", "xor", "or", "and", "shift_left", "shift_right_logical", "complex", "real",
    "imag", "select_and_scatter",
)
_OPCODE_INDEX = {name: i for i, name in enumerate(OPCODES)}
_FREE = frozenset({"reshape", "constant", "bitcast_convert", "get_tuple_element", "tuple",
                   "optimization_barrier"})


def _lg(x: float) -> float:
    return math.log2(1.0 + max(float(x), 0.0))


FEATURES: tuple[str, ...] = (
    # chip
    "hw_matmul_peak", "hw_vector_peak", "hw_bandwidth", "hw_cache", "hw_compute_units",
    "hw_launch_overhead_us", "hw_is_cpu", "hw_is_gpu", "hw_is_tpu",
    # roofline (log2 of microseconds)
    "rl_compute_us", "rl_memory_us", "rl_busy_us", "rl_compute_bound",
    # kernel totals
    *(f"kind_{k}" for k in KINDS),
    "n_ops", "n_compute_ops", "flops", "matmul_flops", "vector_flops", "transcendentals",
    "bytes_read", "bytes_written", "intensity", "n_inputs",
    *(f"dtype_{d}" for d in DTYPE_CLASSES), "dtype_bits",
    # root output
    "out_rank", "out_elements", "out_last", "out_second_last", "out_last_mod8",
    "out_last_mod128", "out_last_pow2",
    # dot_general
    "dot_batch", "dot_m", "dot_n", "dot_k", "dot_lhs_contract_last", "dot_rhs_contract_first",
    "dot_align8", "dot_align128", "dot_out_wider",
    # convolution
    "conv_batch", "conv_out_spatial", "conv_in_features", "conv_out_features",
    "conv_window", "conv_stride", "conv_lhs_dilated", "conv_rhs_dilated", "conv_groups",
    "conv_batch_groups", "conv_channels_last", "conv_spatial_rank",
    # reductions and windows
    "reduce_inputs_per_output", "reduce_outputs", "reduce_last_dim", "window_size",
    "window_cumulative",
    # FFT and top-k
    "fft_points", "fft_rank", "fft_real", "fft_pow2", "topk_k",
    # data movement, indexing, sort
    "transpose_moves_last", "gather_indices", "gather_slice", "sort_length", "sort_operands",
    # opcode mix
    *(f"op_{name}" for name in OPCODES), "op_other",
)
N_FEATURES = len(FEATURES)
# what the chip offers: constant within one machine's data, so in data of several
# machines they tell the machines apart rather than explain a kernel
CHIP_FEATURES: tuple[str, ...] = tuple(name for name in FEATURES if name.startswith("hw_"))
_COL = {name: i for i, name in enumerate(FEATURES)}


def hardware_row(hw: Hardware, dtype_class: str,
                 precision: str | None = None) -> dict[str, float]:
    """The chip's columns for a kernel of `dtype_class`; `precision` is the dot's
    (HIGHEST: an f32 dot's peak is the true fp32 rate, not TF32's on Ampere and later,
    as the roofline prices it)."""
    kind = hw.kind
    return {
        "hw_matmul_peak": _lg(hw.matmul_peak_flops_per_s(dtype_class if dtype_class in
                                                         ("f32", "bf16", "f16", "f8", "i8", "f64")
                                                         else "f32", precision) / 1e9),
        "hw_vector_peak": _lg(hw.vector_peak_flops_per_s(dtype_class if dtype_class in
                                                         ("f32", "bf16", "f16", "f64") else "f32")
                              / 1e9),
        "hw_bandwidth": _lg(hw.memory_bandwidth_bytes_per_s / 1e9),
        "hw_cache": _lg((hw.on_chip_cache_bytes or 0.0) / 1e6),
        "hw_compute_units": _lg(hw.compute_units or 0),
        "hw_launch_overhead_us": _lg(hw.launch_overhead_s * 1e6),
        "hw_is_cpu": float(kind == "cpu"), "hw_is_gpu": float(kind == "gpu"),
        "hw_is_tpu": float(kind == "tpu"),
    }


def kernel_features(kernel: Kernel, program: Program, hw: Hardware,
                    out: np.ndarray | None = None) -> np.ndarray:
    """The feature vector of one kernel on one chip (written into `out` if given)."""
    row = np.zeros(N_FEATURES, dtype=np.float32) if out is None else out
    ops = program.ops
    root = ops[kernel.root]
    members = [ops[i] for i in kernel.ops]

    def put(name: str, value: float) -> None:
        row[_COL[name]] = value

    matmul_dtype, vector_dtype, precision = kernel_dtypes(kernel, program)
    dtype = matmul_dtype if kernel.kind == MATMUL else vector_dtype
    dclass = compute_class(dtype)
    for name, value in hardware_row(hw, dclass, precision).items():
        put(name, value)
    rl = kernel_time(kernel, program, hw)
    put("rl_compute_us", _lg(rl.compute_s * 1e6))
    put("rl_memory_us", _lg(rl.memory_s * 1e6))
    put("rl_busy_us", _lg(max(rl.compute_s, rl.memory_s) * 1e6))
    put("rl_compute_bound", float(rl.compute_s >= rl.memory_s))

    if kernel.kind in KINDS:
        put(f"kind_{kernel.kind}", 1.0)
    put("n_ops", _lg(len(members)))
    put("n_compute_ops", _lg(sum(1 for m in members if m.opcode not in _FREE)))
    put("flops", _lg(kernel.flops))
    put("matmul_flops", _lg(kernel.matmul_flops))
    put("vector_flops", _lg(kernel.flops - kernel.matmul_flops))
    put("transcendentals", _lg(kernel.transcendentals))
    put("bytes_read", _lg(kernel.bytes_read))
    put("bytes_written", _lg(kernel.bytes_written))
    put("intensity", _lg(kernel.flops / max(kernel.bytes_accessed, 1.0)))
    member_set = set(kernel.ops)
    external = {v for m in members for v in m.inputs if program.producers[v] not in member_set}
    put("n_inputs", float(len(external)))
    if dclass in DTYPE_CLASSES:
        put(f"dtype_{dclass}", 1.0)
    from ..dtypes import bits_per_element

    put("dtype_bits", float(bits_per_element(dtype) or 32))

    out_type = root.results[0] if root.results else None
    if kernel.kind == LOOP:  # a loop kernel's shape is its last op's output
        last = ops[max(kernel.ops)]
        out_type = last.results[0] if last.results else out_type
    if out_type is not None and out_type.shape:
        shape = out_type.shape
        put("out_rank", float(len(shape)))
        put("out_elements", _lg(out_type.num_elements))
        put("out_last", _lg(shape[-1]))
        put("out_second_last", _lg(shape[-2]) if len(shape) > 1 else 0.0)
        put("out_last_mod8", float(shape[-1] % 8 == 0))
        put("out_last_mod128", float(shape[-1] % 128 == 0))
        put("out_last_pow2", float(shape[-1] & (shape[-1] - 1) == 0))

    counts = np.zeros(len(OPCODES) + 1, dtype=np.float32)
    for m in members:
        counts[_OPCODE_INDEX.get(m.opcode, len(OPCODES))] += 1
        if m.opcode == "dot_general":
            _dot_features(m, put)
        elif m.opcode == "convolution":
            _conv_features(m, put)
        elif m.opcode in ("reduce", "reduce_window"):
            _reduce_features(m, put)
        elif m.opcode == "transpose":
            perm = m.attributes.get("permutation") or []
            if perm and perm[-1] != len(perm) - 1:
                put("transpose_moves_last", 1.0)
        elif m.opcode in ("gather", "scatter", "dynamic_gather"):
            index = m.operands[1] if len(m.operands) > 1 else None
            if index is not None:
                put("gather_indices", _lg(index.num_elements))
            put("gather_slice", _lg(m.results[0].num_elements if m.results else 0))
        elif m.opcode == "sort":
            shape = m.operands[0].shape
            dim = m.attributes.get("dimension", -1)
            put("sort_length", _lg(shape[dim] if shape else 1))
            put("sort_operands", float(len(m.operands)))
        elif m.opcode == "chlo.top_k":
            shape = m.operands[0].shape
            put("sort_length", _lg(shape[-1] if shape else 1))
            put("topk_k", _lg(m.attributes.get("k") or 1))
        elif m.opcode == "fft":
            lengths = m.attributes.get("fft_length") or [1]
            put("fft_points", _lg(math.prod(lengths)))
            put("fft_rank", float(len(lengths)))
            put("fft_real", float("RFFT" in str(m.attributes.get("fft_type", ""))))
            put("fft_pow2", float(all(n & (n - 1) == 0 for n in lengths)))
    start = _COL["op_" + OPCODES[0]]
    row[start:start + len(counts)] = np.log2(1.0 + counts)
    return row


def _dot_features(op: Op, put) -> None:
    dims = op.attributes.get("dot_dimension_numbers", {}) or {}
    lhs, rhs = op.operands[0], op.operands[1]
    lb = dims.get("lhs_batching_dimensions", []) or []
    lc = dims.get("lhs_contracting_dimensions", []) or []
    rb = dims.get("rhs_batching_dimensions", []) or []
    rc = dims.get("rhs_contracting_dimensions", []) or []
    batch = math.prod(lhs.shape[d] for d in lb)
    k = math.prod(lhs.shape[d] for d in lc)
    m = math.prod(s for d, s in enumerate(lhs.shape) if d not in lb and d not in lc)
    n = math.prod(s for d, s in enumerate(rhs.shape) if d not in rb and d not in rc)
    put("dot_batch", _lg(batch))
    put("dot_m", _lg(m))
    put("dot_n", _lg(n))
    put("dot_k", _lg(k))
    put("dot_lhs_contract_last", float(bool(lc) and lc[-1] == len(lhs.shape) - 1))
    put("dot_rhs_contract_first", float(bool(rc) and rc[0] == len(rb)))
    put("dot_align8", float(m % 8 == 0) + float(n % 8 == 0) + float(k % 8 == 0))
    put("dot_align128", float(m % 128 == 0) + float(n % 128 == 0) + float(k % 128 == 0))
    out_bits = op.results[0].nbytes / max(op.results[0].num_elements, 1)
    in_bits = lhs.nbytes / max(lhs.num_elements, 1)
    put("dot_out_wider", float(out_bits > in_bits))


def _conv_features(op: Op, put) -> None:
    a = op.attributes
    dims = a.get("dimension_numbers", {}) or {}
    lhs, rhs, out = op.operands[0], op.operands[1], op.results[0]
    try:
        put("conv_batch", _lg(lhs.shape[dims["input_batch_dimension"]]))
        put("conv_in_features", _lg(lhs.shape[dims["input_feature_dimension"]]))
        put("conv_out_features", _lg(out.shape[dims["output_feature_dimension"]]))
        spatial = math.prod(out.shape[d] for d in dims["output_spatial_dimensions"])
        put("conv_out_spatial", _lg(spatial))
        put("conv_window", _lg(math.prod(rhs.shape[d] for d in dims["kernel_spatial_dimensions"])))
        put("conv_channels_last", float(dims["input_feature_dimension"] == len(lhs.shape) - 1))
        put("conv_spatial_rank", float(len(dims["output_spatial_dimensions"])))
    except (KeyError, IndexError, TypeError):
        pass
    put("conv_stride", _lg(math.prod(a.get("window_strides") or [1])))
    put("conv_lhs_dilated", float(any(d > 1 for d in (a.get("lhs_dilation") or [1]))))
    put("conv_rhs_dilated", float(any(d > 1 for d in (a.get("rhs_dilation") or [1]))))
    put("conv_groups", _lg(a.get("feature_group_count", 1)))
    put("conv_batch_groups", _lg(a.get("batch_group_count", 1)))


def _reduce_features(op: Op, put) -> None:
    inp = op.operands[0]
    out = op.results[0] if op.results else inp
    put("reduce_inputs_per_output", _lg(inp.num_elements / max(out.num_elements, 1)))
    put("reduce_outputs", _lg(out.num_elements))
    if op.opcode == "reduce":
        dims = op.attributes.get("dimensions") or []
        put("reduce_last_dim", float(len(inp.shape) - 1 in dims))
    else:
        put("window_size", _lg(math.prod(op.attributes.get("window_dimensions") or [1])))
        put("window_cumulative", float(effective_window(op) < math.prod(
            op.attributes.get("window_dimensions") or [1])))


def _signature(kernel: Kernel, program: Program) -> tuple:
    """Kernels with equal signatures get equal features: layered models repeat the same
    few kernels thousands of times (a 75-layer training step: 2,402 kernels, 31 distinct)."""
    ops = program.ops
    root = ops[kernel.root]
    layout = tuple(repr(ops[i].attributes.get(_LAYOUT_ATTRIBUTE[ops[i].opcode]))
                   for i in kernel.ops if ops[i].opcode in _LAYOUT_ATTRIBUTE)
    return (kernel.kind, kernel.flops, kernel.matmul_flops, kernel.transcendentals,
            kernel.bytes_read, kernel.bytes_written, root.operands, root.results,
            ops[max(kernel.ops)].results, tuple(ops[i].opcode for i in kernel.ops), layout)


# The attribute that decides layout-dependent features of an op with equal types.
_LAYOUT_ATTRIBUTE = {"dot_general": "dot_dimension_numbers", "transpose": "permutation",
                     "convolution": "dimension_numbers", "reduce": "dimensions",
                     "sort": "dimension", "fft": "fft_type"}


def unique_features(kernels: Sequence[Kernel], program: Program,
                    hw: Hardware) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct rows, first kernel of each row, row of each kernel): kernels with
    equal signatures share one row, so a model predicts each distinct kernel once."""
    seen: dict[tuple, int] = {}
    inverse = np.empty(len(kernels), dtype=np.int64)
    first: list[int] = []
    for i, kernel in enumerate(kernels):
        key = _signature(kernel, program)
        row = seen.get(key)
        if row is None:
            row = seen[key] = len(first)
            first.append(i)
        inverse[i] = row
    matrix = np.zeros((len(first), N_FEATURES), dtype=np.float32)
    for row, i in enumerate(first):
        kernel_features(kernels[i], program, hw, matrix[row])
    return matrix, np.asarray(first, dtype=np.int64), inverse


def program_features(kernels: Sequence[Kernel], program: Program, hw: Hardware) -> np.ndarray:
    """A (kernels x features) matrix; repeated kernels are featurized once."""
    matrix, _, inverse = unique_features(kernels, program, hw)
    return matrix[inverse]
