"""Alpha-beta communication models: topologies, group placement, every collective kind
on every topology kind against hand-worked values, defaults, overrides and errors.

(Over 400 lines: independent tests of one package area, each with its inputs inline;
they share fixtures, and a reader looks for the tests of that area in one place.)
"""

import math

import pytest

from stablecost.errors import HardwareSpecError, InvalidArgumentError
from stablecost.hardware import get_hardware, parse_spec
from stablecost.models.comm.collectives import (
    available_algorithms,
    collective_time,
    default_algorithm,
)
from stablecost.models.comm.phases import ALGORITHMS, KINDS, bytes_per_device_from_send
from stablecost.models.comm.placement import DimSpan, place_group
from stablecost.models.comm.topology import Link, Topology, topology_for

GiB = float(2 ** 30)
MiB = float(2 ** 20)
H100_BW, H100_A, H100_OVERHEAD = 450e9, 2.5e-6, 4e-6      # per direction, per step, per call


def approx(x: float) -> object:
    return pytest.approx(x, rel=1e-9, abs=1e-15)


@pytest.fixture(scope="module")
def h100x8() -> Topology:
    return topology_for("H100-SXM", 8)


@pytest.fixture(scope="module")
def h100x16() -> Topology:
    return topology_for("H100-SXM", 16)


@pytest.fixture(scope="module")
def v5e() -> Topology:
    return topology_for("TPU-v5e", 8)


# --------------------------------------------------------------------------- topologies


def test_topology_defaults_from_interconnect_data(h100x8, h100x16, v5e):
    assert (h100x8.kind, h100x8.dims, h100x8.overhead_s) == ("switch", (8,), 4e-6)
    assert h100x8.links == (Link(450e9, 2.5e-6),)
    assert h100x8.in_switch_reduction_efficiency == 0.85          # NVLS on Hopper
    assert topology_for("A100-SXM-80GB", 8).in_switch_reduction_efficiency == 0.0
    # 16 H100: 2 nodes x 8, NIC 50 GB/s / 5 us between nodes, NVLink inside.
    assert (h100x16.kind, h100x16.dims, h100x16.node_kind) == ("hierarchical", (2, 8), "switch")
    assert h100x16.links == (Link(50e9, 5e-6), Link(450e9, 2.5e-6))
    # TPU v5e x 8: a 2x4 torus; 200 GB/s per chip over 4 ICI ports = 50 GB/s per link.
    assert (v5e.kind, v5e.dims, v5e.wraparound) == ("torus2d", (2, 4), (True, True))
    assert v5e.links == (Link(50e9, 1e-6),) * 2
    # TPU v5p x 64: 4x4x4; 600 GB/s over 6 ports = 100 GB/s per link.
    v5p = topology_for("TPU-v5p", 64)
    assert (v5p.dims, v5p.links[0].bandwidth_bytes_per_s) == ((4, 4, 4), 100e9)
    # MI300X: fully connected, 448 GB/s over 7 peer links = 64 GB/s per pair.
    mi = topology_for("MI300X", 8)
    assert (mi.kind, mi.links[0].bandwidth_bytes_per_s) == ("fully_connected", 64e9)
    assert topology_for("TPU-v5e", 8, wraparound=False).wraparound == (False, False)
    assert topology_for("TPU-v5e", 8, dims=(8, 1)).dims == (8, 1)
    assert topology_for("H100-SXM", 8, kind="ring").links[0].bandwidth_bytes_per_s == 225e9
    assert topology_for("TPU-v5e", 16).dims == (4, 4)
    assert topology_for("H100-SXM", 8) is h100x8                  # cached
    assert "torus2d 2x4 (wraparound)" == v5e.describe()


