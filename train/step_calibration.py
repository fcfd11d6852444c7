"""Fit the step calibration (models/step_calibration.py) on a dataset's programs.

    python -m stablecost.train.step_calibration --data data/cpu [--write]

Every program row outside the test split is priced by the bundle's per-kernel model,
its kernels summed per group (S_g, L_g), and the five terms are fitted by bounded least
squares on the relative error (each row divided by its measured time, so a 100 ms step
weighs as much as a 1 ms one): the floor and the scales non-negative, the per-launch
terms free. The 80 % interval comes from leave-one-family-out residuals (the fit
repeated without each family, that family priced), so it describes programs of a kind
the fit never saw. Printed: the terms, and the calibration's MAPE on the test split
beside the roofline's and the kernel sum's on the same rows.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..datasets import store
from ..errors import ModelError
from ..models.coverage import table_uncovered_rows, uncovered_rows
from ..models.learned import bundle_path, load_kernel_model
from ..models.step_calibration import (
    GROUPS,
    MODEL_NAME,
    StepCalibration,
    kernel_groups,
    physical_floor_s,
)
from . import metrics
from .data import dataset_hardware, featurize_rows, load_frame, pick_dataset, stderr_progress

COVERAGE = 0.8
# programs whose roofline-priced kernels take this share of the measured step or more
# are left out of the calibration's fit (`fit_on`)
FIXED_SHARE = 0.5


@dataclass(frozen=True)
class ProgramSums:
    """Per program: the group sums the calibration is linear in, and what it is fit to."""

    seconds: np.ndarray       # (programs, groups) executions x predicted kernel seconds
    launches: np.ndarray      # (programs, groups) executions
    kernels: np.ndarray       # priced kernels per program
    measured_s: np.ndarray
    roofline_s: np.ndarray    # summed kernel roofline
    family: np.ndarray
    split: np.ndarray
    # seconds priced outside the calibration: the roofline time of kernels the kernel
    # model does not cover (`models.coverage`), added to the step as they are
    fixed_s: np.ndarray | None = None
    # (programs, groups) executions x physical floor seconds (`physical_floor_s`)
    physical: np.ndarray | None = None

    def take(self, rows: np.ndarray) -> "ProgramSums":
        """The same sums of `rows` only (indices or a boolean mask)."""
        def pick(value: np.ndarray | None) -> Any:
            return None if value is None else value[rows]
        return ProgramSums(*(pick(getattr(self, name)) for name in self.__dataclass_fields__))

    def fit_target_s(self) -> np.ndarray:
        """What the calibration's terms are fitted to: the measured step less the fixed
        seconds (kept at a twentieth of the step or more)."""
        if self.fixed_s is None:
            return self.measured_s
        return np.maximum(self.measured_s - self.fixed_s, 0.05 * self.measured_s)

    def design(self) -> np.ndarray:
        """Columns: 1, then per group S_g and L_g."""
        columns = [np.ones(len(self.measured_s))]
        for g in range(len(GROUPS)):
            columns += [self.seconds[:, g], self.launches[:, g]]
        return np.stack(columns, axis=1)


@dataclass
class PricedRows:
    """Every priced kernel row of a frame of programs (`featurize_rows` order), on the
    spec the kernel model prices with, with the kernel model's answers."""

    X: np.ndarray              # kernel features
    roofline_s: np.ndarray     # per execution
    count: np.ndarray          # executions per step
    sample: np.ndarray         # owning program (index into `samples`)
    predicted_s: np.ndarray    # the kernel model's seconds per execution
    outside: np.ndarray        # priced by the roofline instead (`models.coverage`)
    samples: Any               # the program rows featurized (pandas)
    analyses: list[Any] | None = None

    def without_programs(self, drop: np.ndarray) -> "PricedRows":
        """The same rows without the programs where `drop` (one bool per program) is
        set, the rest renumbered in order."""
        drop = np.asarray(drop, dtype=bool)
        kept = ~drop[self.sample]
        number = np.cumsum(~drop) - 1
        return PricedRows(
            self.X[kept], self.roofline_s[kept], self.count[kept], number[self.sample[kept]],
            self.predicted_s[kept], self.outside[kept],
            self.samples[~drop].reset_index(drop=True),
            None if self.analyses is None else
            [a for a, d in zip(self.analyses, drop) if not d])


