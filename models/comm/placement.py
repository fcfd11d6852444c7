"""Where a replica group sits on a `Topology`.

Device ids are row-major over `topology.dims` (the last dimension varies fastest), the
way XLA assigns devices to a mesh. `place_group` checks a group against a topology and
says which dimensions it spans, how far apart its members are and whether it is a
regular grid (the multi-dimensional algorithms need one); on a hierarchical topology,
how many nodes it covers with how many devices each. Placements are cached: a tuner
calls this in its inner loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from ...errors import InvalidArgumentError
from .topology import FULLY_CONNECTED, HIERARCHICAL, SWITCH, Topology


@dataclass(frozen=True)
class DimSpan:
    """How a group lies along one topology dimension: `size` distinct coordinates
    `stride` apart (hops between neighbouring members); `wraps` when they close a ring
    through the wraparound link."""

    dim: int
    size: int
    stride: int
    wraps: bool


@dataclass(frozen=True)
class GroupPlacement:
    """Where a replica group sits on a topology.

    regular: the group is a full grid (a product of evenly spaced coordinates per
        dimension; on a hierarchical topology, the same number of devices in each
        node), so multi-dimensional algorithms apply.
    spans: the ring/torus dimensions it spans (size > 1); one entry for a flat fabric;
        hierarchical: (nodes, devices per node).
    num_nodes / devices_per_node: hierarchical only (devices_per_node is the smallest
        count when irregular); 1 / size elsewhere.
    ring_hops: irregular ring/torus groups: the most hops between consecutive members
        (in the given order, cyclically); 1 elsewhere.
    """

    devices: tuple[int, ...]
    spans: tuple[DimSpan, ...]
    regular: bool
    num_nodes: int
    devices_per_node: int
    ring_hops: int

    @property
    def size(self) -> int:
        return len(self.devices)

    @property
    def crosses_nodes(self) -> bool:
        return self.num_nodes > 1

    @property
    def dimensions(self) -> tuple[int, ...]:
        """Indices of the topology dimensions the group spans."""
        return tuple(s.dim for s in self.spans if s.size > 1)


def check_group(group: Sequence[int] | int, topology: Topology) -> tuple[int, ...]:
    """The group as a tuple of device ids, validated against `topology`. An int n means
    the first n devices."""
    total = topology.num_devices
    if isinstance(group, bool):  # an int to isinstance, but neither a size nor ids
        raise _not_a_group(group) from None
    if isinstance(group, int):
        if not 1 <= group <= total:
            raise InvalidArgumentError(
                f"group size {group} is outside 1..{total} (the topology's devices)")
        return tuple(range(group))
    try:
        devices = tuple(group)
    except TypeError:
        raise _not_a_group(group) from None
    if not devices:
        raise InvalidArgumentError("group is empty; give at least one device id")
    for d in devices:
        if not (isinstance(d, int) and not isinstance(d, bool) and 0 <= d < total):
            raise InvalidArgumentError(
                f"device {d!r} in group {list(devices)} is outside the topology's "
                f"{total} devices (0..{total - 1})")
    if len(set(devices)) != len(devices):
        raise InvalidArgumentError(f"group {list(devices)} lists a device twice")
    return devices


def _not_a_group(group: object) -> InvalidArgumentError:
    return InvalidArgumentError(f"group must be a list of device ids or a size, got {group!r}")


def place_group(group: Sequence[int] | int, topology: Topology) -> GroupPlacement:
    """Map a replica group (device ids, row-major over `topology.dims`) onto
    `topology`."""
    return place_devices(check_group(group, topology), topology)


def coordinates(device: int, dims: Sequence[int]) -> tuple[int, ...]:
    """Row-major coordinates of `device` on a grid of `dims`."""
    coords = []
    for size in reversed(dims):
        device, c = divmod(device, size)
        coords.append(c)
    return tuple(reversed(coords))


def dim_distance(a: int, b: int, size: int, wraps: bool) -> int:
    """Hops between coordinates a and b along one dimension."""
    d = abs(a - b)
    return min(d, size - d) if wraps else d


@lru_cache(maxsize=8192)
def place_devices(devices: tuple[int, ...], topology: Topology) -> GroupPlacement:
    """`place_group` of a group already checked by `check_group` (cached)."""
    n = len(devices)
    if topology.kind in (SWITCH, FULLY_CONNECTED):
        return GroupPlacement(devices, (DimSpan(0, n, 1, False),), True, 1, n, 1)
    if topology.kind == HIERARCHICAL:
        per_node = topology.dims[1]
        counts: dict[int, int] = {}
        for d in devices:
            counts[d // per_node] = counts.get(d // per_node, 0) + 1
        q = len(counts)
        regular = len(set(counts.values())) == 1
        c = min(counts.values())
        node_spans = (DimSpan(0, q, 1, False), DimSpan(1, c, 1, False))
        return GroupPlacement(devices, node_spans, regular, q, c, 1)
    dims, wraps = topology.dims, topology.wraparound
    coords = [coordinates(d, dims) for d in devices]
    spans = []
    regular = True
    for i, size in enumerate(dims):
        values = sorted({c[i] for c in coords})
        if len(values) == 1:
            continue
        progression = _progression(values, size, wraps[i])
        if progression is None:
            regular = False
            spans.append(DimSpan(i, len(values), 1, False))
            continue
        k, stride = progression
        spans.append(DimSpan(i, k, stride, wraps[i] and k * stride == size))
    if regular and math.prod(s.size for s in spans) != n:
        regular = False
    hops = 1
    if not regular:
        hops = max(sum(dim_distance(a[i], b[i], dims[i], wraps[i]) for i in range(len(dims)))
                   for a, b in zip(coords, coords[1:] + coords[:1]))
    return GroupPlacement(devices, tuple(spans), regular, 1, n, max(hops, 1))


def _progression(values: list[int], size: int, wraps: bool) -> tuple[int, int] | None:
    """(count, smallest stride) when the sorted coordinates are evenly spaced (around
    the ring when the dimension wraps), else None."""
    k = len(values)
    best: int | None = None
    for start in (values if wraps else values[:1]):
        shifted = sorted((v - start) % size for v in values) if wraps else \
            [v - start for v in values]
        stride = shifted[1]
        if all(shifted[j] == j * stride for j in range(k)) and (best is None or stride < best):
            best = stride
    return None if best is None else (k, best)