def test_topology_errors_name_what_is_allowed():
    with pytest.raises(InvalidArgumentError, match="multiple of 8 \\(chips_per_node\\)"):
        topology_for("H100-SXM", 12)
    with pytest.raises(InvalidArgumentError, match="512 x TPU-v5e.*up to 256 devices"):
        topology_for("TPU-v5e", 512)
    with pytest.raises(InvalidArgumentError, match="product is 8, got \\(3, 3\\)"):
        topology_for("TPU-v5e", 8, dims=(3, 3))
    with pytest.raises(InvalidArgumentError, match="kind 'mesh' is not one of .*torus2d"):
        topology_for("TPU-v5e", 8, kind="mesh")
    with pytest.raises(InvalidArgumentError, match="switch or fully-connected node fabric"):
        topology_for("TPU-v5e", 8, kind="hierarchical")
    with pytest.raises(InvalidArgumentError, match="integer >= 1, got 0"):
        topology_for("H100-SXM", 0)
    assert get_hardware("H100-SXM").to_dict()["in_switch_reduction_efficiency"] == 0.85
    spec = {"name": "cpu", "vendor": "x", "kind": "cpu",
            "compute": {"matmul_flops_per_s": {"f32": 1e11, "bf16": 1e11, "f16": 1e11},
                        "vector_flops_per_s": {"f32": 1e10, "bf16": 1e10, "f16": 1e10},
                        "transcendentals_per_s": 1e9, "f32_matmul_as": "f32"},
            "memory": {"capacity_bytes": 1e9, "bandwidth_bytes_per_s": 1e10},
            "kernel": {"launch_overhead_s": 1e-6},
            "interconnect": {"chips_per_node": 1, "topology": "none",
                             "intra_node_bandwidth_bytes_per_s": 1e10,
                             "intra_node_latency_s": 1e-6,
                             "inter_node_bandwidth_bytes_per_s": 1e9,
                             "inter_node_latency_s": 1e-5}}
    host = parse_spec(spec, "cpu.toml")
    assert topology_for(host, 1).num_devices == 1
    with pytest.raises(InvalidArgumentError, match="no interconnect.*single device"):
        topology_for(host, 2)
    spec["interconnect"]["in_switch_reduction_efficiency"] = 1.5
    with pytest.raises(HardwareSpecError, match="in_switch_reduction_efficiency must be in"):
        parse_spec(spec, "cpu.toml")
    # Hand-built topologies are validated too.
    with pytest.raises(InvalidArgumentError, match="needs 2 Link\\(s\\)"):
        Topology("torus2d", (2, 4), (Link(1e9, 1e-6),))
    with pytest.raises(InvalidArgumentError, match="bandwidth_bytes_per_s must be a positive"):
        Link(0.0, 1e-6)
    with pytest.raises(InvalidArgumentError, match="needs a switch fabric"):
        Topology("ring", (8,), (Link(1e9, 1e-6),), in_switch_reduction_efficiency=0.5)


# --------------------------------------------------------------------------- placement


def test_place_group_on_a_torus(v5e):
    # v5e 2x4, row-major: device = 4 * row + column.
    assert place_group([0, 1, 2, 3], v5e).spans == (DimSpan(1, 4, 1, True),)
    assert place_group([0, 4], v5e).spans == (DimSpan(0, 2, 1, True),)
    assert place_group([0, 2], v5e).spans == (DimSpan(1, 2, 2, True),)   # 2 x 2 hops = ring
    assert place_group([1, 2], v5e).spans == (DimSpan(1, 2, 1, False),)  # a segment
    assert place_group([3, 0], v5e).spans == (DimSpan(1, 2, 1, False),)  # across the wrap
    full = place_group(8, v5e)
    assert full.regular and full.dimensions == (0, 1) and not full.crosses_nodes
    # [0, 1, 5] is no grid: hops 0->1 = 1, 1->5 = 1, 5->0 = (1,1)->(0,0) = 2.
    odd = place_group([0, 1, 5], v5e)
    assert (odd.regular, odd.ring_hops) == (False, 2)


def test_place_group_on_a_hierarchy(h100x16):
    p = place_group([0, 1, 8, 9], h100x16)
    assert (p.regular, p.num_nodes, p.devices_per_node, p.crosses_nodes) == (True, 2, 2, True)
    assert place_group([0, 1, 2], h100x16).crosses_nodes is False
    assert place_group([0, 1, 8], h100x16).regular is False


def test_bad_groups_are_reported(h100x8):
    with pytest.raises(InvalidArgumentError, match="device 8 in group \\[0, 8\\] is outside"
                                                   " the topology's 8 devices \\(0..7\\)"):
        collective_time("all_reduce", 1.0, [0, 8], h100x8)
    with pytest.raises(InvalidArgumentError, match="lists a device twice"):
        collective_time("all_reduce", 1.0, [1, 1], h100x8)
    with pytest.raises(InvalidArgumentError, match="group is empty"):
        collective_time("all_reduce", 1.0, [], h100x8)
    with pytest.raises(InvalidArgumentError, match="group size 9 is outside 1..8"):
        collective_time("all_reduce", 1.0, 9, h100x8)
    with pytest.raises(InvalidArgumentError, match="group is required"):
        collective_time("all_reduce", 1.0, None, h100x8)


