"""Roofline fidelity: each fused kernel takes
`max(compute time, memory time) + launch overhead`, where compute time prices
matmul FLOPs at the chip's matrix-unit rate for the operand dtype (f32 promoted as the
chip does by default), other FLOPs at its vector rate and transcendentals at its
special-function rate, and memory time is boundary bytes over HBM bandwidth.

On a CPU spec that measured it (`loop_convolution_macs_per_s`), a convolution XLA:CPU
runs as its own loop nest instead of a library call (`featurize/conv_lowering.py`: the
filter gradient of a transposed convolution, among others) is priced at that rate per
multiply-add instead of the matmul rate: about 25x slower on the machines measured.

On a CPU spec, the filter gradient of a depthwise convolution is priced as XLA:CPU runs
it: a dense convolution over every pair of channels, the group count times the
multiply-adds the program states (`featurize.conv_lowering.dense_on_cpu_groups`).

On a spec that rates single transcendental opcodes (`transcendentals_per_s_by_op`,
measured by `hardware calibrate`), each elementwise transcendental op of a kernel is
priced at its own rate: a sine of wide arguments or an atan2 costs 10x an exponential
on the CPUs measured. A complex one is priced as the real ones XLA expands it to
(`featurize.costs.opcost.COMPLEX_TRANSCENDENTALS`: a complex exp is an exponential, a
cosine and a sine). Transcendentals inside reduction and map bodies, and opcodes the
table does not rate, take `transcendentals_per_s`.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ..featurize.conv_lowering import (
    dense_on_cpu_groups,
    grouped_units,
    loop_iterations,
    multiply_adds,
    runs_as_loop_on_cpu,
)
from ..featurize.costs.elementwise import TRANSCENDENTAL_OPS
from ..featurize.costs.opcost import out_elements, real_transcendentals
from ..featurize.fusion import COLLECTIVE, MATMUL, Kernel
from ..featurize.program import Op, Program
from ..hardware import Hardware


class KernelTime(NamedTuple):
    time_s: float        # one execution, launch overhead included
    compute_s: float
    memory_s: float
    overhead_s: float
    bound: str           # compute | memory | overhead | communication | unpriced


def kernel_dtypes(kernel: Kernel, program: Program) -> tuple[str, str, str | None]:
    """(matmul operand dtype, vector dtype, matmul precision) of a kernel."""
    root = program.ops[kernel.root]
    vector_dtype = (root.operands[0].dtype if root.opcode in ("reduce", "reduce_window")
                    and root.operands else (root.results[0].dtype if root.results else "f32"))
    if kernel.kind != MATMUL:
        if kernel.matmul_flops and root.opcode == "custom_call" and root.operands:
            # a fused kernel on the matrix units (cuDNN flash attention, a Pallas kernel
            # whose estimate is matmul-bound) multiplies its first operand's type
            return root.operands[0].dtype, vector_dtype, None
        return "f32", vector_dtype, None
    dot = next(program.ops[i] for i in kernel.ops if program.ops[i].opcode in (
        "dot_general", "dot", "convolution", "dynamic_conv", "chlo.ragged_dot", "cholesky",
        "triangular_solve"))
    precision = dot.attributes.get("precision_config")
    highest = "HIGHEST" if precision and "HIGHEST" in precision else None
    epilogue = program.ops[max(kernel.ops)]
    out_dtype = epilogue.results[0].dtype if epilogue.results else vector_dtype
    return dot.operands[0].dtype, out_dtype, highest


def kernel_time(kernel: Kernel, program: Program, hw: Hardware) -> KernelTime:
    """Roofline time of one execution of `kernel` on `hw`."""
    if not kernel.priced:
        return KernelTime(0.0, 0.0, 0.0, 0.0, "unpriced")
    if kernel.kind == COLLECTIVE:
        # Communication is modeled by the distributed layer; here it takes no time.
        return KernelTime(0.0, 0.0, 0.0, 0.0, "communication")
    matmul_dtype, vector_dtype, precision = kernel_dtypes(kernel, program)
    compute_s = 0.0
    matmul_flops = kernel.matmul_flops
    if matmul_flops and hw.kind == "cpu" and kernel.kind == MATMUL:
        matmul_flops += dense_convolution_extra_flops(kernel, program)
    if matmul_flops and hw.loop_convolution_macs_per_s and kernel.kind == MATMUL:
        loop_macs, iterations = loop_convolution_work(kernel, program)
        if loop_macs:
            compute_s += iterations / hw.loop_convolution_macs_per_s
            matmul_flops = max(matmul_flops - 2.0 * loop_macs, 0.0)
    if matmul_flops:
        compute_s += matmul_flops / hw.matmul_peak_flops_per_s(matmul_dtype, precision)
    vector_flops = kernel.flops - kernel.matmul_flops
    if vector_flops:
        compute_s += vector_flops / hw.vector_peak_flops_per_s(vector_dtype)
    if kernel.transcendentals:
        compute_s += transcendental_seconds(kernel, program, hw)
    memory_s = kernel.bytes_accessed / hw.memory_bandwidth_bytes_per_s
    overhead_s = hw.launch_overhead_s
    busy = max(compute_s, memory_s)
    if overhead_s > busy:
        bound = "overhead"
    else:
        bound = "compute" if compute_s >= memory_s else "memory"
    return KernelTime(busy + overhead_s, compute_s, memory_s, overhead_s, bound)


def transcendental_seconds(kernel: Kernel, program: Program, hw: Hardware) -> float:
    """Time of the kernel's transcendentals on `hw`: each elementwise op whose opcode
    `hw.transcendentals_per_s_by_op` rates at that rate (one per output element, as
    `featurize.costs` counts it), the rest at `hw.transcendentals_per_s`."""
    by_op = hw.transcendentals_per_s_by_op
    rest = kernel.transcendentals
    if not by_op:
        return rest / hw.transcendentals_per_s
    seconds = 0.0
    for index in kernel.ops:
        op = program.ops[index]
        if op.opcode not in TRANSCENDENTAL_OPS:
            continue
        for opcode in real_transcendentals(op):
            rate = by_op.get(opcode)
            if rate is not None and rest > 0:
                elements = min(float(out_elements(op)), rest)
                seconds += elements / rate
                rest -= elements
    return seconds + rest / hw.transcendentals_per_s


def dense_convolution_extra_flops(kernel: Kernel, program: Program) -> float:
    """FLOPs XLA:CPU runs for the kernel's depthwise filter gradients beyond those the
    program states (`featurize.conv_lowering.dense_on_cpu_groups`)."""
    extra = 0.0
    for i in kernel.ops:
        op = program.ops[i]
        if op.opcode == "convolution":
            groups = dense_on_cpu_groups(op)
            if groups > 1:
                extra += 2.0 * multiply_adds(op) * (groups - 1)
    return extra


def loop_convolution_macs(kernel: Kernel, program: Program) -> float:
    """Multiply-adds of the kernel's convolutions that XLA:CPU runs as loop nests."""
    return loop_convolution_work(kernel, program)[0]


