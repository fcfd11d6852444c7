"""Exact per-op costs: FLOPs, transcendentals, bytes read per operand and written per
result, and for collectives the bytes one device sends and receives.

Conventions (the ones XLA's HloCostAnalysis uses, so totals are comparable):
- an elementwise op costs one FLOP per output element (none for x*1, x/1, x+0, x-0,
  which XLA deletes); exp/log/tanh/sqrt/rsqrt/pow/
  logistic/sin/cos/tan/atan2/cbrt/erf cost one *transcendental* per element instead;
- dot_general costs 2 FLOPs per multiply-add: 2 x output elements x contracted size
  (one multiply per output element when the contracted size is 1);
- convolution costs 2 x (input features / feature groups) x output features x
  (batch / batch groups) x the number of (output, kernel) position pairs that land on a
  real input element, per spatial dimension (padding and dilation holes excluded);
- reduce costs (input elements - output elements) x the reducer's ops;
- data movement (broadcast, transpose, slice, pad, gather, ...) costs bytes, no FLOPs;
- metadata ops (reshape, bitcast_convert, get_tuple_element, constant, ...) cost
  nothing at all.
An op with no rule gets `None` and is reported by the caller, never priced 0.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable, NamedTuple

from .program import Op, Program, TensorType


class OpCost(NamedTuple):
    flops: float
    transcendentals: float
    read_bytes: tuple[float, ...]     # per operand
    write_bytes: tuple[float, ...]    # per result
    unit: str                         # matmul | vector | memory | none | comm
    comm_send_bytes: float = 0.0
    comm_recv_bytes: float = 0.0
    group_size: int = 1


_NONE_UNIT = "none"

# Ops that only reinterpret or name data.
METADATA_OPS = frozenset({
    "constant", "reshape", "bitcast_convert", "get_tuple_element", "tuple",
    "optimization_barrier", "sdy.sharding_constraint", "sdy.propagation_barrier",
    "create_token", "after_all", "partition_id", "replica_id", "get_dimension_size",
    "dynamic_reshape", "chlo.constant", "chlo.constant_like", "sdy.reshard",
    "mhlo.bitcast",
})
# custom_call targets that are annotations, not kernels.
METADATA_CUSTOM_CALLS = frozenset({
    "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "annotate_device_placement",
    "MoveToHost", "MoveToDevice", "LayoutConstraint", "X64Combine", "X64SplitLow",
    "X64SplitHigh", "xla.sdy.FuncResultSharding", "xla.sdy.GlobalToLocalShape",
    "xla.sdy.LocalToGlobalShape",
})

TRANSCENDENTAL_OPS = frozenset({
    "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "power",
    "rsqrt", "sqrt", "cbrt", "sine", "cosine", "tan", "tanh", "atan2",
    "chlo.erf", "chlo.erfc", "chlo.erf_inv", "chlo.lgamma", "chlo.digamma", "chlo.tan",
    "chlo.asin", "chlo.acos", "chlo.atan", "chlo.sinh", "chlo.cosh", "chlo.asinh",
    "chlo.acosh", "chlo.atanh", "chlo.bessel_i1e", "chlo.polygamma", "chlo.zeta",
})

ELEMENTWISE_OPS = frozenset({
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "negate",
    "abs", "sign", "compare", "select", "clamp", "convert", "and", "or", "xor", "not",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "popcnt",
    "count_leading_zeros", "floor", "ceil", "round_nearest_afz", "round_nearest_even",
    "is_finite", "real", "imag", "complex", "reduce_precision", "map",
    "chlo.conj", "chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf", "chlo.next_after",
    "chlo.square",
}) | {f"chlo.broadcast_{n}" for n in (
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power",
    "atan2", "and", "or", "xor", "compare", "select", "complex", "shift_left",
    "shift_right_arithmetic", "shift_right_logical", "next_after", "polygamma", "zeta")}

# Ops that move data: they read their operands and write their results.
MOVEMENT_OPS = frozenset({
    "broadcast_in_dim", "broadcast", "transpose", "pad", "concatenate", "reverse", "copy",
    "iota", "dynamic_iota", "dynamic_broadcast_in_dim", "dynamic_pad", "mhlo.copy",
})

COLLECTIVE_OPS = frozenset({
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute",
    "collective_broadcast", "send", "recv",
})


def _full(op: Op) -> tuple[tuple[float, ...], tuple[float, ...]]:
    return (tuple(float(t.nbytes) for t in op.operands),
            tuple(float(t.nbytes) for t in op.results))


def _out_elements(op: Op) -> int:
    return sum(t.num_elements for t in op.results if t.dtype not in ("token", "tuple"))


def _is_complex(t: TensorType) -> bool:
    return t.dtype.startswith("complex")


def body_flops(op: Op, default: int = 1) -> int:
    """Real FLOPs of one application of the op's scalar regions (`default` when the op
    carries no summary): on complex values an add counts 2, a multiply 6 (COMPLEX_FLOPS,
    the convention of the elementwise rules)."""
    attrs = op.attributes
    names = attrs.get("body_ops")
    if names is None:
        return attrs.get("body_flops", default)
    if op.operands and _is_complex(op.operands[0]):
        return sum(COMPLEX_FLOPS.get(name, 1) for name in names)
    return len(names)


def _body_transcendentals(op: Op) -> int:
    return op.attributes.get("body_transcendentals", 0)


def _metadata(op: Op, program: Program) -> OpCost:
    return OpCost(0.0, 0.0, (0.0,) * len(op.operands), (0.0,) * len(op.results), _NONE_UNIT)


# Real FLOPs of one complex operation (the schoolbook counts: (a+bi)(c+di) is 4
# multiplies and 2 adds; a division is a multiply by the conjugate, 2 more multiplies
# and 2 divisions); other elementwise ops count 1 per element.
COMPLEX_FLOPS = {"add": 2, "subtract": 2, "negate": 2, "multiply": 6, "divide": 11}


# x * 1, x / 1, x + 0 and x - 0 (jax's autodiff emits `ones * g` for the gradient seed
# of a sum): XLA's algebraic simplifier deletes them on every backend, so they do no
# arithmetic. The value is the neutral element; the operands it may be in.
_NEUTRAL = {"multiply": (1, None), "divide": (1, 1), "add": (0, None), "subtract": (0, 1)}


_SPLAT_PASSTHROUGH = frozenset({"broadcast_in_dim", "reshape", "convert"})


def is_identity(op: Op, program: Program) -> bool:
    """Whether `op` is x*1, x/1, x+0 or x-0 (see _NEUTRAL): an operand it may be in is a
    (broadcast, reshaped or converted) scalar constant holding the neutral element."""
    neutral = _NEUTRAL.get(op.opcode)
    inputs = op.inputs
    if neutral is None or len(inputs) != 2:
        return False
    value, only = neutral
    producers, ops = program.producers, program.ops
    # runs for every add and multiply of a program: plain loops, no helper calls
    for vid in (inputs if only is None else (inputs[only],)):
        index = producers[vid]
        while index >= 0:
            producer = ops[index]
            opcode = producer.opcode
            if opcode == "constant":
                if producer.attributes.get("value") == value:
                    return True
                break
            if opcode not in _SPLAT_PASSTHROUGH:
                break
            index = producers[producer.inputs[0]]
    return False


def _elementwise(op: Op, program: Program) -> OpCost:
    reads, writes = _full(op)
    if op.opcode in _NEUTRAL and is_identity(op, program):
        return OpCost(0.0, 0.0, reads, writes, "vector")
    elements = _out_elements(op)
    transcendentals = 0.0
    if op.opcode == "map":
        transcendentals = float(elements * _body_transcendentals(op))
        elements *= max(1, body_flops(op))
    elif op.results and _is_complex(op.results[0]):
        elements *= COMPLEX_FLOPS.get(op.opcode, 1)
    return OpCost(float(elements), transcendentals, reads, writes, "vector")


def _transcendental(op: Op, program: Program) -> OpCost:
    reads, writes = _full(op)
    return OpCost(0.0, float(_out_elements(op)), reads, writes, "vector")


def _movement(op: Op, program: Program) -> OpCost:
    reads, writes = _full(op)
    return OpCost(0.0, 0.0, reads, writes, "memory")


def _slice(op: Op, program: Program) -> OpCost:
    """slice / dynamic_slice / real_dynamic_slice read only what they return."""
    out = float(op.results[0].nbytes)
    reads = (out,) + tuple(float(t.nbytes) for t in op.operands[1:])
    return OpCost(0.0, 0.0, reads, (out,), "memory")


def _dynamic_update_slice(op: Op, program: Program) -> OpCost:
    """In place: reads the update and indices, writes the update's bytes."""
    update = float(op.operands[1].nbytes)
    reads = (0.0,) + tuple(float(t.nbytes) for t in op.operands[1:])
    return OpCost(0.0, 0.0, reads, (update,), "memory")