# --------------------------------------------------------------------------- switch (NVSwitch)

B = GiB
# (kind, algorithm, alpha_s, beta_s) for 1 GiB over 8 H100 (450 GB/s, 2.5 us per step).
SWITCH_CASES = [
    # ring all_reduce: 2(n-1) a + 2(n-1)/n B/bw = 14 x 2.5 us + 1.75 x 2^30 / 450e9
    ("all_reduce", "ring", 14 * 2.5e-6, 1.75 * B / 450e9),
    # double binary tree: 2 lg n a + 2B/bw (NCCL algbw = busbw / 2)
    ("all_reduce", "tree", 6 * 2.5e-6, 2 * B / 450e9),
    # Rabenseifner: 2 lg n a + 2(n-1)/n B/bw
    ("all_reduce", "halving_doubling", 6 * 2.5e-6, 1.75 * B / 450e9),
    # one-shot: a + (n-1) B/bw
    ("all_reduce", "direct", 2.5e-6, 7 * B / 450e9),
    # NVLS: 2a + B / (0.85 bw)
    ("all_reduce", "in_switch", 5e-6, B / (0.85 * 450e9)),
    ("all_gather", "ring", 7 * 2.5e-6, 7 / 8 * B / 450e9),
    ("all_gather", "halving_doubling", 3 * 2.5e-6, 7 / 8 * B / 450e9),
    ("all_gather", "direct", 2.5e-6, 7 / 8 * B / 450e9),
    ("all_gather", "in_switch", 2.5e-6, 7 / 8 * B / (0.85 * 450e9)),
    ("reduce_scatter", "ring", 7 * 2.5e-6, 7 / 8 * B / 450e9),
    ("reduce_scatter", "halving_doubling", 3 * 2.5e-6, 7 / 8 * B / 450e9),
    ("reduce_scatter", "direct", 2.5e-6, 7 / 8 * B / 450e9),
    ("reduce_scatter", "in_switch", 2.5e-6, 7 / 8 * B / (0.85 * 450e9)),
    # all_to_all: direct a + (n-1)/n B/bw; ring (n-1) a + (n-1)/2 B/bw; Bruck lg a + lg B/2 /bw
    ("all_to_all", "direct", 2.5e-6, 7 / 8 * B / 450e9),
    ("all_to_all", "ring", 7 * 2.5e-6, 3.5 * B / 450e9),
    ("all_to_all", "halving_doubling", 3 * 2.5e-6, 3 * B / 2 / 450e9),
    # broadcast: pipelined chain, binomial tree, scatter+allgather, root-to-all, multicast
    ("collective_broadcast", "ring", 7 * 2.5e-6, B / 450e9),
    ("collective_broadcast", "tree", 3 * 2.5e-6, 3 * B / 450e9),
    ("collective_broadcast", "halving_doubling", 6 * 2.5e-6, 1.75 * B / 450e9),
    ("collective_broadcast", "direct", 2.5e-6, 7 * B / 450e9),
    ("collective_broadcast", "in_switch", 2.5e-6, B / (0.85 * 450e9)),
    # permute: each device sends B to the next over its own port
    ("collective_permute", "direct", 2.5e-6, B / 450e9),
]


@pytest.mark.parametrize("kind,algorithm,alpha_s,beta_s", SWITCH_CASES)
def test_switch_hand_worked(h100x8, kind, algorithm, alpha_s, beta_s):
    c = collective_time(kind, B, list(range(8)), h100x8, algorithm)
    assert (c.kind, c.algorithm, c.group_size, c.bytes_per_device) == (kind, algorithm, 8, B)
    assert c.alpha_s == approx(alpha_s)
    assert c.beta_s == approx(beta_s)
    assert c.overhead_s == H100_OVERHEAD
    assert c.time_s == approx(H100_OVERHEAD + alpha_s + beta_s)
    assert c.dimensions == (0,) and c.hops == 1 and not c.crosses_nodes


def test_ring_all_reduce_worked_example(h100x8):
    # The brief's example: 2(n-1) a + 2(n-1)/n B/bw + overhead
    # = 35 us + 1.75 x 1073741824 / 450e9 (= 4175.66 us) + 4 us = 4214.66 us.
    c = collective_time("all_reduce", GiB, 8, h100x8, "ring")
    assert c.time_s == pytest.approx(4214.66e-6, abs=0.01e-6)
    assert c.steps == 14


