"""Group an unfused program into the kernels XLA would emit, and count bytes at kernel
boundaries (charging every op's operands and results overstates memory traffic: the
trap behind Hespas's 4.6x ResNet-50 overestimate).

The rules follow XLA's producer-consumer fusion, visiting ops from outputs to inputs:
- elementwise, broadcast, convert, iota, transpose, slice, pad, concatenate,
  gather and dynamic-slice ops ("loop" ops) fuse into their consumer's kernel when all
  their users sit in one kernel that is a loop or reduction kernel;
- cheap producers (broadcast, iota, convert, ...) used by several kernels are
  duplicated into each, as XLA does, instead of becoming a kernel of their own;
- dot_general and convolution fuse with a loop kernel that consumes them
  (the elementwise epilogue: bias, activation, scaling) when that kernel writes no
  more elements than the dot's result: an epilogue maps the GEMM's output tile by
  tile, so a consumer that pads, broadcasts or concatenates the result into a larger
  value (a weight gradient padded into a stack of experts' weights and summed) stays
  a kernel of its own reading the dot's result once, as in XLA:CPU's optimized HLO;
- reductions are kernel roots: loop producers fuse into them, they do not fuse into
  their consumers;
- collectives, sort, scatter, custom calls, FFTs, ... are kernels of their own;
- metadata ops (reshape, constant, get_tuple_element, ...) and copies XLA elides
  (`costs.copy_elided`) never start a kernel;
- nothing fuses across blocks (loop bodies, branches);
- for GPU targets (`xla_gpu=True`), rules read from XLA:GPU's optimized HLO: a cheap
  elementwise producer (add, multiply, select, ... not a transcendental or a
  division) used by several loop or reduction kernels is duplicated into each when it
  reads no more from memory than it writes (XLA's priority fusion recomputes such
  values in every consumer rather than storing them); convolutions keep no epilogue
  (cuDNN runs them bare); a transpose of a dot's result is the GEMM's output layout.
  Checked against XLA:GPU's optimized HLO of the example steps on an H100
  (`benchmarks/xla_gpu_compare.py`): without them our ResNet-18 step moved 2.0x XLA's
  bytes, most of it f32 values XLA never stores (batch norm's x - mean, x_hat * gamma,
  ReLU masks), and the LLaMA 1B prefill 1.8x (the attention's exps);
- for GPU and TPU targets (`multi_output=True`), kernels then merge as XLA's
  multi-output fusion merges them: sibling reductions of one input, a producer whose
  result is needed elsewhere into its reduction (`featurize.multi_output`). TPU
  targets get this merge only: XLA:TPU's own fusion was never compared.
"""

from __future__ import annotations

from dataclasses import dataclass

from .costs import (
    COLLECTIVE_OPS,
    COPY_OPS,
    ELEMENTWISE_OPS,
    METADATA_OPS,
    MOVEMENT_OPS,
    QUANTIZE_OPS,
    TRANSCENDENTAL_OPS,
    OpCost,
)
from .multi_output import multi_output_fusion
from .program import Op, Program

LOOP, REDUCTION, MATMUL, STANDALONE, COLLECTIVE, FREE = (
    "loop", "reduction", "matmul", "standalone", "collective", "free")

_LOOP_OPS = (ELEMENTWISE_OPS | TRANSCENDENTAL_OPS | MOVEMENT_OPS | QUANTIZE_OPS | {
    "slice", "dynamic_slice", "real_dynamic_slice", "gather", "dynamic_gather",
    "dynamic_update_slice", "rng", "select"}) - {"copy"}
_DUPLICABLE = frozenset({"broadcast_in_dim", "broadcast", "iota", "convert",
                         "dynamic_broadcast_in_dim"})
# elementwise ops XLA:GPU recomputes in several consumers rather than storing their
# result, when that saves memory traffic: the arithmetic, and the divisions and
# exponentials of a softmax (an H100's optimized HLO of a LLaMA prefill recomputes the
# scaled, masked exp of the attention scores in both the sum and the normalisation
# instead of writing it)
_CHEAP_ELEMENTWISE = (ELEMENTWISE_OPS - {"remainder", "map", "power"} - {
    op for op in ELEMENTWISE_OPS if op.startswith("chlo.broadcast_")}) | {
    "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "tanh",
    "rsqrt", "sqrt"}
_CONVOLUTIONS = frozenset({"convolution", "dynamic_conv"})
_MATMUL_OPS = frozenset({"dot_general", "dot", "convolution", "dynamic_conv",
                         "chlo.ragged_dot"})
_REDUCTION_OPS = frozenset({"reduce", "reduce_window"})


def fusion_class(opcode: str) -> str:
    if opcode in METADATA_OPS:
        return FREE
    if opcode in _LOOP_OPS:
        return LOOP
    if opcode in _MATMUL_OPS:
        return MATMUL
    if opcode in _REDUCTION_OPS:
        return REDUCTION
    if opcode in COLLECTIVE_OPS:
        return COLLECTIVE
    return STANDALONE


