"""The rule for custom calls: annotations cost nothing, cuDNN flash attention is
counted from its shapes, a Pallas kernel by its author's estimate; other targets
have no rule."""

from __future__ import annotations

from ..program import Op, Program
from .movement import metadata_cost
from .opcost import OpCost, full_bytes

# custom_call targets that are annotations, not kernels.
METADATA_CUSTOM_CALLS = frozenset({
    "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "annotate_device_placement",
    "MoveToHost", "MoveToDevice", "LayoutConstraint", "X64Combine", "X64SplitLow",
    "X64SplitHigh", "xla.sdy.FuncResultSharding", "xla.sdy.GlobalToLocalShape",
    "xla.sdy.LocalToGlobalShape",
})


def custom_call_cost(op: Op, program: Program) -> OpCost | None:
    target = op.attributes.get("call_target_name", "")
    if target in METADATA_CUSTOM_CALLS:
        return metadata_cost(op, program)
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
    reads, writes = full_bytes(op)
    return OpCost(float(pairs * (per_pair + 4)), float(pairs), reads, writes, "matmul")


# A kernel whose author's estimate does this many FLOPs per byte or more is priced on
# the matrix units (a flash-attention or matmul kernel); below it, on the vector units.
MATMUL_INTENSITY = 8.0


def _author_estimate(op: Op, estimate: dict) -> OpCost:
    """A kernel priced by its author's own estimate (Pallas `CostEstimate`). The
    estimate's bytes are split over operands and results in proportion to their sizes
    (it gives only the total); bytes sent to other chips are carried as communication
    bytes of the op, and `analyze` notes that the kernel's time does not include them."""
    reads, writes = full_bytes(op)
    total = sum(reads) + sum(writes)
    moved = estimate["bytes_accessed"]
    scale = moved / total if total else 0.0
    flops = estimate["flops"]
    remote = estimate["remote_bytes_transferred"]
    unit = "matmul" if moved == 0 or flops / moved >= MATMUL_INTENSITY else "vector"
    return OpCost(flops, estimate["transcendentals"], tuple(r * scale for r in reads),
                  tuple(w * scale for w in writes), unit, remote, remote)