def test_halving_doubling_off_powers_of_two(h100x8):
    # 6 ranks: fold 2 extra ranks into partners (a + B), Rabenseifner over 4 (2 x 2 steps,
    # 2 x 3/4 B), return the result (a + B): 6 a, (2 + 1.5) B / bw.
    c = collective_time("all_reduce", GiB, 6, h100x8, "halving_doubling")
    assert (c.alpha_s, c.beta_s) == (approx(6 * 2.5e-6), approx(3.5 * GiB / 450e9))
    # all_gather uses Bruck: ceil(lg 6) = 3 steps, (n-1)/n B.
    c = collective_time("all_gather", GiB, 6, h100x8, "halving_doubling")
    assert (c.alpha_s, c.beta_s) == (approx(3 * 2.5e-6), approx(5 / 6 * GiB / 450e9))


def test_default_algorithms_follow_nccl(h100x8):
    # NVLS switches: in-switch all_reduce at every size (5 us alpha, B/(0.85 bw) beta).
    assert default_algorithm("all_reduce", 1e3, 8, h100x8) == "in_switch"
    assert default_algorithm("all_reduce", GiB, 8, h100x8) == "in_switch"
    # all_gather: NVLS (1 step) for small buffers, ring (full link rate) for large ones.
    assert default_algorithm("all_gather", 1e3, 8, h100x8) == "in_switch"
    assert default_algorithm("all_gather", GiB, 8, h100x8) == "ring"
    assert default_algorithm("all_to_all", GiB, 8, h100x8) == "direct"
    assert default_algorithm("collective_broadcast", GiB, 8, h100x8) == "ring"
    # A100 (no NVLS), 8 GPUs: tree (6 steps) below the crossover, ring above it:
    # tree - ring = -8 a + (2 - 1.75) B/bw = 0 at B = 8 x 3e-6 x 300e9 / 0.25 = 28.8 MB.
    a100 = topology_for("A100-SXM-80GB", 8)
    assert default_algorithm("all_reduce", 20e6, 8, a100) == "tree"
    assert default_algorithm("all_reduce", 40e6, 8, a100) == "ring"
    assert available_algorithms("all_reduce", 8, a100) == (
        "ring", "tree", "halving_doubling", "direct")
    assert available_algorithms("all_gather", 8, h100x8) == (
        "ring", "halving_doubling", "direct", "in_switch")


def test_unavailable_algorithms_are_refused(h100x8, v5e):
    a100 = topology_for("A100-SXM-80GB", 8)
    with pytest.raises(InvalidArgumentError, match="'in_switch' is not available for "
                       "all_reduce on switch of 8; allowed: \\['ring', 'tree', "
                       "'halving_doubling', 'direct'\\]"):
        collective_time("all_reduce", 1.0, 8, a100, "in_switch")
    with pytest.raises(InvalidArgumentError, match="'tree' is not available for all_gather"):
        collective_time("all_gather", 1.0, 8, h100x8, "tree")
    with pytest.raises(InvalidArgumentError, match="all_to_all on torus2d.*allowed: "
                       "\\['direct'\\]"):
        collective_time("all_to_all", 1.0, 8, v5e, "ring")
    with pytest.raises(InvalidArgumentError, match="algorithm 'nvls' is not one of"):
        collective_time("all_reduce", 1.0, 8, h100x8, "nvls")
    with pytest.raises(InvalidArgumentError, match="power-of-two group extent.*\\[2, 3\\]"):
        collective_time("all_reduce", 1.0, 6, topology_for("TPU-v5e", 6, dims=(2, 3)),
                        "halving_doubling")


# --------------------------------------------------------------------------- fully connected


def test_fully_connected_mi300x():
    mi = topology_for("MI300X", 8)   # 64 GB/s per pair link, 7 links = 448 GB/s, 3 us, 6 us call
    # ring (one ring per link, all links busy): 14 a + 1.75 B / 448e9
    c = collective_time("all_reduce", GiB, 8, mi, "ring")
    assert (c.alpha_s, c.beta_s) == (approx(42e-6), approx(1.75 * GiB / 448e9))
    assert c.time_s == approx(6e-6 + 42e-6 + 1.75 * GiB / 448e9)
    # tree: each tree link carries B/2 each way: max(2B/448e9, B/(2 x 64e9)) = B/128e9
    c = collective_time("all_reduce", GiB, 8, mi, "tree")
    assert c.beta_s == approx(GiB / 128e9)
    # halving-doubling talks to one partner per step: 2(n-1)/n B over one 64 GB/s link
    c = collective_time("all_reduce", GiB, 8, mi, "halving_doubling")
    assert c.beta_s == approx(1.75 * GiB / 64e9)
    # permute: one pair link
    c = collective_time("collective_permute", GiB, 8, mi)
    assert c.beta_s == approx(GiB / 64e9)
    # a group of 4 reaches only 3 of its 7 links: ring bandwidth 3 x 64 GB/s
    c = collective_time("all_gather", GiB, [0, 1, 2, 3], mi, "ring")
    assert c.beta_s == approx(3 / 4 * GiB / 192e9)