@dataclass(slots=True)
class Kernel:
    """One fused kernel. Costs are per execution; `count` executions per step."""

    index: int
    kind: str                  # loop | reduction | matmul | standalone | collective
    ops: list[int]             # member op indices, root first
    count: float
    block: int
    bytes_read: float = 0.0
    bytes_written: float = 0.0
    flops: float = 0.0
    matmul_flops: float = 0.0
    transcendentals: float = 0.0
    comm_send_bytes: float = 0.0
    comm_recv_bytes: float = 0.0
    group_size: int = 1
    priced: bool = True

    @property
    def root(self) -> int:
        return self.ops[0]

    @property
    def bytes_accessed(self) -> float:
        return self.bytes_read + self.bytes_written


def fuse(program: Program, costs: list[OpCost | None],
         matmul_epilogue: bool = True, multi_output: bool = False,
         xla_gpu: bool = False, widening_epilogue: bool = False) -> list[Kernel]:
    """Kernels of `program` in program order, with boundary bytes and FLOPs.

    `matmul_epilogue=False` keeps dot/convolution kernels alone, as XLA:CPU does;
    `xla_gpu=True` applies XLA:GPU's recompute, bare-convolution and GEMM-layout rules
    (the module docstring); `multi_output=True` then merges sibling kernels and
    producers into consumers as XLA:GPU's multi-output fusion does
    (`featurize.multi_output`; XLA:CPU does not). `widening_epilogue=True` lets a dot
    fuse into a consumer that writes more than the dot's result, as featurizer version 6
    did (`datasets.profile_migration` maps that version's kernels to these).
    """
    ops = program.ops
    n = len(ops)
    users = program.users
    producers = program.producers
    classes = [fusion_class(op.opcode) for op in ops]
    for i, op in enumerate(ops):   # a copy priced free is elided: it names its source
        if op.opcode in COPY_OPS and (cost := costs[i]) is not None and cost.unit == "none":
            classes[i] = FREE
        elif xla_gpu and op.opcode == "transpose" and _of_a_dot(program, i):
            classes[i] = FREE      # XLA:GPU's layout assignment: the GEMM writes it so
    groups: list[list[int]] = [[] for _ in range(n)]   # op -> kernels it belongs to
    kinds: list[str] = []
    members: list[list[int]] = []
    blocks: list[int] = []

    def consumer_kernels(op_index: int) -> set[int] | None:
        """Kernels reading this op's results, looking through metadata ops;
        None when a result leaves its block (returned, yielded, read elsewhere)."""
        found: set[int] = set()
        block = ops[op_index].block
        for vid in ops[op_index].outputs:
            if vid in program.escaping:
                return None
            for user in users[vid]:
                if ops[user].block != block:
                    return None
                if groups[user]:
                    found.update(groups[user])
                elif classes[user] == FREE:
                    inner = consumer_kernels(user)  # noqa: F821 (recursive nested function)
                    if inner is None:
                        return None
                    found |= inner
        return found

    def recomputable(op_index: int) -> bool:
        """A cheap elementwise op that reads no more than it writes, counting every
        operand but broadcasts, iotas and converts (always recomputed): XLA:GPU
        duplicates it. An operand made by another elementwise op counts, so a chain
        is duplicated only while each link has one such operand (x - mean, then
        times gamma), never back through a residual add of two."""
        op = ops[op_index]
        if op.opcode not in _CHEAP_ELEMENTWISE:
            return False
        read = sum(program.value_types[vid].nbytes for vid in op.inputs
                   if producers[vid] < 0 or ops[producers[vid]].opcode not in _DUPLICABLE)
        return read <= sum(program.value_types[v].nbytes for v in op.outputs)

    def new_kernel(op_index: int, kind: str) -> None:
        kinds.append(kind)
        members.append([op_index])
        blocks.append(ops[op_index].block)
        groups[op_index].append(len(kinds) - 1)

    for i in range(n - 1, -1, -1):
        cls = classes[i]
        consumers = consumer_kernels(i)
        if cls == FREE:
            if consumers and len(consumers) == 1:
                k = next(iter(consumers))
                members[k].append(i)
                groups[i].append(k)
            continue
        if cls in (STANDALONE, COLLECTIVE) or not consumers:
            new_kernel(i, cls)
            continue
        if len(consumers) == 1:
            k = next(iter(consumers))
            if cls == LOOP and kinds[k] in (LOOP, REDUCTION):
                members[k].append(i)
                groups[i].append(k)
                continue
            if cls == MATMUL and kinds[k] == LOOP and matmul_epilogue and not (
                    xla_gpu and ops[i].opcode in _CONVOLUTIONS) and (
                    widening_epilogue or _written_elements(ops[members[k][0]])
                    <= _written_elements(ops[i])):
                kinds[k] = MATMUL
                members[k].insert(0, i)
                groups[i].append(k)
                continue
        elif cls == LOOP and all(kinds[k] in (LOOP, REDUCTION) for k in consumers) and (
                ops[i].opcode in _DUPLICABLE or (xla_gpu and recomputable(i))):
            for k in sorted(consumers):
                members[k].append(i)
                groups[i].append(k)
            continue
        new_kernel(i, cls)

    del consumer_kernels   # the recursive closure is a reference cycle holding `groups`
    alive = (multi_output_fusion(program, classes, kinds, members, blocks, groups)
             if multi_output else range(len(kinds)))
    kernels = [_measure(k, kinds[k], members[k], blocks[k], program, costs, groups,
                        producers, users, classes)
               for k in alive]
    kernels.sort(key=lambda kern: min(kern.ops))
    for position, kernel in enumerate(kernels):
        kernel.index = position
    return kernels


