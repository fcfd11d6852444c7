"""Collective kernels of a per-device program, priced on a topology.

For each collective op the replica groups (or `collective_permute`'s source/target
pairs) are mapped to device ids following StableHLO's process-group semantics
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
`featurize.partition` for how a mesh is laid out). Every group of a collective runs at
once: the collective takes as long as its slowest group (`collective_time` already
charges the sharing of links between sibling groups on tori).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from ..errors import InvalidArgumentError
from ..featurize.costs import COLLECTIVE_OPS
from ..featurize.fusion import Kernel
from ..featurize.program import Op, Program
from ..hardware import Hardware
from .collectives import PERMUTE, collective_time
from .topology import (
    FULLY_CONNECTED,
    HIERARCHICAL,
    RING,
    SWITCH,
    TOPOLOGY_KINDS,
    TORUS2D,
    TORUS3D,
    Topology,
    topology_for,
)

_ALIASES = {"nvswitch": SWITCH, "nvlink": SWITCH, "pcie": SWITCH, "fully-connected": FULLY_CONNECTED,
            "fullyconnected": FULLY_CONNECTED, "hier": HIERARCHICAL, "torus2": TORUS2D,
            "torus3": TORUS3D, "2d-torus": TORUS2D, "3d-torus": TORUS3D}
TOPOLOGY_HELP = ("switch, fully_connected, ring, torus2d, torus3d, hierarchical, each "
                 "optionally with :DIMS (e.g. torus2d:2x4, torus3d:2x2x2, hierarchical:2x8, "
                 "ring:8), or torus:AxB[xC]")


def parse_topology(spec: str | Topology | None, hardware: str | Hardware,
                   num_devices: int) -> Topology:
    """The topology `num_devices` devices of `hardware` are priced on (with the chip's
    calibrated link values where it has them).

    spec: None (the chip's default, `topology_for`), a `Topology`, or a string
    KIND[:DIMS]: KIND one of `TOPOLOGY_KINDS` (or nvswitch, torus), DIMS like "2x4".
    The topology may have more devices than the program (it uses the first ones)."""
    if isinstance(spec, Topology):
        if spec.num_devices < num_devices:
            raise InvalidArgumentError(
                f"topology {spec.describe()!r} has {spec.num_devices} devices, the program "
                f"runs on {num_devices}")
        return spec
    calibrated = _has_calibration(hardware)
    if spec is None:
        return topology_for(hardware, num_devices, calibrated=calibrated)
    kind, dims = parse_topology_spec(spec)
    total = math.prod(dims) if dims else num_devices
    if total < num_devices:
        raise InvalidArgumentError(
            f"topology {spec!r} has {total} devices, the program runs on {num_devices}")
    return topology_for(hardware, total, kind, dims, calibrated=calibrated)


def _has_calibration(hardware: str | Hardware) -> bool:
    """Chips whose links were fitted to measured collectives (`train/link_calibration.py`)
    are priced with the fitted values; the datasheet values remain for the rest."""
    from ..hardware import get_hardware

    hw = get_hardware(hardware) if isinstance(hardware, str) else hardware
    return getattr(hw, "calibrated_links", None) is not None


def parse_topology_spec(spec: Any) -> tuple[str, tuple[int, ...] | None]:
    """(kind, dims or None) of a topology string "KIND[:DIMS]", checked for spelling only
    (whether the chip can form it is `topology_for`'s call)."""
    if not isinstance(spec, str):
        raise InvalidArgumentError(
            f"topology must be a string or a Topology, got {type(spec).__name__}; allowed: "
            f"{TOPOLOGY_HELP}")
    text = spec.strip().lower()
    kind_text, _, dims_text = text.partition(":")
    kind_text = kind_text.strip().replace(" ", "")
    dims: tuple[int, ...] | None = None
    if dims_text:
        parts = dims_text.strip().split("x")
        if not all(p.strip().isascii() and p.strip().isdigit() and int(p) >= 1
                   for p in parts):
            raise InvalidArgumentError(
                f"topology {spec!r}: dims {dims_text!r} are not integers >= 1 joined by 'x'; "
                f"allowed: {TOPOLOGY_HELP}")
        dims = tuple(int(p) for p in parts)
    if kind_text == "torus":
        if dims is None or len(dims) not in (2, 3):
            raise InvalidArgumentError(
                f"topology {spec!r}: 'torus' needs 2 or 3 dims (torus:2x4); allowed: "
                f"{TOPOLOGY_HELP}")
        kind = TORUS2D if len(dims) == 2 else TORUS3D
    else:
        kind = _ALIASES.get(kind_text, kind_text)
    if kind not in TOPOLOGY_KINDS:
        raise InvalidArgumentError(f"unknown topology {spec!r}; allowed: {TOPOLOGY_HELP}")
    if dims is not None and kind in (SWITCH, FULLY_CONNECTED, RING) and len(dims) != 1:
        raise InvalidArgumentError(
            f"topology {spec!r}: {kind} has one dimension (e.g. {kind}:{math.prod(dims)}); "
            f"allowed: {TOPOLOGY_HELP}")
    return kind, dims


# --------------------------------------------------------------------------- groups


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


def buffer_bytes(op: Op) -> float:
    """The collective's per-device buffer in `models.collectives`' convention (nccl-tests'
    size): all_gather's gathered result, every other kind's operand."""
    types = op.results if op.opcode == "all_gather" else op.operands
    return float(sum(t.nbytes for t in types if t.dtype != "token"))


def collective_op(kernel: Kernel, program: Program) -> Op | None:
    """The collective op of a collective kernel."""
    for i in kernel.ops:
        op = program.ops[i]
        if op.opcode in COLLECTIVE_OPS:
            return op
    return None


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


# --------------------------------------------------------------------------- pricing


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
        groups, group = 1, (0, 1)
    elif kind == PERMUTE:
        pairs = device_pairs(op, R, P)
        cost = collective_time(PERMUTE, size, None, topology, algorithm, pairs=pairs)
        group = tuple(sorted({d for p in pairs for d in p}))
        groups = len(pairs)
    else:
        all_groups = sorted(set(device_groups(op, R, P)))
        cost = None
        group = ()
        for g in all_groups:
            c = collective_time(kind, size, g, topology, algorithm)
            if cost is None or c.time_s > cost.time_s:
                cost, group = c, g
        groups = len(all_groups)
        assert cost is not None
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
        if note:
            notes.append(note)
    return rows, notes

