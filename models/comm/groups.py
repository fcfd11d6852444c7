"""The devices a collective op of a per-device program runs on: its replica groups (or
`collective_permute`'s source/target pairs) as topology device ids.

The ids follow StableHLO's process-group semantics
(`process_id = replica_id x num_partitions + partition_id`):

- all_reduce / all_gather / reduce_scatter: no channel handle -> `cross_replica` (the
  groups hold replica ids, applied in every partition); a channel handle without
  `use_global_device_ids` -> `cross_replica_and_partition` (each replica group with
  all partitions of its replicas); with `use_global_device_ids` -> `flattened_ids`
  (the groups are process ids);
- all_to_all / collective_broadcast / collective_permute: a channel handle ->
  `cross_partition` (partition ids, in every replica), none -> `cross_replica`;
- empty replica_groups: one group of every replica (partition, process) of the mode.
A program whose counts contradict its ids (ids beyond num_replicas in cross_replica
mode, as hand-written programs often have) has its ids read as device ids.

Device ids are topology device ids (row-major over the topology's dims; see
`featurize.partition` for how a mesh is laid out).
"""

from __future__ import annotations

from ...featurize.costs import COLLECTIVE_OPS
from ...featurize.program import Op, Program


def _handle(op: Op) -> int:
    handle = op.attributes.get("channel_handle")
    if isinstance(handle, dict):
        return int(handle.get("handle", 0) or 0)
    return 0


def _raw_groups(op: Op) -> list[list[int]]:
    groups = op.attributes.get("replica_groups")
    if not groups:
        return []
    if all(isinstance(g, int) for g in groups):   # a 1-D list: one group
        return [list(groups)]
    return [list(g) for g in groups if g]


def device_groups(op: Op, num_replicas: int, num_partitions: int) -> list[tuple[int, ...]]:
    """The device-id groups of a replica-group collective (see the module docstring)."""
    R, P = max(num_replicas, 1), max(num_partitions, 1)
    groups = _raw_groups(op)
    ids = [d for g in groups for d in g]
    top = max(ids) + 1 if ids else 0
    handle = _handle(op)
    if op.opcode in ("all_to_all", "collective_broadcast"):
        mode = "cross_partition" if handle > 0 else "cross_replica"
    elif handle <= 0:
        mode = "cross_replica"
    elif op.attributes.get("use_global_device_ids"):
        mode = "flattened"
    else:
        mode = "cross_replica_and_partition"
    if mode == "flattened" or (mode != "cross_partition" and top > R and R == 1) or \
            (mode == "cross_partition" and top > P and P == 1):
        return [tuple(g) for g in groups] if groups else [tuple(range(R * P))]
    if mode == "cross_replica":
        groups = groups or [list(range(R))]
        return [tuple(r * P + p for r in g) for p in range(P) for g in groups]
    if mode == "cross_partition":
        groups = groups or [list(range(P))]
        return [tuple(r * P + p for p in g) for r in range(R) for g in groups]
    groups = groups or [list(range(R))]
    return [tuple(r * P + p for r in g for p in range(P)) for g in groups]


def device_pairs(op: Op, num_replicas: int, num_partitions: int) -> tuple[tuple[int, int], ...]:
    """collective_permute's (source, target) device pairs."""
    R, P = max(num_replicas, 1), max(num_partitions, 1)
    pairs = [tuple(p) for p in (op.attributes.get("source_target_pairs") or []) if len(p) == 2]
    if not pairs:
        return ()
    top = max(max(p) for p in pairs) + 1
    if _handle(op) > 0:
        if P == 1 and top > 1:
            return tuple((int(s), int(t)) for s, t in pairs)
        return tuple((r * P + s, r * P + t) for r in range(R) for s, t in pairs)
    if R == 1 and top > 1:
        return tuple((int(s), int(t)) for s, t in pairs)
    return tuple((s * P + p, t * P + p) for p in range(P) for s, t in pairs)


def devices_used(program: Program) -> int:
    """Devices the program's collectives reach: its own count, or more when a replica
    group names a higher device id."""
    n = program.num_devices
    for op in program.ops:
        if op.opcode == "collective_permute":
            for s, t in device_pairs(op, program.num_replicas, program.num_partitions):
                n = max(n, s + 1, t + 1)
        elif op.opcode in COLLECTIVE_OPS and op.opcode not in ("send", "recv"):
            for g in device_groups(op, program.num_replicas, program.num_partitions):
                if g:
                    n = max(n, max(g) + 1)
    return n
