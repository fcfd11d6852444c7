"""Alpha-beta cost of collectives on a `Topology`: the entry point, which plans a
collective onto its fabric model and picks the algorithm.

Every collective is priced as `overhead_s + alpha_s + beta_s`: a fixed per-call overhead
(launch, setup), `alpha_s` = the latency of each message step (`Link.latency_s`, per hop
crossed on rings and tori), and `beta_s` = bytes on the busiest link over its bandwidth.
Reduction arithmetic is not charged here (the compute side prices it).

The formulas live with their fabric: `flat` (switch and fully-connected domains),
`torus` (rings and tori), `hierarchical` (nodes on a network); the kinds, algorithm
names, result records and bytes convention in `phases`.

Default algorithm (`algorithm=None`): like NCCL, the cheapest of the library's enabled
algorithms: all_reduce min(ring, tree, in_switch when the switch can reduce),
all_gather/reduce_scatter min(ring, in_switch); on hierarchical topologies
all_reduce min(hierarchical, ring, tree), all_gather/reduce_scatter ring (NCCL has no
two-level scheme for them; `hierarchical` can still be asked for); all_to_all and
collective_permute direct; broadcast ring. Tori: per-dimension rings (direct for
all_to_all and permutes), as XLA:TPU does.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

from ...errors import InvalidArgumentError
from .flat import Fabric, flat_allowed, flat_cost, flat_default, flat_fabric, flat_permute_classes
from .hierarchical import (
    HIER_ALGOS,
    hier_default,
    hier_flat,
    hier_levels,
    hier_permute_classes,
    hier_phases,
    most_in_one_node,
)
from .phases import (
    ALGORITHMS,
    ALL_TO_ALL,
    DIRECT,
    IN_SWITCH,
    KINDS,
    PERMUTE,
    RING,
    CollectiveCost,
    PermuteClass,
    Phase,
    check_algorithm,
    check_kind,
)
from .placement import GroupPlacement, check_group, place_devices
from .topology import FULLY_CONNECTED, HIERARCHICAL, SWITCH, TORUS_KINDS, Topology
from .torus import (
    IRREGULAR_LEVEL,
    TORUS_ALGOS,
    TORUS_DEFAULT,
    irregular_fabric,
    torus_permute_classes,
    torus_phases,
)

_Levels = Fabric | tuple[Fabric, Fabric] | None


def _plan(kind: str, placement: GroupPlacement,
          topology: Topology) -> tuple[str, tuple[str, ...], _Levels]:
    """(where, allowed algorithms, levels) for a group of 2+ devices: one flat fabric,
    (inter_node, intra_node) fabrics, or None for a regular group on a ring/torus."""
    tk = topology.kind
    if tk in (SWITCH, FULLY_CONNECTED):
        f = flat_fabric(topology, placement.size, topology.links[0], tk, tk)
        return topology.describe(), flat_allowed(kind, f), f
    if tk == HIERARCHICAL:
        inter, intra = hier_levels(topology, placement)
        if not placement.regular:
            where = f"{topology.describe()} (group with unequal devices per node)"
            allowed: tuple[str, ...] = (DIRECT,) if kind in (ALL_TO_ALL, PERMUTE) else (RING,)
            return where, allowed, (inter, intra)
        if inter.n == 1:
            return f"{topology.describe()} (one node)", flat_allowed(kind, intra), intra
        if intra.n == 1:
            return (f"{topology.describe()} (one device per node)",
                    flat_allowed(kind, inter), inter)
        allowed = tuple(a for a in HIER_ALGOS[kind]
                        if a != IN_SWITCH or intra.efficiency > 0)
        return topology.describe(), allowed, (inter, intra)
    if not placement.regular:
        where = f"{topology.describe()} (group that is not a grid)"
        allowed = (DIRECT,) if kind in (ALL_TO_ALL, PERMUTE) else (RING,)
        return where, allowed, irregular_fabric(topology, placement)
    return topology.describe(), TORUS_ALGOS[kind], None


def available_algorithms(kind: str, group: Sequence[int] | int,
                         topology: Topology) -> tuple[str, ...]:
    """The algorithms `collective_time` accepts for this collective, group and topology."""
    check_kind(kind)
    placement = place_devices(check_group(group, topology), topology)
    if placement.size <= 1:
        return ALGORITHMS
    return _plan(kind, placement, topology)[1]


def default_algorithm(kind: str, bytes_per_device: float, group: Sequence[int] | int,
                      topology: Topology) -> str:
    """The algorithm the library would pick (see the module docstring)."""
    return collective_time(kind, bytes_per_device, group, topology).algorithm


def collective_time(kind: str, bytes_per_device: float,
                    group: Sequence[int] | int | None, topology: Topology,
                    algorithm: str | None = None, *,
                    pairs: Sequence[tuple[int, int]] | None = None) -> CollectiveCost:
    """Alpha-beta time of one collective.

    kind: one of `KINDS` (StableHLO op names).
    bytes_per_device: the per-device buffer in nccl-tests' convention (module
        docstring); `bytes_per_device_from_send` converts `featurize.costs` values.
    group: the replica group (device ids, row-major over `topology.dims`), or its size n
        for the first n devices. For collective_permute without `pairs` the group's
        devices each send to the next (cyclically); broadcast's root is `group[0]`.
    algorithm: one of `ALGORITHMS`, or None for the library's choice.
    pairs: collective_permute only: the (source, target) pairs; `group` may be None.

    A group of one device costs 0. Results are cached: call it freely.
    """
    if kind not in KINDS:
        check_kind(kind)
    if not (isinstance(bytes_per_device, (int, float)) and not isinstance(bytes_per_device, bool)
            and math.isfinite(bytes_per_device) and bytes_per_device >= 0):
        raise InvalidArgumentError(
            f"bytes_per_device must be a finite number >= 0, got {bytes_per_device!r}")
    if not isinstance(topology, Topology):
        raise InvalidArgumentError(
            f"topology must be a Topology (see topology_for), got {type(topology).__name__}")
    if algorithm is not None and algorithm not in ALGORITHMS:
        raise InvalidArgumentError(
            f"algorithm {algorithm!r} is not one of {list(ALGORITHMS)}")
    pairs_t: tuple[tuple[int, int], ...] | None = None
    if pairs is not None:
        if kind != PERMUTE:
            raise InvalidArgumentError(
                f"pairs apply to collective_permute only, not {kind}")
        pairs_t = _check_pairs(pairs, topology)
        if group is None:
            group = sorted({d for p in pairs_t for d in p}) or [0]
    elif group is None:
        raise InvalidArgumentError(
            "group is required (a list of device ids or a size); only collective_permute "
            "with pairs may omit it")
    devices = check_group(group, topology)
    if topology.per_kind:      # calibrated per-kind link values
        topology = topology.for_kind(kind)
    return _collective_time(kind, float(bytes_per_device), devices, topology, algorithm,
                            pairs_t)


def _check_pairs(pairs: Sequence[tuple[int, int]],
                 topology: Topology) -> tuple[tuple[int, int], ...]:
    total = topology.num_devices
    out = []
    for p in pairs:
        try:
            s, t = p
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"pairs must be (source, target) device ids, got {p!r}") from None
        for d in (s, t):
            if not (isinstance(d, int) and not isinstance(d, bool) and 0 <= d < total):
                raise InvalidArgumentError(
                    f"device {d!r} in pair {tuple(p)} is outside the topology's {total} "
                    f"devices (0..{total - 1})")
        out.append((s, t))
    return tuple(out)


@lru_cache(maxsize=65536)
def _collective_time(kind: str, b: float, devices: tuple[int, ...], topology: Topology,
                     algorithm: str | None,
                     pairs: tuple[tuple[int, int], ...] | None) -> CollectiveCost:
    placement = place_devices(devices, topology)
    n = placement.size
    where = topology.describe()
    if kind == PERMUTE:
        if algorithm not in (None, DIRECT):
            check_algorithm(kind, algorithm, (DIRECT,), where)
        if pairs is None:
            pairs = tuple(zip(devices, devices[1:] + devices[:1])) if n > 1 else ()
        classes = _permute_classes(pairs, topology)
        if not classes:
            return _zero(kind, DIRECT, b, n, placement, topology)
        level, hops, alpha, spb = max(classes, key=lambda c: c[2] + b * c[3])
        phase = Phase(PERMUTE, DIRECT, level, n, b, 1, hops, alpha, b * spb)
        return _total(kind, DIRECT, b, n, placement, topology, [phase])
    if n <= 1:
        return _zero(kind, algorithm or "none", b, n, placement, topology)
    where, allowed, data = _plan(kind, placement, topology)
    if algorithm is not None:
        check_algorithm(kind, algorithm, allowed, where)
    if isinstance(data, Fabric):
        irregular = data.level == IRREGULAR_LEVEL
        algo = algorithm or (allowed[0] if irregular else flat_default(kind, b, data))
        steps, hops, alpha, beta = flat_cost(kind, algo, b, data)
        hops = placement.ring_hops if irregular else hops
        phases = [Phase(kind, algo, data.level, n, b, steps, hops, alpha, beta)]
    elif isinstance(data, tuple):
        inter, intra = data
        if not placement.regular:
            algo = allowed[0]
            most = most_in_one_node(devices, topology.dims[1])
            phases = [hier_flat(kind, algo, b, n, inter, intra, most)]
        else:
            algo = algorithm or hier_default(kind, b, inter, intra)
            phases = hier_phases(kind, algo, b, inter, intra)
    else:
        algo = algorithm or TORUS_DEFAULT[kind]
        phases = torus_phases(kind, algo, b, placement, topology.links, where)
    return _total(kind, algo, b, n, placement, topology, phases)


def _zero(kind: str, algo: str, b: float, n: int, placement: GroupPlacement,
          topology: Topology) -> CollectiveCost:
    return CollectiveCost(kind, algo, b, n, 0.0, 0.0, 0.0, 0.0, 0, 0, (), False,
                          topology.describe(), ())


def _total(kind: str, algo: str, b: float, n: int, placement: GroupPlacement,
           topology: Topology, phases: list[Phase]) -> CollectiveCost:
    alpha = sum(p.alpha_s for p in phases)
    beta = sum(p.beta_s for p in phases)
    overhead = topology.overhead_s
    return CollectiveCost(
        kind=kind, algorithm=algo, bytes_per_device=b, group_size=n,
        time_s=overhead + alpha + beta, alpha_s=alpha, beta_s=beta, overhead_s=overhead,
        steps=sum(p.steps for p in phases), hops=max((p.hops for p in phases), default=0),
        dimensions=placement.dimensions, crosses_nodes=placement.crosses_nodes,
        topology=topology.describe(), phases=tuple(phases))


@lru_cache(maxsize=4096)
def _permute_classes(pairs: tuple[tuple[int, int], ...],
                     topology: Topology) -> tuple[PermuteClass, ...]:
    """(level, hops, alpha_s, seconds per byte on the busiest link) for each class of
    links the permutation uses; classes work concurrently."""
    pairs = tuple((s, t) for s, t in pairs if s != t)
    if not pairs:
        return ()
    if topology.kind in TORUS_KINDS:
        return torus_permute_classes(pairs, topology)
    if topology.kind == HIERARCHICAL:
        return hier_permute_classes(pairs, topology)
    return flat_permute_classes(pairs, topology)
