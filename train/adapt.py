"""`stablecost hardware adapt`: fit the bundled learned model to this machine.

A bundle trained on one CPU misprices another (a newer generation runs small kernels
faster, its dispatch costs less). Adapt measures this machine for a few minutes, with
the collector's own sweeps (kernels, then whole programs, seed `ADAPT_SEED` so the
samples are not the training ones), prices every measured sample with the unadapted
bundle, and fits correction factors (`models.adaptation`):

- kernel factor per kernel kind: the factor with the least MAPE over the samples
  priced by the kernel sum whose time that kind dominates (`mape_factor`), shrunk in
  log space toward that of all such samples by `SHRINK` pseudo-samples;
- step factor: the same over the programs a step model priced (the GNN or the step
  calibration).

The factors minimize the error the project reports (MAPE), not a log error: the
median of log(measured / predicted) sits above the MAPE-optimal factor when the ratios
spread, and over-corrected the programs it was not fitted on (on the second machine:
a step factor of 1.30 against 1.25; benchmarks/RESULTS.md, "Adapt factors that
minimize MAPE").

On a machine the bundle's data comes from, the bundle already holds that machine's own
factors, fitted on thousands of its samples (`models.adaptation.bundled_adaptation`);
five minutes of samples fit its level less well (on never-seen-29 on Zen 5, 53.6 %
against 47.5 % with the bundle's factors; benchmarks/RESULTS.md). There each factor is
pooled in log space with the bundle's, each weighted by its number of samples
(`pooled_with`), so that adapt moves them as far as its own samples outweigh the
bundle's.

The samples are split by group (a model size, a shape family) into a fitting part and a
check part; the error of the check part before and after correction is reported and
logged with the factors as an MLflow run; the factors finally written are fitted on
every sample. The result is stored for this machine's fingerprint and bundle, and
predict applies it from then on. Collection is resumable: running adapt again keeps
what was measured and measures more.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..atomicio import atomic_write_bytes
from ..datasets import store
from ..datasets.splits import split_of
from ..errors import InvalidArgumentError, ModelError
from ..featurize.analysis import Analysis, analyze, for_chip_kind
from ..featurize.fusion import COLLECTIVE
from ..featurize.ingest import load_program
from ..featurize.program import FEATURIZER_VERSION
from ..hardware import config_dir, get_hardware
from ..models.adaptation import (
    MAX_FACTOR,
    MIN_FACTOR,
    Adaptation,
    adaptation_path,
    bundled_adaptation,
    bundled_machine_factors,
    find_adaptation,
    fixed_seconds,
    local_fingerprint_id,
)
from ..models.learned import LearnedKernels, LearnedModels, load_models, predict_kernels

ADAPT_SEED = 101          # not the training sweep's seed 0
SHRINK = 10.0             # pseudo-samples pulling a kind's factor toward the global one
KERNEL_SHARE = 0.6        # of the budget spent on kernel samples; the rest on programs
CHECK_FRACTION = 0.25     # groups held out to report the correction's effect


@dataclass(frozen=True)
class Residual:
    kind: str              # "kernel" (priced by the kernel sum) or "step" (by the GNN)
    key: str               # dominant kernel kind, or "step"
    group_id: str
    log_ratio: float       # log(measured / predicted)


@dataclass(frozen=True)
class AdaptResult:
    adaptation: Adaptation
    path: Path
    data: Path
    check: dict[str, dict[str, float]]   # kind -> {rows, mape_before, mape_after}
    run_id: str
    tracking_uri: str


def default_data_dir() -> Path:
    return config_dir() / "adapt-data"


def adapt(*, minutes: float = 5.0, data: str | Path | None = None,
          hardware: str = "host-cpu", tracking_uri: str | None = None,
          experiment: str = "stablecost-adapt", track: bool = True,
          progress: Callable[[str], None] | None = None) -> AdaptResult:
    """Measure, fit and store this machine's adaptation (see the module docstring)."""
    say = progress or (lambda message: None)
    if not (isinstance(minutes, (int, float)) and math.isfinite(minutes) and minutes > 0):
        raise InvalidArgumentError(f"--minutes {minutes}: must be a positive number")
    hw = get_hardware(hardware)          # host-cpu: refuses an uncalibrated machine
    models = load_models(hw.name)
    if models is None:
        raise InvalidArgumentError(f"no bundled learned model for {hw.name} to adapt")
    digest = models.adaptation_digest
    data_dir = Path(data) if data is not None else default_data_dir()
    if track:
        from . import tracking

        uri = tracking.configure(tracking_uri, experiment)   # a bad URI fails before work
    else:
        uri = ""

    from ..datasets.collect import collect

    for kind, share in (("kernel", KERNEL_SHARE), ("program", 1 - KERNEL_SHARE)):
        say(f"collecting {kind} samples for {minutes * share:.1f} min into {data_dir}")
        summary = collect(kind, data_dir, budget_minutes=minutes * share, seed=ADAPT_SEED)
        say(f"  {summary.samples} new, {summary.skipped_done} already measured")
        if summary.interrupted:
            raise KeyboardInterrupt

    residuals = residuals_here(data_dir, models, say)
    prior = bundled_machine_factors(models.path, digest)
    samples = {k: sum(1 for r in residuals if r.kind == k) for k in ("kernel", "step")}
    if prior is None:
        fitted = fit_factors(residuals)
    else:
        fitted = pooled_with(fit_factors(residuals), residuals, prior)
        samples.update({f"bundle {k}": int(prior.samples.get(k, 0))
                        for k in ("kernel", "step")})
        say(f"pooled with the bundle's factors for this machine (step x"
            f"{prior.step_factor:.3f}, kernels x{prior.default_kernel_factor:.3f} by "
            f"default), weighted by their samples")
    # what predict applied until now: this machine's earlier adaptation, else the
    # bundle's factors for it or its default for other machines
    current = find_adaptation(hw.name, digest)[0]
    if current is None and models.machine_differences():
        current = bundled_adaptation(models.path, digest)[0]
    check = check_errors(residuals, prior, current)
    fingerprint = local_fingerprint_id()
    adaptation = Adaptation(
        hardware=hw.name, fingerprint_id=fingerprint, bundle_digest=digest,
        featurizer_version=FEATURIZER_VERSION, step_factor=fitted["step"],
        default_kernel_factor=fitted["default"],
        kernel_factors={k: v for k, v in fitted.items() if k not in ("step", "default")},
        samples=samples,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    path = adaptation_path(hw.name, fingerprint)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (json.dumps(adaptation.to_dict(), indent=1) + "\n").encode())
    run_id = _log_run(adaptation, check, minutes, data_dir, path) if track else ""
    return AdaptResult(adaptation, path, data_dir, check, run_id, uri)