def priced_rows(frame: Any, hw: Any, models: Any, *, progress: bool = True,
                keep_analyses: bool = False, spec: Any = None) -> PricedRows:
    """Featurize the program rows on the spec the kernel model prices with (`spec` when
    given, else `models.pricing_hardware(hw)` on this machine) and price every kernel
    with it; kernels it does not cover there (`models.coverage`) are marked `outside`,
    as `models.learned.predict_kernels` prices them by the roofline."""
    priced_hw = spec if spec is not None else models.pricing_hardware(hw)[0]
    table = models.coverage
    f, analyses = featurize_rows(
        frame, priced_hw, keep_analyses=keep_analyses or table is not None,
        progress=stderr_progress("featurized programs") if progress else None)
    if f.failures:
        raise ModelError(f"{len(f.failures)} program rows did not featurize, e.g. "
                         f"{f.failures[0]}")
    predicted = np.asarray(models.kernel.predict(f.X, f.roofline_s), dtype=np.float64)
    outside: np.ndarray | None
    if table is not None and analyses is not None:    # a GPU bundle's kernel classes
        ranges = models.kernel_meta.get("ranges")
        outside = table_uncovered_rows(analyses, priced_hw, table, f.X,
                                       ranges if isinstance(ranges, dict) else None)
    else:
        outside = uncovered_rows(f.cpu_kind, priced_hw, models.kernel_meta)
    if outside is None:
        outside = np.zeros(len(predicted), dtype=bool)
    return PricedRows(f.X, f.roofline_s, f.count, f.sample, predicted, outside, f.samples,
                      analyses if keep_analyses else None)


def sums_of(rows: PricedRows, corrector: Any = None) -> ProgramSums:
    """Each program's group sums of `rows`, the kernel model's answers moved to their
    in-step times by `corrector` (`models.in_step`) where one is given, as
    `predict_kernels` feeds the calibration."""
    predicted = rows.predicted_s
    inside_rows = ~rows.outside
    if corrector is not None and inside_rows.any():
        predicted = predicted.copy()
        predicted[inside_rows] = corrector.correct(
            rows.X[inside_rows], predicted[inside_rows], rows.count[inside_rows],
            rows.sample[inside_rows])
    groups = kernel_groups(rows.X)
    n, k = len(rows.samples), len(GROUPS)
    cell = rows.sample * k + groups
    inside = rows.count * inside_rows
    seconds = np.bincount(cell, inside * predicted, minlength=n * k).reshape(n, k)
    launches = np.bincount(cell, inside, minlength=n * k).reshape(n, k)
    physical = np.bincount(cell, inside * physical_floor_s(rows.X),
                           minlength=n * k).reshape(n, k)
    samples = rows.samples
    return ProgramSums(seconds, launches, np.bincount(rows.sample, minlength=n),
                       samples["median_s"].to_numpy(np.float64),
                       np.bincount(rows.sample, rows.count * rows.roofline_s, minlength=n),
                       samples["family"].to_numpy(), samples["split"].to_numpy(),
                       np.bincount(rows.sample, rows.count * rows.outside * rows.roofline_s,
                                   minlength=n),
                       physical)


def program_sums(frame: Any, hw: Any, models: Any, *, progress: bool = True) -> ProgramSums:
    """Each program's group sums (`sums_of`) of the rows of `frame`, priced as
    `priced_rows` prices them (no in-step correction)."""
    return sums_of(priced_rows(frame, hw, models, progress=progress))


def fit_terms(design: np.ndarray, measured_s: np.ndarray, *,
              pin_scales: bool = False) -> np.ndarray:
    """(floor, then scale and per-launch seconds per group) minimizing squared relative
    error, floor and scales >= 0; `pin_scales` keeps the scales at 1 and fits the floor
    and per-launch terms alone (GPU data: see `fit_step_calibration`)."""
    from scipy.optimize import lsq_linear

    if len(measured_s) < design.shape[1] * 3:
        raise ModelError(f"{len(measured_s)} programs are too few to fit the step "
                         f"calibration's {design.shape[1]} terms (at least "
                         f"{design.shape[1] * 3})")
    lower = np.zeros(design.shape[1])
    lower[2::2] = -np.inf                        # the per-launch terms
    upper = np.full(design.shape[1], np.inf)
    if pin_scales:
        lower[1::2], upper[1::2] = 1.0, 1.0 + 1e-12
    weight = 1.0 / measured_s
    return lsq_linear(design * weight[:, None], measured_s * weight,
                      bounds=(lower, upper)).x