# --------------------------------------------------------------------------- ring topology


def test_ring_topology():
    ring = topology_for("TPU-v5e", 8, kind="ring")     # 50 GB/s per link, 1 us per hop
    # bidirectional ring all_gather: (k-1) a + (k-1)/k B / (2 bw_link)
    c = collective_time("all_gather", GiB, 8, ring, "ring")
    assert (c.alpha_s, c.beta_s) == (approx(7e-6), approx(7 / 8 * GiB / 100e9))
    # without the wraparound link it is a line: the end links carry (k-1)/k B one way.
    line = topology_for("TPU-v5e", 8, kind="ring", wraparound=False)
    c = collective_time("all_gather", GiB, 8, line)
    assert c.beta_s == approx(7 / 8 * GiB / 50e9)
    # every other device (stride 2): 2 hops per step, each link shared with the sibling
    # group: 3 x 2 a + 3/4 B x 2 / (2 bw_link)
    c = collective_time("all_gather", GiB, [0, 2, 4, 6], ring)
    assert (c.alpha_s, c.beta_s, c.hops) == (approx(6e-6), approx(3 / 4 * GiB / 50e9), 2)
    # recursive halving, biggest half to the nearest partner: distances 1, 2, 4 hops with
    # B/2, B/4, B/8 -> alpha 7 a, beta (1/2 + 2/4 + 4/8) B / bw_link
    c = collective_time("reduce_scatter", GiB, 8, ring, "halving_doubling")
    assert (c.alpha_s, c.beta_s) == (approx(7e-6), approx(1.5 * GiB / 50e9))
    # direct all_to_all on a wrapping ring of 8: the busiest link carries k^2/8 = 8
    # chunks of B/8 = B; farthest peer 4 hops.
    c = collective_time("all_to_all", GiB, 8, ring)
    assert (c.algorithm, c.alpha_s, c.beta_s, c.hops) == (
        "direct", approx(4e-6), approx(GiB / 50e9), 4)


# --------------------------------------------------------------------------- tori


def test_torus2d_all_gather_picks_the_cheaper_schedule(v5e):
    # 2x4, 50 GB/s per link per direction, both dims wrap (bidirectional: 100 GB/s).
    # Rotated schedule, 1 GiB: two halves; phase 1 worst = the half on the 4-ring with
    # output B/4: 3 a + 3/4 (B/4) / 100e9; phase 2 worst = the other half on the 4-ring
    # with output B/2: 3 a + 3/4 (B/2) / 100e9 -> 6 a + 9/16 B / 100e9 (sequential
    # would be 4 a + 7/8 B / 100e9).
    c = collective_time("all_gather", GiB, 8, v5e)
    assert c.algorithm == "ring"
    assert (c.alpha_s, c.beta_s) == (approx(6e-6), approx(9 / 16 * GiB / 100e9))
    assert c.time_s == approx(1e-6 + 6e-6 + 9 / 16 * GiB / 100e9)
    assert c.dimensions == (0, 1) and len(c.phases) == 2
    # Tiny buffers take the sequential schedule: 1 + 3 steps.
    assert collective_time("all_gather", 0.0, 8, v5e).alpha_s == approx(4e-6)
    # all_reduce = reduce_scatter then all_gather: twice the all_gather.
    c = collective_time("all_reduce", GiB, 8, v5e)
    assert (c.alpha_s, c.beta_s) == (approx(12e-6), approx(9 / 8 * GiB / 100e9))
    assert [p.kind for p in c.phases] == ["reduce_scatter"] * 2 + ["all_gather"] * 2


