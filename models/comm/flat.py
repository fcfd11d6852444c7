"""Collectives on one flat fabric: a switch or fully-connected domain, or one level of
a hierarchical topology (the formulas per kind and algorithm, the library's default
among them, and the busiest link of a permutation).

With n devices, alpha per step `a`, per-device bandwidth `bw` (a switch port; on a
fully-connected fabric `min(bw, (n-1) x pair link)`), pair bandwidth `bw_p` (the link to
one partner), `lg = ceil(log2 n)` and B the bytes of `phases`' convention, the formulas
are (Thakur, Rabenseifner & Gropp 2005, "Optimization of collective communication
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

NCCL protocol regimes (a switch `Topology` with `protocols`, fitted per collective kind
to measured NCCL by `train.link_calibration.protocols`): NCCL moves data with one of
three protocols, LL (8-byte stores with inline flags: lowest latency, about half the
link bandwidth), LL128 (128-byte lines, most of the bandwidth) and Simple (bulk copies
with fences: full bandwidth, highest latency) (NCCL documentation, NCCL_PROTO; NCCL
src/graph/tuning.cc gives each its own base latency, per-hop latency and bandwidth),
and picks per call the one its cost model says is fastest. Each calibrated protocol p
is (o_p, a_p, bw_p, c_p) and the formulas above become, taking the cheapest protocol:

    all_gather / reduce_scatter  ring    o_p + (n-1) a_p  + (n-1)/n B / bw_p + c_p B
    all_reduce                   ring    o_p + 2(n-1) a_p + 2(n-1)/n B / bw_p + c_p B
                                 in_switch  o_N + (n+1)/n B / bw_N + c_N B  (protocol NVLS)
    all_to_all                   direct  o_p + (n-1) a_p  + (n-1)/n B / bw_p + c_p B
                                                 + d_p B/n

(o_p is the whole per-call cost: the topology's `overhead_s` is their minimum and the
rest is charged as alpha). d_p (`peer_seconds_per_byte`; 0 in chip files written before
it) is a cost per byte of each point-to-point message: NCCL's all_to_all is n-1 grouped
sends of B/n bytes, run concurrently, each at a per-peer rate (its few channels) far
below the port's: H100's LL all_to_all takes about 0.16 us more per KiB of each peer's
message on 2, 4 and 8 GPUs alike (8 -> 32 KiB per peer: 7.9 -> 11.7 us on 2 GPUs,
2 -> 16 KiB: 7.2 -> 9.9 us on 8), so at a given B it gets faster with more GPUs.
c_p (seconds per byte, `buffer_seconds_per_byte`; 0 in chip
files written before it) is a cost per byte of the whole message that does not grow
with the group: NCCL's bus bandwidth at a given size rises with the GPU count (H100
all_gather of 512 MiB: 258 / 318 / 335 GB/s on 2 / 4 / 8 GPUs), as if each GPU also
paid for its own buffer at a fixed rate beside the bus bytes.

NVLS all_reduce: each GPU reduces its 1/n shard with multimem loads through the switch,
which reads that shard from all n GPUs (each GPU's port sends B in all), then stores it
once with multicast, which writes every shard to every GPU (each port receives B); the
other direction carries B/n, so a port moves (n+1)/n B at most: (1+1/n) B / bw_N, where
ring moves 2(n-1)/n B. The in-switch algorithm is the cheaper one at 8 GPUs and not at
4 (1.125 vs 1.75, 1.25 vs 1.5 at equal bandwidth: NCCL's NVLS bandwidth is below the
ring's), as the H100 data shows. With protocols the library's all_reduce choice is ring
or in_switch (tree is not fitted).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .phases import (
    ALL_GATHER,
    ALL_REDUCE,
    ALL_TO_ALL,
    BROADCAST,
    DIRECT,
    HALVING_DOUBLING,
    IN_SWITCH,
    NVLS_PROTOCOL,
    PERMUTE,
    REDUCE_SCATTER,
    RING,
    TREE,
    ZERO_COST,
    PermuteClass,
    PhaseCost,
)
from .topology import SWITCH, Link, Topology


@dataclass(frozen=True)
class Fabric:
    """One flat level: n devices, alpha per step, port (injection) and pair bandwidth,
    in-switch efficiency (0: none)."""

    n: int
    alpha_s: float
    port_bytes_per_s: float
    pair_bytes_per_s: float
    efficiency: float
    level: str
    # calibrated protocol regimes: (name, overhead beyond the topology's, alpha, bandwidth,
    # seconds per message byte, seconds per byte of one point-to-point message)
    protocols: tuple[tuple[str, float, float, float, float, float], ...] = ()

    @property
    def nvls(self) -> tuple[str, float, float, float, float, float] | None:
        return next((p for p in self.protocols if p[0] == NVLS_PROTOCOL), None)


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


def flat_allowed(kind: str, fabric: Fabric) -> tuple[str, ...]:
    """The algorithms `kind` can run on `fabric` (in_switch only where the switch reduces)."""
    return tuple(a for a in _FLAT_ALGOS[kind]
                 if a != IN_SWITCH or fabric.efficiency > 0 or _nvls_all_reduce(kind, fabric))


def _nvls_all_reduce(kind: str, f: Fabric) -> bool:
    """Whether a calibrated NVLS protocol prices `kind` in the switch (all_reduce only)."""
    return kind == ALL_REDUCE and f.nvls is not None


def _protocol_cost(f: Fabric, steps: int, bus_bytes: float, b: float,
                   peer_bytes: float = 0.0) -> PhaseCost | None:
    """The cheapest calibrated (non-NVLS) protocol for `steps` steps moving `bus_bytes`
    through a port, of a message of `b` bytes sent as point-to-point messages of
    `peer_bytes` each (all_to_all); None when `f` has no protocols."""
    best: PhaseCost | None = None
    for name, extra_s, alpha_s, bw, buffer_s, peer_s in f.protocols:
        if name == NVLS_PROTOCOL:
            continue
        cost = (steps, 1, extra_s + steps * alpha_s,
                bus_bytes / bw + b * buffer_s + peer_bytes * peer_s)
        if best is None or cost[2] + cost[3] < best[2] + best[3]:
            best = cost
    return best


def flat_cost(kind: str, algo: str, b: float, f: Fabric) -> PhaseCost:
    """Cost of one collective on a flat fabric (formulas in the module docstring)."""
    n, a = f.n, f.alpha_s
    if n <= 1:
        return ZERO_COST
    ring_bw = min(f.port_bytes_per_s, (n - 1) * f.pair_bytes_per_s)
    pair = f.pair_bytes_per_s
    share = (n - 1) / n
    lg = (n - 1).bit_length()                 # ceil(log2 n)
    p2 = 1 << (n.bit_length() - 1)            # largest power of two <= n
    lg2 = p2.bit_length() - 1                 # log2 p2
    if f.protocols:
        priced = _protocol_phase(kind, algo, b, f)
        if priced is not None:
            return priced
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
    raise AssertionError(f"no flat formula for {kind}/{algo}")   # guarded by flat_allowed


def _protocol_phase(kind: str, algo: str, b: float, f: Fabric) -> PhaseCost | None:
    """The protocol formulas of the module docstring; None where they do not apply
    (another algorithm: the plain formula with the link's values)."""
    n = f.n
    share = (n - 1) / n
    if algo == RING and kind in (ALL_GATHER, REDUCE_SCATTER):
        return _protocol_cost(f, n - 1, share * b, b)
    if algo == RING and kind == ALL_REDUCE:
        return _protocol_cost(f, 2 * (n - 1), 2 * share * b, b)
    if algo == DIRECT and kind == ALL_TO_ALL:
        return _protocol_cost(f, n - 1, share * b, b, b / n)
    nvls = f.nvls
    if algo == IN_SWITCH and kind == ALL_REDUCE and nvls is not None:
        _, extra_s, alpha_s, bw, buffer_s, _ = nvls
        return 1, 1, extra_s + alpha_s, (n + 1) / n * b / bw + b * buffer_s
    return None


def flat_default(kind: str, b: float, f: Fabric) -> str:
    """The library's choice for `kind` on `f`: the cheapest of NCCL's enabled algorithms
    (with calibrated protocols: of those they were fitted with, no tree)."""
    best, best_t = "", math.inf
    for algo in _FLAT_CHOICES[kind]:
        if algo == IN_SWITCH and f.efficiency <= 0 and not _nvls_all_reduce(kind, f):
            continue
        if algo == TREE and f.protocols:
            continue
        _, _, alpha, beta = flat_cost(kind, algo, b, f)
        if alpha + beta < best_t:
            best, best_t = algo, alpha + beta
    return best


def flat_fabric(topology: Topology, n: int, link: Link, kind: str, level: str) -> Fabric:
    """A flat level of `n` group members over `link` on a switch or fully-connected
    fabric of `topology`."""
    if kind == SWITCH:
        protocols = tuple((p.name, p.overhead_s - topology.overhead_s, p.latency_s,
                           p.bandwidth_bytes_per_s, p.buffer_seconds_per_byte,
                           p.peer_seconds_per_byte)
                          for p in topology.protocols)
        return Fabric(n, link.latency_s, link.bandwidth_bytes_per_s,
                      link.bandwidth_bytes_per_s, topology.in_switch_reduction_efficiency,
                      level, protocols)
    # fully connected: a port is every peer link of the fabric's domain together.
    domain = topology.dims[-1]
    port = max(domain - 1, 1) * link.bandwidth_bytes_per_s
    return Fabric(n, link.latency_s, port, link.bandwidth_bytes_per_s, 0.0, level)


def port_load(pairs: Sequence[tuple[int, int]]) -> int:
    """Messages through the busiest device port (sends or receives) of a permutation."""
    sends: dict[int, int] = {}
    recvs: dict[int, int] = {}
    for s, t in pairs:
        sends[s] = sends.get(s, 0) + 1
        recvs[t] = recvs.get(t, 0) + 1
    return max(max(sends.values()), max(recvs.values()))


def fabric_seconds_per_byte(pairs: Sequence[tuple[int, int]], link: Link, kind: str,
                            domain: int) -> float:
    """Seconds per byte on the busiest port (switch) or pair link (fully connected)."""
    if kind == SWITCH:
        return port_load(pairs) / link.bandwidth_bytes_per_s
    per_pair: dict[tuple[int, int], int] = {}
    for p in pairs:
        per_pair[p] = per_pair.get(p, 0) + 1
    port = max(domain - 1, 1) * link.bandwidth_bytes_per_s
    return max(max(per_pair.values()) / link.bandwidth_bytes_per_s,
               port_load(pairs) / port)


def flat_permute_classes(pairs: Sequence[tuple[int, int]],
                         topology: Topology) -> tuple[PermuteClass, ...]:
    """The one class of links (level, hops, alpha_s, seconds per byte on the busiest link)
    a permutation of distinct pairs uses on a switch or fully-connected topology."""
    link = topology.links[0]
    return ((topology.kind, 1, link.latency_s,
             fabric_seconds_per_byte(pairs, link, topology.kind, topology.dims[0])),)
