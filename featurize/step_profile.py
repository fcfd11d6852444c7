"""Per-kernel times inside a whole step, read from XLA's own profiler.

A kernel timed alone (`collect kernels`) pays what it never pays inside a program: the
per-call cost of its own executable, operands it does not share with a neighbour, and
no other kernel running beside it. The step calibration takes some of that back out
with five numbers, and with every kernel's own standalone time it still misses whole
steps by about 27 % (benchmarks/RESULTS.md). This module times the kernels where they
run instead:

1. every StableHLO op of the module gets a name location `sc<N>` (its position in a
   walk of the module). XLA keeps an op's location as the `op_name` metadata of each
   HLO instruction made from it, fused or not, so every instruction XLA runs names the
   ops it came from, and through them the kernels `analyze` forms;
2. the module is compiled once on the local backend and run under `jax.profiler` for a
   few steps; XLA:CPU records one event per thunk it executes, named after its HLO
   instruction (an asynchronous thunk's completion is a second event, `end: <name>`);
3. the thunks' times are made exclusive: XLA:CPU runs independent thunks at once on
   its threads, and every instant of the step is split evenly among the thunks running
   then. Exclusive times add up to the time the step was busy, so a program's kernels
   sum to its step (less the gaps between thunks) by construction, and a model of them
   composes by plain addition;
4. a thunk's time goes to the kernels whose ops it holds. Where it holds ops of several
   kernels (XLA fused across our kernel boundaries), it is split by the work of the ops
   it holds, not of the whole kernels: a bias add that XLA runs with the next kernel's
   sine takes a share as large as an add, not as large as the dot it came with (the
   `SPLIT` version of a stored profile says which rule made it). A convolution or dot
   thunk that names no op (XLA rewrote the op and dropped its metadata, as it does for
   the filter gradient of a transposed convolution) goes to the kernel whose
   convolution or dot has as many output elements and that no named thunk ran; a
   fusion thunk (XLA:CPU's `ynn_fusion`) running such a convolution is that thunk. The
   filter gradient of a depthwise convolution (batch groups, one per output feature)
   is rewritten into a dense convolution over every pair of channels, with the group
   count times its output elements, and is matched so. The other thunks that hold no
   op of ours (layout copies and converts XLA added) are reported apart, as
   `unmapped_s`: given to the dots and convolutions they feed, they raised the in-step
   corrector's price of every convolution and priced the held-out family of 1-D
   convolutions 45 % over (benchmarks/RESULTS.md).
   Loop and conditional thunks are containers: their bodies' thunks are counted, the
   container itself is not.

On XLA:GPU the kernels' events live on the device's own plane (CUPTI's activity records,
one line per stream) and are named after the CUDA kernels; each carries the HLO
instruction it was launched for as its `hlo_op` statistic, which stands in for the
thunk's name. A kernel launched from a command buffer (a CUDA graph XLA records several
thunks into) carries the command buffer's name instead; a fused kernel's own name is
then its instruction's with `.` and `-` made `_`, but a library kernel (cuBLAS's) says
nothing of its instruction. Profiles are therefore compiled with command buffers off
(`xla_gpu_enable_command_buffer` empty), which leaves each kernel's time as it is and
moves only launch gaps, which are in the wall time, not the busy time. Kernels of one
stream run one at a time, so their exclusive time is their own.
"""

from __future__ import annotations

import glob
import shutil
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

import numpy as np

from ..errors import MeasurementError

