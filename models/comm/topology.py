"""Interconnect topologies as data, and the default topology of a chip.

A `Topology` is a grid of `prod(dims)` devices numbered row-major over `dims` (the last
dimension varies fastest), the way XLA assigns devices to a mesh. Every `Link` is one
physical link (or one switch port), described per direction:

- ``switch``: one dimension; each device has one port into a non-blocking switch
  (NVSwitch, a PCIe switch). `in_switch_reduction_efficiency > 0` means the switch can
  reduce and multicast (NVLink SHARP, "NVLS").
- ``fully_connected``: one dimension; every pair of devices has its own link (AMD
  Infinity Fabric on MI300X), so a device's bandwidth is `peers` links wide.
- ``ring``: one dimension of neighbour links (a 1-D torus).
- ``torus2d`` / ``torus3d``: TPU ICI; each dimension has its own links, with or without
  a wraparound link (`wraparound`, one flag per dimension).
- ``hierarchical``: `dims == (nodes, chips_per_node)`; `links == (inter_node,
  intra_node)`. Inside a node the fabric is `node_kind` (switch or fully_connected);
  between nodes each device has its own NIC into a non-blocking network (rail-optimised
  fat tree, as on DGX clusters).

`topology_for` builds the default from a chip's `[interconnect]` data (cached: a tuner
calls it in its inner loop); `placement.place_group` maps a replica group onto a
topology.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from ...errors import InvalidArgumentError
from ...hardware import CalibratedProtocol, Hardware, get_hardware

SWITCH = "switch"
FULLY_CONNECTED = "fully_connected"
RING = "ring"
TORUS2D = "torus2d"
TORUS3D = "torus3d"
HIERARCHICAL = "hierarchical"
TOPOLOGY_KINDS = (FULLY_CONNECTED, SWITCH, RING, TORUS2D, TORUS3D, HIERARCHICAL)
TORUS_KINDS = (RING, TORUS2D, TORUS3D)
NODE_KINDS = (SWITCH, FULLY_CONNECTED)

_NDIMS = {SWITCH: 1, FULLY_CONNECTED: 1, RING: 1, TORUS2D: 2, TORUS3D: 3, HIERARCHICAL: 2}
# The chip catalog's `topology` names -> the kind of fabric they describe.
_NATIVE = {"nvswitch": SWITCH, "pcie": SWITCH, "fully_connected": FULLY_CONNECTED,
           "torus2d": TORUS2D, "torus3d": TORUS3D}


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


@dataclass(frozen=True)
class Link:
    """One class of links: bandwidth per direction and the latency (alpha) of one
    message step over one hop."""

    bandwidth_bytes_per_s: float
    latency_s: float

    def __post_init__(self) -> None:
        if not (_number(self.bandwidth_bytes_per_s) and self.bandwidth_bytes_per_s > 0):
            raise InvalidArgumentError(
                f"link bandwidth_bytes_per_s must be a positive number, got "
                f"{self.bandwidth_bytes_per_s!r}")
        if not (_number(self.latency_s) and self.latency_s >= 0):
            raise InvalidArgumentError(
                f"link latency_s must be a number >= 0, got {self.latency_s!r}")


@dataclass(frozen=True)
class Topology:
    """A device interconnect (pure data; see the module docstring for each kind).

    dims: devices per dimension, row-major device numbering; hierarchical:
        (nodes, chips_per_node).
    links: one `Link` per dimension; hierarchical: (inter_node, intra_node).
    overhead_s: fixed cost of one collective call (launch, setup).
    wraparound: ring/torus only, one flag per dimension (default: all wrap).
    in_switch_reduction_efficiency: switch fabrics (or a hierarchical switch node
        fabric) that reduce in the switch: the fraction of link bandwidth reached; 0: no.
    node_kind: hierarchical only: the fabric inside a node (switch or fully_connected).
    hardware: the chip's name, for reports.
    per_kind: (collective kind, topology) pairs: the same fabric with link values fitted
        to that kind (`topology_for(..., calibrated=True)`); `collective_time` prices a
        kind listed here on its own topology.
    protocols: switch only: NCCL protocol regimes fitted to measured collectives of one
        kind (`[interconnect.calibrated.<kind>]`, the per-kind topologies of
        `topology_for(..., calibrated=True)`); `flat` then prices ring / direct / in_switch
        under each (in_switch: the one named `NVLS_PROTOCOL`) and keeps the cheapest. Each
        protocol's `overhead_s` is its whole per-call cost (>= `overhead_s`).
    """

    kind: str
    dims: tuple[int, ...]
    links: tuple[Link, ...]
    overhead_s: float = 0.0
    wraparound: tuple[bool, ...] = ()
    in_switch_reduction_efficiency: float = 0.0
    node_kind: str = ""
    hardware: str = ""
    per_kind: tuple[tuple[str, "Topology"], ...] = ()
    protocols: tuple[CalibratedProtocol, ...] = ()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "protocols", tuple(self.protocols))
        if self.protocols:
            if self.kind != SWITCH:
                raise InvalidArgumentError(
                    f"protocols apply to switch topologies only, not {self.kind!r}")
            for p in self.protocols:
                if not (isinstance(p, CalibratedProtocol) and p.overhead_s >= self.overhead_s
                        and p.latency_s >= 0 and p.bandwidth_bytes_per_s > 0
                        and 0 <= p.buffer_seconds_per_byte < math.inf
                        and 0 <= p.peer_seconds_per_byte < math.inf):
                    raise InvalidArgumentError(
                        f"protocol {p!r} needs overhead_s >= the topology's "
                        f"{self.overhead_s!r}, latency_s >= 0, a positive bandwidth and "
                        "finite buffer_seconds_per_byte and peer_seconds_per_byte >= 0")
        set_(self, "dims", tuple(self.dims))
        set_(self, "links", tuple(self.links))
        set_(self, "wraparound", tuple(bool(w) for w in self.wraparound))
        if self.kind not in TOPOLOGY_KINDS:
            raise InvalidArgumentError(
                f"topology kind {self.kind!r} is not one of {list(TOPOLOGY_KINDS)}")
        ndims = _NDIMS[self.kind]
        if len(self.dims) != ndims or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in self.dims):
            raise InvalidArgumentError(
                f"{self.kind} topology needs dims of {ndims} integer(s) >= 1, got "
                f"{self.dims!r}")
        if len(self.links) != ndims or not all(isinstance(l, Link) for l in self.links):
            raise InvalidArgumentError(
                f"{self.kind} topology needs {ndims} Link(s) (one per dimension), got "
                f"{len(self.links)}")
        if self.kind in TORUS_KINDS:
            if not self.wraparound:
                set_(self, "wraparound", (True,) * ndims)
            elif len(self.wraparound) != ndims:
                raise InvalidArgumentError(
                    f"{self.kind} topology needs {ndims} wraparound flag(s), got "
                    f"{len(self.wraparound)}")
        elif self.wraparound:
            raise InvalidArgumentError(
                f"wraparound applies to {list(TORUS_KINDS)} topologies, not {self.kind}")
        if not (_number(self.overhead_s) and self.overhead_s >= 0):
            raise InvalidArgumentError(f"overhead_s must be a number >= 0, got "
                                       f"{self.overhead_s!r}")
        eff = self.in_switch_reduction_efficiency
        if not (_number(eff) and 0 <= eff <= 1):
            raise InvalidArgumentError(
                f"in_switch_reduction_efficiency must be in [0, 1], got {eff!r}")
        switch_fabric = self.kind == SWITCH or (
            self.kind == HIERARCHICAL and self.node_kind == SWITCH)
        if eff > 0 and not switch_fabric:
            raise InvalidArgumentError(
                "in_switch_reduction_efficiency needs a switch fabric (kind 'switch' or a "
                f"hierarchical topology with node_kind 'switch'), not {self.kind!r}")
        if self.kind == HIERARCHICAL:
            if self.node_kind not in NODE_KINDS:
                raise InvalidArgumentError(
                    f"hierarchical node_kind {self.node_kind!r} is not one of "
                    f"{list(NODE_KINDS)}")
        elif self.node_kind:
            raise InvalidArgumentError(
                f"node_kind applies to hierarchical topologies, not {self.kind}")

    @property
    def num_devices(self) -> int:
        return math.prod(self.dims)

    def for_kind(self, kind: str) -> "Topology":
        """The topology to price collective `kind` on: its `per_kind` entry, else self."""
        for k, topology in self.per_kind:
            if k == kind:
                return topology
        return self

    @property
    def in_switch(self) -> bool:
        """Whether the (node) switch can reduce and multicast in the fabric."""
        return self.in_switch_reduction_efficiency > 0

    def describe(self) -> str:
        """One line, e.g. 'torus2d 2x4 (wraparound)' or 'hierarchical 2 nodes x 8 (switch)'."""
        return _describe(self)


@lru_cache(maxsize=1024)
def _describe(topology: Topology) -> str:
    shape = "x".join(str(d) for d in topology.dims)
    if topology.kind == HIERARCHICAL:
        return (f"hierarchical {topology.dims[0]} nodes x {topology.dims[1]} "
                f"({topology.node_kind})")
    if topology.kind in TORUS_KINDS:
        wraps = topology.wraparound
        text = "wraparound" if all(wraps) else "no wraparound" if not any(wraps) else \
            "wraparound " + "".join("y" if w else "n" for w in wraps)
        return f"{topology.kind} {shape} ({text})"
    return f"{topology.kind} of {shape}"


# --------------------------------------------------------------------------- building


def topology_for(hardware: str | Hardware, num_devices: int, kind: str | None = None,
                 dims: Sequence[int] | None = None, *,
                 wraparound: bool | Sequence[bool] = True,
                 calibrated: bool = False) -> Topology:
    """The topology of `num_devices` chips of `hardware`, from its `[interconnect]` data.

    Defaults: nvswitch/pcie chips -> ``switch`` up to `chips_per_node`, beyond that
    ``hierarchical`` (nodes x chips_per_node); fully-connected chips likewise with a
    fully-connected node; TPUs -> their torus with the most nearly square (cubic)
    `dims` (8 x TPU v5e -> torus2d (2, 4)), every dimension wrapping around unless
    `wraparound` says otherwise (real TPU sub-slices smaller than a full dimension
    have no wraparound link: pass False for them). `kind` and `dims` override the
    defaults. Per-port ring/torus links get the chip's bandwidth split over its ports
    (4 for a 2-D torus chip, 6 for 3-D, 2 for a ring of non-torus chips); a
    fully-connected chip's bandwidth is split over its `chips_per_node - 1` peers.

    calibrated: use the chip's `[interconnect.calibrated]` intra-node values (fitted to
    measured NCCL collectives by `train.link_calibration`) instead of its datasheet ones,
    with the per-kind values in `Topology.per_kind`.
    """
    hw = get_hardware(hardware)
    if calibrated:
        return _calibrated(hw, num_devices, kind, dims, wraparound)
    if not (isinstance(num_devices, int) and not isinstance(num_devices, bool)
            and num_devices >= 1):
        raise InvalidArgumentError(
            f"num_devices must be an integer >= 1, got {num_devices!r}")
    if kind is not None and kind not in TOPOLOGY_KINDS:
        raise InvalidArgumentError(
            f"topology kind {kind!r} is not one of {list(TOPOLOGY_KINDS)}")
    dims_t = None if dims is None else tuple(dims)
    if isinstance(wraparound, bool):
        wrap_t: tuple[bool, ...] | bool = wraparound
    else:
        wrap_t = tuple(bool(w) for w in wraparound)
    key = (hw.name, hw.topology, hw.chips_per_node, hw.max_chips,
           hw.intra_node_bandwidth_bytes_per_s, hw.intra_node_latency_s,
           hw.inter_node_bandwidth_bytes_per_s, hw.inter_node_latency_s,
           hw.in_switch_reduction_efficiency or 0.0,
           hw.collective_overhead_s if hw.collective_overhead_s is not None
           else hw.launch_overhead_s)
    return _build(key, num_devices, kind, dims_t, wrap_t)


def _calibrated(hw: Hardware, n: int, kind: str | None, dims: Sequence[int] | None,
                wraparound: bool | Sequence[bool]) -> Topology:
    links = hw.calibrated_links
    if links is None:
        from ...hardware import list_hardware

        have = [h.name for h in list_hardware() if h.calibrated_links is not None]
        raise InvalidArgumentError(
            f"hardware {hw.name!r} has no [interconnect.calibrated] values; calibrated "
            f"chips: {have}")

    def with_links(values: Any) -> Topology:
        chip = dataclasses.replace(
            hw, intra_node_bandwidth_bytes_per_s=values.intra_node_bandwidth_bytes_per_s,
            intra_node_latency_s=values.intra_node_latency_s,
            collective_overhead_s=values.collective_overhead_s,
            in_switch_reduction_efficiency=values.in_switch_reduction_efficiency or None,
            calibrated_links=None)
        return topology_for(chip, n, kind, dims, wraparound=wraparound)

    def with_protocols(values: Any) -> Topology:
        topology = with_links(values)
        if values.protocols and topology.kind == SWITCH:
            topology = dataclasses.replace(topology, protocols=values.protocols)
        return topology

    base = with_links(links)
    per_kind = tuple((k, with_protocols(v)) for k, v in sorted(links.per_kind.items()))
    return dataclasses.replace(base, per_kind=per_kind)


@lru_cache(maxsize=1024)
def _build(key: tuple, n: int, kind: str | None, dims: tuple[int, ...] | None,
           wraparound: bool | tuple[bool, ...]) -> Topology:
    (name, native_name, per_node, max_chips, intra_bw, intra_lat, inter_bw, inter_lat,
     efficiency, overhead_s) = key
    if native_name == "none":
        if n == 1 and kind in (None, SWITCH) and dims in (None, (1,)):
            return Topology(SWITCH, (1,), (Link(intra_bw, intra_lat),), overhead_s,
                            hardware=name)
        raise InvalidArgumentError(
            f"hardware {name!r} has no interconnect (topology 'none'); only a single "
            f"device is allowed, got num_devices={n}")
    native = _NATIVE[native_name]
    domain = max_chips or per_node   # largest scale-up (single-fabric) domain
    if kind is None:
        if native in TORUS_KINDS:
            kind = native
        elif n <= per_node:
            kind = native
        else:
            kind = HIERARCHICAL
    if kind == HIERARCHICAL:
        return _hierarchical(name, native, n, dims, per_node, intra_bw, intra_lat,
                             inter_bw, inter_lat, efficiency, overhead_s)
    if n > domain:
        allowed = f"up to {domain} devices in one {kind} fabric"
        if native in (SWITCH, FULLY_CONNECTED):
            allowed += (f", or kind='hierarchical' with a multiple of {per_node} "
                        "(chips_per_node)")
        raise InvalidArgumentError(
            f"{n} x {name} cannot form one {kind} topology; allowed: {allowed}")
    if kind in (SWITCH, FULLY_CONNECTED):
        if dims is not None and dims != (n,):
            raise InvalidArgumentError(
                f"{kind} topology has dims ({n},) for {n} devices, got {dims!r}")
        if kind == SWITCH:
            link = Link(intra_bw, intra_lat)
            eff = efficiency if native == SWITCH else 0.0
            return Topology(SWITCH, (n,), (link,), overhead_s,
                            in_switch_reduction_efficiency=eff, hardware=name)
        peers = (per_node - 1) if native == FULLY_CONNECTED else (n - 1)
        link = Link(intra_bw / max(peers, 1), intra_lat)
        return Topology(FULLY_CONNECTED, (n,), (link,), overhead_s, hardware=name)
    # ring / torus
    ndims = _NDIMS[kind]
    if dims is None:
        dims = _default_dims(n, ndims)
    elif len(dims) != ndims or math.prod(dims) != n or not all(
            isinstance(d, int) and d >= 1 for d in dims):
        raise InvalidArgumentError(
            f"{kind} dims must be {ndims} integer(s) >= 1 whose product is {n}, "
            f"got {dims!r}")
    if isinstance(wraparound, bool):
        wraps = (wraparound,) * ndims
    elif len(wraparound) != ndims:
        raise InvalidArgumentError(
            f"{kind} needs {ndims} wraparound flag(s), got {len(wraparound)}")
    else:
        wraps = wraparound
    ports = 2 * _NDIMS[native] if native in (TORUS2D, TORUS3D) else 2 * ndims
    link = Link(intra_bw / ports, intra_lat)
    return Topology(kind, dims, (link,) * ndims, overhead_s, wraparound=wraps,
                    hardware=name)


def _hierarchical(name: str, native: str, n: int, dims: tuple[int, ...] | None,
                  per_node: int, intra_bw: float, intra_lat: float, inter_bw: float,
                  inter_lat: float, efficiency: float, overhead_s: float) -> Topology:
    if native not in NODE_KINDS:
        raise InvalidArgumentError(
            f"hierarchical topologies need a switch or fully-connected node fabric; "
            f"{name}'s is {native} (use kind {native!r})")
    if dims is None:
        if n % per_node:
            raise InvalidArgumentError(
                f"{n} x {name} does not fill whole nodes: a hierarchical topology needs "
                f"a multiple of {per_node} (chips_per_node) devices, or explicit dims "
                "(nodes, chips_per_node)")
        dims = (n // per_node, per_node)
    if (len(dims) != 2 or not all(isinstance(d, int) and d >= 1 for d in dims)
            or math.prod(dims) != n or dims[1] > per_node):
        raise InvalidArgumentError(
            f"hierarchical dims must be (nodes, chips_per_node) with product {n} and "
            f"chips_per_node <= {per_node}, got {dims!r}")
    if native == SWITCH:
        intra = Link(intra_bw, intra_lat)
    else:
        intra = Link(intra_bw / max(per_node - 1, 1), intra_lat)
    return Topology(HIERARCHICAL, dims, (Link(inter_bw, inter_lat), intra), overhead_s,
                    in_switch_reduction_efficiency=efficiency if native == SWITCH else 0.0,
                    node_kind=native, hardware=name)


def _default_dims(n: int, ndims: int) -> tuple[int, ...]:
    """The most nearly square (cubic) factorisation of n, ascending: 8 -> (2, 4) in 2-D,
    (2, 2, 2) in 3-D; 64 -> (8, 8) / (4, 4, 4)."""
    if ndims == 1:
        return (n,)
    if ndims == 2:
        a = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
        return (a, n // a)
    best: tuple[int, ...] = (1, 1, n)
    for a in range(1, round(n ** (1 / 3)) + 2):
        if n % a:
            continue
        b, c = _default_dims(n // a, 2)
        cand = tuple(sorted((a, b, c)))
        if cand[2] - cand[0] < best[2] - best[0]:
            best = cand
    return best
