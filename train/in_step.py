"""Fit the in-step corrector (models/in_step.py) on profiled steps of one or more machines.

    python -m stablecost.train.in_step [--data DIR ...] [--hardware host-cpu] [--write]
    stablecost train in-step [--data DIR ...] [--save DIR]

Every program of each dataset that holds step profiles (`stablecost collect profiles`)
is featurized on the spec `predict` prices that machine with (the bundle's own spec for
the bundle's own dataset, else the dataset's `hardware.toml`), every kernel priced by the
bundled kernel model, and its in-step time read from the profile. The corrector's trees
are fitted to log(in-step / predicted) over every kernel the kernel model covers, of
every program outside the test splits, each kernel weighted by its share of its step.
Default data: every dataset under `data/` of the bundle's chip with step profiles.

Printed beside the fit: the step-share-weighted mean |log(in-step / predicted)| before
and after correction, in sample and with the program families held out (five folds, by
family): the corrector's reach on kinds of program it did not see. Whether the steps
it composes are closer is `benchmarks/leave_one_family_out.py`'s question.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..datasets import store
from ..errors import DatasetError, InvalidArgumentError, ModelError
from ..models.in_step import (
    BASES,
    MODEL_NAME,
    InStepCorrector,
    corrector_inputs,
    fit_corrector,
    in_step_base,
)
from ..models.learned import bundle_path, load_kernel_model
from .data import dataset_hardware, load_frame, pick_dataset
from .step_calibration import PricedRows, priced_rows

FOLDS = 5
# the floor under the kernel model's answer the bundle's trees correct (`--floor`;
# `models.in_step.BASES`): the answer raised to the roofline's memory time on non-dot
# kernels run once per step that move 1 MiB or more (benchmarks/RESULTS.md, "A memory-time
# floor under large kernels"); the floor on every non-dot kernel ("roofline") had failed
# a blind set on small kernels run thousands of times
DEFAULT_FLOOR = "large"
# a kernel row's weight is its share of its step: this much of it by its in-step time,
# the rest by the time the trees correct. All of it by in-step time (the kernels a step
# spends its time in) held out by family on the Intel machine: 29.7 % against 29.6 %
# (benchmarks/corrector_variants.py --in-step-weight 1, benchmarks/RESULTS.md)
IN_STEP_SHARE = 0.5


@dataclass
class Profiled:
    """One dataset's priced kernel rows (`PricedRows`) with each row's in-step seconds
    per execution (NaN where its program has no usable profile)."""

    name: str
    rows: PricedRows
    in_step_s: np.ndarray
    machine: str = ""      # the fingerprint id of the machine that profiled it
    # the programs left out for a loop that may stop on its data (`exits_early`)
    left_out: tuple[str, ...] = ()

    @property
    def family(self) -> np.ndarray:        # per kernel row
        return self.rows.samples["family"].to_numpy()[self.rows.sample]

    @property
    def split(self) -> np.ndarray:         # per kernel row
        return self.rows.samples["split"].to_numpy()[self.rows.sample]


def pricing_spec(dataset: Path, models: Any) -> Any:
    """The spec `predict` prices `dataset`'s machine with: the bundle's own spec for the
    dataset its kernel model was trained on, that machine's calibration otherwise."""
    own = str(models.kernel_meta.get("dataset", ""))
    if models.spec is not None and dataset.name == own:
        return models.spec
    return dataset_hardware(dataset)