def test_torus3d_matches_the_multi_axis_bound():
    v5p = topology_for("TPU-v5p", 64)    # 4x4x4, 100 GB/s per link, 1 us
    # Three thirds of B, rotated: each phase 3/4 x part / (2 x 100e9) with parts B/3 x
    # (1/16, 1/4, 1) -> 21/64 B / 200e9 = 63/64 B / 600e9: the scaling book's
    # all_gather over 3 axes (bandwidth x number of axes). Alpha 3 x 3 steps.
    c = collective_time("all_gather", GiB, 64, v5p)
    assert c.beta_s == approx(63 / 64 * GiB / 600e9)
    assert c.alpha_s == approx(9e-6)
    assert c.dimensions == (0, 1, 2)


def test_torus_all_to_all_broadcast_and_permute(v5e):
    # direct all_to_all on 2x4: dim 1 (k=4, wraps) busiest link k^2/8 = 2 messages per
    # source line x (8/4) lines x B/8 = B/2; dim 0 (k=2) 0.5 x 4 x B/8 = B/4.
    # Farthest peer: 1 + 2 hops.
    c = collective_time("all_to_all", GiB, 8, v5e)
    assert (c.alpha_s, c.beta_s, c.hops) == (approx(3e-6), approx(GiB / 2 / 50e9), 3)
    # broadcast: bidirectional chains along dim 0 then dim 1: 1 + 3 steps, B / 100e9.
    c = collective_time("collective_broadcast", GiB, 8, v5e)
    assert (c.alpha_s, c.beta_s) == (approx(4e-6), approx(GiB / 100e9))
    # permute 0 -> 3: one hop backwards over the wraparound link.
    c = collective_time("collective_permute", GiB, None, v5e, pairs=[(0, 3)])
    assert (c.alpha_s, c.beta_s, c.hops) == (approx(1e-6), approx(GiB / 50e9), 1)
    # permute 0 -> 2: two hops either way; the load splits over both directions.
    c = collective_time("collective_permute", GiB, None, v5e, pairs=[(0, 2)])
    assert (c.alpha_s, c.beta_s, c.hops) == (approx(2e-6), approx(GiB / 2 / 50e9), 2)
    # default permute of a group: shift by one; 3 -> 4 is (0,3) -> (1,0): 2 hops.
    c = collective_time("collective_permute", MiB, 8, v5e)
    assert (c.hops, c.beta_s) == (2, approx(MiB / 50e9))
    # pairs that go nowhere cost nothing
    assert collective_time("collective_permute", GiB, None, v5e, pairs=[(5, 5)]).time_s == 0


def test_irregular_torus_group_is_a_logical_ring(v5e):
    # [0, 1, 5]: a logical ring, 2 hops per step at most, one 50 GB/s link.
    c = collective_time("all_gather", GiB, [0, 1, 5], v5e)
    assert (c.algorithm, c.hops) == ("ring", 2)
    assert (c.alpha_s, c.beta_s) == (approx(2 * 2e-6), approx(2 / 3 * GiB / 50e9))
    with pytest.raises(InvalidArgumentError, match="not a grid.*allowed: \\['ring'\\]"):
        collective_time("all_gather", GiB, [0, 1, 5], v5e, "direct")


# --------------------------------------------------------------------------- hierarchical


def test_hierarchical_all_reduce(h100x16):
    # 2 nodes x 8, NIC 50 GB/s + 5 us, NVLink 450 GB/s + 2.5 us.
    # Flat NCCL ring, one ring per NIC rail: busiest link min(450, 8 x 50) = 400 GB/s;
    # per pass (n - q) = 14 intra steps and q - 1 = 1 inter step.
    c = collective_time("all_reduce", GiB, 16, h100x16, "ring")
    assert c.alpha_s == approx(2 * (14 * 2.5e-6 + 5e-6))
    assert c.beta_s == approx(2 * 15 / 16 * GiB / 400e9)
    assert c.crosses_nodes and c.dimensions == (0, 1)
    # NCCL tree: 2 ((c-1) a_intra + lg q a_inter), 2B / 400e9
    c = collective_time("all_reduce", GiB, 16, h100x16, "tree")
    assert (c.alpha_s, c.beta_s) == (approx(2 * (7 * 2.5e-6 + 5e-6)), approx(2 * GiB / 400e9))
    # Hierarchical: intra reduce_scatter (ring at 1 GiB: 7 a + 7/8 B / 450e9), inter
    # all_reduce of B/8 on each rail (ring, q = 2: 2 x 5 us + 2 x 1/2 x B/8 / 50e9),
    # intra all_gather (as the reduce_scatter).
    c = collective_time("all_reduce", GiB, 16, h100x16, "hierarchical")
    assert [(p.kind, p.algorithm, p.level) for p in c.phases] == [
        ("reduce_scatter", "ring", "intra_node"), ("all_reduce", "ring", "inter_node"),
        ("all_gather", "ring", "intra_node")]
    assert c.alpha_s == approx(2 * 7 * 2.5e-6 + 2 * 5e-6)
    assert c.beta_s == approx(2 * 7 / 8 * GiB / 450e9 + GiB / 8 / 50e9)
    # in_switch: the intra phases by NVLS (1 step each).
    c = collective_time("all_reduce", 1e3, 16, h100x16, "in_switch")
    assert [p.algorithm for p in c.phases][::2] == ["in_switch", "in_switch"]
    # Defaults: hierarchical (few steps) for small buffers, the flat ring for large.
    assert default_algorithm("all_reduce", 1e3, 16, h100x16) == "hierarchical"
    assert default_algorithm("all_reduce", GiB, 16, h100x16) == "ring"


