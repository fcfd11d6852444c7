"""Collective kinds, algorithm names, and the records every fabric model prices into.

A collective is priced as `overhead_s + alpha_s + beta_s` over one or more `Phase`s
(one stage on one class of links), summed into a `CollectiveCost`.

Bytes convention (`bytes_per_device`, "B" in the formulas of `flat`, `torus` and
`hierarchical`) is nccl-tests' `size`: the per-device buffer of the collective, i.e.

- all_reduce: the operand (= result) bytes on each device;
- all_gather: the gathered *result* bytes on each device (n x the operand);
- reduce_scatter: the *operand* bytes on each device (n x the result);
- all_to_all: the operand (= result) bytes on each device; B/n goes to each peer;
- collective_permute: the bytes each source sends to its target;
- collective_broadcast: the buffer bytes (sent by the root, `group[0]`).

`featurize.costs` records `comm_send_bytes` instead; `bytes_per_device_from_send`
converts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...errors import InvalidArgumentError

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
# The calibrated protocol regime (`Topology.protocols`) that prices in_switch (NVLink SHARP).
NVLS_PROTOCOL = "NVLS"

# (steps, hops, alpha_s, beta_s) of one phase.
PhaseCost = tuple[int, int, float, float]
ZERO_COST: PhaseCost = (0, 0, 0.0, 0.0)
# (level, hops, alpha_s, seconds per byte on the busiest link) of one class of links a
# permutation uses.
PermuteClass = tuple[str, int, float, float]


@dataclass(frozen=True)
class Phase:
    """One stage of a collective on one class of links."""

    kind: str
    algorithm: str
    level: str            # switch | fully_connected | intra_node | inter_node | dim0..2 | ...
    group_size: int
    buffer_bytes: float   # the phase's buffer, in the module docstring's bytes convention
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
    """`bytes_per_device` (the module docstring's convention) from `featurize.costs`'
    `comm_send_bytes` (the bytes one device sends under a bandwidth-optimal algorithm):
    all_reduce sends 2(n-1)/n B, all_gather / reduce_scatter / all_to_all (n-1)/n B, the
    others B."""
    check_kind(kind)
    n = group_size
    if n <= 1 or kind in (PERMUTE, BROADCAST):
        return float(comm_send_bytes)
    share = (n - 1) / n
    return comm_send_bytes / (2 * share if kind == ALL_REDUCE else share)


def check_kind(kind: str) -> None:
    """Raise `InvalidArgumentError` unless `kind` is one of `KINDS`."""
    if kind not in KINDS:
        raise InvalidArgumentError(
            f"collective kind {kind!r} is not one of {list(KINDS)}")


def check_algorithm(kind: str, algorithm: str, allowed: Sequence[str],
                    where: str) -> None:
    """Raise `InvalidArgumentError` unless `algorithm` is one of `allowed` for `kind` on
    `where` (a topology's description)."""
    if algorithm not in ALGORITHMS:
        raise InvalidArgumentError(
            f"algorithm {algorithm!r} is not one of {list(ALGORITHMS)}")
    if algorithm not in allowed:
        raise InvalidArgumentError(
            f"algorithm {algorithm!r} is not available for {kind} on {where}; "
            f"allowed: {list(allowed)}")