def residuals_here(data_dir: Path, models: LearnedModels,
                   say: Callable[[str], None]) -> list[Residual]:
    """log(measured / bundle's prediction) of every sample measured on this machine."""
    mine = [d for d in store.find_datasets(data_dir)
            if store.DatasetInfo.read(d).fingerprint_id == local_fingerprint_id()]
    if not mine:
        raise ModelError(f"{data_dir}: no samples measured on this machine to adapt to")
    return dataset_residuals(mine[0], models, get_hardware(models.hardware), say)


def dataset_residuals(dataset: Path, models: LearnedModels, hw: Any,
                      say: Callable[[str], None]) -> list[Residual]:
    """log(measured / bundle's prediction) of every sample of `dataset`, the bundle
    reading its kernels through `hw` (the spec of the machine that measured them)."""
    frame = store.read_frame(dataset, columns=["group_id", "stablehlo", "median_s", "family"])
    # kernels `collect kernels --from-programs` outlined are not what adapt measures
    frame = frame[frame["family"] != "outlined"]
    say(f"pricing {len(frame)} samples of {dataset} with the bundled model")
    out = []
    for group, text, measured, _ in frame.itertuples(index=False):
        analysis = for_chip_kind(analyze(load_program(text)), hw.kind)
        residual = residual_of(models, analysis, predict_kernels(models, analysis, hw),
                               group, measured)
        if residual is not None:
            out.append(residual)
    return out


def residual_of(models: LearnedModels, analysis: Analysis, learned: LearnedKernels,
                group_id: str, measured_s: float) -> Residual | None:
    """One sample's residual as adapt fits it: a step residual when a step model (the
    GNN or the step calibration) priced it, else a kernel residual keyed by the kernel
    kind that dominates its time; None when there is nothing to fit (or the kernels
    priced by the roofline, which no factor touches, already take the measured time)."""
    # the kernels priced by the roofline are not corrected (models.adaptation): the
    # residual is that of the rest (with the floor, as before they were set apart: the
    # floor is most of a small kernel sample's time, and without it the MAPE-optimal
    # factors chase the noise of the few microseconds left)
    fixed = fixed_seconds(analysis, learned.time_s, learned.fallback)
    if not (learned.step_s > fixed and measured_s > fixed):
        return None
    ratio = math.log((measured_s - fixed) / (learned.step_s - fixed))
    if learned.step_source != "kernel_sum":
        return Residual("step", "step", group_id, ratio)
    outside = learned.fallback if learned.fallback is not None else \
        np.zeros(len(analysis.kernels), bool)
    weights = [0.0 if k.kind == COLLECTIVE or out else k.count * float(t)
               for k, t, out in zip(analysis.kernels, learned.time_s, outside)]
    if not weights or max(weights) <= 0:
        return None
    dominant = analysis.kernels[int(np.argmax(weights))].kind
    return Residual("kernel", dominant, group_id, ratio)


def mape_log_factor(log_ratios: list[float]) -> float:
    """log of the factor c with the least mean |c x predicted / measured - 1| over samples
    with these log(measured / predicted): the median of measured / predicted weighted by
    predicted / measured (each sample's error is |c / ratio - 1|, linear in c with slope
    1 / ratio)."""
    values = np.sort(np.asarray(log_ratios, dtype=np.float64))
    weights = np.exp(-values)
    half = np.searchsorted(np.cumsum(weights), 0.5 * weights.sum())
    return float(values[min(half, len(values) - 1)])


