"""Step assembly: a prepared program's kernels priced by one cost model, its
collectives priced on a topology, both scheduled on a compute and a communication
stream (`models.schedule`), and the `Prediction` built from the schedule.

Whatever the fidelity, the step is put together the same way; only the compute
kernels' times come from the chosen `CostModel`.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from ...errors import InvalidArgumentError
from ...featurize.program import FEATURIZER_VERSION
from ...hardware import Hardware
from ...models.comm.combine import combine_collectives
from ...models.comm.pricing import CollectiveRow, price_collectives
from ...models.comm.topology import Topology
from ...models.comm.topology_spec import parse_topology
from ...models.cost_model import CostModel, KernelEstimate, memo_key
from ...models.roofline import kernel_times
from ...models.schedule import Schedule, list_schedule
from .cache import PreparedProgram, hardware_key
from .results import KernelRow, Prediction


class KernelRows(NamedTuple):
    """Every kernel of a program on one chip at one fidelity (collective rows are
    placeholders until a topology prices them)."""

    rows: tuple[KernelRow, ...]
    durations_s: tuple[float, ...]    # per kernel, x count
    overhead_s: float
    note: str
    model: str
    compute_low_s: float | None      # the model's 80 % interval of the compute time
    compute_high_s: float | None
    communication_included: bool     # the model's step holds the communication too


def kernel_rows(entry: PreparedProgram, hw: Hardware, model: CostModel) -> KernelRows:
    return entry.memoized(("kernels", hardware_key(hw), memo_key(model, hw)),
                          lambda: _kernel_rows(entry, hw, model))


def _kernel_rows(entry: PreparedProgram, hw: Hardware, model: CostModel) -> KernelRows:
    analysis = entry.analysis
    program = analysis.program
    roofline = kernel_times(analysis.kernels, program, hw)
    estimate = model.estimate(analysis, hw, roofline)
    rows: list[KernelRow] = []
    durations: list[float] = []
    has_compute = not all(entry.is_collective)
    overhead_s = estimate.floor_s if has_compute else 0.0
    fell_back = estimate.analytical_kernels
    for i, (kernel, t) in enumerate(zip(analysis.kernels, roofline)):
        priced_by_model = not entry.is_collective[i] and not estimate.analytical and not (
            fell_back is not None and fell_back[i])
        time_s = float(estimate.time_s[i]) if priced_by_model else t.time_s
        low = high = None
        if priced_by_model and estimate.low_s is not None and estimate.high_s is not None:
            low, high = float(estimate.low_s[i]), float(estimate.high_s[i])
        if not priced_by_model:
            overhead_s += t.overhead_s * kernel.count
        total = time_s * kernel.count
        durations.append(total)
        rows.append(KernelRow(
            kernel.index, kernel.kind, tuple(program.ops[j].opcode for j in kernel.ops),
            program.ops[kernel.root].location, kernel.count, kernel.flops,
            kernel.bytes_accessed, time_s, total, t.compute_s, t.memory_s, t.bound, low, high))
    durations, scale = _fit_to_step(durations, entry.is_collective, estimate)
    if scale != 1.0:   # the rows add up to the step the step model priced
        rows = [r if entry.is_collective[i] else _scaled(r, scale) for i, r in enumerate(rows)]
    return KernelRows(tuple(rows), tuple(durations), overhead_s, estimate.note, estimate.model,
                      estimate.step_low_s, estimate.step_high_s,
                      estimate.communication_included)



def _fit_to_step(durations: list[float], is_collective: list[bool], estimate: KernelEstimate
                 ) -> tuple[list[float], float]:
    """Put the per-call floor on the first compute kernel and, when the model priced the
    whole step, scale the compute kernels so that they add up to it. Returns the
    durations and the scale applied to the compute kernels."""
    compute = [i for i, c in enumerate(is_collective) if not c]
    if not compute:
        return durations, 1.0
    out = list(durations)
    scale = 1.0
    total = sum(durations[i] for i in compute)
    if estimate.step_s is not None and total > 0 and estimate.step_s - estimate.floor_s > 0:
        scale = (estimate.step_s - estimate.floor_s) / total
        for i in compute:
            out[i] *= scale
    out[compute[0]] += estimate.floor_s
    return out, scale


def _scaled(row: KernelRow, scale: float) -> KernelRow:
    low = None if row.time_low_s is None else row.time_low_s * scale
    high = None if row.time_high_s is None else row.time_high_s * scale
    return dataclasses.replace(row, time_s=row.time_s * scale,
                               total_time_s=row.total_time_s * scale,
                               time_low_s=low, time_high_s=high)


def topology_for(entry: PreparedProgram, hw: Hardware, spec: str | Topology | None
                 ) -> tuple[Topology | None, str | None]:
    """The topology the program's collectives are priced on, and a note about it."""
    if spec is None and entry.devices <= 1:
        return None, None
    try:
        topology = parse_topology(spec, hw, entry.devices)
    except InvalidArgumentError as exc:
        if spec is not None:
            raise
        if not entry.has_collectives:
            return None, None
        return None, f"communication is not priced: {exc}"
    if spec is not None and not entry.has_collectives:
        return topology, (f"the topology ({topology.describe()}) changes nothing: the "
                          "program has no collectives")
    return topology, None


