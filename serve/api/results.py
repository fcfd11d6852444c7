"""What a prediction answers: `Prediction` (one step on one system), its `KernelRow`s,
the `FidelityTotals` of `fidelity="all"`, and `Candidate`, one system a tuner asks about.

Results are frozen: a `Prediction` is built once, with tuples for its rows, so the
same object can be cached and handed to many callers. `to_dict()` is the JSON the CLI
(`--json`) and the HTTP service return; `JSON_ALIASES` lists the keys kept under their
old names for one release.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from ...hardware import Hardware
from ...models.comm.pricing import CollectiveRow
from ...models.comm.topology import Topology

# new key -> old key: to_dict() writes both until stablecost ALIASES_REMOVED_IN
ALIASES_REMOVED_IN = "0.2.0"
JSON_ALIASES = {"program_name": "program", "fused_bytes_accessed": "bytes_accessed"}


@dataclass(frozen=True, slots=True)
class KernelRow:
    index: int
    kind: str
    ops: tuple[str, ...]        # opcodes of the member ops, root first
    location: str               # source location of the root op
    count: float                # executions per step
    flops: float                # per execution
    bytes_accessed: float       # per execution, at the kernel's boundary
    time_s: float               # per execution
    total_time_s: float         # time_s x count
    compute_s: float
    memory_s: float
    bound: str                  # compute | memory | overhead | communication | unpriced
    time_low_s: float | None = None    # 80 % interval of time_s, when the model has one
    time_high_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__slots__}
        out["ops"] = list(self.ops)
        return out


@dataclass(frozen=True, slots=True)
class FidelityTotals:
    """One fidelity's totals of a step (`Prediction.by_fidelity`)."""

    step_time_s: float
    compute_s: float
    communication_s: float
    exposed_communication_s: float

    def to_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class Prediction:
    """How long one step takes on a system, and why.

    program_name: the program's label (its path, or "<string>", "<jax f>", ...).
    step_time_s: the two-stream schedule's makespan (`compute_s + communication_s` when
        `overlap` is False). compute_s: every compute kernel back to back (launch
        overhead included, `overhead_s` of it). communication_s: every collective back
        to back. exposed_communication_s: `step_time_s - compute_s`, the communication
        no compute hides.
    flops: the step's FLOPs; fused_bytes_accessed: its bytes at kernel boundaries (after
        fusion; `Analysis.bytes_accessed` is the unfused count).
    collectives: one row per collective kernel (kind, bytes, group, algorithm, time).
    critical_path: kernel indices of the chain that sets the step time, in time order.
    mesh: {axis: size} the program runs on (None: single device or unknown);
    topology: the interconnect it is priced on (`Topology.describe()`), "" for none.
    by_fidelity: with fidelity="all" ("all+measured"), every available fidelity's
        totals (and the measured step's).
    model: the trained model that priced the kernels ("" for the roofline);
    featurizer_version: the featurizer the program was analyzed with.
    step_time_low_s / step_time_high_s: the learned model's 80 % interval of the step
        time (None for the roofline, or a bundle without a fitted step interval).
    peak_memory_bytes: the most one device holds at once during the step (arguments,
        results and the buffers live over the kernel schedule, `models.memory`);
        memory_capacity_bytes: the chip's; fits: peak <= capacity. memory: the peak's
        parts (argument_bytes, output_bytes, temporary_bytes).
    """

    program_name: str
    hardware: str
    fidelity: str
    step_time_s: float
    compute_s: float
    communication_s: float
    overhead_s: float
    flops: float
    fused_bytes_accessed: float
    kernels: tuple[KernelRow, ...]
    notes: tuple[str, ...] = ()
    exposed_communication_s: float = 0.0
    collectives: tuple[CollectiveRow, ...] = ()
    critical_path: tuple[int, ...] = ()
    mesh: Mapping[str, int] | None = None
    topology: str = ""
    num_devices: int = 1
    overlap: bool = True
    by_fidelity: Mapping[str, FidelityTotals] = field(
        default_factory=lambda: MappingProxyType({}))
    model: str = ""
    featurizer_version: str = ""
    step_time_low_s: float | None = None
    step_time_high_s: float | None = None
    peak_memory_bytes: float = 0.0
    memory_capacity_bytes: float = 0.0
    fits: bool = True
    memory: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        # read-only views, so a cached prediction cannot be changed by one caller
        for name in ("kernels", "notes", "collectives", "critical_path"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.mesh is not None:
            object.__setattr__(self, "mesh", MappingProxyType(dict(self.mesh)))
        object.__setattr__(self, "by_fidelity", MappingProxyType(dict(self.by_fidelity)))
        object.__setattr__(self, "memory", MappingProxyType(dict(self.memory)))

    def to_dict(self) -> dict[str, Any]:
        out = {
            "program_name": self.program_name,
            "hardware": self.hardware,
            "fidelity": self.fidelity,
            "step_time_s": self.step_time_s,
            "step_time_low_s": self.step_time_low_s,
            "step_time_high_s": self.step_time_high_s,
            "compute_s": self.compute_s,
            "communication_s": self.communication_s,
            "exposed_communication_s": self.exposed_communication_s,
            "overhead_s": self.overhead_s,
            "flops": self.flops,
            "fused_bytes_accessed": self.fused_bytes_accessed,
            "peak_memory_bytes": self.peak_memory_bytes,
            "memory_capacity_bytes": self.memory_capacity_bytes,
            "fits": self.fits,
            "memory": dict(self.memory),
            "mesh": dict(self.mesh) if self.mesh is not None else None,
            "num_devices": self.num_devices,
            "topology": self.topology,
            "overlap": self.overlap,
            "kernels": [k.to_dict() for k in self.kernels],
            "collectives": [c.to_dict() for c in self.collectives],
            "critical_path": list(self.critical_path),
            "by_fidelity": {k: v.to_dict() for k, v in self.by_fidelity.items()},
            "notes": list(self.notes),
            "model": self.model,
            "featurizer_version": self.featurizer_version,
        }
        for new, old in JSON_ALIASES.items():
            out[old] = out[new]
        return out



@dataclass(frozen=True)
class Candidate:
    """One system to predict a program on (see `predict_many`). `args` / `kwargs` are
    example arguments when `program` is a JAX function; `entry`, `shapes` and `dims`
    are as in `load_program` (the step function, static shapes for dynamic ones)."""

    program: Any
    hardware: str | Hardware | None = None
    mesh: Any = None
    topology: str | Topology | None = None
    fidelity: str | None = None
    overlap: bool | None = None
    args: tuple = ()
    kwargs: Mapping[str, Any] | None = None
    entry: str | None = None
    shapes: Mapping[Any, Any] | None = None
    dims: Mapping[str, int] | None = None