def _gather(op: Op, program: Program) -> OpCost:
    """Reads the gathered slices (output-sized) and the indices."""
    out = float(op.results[0].nbytes)
    reads = (out,) + tuple(float(t.nbytes) for t in op.operands[1:])
    return OpCost(0.0, 0.0, reads, (out,), "memory")


def _scatter(op: Op, program: Program) -> OpCost:
    """In place: reads indices, updates and the updated region; writes that region."""
    n_inputs = (len(op.operands) - 1) // 2
    updates = op.operands[n_inputs + 1:]
    update_bytes = [float(t.nbytes) for t in updates]
    # the update computation runs once per update position, on one element of each
    # operand: its op count already covers all of them
    applications = updates[0].num_elements if updates else 0
    reads = tuple(update_bytes) + (float(op.operands[n_inputs].nbytes),) + tuple(update_bytes)
    flops = float(applications * body_flops(op))
    trans = float(applications * _body_transcendentals(op))
    return OpCost(flops, trans, reads, tuple(update_bytes), "vector")


def _dot_general(op: Op, program: Program) -> OpCost:
    dims = op.attributes.get("dot_dimension_numbers", {})
    lhs = op.operands[0]
    contracted = math.prod(lhs.shape[d] for d in dims.get("lhs_contracting_dimensions", []))
    reads, writes = _full(op)
    return OpCost(_dot_flops(op.results[0].num_elements, contracted, _is_complex(lhs)), 0.0,
                  reads, writes, "matmul")


