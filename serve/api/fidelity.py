"""Which fidelity prices a prediction: the names `fidelity=` accepts (auto, every
registered `CostModel`, all, all+measured), the chip a name resolves to, and
`predict_prepared`, which turns auto/all into cost models and assembles the step with
each.

`all` shows every fidelity that prices the chip, but not those that run the program
(the measured fidelity: seconds per program, where tuners call `all` in loops);
`all+measured` adds them, and leaves one out with a note when it cannot run the program
here (another chip than this machine's, too many devices, a compile error)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ...errors import InvalidArgumentError, MeasurementError, UnknownHardwareError
from ...featurize.gcpause import gc_paused
from ...hardware import Hardware, get_hardware
from ...models import cost_model
from ...models.comm.topology import Topology
from .cache import PreparedProgram
from .results import FidelityTotals, Prediction
from .step import predict_step

ALL_MEASURED = "all+measured"


def fidelities(*, run: bool = True) -> tuple[str, ...]:
    """What `fidelity=` accepts: auto, every registered cost model, all, all+measured;
    without the ones that run the program when `run` is false (the HTTP service)."""
    if not run:
        return ("auto", *(n for n in cost_model.names()
                          if not cost_model.runs_program(cost_model.get(n))), "all")
    return ("auto", *cost_model.names(), "all", ALL_MEASURED)


def check_fidelity(fidelity: Any, *, run: bool = True) -> str:
    allowed = fidelities(run=run)
    if fidelity not in allowed:
        if not run and fidelity in fidelities():
            raise InvalidArgumentError(
                f"fidelity {fidelity!r} runs the program on this machine, which this "
                f"service does not do; allowed: {', '.join(allowed)}")
        raise InvalidArgumentError(
            f"unknown fidelity {fidelity!r}; allowed: {', '.join(allowed)}")
    return fidelity


def resolve_hardware(hardware: str | Hardware, fidelity: str) -> Hardware:
    """The chip's spec; `host-cpu` without a local calibration falls back to the spec
    its bundled learned model was trained with, when one ships."""
    try:
        return get_hardware(hardware)
    except UnknownHardwareError:
        if fidelity == "roofline" or not isinstance(hardware, str):
            raise
        from ...models.learned import bundled_hardware

        hw = bundled_hardware(hardware)
        if hw is None:
            raise
        return hw


def predict_prepared(entry: PreparedProgram, hw: Hardware, fidelity: str,
                     topology: str | Topology | None, overlap: bool) -> Prediction:
    """Resolve auto / all into cost models and predict a prepared program (its kernels
    as the chip's XLA backend fuses them).

    A first prediction of a program builds a program's worth of small objects (its
    kernel graph, liveness, a row per kernel): it runs with the cyclic collector paused,
    as loading does (`featurize.gcpause`), except where a fidelity times the program on
    this machine, which it does with the collector as it is."""
    if fidelity in ("measured", ALL_MEASURED):
        return _predict_prepared(entry, hw, fidelity, topology, overlap)
    return _predict_prepared_paused(entry, hw, fidelity, topology, overlap)


def _predict_prepared(entry: PreparedProgram, hw: Hardware, fidelity: str,
                      topology: str | Topology | None, overlap: bool) -> Prediction:
    entry = entry.for_chip(hw)
    if fidelity not in ("auto", "all", ALL_MEASURED):
        return predict_step(entry, hw, cost_model.get(fidelity), topology, overlap)
    chosen = cost_model.auto(hw)
    if fidelity == "auto":
        return predict_step(entry, hw, chosen, topology, overlap)
    run = fidelity == ALL_MEASURED
    shown = cost_model.covering(hw, run=run)
    by_fidelity = {}
    notes = []
    if run:
        from ...models.measured import local_hardware

        notes += [f"{name}: left out: it runs programs on this machine's backend "
                  f"({local_hardware()}), not on {hw.name}" for name in cost_model.names()
                  if cost_model.runs_program(cost_model.get(name))
                  and name not in {m.name for m in shown}]
    for model in shown:
        try:
            p = predict_step(entry, hw, model, topology, overlap)
        except MeasurementError as exc:
            notes.append(f"{model.name}: left out: {exc}")
            continue
        by_fidelity[model.name] = FidelityTotals(
            p.step_time_s, p.compute_s, p.communication_s, p.exposed_communication_s)
    if [m.name for m in shown if not cost_model.runs_program(m)] == ["roofline"]:
        notes.append(f"no learned model for {hw.name}: only the roofline is shown")
    elif _is_bundled_spec(hw):
        notes.append(
            f"{hw.name} is not calibrated on this machine: the roofline in by_fidelity "
            "uses the spec the bundled model was trained with (`stablecost hardware "
            "calibrate` measures this one)")
    result = predict_step(entry, hw, chosen, topology, overlap, tuple(notes))
    return dataclasses.replace(result, by_fidelity=by_fidelity)


_predict_prepared_paused = gc_paused(_predict_prepared)


def _is_bundled_spec(hw: Hardware) -> bool:
    """Whether `hw` is a bundle's training spec (resolve_hardware's fallback)."""
    from ...models.learned import bundle_path

    return Path(hw.path) == bundle_path(hw.name) / "kernel_xgb" / "hardware.toml"


