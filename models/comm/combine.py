"""XLA's all-reduce combiner, as pricing sees it.

XLA's GPU pipeline merges independent all-reduces over the same replica groups into one
all-reduce of their concatenated buffers (`AllReduceCombiner`), up to a threshold of
30 MiB per combined op (`kDefaultAllReduceCombineThreshold`, xla/service/
collective_utils.h). A data-parallel step that reduces its gradient tree leaf by leaf
(`pmean` of a pytree under shard_map: one all_reduce per parameter) therefore pays each
collective's latency once per combined op, not once per leaf.

Here the kernels stay apart in the schedule; a combined op's time (one all_reduce of the
members' bytes together) is shared among its members in proportion to their bytes, so
the step's communication is what the combined ops take. Members are taken greedily in
issue order, as the pass does: an all_reduce joins the open op when it runs in the same
block the same number of times, over the same groups, does not wait (through any chain
of kernels) for a member's result, and keeps the op within the threshold.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from ...featurize.fusion import Kernel
from .collectives import collective_time
from .pricing import CollectiveRow
from .topology import Topology

COMBINE_THRESHOLD_BYTES = 30 * 1024 * 1024 + 7


def combine_all_reduces(rows: Sequence[CollectiveRow], kernels: Sequence[Kernel],
                        dependencies: Sequence[Sequence[int]], order: Sequence[int],
                        topology: Topology) -> tuple[list[CollectiveRow], str | None]:
    """`rows` (one per collective kernel) with combined all_reduces repriced, and a note
    saying how many were combined into how many (None when nothing was)."""
    by_kernel = {r.kernel: i for i, r in enumerate(rows) if r.kind == "all_reduce"}
    if len(by_kernel) < 2:
        return list(rows), None
    bit = {k: 1 << n for n, k in enumerate(sorted(by_kernel))}
    waits_for: dict[int, int] = {}      # kernel -> the all_reduces it waits for, as bits
    for k in order:
        mask = 0
        for d in dependencies[k]:
            mask |= waits_for.get(d, 0) | bit.get(d, 0)
        waits_for[k] = mask
    combined: list[list[int]] = []       # groups of row indices
    open_ops: dict[tuple, tuple[list[int], int, float]] = {}   # key -> (rows, bits, bytes)
    for k in order:
        i = by_kernel.get(k)
        if i is None:
            continue
        row = rows[i]
        key = (kernels[k].block, row.count, row.group, row.groups)
        members, bits, size = open_ops.get(key, ([], 0, 0.0))
        if members and (waits_for[k] & bits or
                        size + row.bytes_per_device > COMBINE_THRESHOLD_BYTES):
            members, bits, size = [], 0, 0.0
        if not members:
            combined.append(members)
        members.append(i)
        open_ops[key] = (members, bits | bit[k], size + row.bytes_per_device)
    out = list(rows)
    merged = 0
    for members in combined:
        if len(members) < 2:
            continue
        merged += len(members)
        total = sum(rows[i].bytes_per_device for i in members)
        cost = collective_time("all_reduce", total, rows[members[0]].group, topology)
        for i in members:
            share = cost.time_s * (rows[i].bytes_per_device / total if total else
                                   1 / len(members))
            out[i] = dataclasses.replace(rows[i], time_s=share,
                                         total_time_s=share * rows[i].count,
                                         algorithm=cost.algorithm)
    if not merged:
        return out, None
    ops = sum(1 for m in combined if len(m) > 1)
    return out, (f"{merged} all_reduces priced as the {ops} combined ones XLA's all-reduce "
                 f"combiner makes of them (independent, same groups, up to 30 MiB each)")
