"""Collectives on hierarchical topologies (switch or fully-connected nodes on a
network): the two-level decomposition, NCCL's flat ring and tree across the nodes,
one-shot direct, and the links a permutation uses.

Hierarchical topologies (NVLink nodes on an InfiniBand network, per-level alpha and
beta) offer NCCL's flat `ring` (one ring per NIC rail: busiest link is
`min(bw_intra, c bw_nic)`; `(n - q)` intra and `(q - 1)` inter steps per pass, as in
NCCL's tuning model), NCCL's `tree` (chain inside nodes, double binary tree between
them: `2((c-1) a_intra + lg q a_inter)`), `direct`, and `hierarchical`: reduce_scatter
inside each node, all_reduce of the 1/c shard between nodes on each rail, all_gather
inside the node (NCCL's NVLSTree / Horovod's hierarchical all_reduce). `in_switch` and
`halving_doubling` on a hierarchical topology are the hierarchical scheme with that
algorithm in every phase where it applies.
"""

from __future__ import annotations

import math
from typing import Sequence

from .flat import Fabric, fabric_seconds_per_byte, flat_cost, flat_default, flat_fabric, port_load
from .phases import (
    ALL_GATHER,
    ALL_REDUCE,
    ALL_TO_ALL,
    BROADCAST,
    DIRECT,
    HALVING_DOUBLING,
    HIERARCHICAL_ALGO,
    IN_SWITCH,
    PERMUTE,
    REDUCE_SCATTER,
    RING,
    TREE,
    PermuteClass,
    Phase,
)
from .placement import GroupPlacement
from .topology import Topology

HIER_ALGOS = {
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


def hier_levels(topology: Topology, placement: GroupPlacement) -> tuple[Fabric, Fabric]:
    """The (inter_node, intra_node) fabrics a group's nodes and members per node see."""
    q, c = placement.num_nodes, placement.devices_per_node
    inter = topology.links[0]
    inter_f = Fabric(q, inter.latency_s, inter.bandwidth_bytes_per_s,
                      inter.bandwidth_bytes_per_s, 0.0, "inter_node")
    intra_f = flat_fabric(topology, c, topology.links[1], topology.node_kind, "intra_node")
    return inter_f, intra_f


def hier_phases(kind: str, algo: str, b: float, inter: Fabric,
                 intra: Fabric) -> list[Phase]:
    """A regular group (q nodes x c devices): the hierarchical decomposition, or NCCL's
    flat ring, tree and one-shot direct over both levels."""
    if algo not in (HIERARCHICAL_ALGO, HALVING_DOUBLING, IN_SWITCH):
        return [hier_flat(kind, algo, b, inter.n * intra.n, inter, intra, intra.n)]
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
            sub = flat_default(stage_kind, size, fabric)
        steps, hops, alpha, beta = flat_cost(stage_kind, sub, size, fabric)
        phases.append(Phase(stage_kind, sub, fabric.level, fabric.n, size, steps, hops,
                            alpha, beta))
    return phases


def hier_flat(kind: str, algo: str, b: float, n: int, inter: Fabric, intra: Fabric,
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


def hier_default(kind: str, b: float, inter: Fabric, intra: Fabric) -> str:
    """The library's choice for `kind` on a regular group: the cheapest of NCCL's."""
    best, best_t = "", math.inf
    for algo in _HIER_CHOICES[kind]:
        t = sum(p.time_s for p in hier_phases(kind, algo, b, inter, intra))
        if t < best_t:
            best, best_t = algo, t
    return best


def hier_permute_classes(pairs: Sequence[tuple[int, int]],
                         topology: Topology) -> tuple[PermuteClass, ...]:
    """The classes of links a permutation of distinct pairs uses on a hierarchical
    topology: the NICs for pairs in different nodes, the node fabric for the rest."""
    per_node = topology.dims[1]
    inter = [(s, t) for s, t in pairs if s // per_node != t // per_node]
    intra = [(s, t) for s, t in pairs if s // per_node == t // per_node]
    classes = []
    if inter:
        link = topology.links[0]
        classes.append(("inter_node", 1, link.latency_s,
                        port_load(inter) / link.bandwidth_bytes_per_s))
    if intra:
        link = topology.links[1]
        classes.append(("intra_node", 1, link.latency_s,
                        fabric_seconds_per_byte(intra, link, topology.node_kind, per_node)))
    return tuple(classes)


def most_in_one_node(devices: Sequence[int], per_node: int) -> int:
    """The most group members in one node of `per_node` devices."""
    return max(sum(1 for d in devices if d // per_node == node)
               for node in {d // per_node for d in devices})