def fit_factors(residuals: list[Residual]) -> dict[str, float]:
    """{"step": f, "default": f, <kernel kind>: f, ...}: MAPE-optimal factors."""
    def clamp(log_ratio: float) -> float:
        return float(min(MAX_FACTOR, max(MIN_FACTOR, math.exp(log_ratio))))

    kernel = [r for r in residuals if r.kind == "kernel"]
    steps = [r.log_ratio for r in residuals if r.kind == "step"]
    overall = mape_log_factor([r.log_ratio for r in kernel]) if kernel else 0.0
    out = {"step": clamp(mape_log_factor(steps)) if steps else 1.0,
           "default": clamp(overall)}
    for key in sorted({r.key for r in kernel}):
        values = [r.log_ratio for r in kernel if r.key == key]
        shrunk = (len(values) * mape_log_factor(values) + SHRINK * overall) / \
            (len(values) + SHRINK)
        out[key] = clamp(shrunk)
    return out


def pooled_with(fitted: dict[str, float], residuals: list[Residual], prior: Adaptation
                ) -> dict[str, float]:
    """`fit_factors`' answer on `residuals` pooled with `prior` (the bundle's factors for
    this machine), in log space, each side weighted by its samples: the step factor by
    step samples, the kernel factors by kernel samples (a kind by this machine's samples
    of that kind against all of the bundle's kernel samples, whose kinds it does not
    count apart)."""
    def pool(mine: float, n: int, theirs: float, m: int) -> float:
        if n + m <= 0:
            return mine
        return float(math.exp((n * math.log(mine) + m * math.log(theirs)) / (n + m)))

    kernel = [r for r in residuals if r.kind == "kernel"]
    steps = sum(1 for r in residuals if r.kind == "step")
    m_kernel, m_step = (int(prior.samples.get(k, 0)) for k in ("kernel", "step"))
    out = {"step": pool(fitted["step"], steps, prior.step_factor, m_step),
           "default": pool(fitted["default"], len(kernel), prior.default_kernel_factor,
                           m_kernel)}
    for key in sorted((set(fitted) | set(prior.kernel_factors)) - {"step", "default"}):
        n = sum(1 for r in kernel if r.key == key)
        out[key] = pool(fitted.get(key, fitted["default"]), n,
                        prior.kernel_factors.get(key, prior.default_kernel_factor), m_kernel)
    return out


def _factor(fitted: dict[str, float], r: Residual) -> float:
    if r.kind == "step":
        return fitted["step"]
    return fitted.get(r.key, fitted["default"])


def check_errors(residuals: list[Residual], prior: Adaptation | None = None,
                 current: Adaptation | None = None) -> dict[str, dict[str, float]]:
    """MAPE of the held-out groups before (the bare bundle) and after a correction
    fitted without them (pooled with `prior` where given, as `adapt` pools it); where
    `current` is given (the adaptation predict applied until now), also with its factors
    ("mape_current")."""
    fractions = (1 - CHECK_FRACTION, 0.0, CHECK_FRACTION)
    is_held = [split_of(r.group_id, seed=ADAPT_SEED, fractions=fractions) == "test"
               for r in residuals]
    held = [r for r, h in zip(residuals, is_held) if h]
    rest = [r for r, h in zip(residuals, is_held) if not h]
    fitted = fit_factors(rest) if prior is None else \
        pooled_with(fit_factors(rest), rest, prior)
    out = {}
    for kind in ("kernel", "step"):
        rows = [r for r in held if r.kind == kind]
        if not rows:
            continue
        before = [abs(math.exp(-r.log_ratio) - 1) for r in rows]
        after = [abs(_factor(fitted, r) * math.exp(-r.log_ratio) - 1) for r in rows]
        out[kind] = {"rows": float(len(rows)), "mape_before": float(np.mean(before)),
                     "mape_after": float(np.mean(after))}
        if current is not None:
            factors = {"step": current.step_factor, "default": current.default_kernel_factor,
                       **current.kernel_factors}
            out[kind]["mape_current"] = float(np.mean(
                [abs(_factor(factors, r) * math.exp(-r.log_ratio) - 1) for r in rows]))
    return out


def _log_run(adaptation: Adaptation, check: dict[str, dict[str, float]], minutes: float,
             data_dir: Path, path: Path) -> str:
    import mlflow

    with mlflow.start_run(run_name=f"adapt-{adaptation.hardware}-"
                                  f"{adaptation.fingerprint_id}") as run:
        mlflow.log_params({"hardware": adaptation.hardware, "minutes": minutes,
                           "fingerprint_id": adaptation.fingerprint_id,
                           "bundle_digest": adaptation.bundle_digest,
                           "featurizer_version": adaptation.featurizer_version,
                           "data": str(data_dir)})
        metrics: dict[str, Any] = {"step_factor": adaptation.step_factor,
                                   "default_kernel_factor": adaptation.default_kernel_factor}
        for kind, values in check.items():
            metrics.update({f"check_{kind}_{k}": v for k, v in values.items()})
        mlflow.log_metrics(metrics)
        mlflow.log_artifact(str(path))
        return str(run.info.run_id)
