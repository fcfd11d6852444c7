"""Rules for ops that move or only name data: they cost bytes, no FLOPs (scatter also
applies its update region)."""

from __future__ import annotations

from ..program import Op, Program
from .opcost import NONE_UNIT, OpCost, body_flops, body_transcendentals, full_bytes

# Ops that only reinterpret or name data.
METADATA_OPS = frozenset({
    "constant", "reshape", "bitcast_convert", "get_tuple_element", "tuple",
    "optimization_barrier", "sdy.sharding_constraint", "sdy.propagation_barrier",
    "create_token", "after_all", "partition_id", "replica_id", "get_dimension_size",
    "dynamic_reshape", "chlo.constant", "chlo.constant_like", "sdy.reshard",
    "mhlo.bitcast",
})

# Ops that move data: they read their operands and write their results.
MOVEMENT_OPS = frozenset({
    "broadcast_in_dim", "broadcast", "transpose", "pad", "concatenate", "reverse", "copy",
    "iota", "dynamic_iota", "dynamic_broadcast_in_dim", "dynamic_pad", "mhlo.copy",
})


def metadata_cost(op: Op, program: Program) -> OpCost:
    return OpCost(0.0, 0.0, (0.0,) * len(op.operands), (0.0,) * len(op.results), NONE_UNIT)


def movement_cost(op: Op, program: Program) -> OpCost:
    reads, writes = full_bytes(op)
    return OpCost(0.0, 0.0, reads, writes, "memory")


def slice_cost(op: Op, program: Program) -> OpCost:
    """slice / dynamic_slice / real_dynamic_slice read only what they return."""
    out = float(op.results[0].nbytes)
    reads = (out,) + tuple(float(t.nbytes) for t in op.operands[1:])
    return OpCost(0.0, 0.0, reads, (out,), "memory")


def dynamic_update_slice_cost(op: Op, program: Program) -> OpCost:
    """In place: reads the update and indices, writes the update's bytes."""
    update = float(op.operands[1].nbytes)
    reads = (0.0,) + tuple(float(t.nbytes) for t in op.operands[1:])
    return OpCost(0.0, 0.0, reads, (update,), "memory")


def gather_cost(op: Op, program: Program) -> OpCost:
    """Reads the gathered slices (output-sized) and the indices."""
    out = float(op.results[0].nbytes)
    reads = (out,) + tuple(float(t.nbytes) for t in op.operands[1:])
    return OpCost(0.0, 0.0, reads, (out,), "memory")


def scatter_cost(op: Op, program: Program) -> OpCost:
    """In place: reads indices, updates and the updated region; writes that region."""
    n_inputs = (len(op.operands) - 1) // 2
    updates = op.operands[n_inputs + 1:]
    update_bytes = [float(t.nbytes) for t in updates]
    # the update computation runs once per update position, on one element of each
    # operand: its op count already covers all of them
    applications = updates[0].num_elements if updates else 0
    reads = tuple(update_bytes) + (float(op.operands[n_inputs].nbytes),) + tuple(update_bytes)
    flops = float(applications * body_flops(op))
    trans = float(applications * body_transcendentals(op))
    return OpCost(flops, trans, reads, tuple(update_bytes), "vector")