LABEL_PREFIX = "sc"
# thunks that only run other thunks: their bodies' events are the work
_CONTAINERS = ("while", "conditional", "call")
# profiler events of XLA:CPU's runtime that are not thunks
_RUNTIME_EVENTS = ("ThreadpoolListener", "ThunkExecutor", "SlinkyThreadPool")
_END = "end: "
# XLA:GPU: the `hlo_op` of kernels launched from a command buffer, and the prefix under
# which `_device_events` passes their own kernel name on
_COMMAND_BUFFER = "command_buffer"
_KERNEL_NAME = "kernel: "
# XLA:GPU debug option that, empty, runs every thunk on its own (no CUDA graphs)
NO_COMMAND_BUFFERS = (("xla_gpu_enable_command_buffer", ""),)
# FLOP per byte at which an op's compute and memory weigh the same when a thunk's time
# is split over several kernels (the reference CPUs: 85-173 GFLOP/s, 4-17 GB/s)
BALANCE = 20.0
# FLOP-equivalents of one transcendental XLA:CPU does not vectorize. On the family 25
# model 17 machine (jaxlib 0.10.2), jit-ed over 4 Mi f32 elements, median of 15 calls:
# sine and cosine 5.7 ns an element, exp, tanh and erf 0.4 ns (as fast as an add: the
# memory bound). At BALANCE, an f32 add's 8 bytes weigh about 160 for 0.45 ns, so the
# 5.2 ns more of a sine weigh about 1,800.
SLOW_TRANSCENDENTAL = {"sine": 1800.0, "cosine": 1800.0, "tan": 1800.0}
# which rule split the thunks of a stored profile: "held-ops-3" (above). "held-ops-2"
# profiles left the dense rewrite of depthwise filter gradients and convolutions inside
# fusion thunks unmapped: they are still read, without the times of kernels holding a
# depthwise filter gradient (`datasets.profiles.kernel_seconds`);
# "held-ops" profiles left every rewritten convolution unmapped, and profiles without
# the key split by whole kernels' work: neither is read any more
SPLIT = "held-ops-3"
READABLE_SPLITS = ("held-ops-3", "held-ops-2")
# the HLO opcodes of an unnamed thunk matched to a kernel by its output size
_MATCHED = {"convolution": ("convolution",), "dot": ("dot_general", "dot")}


@dataclass(frozen=True)
class StepProfile:
    """One program's step, profiled. Kernel times are seconds per step (every execution
    of the kernel in the step together), keyed by `Kernel.index` of `analyze`."""

    kernel_s: Mapping[int, float]
    unmapped_s: float      # thunks holding no op of ours
    busy_s: float          # time in which at least one thunk ran
    walls_s: tuple[float, ...]   # every profiled step's wall time
    thunks: int            # distinct thunks seen
    # per thunk: its exclusive seconds per step and the `Kernel.index`es it was split over
    # (none: unmapped), for reading where a step's time goes; not stored with a profile
    thunk_s: Mapping[str, tuple[float, tuple[int, ...]]] = field(default_factory=dict)
    # whose kernels the indices are: "analyze" (as XLA:CPU fuses), or "multi-output"
    # (`analysis.for_chip_kind(..., "gpu")`, as XLA:GPU merges them)
    kernels: str = "analyze"

    @property
    def wall_s(self) -> float:
        """The median profiled step."""
        return float(np.median(self.walls_s))

    @property
    def steps(self) -> int:
        return len(self.walls_s)

    def as_json(self) -> dict[str, Any]:
        return {"kernel_s": {str(k): v for k, v in sorted(self.kernel_s.items())},
                "unmapped_s": self.unmapped_s, "busy_s": self.busy_s,
                "wall_s": self.wall_s, "steps": self.steps, "thunks": self.thunks,
                "labels": LABEL_PREFIX, "split": SPLIT, "kernels": self.kernels}


def label_ops(module: Any) -> int:
    """Give every StableHLO/MHLO/CHLO op of `module` the name location `sc<N>` (N in
    walk order); returns how many were labelled."""
    from .mlir import bindings

    ir = bindings()[0]
    count = 0

    def visit(operation: Any) -> None:
        nonlocal count
        for region in operation.regions:
            for block in region.blocks:
                for op in block.operations:
                    if op.operation.name.startswith(("stablehlo.", "mhlo.", "chlo.")):
                        op.operation.location = ir.Location.name(f"{LABEL_PREFIX}{count}")
                        count += 1
                    visit(op.operation)

    with module.context:
        visit(module.operation)
    return count