def fit_on(sums: ProgramSums, rows: np.ndarray, *, pin_scales: bool = False) -> np.ndarray:
    """`fit_terms` over `rows` of `sums`, leaving out the programs whose kernels priced
    by the roofline (`fixed_s`) take FIXED_SHARE of the measured step or more: their
    calibrated part is what is left of the step, a few percent of it, and fitted
    relative to it, it pulled every term (on the Intel machine's decoder_cnn programs,
    whose loop-nest convolutions are priced at the loop rate, held out by family:
    33.1 % with them, 30.1 % without; benchmarks/RESULTS.md)."""
    rows = np.asarray(rows)
    if rows.dtype == bool:
        rows = np.flatnonzero(rows)
    if sums.fixed_s is not None:
        kept = rows[sums.fixed_s[rows] < FIXED_SHARE * sums.measured_s[rows]]
        if len(kept) >= (1 + 2 * len(GROUPS)) * 3:    # else every row, as before
            rows = kept
    return fit_terms(sums.design()[rows], sums.fit_target_s()[rows], pin_scales=pin_scales)


def calibration_from(terms: np.ndarray, **kwargs: Any) -> StepCalibration:
    return StepCalibration(floor_s=float(terms[0]),
                           scale=tuple(float(v) for v in terms[1::2]),
                           per_launch_s=tuple(float(v) for v in terms[2::2]), **kwargs)


def predict_sums(calibration: StepCalibration, sums: ProgramSums) -> np.ndarray:
    """The calibration's step seconds of every program of `sums` (as `step_s` prices one)."""
    physical = np.zeros_like(sums.seconds) if sums.physical is None else sums.physical
    parts = calibration.group_parts(sums.seconds, sums.launches, physical)
    fixed = 0.0 if sums.fixed_s is None else sums.fixed_s
    return calibration.floor_s + parts.sum(axis=1) + fixed


def held_out_log_ratios(sums: ProgramSums, rows: np.ndarray, *,
                        pin_scales: bool = False) -> np.ndarray:
    """log(measured / predicted) of each of `rows`, priced by a fit without its family."""
    out = np.zeros(len(rows))
    for family in sorted(set(sums.family[rows].tolist())):
        held = rows[sums.family[rows] == family]
        fit_rows = rows[sums.family[rows] != family]
        calibration = calibration_from(fit_on(sums, fit_rows, pin_scales=pin_scales))
        predicted = predict_sums(calibration, sums.take(held))
        out[np.searchsorted(rows, held)] = np.log(sums.measured_s[held] / predicted)
    return out




def _shared_gpu_model(hardware: str) -> Any:
    """The shared GPU bundle's kernel model, for a GPU with no bundle of its own (the
    one `models.learned.models_for` prices it with); None for any other chip."""
    from ..hardware import get_hardware
    from ..models.learned import GPU_BUNDLE

    if get_hardware(hardware).kind != "gpu":
        return None
    return load_kernel_model(GPU_BUNDLE)


def calibration_bundle(hardware: str) -> Path:
    """Where the step calibration of `hardware`'s data goes: its own bundle, or the
    shared GPU bundle that prices it."""
    own = bundle_path(hardware)
    if (own / "kernel_xgb").is_dir() or _shared_gpu_model(hardware) is None:
        return own
    from ..models.learned import GPU_BUNDLE

    return bundle_path(GPU_BUNDLE)