def test_hierarchical_other_kinds(h100x16):
    # all_to_all direct: 8 peers in the other node through the own NIC (8 x B/16 / 50e9)
    # outweigh 7 x B/16 over NVLink; one inter-node step.
    c = collective_time("all_to_all", GiB, 16, h100x16)
    assert (c.algorithm, c.alpha_s, c.beta_s) == ("direct", approx(5e-6),
                                                  approx(GiB / 2 / 50e9))
    # reduce_scatter hierarchical: intra RS of B, then inter RS of B/8 over 2 nodes.
    c = collective_time("reduce_scatter", GiB, 16, h100x16, "hierarchical")
    assert [p.buffer_bytes for p in c.phases] == [GiB, GiB / 8]
    # all_gather hierarchical: inter first (B/8 gathered per rail), then intra.
    c = collective_time("all_gather", GiB, 16, h100x16, "hierarchical")
    assert [(p.level, p.buffer_bytes) for p in c.phases] == [("inter_node", GiB / 8),
                                                       ("intra_node", GiB)]
    # One device per node: a flat network of NICs (ring, q = 2).
    c = collective_time("all_reduce", GiB, [0, 8], h100x16, "ring")
    assert (c.alpha_s, c.beta_s) == (approx(2 * 5e-6), approx(GiB / 50e9))
    # Inside one node: the NVSwitch formulas (NVLS).
    c = collective_time("all_reduce", GiB, [0, 1, 2, 3], h100x16)
    assert (c.algorithm, c.crosses_nodes) == ("in_switch", False)
    assert c.beta_s == approx(GiB / (0.85 * 450e9))
    # Unequal devices per node [0, 1, 8]: flat ring, the lone device's NIC is the
    # bottleneck: 2 x ((3 - 2) x 2.5 us + 1 x 5 us), 2 x 2/3 B / 50e9.
    c = collective_time("all_reduce", GiB, [0, 1, 8], h100x16)
    assert (c.algorithm, c.alpha_s, c.beta_s) == (
        "ring", approx(15e-6), approx(4 / 3 * GiB / 50e9))
    with pytest.raises(InvalidArgumentError, match="unequal devices per node.*\\['ring'\\]"):
        collective_time("all_reduce", GiB, [0, 1, 8], h100x16, "tree")
    # permute across nodes goes through the NIC.
    c = collective_time("collective_permute", GiB, None, h100x16, pairs=[(0, 8), (8, 0)])
    assert (c.alpha_s, c.beta_s) == (approx(5e-6), approx(GiB / 50e9))


# --------------------------------------------------------------------------- properties

TOPOLOGIES = [
    ("H100-SXM", 8, {}), ("H100-SXM", 16, {}), ("A100-SXM-80GB", 8, {}), ("MI300X", 8, {}),
    ("TPU-v5e", 8, {}), ("TPU-v5e", 8, {"wraparound": False}), ("TPU-v5p", 64, {}),
    ("TPU-v5e", 8, {"kind": "ring"}), ("L4", 8, {}), ("TPU-v5e", 6, {"dims": (2, 3)}),
]
SIZES = [0.0, 1.0, 1e3, 1e5, 1e7, 1e9, 1e11]


