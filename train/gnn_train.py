"""`stablecost train gnn`: fit the per-step GNN on a dataset's program samples, track the
run in MLflow, register the model, and optionally save a bundle.

Every program sample becomes a kernel graph (`models.gnn.program_graph`) whose node
features include the per-kernel model's predictions, so the GNN is trained over a fixed
kernel model: the bundled one for the dataset's hardware, another bundle
(`kernel_model_dir`) or a model object (`kernel_model`, tests). Both targets (`direct`,
`residual`) are trained, each as the whole ensemble of `members` networks, when
`target="auto"`, and the one with the lower validation MAPE
is kept; within a fit, the epoch with the lowest validation MAPE is kept, so the test
split is the only unbiased judge. Accuracy is reported per measured program next to
the two baselines the GNN must beat: the floor plus the summed kernel-model
predictions (`kernelsum_*`) and the summed roofline (`roofline_*`).

MLflow: the model is logged as a pyfunc (models-from-code, no pickle) whose artifacts
are the GNN bundle, the kernel-model bundle and the hardware spec; it takes a DataFrame
with a `stablehlo` column (program text) and returns `step_s`. It is registered as
`stablecost-step-gnn-<hardware slug>`; the `champion` alias moves only when validation
MAPE improves.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..datasets import store
from ..errors import DatasetError, InvalidArgumentError, ModelError
from ..models.coverage import with_roofline_fallback
from ..models.gnn import (
    TARGETS,
    KernelPredictor,
    StepGNN,
    graph_from_parts,
    kernel_edges,
    step_kernels,
)
from . import metrics, plots, tracking
from .data import (
    data_digest,
    dataset_hardware,
    featurize_rows,
    load_frame,
    per_call_floor_s,
    pick_dataset,
)
from .result import TrainResult

REGISTERED_NAME = "stablecost-step-gnn-{hardware}"
BUNDLED_DIR = Path(__file__).resolve().parent.parent / "models" / "bundled"

# The MLflow pyfunc, logged as code (MLflow "models from code"): nothing is pickled.
PYFUNC_CODE = '''\
"""stablecost step GNN as an MLflow pyfunc: DataFrame[stablehlo] -> DataFrame[step_s]."""
import tomllib
from pathlib import Path

import mlflow
import pandas as pd


class StepGNNPyfunc(mlflow.pyfunc.PythonModel):
    def load_context(self, context):
        from stablecost.hardware import parse_spec
        from stablecost.models.gnn import StepGNN
        from stablecost.models.kernel_model import KernelCostModel

        self.gnn, self.meta = StepGNN.load(context.artifacts["step_gnn"])
        self.kernel_model, self.kernel_meta = KernelCostModel.load(
            context.artifacts["kernel_xgb"])
        spec = Path(context.artifacts["hardware"])
        self.hw = parse_spec(tomllib.loads(spec.read_text()), str(spec))

    def predict(self, context, model_input, params=None):
        from stablecost.featurize.analysis import analyze, for_chip_kind
        from stablecost.featurize.ingest import load_program
        from stablecost.models.gnn import program_graph

        graphs = [program_graph(for_chip_kind(analyze(load_program(text)), self.hw.kind),
                                self.hw, self.kernel_model,
                                float(self.meta["floor_s"]), self.kernel_meta)
                  for text in model_input["stablehlo"]]
        return pd.DataFrame({"step_s": self.gnn.predict(graphs)})


mlflow.models.set_model(StepGNNPyfunc())
'''


def default_kernel_model_dir(hardware_slug: str) -> Path:
    """Where the bundled per-kernel model of a hardware lives."""
    return BUNDLED_DIR / hardware_slug / "kernel_xgb"


def _kernel_model(kernel_model: KernelPredictor | None, kernel_model_dir: str | Path | None,
                  slug: str) -> tuple[KernelPredictor, dict[str, Any], Path | None]:
    if kernel_model is not None:
        return kernel_model, {}, None
    from ..models.kernel_model import KernelCostModel

    directory = Path(kernel_model_dir) if kernel_model_dir else default_kernel_model_dir(slug)
    if not (directory / "meta.json").is_file():
        raise ModelError(f"no per-kernel model at {directory}: the step GNN is trained over "
                         "one; train it first (`stablecost train xgboost --data DIR --save "
                         f"{directory}`) or pass --kernel-model DIR")
    model, meta = KernelCostModel.load(directory)
    return model, meta, directory


def _hardware(dataset: Path, kernel_dir: Path | None) -> Any:
    """The spec the kernel model was trained against (its bundle's `hardware.toml`),
    else the dataset's: node features must be computed as the kernel model saw them."""
    import tomllib

    from ..hardware import parse_spec

    spec = kernel_dir / "hardware.toml" if kernel_dir else None
    if spec is not None and spec.is_file():
        return parse_spec(tomllib.loads(spec.read_text()), str(spec))
    return dataset_hardware(dataset)


def train_gnn(data: str | Path, *, hardware: str | None = None,
              kernel_model_dir: str | Path | None = None,
              kernel_model: KernelPredictor | None = None, floor_s: float | None = None,
              seed: int = 0, epochs: int = 200, hidden: int = 32, layers: int = 2,
              lr: float = 3e-3, batch_size: int = 16, members: int = 3,
              target: str = "auto",
              max_rows: int | None = None, threads: int | None = None,
              tracking_uri: str | None = None, experiment: str = "stablecost",
              register: bool = True, save: str | Path | None = None,
              progress: Callable[[str], None] | None = None) -> TrainResult:
    """Train the step GNN on the program samples of the dataset under `data`.

    The kernel model is `kernel_model` (any object with `predict(X, roofline_s)`) or the
    bundle in `kernel_model_dir` (default: the bundled one for the dataset's hardware).
    The per-call floor is `floor_s`, else the kernel bundle's, else the dataset's. Kernels
    are priced on the kernel bundle's `hardware.toml` when it has one, else on the
    dataset's hardware.
    """
    if target not in ("auto", *TARGETS):
        raise InvalidArgumentError(f"--target {target!r}; allowed: auto, {', '.join(TARGETS)}")
    say = progress or (lambda message: None)
    started = time.perf_counter()
    dataset = pick_dataset(data, hardware)
    info = store.DatasetInfo.read(dataset)
    slug = store.slug(info.hardware)
    kmodel, kmeta, kdir = _kernel_model(kernel_model, kernel_model_dir, slug)
    hw = _hardware(dataset, kdir)
    if floor_s is None:
        floor_s = kmeta.get("floor_s")
    if floor_s is None:
        floor_s = per_call_floor_s(store.read_frame(dataset))
    floor_s = float(floor_s)

    frame = load_frame(dataset, "program", seed=seed, max_rows=max_rows)
    say(f"featurizing {len(frame)} program samples of {dataset.name} on {hw.name}")
    t0 = time.perf_counter()
    f, analyses = featurize_rows(frame, hw, keep_analyses=True,
                                 progress=lambda done, total: say(f"featurized {done}/{total}"))
    featurize_s = time.perf_counter() - t0
    if f.failures:
        say(f"{len(f.failures)} samples did not featurize, e.g. {f.failures[0]}")
    samples = f.samples
    t0 = time.perf_counter()
    kernel_pred_s = with_roofline_fallback(kmodel.predict(f.X, f.roofline_s), f.roofline_s,
                                           f.cpu_kind, hw, kmeta)
    bounds = np.searchsorted(f.sample, np.arange(len(samples) + 1))
    graphs = []
    for i, analysis in enumerate(analyses or []):
        rows = slice(bounds[i], bounds[i + 1])
        kernels = step_kernels(analysis.kernels)
        if len(kernels) != rows.stop - rows.start:
            raise ModelError(f"{samples['sample_id'][i]}: {len(kernels)} kernels but "
                             f"{rows.stop - rows.start} feature rows (featurizer mismatch)")
        graphs.append(graph_from_parts(f.X[rows], f.roofline_s[rows], f.count[rows],
                                       kernel_pred_s[rows],
                                       kernel_edges(analysis.program, kernels), floor_s))
    graph_s = time.perf_counter() - t0
    del analyses

    split = samples["split"].to_numpy()
    measured = samples["median_s"].to_numpy()
    train_mask, val_mask, test_mask = split == "train", split == "val", split == "test"
    if not train_mask.any() or not val_mask.any():
        raise DatasetError(f"{dataset}: too few program groups for a train/val split "
                           f"({samples['group_id'].nunique()} groups, "
                           f"{int(train_mask.sum())} train / {int(val_mask.sum())} val samples)")
    pick = lambda mask: [g for g, m in zip(graphs, mask) if m]  # noqa: E731
    train_graphs, val_graphs = pick(train_mask), pick(val_mask)
    nodes = np.array([g.num_nodes for g in graphs])
    say(f"{len(graphs)} graphs ({int(nodes.min())}-{int(nodes.max())} kernels, "
        f"{int(nodes.sum())} in all); {int(train_mask.sum())} train, "
        f"{int(val_mask.sum())} val, {int(test_mask.sum())} test")

    candidates = TARGETS if target == "auto" else (target,)
    fitted: dict[str, tuple[StepGNN, float, float]] = {}
    for name in candidates:   # each target as the whole ensemble: one network's
        # validation MAPE swings by a point from seed to seed, more than the targets differ
        say(f"fitting target {name}: {members} network(s) x {epochs} epochs")
        t0 = time.perf_counter()
        model = StepGNN(target=name, hidden=hidden, layers=layers, epochs=epochs, lr=lr,
                        batch_size=batch_size, seed=seed, members=members, threads=threads)
        model.fit(train_graphs, measured[train_mask],
                  eval_set=(val_graphs, measured[val_mask]))
        fit_s = time.perf_counter() - t0
        val_mape = metrics.summary(measured[val_mask], model.predict(val_graphs))["mape"]
        fitted[name] = (model, val_mape, fit_s)
        say(f"  target {name}: val MAPE {val_mape:.1%} (best epochs "
            f"{', '.join(str(e) for e in model.best_epochs_)}, {fit_s:.1f} s)")
    choice = min(fitted, key=lambda k: fitted[k][1])
    model, _, fit_s = fitted[choice]
    predicted = model.predict(graphs)
    kernel_sum = np.array([float(g.baseline_s[0]) for g in graphs])
    roofline = np.array([float(g.roofline_s[0]) for g in graphs])

    families = samples["family"].to_numpy()
    result_metrics: dict[str, float] = {}
    for split_name, mask in (("val", val_mask), ("test", test_mask)):
        for prefix, values in ((split_name, predicted), (f"kernelsum_{split_name}", kernel_sum),
                               (f"roofline_{split_name}", roofline)):
            result_metrics |= metrics.flat(prefix, metrics.summary(measured[mask], values[mask]))
            result_metrics |= metrics.flat(prefix, {"ranking_tau": metrics.ranking_tau(
                measured[mask], values[mask], families[mask])})
    for name, (m, val_mape, fit_seconds) in fitted.items():
        result_metrics[f"val_mape_target_{name}"] = val_mape
        result_metrics[f"fit_s_target_{name}"] = fit_seconds
        result_metrics[f"best_epoch_target_{name}"] = float(m.best_epoch_)
    result_metrics |= {"fit_s": fit_s, "featurize_s": featurize_s, "graph_s": graph_s,
                       "train_total_s": time.perf_counter() - started}
    per_family = metrics.grouped(measured[test_mask], predicted[test_mask], families[test_mask])
    baseline_family = {
        "kernelsum": metrics.grouped(measured[test_mask], kernel_sum[test_mask],
                                     families[test_mask]),
        "roofline": metrics.grouped(measured[test_mask], roofline[test_mask],
                                    families[test_mask])}
    val_family = metrics.grouped(measured[val_mask], predicted[val_mask], families[val_mask])
    digest = data_digest(samples)
    kernel_info: dict[str, Any] = {k: kmeta[k] for k in ("data_digest", "run_id", "dataset")
                                   if k in kmeta}
    if kmeta:
        kernel_info["target"] = kmeta.get("params", {}).get("target")

    uri = tracking.configure(tracking_uri, experiment)
    import mlflow

    registration = None
    notes = list(f.failures[:3])
    with mlflow.start_run(run_name=f"step-gnn-{slug}") as run:
        mlflow.set_tags({"stablecost.model": "step_gnn", "stablecost.hardware": hw.name})
        from ..featurize.program import FEATURIZER_VERSION
        from ..models.features import FEATURE_SCHEMA_VERSION

        mlflow.log_params({**model.get_params(), "target_choice": choice,
                           "target_candidates": ",".join(candidates), "dataset": str(dataset),
                           "dataset_digest": digest, "fingerprint": info.fingerprint_id,
                           "featurizer_version": FEATURIZER_VERSION,
                           "feature_schema_version": FEATURE_SCHEMA_VERSION,
                           "floor_s": floor_s, "samples": len(samples),
                           "nodes_total": int(nodes.sum()), "nodes_max": int(nodes.max()),
                           "hardware": hw.name, "kernel_model": str(kdir or "object"),
                           "kernel_model_digest": kernel_info.get("data_digest", "")})
        tracking.log_dict_metrics(result_metrics)
        for prefix, table in (("test_family", per_family), ("val_family", val_family),
                              ("kernelsum_test_family", baseline_family["kernelsum"]),
                              ("roofline_test_family", baseline_family["roofline"])):
            for family, stats in table.items():
                tracking.log_dict_metrics(metrics.flat(f"{prefix}_{family}", stats))
        _log_history(run.info.run_id, fitted)
        with tempfile.TemporaryDirectory() as tmp:
            tmp_path = Path(tmp)
            report = tmp_path / "report"
            report.mkdir()
            mask = test_mask if test_mask.any() else val_mask
            label = "test" if test_mask.any() else "val"
            plots.scatter({"step GNN": (measured[mask], predicted[mask]),
                           "kernel sum": (measured[mask], kernel_sum[mask]),
                           "roofline": (measured[mask], roofline[mask])},
                          report / f"{label}_scatter.png", f"whole programs, {label} ({hw.name})")
            plots.error_cdf({"step GNN": metrics.ape(measured[mask], predicted[mask]),
                             "kernel sum": metrics.ape(measured[mask], kernel_sum[mask]),
                             "roofline": metrics.ape(measured[mask], roofline[mask])},
                            report / f"{label}_error_cdf.png", f"per-program error, {label} split")
            _write_family_table(per_family, baseline_family, report / "test_per_family.md")
            mlflow.log_artifacts(str(report), artifact_path="report")
            bundle = Path(save) if save else tmp_path / "step_gnn"
            model.save(bundle, floor_s=floor_s, hardware=hw.name,
                       hardware_spec=hw.to_dict(), data_digest=digest,
                       dataset=info.path.name, fingerprint=info.fingerprint,
                       kernel_model=kernel_info,
                       metrics={k: v for k, v in result_metrics.items()
                                if k.startswith(("val_", "test_", "kernelsum_", "roofline_"))},
                       run_id=run.info.run_id)
            mlflow.log_artifacts(str(bundle), artifact_path="bundle")
            logged = _log_pyfunc(tmp_path, bundle, kmodel, kdir, floor_s, hw, slug, register)
            if logged is None:
                notes.append("the kernel model object cannot be saved, so the step GNN was "
                             "logged as bundle artifacts only (not as an MLflow model)")
            elif register and logged.registered_model_version is not None:
                registration = tracking.promote_if_better(
                    REGISTERED_NAME.format(hardware=slug), str(logged.registered_model_version),
                    result_metrics["val_mape"], "val_mape")
    return TrainResult(
        model="step_gnn", hardware=hw.name, run_id=run.info.run_id, tracking_uri=uri,
        choice=choice, metrics=result_metrics, per_family=per_family,
        registered_version=registration.version if registration else None,
        champion=bool(registration and registration.champion),
        saved_to=Path(save) if save else None,
        data={"dataset": str(dataset), "samples": len(samples), "nodes": int(nodes.sum()),
              "digest": digest, "floor_s": floor_s, "failures": len(f.failures),
              "kernel_model": str(kdir) if kdir else None,
              "by_split": {k: int(v) for k, v in samples["split"].value_counts().items()}},
        notes=notes)


def _log_history(run_id: str, fitted: dict[str, tuple[StepGNN, float, float]]) -> None:
    """Per-epoch training loss and validation MAPE of every target, in a few batches."""
    from mlflow import MlflowClient
    from mlflow.entities import Metric

    stamp = int(time.time() * 1000)
    entries = [Metric(f"epoch_{key}_target_{name}", float(value), stamp, record["epoch"])
               for name, (m, _, _) in fitted.items() for record in m.history_
               for key, value in record.items() if key != "epoch"]
    client = MlflowClient()
    for start in range(0, len(entries), 1000):
        client.log_batch(run_id, metrics=entries[start:start + 1000])


def _log_pyfunc(tmp: Path, bundle: Path, kmodel: Any, kdir: Path | None, floor_s: float,
                hw: Any, slug: str, register: bool) -> Any:
    """Log the GNN as a models-from-code pyfunc; None when the kernel model cannot be
    stored with it (an object without `save`)."""
    import mlflow
    from mlflow.models import ModelSignature
    from mlflow.types import ColSpec, Schema

    if kdir is None:
        if not hasattr(kmodel, "save"):
            return None
        kdir = kmodel.save(tmp / "kernel_xgb", floor_s=floor_s, hardware=hw.name)
    spec = tmp / "hardware.toml"
    if hw.path and Path(hw.path).is_file():
        shutil.copyfile(hw.path, spec)
    else:
        raise ModelError(f"hardware {hw.name!r} has no spec file to log with the model "
                         f"(path {hw.path!r})")
    code = tmp / "step_gnn_pyfunc.py"
    code.write_text(PYFUNC_CODE)
    signature = ModelSignature(inputs=Schema([ColSpec("string", "stablehlo")]),
                               outputs=Schema([ColSpec("double", "step_s")]))
    return mlflow.pyfunc.log_model(
        name="model", python_model=str(code),
        artifacts={"step_gnn": str(bundle), "kernel_xgb": str(kdir), "hardware": str(spec)},
        signature=signature, pip_requirements=tracking.pip_requirements(),
        registered_model_name=REGISTERED_NAME.format(hardware=slug) if register else None)


def _write_family_table(learned: dict, baselines: dict, path: Path) -> None:
    lines = ["| family | n | GNN MAPE | median APE | within 10% | Kendall tau | "
             "kernel-sum MAPE | roofline MAPE |", "|---|---|---|---|---|---|---|---|"]
    nan = float("nan")
    for family, s in learned.items():
        k = baselines["kernelsum"].get(family, {})
        r = baselines["roofline"].get(family, {})
        lines.append(f"| {family} | {s['n']} | {s['mape']:.1%} | {s['median_ape']:.1%} | "
                     f"{s['within_10pct']:.0%} | {s.get('kendall_tau', nan):.3f} | "
                     f"{k.get('mape', nan):.1%} | {r.get('mape', nan):.1%} |")
    path.write_text("\n".join(lines) + "\n")
