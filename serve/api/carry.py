"""A step measured on one chip, carried to another by the ratio of their predictions.

A user who has timed a step on an H100 and asks about an H200 knows more than the
program: the measurement holds everything the models miss about this program (launch
overhead, library choices, kernels outside the training data), and most of that is the
same on a chip of the same kind. `carry_over` keeps it and lets the model say only how
the two chips differ:

    carried = measured_s x predicted(hardware) / predicted(measured_on)

Worked example: a step measured at 47.25 ms on H100-SXM, predicted at 42.0 ms there and
at 36.0 ms on H200-SXM, is carried to 47.25 x 36.0 / 42.0 = 40.5 ms on the H200. Every
time of the target's prediction (step, compute, communication, kernels, interval) is
scaled by measured / predicted on the reference chip, 47.25 / 42.0 = 1.125, so its
breakdown still adds up.

Judged on XLA:GPU steps measured on both an H100 and an H200 (`benchmarks/gpu_steps.py
--fit-data`, RESULTS.md): the other GPU's time carried by the learned ratio is 8.4-8.6 %
MAPE on the example workloads, against 17-19 % for the learned prediction alone and
13-15 % for quoting the other GPU's time unchanged.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ...errors import InvalidArgumentError
from ...hardware import Hardware
from .fidelity import resolve_hardware
from .predicting import predict
from .results import Prediction

CARRY_FIDELITIES = ("auto", "learned", "roofline")
_TIMES = ("time_s", "total_time_s", "time_low_s", "time_high_s")
_STEP_TIMES = ("step_time_s", "compute_s", "communication_s", "overhead_s",
               "exposed_communication_s", "step_time_low_s", "step_time_high_s")


def check_carry_fidelity(fidelity: str, what: str) -> None:
    """One-line error unless `fidelity` can be carried (`what` names the option)."""
    if fidelity not in CARRY_FIDELITIES:
        raise InvalidArgumentError(f"{what} goes with fidelity "
                                   f"{', '.join(CARRY_FIDELITIES)}; got {fidelity!r}")


def carry_over(program: Any, hardware: str | Hardware, measured_on: str | Hardware,
               measured_s: float, fidelity: str = "auto", **options: Any) -> Prediction:
    """`hardware`'s prediction of `program`, anchored on a step of it measured on
    `measured_on` (seconds). `options` are `predict`'s keyword arguments (mesh,
    topology, ...), applied to both chips: the measurement must be of the same step on
    as many devices."""
    check_carry_fidelity(fidelity, "carrying a measured step")
    if isinstance(measured_s, bool) or not isinstance(measured_s, (int, float)) \
            or not math.isfinite(measured_s) or measured_s <= 0:
        raise InvalidArgumentError(f"the measured step must be a positive number of "
                                   f"seconds, got {measured_s!r}")
    target = resolve_hardware(hardware, fidelity)
    reference = resolve_hardware(measured_on, fidelity)
    if target.kind != reference.kind:
        raise InvalidArgumentError(
            f"a step measured on {reference.name} ({reference.kind}) cannot be carried to "
            f"{target.name} ({target.kind}): carry between chips of one kind")
    there = predict(program, reference, fidelity, **options)
    here = predict(program, target, fidelity, **options)
    if there.step_time_s <= 0:
        raise InvalidArgumentError(f"{reference.name}'s prediction of the step is "
                                   f"{there.step_time_s!r} s: nothing to carry by")
    factor = measured_s / there.step_time_s
    note = (f"carried from a step measured on {reference.name} ({measured_s:.6g} s): "
            f"this chip's {here.fidelity} prediction x {factor:.3f} (measured / "
            f"{reference.name}'s {there.fidelity} prediction)")
    if here.fidelity != there.fidelity:
        note += (f"; the two chips are priced by different fidelities ({here.fidelity}, "
                 f"{there.fidelity}), so the ratio mixes models")
    return _scaled(here, factor, note)


def _scaled(p: Prediction, factor: float, note: str) -> Prediction:
    def times(row: Any) -> Any:
        return dataclasses.replace(row, **{name: getattr(row, name) * factor
                                           for name in _TIMES
                                           if getattr(row, name, None) is not None})

    steps = {name: getattr(p, name) * factor for name in _STEP_TIMES
             if getattr(p, name) is not None}
    return dataclasses.replace(p, **steps, kernels=tuple(times(k) for k in p.kernels),
                               collectives=tuple(times(c) for c in p.collectives),
                               notes=(*p.notes, note))
