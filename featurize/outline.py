"""Each fused kernel of a program as a StableHLO module of its own.

The per-kernel model learns from kernels timed as standalone executables. Kernel
templates cover shapes and op mixes chosen in advance; the kernels of real programs
(a transposed convolution's gradient, a layer norm's fused tail) are what it must
price. Outlining gives those kernels as programs: `collect kernels --from-programs`
times them as any kernel sample is timed, so the model sees the kernels programs are
made of, and a benchmark can judge the kernel model on them.

One kernel becomes `@main`: its members, in program order, printed as they are in the
program (one `AsmState` per function keeps the SSA names consistent), the values it
reads from outside as arguments, and the values read outside it (or returned by the
program) as results. Kernels that cannot stand alone are skipped with the reason:
collectives and custom calls (they need their devices or their library), kernels
whose members span several functions or regions, and kernels with constants too big
to print.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from .fusion import COLLECTIVE, fuse
from .mlir import bindings, parse_module
from .walk import _Walker

# constants above this many elements are not printed into an outlined kernel
MAX_CONSTANT_ELEMENTS = 4096


@dataclass(frozen=True)
class OutlinedKernel:
    """One kernel of a program as a module: `text` has one public function, @main."""

    index: int          # the kernel's index in the program's fused kernels
    kind: str           # loop | reduction | matmul | standalone
    count: float        # executions per step in the program
    text: str

    @property
    def digest(self) -> str:
        """Identifies the kernel's text: layers that repeat a kernel share it."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Outlined:
    kernels: list[OutlinedKernel]
    skipped: dict[str, int]          # reason -> kernels


class _RecordingWalker(_Walker):
    """The walk, keeping the MLIR operation of every op index."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.operations: list[Any] = []

    def _add_op(self, op: Any, name: str, env: dict, count: float, block_id: int) -> None:
        before = len(self.ops)
        super()._add_op(op, name, env, count, block_id)
        if len(self.ops) > before:
            self.operations.append(op)


def outline(source: str | bytes, label: str = "<program>") -> Outlined:
    """Every kernel of the program in `source` (StableHLO text or bytecode) that can
    stand alone, as its own module."""
    from .costs import program_costs

    ir = bindings()[0]
    module = parse_module(source, label)
    with module.context, ir.Location.unknown():
        walker = _RecordingWalker(module, label, {})
        program = walker.run()
        if len(walker.operations) != len(program.ops):
            raise AssertionError("the walk and its record of operations disagree")
        kernels = fuse(program, program_costs(program))
        users = program.users
        out: list[OutlinedKernel] = []
        skipped: dict[str, int] = {}
        for kernel in kernels:
            why = _why_not(kernel, [walker.operations[i] for i in kernel.ops], ir)
            text = "" if why else _kernel_module(kernel, program, walker.operations,
                                                 users, ir)
            if not why and "__elided__" in text:
                why = "a large constant"
            if why:
                skipped[why] = skipped.get(why, 0) + 1
                continue
            out.append(OutlinedKernel(kernel.index, kernel.kind, kernel.count, text))
    return Outlined(out, skipped)


def _why_not(kernel: Any, ops: list[Any], ir: Any) -> str:
    """Why a kernel cannot stand alone ("" when it can)."""
    if kernel.kind == COLLECTIVE:
        return "collective"
    if not kernel.priced:
        return "not priced"
    for op in ops:
        if op.name in ("stablehlo.custom_call", "stablehlo.rng_bit_generator",
                       "stablehlo.rng", "stablehlo.infeed", "stablehlo.outfeed",
                       "stablehlo.send", "stablehlo.recv"):
            return "custom call, random numbers or I/O"
        if op.name == "stablehlo.constant":
            shape = ir.ShapedType(op.results[0].type)
            if shape.has_static_shape and _elements(shape.shape) > MAX_CONSTANT_ELEMENTS:
                return "a large constant"
        for t in [*(v.type for v in op.operands), *(r.type for r in op.results)]:
            if t.typeid != ir.RankedTensorType.static_typeid or \
                    not ir.RankedTensorType(t).has_static_shape:
                return "a token, tuple or dynamic shape"
    return ""


def _kernel_module(kernel: Any, program: Any, operations: list[Any],
                   users: list[list[int]], ir: Any) -> str:
    """The kernel's members cloned into a fresh module's @main, wired by value id."""
    from jaxlib.mlir.dialects import func

    members = sorted(kernel.ops)
    inside = set(members)
    produced = {v for i in members for v in program.ops[i].outputs}
    inputs: list[int] = []
    for i in members:
        for v in program.ops[i].inputs:
            if v not in produced and v not in inputs:
                inputs.append(v)
    outputs = [v for i in members for v in program.ops[i].outputs
               if v in program.escaping or any(u not in inside for u in users[v])]
    if not outputs:     # nothing reads the kernel's results: keep its root's
        outputs = list(program.ops[kernel.root].outputs)
    types = {}
    for i in members:
        mop = operations[i]
        for v, value in zip(program.ops[i].inputs, mop.operands):
            types[v] = value.type
        for v, value in zip(program.ops[i].outputs, mop.results):
            types[v] = value.type
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        main = func.FuncOp("main", ([types[v] for v in inputs], [types[v] for v in outputs]))
    entry = main.add_entry_block()  # type: ignore[attr-defined]  # not in the stubs
    env = dict(zip(inputs, entry.arguments))
    with ir.InsertionPoint(entry):
        for i in members:
            clone = operations[i].clone()
            for j, v in enumerate(program.ops[i].inputs):
                clone.operands[j] = env[v]
            for v, result in zip(program.ops[i].outputs, clone.results):
                env[v] = result
        func.ReturnOp([env[v] for v in outputs])
    return str(module)


def _elements(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
