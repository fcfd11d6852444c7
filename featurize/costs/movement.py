"""Rules for ops that move or only name data: they cost bytes, no FLOPs (scatter also
applies its update region)."""

from __future__ import annotations

from ..program import STEP_BLOCK, Op, Program
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


# Copies: XLA's partitioner and the HLO -> StableHLO conversion add many; most are
# elided by XLA (see copy_cost).
COPY_OPS = frozenset({"copy", "mhlo.copy"})


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


def copy_cost(op: Op, program: Program) -> OpCost:
    """A copy costs nothing when XLA would elide it, else it moves its bytes.

    XLA deletes copies that keep no second value alive (algebraic simplification of
    layout-preserving copies, then copy insertion adds back only the copies aliasing
    needs). A copy is kept when its source stays live after it:
    - the source is itself returned or yielded (two values leave);
    - an op after the copy reads the source;
    - the source comes from another block (a loop or branch around the copy needs it
      in its next run), or is a parameter of the step read inside a loop or branch;
    - the source is a parameter of the step and the copy is returned (an output may
      not alias a parameter that was not donated).
    Otherwise it is elided: unit "none", no bytes (fusion treats it as metadata).

    >>> # %1 = mhlo.copy %0 ; %2 = add %1, %1 ; return %2  -> elided
    >>> # %1 = mhlo.copy %0 ; %2 = add %1, %0 ; return %2  -> kept (%0 read later)
    """
    if copy_elided(op, program):
        return metadata_cost(op, program)
    return movement_cost(op, program)


def copy_elided(op: Op, program: Program) -> bool:
    """Whether XLA would elide the copy `op` (see copy_cost)."""
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        return False
    source = op.inputs[0]
    if source in program.escaping:
        return False
    if any(user > op.index for user in program.users[source]):
        return False
    producer = program.producers[source]
    if producer >= 0:
        return program.ops[producer].block == op.block
    if source < program.num_parameters:   # a parameter of the step: in its first block
        return op.block == STEP_BLOCK and op.outputs[0] not in program.escaping
    return True   # a loop-carried value or a region argument of the copy's own block
