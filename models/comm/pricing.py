"""Collective kernels of a per-device program, priced on a topology: one
`CollectiveRow` per collective kernel, its slowest replica group's `collective_time`
(every group of a collective runs at once; `collective_time` already charges the
sharing of links between sibling groups on tori).

An all-reduce whose result is only ever sliced to this device's 1/N share (what XLA's
SPMD partitioner emits for a gradient sharded over the reducing axis, FSDP's) is priced
as the reduce-scatter XLA's GPU and TPU pipelines turn it into (`ReduceScatterCreator`):
half the bytes on the wire of an all-reduce."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ...featurize.costs import COLLECTIVE_OPS
from ...featurize.fusion import Kernel
from ...featurize.program import Op, Program
from .collectives import collective_time
from .groups import device_groups, device_pairs
from .phases import PERMUTE, CollectiveCost
from .topology import Topology


def buffer_bytes(op: Op) -> float:
    """The collective's per-device buffer in `phases`' convention (nccl-tests' size):
    all_gather's gathered result, every other kind's operand."""
    types = op.results if op.opcode == "all_gather" else op.operands
    return float(sum(t.nbytes for t in types if t.dtype != "token"))


def sliced_to_one_share(op: Op, program: Program, group_size: int) -> bool:
    """Whether every use of the all-reduce `op`'s one result is a dynamic_slice that
    keeps 1/`group_size` of one dimension and all of the others (XLA's reduce-scatter
    pattern; the slice's offset is this device's index along the reducing axis)."""
    if group_size < 2 or len(op.outputs) != 1:
        return False
    shape = op.results[0].shape
    users = program.users[op.outputs[0]]
    if not users or op.outputs[0] in program.escaping:
        return False
    for u in users:
        user = program.ops[u]
        if user.opcode != "dynamic_slice" or user.inputs[0] != op.outputs[0]:
            return False
        sliced = user.results[0].shape
        differ = [d for d, (a, b) in enumerate(zip(shape, sliced)) if a != b]
        if len(sliced) != len(shape) or len(differ) != 1 or \
                sliced[differ[0]] * group_size != shape[differ[0]]:
            return False
    return True


def collective_op(kernel: Kernel, program: Program) -> Op | None:
    """The collective op of a collective kernel."""
    for i in kernel.ops:
        op = program.ops[i]
        if op.opcode in COLLECTIVE_OPS:
            return op
    return None


@dataclass(frozen=True, slots=True)
class CollectiveRow:
    """One collective kernel, priced: `time_s` per execution, `count` executions."""

    kernel: int
    kind: str
    location: str
    bytes_per_device: float    # nccl-tests size: all_gather's output, others' input
    group_size: int
    groups: int                # replica groups running at once
    group: tuple[int, ...]     # devices of the slowest group (sources+targets: permute)
    algorithm: str
    count: float
    time_s: float
    total_time_s: float
    alpha_s: float
    beta_s: float
    overhead_s: float
    dimensions: tuple[int, ...]    # topology dimensions the group spans
    crosses_nodes: bool

    def to_dict(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__slots__}
        out["group"] = list(self.group)
        out["dimensions"] = list(self.dimensions)
        return out


def price_collective(kernel: Kernel, program: Program, topology: Topology,
                     algorithm: str | None = None) -> tuple[CollectiveRow, str | None]:
    """(row, note): the modeled time of one collective kernel on `topology`."""
    op = collective_op(kernel, program)
    if op is None:   # pragma: no cover - collective kernels hold a collective op
        raise AssertionError(f"kernel {kernel.index} has no collective op")
    kind = op.opcode
    size = buffer_bytes(op)
    note = None
    R, P = program.num_replicas, program.num_partitions
    if kind in ("send", "recv"):
        size = float(sum(t.nbytes for t in (op.operands if kind == "send" else op.results)
                         if t.dtype != "token"))
        if kind == "recv" or topology.num_devices < 2:
            cost = collective_time(PERMUTE, size, None, topology, pairs=())
            note = f"{kind} at {op.location}: priced with its matching send"
        else:
            cost = collective_time(PERMUTE, size, None, topology, pairs=((0, 1),))
            note = (f"send at {op.location}: peer unknown, priced as one neighbour transfer "
                    "(device 0 -> 1)")
        groups = 1
        group: tuple[int, ...] = (0, 1)
    elif kind == PERMUTE:
        pairs = device_pairs(op, R, P)
        cost = collective_time(PERMUTE, size, None, topology, algorithm, pairs=pairs)
        group = tuple(sorted({d for p in pairs for d in p}))
        groups = len(pairs)
    else:
        all_groups = sorted(set(device_groups(op, R, P)))
        if kind == "all_reduce" and all_groups and \
                sliced_to_one_share(op, program, len(all_groups[0])):
            kind = "reduce_scatter"
            note = ("all_reduces whose result is only sliced to this device's share are "
                    "priced as the reduce_scatters XLA's GPU/TPU pipelines make of them")
        slowest: CollectiveCost | None = None
        group = ()
        for g in all_groups:
            c = collective_time(kind, size, g, topology, algorithm)
            if slowest is None or c.time_s > slowest.time_s:
                slowest, group = c, g
        groups = len(all_groups)
        assert slowest is not None
        cost = slowest
    row = CollectiveRow(
        kernel=kernel.index, kind=kind, location=op.location, bytes_per_device=size,
        group_size=cost.group_size if kind != PERMUTE else len(group), groups=groups,
        group=group, algorithm=cost.algorithm, count=kernel.count, time_s=cost.time_s,
        total_time_s=cost.time_s * kernel.count, alpha_s=cost.alpha_s, beta_s=cost.beta_s,
        overhead_s=cost.overhead_s, dimensions=cost.dimensions,
        crosses_nodes=cost.crosses_nodes)
    return row, note


def price_collectives(kernels: Sequence[Kernel], program: Program, topology: Topology,
                      algorithm: str | None = None) -> tuple[list[CollectiveRow], list[str]]:
    """Rows for every collective kernel (in kernel order) and notes."""
    rows, notes = [], []
    for kernel in kernels:
        if kernel.kind != "collective" or not kernel.priced:
            continue
        row, note = price_collective(kernel, program, topology, algorithm)
        rows.append(row)
        if note and note not in notes:
            notes.append(note)
    return rows, notes