def _collective_rows(entry: PreparedProgram, topology: Topology | None
                     ) -> tuple[list[CollectiveRow], list[str]]:
    if topology is None:
        return [], []

    def price() -> tuple[list[CollectiveRow], list[str]]:
        analysis = entry.analysis
        rows, notes = price_collectives(analysis.kernels, analysis.program, topology)
        rows, note = combine_collectives(rows, analysis.kernels, entry.dependencies,
                                         entry.order, topology)
        return rows, notes + ([note] if note else [])

    return entry.memoized(("collectives", topology), price)


class _Step(NamedTuple):
    rows: tuple[KernelRow, ...]
    collectives: tuple[CollectiveRow, ...]
    schedule: Schedule
    overhead_s: float
    notes: tuple[str, ...]
    model: str
    compute_low_s: float | None
    compute_high_s: float | None


def predict_step(entry: PreparedProgram, hw: Hardware, model: CostModel,
                 topology_spec: str | Topology | None, overlap: bool,
                 notes: tuple[str, ...] = ()) -> Prediction:
    """One step of `entry` on `hw`, its kernels priced by `model`; `notes` are added."""
    topology, topology_note = topology_for(entry, hw, topology_spec)
    step: _Step = entry.memoized(
        ("step", hardware_key(hw), memo_key(model, hw), topology, topology_note, overlap),
        lambda: _assemble(entry, hw, model, topology, topology_note, overlap))
    analysis = entry.analysis
    schedule = step.schedule
    memory = entry.memory
    capacity = hw.memory_capacity_bytes
    fits = memory.peak_bytes <= capacity
    notes = notes + memory_notes(entry, memory.peak_bytes, capacity, hw.name)
    low = high = None
    if step.compute_low_s is not None and step.compute_high_s is not None:
        outside_s = schedule.step_time_s - schedule.compute_s   # exposed communication
        low, high = outside_s + step.compute_low_s, outside_s + step.compute_high_s
    return Prediction(
        program_name=analysis.program.source, hardware=hw.name, fidelity=model.name,
        step_time_s=schedule.step_time_s, compute_s=schedule.compute_s,
        communication_s=schedule.communication_s, overhead_s=step.overhead_s,
        flops=analysis.flops, fused_bytes_accessed=analysis.fused_bytes_accessed,
        kernels=step.rows, notes=step.notes + tuple(notes),
        exposed_communication_s=schedule.exposed_communication_s,
        collectives=step.collectives, critical_path=tuple(schedule.critical_path),
        mesh=entry.mesh, topology=topology.describe() if topology is not None else "",
        num_devices=entry.devices, overlap=overlap, model=step.model,
        featurizer_version=FEATURIZER_VERSION, step_time_low_s=low, step_time_high_s=high,
        peak_memory_bytes=memory.peak_bytes, memory_capacity_bytes=capacity, fits=fits,
        memory={"argument_bytes": memory.argument_bytes,
                "output_bytes": memory.output_bytes,
                "temporary_bytes": memory.temporary_bytes})


def memory_notes(entry: PreparedProgram, peak_bytes: float, capacity_bytes: float,
                 chip: str) -> tuple[str, ...]:
    """What a prediction says about its memory: that it does not fit, that it is the
    global program's."""
    out = []
    if peak_bytes > capacity_bytes:
        out.append(f"does not fit: the step needs {peak_bytes / 1e9:.3g} GB per device at "
                   f"its peak, {chip} has {capacity_bytes / 1e9:.3g} GB")
    if entry.analysis.program.sharded_module is not None:
        out.append("peak_memory_bytes is the global (unpartitioned) program's; pass mesh= "
                   "(--mesh) for one device's")
    return tuple(out)


def _assemble(entry: PreparedProgram, hw: Hardware, model: CostModel,
              topology: Topology | None, topology_note: str | None, overlap: bool) -> _Step:
    priced = kernel_rows(entry, hw, model)
    rows, durations = list(priced.rows), list(priced.durations_s)
    notes: list[str] = list(entry.analysis.notes) + ([priced.note] if priced.note else [])
    if topology_note:
        notes.append(topology_note)
    collectives: list[CollectiveRow] = []
    if entry.has_collectives and priced.communication_included:
        # a measured step: its communication ran inside it, none is added on top
        notes.append("the measured step includes its communication: collectives are "
                     "not priced separately")
        for i, collective in enumerate(entry.is_collective):
            if collective:
                rows[i] = dataclasses.replace(
                    rows[i], time_s=0.0, total_time_s=0.0, compute_s=0.0, memory_s=0.0,
                    bound="communication", time_low_s=None, time_high_s=None)
                durations[i] = 0.0
    elif entry.has_collectives:
        collectives, comm_notes = _collective_rows(entry, topology)
        notes.extend(comm_notes)
        for c in collectives:
            old = rows[c.kernel]
            rows[c.kernel] = dataclasses.replace(
                old, time_s=c.time_s, total_time_s=c.total_time_s, compute_s=0.0,
                memory_s=0.0, bound="communication", time_low_s=None, time_high_s=None)
            durations[c.kernel] = c.total_time_s
    schedule = list_schedule(durations, entry.is_collective, entry.dependencies,
                             entry.order, overlap)
    return _Step(tuple(rows), tuple(collectives), schedule, priced.overhead_s, tuple(notes),
                 priced.model, priced.compute_low_s, priced.compute_high_s)