def hlo_instructions(hlo: Any) -> list[tuple[str, str, str, str]]:
    """(computation, instruction name, opcode, the instruction's text) of every
    instruction of a compiled HLO module, or of its text (`HloModule.to_string()`, as
    `benchmarks/xla_gpu.py` keeps it). Structure comes from the module's API where
    there is one; metadata and callee names, which it does not expose, from each
    instruction's own text."""
    import re

    if not isinstance(hlo, str):
        return [(c.name, i.name, str(i.opcode).rsplit(".k", 1)[-1].lower(), i.to_string())
                for c in hlo.computations() for i in c.instructions()]
    computation = re.compile(r"^(?:ENTRY )?%?([\w.\-]+) \(.*\{\s*$")
    instruction = re.compile(r"^\s*(?:ROOT )?%?([\w.\-]+) = .*? ([a-z][\w\-]*)\(")
    out, current = [], ""
    for line in hlo.splitlines():
        found = computation.match(line)
        if found:
            current = found.group(1)
        elif (found := instruction.match(line)):
            out.append((current, found.group(1), found.group(2).replace("-", "_"), line))
    return out


def thunk_labels(hlo: Any) -> tuple[dict[str, set[str]], set[str]]:
    """(instruction name -> the op labels it holds, its fused computations' included;
    the names of container instructions) of a compiled HLO module or its text."""
    import re

    op_name = re.compile(r'op_name="([^"]*)"')
    label = re.compile(rf"\b{LABEL_PREFIX}\d+\b")
    callee = re.compile(r"calls=%?([\w.\-]+)")
    own: dict[str, set[str]] = {}
    calls: dict[str, list[str]] = {}
    computations: dict[str, list[str]] = {}
    containers: set[str] = set()
    for computation, name, opcode, text in hlo_instructions(hlo):
        computations.setdefault(computation, []).append(name)
        own[name] = {m for meta in op_name.findall(text) for m in label.findall(meta)}
        calls[name] = callee.findall(text)
        if opcode in _CONTAINERS:
            containers.add(name)
    out: dict[str, set[str]] = {}
    for name, labels in own.items():
        held = set(labels)
        for called in calls[name]:
            for inner in computations.get(called, ()):
                held |= own.get(inner, set())
        out[name] = held
    return out, containers


def compute_thunks(hlo_module: Any, labels: Mapping[str, set[str]]
                   ) -> tuple[set[str], dict[str, tuple[str, int]]]:
    """(the instructions of a compiled module that run a convolution or a dot, fused or
    not; (HLO opcode, output elements) of those that are a convolution or dot naming
    no op of ours)."""
    import re

    shape = re.compile(r"=\s*[a-z0-9]+\[([0-9,]*)\]")
    callee = re.compile(r"calls=%?([\w.\-]+)")
    computes: dict[str, bool] = {}
    calls: dict[str, list[str]] = {}
    callers: dict[str, list[str]] = defaultdict(list)
    unnamed: dict[str, tuple[str, int]] = {}
    inside: dict[str, str] = {}
    for computation, name, opcode, text in hlo_instructions(hlo_module):
        computes[computation] = computes.get(computation, False) or opcode in _MATCHED
        calls[name] = callee.findall(text)
        for called in calls[name]:
            callers[called].append(name)
        if opcode in _MATCHED:
            calls[name].append(computation)
            found = shape.search(text)
            if not labels.get(name) and found:
                dims = [int(d) for d in found.group(1).split(",") if d]
                unnamed[name] = (opcode, int(np.prod(dims)) if dims else 1)
                inside[name] = computation
    # an unnamed op that XLA fused into a computation runs as the thunk calling it
    for name, computation in inside.items():
        outer = [c for c in callers.get(computation, ()) if not labels.get(c)]
        if outer:
            found_op = unnamed.pop(name)
            for caller in outer:
                unnamed[caller] = found_op
    running = {name for name, called in calls.items()
               if any(computes.get(c, False) for c in called)}
    return running, unnamed


