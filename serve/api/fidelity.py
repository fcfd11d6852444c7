"""Which fidelity prices a prediction: the names `fidelity=` accepts (auto, every
registered `CostModel`, all), the chip a name resolves to, and `predict_prepared`,
which turns auto/all into cost models and assembles the step with each."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ...errors import InvalidArgumentError, UnknownHardwareError
from ...hardware import Hardware, get_hardware
from ...models import cost_model
from ...models.comm.topology import Topology
from .cache import PreparedProgram
from .results import FidelityTotals, Prediction
from .step import predict_step


def fidelities() -> tuple[str, ...]:
    """What `fidelity=` accepts: auto, every registered cost model, all."""
    return ("auto", *cost_model.names(), "all")


def check_fidelity(fidelity: Any) -> str:
    if fidelity not in fidelities():
        raise InvalidArgumentError(
            f"unknown fidelity {fidelity!r}; allowed: {', '.join(fidelities())}")
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
    """Resolve auto / all into cost models and predict a prepared program."""
    if fidelity not in ("auto", "all"):
        return predict_step(entry, hw, cost_model.get(fidelity), topology, overlap)
    chosen = cost_model.auto(hw)
    if fidelity == "auto":
        return predict_step(entry, hw, chosen, topology, overlap)
    shown = cost_model.covering(hw)
    by_fidelity = {}
    for model in shown:
        p = predict_step(entry, hw, model, topology, overlap)
        by_fidelity[model.name] = FidelityTotals(
            p.step_time_s, p.compute_s, p.communication_s, p.exposed_communication_s)
    notes = []
    if [m.name for m in shown] == ["roofline"]:
        notes.append(f"no learned model for {hw.name}: only the roofline is shown")
    elif _is_bundled_spec(hw):
        notes.append(
            f"{hw.name} is not calibrated on this machine: the roofline in by_fidelity "
            "uses the spec the bundled model was trained with (`stablecost hardware "
            "calibrate` measures this one)")
    result = predict_step(entry, hw, chosen, topology, overlap, tuple(notes))
    return dataclasses.replace(result, by_fidelity=by_fidelity)


def _is_bundled_spec(hw: Hardware) -> bool:
    """Whether `hw` is a bundle's training spec (resolve_hardware's fallback)."""
    from ...models.learned import bundle_path

    return Path(hw.path) == bundle_path(hw.name) / "kernel_xgb" / "hardware.toml"