@pytest.mark.parametrize("hw,n,kwargs", TOPOLOGIES)
def test_more_bytes_never_cheaper_and_one_device_is_free(hw, n, kwargs):
    topo = topology_for(hw, n, **kwargs)
    groups = [list(range(n)), list(range(0, n, 2))]
    for kind in KINDS:
        for group in groups:
            for algo in (None,) + available_algorithms(kind, group, topo):
                try:
                    times = [collective_time(kind, b, group, topo, algo).time_s for b in SIZES]
                except InvalidArgumentError as exc:   # hd on a non-power-of-two torus
                    assert "power-of-two" in str(exc)
                    continue
                assert all(t > 0 and math.isfinite(t) for t in times), (kind, algo, times)
                assert times == sorted(times), (kind, algo, times)
        one = collective_time(kind, GiB, [n - 1], topo)
        assert (one.time_s, one.alpha_s, one.beta_s, one.overhead_s) == (0, 0, 0, 0)


def test_cost_record_is_consistent(h100x16):
    c = collective_time("all_reduce", GiB, 16, h100x16, "hierarchical")
    assert c.time_s == approx(c.overhead_s + c.alpha_s + c.beta_s)
    assert c.alpha_s == approx(sum(p.alpha_s for p in c.phases))
    assert c.beta_s == approx(sum(p.beta_s for p in c.phases))
    d = c.to_dict()
    assert d["topology"] == "hierarchical 2 nodes x 8 (switch)" and len(d["phases"]) == 3


def test_bad_arguments_are_reported(h100x8):
    with pytest.raises(InvalidArgumentError, match="collective kind 'all_sum' is not one of"):
        collective_time("all_sum", 1.0, 8, h100x8)
    for bad in (-1.0, float("nan"), True, "8"):
        with pytest.raises(InvalidArgumentError, match="bytes_per_device must be a finite"):
            collective_time("all_reduce", bad, 8, h100x8)
    with pytest.raises(InvalidArgumentError, match="pairs apply to collective_permute only"):
        collective_time("all_reduce", 1.0, 8, h100x8, pairs=[(0, 1)])
    with pytest.raises(InvalidArgumentError, match="device 9 in pair \\(0, 9\\) is outside"):
        collective_time("collective_permute", 1.0, None, h100x8, pairs=[(0, 9)])
    with pytest.raises(InvalidArgumentError, match="topology must be a Topology"):
        collective_time("all_reduce", 1.0, 8, "H100-SXM")


def test_bytes_from_featurize_send_convention():
    # featurize.costs: all_reduce sends 2(n-1)/n B, all_gather (n-1)/n of the result.
    assert bytes_per_device_from_send("all_reduce", 2 * 7 / 8 * GiB, 8) == approx(GiB)
    assert bytes_per_device_from_send("all_gather", 7 / 8 * GiB, 8) == approx(GiB)
    assert bytes_per_device_from_send("collective_permute", GiB, 2) == GiB
    assert bytes_per_device_from_send("all_reduce", 0.0, 1) == 0.0


def test_every_listed_algorithm_is_known():
    assert set(ALGORITHMS) >= {"ring", "tree", "halving_doubling", "direct", "in_switch"}


@pytest.mark.parametrize("chip, n", [("MI300X", 2), ("MI300X", 3), ("MI300X", 8), ("V100-SXM2", 2)])
def test_no_all_reduce_beats_the_bandwidth_bound_of_its_groups_links(chip, n):
    """All-reduce moves 2(n-1)/n B per device (Patarasuk & Yuan 2009) over the n-1 links
    to its peers: on a fully connected fabric a double binary tree of 2 or 3 ranks has
    to share a link and is no faster than that."""
    topology = topology_for(chip, 8)
    pair = topology.links[-1].bandwidth_bytes_per_s
    bound = 2 * (n - 1) / n * 1e8 / ((n - 1) * pair)
    for algorithm in ("ring", "tree"):
        cost = collective_time("all_reduce", 1e8, tuple(range(n)), topology, algorithm=algorithm)
        assert cost.beta_s >= bound * (1 - 1e-9), (algorithm, cost)


@pytest.mark.parametrize("kind", ["all_gather", "reduce_scatter", "all_reduce"])
@pytest.mark.parametrize("chip", ["A100-SXM-40GB", "MI300X", "V100-SXM2", "H100-SXM"])
def test_a_group_spanning_nodes_is_never_faster_than_the_same_group_inside_one(kind, chip):
    topology = topology_for(chip, 16, "hierarchical")
    for size in (1e3, 1e4, 1e5, 1e6, 1e8):
        inside = collective_time(kind, size, (0, 1, 2, 3), topology).time_s
        across = collective_time(kind, size, (0, 1, 8, 9), topology).time_s
        assert across >= inside * (1 - 1e-9), (size, inside, across)
