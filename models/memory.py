"""Peak device memory of a step: the buffers live over one device's kernel schedule.

A buffer is what a kernel writes for another kernel (values inside a fused kernel take
none), an argument of the step, or a result. Along the kernels in schedule order
(`models.schedule.kernel_graph`):

- arguments (parameters, optimizer state, inputs) live for the whole step; a donated
  one (`jax.buffer_donor`) is free after its last reader, one aliased to a result
  (`tf.aliasing_output`) is that result's buffer;
- a kernel's output lives from the kernel that writes it to the last kernel that reads
  it; the step's results live to the end; a collective's output is a buffer like any;
- metadata ops outside kernels (reshape, get_tuple_element, ...) are views: reading
  them reads their operands' buffers; constants are not counted (XLA keeps them apart
  from arguments, outputs and temporaries);
- a while loop's state lives in one buffer across iterations (in place, as XLA's
  buffer assignment does), a value made outside a loop and read inside it lives until
  the loop ends, and a loop body's own values die within the iteration, so a loop
  counts its body's peak plus what it carries;
- an elementwise kernel (or an in-place collective) writes an output into an input of
  the same size that dies there, as XLA shares operand buffers;
- a shard_map body's operands and results hold one device's shard.

Worked example: `y = tanh(x @ w)` with x 256x512 f32 (512 KiB) and w 512x1024 (2 MiB)
fuses into one kernel whose output (1 MiB) is the result: the peak is 3.5 MiB at that
kernel (arguments 2.5 MiB, output 1 MiB, no temporaries).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..featurize.fusion import COLLECTIVE, FREE, LOOP, Kernel, fusion_class
from ..featurize.program import Program

_IN_PLACE = frozenset({LOOP, COLLECTIVE})
_VIEW_OPS_WITHOUT_BUFFER = frozenset({"constant"})


@dataclass(frozen=True, slots=True)
class MemoryEstimate:
    """Bytes one device holds during a step.

    peak_bytes: the most live at any kernel; argument_bytes: the step's arguments;
    output_bytes: its results that are not arguments' buffers (donated or returned
    unchanged); temporary_bytes: the most live at any kernel that is neither argument
    nor result (XLA's `temp_size_in_bytes` counterpart); peak_kernel: the kernel at the
    peak (None for a program without kernels).
    """

    peak_bytes: float
    argument_bytes: float
    output_bytes: float
    temporary_bytes: float
    peak_kernel: int | None

    def to_dict(self) -> dict[str, float | int | None]:
        return {name: getattr(self, name) for name in self.__slots__}


class _Sets:
    """Union-find over buffer keys (value ids, or ("copy", id) for a loop state that
    cannot live in its non-donated argument's buffer)."""

    def __init__(self) -> None:
        self.parent: dict[object, object] = {}

    def find(self, key: object) -> object:
        parent = self.parent
        root = key
        while parent.get(root, root) != root:
            root = parent[root]
        while key != root:
            key, parent[key] = parent[key], root
        return root

    def union(self, a: object, b: object) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def peak_memory(program: Program, kernels: Sequence[Kernel], order: Sequence[int]
                ) -> MemoryEstimate:
    """The step's peak memory on one device (see the module docstring)."""
    ops = program.ops
    value_types = program.value_types
    producers = program.producers
    users = program.users
    n_pos = len(order)
    end = n_pos   # the position after the last kernel: "lives to the end of the step"
    position = [0] * len(kernels)
    for p, k in enumerate(order):
        position[k] = p
    owner: list[list[int]] = [[] for _ in ops]
    for kernel in kernels:
        for m in kernel.ops:
            owner[m].append(kernel.index)
    classes = [fusion_class(op.opcode) for op in ops]
    arguments = set(program.arguments)
    donated = program.donated
    results = set(program.results)

    sets = _Sets()
    for arg, out in donated.items():
        if 0 <= out < len(program.results):
            sets.union(program.results[out], arg)
    for v, target in program.same_buffer.items():
        root = sets.find(target)
        if isinstance(root, int) and root in arguments and root not in donated:
            sets.union(v, ("copy", root))   # a state the step may not write into its input
        else:
            sets.union(v, target)
    for global_v, local in program.shards.items():
        sets.union(global_v, local)
    shard_views = set(program.shards)   # global values: sized by their shard

    # Loops: the last schedule position of each loop's kernels.
    loop_end: list[int] = []
    for lo, hi in program.loop_blocks:
        last = -1
        for kernel in kernels:
            if lo <= kernel.block <= hi:
                last = max(last, position[kernel.index])
        loop_end.append(last)

    def loops_of(block: int) -> list[int]:
        return [i for i, (lo, hi) in enumerate(program.loop_blocks) if lo <= block <= hi]

    block_loops: dict[int, list[int]] = {}

    def reader_positions(op_index: int, seen: set[int]) -> list[int]:
        """Schedule positions at which an op reads its operands (a view outside kernels
        reads them wherever its results are read)."""
        if owner[op_index]:
            return [position[k] for k in owner[op_index]]
        if op_index in seen:
            return []
        seen.add(op_index)
        found: list[int] = []
        for out in ops[op_index].outputs:
            if out in results:
                found.append(end)
            for u in users[out]:
                found.extend(reader_positions(u, seen))  # noqa: F821 (recursive nested)
        return found

    def materialized(v: int) -> bool:
        """Whether a value has a buffer of its own: not fused away, not a view."""
        p = producers[v]
        if p < 0:
            return True
        if not owner[p]:
            return False    # a view or constant outside kernels: no buffer of its own
        if v in program.escaping or v in results:
            return True
        mine = set(owner[p])
        stack, seen = [v], set()
        while stack:
            w = stack.pop()
            for u in users[w]:
                if owner[u]:
                    if not set(owner[u]) <= mine:
                        return True
                elif classes[u] == FREE and u not in seen:
                    seen.add(u)
                    for out in ops[u].outputs:
                        if out in program.escaping or out in results:
                            return True
                        stack.append(out)
                elif not owner[u]:
                    return True
        return False

    # Per buffer set: size, first and last position, kind.
    size: dict[object, float] = {}
    view_size: dict[object, float] = {}
    first: dict[object, int] = {}
    last: dict[object, int] = {}
    is_argument: dict[object, bool] = {}
    is_result: dict[object, bool] = {}
    written_by: dict[object, set[int]] = {}   # kernel indices writing the set

    def note(key: object, at: int) -> None:
        if at < first.get(key, end + 1):
            first[key] = at
        if at > last.get(key, -2):
            last[key] = at

    for v in range(len(value_types)):
        if not materialized(v):
            continue
        key = sets.find(v)
        nbytes = float(value_types[v].nbytes)
        if v in shard_views:   # a global view of per-device shards
            view_size[key] = max(view_size.get(key, 0.0), nbytes)
        else:
            size[key] = max(size.get(key, 0.0), nbytes)
        p = producers[v]
        if v in arguments:
            is_argument[key] = True
            if v not in donated or donated[v] >= 0:
                note(key, -1)
                note(key, end)
            else:
                note(key, -1)
        elif p >= 0:
            for k in owner[p]:
                note(key, position[k])
                written_by.setdefault(key, set()).add(k)
        if v in results:
            is_result[key] = True
            note(key, end)
        # readers, with reads inside a loop the value was made outside of extended
        # to the loop's end
        made_in = ops[p].block if p >= 0 else 0
        readers = [(u, pos) for u in users[v] for pos in reader_positions(u, set())]
        for u, pos in readers:
            note(key, pos)
            block = ops[u].block
            inner = block_loops.get(block)
            if inner is None:
                inner = block_loops[block] = loops_of(block)
            for i in inner:
                lo, hi = program.loop_blocks[i]
                if not lo <= made_in <= hi and loop_end[i] >= 0:
                    note(key, loop_end[i])
    for key, nbytes in view_size.items():
        size.setdefault(key, nbytes)   # only a global view: its size is all we know
    # a value with no reader and no writer position (say a carried state never read)
    # holds no memory in the schedule
    keys = [k for k in size if k in first]

    # Sweep: bytes live at each position (arguments from -1, results to `end`).
    delta = [0.0] * (n_pos + 2)
    temp_delta = [0.0] * (n_pos + 2)
    argument_bytes = output_bytes = 0.0
    for key in keys:
        nbytes = size[key]
        lo = max(first[key], 0)
        hi = min(last[key], n_pos - 1) if n_pos else -1
        if is_argument.get(key):
            argument_bytes += nbytes
        elif is_result.get(key):
            output_bytes += nbytes
        if hi < lo:
            continue
        delta[lo] += nbytes
        delta[hi + 1] -= nbytes
        if not is_argument.get(key) and not is_result.get(key):
            temp_delta[lo] += nbytes
            temp_delta[hi + 1] -= nbytes
    # in place: an elementwise kernel's output written over an input dying there
    dying: dict[int, list[float]] = {}
    for key in keys:
        if last[key] < end and not is_result.get(key):
            dying.setdefault(last[key], []).append(size[key])
    shared = [0.0] * (n_pos + 1)
    shared_temp = [0.0] * (n_pos + 1)
    for key in keys:
        writers = written_by.get(key, ())
        for k in writers:
            p = position[k]
            if kernels[k].kind not in _IN_PLACE or first[key] != p or is_argument.get(key):
                continue
            pool = dying.get(p)
            if pool and size[key] in pool:
                pool.remove(size[key])
                shared[p] += size[key]
                if not is_result.get(key):
                    shared_temp[p] += size[key]
            break
    if not n_pos:
        return MemoryEstimate(argument_bytes + output_bytes, argument_bytes, output_bytes,
                              0.0, None)
    live = temp = 0.0
    peak = peak_temp = -1.0
    peak_at = 0
    for p in range(n_pos):
        live += delta[p]
        temp += temp_delta[p]
        here = live - shared[p]
        if here > peak:
            peak, peak_at = here, p
        peak_temp = max(peak_temp, temp - shared_temp[p])
    # arguments and results live outside the kernels' span too
    peak = max(peak, argument_bytes + sum(
        size[k] for k in keys if is_result.get(k) and not is_argument.get(k)
        and first[k] >= end))
    return MemoryEstimate(peak, argument_bytes, output_bytes, max(peak_temp, 0.0),
                          order[peak_at])