def _written_elements(op: Op) -> int:
    return sum(t.num_elements for t in op.results)


def _of_a_dot(program: Program, op_index: int) -> bool:
    """Whether the operand of a transpose is a dot's result, directly or through
    converts and reshapes: XLA:GPU's layout assignment then has the GEMM write the
    transposed layout and the transpose is a bitcast (an H100's optimized HLO of a LLaMA
    prefill: the attention scores' transpose costs nothing)."""
    ops, producers = program.ops, program.producers
    vid = ops[op_index].inputs[0] if ops[op_index].inputs else -1
    while vid >= 0 and producers[vid] >= 0:
        source = ops[producers[vid]]
        if source.opcode in ("dot_general", "dot"):
            return True
        if source.opcode not in ("convert", "reshape") or not source.inputs:
            return False
        vid = source.inputs[0]
    return False


def _measure(index: int, kind: str, member_ops: list[int], block: int, program: Program,
             costs: list[OpCost | None], groups: list[list[int]], producers: list[int],
             users: list[list[int]], classes: list[str]) -> Kernel:
    # Runs once per kernel on every analyze: totals are kept in locals and written to
    # the Kernel once (see benchmarks/speed.py).
    ops = program.ops
    value_types = program.value_types
    root = member_ops[0] if kind != LOOP else max(member_ops)
    ordered = [root] + sorted(m for m in member_ops if m != root)
    kernel = Kernel(index, kind, ordered, ops[root].count, block)
    member_set = set(member_ops)
    reads: dict[int, float] = {}
    flops = matmul_flops = transcendentals = send = recv = written = extra_read = 0.0
    group_size = 1
    for m in member_ops:
        cost = costs[m]
        op = ops[m]
        if cost is None:
            kernel.priced = False
            continue
        flops += cost.flops
        unit = cost.unit
        if unit == "matmul":
            matmul_flops += cost.flops
        transcendentals += cost.transcendentals
        if unit == "comm":
            send += cost.comm_send_bytes
            recv += cost.comm_recv_bytes
            group_size = max(group_size, cost.group_size)
        opcode = op.opcode
        if opcode == "constant" and op.results[0].num_elements > 1:
            extra_read += op.results[0].nbytes  # a non-scalar constant is read
        passthrough = classes[m] == FREE and opcode != "constant"
        for vid, nbytes in zip(op.inputs, cost.read_bytes):
            if producers[vid] in member_set:
                continue
            # a reshape or bitcast inside a kernel reads what its consumers read
            reads[vid] = reads.get(vid, 0.0) + (value_types[vid].nbytes if passthrough
                                                 else nbytes)
        for vid, nbytes in zip(op.outputs, cost.write_bytes):
            if _leaves(vid, m, member_set, groups, program, users, classes):
                written += nbytes
    kernel.flops = flops
    kernel.matmul_flops = matmul_flops
    kernel.transcendentals = transcendentals
    kernel.comm_send_bytes = send
    kernel.comm_recv_bytes = recv
    kernel.group_size = group_size
    kernel.bytes_written = written
    kernel.bytes_read = extra_read + sum(min(float(value_types[v].nbytes), r)
                                         for v, r in reads.items())
    return kernel


def _leaves(vid: int, producer: int, member_set: set[int], groups: list[list[int]],
            program: Program, users: list[list[int]], classes: list[str],
            mine: set[int] | None = None) -> bool:
    """Whether a value produced inside the kernel is needed outside it: returned,
    or read by an op of a kernel the producer is not duplicated into (looking through
    metadata ops that belong to no kernel)."""
    if vid in program.escaping:
        return True
    if mine is None:
        mine = set(groups[producer])
    for user in users[vid]:
        if user in member_set:
            continue
        if classes[user] == FREE and not groups[user]:
            if any(_leaves(v, user, member_set, groups, program, users, classes, mine)
                   for v in program.ops[user].outputs):
                return True
            continue
        if not set(groups[user]) <= mine:
            return True
    return False