def fit_step_calibration(data: str | Path, *, hardware: str | None = None, seed: int = 0,
                         models: Any = None, pin_scales: bool = False
                         ) -> tuple[StepCalibration, dict[str, Any]]:
    """The calibration for the bundle of `data`'s hardware, and a report of its fit.

    `pin_scales` fits the floor and per-launch terms with the scales held at 1: on
    data whose programs are all short (the zoo takes 0.1-1 ms on an H100), a scale and
    a per-launch term cannot be told apart, and free scales fitted there (0.32 and 0.05
    on the H100) shrink long steps (`benchmarks/gpu_steps.py` compares both)."""
    dataset = pick_dataset(data, hardware)
    info = store.DatasetInfo.read(dataset)
    models = models or load_kernel_model(info.hardware) or _shared_gpu_model(info.hardware)
    if models is None:
        raise ModelError(f"no bundled kernel model for {info.hardware}: train one first "
                         "(`stablecost train xgboost`)")
    hw = dataset_hardware(dataset)
    pin = pin_scales
    sums = program_sums(load_frame(dataset, "program", seed=seed), hw, models)
    fit_rows = np.flatnonzero(sums.split != "test")
    test = np.flatnonzero(sums.split == "test")
    terms = fit_on(sums, fit_rows, pin_scales=pin)
    residuals = held_out_log_ratios(sums, fit_rows, pin_scales=pin)
    low, high = (float(q) for q in np.quantile(residuals, [(1 - COVERAGE) / 2,
                                                            (1 + COVERAGE) / 2]))
    meta = {"dataset": info.path.name, "fitted_rows": int(len(fit_rows)),
            "pinned_scales": bool(pin),
            "kernel_model": {"data_digest": models.kernel_meta.get("data_digest")},
            "hardware": info.hardware}
    calibration = calibration_from(terms, min_kernels=int(sums.kernels[fit_rows].min()),
                                   interval_log_ratio=(low, high), meta=meta)
    rows = sums.take(test)
    predicted = predict_sums(calibration, rows)
    kernel_sum = models.floor_s + rows.seconds.sum(axis=1) + (
        0.0 if rows.fixed_s is None else rows.fixed_s)
    report = {"terms": {"floor_us": calibration.floor_s * 1e6,
                        **{f"{g}_scale": s for g, s in zip(GROUPS, calibration.scale)},
                        **{f"{g}_per_launch_us": v * 1e6
                           for g, v in zip(GROUPS, calibration.per_launch_s)}},
              "held_out_family_mape": float(np.mean(np.abs(np.expm1(-residuals)))),
              "interval_log_ratio": [low, high],
              "test": {name: metrics.summary(rows.measured_s, values)["mape"]
                       for name, values in (("calibration", predicted),
                                            ("kernel_sum", kernel_sum),
                                            ("roofline", rows.roofline_s))},
              "test_n": int(len(test))}
    calibration = StepCalibration(**{**calibration.__dict__,
                                     "meta": {**meta, "metrics": report}})
    return calibration, report


def train_step_calibration(data: str | Path, *, hardware: str | None = None, seed: int = 0,
                           save: str | Path | None = None, tracking_uri: str | None = None,
                           experiment: str = "stablecost") -> tuple[Path, dict[str, Any]]:
    """`stablecost train calibration`: fit, log an MLflow run (terms and test metrics),
    save into `save` (default: the bundle of the dataset's hardware). Returns where it
    was saved and the report."""
    import mlflow

    from . import tracking

    calibration, report = fit_step_calibration(data, hardware=hardware, seed=seed)
    hardware_name = str(calibration.meta["hardware"])
    target = Path(save) if save else calibration_bundle(hardware_name) / MODEL_NAME
    tracking.configure(tracking_uri, experiment)
    with mlflow.start_run(run_name=f"step-calibration-{hardware_name}"):
        mlflow.log_params({"model": MODEL_NAME, "dataset": calibration.meta["dataset"],
                           "hardware": hardware_name, "seed": seed,
                           "kernel_model": calibration.meta["kernel_model"]["data_digest"]})
        mlflow.log_metrics({**{f"term_{k}": float(v) for k, v in report["terms"].items()},
                            "held_out_family_mape": report["held_out_family_mape"],
                            **{f"test_mape_{k}": float(v) for k, v in report["test"].items()}})
        calibration.save(target)
        mlflow.log_artifacts(str(target), artifact_path=MODEL_NAME)
    return target, report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="data/cpu")
    parser.add_argument("--hardware", default=None)
    parser.add_argument("--pin-scales", action="store_true",
                        help="hold the scales at 1, fit the floor and per-launch terms")
    parser.add_argument("--write", action="store_true",
                        help=f"save it into the bundle ({MODEL_NAME}/)")
    args = parser.parse_args(argv)
    calibration, report = fit_step_calibration(args.data, hardware=args.hardware,
                                               pin_scales=args.pin_scales)
    print(json.dumps(report, indent=1))
    if args.write:
        hardware = store.DatasetInfo.read(pick_dataset(args.data, args.hardware)).hardware
        print(f"wrote {calibration.save(calibration_bundle(hardware) / MODEL_NAME)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
