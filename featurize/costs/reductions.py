"""Rules for reductions and ops over windows or whole dimensions: reduce,
reduce_window, select_and_scatter, sort, top_k, batch norm."""

from __future__ import annotations

import math

from ..program import Op, Program
from .opcost import OpCost, body_flops, body_transcendentals, full_bytes


def reduce_cost(op: Op, program: Program) -> OpCost:
    n_inputs = len(op.operands) // 2
    in_elements = op.operands[0].num_elements
    out_elements = op.results[0].num_elements
    flops = float((in_elements - out_elements) * body_flops(op))
    trans = float((in_elements - out_elements) * body_transcendentals(op))
    reads, writes = full_bytes(op)
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


def reduce_window_cost(op: Op, program: Program) -> OpCost:
    window = effective_window(op)
    applications = op.results[0].num_elements * max(window - 1, 0)
    flops = float(applications * body_flops(op))
    trans = float(applications * body_transcendentals(op))
    reads, writes = full_bytes(op)
    return OpCost(flops, trans, reads, writes, "vector")


def select_and_scatter_cost(op: Op, program: Program) -> OpCost:
    """Per source element: select over its window (window - 1 applications of the
    select region) and one application of the scatter region, as XLA counts it."""
    attrs = op.attributes
    window = math.prod(attrs.get("window_dimensions") or [1])
    source = op.operands[1].num_elements
    select, scatter = attrs.get("select_flops", 1), attrs.get("scatter_flops", 1)
    flops = float(source * (max(window - 1, 0) * select + scatter))
    reads, writes = full_bytes(op)
    return OpCost(flops, 0.0, reads, writes, "vector")


def sort_cost(op: Op, program: Program) -> OpCost:
    shape = op.operands[0].shape
    dim = op.attributes.get("dimension", -1)
    n = shape[dim] if shape else 1
    comparisons = op.operands[0].num_elements * max(1, math.ceil(math.log2(max(n, 2))))
    flops = float(comparisons * max(1, body_flops(op)))
    trans = float(comparisons * body_transcendentals(op))
    reads, writes = full_bytes(op)
    return OpCost(flops, trans, reads, writes, "vector")


def top_k_cost(op: Op, program: Program) -> OpCost:
    shape = op.operands[0].shape
    n = shape[-1] if shape else 1
    flops = float(op.operands[0].num_elements * max(1, math.ceil(math.log2(max(n, 2)))))
    reads, writes = full_bytes(op)
    return OpCost(flops, 0.0, reads, writes, "vector")


def batch_norm_cost(op: Op, program: Program) -> OpCost:
    elements = op.operands[0].num_elements
    reads, writes = full_bytes(op)
    per = {"batch_norm_inference": 4, "batch_norm_training": 7, "batch_norm_grad": 11}
    return OpCost(float(elements * per[op.opcode]), float(op.operands[1].num_elements),
                  reads, writes, "vector")