def exclusive_seconds(intervals: Iterable[tuple[int, int, str]]) -> tuple[dict[str, float], float]:
    """(name -> exclusive nanoseconds, busy nanoseconds) of (start, end, name) intervals:
    every instant is split evenly among the intervals covering it."""
    spans = [(s, e, n) for s, e, n in intervals if e > s]
    if not spans:
        return {}, 0.0
    points = np.unique(np.array([p for s, e, _ in spans for p in (s, e)], dtype=np.int64))
    starts = np.searchsorted(points, [s for s, _, _ in spans])
    ends = np.searchsorted(points, [e for _, e, _ in spans])
    depth = np.zeros(len(points), dtype=np.int64)
    np.add.at(depth, starts, 1)
    np.add.at(depth, ends, -1)
    active = np.cumsum(depth)[:-1]
    width = np.diff(points).astype(np.float64)
    share = np.where(active > 0, width / np.maximum(active, 1), 0.0)
    cumulative = np.concatenate([[0.0], np.cumsum(share)])
    out: dict[str, float] = defaultdict(float)
    for (_, _, name), a, b in zip(spans, starts, ends):
        out[name] += float(cumulative[b] - cumulative[a])
    return dict(out), float(width[active > 0].sum())


def thunk_intervals(events: Iterable[tuple[int, int, str]], skip: set[str]
                    ) -> list[tuple[int, int, str]]:
    """(start, end, thunk) from XLA:CPU's (start ns, duration ns, name) events, in time
    order: an asynchronous thunk ends at its `end: <name>` event; containers and the
    runtime's own events are left out."""
    pending: dict[str, list[int]] = defaultdict(list)
    out: list[list[Any]] = []
    for start, duration, name in sorted(events):
        if name.startswith(_RUNTIME_EVENTS):
            continue
        if name.startswith(_END):
            opened = pending[name[len(_END):]]
            if opened:
                i = opened.pop(0)
                out[i][1] = max(out[i][1], start + duration)
            continue
        if name in skip:
            continue
        pending[name].append(len(out))
        out.append([start, start + duration, name])
    return [(s, e, n) for s, e, n in out]


def _host_events(xspace_path: str) -> list[tuple[int, int, str]]:
    from jax.profiler import ProfileData

    data = ProfileData.from_file(xspace_path)
    return [(e.start_ns, e.duration_ns, e.name)
            for plane in data.planes if plane.name.startswith("/host:CPU")
            for line in plane.lines if line.name.startswith("tf_XLA")
            for e in line.events]


def _device_events(xspace_path: str) -> list[tuple[int, int, str]]:
    """(start ns, duration ns, HLO instruction) of the GPU kernels in a trace: the
    events of the device planes' stream lines that name their instruction (`hlo_op`);
    copies and the profiler's derived lines ("XLA Ops", "XLA Modules") are left out."""
    from jax.profiler import ProfileData

    data = ProfileData.from_file(xspace_path)
    out = []
    for plane in data.planes:
        if not plane.name.startswith("/device:GPU"):
            continue
        for line in plane.lines:
            if line.name.startswith("XLA"):
                continue
            for e in line.events:
                op = str(dict(e.stats).get("hlo_op") or "")
                if op.startswith(_COMMAND_BUFFER):
                    op = _KERNEL_NAME + e.name   # resolved against the module's names
                if op:
                    out.append((e.start_ns, e.duration_ns, op))
    return out


def resolve_kernel_names(events: list[tuple[int, int, str]], instructions: Iterable[str]
                         ) -> list[tuple[int, int, str]]:
    """Events named after a command buffer's kernel (`_device_events`) renamed to the
    instruction whose name, `.` and `-` made `_`, is the kernel's; the others keep the
    command buffer's kernel name and stay unmapped."""
    by_kernel = {name.replace(".", "_").replace("-", "_"): name for name in instructions}
    out = []
    for start, duration, name in events:
        if name.startswith(_KERNEL_NAME):
            kernel = name[len(_KERNEL_NAME):]
            name = by_kernel.get(kernel, kernel)
        out.append((start, duration, name))
    return out


@dataclass
class PreparedStep:
    """A program compiled for profiling: its ops labelled, its kernels analysed, its
    executable and random arguments ready (`prepare_step`)."""

    label: str
    platform: str
    analysis: Any
    executable: Any
    args: list[Any]
    labels: dict[str, set[str]]
    containers: set[str]
    computing: set[str]
    unnamed: dict[str, tuple[str, int]]

    def call(self) -> Any:
        """One step, waited for."""
        import jax

        return jax.block_until_ready(
            self.executable.execute_sharded(self.args).disassemble_into_single_device_arrays())

    def optimized_hlo(self) -> str:
        """The compiled module as XLA runs it (after its fusion passes)."""
        return str(self.executable.hlo_modules()[0].to_string())