def read_in_step(dataset: Path, samples: Any, analyses: Sequence[Any], *,
                 seed: int = 0) -> np.ndarray | None:
    """Each priced kernel row's in-step seconds per execution (`featurize_rows` order of
    `samples`, whose `analyses` are given; NaN where its program has no usable
    profile), or None when `dataset` holds no step profiles this featurizer can read
    (its own version's, or one `kernel_seconds` maps)."""
    from ..datasets.profiles import KIND, by_program, kernel_seconds

    try:
        profiles = load_frame(dataset, KIND, seed=seed)
    except DatasetError:
        return None
    stored = by_program(profiles)
    in_step: list[float] = []
    usable = 0
    for sample_id, analysis in zip(samples["sample_id"], analyses):
        seconds = next((s for times in stored.get(sample_id, ())
                        if (s := kernel_seconds(times, analysis=analysis)) is not None),
                       None)
        usable += seconds is not None
        kernels = [k for k in analysis.kernels if k.kind != "collective" and k.priced]
        in_step += [seconds.get(k.index, np.nan) / max(k.count, 1.0) if seconds else np.nan
                    for k in kernels]
    return np.array(in_step) if usable else None


def profiled(dataset: Path, models: Any, *, seed: int = 0) -> Profiled | None:
    """The priced rows of `dataset`'s programs with their in-step times; None when it
    holds no step profiles of this featurizer."""
    from ..datasets.profiles import KIND

    try:
        load_frame(dataset, KIND, seed=seed)
    except DatasetError:
        return None
    spec = pricing_spec(dataset, models)
    rows = priced_rows(load_frame(dataset, "program", seed=seed), spec, models,
                       progress=False, keep_analyses=True, spec=spec)
    in_step = read_in_step(dataset, rows.samples, rows.analyses or [], seed=seed)
    if in_step is None:
        return None
    if len(in_step) != len(rows.X):
        raise ModelError(f"{dataset}: {len(in_step)} profiled kernels against "
                         f"{len(rows.X)} featurized ones")
    early = np.array([exits_early(a) for a in rows.analyses or []], dtype=bool)
    left_out = tuple(str(g) for g in rows.samples["group_id"].to_numpy()[early]) \
        if early.any() else ()
    if early.any():
        in_step = in_step[~early[rows.sample]]
        rows = rows.without_programs(early)
    rows.analyses = None
    return Profiled(f"{dataset.parent.name}/{dataset.name}", rows, in_step,
                    store.DatasetInfo.read(dataset).fingerprint_id, left_out)


def exits_early(analysis: Any) -> bool:
    """Whether the program has a loop that may stop on its data before its counter
    bound (`featurize.loops`). Its kernels are counted at the bound, the most they can
    run, so neither the profile's time per execution (a kernel's total over the
    iterations that ran, divided by the bound) nor the measured step (of the iterations
    that ran) is what the counted kernels take: such programs are left out of the
    corrector's and the calibration's fits. Kept in, never-seen-17 to -28's eleven of
    them (a total-variation denoiser that stopped 36x short of its bound, a sandpile
    24x) pulled the calibration's scale of non-matmul kernels from 0.96 to 0.18
    (benchmarks/RESULTS.md)."""
    return any(loop.exits_early and loop.trip_count > 1 for loop in analysis.program.loops)


