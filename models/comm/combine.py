"""XLA's collective combiners, as pricing sees them.

XLA's GPU pipeline merges independent collectives of one kind over the same replica
groups into one op over their buffers together: all-reduces (`AllReduceCombiner`),
all-gathers (`AllGatherCombiner`) and reduce-scatters (`ReduceScatterCombiner`), each up
to 30 MiB per combined op (`kDefaultAllReduceCombineThreshold`,
`kDefaultAllGatherCombineThreshold`, `kDefaultReduceScatterCombineThreshold`, all
30 MiB + 7 bytes, xla/service/collective_utils.h), counted on the op's result: the
reduced buffer, the gathered buffer, the scattered shard. A data-parallel step that
reduces its gradient tree leaf by leaf, or an FSDP step that gathers its weights and
scatters their gradients layer by layer, therefore pays each collective's latency once
per combined op, not once per leaf.

Here the kernels stay apart in the schedule; a combined op's time (one collective of the
members' bytes together) is shared among its members in proportion to their bytes, so
the step's communication is what the combined ops take. Members are taken greedily in
issue order, as the passes do: a collective joins the open op of its kind when it runs
in the same block the same number of times, over the same groups, does not wait
(through any chain of kernels) for a member's result, and keeps the op within the
threshold. TPU programs are priced the same way: XLA's TPU pipeline combines collectives
too, with thresholds that are not public.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from ...featurize.fusion import Kernel
from .collectives import collective_time
from .pricing import CollectiveRow
from .topology import Topology

COMBINE_THRESHOLD_BYTES = 30 * 1024 * 1024 + 7
COMBINED_KINDS = ("all_reduce", "all_gather", "reduce_scatter")


def result_bytes(row: CollectiveRow) -> float:
    """The bytes of a collective's result, which the combiners' threshold counts:
    `bytes_per_device` is nccl-tests' size (all_gather's output, the others' input)."""
    if row.kind == "reduce_scatter":
        return row.bytes_per_device / max(row.group_size, 1)
    return row.bytes_per_device


def combine_collectives(rows: Sequence[CollectiveRow], kernels: Sequence[Kernel],
                        dependencies: Sequence[Sequence[int]], order: Sequence[int],
                        topology: Topology) -> tuple[list[CollectiveRow], str | None]:
    """`rows` (one per collective kernel) with combined collectives repriced, and a note
    saying how many of each kind were combined into how many (None when nothing was)."""
    by_kernel = {r.kernel: i for i, r in enumerate(rows) if r.kind in COMBINED_KINDS}
    if len(by_kernel) < 2:
        return list(rows), None
    bit = {k: 1 << n for n, k in enumerate(sorted(by_kernel))}
    waits_for: dict[int, int] = {}      # kernel -> the combinable ones it waits for, as bits
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
        size = result_bytes(row)
        key = (row.kind, kernels[k].block, row.count, row.group, row.groups)
        members, bits, total = open_ops.get(key, ([], 0, 0.0))
        if members and (waits_for[k] & bits or total + size > COMBINE_THRESHOLD_BYTES):
            members, bits, total = [], 0, 0.0
        if not members:
            combined.append(members)
        members.append(i)
        open_ops[key] = (members, bits | bit[k], total + size)
    out = list(rows)
    merged: dict[str, list[int]] = {}    # kind -> [collectives, combined ops]
    for members in combined:
        if len(members) < 2:
            continue
        first = rows[members[0]]
        counts = merged.setdefault(first.kind, [0, 0])
        counts[0] += len(members)
        counts[1] += 1
        total = sum(rows[i].bytes_per_device for i in members)
        cost = collective_time(first.kind, total, first.group, topology)
        for i in members:
            share = cost.time_s * (rows[i].bytes_per_device / total if total else
                                   1 / len(members))
            out[i] = dataclasses.replace(rows[i], time_s=share,
                                         total_time_s=share * rows[i].count,
                                         algorithm=cost.algorithm)
    if not merged:
        return out, None
    said = ", ".join(f"{n} {kind}s as {ops} combined" for kind, (n, ops)
                     in sorted(merged.items()))
    return out, (f"{said}: priced as XLA's collective combiners merge them (independent, "
                 "same kind and groups, up to 30 MiB of result each)")