def _convolutions(kernel: Kernel, program: Program) -> list[tuple[Op, bool]]:
    """The kernel's convolutions, each with whether the kernel sits in a loop body."""
    convolutions = [program.ops[i] for i in kernel.ops
                    if program.ops[i].opcode == "convolution"]
    if not convolutions:        # most kernels: no need to place the kernel in a loop
        return []
    in_loop_body = any(first <= kernel.block <= last
                       for first, last in (loop.blocks for loop in program.loops))
    return [(op, in_loop_body) for op in convolutions]


def loop_convolution_work(kernel: Kernel, program: Program) -> tuple[float, float]:
    """(multiply-adds, loop-nest iterations) of the kernel's convolutions that XLA:CPU
    runs as loop nests (`featurize.conv_lowering.loop_iterations`); the multiply-adds as
    the matmul FLOPs count them on a CPU, a depthwise filter gradient's densely
    (`dense_convolution_extra_flops`)."""
    ops = [op for op, in_loop_body in _convolutions(kernel, program)
           if runs_as_loop_on_cpu(op, in_loop_body)]
    return (sum(multiply_adds(op) * dense_on_cpu_groups(op) for op in ops),
            sum(loop_iterations(op) for op in ops))


# The share of a feature-grouped convolution's calibrated time (`grouped_units` at the
# spec's `grouped_convolution_units_per_s`) below which the learned models do not price
# it. Half: the stored in-step profiles of depthwise convolutions on the Zen 5 machine
# ran at 7-60 ns per group and output pixel (3x3, median 17 ns), the probe at 20 ns.
GROUPED_FLOOR_SHARE = 0.5


def grouped_convolution_floor_s(kernel: Kernel, program: Program, hw: Hardware) -> float:
    """The least time the learned models give a kernel holding feature-grouped
    convolutions on a CPU spec that measured their rate: GROUPED_FLOOR_SHARE of their
    calibrated time; 0 elsewhere. Not part of the roofline's own answer: the kernel model
    learned its ratios over a roofline without it."""
    rate = hw.grouped_convolution_units_per_s
    if not rate or hw.kind != "cpu" or kernel.kind != MATMUL:
        return 0.0
    units = sum(grouped_units(op) for op, in_loop_body in _convolutions(kernel, program)
                if not runs_as_loop_on_cpu(op, in_loop_body))
    return GROUPED_FLOOR_SHARE * units / rate


def kernel_times(kernels: Sequence[Kernel], program: Program, hw: Hardware) -> list[KernelTime]:
    return [kernel_time(k, program, hw) for k in kernels]
