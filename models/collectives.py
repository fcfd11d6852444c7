"""Alpha-beta cost of collectives on a `Topology`.

Every collective is priced as `overhead_s + alpha_s + beta_s`: a fixed per-call overhead
(launch, setup), `alpha_s` = the latency of each message step (`Link.latency_s`, per hop
crossed on rings and tori), and `beta_s` = bytes on the busiest link over its bandwidth.
Reduction arithmetic is not charged here (the compute side prices it).

Bytes convention (`bytes_per_device`, "B" below) is nccl-tests' `size`: the per-device
buffer of the collective, i.e.

- all_reduce: the operand (= result) bytes on each device;
- all_gather: the gathered *result* bytes on each device (n x the operand);
- reduce_scatter: the *operand* bytes on each device (n x the result);
- all_to_all: the operand (= result) bytes on each device; B/n goes to each peer;
- collective_permute: the bytes each source sends to its target;
- collective_broadcast: the buffer bytes (sent by the root, `group[0]`).

`featurize.costs` records `comm_send_bytes` instead; `bytes_per_device_from_send`
converts. With n devices, alpha per step `a`, per-device bandwidth `bw` (a switch port;
on a fully-connected fabric `min(bw, (n-1) x pair link)`), pair bandwidth `bw_p`
(the link to one partner), `lg = ceil(log2 n)`, the formulas on one flat fabric are
(Thakur, Rabenseifner & Gropp 2005, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1); NCCL's nccl-tests doc/PERFORMANCE.md bus-bandwidth
factors; NCCL src/graph/tuning.cc for tree, NVLS and multi-node rings):

    all_gather / reduce_scatter
      ring              (n-1) a + (n-1)/n B / bw          (busbw factor (n-1)/n)
      halving_doubling  lg a    + (n-1)/n B / bw_p         (recursive doubling / halving;
                                                             Bruck for AG when n is not a
                                                             power of two; RS folds the
                                                             extra ranks: +2 a + B + B/n)
      direct            a       + (n-1)/n B / bw           (one shot to every peer)
      in_switch         a       + (n-1)/n B / (eff bw)     (NVLS multicast / ld_reduce)
    all_reduce
      ring              2(n-1) a + 2(n-1)/n B / bw         (busbw factor 2(n-1)/n;
                                                             Patarasuk & Yuan 2009)
      tree              2 lg a  + max(2B / bw, B / (2 bw_p),  (NCCL double binary tree,
                                  2(n-1)/n B / bw_g)        Sanders, Speck & Traeff 2009:
                                                             each tree carries B/2 up and
                                                             down; NCCL algbw = busbw / 2;
                                                             bw_g: the group's links, the
                                                             ring bound for 2-3 ranks of a
                                                             fully connected fabric)
      halving_doubling  2 lg a  + 2(n-1)/n B / bw_p        (Rabenseifner; n not a power of
                                                             two: fold the extra ranks
                                                             first, +2 a + 2 B / bw_p)
      direct            a       + (n-1) B / bw             (one-shot: every device pulls
                                                             every peer's whole buffer)
      in_switch         2 a     + B / (eff bw)             (NVLS: switch reduces the data
                                                             each GPU pushes once and
                                                             multicasts the result back)
    all_to_all
      direct            a       + (n-1)/n B / bw           (NCCL grouped send/recv)
      ring              (n-1) a + (n-1)/2 B / bw           (store and forward: a chunk
                                                             travels n/2 hops on average)
      halving_doubling  lg a    + lg B/2 / bw_p            (Bruck; Thakur et al. s. 4.6)
    collective_broadcast
      ring              (n-1) a + B / bw                   (pipelined chain, NCCL)
      tree              lg (a + B / bw_p)                   (binomial tree)
      halving_doubling  2 lg a  + 2(n-1)/n B / bw_p        (scatter + allgather, van de
                                                             Geijn; Thakur et al. s. 4.1)
      direct            a       + (n-1) B / bw             (root sends to every peer)
      in_switch         a       + B / (eff bw)             (switch multicast)
    collective_permute  hops a  + B x (most messages on one link) / link bw

Tori (TPU ICI) run per-dimension bidirectional rings: along a wrapping dimension of k
members the buffer is split in two halves that circle in opposite directions,
`(k-1) a + (k-1)/k b / (2 bw_link)`; without the wraparound link it is a line,
`(k-1)/k b / bw_link` (the scaling book's factor of 2). A group that spans several
dimensions runs the cheaper of two schedules: the whole buffer through the dimensions
one after the other, or one part per dimension, each part visiting the dimensions in
a rotated order so every dimension's links work at once (all_reduce = reduce_scatter
along each dimension, then all_gather back in reverse). Members `s`
coordinates apart cost `s` hops per step and share each link with the `s - 1` sibling
groups of the same op (replica groups are translates of each other). Direct patterns
(all_to_all, one-shot) are routed dimension by dimension on shortest paths; each
dimension's busiest link carries `S(k) x chunk` (S = k^2/8 with wraparound, floor(k/2)
ceil(k/2) without). Halving-doubling on a torus pairs the biggest message with the
nearest partner. (How to Scale Your Model, "How to think about TPUs", Google DeepMind.)

Hierarchical topologies (NVLink nodes on an InfiniBand network, per-level alpha and
beta) offer NCCL's flat `ring` (one ring per NIC rail: busiest link is
`min(bw_intra, c bw_nic)`; `(n - q)` intra and `(q - 1)` inter steps per pass, as in
NCCL's tuning model), NCCL's `tree` (chain inside nodes, double binary tree between
them: `2((c-1) a_intra + lg q a_inter)`), `direct`, and `hierarchical`: reduce_scatter
inside each node, all_reduce of the 1/c shard between nodes on each rail, all_gather
inside the node (NCCL's NVLSTree / Horovod's hierarchical all_reduce). `in_switch` and
`halving_doubling` on a hierarchical topology are the hierarchical scheme with that
algorithm in every phase where it applies.

Default algorithm (`algorithm=None`): like NCCL, the cheapest of the library's enabled
algorithms: all_reduce min(ring, tree, in_switch when the switch can reduce),
all_gather/reduce_scatter min(ring, in_switch); on hierarchical topologies
all_reduce min(hierarchical, ring, tree), all_gather/reduce_scatter ring (NCCL has no
two-level scheme for them; `hierarchical` can still be asked for); all_to_all and
collective_permute direct; broadcast ring. Tori: per-dimension rings (direct for
all_to_all and permutes), as XLA:TPU does.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from ..errors import InvalidArgumentError
from .topology import (
    FULLY_CONNECTED,
    HIERARCHICAL,
    SWITCH,
    TORUS_KINDS,
    DimSpan,
    GroupPlacement,
    Link,
    Topology,
    _place,
    check_group,
    coordinates,
)

ALL_REDUCE = "all_reduce"
ALL_GATHER = "all_gather"
REDUCE_SCATTER = "reduce_scatter"
ALL_TO_ALL = "all_to_all"
PERMUTE = "collective_permute"
BROADCAST = "collective_broadcast"
KINDS = (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, PERMUTE, BROADCAST)

RING = "ring"
TREE = "tree"
HALVING_DOUBLING = "halving_doubling"
DIRECT = "direct"
IN_SWITCH = "in_switch"
HIERARCHICAL_ALGO = "hierarchical"
ALGORITHMS = (RING, TREE, HALVING_DOUBLING, DIRECT, IN_SWITCH, HIERARCHICAL_ALGO)


@dataclass(frozen=True)
class Phase:
    """One stage of a collective on one class of links."""

    kind: str
    algorithm: str
    level: str            # switch | fully_connected | intra_node | inter_node | dim0..2 | ...
    group_size: int
    buffer_bytes: float   # the phase's buffer, in this module's bytes convention
    steps: int
    hops: int             # most hops one step's message crosses
    alpha_s: float
    beta_s: float

    @property
    def time_s(self) -> float:
        return self.alpha_s + self.beta_s


@dataclass(frozen=True)
class CollectiveCost:
    """The modeled time of one collective: `time_s = overhead_s + alpha_s + beta_s`."""

    kind: str
    algorithm: str
    bytes_per_device: float
    group_size: int
    time_s: float
    alpha_s: float
    beta_s: float
    overhead_s: float
    steps: int
    hops: int                        # most hops one step's message crosses
    dimensions: tuple[int, ...]      # topology dimensions the group spans
    crosses_nodes: bool
    topology: str                    # Topology.describe()
    phases: tuple[Phase, ...]

    def to_dict(self) -> dict:
        return {
            "kind": self.kind, "algorithm": self.algorithm,
            "bytes_per_device": self.bytes_per_device, "group_size": self.group_size,
            "time_s": self.time_s, "alpha_s": self.alpha_s, "beta_s": self.beta_s,
            "overhead_s": self.overhead_s, "steps": self.steps, "hops": self.hops,
            "dimensions": list(self.dimensions), "crosses_nodes": self.crosses_nodes,
            "topology": self.topology,
            "phases": [{"kind": p.kind, "algorithm": p.algorithm, "level": p.level,
                        "group_size": p.group_size, "buffer_bytes": p.buffer_bytes,
                        "steps": p.steps,
                        "hops": p.hops, "alpha_s": p.alpha_s, "beta_s": p.beta_s}
                       for p in self.phases],
        }


def bytes_per_device_from_send(kind: str, comm_send_bytes: float, group_size: int) -> float:
    """This module's `bytes_per_device` from `featurize.costs`' `comm_send_bytes` (the
    bytes one device sends under a bandwidth-optimal algorithm): all_reduce sends
    2(n-1)/n B, all_gather / reduce_scatter / all_to_all (n-1)/n B, the others B."""
    _check_kind(kind)
    n = group_size
    if n <= 1 or kind in (PERMUTE, BROADCAST):
        return float(comm_send_bytes)
    share = (n - 1) / n
    return comm_send_bytes / (2 * share if kind == ALL_REDUCE else share)


# --------------------------------------------------------------------------- flat fabric

# (steps, hops, alpha_s, beta_s) of one phase.
_Cost = tuple[int, int, float, float]
_ZERO: _Cost = (0, 0, 0.0, 0.0)


@dataclass(frozen=True)
class _Fabric:
    """One flat level: n devices, alpha per step, port (injection) and pair bandwidth,
    in-switch efficiency (0: none)."""

    n: int
    alpha_s: float
    port_bytes_per_s: float
    pair_bytes_per_s: float
    efficiency: float
    level: str


_FLAT_ALGOS = {
    ALL_REDUCE: (RING, TREE, HALVING_DOUBLING, DIRECT, IN_SWITCH),
    ALL_GATHER: (RING, HALVING_DOUBLING, DIRECT, IN_SWITCH),
    REDUCE_SCATTER: (RING, HALVING_DOUBLING, DIRECT, IN_SWITCH),
    ALL_TO_ALL: (DIRECT, RING, HALVING_DOUBLING),
    BROADCAST: (RING, TREE, HALVING_DOUBLING, DIRECT, IN_SWITCH),
    PERMUTE: (DIRECT,),
}
# Candidates the library chooses among (NCCL's enabled algorithms per collective).
_FLAT_CHOICES = {
    ALL_REDUCE: (RING, TREE, IN_SWITCH), ALL_GATHER: (RING, IN_SWITCH),
    REDUCE_SCATTER: (RING, IN_SWITCH), ALL_TO_ALL: (DIRECT,), BROADCAST: (RING,),
    PERMUTE: (DIRECT,),
}


def _flat_allowed(kind: str, fabric: _Fabric) -> tuple[str, ...]:
    return tuple(a for a in _FLAT_ALGOS[kind] if a != IN_SWITCH or fabric.efficiency > 0)


def _flat(kind: str, algo: str, b: float, f: _Fabric) -> _Cost:
    """Cost of one collective on a flat fabric (formulas in the module docstring)."""
    n, a = f.n, f.alpha_s
    if n <= 1:
        return _ZERO
    ring_bw = min(f.port_bytes_per_s, (n - 1) * f.pair_bytes_per_s)
    pair = f.pair_bytes_per_s
    share = (n - 1) / n
    lg = (n - 1).bit_length()                 # ceil(log2 n)
    p2 = 1 << (n.bit_length() - 1)            # largest power of two <= n
    lg2 = p2.bit_length() - 1                 # log2 p2
    if kind in (ALL_GATHER, REDUCE_SCATTER):
        if algo == RING:
            return n - 1, 1, (n - 1) * a, share * b / ring_bw
        if algo == DIRECT:
            return 1, 1, a, share * b / ring_bw
        if algo == IN_SWITCH:
            return 1, 1, a, share * b / (f.efficiency * f.port_bytes_per_s)
        if algo == HALVING_DOUBLING:
            if kind == ALL_GATHER or p2 == n:
                return lg, 1, lg * a, share * b / pair
            # Fold the n - p2 extra ranks into partners (whole buffer in), halve over p2,
            # hand the extra ranks their block (B/n) back.
            steps = lg2 + 2
            return steps, 1, steps * a, (b + (p2 - 1) / p2 * b + b / n) / pair
    elif kind == ALL_REDUCE:
        if algo == RING:
            return 2 * (n - 1), 1, 2 * (n - 1) * a, 2 * share * b / ring_bw
        if algo == TREE:
            # the two trees use different links only when there are enough of them: with
            # 2 or 3 ranks of a fully connected fabric they share one, so never below
            # the all-reduce bound 2 (n-1)/n B over the group's links
            return 2 * lg, 1, 2 * lg * a, max(2 * b / f.port_bytes_per_s, b / (2 * pair),
                                             2 * share * b / ring_bw)
        if algo == DIRECT:
            return 1, 1, a, (n - 1) * b / ring_bw
        if algo == IN_SWITCH:
            return 2, 1, 2 * a, b / (f.efficiency * f.port_bytes_per_s)
        if algo == HALVING_DOUBLING:
            if p2 == n:
                return 2 * lg, 1, 2 * lg * a, 2 * share * b / pair
            steps = 2 * lg2 + 2
            return steps, 1, steps * a, (2 * b + 2 * (p2 - 1) / p2 * b) / pair
    elif kind == ALL_TO_ALL:
        if algo == DIRECT:
            return 1, 1, a, share * b / ring_bw
        if algo == RING:
            return n - 1, 1, (n - 1) * a, (n - 1) / 2 * b / ring_bw
        if algo == HALVING_DOUBLING:
            return lg, 1, lg * a, lg * b / 2 / pair
    elif kind == BROADCAST:
        if algo == RING:
            return n - 1, 1, (n - 1) * a, b / ring_bw
        if algo == TREE:
            return lg, 1, lg * a, lg * b / pair
        if algo == HALVING_DOUBLING:
            return 2 * lg, 1, 2 * lg * a, 2 * share * b / pair
        if algo == DIRECT:
            return 1, 1, a, (n - 1) * b / ring_bw
        if algo == IN_SWITCH:
            return 1, 1, a, b / (f.efficiency * f.port_bytes_per_s)
    raise AssertionError(f"no flat formula for {kind}/{algo}")   # guarded by _allowed


def _flat_default(kind: str, b: float, f: _Fabric) -> str:
    best, best_t = "", math.inf
    for algo in _FLAT_CHOICES[kind]:
        if algo == IN_SWITCH and f.efficiency <= 0:
            continue
        _, _, alpha, beta = _flat(kind, algo, b, f)
        if alpha + beta < best_t:
            best, best_t = algo, alpha + beta
    return best


def _fabric(topology: Topology, n: int, link: Link, kind: str, level: str) -> _Fabric:
    """A flat level of `n` group members over `link` on a switch or fully-connected
    fabric of `topology`."""
    if kind == SWITCH:
        return _Fabric(n, link.latency_s, link.bandwidth_bytes_per_s,
                       link.bandwidth_bytes_per_s, topology.in_switch_reduction_efficiency,
                       level)
    # fully connected: a port is every peer link of the fabric's domain together.
    domain = topology.dims[-1]
    port = max(domain - 1, 1) * link.bandwidth_bytes_per_s
    return _Fabric(n, link.latency_s, port, link.bandwidth_bytes_per_s, 0.0, level)


# --------------------------------------------------------------------------- tori

_TORUS_ALGOS = {
    ALL_REDUCE: (RING, HALVING_DOUBLING, DIRECT), ALL_GATHER: (RING, HALVING_DOUBLING, DIRECT),
    REDUCE_SCATTER: (RING, HALVING_DOUBLING, DIRECT), ALL_TO_ALL: (DIRECT,),
    BROADCAST: (RING,), PERMUTE: (DIRECT,),
}
_TORUS_DEFAULT = {ALL_REDUCE: RING, ALL_GATHER: RING, REDUCE_SCATTER: RING,
                  ALL_TO_ALL: DIRECT, BROADCAST: RING, PERMUTE: DIRECT}


def _ring_1d(span: DimSpan, link: Link, b: float) -> _Cost:
    """One all_gather (b = output) or reduce_scatter (b = input) along one dimension with
    bidirectional rings (a line when the group does not wrap)."""
    k, s = span.size, span.stride
    bw = link.bandwidth_bytes_per_s * (2 if span.wraps else 1)
    return k - 1, s, (k - 1) * s * link.latency_s, (k - 1) / k * b * s / bw


def _hd_1d(kind: str, span: DimSpan, link: Link, b: float) -> _Cost:
    """Recursive doubling (all_gather) / halving (reduce_scatter) along one dimension,
    the biggest message exchanged with the nearest partner; a step to a partner h hops
    away costs h alphas and shares each link with h messages."""
    k, s = span.size, span.stride
    steps = k.bit_length() - 1
    alpha = beta = 0.0
    max_hops = 0
    for i in range(steps):
        if kind == REDUCE_SCATTER:
            distance, message = 1 << i, b / (2 << i)
        else:
            distance, message = k >> (i + 1), (1 << i) * b / k
        hops = (min(distance, k - distance) if span.wraps else distance) * s
        max_hops = max(max_hops, hops)
        alpha += hops * link.latency_s
        beta += hops * message / link.bandwidth_bytes_per_s
    return steps, max_hops, alpha, beta


def _torus_multi(kind: str, algo: str, b: float, spans: Sequence[DimSpan],
                 links: Sequence[Link]) -> list[Phase]:
    """all_gather / reduce_scatter / all_reduce over the group's dimensions, on the
    cheaper of two schedules: the whole buffer visiting the dimensions one after the
    other (best order), or one part per dimension, each visiting the dimensions in a
    rotated order so that every dimension's links carry a part at once (more
    bandwidth, more latency steps)."""
    m = len(spans)
    rotated = [tuple(spans[(r + j) % m] for j in range(m)) for r in range(m)]
    best: list[Phase] | None = None
    best_t = math.inf
    schedules = [rotated] if m == 1 else \
        [rotated] + [[order] for order in itertools.permutations(spans)]
    for orders in schedules:
        phases = _schedule(kind, algo, b, orders, links)
        t = sum(p.time_s for p in phases)
        if t < best_t:
            best, best_t = phases, t
    assert best is not None
    return best


def _schedule(kind: str, algo: str, b: float, orders: Sequence[Sequence[DimSpan]],
              links: Sequence[Link]) -> list[Phase]:
    """Phases of one schedule: `len(orders)` equal parts of the buffer, part r visiting
    the dimensions in `orders[r]` (distinct dimensions in every phase); all_reduce is
    reduce_scatter along the order, then all_gather back in reverse. A phase lasts as
    long as its slowest part."""
    m = len(orders)
    dims = len(orders[0])
    if kind == ALL_REDUCE:
        plan = [(REDUCE_SCATTER, j) for j in range(dims)] + \
            [(ALL_GATHER, j) for j in reversed(range(dims))]
    elif kind == REDUCE_SCATTER:
        plan = [(kind, j) for j in range(dims)]
    else:
        plan = [(kind, j) for j in reversed(range(dims))]
    phases = []
    for phase_kind, j in plan:
        worst: tuple[float, _Cost, DimSpan, float] | None = None
        for order in orders:
            span = order[j]
            # A part entering reduce_scatter on order[j] (or leaving all_gather there)
            # has been divided by the sizes of the dimensions before it.
            part = b / m / math.prod(o.size for o in order[:j])
            link = links[span.dim]
            cost = _ring_1d(span, link, part) if algo == RING else \
                _hd_1d(phase_kind, span, link, part)
            t = cost[2] + cost[3]
            if worst is None or t > worst[0]:
                worst = (t, cost, span, part)
        assert worst is not None
        _, (steps, hops, alpha, beta), span, part = worst
        phases.append(Phase(phase_kind, algo, f"dim{span.dim}", span.size, part, steps,
                            hops, alpha, beta))
    return phases


def _direct_load(size: int, wraps: bool) -> float:
    """Messages on the busiest link (one direction) when each of `size` members along a
    dimension sends one message to every other, routed on shortest paths (ties split)."""
    if wraps:
        return size * size / 8 if size % 2 == 0 else (size * size - 1) / 8
    return (size // 2) * ((size + 1) // 2)


def _torus_direct(kind: str, b: float, spans: Sequence[DimSpan], links: Sequence[Link],
                  n: int) -> Phase:
    """One-shot pattern routed dimension by dimension; dimensions work concurrently."""
    chunk = b if kind == ALL_REDUCE else b / n     # bytes to each peer
    beta = alpha = 0.0
    hops = 0
    for span in spans:
        link = links[span.dim]
        k, s = span.size, span.stride
        load = s * _direct_load(k, span.wraps) * (n / k) * chunk
        beta = max(beta, load / link.bandwidth_bytes_per_s)
        far = (k // 2 if span.wraps else k - 1) * s
        hops += far
        alpha += far * link.latency_s
    return Phase(kind, DIRECT, "torus", n, b, 1, hops, alpha, beta)


def _torus_broadcast(b: float, spans: Sequence[DimSpan], links: Sequence[Link],
                     n: int) -> Phase:
    """Pipelined bidirectional chains along each dimension in turn."""
    steps = hops = 0
    alpha = beta = 0.0
    for span in spans:
        link = links[span.dim]
        k, s = span.size, span.stride
        bw = link.bandwidth_bytes_per_s * (2 if span.wraps else 1)
        steps += k - 1
        hops = max(hops, s)
        alpha += (k - 1) * s * link.latency_s
        beta = max(beta, b * s / bw)
    return Phase(BROADCAST, RING, "torus", n, b, steps, hops, alpha, beta)


_IRREGULAR = "torus (irregular group)"


def _irregular_fabric(topology: Topology, placement: GroupPlacement) -> _Fabric:
    """A group that is not a grid on a ring/torus: a logical ring in the given order,
    each step `ring_hops` hops on the slowest dimension's links (no sibling sharing,
    no wraparound doubling)."""
    h = placement.ring_hops
    alpha = max(l.latency_s for l in topology.links) * h
    bw = min(l.bandwidth_bytes_per_s for l in topology.links)
    return _Fabric(placement.size, alpha, bw, bw, 0.0, _IRREGULAR)


# --------------------------------------------------------------------------- permutes


@lru_cache(maxsize=4096)
def _permute_classes(pairs: tuple[tuple[int, int], ...],
                     topology: Topology) -> tuple[tuple[str, int, float, float], ...]:
    """(level, hops, alpha_s, seconds per byte on the busiest link) for each class of
    links the permutation uses; classes work concurrently."""
    pairs = tuple((s, t) for s, t in pairs if s != t)
    if not pairs:
        return ()
    kind = topology.kind
    if kind in TORUS_KINDS:
        dims, wraps, links = topology.dims, topology.wraparound, topology.links
        load: dict[tuple, float] = {}
        worst_alpha, worst_hops = 0.0, 0
        for src, dst in pairs:
            routes = [(list(coordinates(src, dims)), 1.0)]
            dst_c = coordinates(dst, dims)
            alpha = 0.0
            hops_total = 0
            for i, size in enumerate(dims):
                a = routes[0][0][i]
                fwd = (dst_c[i] - a) % size if wraps[i] else dst_c[i] - a
                if wraps[i]:
                    back = size - fwd
                    if fwd == 0:
                        continue
                    if fwd < back:
                        moves = [(1, fwd, 1.0)]
                    elif back < fwd:
                        moves = [(-1, back, 1.0)]
                    else:
                        moves = [(1, fwd, 0.5), (-1, back, 0.5)]
                else:
                    if fwd == 0:
                        continue
                    moves = [(1 if fwd > 0 else -1, abs(fwd), 1.0)]
                hops_total += moves[0][1]
                alpha += moves[0][1] * links[i].latency_s
                new_routes = []
                for coords, weight in routes:
                    for direction, count, share in moves:
                        c = list(coords)
                        for _ in range(count):
                            key = (i, tuple(c), direction)
                            load[key] = load.get(key, 0.0) + weight * share
                            c[i] = (c[i] + direction) % size
                        new_routes.append((c, weight * share))
                routes = new_routes
            if alpha > worst_alpha:
                worst_alpha, worst_hops = alpha, hops_total
        spb = max(v / links[k[0]].bandwidth_bytes_per_s for k, v in load.items())
        return (("torus", worst_hops, worst_alpha, spb),)
    if kind == HIERARCHICAL:
        per_node = topology.dims[1]
        inter = [(s, t) for s, t in pairs if s // per_node != t // per_node]
        intra = [(s, t) for s, t in pairs if s // per_node == t // per_node]
        classes = []
        if inter:
            link = topology.links[0]
            classes.append(("inter_node", 1, link.latency_s,
                            _port_load(inter) / link.bandwidth_bytes_per_s))
        if intra:
            link = topology.links[1]
            classes.append(("intra_node", 1, link.latency_s,
                            _fabric_spb(intra, link, topology.node_kind, per_node)))
        return tuple(classes)
    link = topology.links[0]
    return ((kind, 1, link.latency_s,
             _fabric_spb(pairs, link, kind, topology.dims[0])),)


def _port_load(pairs: Sequence[tuple[int, int]]) -> int:
    sends: dict[int, int] = {}
    recvs: dict[int, int] = {}
    for s, t in pairs:
        sends[s] = sends.get(s, 0) + 1
        recvs[t] = recvs.get(t, 0) + 1
    return max(max(sends.values()), max(recvs.values()))


def _fabric_spb(pairs: Sequence[tuple[int, int]], link: Link, kind: str,
                domain: int) -> float:
    """Seconds per byte on the busiest port (switch) or pair link (fully connected)."""
    if kind == SWITCH:
        return _port_load(pairs) / link.bandwidth_bytes_per_s
    per_pair: dict[tuple[int, int], int] = {}
    for p in pairs:
        per_pair[p] = per_pair.get(p, 0) + 1
    port = max(domain - 1, 1) * link.bandwidth_bytes_per_s
    return max(max(per_pair.values()) / link.bandwidth_bytes_per_s,
               _port_load(pairs) / port)


# --------------------------------------------------------------------------- hierarchical

_HIER_ALGOS = {
    ALL_REDUCE: (HIERARCHICAL_ALGO, RING, TREE, HALVING_DOUBLING, DIRECT, IN_SWITCH),
    ALL_GATHER: (HIERARCHICAL_ALGO, RING, HALVING_DOUBLING, DIRECT, IN_SWITCH),
    REDUCE_SCATTER: (HIERARCHICAL_ALGO, RING, HALVING_DOUBLING, DIRECT, IN_SWITCH),
    ALL_TO_ALL: (DIRECT, RING),
    BROADCAST: (RING, HIERARCHICAL_ALGO, TREE, DIRECT, IN_SWITCH),
    PERMUTE: (DIRECT,),
}
_HIER_CHOICES = {
    ALL_REDUCE: (HIERARCHICAL_ALGO, RING, TREE),
    # NCCL has no two-level all_gather / reduce_scatter: it runs them as rings across
    # the nodes. Offering the hierarchical scheme by default priced a small all_gather
    # over 2 nodes x 2 below the same 4 devices inside one node (fewer latency steps).
    ALL_GATHER: (RING,), REDUCE_SCATTER: (RING,),
    ALL_TO_ALL: (DIRECT,), BROADCAST: (RING,), PERMUTE: (DIRECT,),
}


def _hier_levels(topology: Topology, placement: GroupPlacement) -> tuple[_Fabric, _Fabric]:
    q, c = placement.num_nodes, placement.devices_per_node
    inter = topology.links[0]
    inter_f = _Fabric(q, inter.latency_s, inter.bandwidth_bytes_per_s,
                      inter.bandwidth_bytes_per_s, 0.0, "inter_node")
    intra_f = _fabric(topology, c, topology.links[1], topology.node_kind, "intra_node")
    return inter_f, intra_f


def _hier_phases(kind: str, algo: str, b: float, inter: _Fabric,
                 intra: _Fabric) -> list[Phase]:
    """A regular group (q nodes x c devices): the hierarchical decomposition, or NCCL's
    flat ring, tree and one-shot direct over both levels."""
    if algo not in (HIERARCHICAL_ALGO, HALVING_DOUBLING, IN_SWITCH):
        return [_hier_flat(kind, algo, b, inter.n * intra.n, inter, intra, intra.n)]
    c = intra.n
    stages = {
        ALL_REDUCE: [(REDUCE_SCATTER, intra, b), (ALL_REDUCE, inter, b / c),
                     (ALL_GATHER, intra, b)],
        REDUCE_SCATTER: [(REDUCE_SCATTER, intra, b), (REDUCE_SCATTER, inter, b / c)],
        ALL_GATHER: [(ALL_GATHER, inter, b / c), (ALL_GATHER, intra, b)],
        BROADCAST: [(BROADCAST, inter, b), (BROADCAST, intra, b)],
    }[kind]
    phases = []
    for stage_kind, fabric, size in stages:
        if algo == HALVING_DOUBLING:
            sub = HALVING_DOUBLING
        elif algo == IN_SWITCH and fabric is intra:
            sub = IN_SWITCH
        else:
            sub = _flat_default(stage_kind, size, fabric)
        steps, hops, alpha, beta = _flat(stage_kind, sub, size, fabric)
        phases.append(Phase(stage_kind, sub, fabric.level, fabric.n, size, steps, hops,
                            alpha, beta))
    return phases


def _hier_flat(kind: str, algo: str, b: float, n: int, inter: _Fabric, intra: _Fabric,
               most_per_node: int) -> Phase:
    """NCCL's flat ring / tree, or one-shot direct, over q = inter.n nodes holding
    between intra.n and `most_per_node` group members each (n in all)."""
    q, c = inter.n, intra.n

    def intra_ring_bw(members: int) -> float:
        if members <= 1:
            return intra.port_bytes_per_s
        return min(intra.port_bytes_per_s, (members - 1) * intra.pair_bytes_per_s)

    # One ring (or tree) per NIC rail: a node's c NICs carry its crossings together.
    bottleneck = min(intra_ring_bw(c), c * inter.port_bytes_per_s)
    share = (n - 1) / n
    level = "intra_node+inter_node"
    if algo == RING:
        passes = 2 if kind == ALL_REDUCE else 1
        alpha = passes * ((n - q) * intra.alpha_s + (q - 1) * inter.alpha_s)
        volume = {ALL_REDUCE: 2 * share * b, ALL_GATHER: share * b,
                  REDUCE_SCATTER: share * b, ALL_TO_ALL: (n - 1) / 2 * b,
                  BROADCAST: b}[kind]
        return Phase(kind, RING, level, n, b, passes * (n - 1), 1, alpha,
                     volume / bottleneck)
    if algo == TREE:
        lg_q = (q - 1).bit_length()
        chain = most_per_node - 1
        if kind == BROADCAST:   # binomial tree between nodes, then inside each node
            lg_c = (most_per_node - 1).bit_length()
            return Phase(kind, TREE, level, n, b, lg_q + lg_c, 1,
                         lg_q * inter.alpha_s + lg_c * intra.alpha_s,
                         lg_q * b / inter.pair_bytes_per_s + lg_c * b / intra.pair_bytes_per_s)
        alpha = 2 * (chain * intra.alpha_s + lg_q * inter.alpha_s)
        return Phase(kind, TREE, level, n, b, 2 * (chain + lg_q), 1, alpha,
                     2 * b / bottleneck)
    # DIRECT: every device sends `chunk` to each peer at once, over the node fabric
    # inside its node and over its own NIC to the other nodes.
    chunk = b if kind in (ALL_REDUCE, BROADCAST) else b / n
    intra_beta = (most_per_node - 1) * chunk / intra_ring_bw(most_per_node)
    inter_beta = (n - c) * chunk / inter.port_bytes_per_s
    return Phase(kind, DIRECT, level, n, b, 1, 1, inter.alpha_s, max(intra_beta, inter_beta))


def _hier_default(kind: str, b: float, inter: _Fabric, intra: _Fabric) -> str:
    best, best_t = "", math.inf
    for algo in _HIER_CHOICES[kind]:
        t = sum(p.time_s for p in _hier_phases(kind, algo, b, inter, intra))
        if t < best_t:
            best, best_t = algo, t
    return best


# --------------------------------------------------------------------------- entry point


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise InvalidArgumentError(
            f"collective kind {kind!r} is not one of {list(KINDS)}")


def _check_algorithm(kind: str, algorithm: str, allowed: Sequence[str],
                     where: str) -> None:
    if algorithm not in ALGORITHMS:
        raise InvalidArgumentError(
            f"algorithm {algorithm!r} is not one of {list(ALGORITHMS)}")
    if algorithm not in allowed:
        raise InvalidArgumentError(
            f"algorithm {algorithm!r} is not available for {kind} on {where}; "
            f"allowed: {list(allowed)}")


_Levels = _Fabric | tuple[_Fabric, _Fabric] | None


def _plan(kind: str, placement: GroupPlacement,
          topology: Topology) -> tuple[str, tuple[str, ...], _Levels]:
    """(where, allowed algorithms, levels) for a group of 2+ devices: one flat fabric,
    (inter_node, intra_node) fabrics, or None for a regular group on a ring/torus."""
    tk = topology.kind
    if tk in (SWITCH, FULLY_CONNECTED):
        f = _fabric(topology, placement.size, topology.links[0], tk, tk)
        return topology.describe(), _flat_allowed(kind, f), f
    if tk == HIERARCHICAL:
        inter, intra = _hier_levels(topology, placement)
        if not placement.regular:
            where = f"{topology.describe()} (group with unequal devices per node)"
            allowed = (DIRECT,) if kind in (ALL_TO_ALL, PERMUTE) else (RING,)
            return where, allowed, (inter, intra)
        if inter.n == 1:
            return f"{topology.describe()} (one node)", _flat_allowed(kind, intra), intra
        if intra.n == 1:
            return (f"{topology.describe()} (one device per node)",
                    _flat_allowed(kind, inter), inter)
        allowed = tuple(a for a in _HIER_ALGOS[kind]
                        if a != IN_SWITCH or intra.efficiency > 0)
        return topology.describe(), allowed, (inter, intra)
    if not placement.regular:
        where = f"{topology.describe()} (group that is not a grid)"
        allowed = (DIRECT,) if kind in (ALL_TO_ALL, PERMUTE) else (RING,)
        return where, allowed, _irregular_fabric(topology, placement)
    return topology.describe(), _TORUS_ALGOS[kind], None


def available_algorithms(kind: str, group: Sequence[int] | int,
                         topology: Topology) -> tuple[str, ...]:
    """The algorithms `collective_time` accepts for this collective, group and topology."""
    _check_kind(kind)
    placement = _place(check_group(group, topology), topology)
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
        _check_kind(kind)
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
    placement = _place(devices, topology)
    n = placement.size
    where = topology.describe()
    if kind == PERMUTE:
        if algorithm not in (None, DIRECT):
            _check_algorithm(kind, algorithm, (DIRECT,), where)
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
        _check_algorithm(kind, algorithm, allowed, where)
    if isinstance(data, _Fabric):
        irregular = data.level == _IRREGULAR
        algo = algorithm or (allowed[0] if irregular else _flat_default(kind, b, data))
        steps, hops, alpha, beta = _flat(kind, algo, b, data)
        hops = placement.ring_hops if irregular else hops
        phases = [Phase(kind, algo, data.level, n, b, steps, hops, alpha, beta)]
    elif isinstance(data, tuple):
        inter, intra = data
        if not placement.regular:
            algo = allowed[0]
            most = max(sum(1 for d in devices if d // topology.dims[1] == node)
                       for node in {d // topology.dims[1] for d in devices})
            phases = [_hier_flat(kind, algo, b, n, inter, intra, most)]
        else:
            algo = algorithm or _hier_default(kind, b, inter, intra)
            phases = _hier_phases(kind, algo, b, inter, intra)
    else:
        algo = algorithm or _TORUS_DEFAULT[kind]
        spans = [s for s in placement.spans if s.size > 1]
        if algo == HALVING_DOUBLING:
            bad = [s.size for s in spans if s.size & (s.size - 1)]
            if bad:
                raise InvalidArgumentError(
                    f"halving_doubling on {where} needs a power-of-two group extent in "
                    f"every dimension, got extents {[s.size for s in spans]}; "
                    "allowed instead: ['ring', 'direct']")
        if kind == ALL_TO_ALL or algo == DIRECT:
            phases = [_torus_direct(kind, b, spans, topology.links, n)]
        elif kind == BROADCAST:
            phases = [_torus_broadcast(b, spans, topology.links, n)]
        else:
            phases = _torus_multi(kind, algo, b, spans, topology.links)
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