def _dot_flops(outputs: int, contracted: int, complex_values: bool = False) -> float:
    """2 FLOPs per multiply-add; a product that contracts nothing (an outer product, or
    a contracted size of 1) is one multiply per output, which is also what XLA's
    algebraic simplifier turns such a dot into. On complex values a multiply-add is
    8 real FLOPs and a multiply 6 (XLA counts them as real ones)."""
    if contracted == 1:
        return float(outputs) * (COMPLEX_FLOPS["multiply"] if complex_values else 1)
    return (8.0 if complex_values else 2.0) * outputs * contracted


def _dot(op: Op, program: Program) -> OpCost:
    """Legacy `stablehlo.dot`: contracts the last lhs dim with the first rhs dim."""
    lhs = op.operands[0]
    contracted = lhs.shape[-1] if lhs.shape else 1
    reads, writes = _full(op)
    return OpCost(_dot_flops(op.results[0].num_elements, contracted, _is_complex(lhs)), 0.0,
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


def _convolution(op: Op, program: Program) -> OpCost:
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
    if _is_complex(lhs):
        flops *= 4   # a complex multiply-add is 8 real FLOPs
    reads, writes = _full(op)
    return OpCost(flops, 0.0, reads, writes, "matmul")


def _reduce(op: Op, program: Program) -> OpCost:
    n_inputs = len(op.operands) // 2
    in_elements = op.operands[0].num_elements
    out_elements = op.results[0].num_elements
    flops = float((in_elements - out_elements) * body_flops(op))
    trans = float((in_elements - out_elements) * _body_transcendentals(op))
    reads, writes = _full(op)
    return OpCost(flops, trans, reads, writes, "vector" if n_inputs else "none")


# XLA's ReduceWindowRewriter turns a cumulative reduce_window (jnp.cumsum and friends:
# the window spans the whole dimension, padded by its length - 1 on one side) into a
# scan over tiles of this many elements, recursing on the tile totals: about
# base + 2 reductions per element instead of the dimension's length (quadratic).
SCAN_BASE_LENGTH = 16


def effective_window(op: Op) -> int:
    """The reductions per output element of a reduce_window: the window, except along
    a cumulative dimension, which XLA computes as a tiled scan."""
    attrs = op.attributes
    dims = attrs.get("window_dimensions") or [1]
    strides = attrs.get("window_strides") or [1] * len(dims)
    padding = attrs.get("padding") or [[0, 0]] * len(dims)
    shape = op.operands[0].shape
    total = 1
    for d, w in enumerate(dims):
        cumulative = (w > SCAN_BASE_LENGTH and d < len(shape) and w == shape[d]
                      and strides[d] == 1 and sorted(padding[d]) == [0, w - 1])
        total *= SCAN_BASE_LENGTH + 2 if cumulative else w
    return total


def _reduce_window(op: Op, program: Program) -> OpCost:
    window = effective_window(op)
    applications = op.results[0].num_elements * max(window - 1, 0)
    flops = float(applications * body_flops(op))
    trans = float(applications * _body_transcendentals(op))
    reads, writes = _full(op)
    return OpCost(flops, trans, reads, writes, "vector")


def _select_and_scatter(op: Op, program: Program) -> OpCost:
    """Per source element: select over its window (window - 1 applications of the
    select region) and one application of the scatter region, as XLA counts it."""
    attrs = op.attributes
    window = math.prod(attrs.get("window_dimensions") or [1])
    source = op.operands[1].num_elements
    select, scatter = attrs.get("select_flops", 1), attrs.get("scatter_flops", 1)
    flops = float(source * (max(window - 1, 0) * select + scatter))
    reads, writes = _full(op)
    return OpCost(flops, 0.0, reads, writes, "vector")


def _sort(op: Op, program: Program) -> OpCost:
    shape = op.operands[0].shape
    dim = op.attributes.get("dimension", -1)
    n = shape[dim] if shape else 1
    comparisons = op.operands[0].num_elements * max(1, math.ceil(math.log2(max(n, 2))))
    flops = float(comparisons * max(1, body_flops(op)))
    trans = float(comparisons * _body_transcendentals(op))
    reads, writes = _full(op)
    return OpCost(flops, trans, reads, writes, "vector")


def _top_k(op: Op, program: Program) -> OpCost:
    shape = op.operands[0].shape
    n = shape[-1] if shape else 1
    flops = float(op.operands[0].num_elements * max(1, math.ceil(math.log2(max(n, 2)))))
    reads, writes = _full(op)
    return OpCost(flops, 0.0, reads, writes, "vector")


def _fft(op: Op, program: Program) -> OpCost:
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
    reads, writes = _full(op)
    return OpCost(flops, 0.0, reads, writes, "vector")


def _cholesky(op: Op, program: Program) -> OpCost:
    shape = op.operands[0].shape
    n = shape[-1]
    batch = math.prod(shape[:-2])
    reads, writes = _full(op)
    return OpCost(batch * n ** 3 / 3.0, 0.0, reads, writes, "matmul")


def _triangular_solve(op: Op, program: Program) -> OpCost:
    a, b = op.operands[0].shape, op.operands[1].shape
    n = a[-1]
    batch = math.prod(b[:-2])
    reads, writes = _full(op)
    return OpCost(float(batch * n * n * (b[-1] if op.attributes.get("left_side") else b[-2])),
                  0.0, reads, writes, "matmul")


def _rng(op: Op, program: Program) -> OpCost:
    reads, writes = _full(op)
    return OpCost(float(_out_elements(op)), 0.0, reads, writes, "vector")


def _batch_norm(op: Op, program: Program) -> OpCost:
    elements = op.operands[0].num_elements
    reads, writes = _full(op)
    per = {"batch_norm_inference": 4, "batch_norm_training": 7, "batch_norm_grad": 11}
    return OpCost(float(elements * per[op.opcode]), float(op.operands[1].num_elements),
                  reads, writes, "vector")


def _group_size(op: Op, program: Program) -> int:
    groups = op.attributes.get("replica_groups")
    if groups and isinstance(groups[0], list) and groups[0]:
        return len(groups[0])
    return max(program.num_partitions, program.num_replicas, 1)


def _collective(op: Op, program: Program) -> OpCost:
    reads, writes = _full(op)
    kind = op.opcode
    if kind == "collective_permute":
        pairs = op.attributes.get("source_target_pairs") or []
        size = float(sum(t.nbytes for t in op.operands))
        moved = size if pairs else 0.0
        return OpCost(0.0, 0.0, reads, writes, "comm", moved, moved, 2)
    if kind in ("send", "recv", "collective_broadcast"):
        size = float(sum(t.nbytes for t in (op.operands if kind == "send" else op.results)
                         if t.dtype != "token"))
        return OpCost(0.0, 0.0, reads, writes, "comm", size, size, 2)
    n = _group_size(op, program)
    share = (n - 1) / n
    data_operands = [t for t in op.operands if t.dtype != "token"]
    in_bytes = float(sum(t.nbytes for t in data_operands))
    flops = trans = 0.0
    if kind in ("all_reduce", "reduce_scatter"):
        # the reduction applies to each operand separately, (n-1)/n of it per device
        moved = (2.0 if kind == "all_reduce" else 1.0) * share * in_bytes
        applications = share * sum(t.num_elements for t in data_operands)
        flops = applications * body_flops(op)
        trans = applications * _body_transcendentals(op)
    elif kind == "all_gather":
        moved = share * float(sum(t.nbytes for t in op.results))
    else:  # all_to_all
        moved = share * in_bytes
    return OpCost(flops, trans, reads, writes, "comm", moved, moved, n)


def _custom_call(op: Op, program: Program) -> OpCost | None:
    target = op.attributes.get("call_target_name", "")
    if target in METADATA_CUSTOM_CALLS:
        return _metadata(op, program)
    config = op.attributes.get("backend_config")
    if not isinstance(config, dict):
        return None
    if "fmha_scores" in config:
        return _flash_attention(op, config)
    if "cost_estimate" in config:
        return _author_estimate(op, config["cost_estimate"])
    return None


def attention_pairs(q_len: int, kv_len: int, mask_type: str, window: int = 0) -> int:
    """(query, key) pairs of one head that a flash-attention kernel computes: all of
    them, or under a causal mask (cuDNN's, aligned top-left: query t sees keys 0..t)
    those on or below the diagonal, at most `window` per query with a sliding window."""
    reach = min(kv_len, window) if window > 0 else kv_len   # keys one query may see
    if "CAUSAL" not in mask_type:
        return q_len * reach
    # query t sees min(t + 1, reach) keys
    if q_len <= reach:
        return q_len * (q_len + 1) // 2
    return reach * (reach + 1) // 2 + (q_len - reach) * reach


def _flash_attention(op: Op, config: dict) -> OpCost:
    """cuDNN flash attention (`__cudnn$fmha*`). The score matrix never reaches memory:
    bytes are the operands and results. Per computed (query, key) pair and head:
    forward, Q.K (2 x head dim FLOPs) and P.V (2 x value dim), the softmax 4 FLOPs and
    one exp; backward, the scores recomputed and four more products (dV, dP, dQ, dK:
    2 x (3 x head dim + 2 x value dim) in all), 4 FLOPs and one exp."""
    batch, heads, q_len, kv_len = config["fmha_scores"]
    head_dim = op.operands[0].shape[-1] if op.operands and op.operands[0].shape else 1
    value_dim = op.operands[2].shape[-1] if len(op.operands) > 2 and op.operands[2].shape \
        else head_dim
    pairs = batch * heads * attention_pairs(q_len, kv_len, config.get("mask_type", ""),
                                            config.get("sliding_window_length", 0))
    backward = "Backward" in op.attributes.get("call_target_name", "")
    per_pair = 2 * (3 * head_dim + 2 * value_dim) if backward else 2 * (head_dim + value_dim)
    reads, writes = _full(op)
    return OpCost(float(pairs * (per_pair + 4)), float(pairs), reads, writes, "matmul")


# A kernel whose author's estimate does this many FLOPs per byte or more is priced on
# the matrix units (a flash-attention or matmul kernel); below it, on the vector units.
MATMUL_INTENSITY = 8.0


def _author_estimate(op: Op, estimate: dict) -> OpCost:
    """A kernel priced by its author's own estimate (Pallas `CostEstimate`). The
    estimate's bytes are split over operands and results in proportion to their sizes
    (it gives only the total); bytes sent to other chips are carried as communication
    bytes of the op, and `analyze` notes that the kernel's time does not include them."""
    reads, writes = _full(op)
    total = sum(reads) + sum(writes)
    moved = estimate["bytes_accessed"]
    scale = moved / total if total else 0.0
    flops = estimate["flops"]
    remote = estimate["remote_bytes_transferred"]
    unit = "matmul" if moved == 0 or flops / moved >= MATMUL_INTENSITY else "vector"
    return OpCost(flops, estimate["transcendentals"], tuple(r * scale for r in reads),
                  tuple(w * scale for w in writes), unit, remote, remote)


_RULES: dict[str, Callable[[Op, Program], OpCost | None]] = {
    "dot_general": _dot_general, "dot": _dot, "chlo.ragged_dot": _dot,
    "convolution": _convolution, "dynamic_conv": _convolution,
    "reduce": _reduce, "reduce_window": _reduce_window,
    "select_and_scatter": _select_and_scatter,
    "slice": _slice, "dynamic_slice": _slice, "real_dynamic_slice": _slice,
    "dynamic_update_slice": _dynamic_update_slice,
    "gather": _gather, "dynamic_gather": _gather, "scatter": _scatter,
    "sort": _sort, "chlo.top_k": _top_k, "fft": _fft, "cholesky": _cholesky,
    "triangular_solve": _triangular_solve,
    "rng": _rng, "rng_bit_generator": _rng,
    "batch_norm_inference": _batch_norm, "batch_norm_training": _batch_norm,
    "batch_norm_grad": _batch_norm,
    "custom_call": _custom_call,
}
for _name in METADATA_OPS:
    _RULES[_name] = _metadata
for _name in ELEMENTWISE_OPS:
    _RULES[_name] = _elementwise
for _name in TRANSCENDENTAL_OPS:
    _RULES[_name] = _transcendental
for _name in MOVEMENT_OPS:
    _RULES[_name] = _movement
for _name in COLLECTIVE_OPS:
    _RULES[_name] = _collective


def has_rule(opcode: str) -> bool:
    return opcode in _RULES


def op_cost(op: Op, program: Program) -> OpCost | None:
    """The cost of one execution of `op`, or None when no rule prices it."""
    rule = _RULES.get(op.opcode)
    return rule(op, program) if rule is not None else None


def program_costs(program: Program) -> list[OpCost | None]:
    """`op_cost` for every op, in op order."""
    rules = _RULES
    return [(rule(op, program) if (rule := rules.get(op.opcode)) is not None else None)
            for op in program.ops]
