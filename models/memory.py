"""Peak device memory of a step: the buffers live over one device's kernel schedule.

A buffer is what a kernel writes for another kernel (values inside a fused kernel take
none), an argument of the step, or a result. Along the kernels in schedule order
(`models.schedule.kernel_graph`):

- arguments (parameters, optimizer state, inputs) live for the whole step; a donated
  one (`jax.buffer_donor`) is free after its last reader, one aliased to a result
  (`tf.aliasing_output`) is that result's buffer;
- a kernel's output lives from the kernel that writes it to the last kernel that reads
  it; the step's results live for the whole step (the runtime allocates their buffers
  before the step runs; XLA's buffer assignment may still place temporaries that die
  before a result is written in that buffer, which this does not count on); a
  collective's output is a buffer like any;
- metadata ops outside kernels (reshape, get_tuple_element, ...) are views: reading
  them reads their operands' buffers; constants are not counted (XLA keeps them apart
  from arguments, outputs and temporaries);
- a while loop's state lives in one buffer across iterations (in place, as XLA's
  buffer assignment does), a value made outside a loop and read inside it lives until
  the loop ends, and a loop body's own values die within the iteration, so a loop
  counts its body's peak plus what it carries;
- an elementwise kernel, an in-place collective, a scatter or dynamic_update_slice, or
  a matmul's elementwise epilogue writes an output into an input of the same size that
  dies there, as XLA shares operand buffers;
- copies (those the partitioner adds; XLA elides them) and a transpose read only by
  dots or convolutions (XLA folds it into them) are views, not buffers;
- with the kernels' dependencies, a kernel that grows memory runs just before its first
  reader (`sink_kernels`), as XLA's memory-aware scheduler would place it;
- a shard_map body's operands and results hold one device's shard.

Worked example: `y = tanh(x @ w)` with x 256x512 f32 (512 KiB) and w 512x1024 (2 MiB)
fuses into one kernel whose output (1 MiB) is the result: the peak is 3.5 MiB at that
kernel (arguments 2.5 MiB, output 1 MiB, no temporaries).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..featurize.analysis import Analysis
from ..featurize.fusion import COLLECTIVE, FREE, LOOP, MATMUL, Kernel, fusion_class
from ..featurize.program import Program

_IN_PLACE = frozenset({LOOP, COLLECTIVE})
_UPDATES_OPERAND = frozenset({"scatter", "dynamic_update_slice"})
_FOLDS_TRANSPOSE = frozenset({"dot_general", "dot", "convolution"})
_COPIES = frozenset({"copy", "mhlo.copy"})


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


def _folds_into_its_readers(program: Program, kernel: Kernel) -> bool:
    """A kernel that writes no buffer of its own: copies that are no result (XLA's
    copy elision removes those the partitioner adds), or a lone transpose read only by
    dots and convolutions (XLA folds it into their dimension numbers)."""
    ops, users, results = program.ops, program.users, program.results
    outputs = ops[kernel.root].outputs
    if any(v in results for v in outputs):
        return False
    if all(ops[m].opcode in _COPIES for m in kernel.ops):   # a copy, or a copy of one
        return True
    return len(kernel.ops) == 1 and ops[kernel.root].opcode == "transpose" and all(
        users[v] and all(ops[u].opcode in _FOLDS_TRANSPOSE for u in users[v])
        for v in outputs)


def _writes_in_place(program: Program, kernel: Kernel) -> bool:
    """Whether a kernel may write its output over an input of the same size that dies
    there: elementwise kernels and collectives (XLA shares their operand buffers),
    scatter and dynamic_update_slice, which update their operand in place, and a matmul
    with an elementwise epilogue (over an input only the epilogue reads)."""
    return (kernel.kind in _IN_PLACE or program.ops[kernel.root].opcode in _UPDATES_OPERAND
            or (kernel.kind == MATMUL and len(kernel.ops) > 1))


def sink_kernels(kernels: Sequence[Kernel], dependencies: Sequence[Sequence[int]],
                 order: Sequence[int]) -> list[int]:
    """`order` with each compute kernel that grows memory moved to just before its first
    reader, as XLA's memory-aware scheduler places it: a kernel moves when it writes more
    bytes than the inputs it is the last reader of (so waiting frees more than it keeps),
    its readers are in its own block, and it is no collective (those overlap compute
    where they are). Example: a convert of bf16 gradients to f32 made early and read by
    an all-reduce at the end of the step runs just before that all-reduce."""
    n = len(order)
    position = [0] * len(kernels)
    for p, k in enumerate(order):
        position[k] = p
    readers: list[list[int]] = [[] for _ in kernels]
    for k, deps in enumerate(dependencies):
        for d in deps:
            readers[d].append(k)
    last_reader = [max((position[r] for r in rs), default=-1) for rs in readers]
    key = [float(p) for p in range(n)]   # sort key per position
    for p in range(n - 1, -1, -1):
        k = order[p]
        kernel = kernels[k]
        rs = readers[k]
        if kernel.kind == COLLECTIVE or not rs or any(kernels[r].block != kernel.block
                                                      for r in rs):
            continue
        first = min(position[r] for r in rs)
        if first <= p + 1:
            continue
        freed = sum(kernels[d].bytes_written for d in dependencies[k]
                    if last_reader[d] == p)
        if kernel.bytes_written > freed:
            key[p] = key[first] - 0.5 / (n + 1) * (n - p)   # before it, keeping ties stable
    return [order[p] for p in sorted(range(n), key=lambda i: key[i])]


def peak_memory(program: Program, kernels: Sequence[Kernel], order: Sequence[int],
                dependencies: Sequence[Sequence[int]] | None = None) -> MemoryEstimate:
    """The step's peak memory on one device (see the module docstring); with the kernels'
    `dependencies` (`kernel_graph`), over the order `sink_kernels` makes of `order`."""
    if dependencies is not None:
        order = sink_kernels(kernels, dependencies, order)
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
        if _folds_into_its_readers(program, kernel):
            continue   # a view: its readers read its operand's buffer
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
        final = -1
        for kernel in kernels:
            if lo <= kernel.block <= hi:
                final = max(final, position[kernel.index])
        loop_end.append(final)

    def loops_of(block: int) -> list[int]:
        return [i for i, (lo, hi) in enumerate(program.loop_blocks) if lo <= block <= hi]

    block_loops: dict[int, list[int]] = {}

    def reader_positions(op_index: int) -> list[int]:
        """Schedule positions at which an op reads its operands (a view outside kernels
        reads them wherever its results are read). Iterative: a recursive closure
        would be a reference cycle."""
        if owner[op_index]:
            return [position[k] for k in owner[op_index]]
        found: list[int] = []
        seen, stack = {op_index}, [op_index]
        while stack:
            for out in ops[stack.pop()].outputs:
                if out in results:
                    found.append(end)
                for u in users[out]:
                    if owner[u]:
                        found.extend(position[k] for k in owner[u])
                    elif u not in seen:
                        seen.add(u)
                        stack.append(u)
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
        if v in results:   # the runtime allocates it before the step runs
            is_result[key] = True
            note(key, -1)
            note(key, end)
        # readers, with reads inside a loop the value was made outside of extended
        # to the loop's end
        made_in = ops[p].block if p >= 0 else 0
        readers = [(u, pos) for u in users[v] for pos in reader_positions(u)]
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
    def epilogue_inputs(kernel: Kernel) -> set[object]:
        """Buffers a matmul kernel reads in its elementwise epilogue only."""
        member = set(kernel.ops)
        found: set[object] = set()
        into_dot: set[object] = set()
        for m in kernel.ops:
            for v in ops[m].inputs:
                while producers[v] >= 0 and classes[producers[v]] == FREE \
                        and ops[producers[v]].inputs and not owner[producers[v]]:
                    v = ops[producers[v]].inputs[0]   # through a view
                if producers[v] in member:
                    continue
                (into_dot if classes[m] == MATMUL else found).add(sets.find(v))
        return found - into_dot

    # in place: an elementwise kernel's output (or a matmul's through its elementwise
    # epilogue) written over an input dying there
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
            if not _writes_in_place(program, kernels[k]) or first[key] != p \
                    or is_argument.get(key):
                continue
            pool = dying.get(p)
            if kernels[k].kind == MATMUL and not any(
                    last.get(e) == p and size.get(e) == size[key] and not is_result.get(e)
                    for e in epilogue_inputs(kernels[k])):
                break   # only an input its epilogue alone reads can hold the output
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
    peak = max(peak, argument_bytes + output_bytes)
    return MemoryEstimate(peak, argument_bytes, output_bytes, max(peak_temp, 0.0),
                          order[peak_at])


def analysis_graph(analysis: Analysis) -> tuple[list[tuple[int, ...]], list[int]]:
    """`models.schedule.kernel_graph` of the analysis's own kernels, computed once."""
    from .schedule import kernel_graph

    return analysis.derived("kernel graph", lambda: kernel_graph(analysis.program,
                                                                 analysis.kernels))


def step_memory(analysis: Analysis) -> MemoryEstimate:
    """The step's peak memory on one device, over the analysis's own kernels in the order
    `analysis_graph` gives them (computed once per analysis)."""
    def compute() -> MemoryEstimate:
        dependencies, order = analysis_graph(analysis)
        return peak_memory(analysis.program, analysis.kernels, order, dependencies)
    return analysis.derived("peak memory", compute)