def training_arrays(parts: Sequence[Profiled], exclude_families: Sequence[str] = (), *,
                    floor: str = ""
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(inputs, log ratio, weight, family) of every kernel row the corrector learns
    from: covered by the kernel model, with an in-step time, of a program outside the
    test split and the excluded families. The step context is taken over each whole
    step, as `predict` sees it. `floor`: the ratios to `in_step_base` with that floor
    (the variants of `models.in_step`'s docstring); "" to the kernel model's answer (the
    bundle's)."""
    inputs, ratios, weights, families = [], [], [], []
    for part in parts:
        r = part.rows
        n = len(r.samples)
        # what the trees correct
        base = in_step_base(r.X, r.predicted_s, floor, r.count)
        timed = np.isfinite(part.in_step_s) & ~r.outside
        in_step = np.where(timed, part.in_step_s, 0.0)
        # each kernel's share of its step, IN_STEP_SHARE of it by in-step time, the rest
        # by its base
        step_in = np.bincount(r.sample, r.count * in_step, minlength=n)
        step_pred = np.bincount(r.sample, r.count * base * timed, minlength=n)
        share = (IN_STEP_SHARE * r.count * in_step / np.maximum(step_in[r.sample], 1e-30)
                 + (1.0 - IN_STEP_SHARE) * r.count * base
                 / np.maximum(step_pred[r.sample], 1e-30))
        # the context over the covered kernels only, as `predict_kernels` corrects them
        covered = ~r.outside
        x = corrector_inputs(r.X[covered], base[covered], r.count[covered],
                             r.sample[covered])
        keep = (timed & (part.split != "test")
                & ~np.isin(part.family, list(exclude_families)))[covered]
        inputs.append(x[keep])
        ratios.append(np.log(np.maximum(in_step[covered][keep], 1e-9)
                             / base[covered][keep]))
        weights.append(share[covered][keep])
        families.append(part.family[covered][keep])
    if not inputs:
        raise InvalidArgumentError("no dataset with step profiles to fit the in-step "
                                   "corrector on (`stablecost collect profiles` takes them)")
    return (np.concatenate(inputs), np.concatenate(ratios), np.concatenate(weights),
            np.concatenate(families))


def fit_in_step(parts: Sequence[Profiled], *, exclude_families: Sequence[str] = (),
                seed: int = 0, meta: dict[str, Any] | None = None,
                floor: str = "") -> InStepCorrector:
    """The corrector fitted on `parts` without `exclude_families` (`floor`: see
    `training_arrays`)."""
    inputs, ratio, weight, _ = training_arrays(parts, exclude_families, floor=floor)
    return fit_corrector(inputs, ratio, weight, seed=seed, meta=meta, floor=floor)


def _weighted_abs_log(ratio: np.ndarray, weight: np.ndarray) -> float:
    return float(np.sum(weight * np.abs(ratio)) / np.sum(weight))


def report_of(parts: Sequence[Profiled], corrector: InStepCorrector,
              seed: int = 0) -> dict[str, Any]:
    """Weighted mean |log(in-step / predicted)| before and after the correction, in
    sample and with the families held out (FOLDS folds by family)."""
    inputs, ratio, weight, family = training_arrays(parts, floor=corrector.floor)
    after = ratio - corrector.log_ratio(inputs)
    names = sorted(set(family.tolist()))
    order = np.random.default_rng(seed).permutation(len(names))
    held_after = np.zeros_like(ratio)
    for fold in range(FOLDS):
        held = [names[i] for i in order[fold::FOLDS]]
        rows = np.isin(family, held)
        if not rows.any():
            continue
        fold_model = fit_corrector(inputs[~rows], ratio[~rows], weight[~rows], seed=seed,
                                   floor=corrector.floor)
        held_after[rows] = ratio[rows] - fold_model.log_ratio(inputs[rows])
    return {"kernels": int(len(ratio)), "families": len(names),
            "datasets": [p.name for p in parts], "base": BASES[corrector.floor],
            "mean_abs_log_ratio": {"kernel_model": _weighted_abs_log(ratio, weight),
                                   "corrected_in_sample": _weighted_abs_log(after, weight),
                                   "corrected_families_held_out":
                                       _weighted_abs_log(held_after, weight)}}


def concatenated(each: Sequence[Any]) -> Any:
    """One ProgramSums of several, in order."""
    from .step_calibration import ProgramSums

    def joined(name: str) -> Any:
        parts = [getattr(s, name) for s in each]
        return None if any(p is None for p in parts) else np.concatenate(parts)

    return ProgramSums(*(joined(name) for name in ProgramSums.__dataclass_fields__))


def pooled_sums(parts: Sequence[Profiled], corrector: InStepCorrector) -> Any:
    """The group sums of every program of `parts`, their kernels moved by `corrector`."""
    from .step_calibration import sums_of

    return concatenated([sums_of(part.rows, corrector) for part in parts])


def cross_fitted_log_ratios(parts: Sequence[Profiled],
                            sums_for: Callable[[InStepCorrector], Any], family: np.ndarray,
                            rows: np.ndarray, *, exclude_families: Sequence[str] = (),
                            seed: int = 0, folds: int = FOLDS, floor: str = ""
                            ) -> np.ndarray:
    """log(measured / predicted) of each program of `rows`, with both the corrector and
    the step calibration fitted without its family: the families of `rows` fall into
    `folds` folds, and per fold the corrector is refitted on `parts` without them (and
    without `exclude_families`), `sums_for(corrector)` gives the programs' sums, and the
    calibration is fitted on the other folds' rows of them. `family`: each program's
    family, in the order of the sums; `floor`: the floor the correctors correct
    (`models.in_step.BASES`), the one of the corrector being judged.

    The calibration's own leave-one-family-out residuals (`held_out_log_ratios`) keep
    the corrector that learned from the very programs they price: its interval, fitted
    so, held 74 % of the measured steps of held-out families on the AMD machine and
    73 % of never-seen-7's (benchmarks/RESULTS.md), below the 80 % it names."""
    from .step_calibration import calibration_from, fit_on, predict_sums

    rows = np.asarray(rows)
    out = np.full(len(rows), np.nan)
    names = sorted(set(family[rows].tolist()))
    order = np.random.default_rng(seed).permutation(len(names))
    for fold in range(min(folds, len(names))):
        held_names = [names[i] for i in order[fold::folds]]
        held = np.isin(family[rows], held_names)
        corrector = fit_in_step(parts, exclude_families=[*exclude_families, *held_names],
                                seed=seed, floor=floor)
        sums = sums_for(corrector)
        calibration = calibration_from(fit_on(sums, rows[~held]))
        out[held] = np.log(sums.measured_s[rows[held]]
                           / predict_sums(calibration, sums.take(rows[held])))
    return out


def interval_of(residuals: np.ndarray, weights: np.ndarray | None = None
                ) -> tuple[float, float]:
    """The central COVERAGE quantiles of log residuals (each weighted by `weights`
    where given): the 80 % interval's bounds."""
    from .step_calibration import COVERAGE

    quantiles = [(1 - COVERAGE) / 2, (1 + COVERAGE) / 2]
    if weights is None:
        low, high = np.quantile(residuals, quantiles)
        return float(low), float(high)
    order = np.argsort(residuals)
    cumulative = np.cumsum(np.asarray(weights, float)[order])
    cumulative /= cumulative[-1]
    low, high = (residuals[order][min(int(np.searchsorted(cumulative, q)), len(order) - 1)]
                 for q in quantiles)
    return float(low), float(high)


def machine_held_out_log_ratios(parts: Sequence[Profiled], *, seed: int = 0,
                                folds: int = FOLDS, floor: str = ""
                                ) -> dict[str, np.ndarray]:
    """Per machine of `parts` (`Profiled.machine`), log(measured / predicted) of its
    programs outside the test splits with the machine and the program's family both
    held out: the families fall into `folds` folds, and per machine and fold the
    corrector is fitted on the other machines' profiles without the fold's families
    and the step calibration over it on the other machines' programs of the other
    folds. What a machine none of the profiles comes from meets: its own level (held
    out one at a time, the profiled machines ran x0.79 to x1.35 the steps priced from
    the others, `benchmarks/leave_one_machine_out.py`) beside the error on new kinds of
    program."""
    from .step_calibration import calibration_from, fit_on, predict_sums

    names = sorted({f for part in parts for f in set(part.family.tolist())})
    order = np.random.default_rng(seed).permutation(len(names))
    out: dict[str, np.ndarray] = {}
    for held in sorted({part.machine for part in parts}):
        mine = [part for part in parts if part.machine == held]
        others = [part for part in parts if part.machine != held]
        residuals = []
        for fold in range(min(folds, len(names))):
            fold_names = [names[i] for i in order[fold::folds]]
            corrector = fit_in_step(others, exclude_families=fold_names, seed=seed,
                                    floor=floor)
            theirs = pooled_sums(others, corrector)
            fitted = np.flatnonzero((theirs.split != "test")
                                    & ~np.isin(theirs.family, fold_names))
            if not len(fitted):
                continue
            calibration = calibration_from(fit_on(theirs, fitted))
            sums = pooled_sums(mine, corrector)
            rows = np.flatnonzero((sums.split != "test") & np.isin(sums.family, fold_names))
            residuals.append(np.log(sums.measured_s[rows]
                                    / predict_sums(calibration, sums.take(rows))))
        out[held] = np.concatenate(residuals) if residuals else np.zeros(0)
    return out


def calibrate_over(parts: Sequence[Profiled], corrector: InStepCorrector, *, seed: int = 0
                   ) -> tuple[Any, dict[str, Any]]:
    """The step calibration fitted over `corrector`'s in-step times of every program of
    `parts` outside the test splits (as `train.step_calibration` fits the bundle's own
    on one dataset), and a report. Its 80 % interval: where `parts` come from two
    machines or more, from residuals with the machine and the family both held out
    (`machine_held_out_log_ratios`), each machine weighing the same, since the
    corrector prices only machines other than the bundle's, most of them in none of
    its data; with one machine, from residuals with the corrector and the calibration
    both fitted without the program's family (`cross_fitted_log_ratios`)."""
    from .step_calibration import calibration_from, fit_on, held_out_log_ratios

    sums = pooled_sums(parts, corrector)
    rows = np.flatnonzero(sums.split != "test")
    residuals = cross_fitted_log_ratios(parts, lambda c: pooled_sums(parts, c), sums.family,
                                        rows, seed=seed, floor=corrector.floor)
    by_family = interval_of(residuals)
    report: dict[str, Any] = {"interval_log_ratio_families_held_out": list(by_family)}
    low, high = by_family
    if len({part.machine for part in parts}) > 1:
        by_machine = machine_held_out_log_ratios(parts, seed=seed, floor=corrector.floor)
        pooled = np.concatenate(list(by_machine.values()))
        weights = np.concatenate([np.full(len(r), 1.0 / len(r)) for r in by_machine.values()
                                  if len(r)])
        low, high = interval_of(pooled, weights)
        report["machines_held_out"] = {
            machine: {"programs": int(len(r)),
                      "median_log_ratio": float(np.median(r)) if len(r) else None,
                      "inside_interval": float(np.mean((r >= low) & (r <= high)))
                      if len(r) else None}
            for machine, r in by_machine.items()}
    calibration = calibration_from(fit_on(sums, rows),
                                   min_kernels=int(sums.kernels[rows].min()),
                                   interval_log_ratio=(low, high),
                                   meta={"fitted_rows": int(len(rows))})
    # held out of the calibration's fit only, as the bundle's own calibration reports it
    own = held_out_log_ratios(sums, rows)
    return calibration, {"programs": int(len(rows)),
                         "calibration_held_out_family_mape":
                             float(np.mean(np.abs(np.expm1(-own)))),
                         "both_held_out_mape": float(np.mean(np.abs(np.expm1(-residuals)))),
                         "interval_log_ratio": [low, high], **report,
                         "interval_log_ratio_corrector_in_sample": list(interval_of(own))}


def default_data(hardware: str, root: Path) -> list[Path]:
    """Every dataset of `hardware` under `root` (the stored datasets, `data/`)."""
    return [d for d in store.find_datasets(root)
            if store.DatasetInfo.read(d).hardware == hardware]


def fit_for_bundle(data: Sequence[str | Path] | None, *, hardware: str = "host-cpu",
                   seed: int = 0, floor: str = DEFAULT_FLOOR,
                   say: Callable[[str], None] = lambda _: None
                   ) -> tuple[InStepCorrector, dict[str, Any]]:
    """The corrector for `hardware`'s bundle from `data` (default: every stored
    dataset of it with step profiles), over `floor` (`models.in_step.BASES`), and its
    report."""
    models = load_kernel_model(hardware)
    if models is None:
        raise ModelError(f"no bundled kernel model for {hardware}: train one first "
                         "(`stablecost train xgboost`)")
    root = Path(__file__).resolve().parent.parent / "data"
    datasets = ([pick_dataset(d, hardware) for d in data] if data
                else default_data(hardware, root))
    parts, used = [], []
    for dataset in datasets:
        say(f"pricing the programs of {dataset}")
        part = profiled(dataset, models, seed=seed)
        if part is not None and part.left_out:
            say(f"  left out {len(part.left_out)} programs with a loop that may stop on "
                f"its data: {', '.join(part.left_out)}")
        if part is None:
            if data:
                raise InvalidArgumentError(f"{dataset}: no step profiles of this featurizer "
                                           "(take them with `stablecost collect profiles`)")
            say(f"{dataset}: no step profiles, skipped")
            continue
        parts.append(part)
        used.append(dataset)
    meta = {"hardware": hardware, "datasets": [p.name for p in parts],
            "data": [_repo_relative(d) for d in used],
            "left_out_early_exit": {p.name: list(p.left_out) for p in parts if p.left_out},
            "kernel_model": {"data_digest": models.kernel_meta.get("data_digest")}}
    corrector = fit_in_step(parts, seed=seed, meta=meta, floor=floor)
    say("fitting the step calibration over it")
    corrector.calibration, calibration_report = calibrate_over(parts, corrector,
                                                                seed=seed)
    say("judging it with the families held out")
    report = {**report_of(parts, corrector, seed), "calibration": calibration_report}
    corrector.meta["metrics"] = report
    return corrector, report


def _repo_relative(path: Path) -> str:
    root = Path(__file__).resolve().parent.parent
    path = path.resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def train_in_step(data: Sequence[str | Path] | None, *, hardware: str = "host-cpu",
                  seed: int = 0, floor: str = DEFAULT_FLOOR, save: str | Path | None = None,
                  tracking_uri: str | None = None, experiment: str = "stablecost",
                  say: Callable[[str], None] = lambda _: None) -> tuple[Path, dict[str, Any]]:
    """`stablecost train in-step`: fit, log an MLflow run, save into `save` (default the
    bundle's `in_step/`). The step calibration is fitted over the corrector: refit it
    after (`stablecost train calibration`)."""
    import mlflow

    from . import tracking

    corrector, report = fit_for_bundle(data, hardware=hardware, seed=seed, floor=floor,
                                       say=say)
    target = Path(save) if save else bundle_path(hardware) / MODEL_NAME
    tracking.configure(tracking_uri, experiment)
    with mlflow.start_run(run_name=f"in-step-{hardware}"):
        mlflow.log_params({"model": MODEL_NAME, "hardware": hardware, "seed": seed,
                           "floor": floor or "none",
                           "datasets": ",".join(report["datasets"])[:500]})
        mlflow.log_metrics({"kernels": report["kernels"], "families": report["families"],
                            **{f"abs_log_ratio_{k}": v
                               for k, v in report["mean_abs_log_ratio"].items()}})
        corrector.save(target)
        mlflow.log_artifacts(str(target), artifact_path=MODEL_NAME)
    return target, report


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", default=None,
                        help="a dataset with step profiles (repeatable; default: every one "
                             "under data/)")
    parser.add_argument("--hardware", default="host-cpu")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true",
                        help=f"save it into the bundle ({MODEL_NAME}/)")
    args = parser.parse_args(argv)

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    corrector, report = fit_for_bundle(args.data, hardware=args.hardware, seed=args.seed,
                                       say=say)
    print(json.dumps(report, indent=1))
    if args.write:
        print(f"wrote {corrector.save(bundle_path(args.hardware) / MODEL_NAME)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