def prepare_step(data: bytes | str, label: str, *, for_profile: bool = True) -> PreparedStep:
    """Label, analyse and compile one single-device program on the local CPU or GPU
    backend, with random arguments; `for_profile` compiles a GPU program with command
    buffers off (see the module's docstring), else as jax would. MeasurementError when
    it cannot be compiled."""
    import jax

    from ..hardware.timing import random_args
    from .analysis import analyze, for_chip_kind
    from .ingest import load_program
    from .mlir import parse_module
    from .partition import module_bytecode
    from .xla_compile import compile_stablehlo, entry_arguments

    device = jax.devices()[0]
    if device.platform not in ("cpu", "gpu"):
        raise MeasurementError(f"{label}: step profiles are read from XLA:CPU and XLA:GPU "
                               f"only; the local backend is {device.platform}")
    module = parse_module(data.encode() if isinstance(data, str) else data, label)
    label_ops(module)
    # the kernels a GPU runs are merged by multi-output fusion, as predictions for it are
    analysis = for_chip_kind(analyze(load_program(
        module.operation.get_asm(enable_debug_info=True))), device.platform)
    specs = entry_arguments(module, label)
    overrides = NO_COMMAND_BUFFERS if for_profile and device.platform == "gpu" else ()
    bytecode = module_bytecode(module)
    try:
        try:
            executable = compile_stablehlo(device.client, [device], bytecode,
                                           overrides=overrides)
        except Exception:
            if not overrides:
                raise
            # an XLA that does not know the option: kernels in command buffers keep
            # their fused names, only library calls go unmapped
            executable = compile_stablehlo(device.client, [device], bytecode)
    except Exception as exc:   # XLA's own error types are not importable by name
        raise MeasurementError(f"{label}: XLA could not compile it: "
                               f"{str(exc).splitlines()[0][:200]}") from exc
    hlo_module = executable.hlo_modules()[0]
    labels, containers = thunk_labels(hlo_module)
    computing, unnamed = compute_thunks(hlo_module, labels)
    args = random_args(specs, np.random.default_rng(0))
    return PreparedStep(label, device.platform, analysis, executable, args, labels,
                        containers, computing, unnamed)


def profile_prepared(step: PreparedStep, *, steps: int = 5, warmup: int = 3,
                     keep_trace: str | None = None) -> StepProfile:
    """Run a prepared step `warmup` times, then `steps` times under XLA's profiler, and
    split its time among its kernels; `keep_trace` copies the trace file there."""
    import jax

    if steps < 1 or warmup < 0:
        raise MeasurementError(f"{step.label}: steps {steps}, warmup {warmup}: need at "
                               "least one step and no negative warm-up")
    for _ in range(warmup):
        step.call()
    trace_dir = tempfile.mkdtemp(prefix="stablecost-profile-")
    walls = []
    try:
        jax.profiler.start_trace(trace_dir)
        try:
            for _ in range(steps):
                start = time.perf_counter()
                step.call()
                walls.append(time.perf_counter() - start)
        finally:
            jax.profiler.stop_trace()
        found = glob.glob(f"{trace_dir}/**/*.xplane.pb", recursive=True)
        if not found:
            raise MeasurementError(f"{step.label}: the profiler wrote no trace")
        if keep_trace is not None:
            shutil.copyfile(found[0], keep_trace)
        if step.platform == "cpu":
            events = _host_events(found[0])
        else:
            events = resolve_kernel_names(_device_events(found[0]), step.labels)
    finally:
        shutil.rmtree(trace_dir, ignore_errors=True)
    exclusive, busy = exclusive_seconds(thunk_intervals(events, step.containers))
    profile = _attribute(step.analysis, step.labels, exclusive, busy, walls, step.unnamed,
                         step.computing)
    return replace(profile, kernels="multi-output" if step.platform == "gpu" else "analyze")


