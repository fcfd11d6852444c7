"""Compute/communication overlap: a dependency-aware list schedule of one device's
kernels on two streams.

- One compute stream runs the compute kernels in order; one communication stream runs
  the collectives in order (as NCCL's stream, or XLA's async collective queue, does).
- A collective starts when its inputs are ready and the communication stream is free
  (async start); the first kernel that reads its result waits for it (the "done").
- A compute kernel starts when the compute stream is free and its inputs are ready.

The order is the program's (a topological order of the kernel graph, ties broken by
program position), so neither stream ever waits on work that comes later on the other:
at every instant before the step ends at least one stream is busy. Hence
`max(compute_s, communication_s) <= step_time_s <= compute_s + communication_s`.

Loops: a kernel inside a loop body is one task lasting `count` x one execution (the
trip count times, nested loops multiplied). This is the steady state of a software-
pipelined loop: the overlap found in one iteration (and, for results not read within
the iteration, the overlap with the following iterations' compute) repeats every
iteration. Loop-carried dependencies (results read by the next iteration) are not
edges of the graph.

`overlap=False` runs every kernel back to back: `step_time_s = compute_s +
communication_s`, all communication exposed.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Sequence

from ..featurize.fusion import COLLECTIVE, Kernel
from ..featurize.program import Program


@dataclass(frozen=True, slots=True)
class Schedule:
    """A schedule of tasks (kernels) on a compute and a communication stream.

    start_s / finish_s: per task, in task index order. critical_path: the tasks whose
    chain (stream order or data dependency) determines the step time, in time order.
    """

    step_time_s: float
    compute_s: float
    communication_s: float
    exposed_communication_s: float
    critical_path: tuple[int, ...]
    start_s: tuple[float, ...]
    finish_s: tuple[float, ...]


def list_schedule(durations_s: Sequence[float], is_communication: Sequence[bool],
                  dependencies: Sequence[Sequence[int]], order: Sequence[int] | None = None,
                  overlap: bool = True) -> Schedule:
    """Schedule tasks (see the module docstring).

    durations_s: per task; is_communication: which tasks run on the communication
    stream; dependencies: per task, the tasks whose results it reads; order: the issue
    order (a topological order; default 0, 1, 2, ...), dependencies on tasks later in
    it are ignored.
    """
    n = len(durations_s)
    if order is None:
        order = range(n)
    start = [0.0] * n
    finish = [0.0] * n
    pred = [-1] * n
    compute_s = communication_s = 0.0
    for t in range(n):
        if is_communication[t]:
            communication_s += durations_s[t]
        else:
            compute_s += durations_s[t]
    if not overlap:
        clock, last = 0.0, -1
        for t in order:
            start[t] = clock
            clock += durations_s[t]
            finish[t] = clock
            pred[t] = last
            last = t
        step = clock
    else:
        done = [False] * n
        free = [0.0, 0.0]          # compute, communication stream
        last_on = [-1, -1]         # the task that ran last on each stream
        for t in order:
            stream = 1 if is_communication[t] else 0
            begin, why = free[stream], last_on[stream]
            for d in dependencies[t]:
                if done[d] and finish[d] > begin:
                    begin, why = finish[d], d
            start[t] = begin
            finish[t] = begin + durations_s[t]
            pred[t] = why
            free[stream] = finish[t]
            last_on[stream] = t
            done[t] = True
        step = max(free)
    path: list[int] = []
    if n:
        t = max(range(n), key=lambda i: (finish[i], -i))
        while t >= 0:
            path.append(t)
            t = pred[t]
        path.reverse()
    return Schedule(step, compute_s, communication_s, max(step - compute_s, 0.0),
                    tuple(path), tuple(start), tuple(finish))


def kernel_graph(program: Program, kernels: Sequence[Kernel]
                 ) -> tuple[list[tuple[int, ...]], list[int]]:
    """(dependencies, order) of a program's kernels: for each kernel the kernels whose
    results it reads (looking through metadata ops that belong to no kernel), and a
    topological issue order that keeps program order wherever the graph allows."""
    ops = program.ops
    producers = program.producers
    owner: list[list[int]] = [[] for _ in ops]   # op -> kernels it belongs to
    for kernel in kernels:
        for m in kernel.ops:
            owner[m].append(kernel.index)
    through: dict[int, frozenset[int]] = {}    # free op -> kernels it depends on
    also = program.also_from   # loop-carried values and case/if results

    def producing(v: int) -> list[int]:
        """The ops a value waits for: its producer, and those of the values it also
        stands for."""
        found, stack = [], [v]
        while stack:
            w = stack.pop()
            if producers[w] >= 0:
                found.append(producers[w])
            stack.extend(also.get(w, ()))
        return found

    def sources(op_index: int) -> frozenset[int]:
        if owner[op_index]:
            return frozenset((min(owner[op_index]),))
        cached = through.get(op_index)
        if cached is not None:
            return cached
        through[op_index] = frozenset()   # break cycles (none expected)
        found: set[int] = set()
        for v in ops[op_index].inputs:
            for p in (producing(v) if v in also else (producers[v],)):  # noqa: F821 (nested)
                if p >= 0:
                    found |= sources(p)  # noqa: F821 (recursive nested function)
        result = frozenset(found)
        through[op_index] = result
        return result

    deps: list[tuple[int, ...]] = []
    for kernel in kernels:
        members = set(kernel.ops)
        found: set[int] = set()
        for m in kernel.ops:
            for v in ops[m].inputs:
                for p in (producing(v) if v in also else (producers[v],)):
                    if p >= 0 and p not in members:
                        found |= sources(p)
        found.discard(kernel.index)
        deps.append(tuple(sorted(found)))
    del sources, producing   # recursive closures: reference cycles holding `owner`
    # Kahn's algorithm, smallest kernel index first: program order where possible.
    n = len(kernels)
    users: list[list[int]] = [[] for _ in range(n)]
    waiting = [0] * n
    for k, ds in enumerate(deps):
        waiting[k] = len(ds)
        for d in ds:
            users[d].append(k)
    ready = [k for k in range(n) if waiting[k] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    placed = [False] * n
    while len(order) < n:
        if not ready:   # a cycle between fused kernels: issue the earliest one anyway
            k = next(i for i in range(n) if not placed[i])
        else:
            k = heapq.heappop(ready)
            if placed[k]:
                continue
        placed[k] = True
        order.append(k)
        for u in users[k]:
            waiting[u] -= 1
            if waiting[u] == 0 and not placed[u]:
                heapq.heappush(ready, u)
    return deps, order


def is_collective(kernel: Kernel) -> bool:
    return kernel.kind == COLLECTIVE
