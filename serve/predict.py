"""`predict`: one step's time on a chip, with the per-kernel breakdown behind it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidArgumentError
from ..featurize.analysis import Analysis, analyze
from ..hardware import Hardware, get_hardware
from ..models.roofline import kernel_times

FIDELITIES = ("roofline",)


@dataclass(slots=True)
class KernelRow:
    index: int
    kind: str
    ops: list[str]              # opcodes of the member ops, root first
    location: str               # source location of the root op
    count: float                # executions per step
    flops: float                # per execution
    bytes_accessed: float       # per execution, at kernel boundaries
    time_s: float               # per execution
    total_time_s: float         # time_s x count
    compute_s: float
    memory_s: float
    bound: str

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(slots=True)
class Prediction:
    """How long one step takes on `hardware`, and why.

    `step_time_s = compute_s + communication_s`. Communication is not modeled yet
    (the distributed layer will add it): `communication_s` is 0 and a note says so
    whenever the program has collectives.
    """

    program: str
    hardware: str
    fidelity: str
    step_time_s: float
    compute_s: float
    communication_s: float
    overhead_s: float
    flops: float
    bytes_accessed: float
    kernels: list[KernelRow]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "program": self.program,
            "hardware": self.hardware,
            "fidelity": self.fidelity,
            "step_time_s": self.step_time_s,
            "compute_s": self.compute_s,
            "communication_s": self.communication_s,
            "overhead_s": self.overhead_s,
            "flops": self.flops,
            "bytes_accessed": self.bytes_accessed,
            "kernels": [k.to_dict() for k in self.kernels],
            "notes": list(self.notes),
        }


def predict(program: Any, hardware: str | Hardware = "H100-SXM",
            fidelity: str = "roofline") -> Prediction:
    """Predict one step of `program` (anything `load_program` accepts, or an
    `Analysis`) on `hardware` (a catalog name or alias, or a `Hardware`)."""
    if fidelity not in FIDELITIES:
        raise InvalidArgumentError(
            f"unknown fidelity {fidelity!r}; allowed: {', '.join(FIDELITIES)}")
    hw = get_hardware(hardware)
    analysis = program if isinstance(program, Analysis) else analyze(program)
    prog = analysis.program
    times = kernel_times(analysis.kernels, prog, hw)
    rows: list[KernelRow] = []
    compute_s = overhead_s = 0.0
    collectives = 0
    for kernel, t in zip(analysis.kernels, times):
        root = prog.ops[kernel.root]
        total = t.time_s * kernel.count
        compute_s += total
        overhead_s += t.overhead_s * kernel.count
        if t.bound == "communication":
            collectives += 1
        rows.append(KernelRow(
            kernel.index, kernel.kind, [prog.ops[i].opcode for i in kernel.ops],
            root.location, kernel.count, kernel.flops, kernel.bytes_accessed,
            t.time_s, total, t.compute_s, t.memory_s, t.bound))
    notes = list(analysis.notes)
    if collectives:
        notes.append(f"{collectives} collective kernel(s) are not priced: communication is "
                      "not modeled yet, communication_s is 0")
    return Prediction(
        program=prog.source, hardware=hw.name, fidelity=fidelity,
        step_time_s=compute_s, compute_s=compute_s, communication_s=0.0,
        overhead_s=overhead_s, flops=analysis.flops,
        bytes_accessed=analysis.fused_bytes_accessed, kernels=rows, notes=notes)
