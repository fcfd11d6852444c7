"""The rule for collectives: the bytes one device sends and receives, and for
all_reduce / reduce_scatter the reduction's FLOPs."""

from __future__ import annotations

from ..program import Op, Program
from .opcost import OpCost, body_flops, body_transcendentals, full_bytes

COLLECTIVE_OPS = frozenset({
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute",
    "collective_broadcast", "send", "recv",
})


def _group_size(op: Op, program: Program) -> int:
    groups = op.attributes.get("replica_groups")
    if groups and isinstance(groups[0], list) and groups[0]:
        return len(groups[0])
    return max(program.num_partitions, program.num_replicas, 1)


def collective_cost(op: Op, program: Program) -> OpCost:
    reads, writes = full_bytes(op)
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
        trans = applications * body_transcendentals(op)
    elif kind == "all_gather":
        moved = share * float(sum(t.nbytes for t in op.results))
    else:  # all_to_all
        moved = share * in_bytes
    return OpCost(flops, trans, reads, writes, "comm", moved, moved, n)
