"""`stablecost train xgboost`: fit the per-kernel model on a dataset's kernel samples,
track the run in MLflow, register the model, and optionally save a bundle.

Accuracy is always judged per *sample* (what was measured): the floor plus the sum of
the sample's kernel predictions, on the grouped validation and test splits, next to
the roofline's answer for the same samples.

`also` adds another machine's kernel samples to the fit, each in its own dataset's
split (train rows are fitted, validation rows join early stopping, test rows are left
out), while every reported figure stays the primary dataset's. It is for the kernel
families the primary machine's data lacks or covers thinly, e.g. convolution gradients
measured only on a newer CPU. Each row is featurized on its own machine's spec and its
target is its time above its own machine's per-call floor, so the model learns it as a
ratio to that machine's roofline, as it learns every other row (models/features.py:
chip features and the roofline come from the machine measured). The trees may then
not split on the chip features (`CHIP_FEATURES`): with them, every kernel of the
other machine fell into leaves fitted on the few families brought from it, and its
dots and loops came out 1.8x their measured ratio (1.1x without). Which rows join
early stopping matters too: fitting the other machine's convolutions without their
validation rows in it moved held-out-family MAPE of the calibrated kernel sum by 2
points.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..atomicio import atomic_write_bytes
from ..datasets import store
from ..errors import InvalidArgumentError
from ..hardware import Hardware
from ..models.coverage import LOOP_NEST_CONVOLUTION
from ..models.features import CHIP_FEATURES
from ..models.kernel_model import TARGETS, KernelCostModel
from ..models.manifest import refresh_manifest
from . import metrics, plots, tracking
from .data import (
    Featurized,
    data_digest,
    dataset_hardware,
    featurize_rows,
    kernel_targets,
    load_frame,
    mixed_sources,
    per_call_floor_s,
    pick_dataset,
)
from .result import TrainResult

REGISTERED_NAME = "stablecost-kernel-xgb-{hardware}"


@dataclass(frozen=True)
class OtherMachineRows:
    """Kernel rows of another machine's dataset, featurized on that machine's spec."""

    dataset: Path
    fingerprint: str
    digest: str
    samples: int
    X: np.ndarray
    target_s: np.ndarray
    roofline_s: np.ndarray
    weight: np.ndarray
    split: np.ndarray           # per row: its sample's split in its own dataset
    loop_convolution_kernels: int = 0


def other_machine_rows(data: str | Path, families: tuple[str, ...] | None, kind: str, *,
                       seed: int = 0) -> OtherMachineRows:
    """The kernel samples of the one dataset under `data` (only `families`, when given),
    with their targets above that dataset's own per-call floor. Refuses a dataset of
    another chip kind (a GPU table cannot teach a CPU model) and unknown families."""
    dataset = pick_dataset(data, None)
    hw = dataset_hardware(dataset)
    if hw.kind != kind:
        raise InvalidArgumentError(f"--also {data}: its hardware {hw.name} is a {hw.kind}, "
                                   f"not a {kind} like the training data")
    frame = load_frame(dataset, "kernel", seed=seed)
    floor_s = per_call_floor_s(frame)
    if families:
        known = set(frame["family"])
        unknown = sorted(set(families) - known)
        if unknown:
            raise InvalidArgumentError(f"--also-families {','.join(unknown)}: not in "
                                       f"{dataset.name}; it has {', '.join(sorted(known))}")
        frame = frame[frame["family"].isin(families)].reset_index(drop=True)
    f, _ = featurize_rows(frame, hw)
    if not len(f.X):
        raise InvalidArgumentError(f"--also {data}: no kernel rows featurized")
    target_s, weight = kernel_targets(f, floor_s)
    return OtherMachineRows(dataset=dataset, fingerprint=store.DatasetInfo.read(dataset)
                            .fingerprint_id, digest=data_digest(f.samples),
                            samples=len(f.samples), X=f.X, target_s=target_s,
                            roofline_s=f.roofline_s, weight=weight,
                            split=f.samples["split"].to_numpy()[f.sample],
                            loop_convolution_kernels=loop_convolution_kernels(f, hw))


def loop_convolution_kernels(f: Featurized, hw: Hardware) -> int:
    """Fitted rows (train and val) holding a convolution XLA:CPU runs as a loop nest,
    priced at a measured loop rate (on a spec without one they were priced like library
    convolutions, so the model's ratios for them do not carry to a spec that has it);
    recorded in the bundle, `models.coverage` reads it."""
    if not hw.loop_convolution_macs_per_s or f.cpu_kind is None:
        return 0
    fitted = np.isin(f.samples["split"].to_numpy()[f.sample], ("train", "val"))
    return int(((f.cpu_kind == LOOP_NEST_CONVOLUTION) & fitted).sum())


def _sample_predictions(model: KernelCostModel, f: Featurized, floor_s: float) -> np.ndarray:
    return floor_s + f.sum_per_sample(model.predict(f.X, f.roofline_s))


# Past this many training rows, `--target auto` compares the two targets on a seeded
# subsample of this size and fits only the winner on every row. On 1M rows the two
# comparison fits cost 24 s at 100k rows against 58 s at 200k (341 rounds, 2 cores).
SELECT_ROWS = 100_000


def fit_kernel_model(X: np.ndarray, target_s: np.ndarray, roofline_s: np.ndarray,
                     weight: np.ndarray, train: np.ndarray, val: np.ndarray,
                     candidates: tuple[str, ...], params: dict[str, Any],
                     score: Callable[[KernelCostModel], float], *,
                     select_rows: int = SELECT_ROWS,
                     say: Callable[[str], None] = lambda message: None
                     ) -> tuple[KernelCostModel, str, dict[str, float], float]:
    """Fit one model per candidate target (early stopping on the `val` rows), keep the
    one with the lowest `score`, and return (model, its target, every candidate's
    score, seconds spent fitting). `train`/`val` are boolean row masks."""
    rows = np.flatnonzero(train)
    seed = int(params.get("seed", 0))
    subsample = len(candidates) > 1 and len(rows) > select_rows
    if subsample:
        rows_used = np.sort(np.random.default_rng(seed).choice(rows, select_rows,
                                                              replace=False))
        say(f"comparing targets on {select_rows:,} of {len(rows):,} training rows")
    else:
        rows_used = rows
    eval_set = (X[val], target_s[val], roofline_s[val])
    start = time.perf_counter()
    fitted: dict[str, tuple[KernelCostModel, float]] = {}
    for name in candidates:
        say(f"fitting target {name} on {len(rows_used):,} kernel rows")
        t0 = time.perf_counter()
        model = KernelCostModel(target=name, **params).fit(
            X[rows_used], target_s[rows_used], roofline_s[rows_used],
            weight=weight[rows_used], eval_set=eval_set, interval=not subsample)
        fitted[name] = (model, score(model))
        say(f"  target {name}: val MAPE {fitted[name][1]:.1%} "
            f"({time.perf_counter() - t0:.1f} s, {model.best_iteration_} rounds)")
    choice = min(fitted, key=lambda k: fitted[k][1])
    model = fitted[choice][0]
    if subsample:
        say(f"fitting target {choice} on all {len(rows):,} training rows")
        model = KernelCostModel(target=choice, **params).fit(
            X[rows], target_s[rows], roofline_s[rows], weight=weight[rows],
            eval_set=eval_set)
    return model, choice, {k: v for k, (_, v) in fitted.items()}, time.perf_counter() - start


def train_xgboost(data: str | Path, *, hardware: str | None = None, seed: int = 0,
                  target: str = "auto", n_estimators: int = 400, max_depth: int = 6,
                  learning_rate: float = 0.1, max_rows: int | None = None,
                  source: str | None = None, variants: tuple[str, ...] | None = None,
                  select_rows: int = SELECT_ROWS, also: str | Path | None = None,
                  also_families: tuple[str, ...] | None = None,
                  tracking_uri: str | None = None, experiment: str = "stablecost",
                  register: bool = True, save: str | Path | None = None,
                  progress: Callable[[str], None] | None = None) -> TrainResult:
    if target not in ("auto", *TARGETS):
        raise InvalidArgumentError(f"--target {target!r}; allowed: auto, {', '.join(TARGETS)}")
    say = progress or (lambda message: None)
    dataset = pick_dataset(data, hardware)
    hw = dataset_hardware(dataset)
    frame = load_frame(dataset, "kernel", seed=seed, max_rows=max_rows, source=source,
                       variants=variants)
    if (warning := mixed_sources(frame)) is not None:
        say(warning)
    floor_s = per_call_floor_s(frame)
    say(f"featurizing {len(frame)} kernel samples of {dataset.name} on {hw.name}")
    start = time.perf_counter()
    f, _ = featurize_rows(frame, hw)
    featurize_s = time.perf_counter() - start
    if f.failures:
        say(f"{len(f.failures)} samples did not featurize, e.g. {f.failures[0]}")
    samples = f.samples
    split = samples["split"].to_numpy()
    row_split = split[f.sample]
    target_s, weight = kernel_targets(f, floor_s)
    tr, va = row_split == "train", row_split == "val"
    if not tr.any() or not va.any():
        raise InvalidArgumentError(f"{dataset}: too few shape groups for a train/val split "
                                   f"({samples['group_id'].nunique()} groups)")
    measured = samples["median_s"].to_numpy()
    val_mask, test_mask = split == "val", split == "test"
    X, roofline_s = f.X, f.roofline_s
    other = None
    if also is not None:
        other = other_machine_rows(also, also_families, hw.kind, seed=seed)
        say(f"adding {len(other.X)} kernel rows ({other.samples} samples) of "
            f"{other.dataset.name}, in its own train/val split")
        X = np.concatenate([X, other.X])
        roofline_s = np.concatenate([roofline_s, other.roofline_s])
        target_s = np.concatenate([target_s, other.target_s])
        weight = np.concatenate([weight, other.weight])
        tr = np.concatenate([tr, other.split == "train"])
        va = np.concatenate([va, other.split == "val"])

    candidates = TARGETS if target == "auto" else (target,)
    params: dict[str, Any] = dict(n_estimators=n_estimators, max_depth=max_depth,
                                  learning_rate=learning_rate, seed=seed)
    if other is not None:
        params["ignored_features"] = CHIP_FEATURES
    model, choice, fitted, fit_s = fit_kernel_model(
        X, target_s, roofline_s, weight, tr, va, candidates, params,
        score=lambda m: metrics.summary(
            measured[val_mask], _sample_predictions(m, f, floor_s)[val_mask])["mape"],
        select_rows=select_rows, say=say)
    predicted = _sample_predictions(model, f, floor_s)
    roofline = f.sample_roofline_s()

    result_metrics: dict[str, float] = {}
    for split_name, mask in (("val", val_mask), ("test", test_mask)):
        result_metrics |= metrics.flat(split_name, metrics.summary(measured[mask], predicted[mask]))
        result_metrics |= metrics.flat(f"roofline_{split_name}",
                                       metrics.summary(measured[mask], roofline[mask]))
    for name, val_mape in fitted.items():
        result_metrics[f"val_mape_target_{name}"] = val_mape
    result_metrics["fit_s"] = fit_s
    result_metrics["featurize_s"] = featurize_s
    families = samples["family"].to_numpy()
    per_family = metrics.grouped(measured[test_mask], predicted[test_mask], families[test_mask])
    roofline_family = metrics.grouped(measured[test_mask], roofline[test_mask],
                                      families[test_mask])
    digest = data_digest(samples)
    if other is not None:
        # the model's identity (adaptations, step intervals and the step models fitted
        # over it are keyed by it) covers every row it was fitted on
        digest = hashlib.sha256(f"{digest}+{other.digest}".encode()).hexdigest()[:16]
    info = store.DatasetInfo.read(dataset)
    slug = store.slug(info.hardware)

    uri = tracking.configure(tracking_uri, experiment)
    import mlflow

    registration = None
    with mlflow.start_run(run_name=f"kernel-xgb-{slug}") as run:
        mlflow.set_tags({"stablecost.model": "kernel_xgb", "stablecost.hardware": hw.name})
        mlflow.log_params({**model.get_params(), "target_choice": choice,
                           "target_candidates": ",".join(candidates), "dataset": str(dataset),
                           "target_selection_rows": min(select_rows, int(tr.sum())),
                           "source_filter": source or "", "variants": ",".join(variants or ()),
                           "dataset_digest": digest, "fingerprint": info.fingerprint_id,
                           "featurizer_version": _featurizer_version(),
                           "floor_s": floor_s, "rows_kernel": len(f.X),
                           "samples": len(samples), "hardware": hw.name,
                           "best_iteration": model.best_iteration_,
                           **_other_params(other, also_families)})
        tracking.log_dict_metrics(result_metrics)
        for family, stats in per_family.items():
            tracking.log_dict_metrics(metrics.flat(f"test_family_{family}", stats))
        with tempfile.TemporaryDirectory() as tmp:
            tmp_path = Path(tmp)
            plots.scatter({"xgboost": (measured[test_mask], predicted[test_mask]),
                           "roofline": (measured[test_mask], roofline[test_mask])},
                          tmp_path / "test_scatter.png", f"kernel samples, test ({hw.name})")
            plots.error_cdf({"xgboost": metrics.ape(measured[test_mask], predicted[test_mask]),
                             "roofline": metrics.ape(measured[test_mask], roofline[test_mask])},
                            tmp_path / "test_error_cdf.png", "per-sample error, test split")
            plots.importance(model.feature_importance(), tmp_path / "feature_importance.png",
                             "XGBoost feature importance (gain)")
            _write_family_table(per_family, roofline_family, tmp_path / "test_per_family.md")
            mlflow.log_artifacts(tmp, artifact_path="report")
            bundle = save or tmp_path / "bundle"
            model.save(bundle, floor_s=floor_s, hardware=hw.name,
                       hardware_spec=hw.to_dict(), data_digest=digest,
                       dataset=info.path.name, fingerprint=info.fingerprint,
                       loop_convolution_kernels=loop_convolution_kernels(f, hw) + (
                           other.loop_convolution_kernels if other else 0),
                       **({"also": {**_other_params(other, also_families),
                                    "primary_digest": data_digest(samples)}}
                          if other else {}),
                       metrics={k: v for k, v in result_metrics.items()
                                if k.startswith(("val_", "test_", "roofline_"))},
                       run_id=run.info.run_id)
            spec = dataset / "hardware.toml"
            if spec.is_file():  # host-cpu: the calibration the rows were priced with
                atomic_write_bytes(Path(bundle) / "hardware.toml", spec.read_bytes())
                refresh_manifest(bundle, ["hardware.toml"])
            mlflow.log_artifacts(str(bundle), artifact_path="bundle")
        name = REGISTERED_NAME.format(hardware=slug)
        example = _frame(f.X[:5])
        from mlflow.models import infer_signature

        signature = infer_signature(example, model.booster_.inplace_predict(f.X[:5]))
        info_model = mlflow.xgboost.log_model(
            model.booster_, name="model", signature=signature, input_example=example,
            pip_requirements=tracking.pip_requirements(), model_format="ubj",
            registered_model_name=name if register else None)
        if register and info_model.registered_model_version is not None:
            registration = tracking.promote_if_better(
                name, str(info_model.registered_model_version), result_metrics["val_mape"],
                "val_mape")
    return TrainResult(
        model="kernel_xgb", hardware=hw.name, run_id=run.info.run_id, tracking_uri=uri,
        choice=choice, metrics=result_metrics, per_family=per_family,
        registered_version=registration.version if registration else None,
        champion=bool(registration and registration.champion),
        saved_to=Path(save) if save else None,
        data={"dataset": str(dataset), "samples": len(samples), "kernel_rows": len(f.X),
              "digest": digest, "floor_s": floor_s, "failures": len(f.failures),
              "by_split": {k: int(v) for k, v in samples["split"].value_counts().items()}},
        notes=f.failures[:3])


def _other_params(other: OtherMachineRows | None,
                  families: tuple[str, ...] | None) -> dict[str, Any]:
    if other is None:
        return {}
    return {"also_dataset": other.dataset.name, "also_fingerprint": other.fingerprint,
            "also_digest": other.digest, "also_samples": other.samples,
            "also_families": ",".join(families or ())}


def _frame(X: np.ndarray) -> Any:
    import pandas as pd

    from ..models.features import FEATURES

    return pd.DataFrame(X, columns=list(FEATURES))


def _featurizer_version() -> str:
    from ..featurize.program import FEATURIZER_VERSION

    return FEATURIZER_VERSION


def _write_family_table(learned: dict, roofline: dict, path: Path) -> None:
    lines = ["| family | n | XGBoost MAPE | median APE | within 10% | roofline MAPE |",
             "|---|---|---|---|---|---|"]
    for family, s in learned.items():
        r = roofline.get(family, {})
        lines.append(f"| {family} | {s['n']} | {s['mape']:.1%} | {s['median_ape']:.1%} | "
                     f"{s['within_10pct']:.0%} | {r.get('mape', float('nan')):.1%} |")
    path.write_text("\n".join(lines) + "\n")
