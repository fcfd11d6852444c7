"""`analyze`: the whole-program totals and per-opcode statistics of a Program."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import UnsupportedProgramError
from .costs import COPY_OPS, OpCost, program_costs
from .fusion import Kernel, fuse
from .gcpause import gc_paused
from .program import FEATURIZER_VERSION, Program


@dataclass(slots=True)
class OpcodeStats:
    instances: int = 0          # ops in the flattened program
    executions: float = 0.0     # instances weighted by their execution count
    flops: float = 0.0
    transcendentals: float = 0.0
    bytes_accessed: float = 0.0


@dataclass(slots=True)
class UnpricedOp:
    opcode: str
    location: str
    count: float


@dataclass(slots=True, eq=False, weakref_slot=True, frozen=True)
class Analysis:
    """Totals per step (loop bodies weighted by trip counts, calls by call counts).

    Immutable: `predict` prepares an Analysis once and keeps what it derived for as
    long as the object lives (a changed one would mix old and new results). What is
    derived from the analysis alone (its kernels as a GPU fuses them, its peak memory)
    is kept on it (`derived`), so every cache and prediction of it shares one copy.

    `bytes_accessed` charges every op its operands and results, as XLA's cost
    analysis does for an unfused program; `fused_bytes_accessed` counts bytes only at
    kernel boundaries, which is what memory actually sees.
    """

    program: Program
    costs: list[OpCost | None]
    kernels: list[Kernel]
    flops: float
    transcendentals: float
    bytes_accessed: float
    fused_bytes_accessed: float
    communication_bytes: float
    per_opcode: dict[str, OpcodeStats]
    unpriced: list[UnpricedOp]
    notes: list[str] = field(default_factory=list)
    _derived: dict[Any, Any] = field(default_factory=dict, init=False, repr=False,
                                     compare=False)

    def derived(self, key: Any, compute: Callable[[], Any]) -> Any:
        """`compute()`, a pure function of this analysis, once per key (a race computes
        it twice, never wrongly)."""
        found = self._derived.get(key)
        if found is None:
            found = self._derived[key] = compute()
        return found

    def to_dict(self) -> dict[str, Any]:
        loops = self.program.loops
        return {
            "source": self.program.source,
            "featurizer_version": FEATURIZER_VERSION,
            "ops": len(self.program.ops),
            "mesh": dict(self.program.mesh) if self.program.mesh else None,
            "num_devices": self.program.num_devices,
            "partitioned": self.program.partitioned,
            "kernels": len(self.kernels),
            "flops": self.flops,
            "transcendentals": self.transcendentals,
            "bytes_accessed": self.bytes_accessed,
            "fused_bytes_accessed": self.fused_bytes_accessed,
            "communication_bytes": self.communication_bytes,
            "per_opcode": {
                name: {"instances": s.instances, "executions": s.executions,
                       "flops": s.flops, "transcendentals": s.transcendentals,
                       "bytes_accessed": s.bytes_accessed}
                for name, s in sorted(self.per_opcode.items())
            },
            "loops": [{"location": l.location, "trip_count": l.trip_count,
                       "derived": l.derived, "reason": l.reason} for l in loops],
            "unpriced_ops": [{"opcode": u.opcode, "location": u.location, "count": u.count}
                             for u in self.unpriced],
            "notes": list(self.notes),
        }


# Chip kinds whose XLA backend merges kernels by multi-output fusion (XLA:GPU's
# MultiOutputFusion, and XLA:TPU's); XLA:CPU does not: a batch norm's two reductions
# of one input stay two kernels there (checked with jax 0.10.2's compile).
MULTI_OUTPUT_KINDS = frozenset({"gpu", "tpu"})


@gc_paused
def for_chip_kind(analysis: Analysis, kind: str) -> Analysis:
    """`analysis` with the kernels a chip of `kind` ("gpu", "tpu", "cpu") runs: the
    same object for CPU; for GPU and TPU a copy whose kernels are merged by
    multi-output fusion (`featurize.multi_output`), for GPU after XLA:GPU's recompute,
    bare-convolution and GEMM-layout rules (`featurize.fusion`), with their boundary
    bytes."""
    if kind not in MULTI_OUTPUT_KINDS:
        return analysis
    return analysis.derived(("multi-output kernels", kind),
                            lambda: _multi_output(analysis, kind == "gpu"))


def _multi_output(analysis: Analysis, xla_gpu: bool) -> Analysis:
    kernels = fuse(analysis.program, analysis.costs, multi_output=True, xla_gpu=xla_gpu)
    fused = sum(k.bytes_accessed * k.count for k in kernels)
    return dataclasses.replace(analysis, kernels=kernels, fused_bytes_accessed=fused,
                               notes=list(analysis.notes))


@gc_paused
def analyze(program: Any, *, entry: str | None = None, shapes: Any = None,
            dims: Any = None) -> Analysis:
    """Analyze a program (anything `load_program` accepts; `entry`, `shapes` and `dims`
    as there)."""
    from .ingest import load_program

    program = load_program(program, entry=entry, shapes=shapes, dims=dims)
    costs = program_costs(program)
    flops = transcendentals = bytes_accessed = comm = 0.0
    per_opcode: dict[str, OpcodeStats] = {}
    unpriced: list[UnpricedOp] = []
    unpriced_calls: set[str] = set()     # custom calls by target: the name that helps
    remote: set[str] = set()
    for op, cost in zip(program.ops, costs):
        stats = per_opcode.get(op.opcode)
        if stats is None:
            stats = per_opcode[op.opcode] = OpcodeStats()
        stats.instances += 1
        stats.executions += op.count
        if cost is None:
            unpriced.append(UnpricedOp(op.opcode, op.location, op.count))
            if op.opcode == "custom_call":
                unpriced_calls.add(f"custom_call @{op.attributes.get('call_target_name', '?')}")
            continue
        n = op.count
        moved = (sum(cost.read_bytes) + sum(cost.write_bytes)) * n
        stats.flops += cost.flops * n
        stats.transcendentals += cost.transcendentals * n
        stats.bytes_accessed += moved
        flops += cost.flops * n
        transcendentals += cost.transcendentals * n
        bytes_accessed += moved
        comm += cost.comm_send_bytes * n
        if cost.comm_send_bytes and cost.unit != "comm":   # a kernel that also sends
            remote.add(op.attributes.get("call_target_name", op.opcode))
    kernels = fuse(program, costs)
    fused = sum(k.bytes_accessed * k.count for k in kernels)
    if not all(math.isfinite(v) for v in (flops, transcendentals, bytes_accessed, fused,
                                          comm)):
        deepest = max((loop.trip_count for loop in program.loops), default=1)
        raise UnsupportedProgramError(
            f"{program.source}: the step's totals overflow a float (ops run about "
            f"{max(op.count for op in program.ops):.3g} times; the largest trip count is "
            f"{deepest:g}): nested loops multiply to more executions than can be counted")
    notes = list(program.notes)
    copies = [cost for op, cost in zip(program.ops, costs) if op.opcode in COPY_OPS]
    if copies:
        elided = sum(1 for cost in copies if cost is not None and cost.unit == "none")
        notes.append(f"{elided} of {len(copies)} copy op(s) elided as XLA would (their "
                     "source is not live after them): priced free; the other "
                     f"{len(copies) - elided} move their bytes")
    if remote:
        notes.append(f"kernel(s) {', '.join(sorted(remote))} send data to other chips by their "
                     "authors' estimates: counted in communication_bytes, not in their "
                     "time")
    if unpriced:
        names = sorted({u.opcode for u in unpriced} - {"custom_call"} | unpriced_calls)
        notes.append(f"{len(unpriced)} op(s) have no cost rule and are NOT included in the "
                     f"totals: {', '.join(names)}")
    return Analysis(program, costs, kernels, flops, transcendentals, bytes_accessed, fused,
                    comm, per_opcode, unpriced, notes)