def profile_step(data: bytes | str, label: str, *, steps: int = 5,
                 warmup: int = 3) -> StepProfile:
    """Profile one single-device program's step on the local CPU or GPU backend (see
    the module's docstring). MeasurementError when it cannot be compiled, run or read."""
    if steps < 1 or warmup < 0:
        raise MeasurementError(f"{label}: steps {steps}, warmup {warmup}: need at least one "
                               "step and no negative warm-up")
    return profile_prepared(prepare_step(data, label), steps=steps, warmup=warmup)


def op_weight(op: Any, cost: Any) -> float:
    """The work of one execution of an op, for splitting a thunk's time among the ops it
    holds: FLOPs, bytes at BALANCE FLOP per byte, and the transcendentals XLA:CPU runs
    as scalar calls; 0 for an op without a cost rule."""
    if cost is None:
        return 0.0
    moved = sum(cost.read_bytes) + sum(cost.write_bytes)
    return (cost.flops + BALANCE * moved
            + SLOW_TRANSCENDENTAL.get(op.opcode, 0.0) * cost.transcendentals)


def _attribute(analysis: Any, labels: Mapping[str, set[str]], exclusive: Mapping[str, float],
               busy_ns: float, walls: list[float],
               unnamed: Mapping[str, tuple[str, int]] | None = None,
               computing: set[str] | None = None) -> StepProfile:
    """Each thunk's exclusive time split over the kernels whose ops it holds, by the work
    of the ops it holds; an unnamed convolution or dot thunk (`compute_thunks`) to the
    kernels whose such op has its output size (or, for a depthwise filter gradient, its
    group count times that) and ran in no named computing thunk."""

    kernels = [k for k in analysis.kernels if k.kind != "collective" and k.priced]
    ops = analysis.program.ops
    # label -> (kernel position, that op's work), floored so ops of pure data movement
    # still take a share
    owner: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for position, kernel in enumerate(kernels):
        for op in kernel.ops:
            owner[ops[op].location].append(
                (position, op_weight(ops[op], analysis.costs[op]) + 1.0))
    labels = {**labels, **_matched_labels(kernels, ops, labels, exclusive, unnamed or {},
                                          computing or set())}
    per_kernel = np.zeros(len(kernels))
    unmapped = 0.0
    scale = 1e-9 / len(walls)
    thunk_s: dict[str, tuple[float, tuple[int, ...]]] = {}
    for thunk, ns in exclusive.items():
        held_work: dict[int, float] = defaultdict(float)
        for lab in labels.get(thunk, ()):
            for position, op_work in owner.get(lab, ()):
                held_work[position] += op_work
        held = sorted(held_work)
        thunk_s[thunk] = (ns * scale, tuple(kernels[p].index for p in held))
        if not held:
            unmapped += ns
            continue
        share = np.array([held_work[p] for p in held])
        per_kernel[held] += ns * share / share.sum()
    return StepProfile({k.index: float(s * scale) for k, s in zip(kernels, per_kernel)},
                       unmapped * scale, busy_ns * scale, tuple(walls), len(exclusive),
                       thunk_s)


def _matched_labels(kernels: list[Any], ops: Any, labels: Mapping[str, set[str]],
                    exclusive: Mapping[str, float], unnamed: Mapping[str, tuple[str, int]],
                    computing: set[str]) -> dict[str, set[str]]:
    """Labels for the unnamed convolution and dot thunks that ran: those of the
    same-kind ops of our kernels with as many output elements that no named thunk
    running a convolution or dot holds (ties share the thunk; a layout copy XLA put
    around the rewritten op may hold its label)."""
    from .conv_lowering import dense_on_cpu_groups

    ran = {lab for thunk in exclusive if thunk in computing and thunk not in unnamed
           for lab in labels.get(thunk, ())}
    out: dict[str, set[str]] = {}
    for thunk, (opcode, elements) in unnamed.items():
        if thunk not in exclusive:
            continue
        candidates = [ops[i] for kernel in kernels for i in kernel.ops
                      if ops[i].opcode in _MATCHED[opcode] and ops[i].location not in ran
                      and ops[i].results]
        # a depthwise filter gradient runs densely, with its group count times its output
        out[thunk] = ({op.location for op in candidates
                       if op.results[0].num_elements == elements}
                      or {op.location for op in candidates
                          if op.results[0].num_elements * dense_on_cpu_groups(op) == elements})
    return out
