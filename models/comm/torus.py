"""Collectives on rings and tori: per-dimension rings, direct routing and
halving-doubling for regular groups, a logical ring for irregular ones, and the
shortest-path routing of a permutation.

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
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

from ...errors import InvalidArgumentError
from .flat import Fabric
from .phases import (
    ALL_GATHER,
    ALL_REDUCE,
    ALL_TO_ALL,
    BROADCAST,
    DIRECT,
    HALVING_DOUBLING,
    PERMUTE,
    REDUCE_SCATTER,
    RING,
    PermuteClass,
    Phase,
    PhaseCost,
)
from .placement import DimSpan, GroupPlacement, coordinates
from .topology import Link, Topology

TORUS_ALGOS = {
    ALL_REDUCE: (RING, HALVING_DOUBLING, DIRECT), ALL_GATHER: (RING, HALVING_DOUBLING, DIRECT),
    REDUCE_SCATTER: (RING, HALVING_DOUBLING, DIRECT), ALL_TO_ALL: (DIRECT,),
    BROADCAST: (RING,), PERMUTE: (DIRECT,),
}
TORUS_DEFAULT = {ALL_REDUCE: RING, ALL_GATHER: RING, REDUCE_SCATTER: RING,
                  ALL_TO_ALL: DIRECT, BROADCAST: RING, PERMUTE: DIRECT}


def _ring_1d(span: DimSpan, link: Link, b: float) -> PhaseCost:
    """One all_gather (b = output) or reduce_scatter (b = input) along one dimension with
    bidirectional rings (a line when the group does not wrap)."""
    k, s = span.size, span.stride
    bw = link.bandwidth_bytes_per_s * (2 if span.wraps else 1)
    return k - 1, s, (k - 1) * s * link.latency_s, (k - 1) / k * b * s / bw


def _hd_1d(kind: str, span: DimSpan, link: Link, b: float) -> PhaseCost:
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
        worst: tuple[float, PhaseCost, DimSpan, float] | None = None
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


def torus_phases(kind: str, algo: str, b: float, placement: GroupPlacement,
                 links: Sequence[Link], where: str) -> list[Phase]:
    """The phases of `kind` under `algo` for a regular group on a ring/torus with
    `links` (`where`: the topology's description, for errors)."""
    n = placement.size
    spans = [s for s in placement.spans if s.size > 1]
    if algo == HALVING_DOUBLING:
        bad = [s.size for s in spans if s.size & (s.size - 1)]
        if bad:
            raise InvalidArgumentError(
                f"halving_doubling on {where} needs a power-of-two group extent in "
                f"every dimension, got extents {[s.size for s in spans]}; "
                "allowed instead: ['ring', 'direct']")
    if kind == ALL_TO_ALL or algo == DIRECT:
        return [_torus_direct(kind, b, spans, links, n)]
    if kind == BROADCAST:
        return [_torus_broadcast(b, spans, links, n)]
    return _torus_multi(kind, algo, b, spans, links)


IRREGULAR_LEVEL = "torus (irregular group)"


def irregular_fabric(topology: Topology, placement: GroupPlacement) -> Fabric:
    """A group that is not a grid on a ring/torus: a logical ring in the given order,
    each step `ring_hops` hops on the slowest dimension's links (no sibling sharing,
    no wraparound doubling)."""
    h = placement.ring_hops
    alpha = max(l.latency_s for l in topology.links) * h
    bw = min(l.bandwidth_bytes_per_s for l in topology.links)
    return Fabric(placement.size, alpha, bw, bw, 0.0, IRREGULAR_LEVEL)


def torus_permute_classes(pairs: Sequence[tuple[int, int]],
                          topology: Topology) -> tuple[PermuteClass, ...]:
    """The one class of links a permutation of distinct pairs uses on a ring/torus: each
    message routed dimension by dimension on shortest paths (ties split both ways)."""
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
