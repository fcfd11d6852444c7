"""`stablecost evaluate`: the fidelity report of the bundled models on the held-out test
split of a dataset: roofline vs XGBoost vs GNN vs measured, per op family (kernel
samples) and per model family (whole programs). Markdown plus PNG plots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..atomicio import atomic_write_bytes
from ..datasets import store
from ..errors import DatasetError, ModelError
from ..models.learned import load_models, predict_kernels
from . import metrics, plots
from .data import dataset_hardware, featurize_rows, load_frame, pick_dataset


@dataclass
class Evaluation:
    report: Path
    kernels: dict[str, dict[str, float]] = field(default_factory=dict)    # fidelity -> summary
    programs: dict[str, dict[str, float]] = field(default_factory=dict)   # + "ranking_tau"


def _test_rows(dataset: Path, kind: str, seed: int):
    """The held-out test rows of one kind (empty when the dataset has none)."""
    try:
        frame = load_frame(dataset, kind, seed=seed)
    except DatasetError:
        import pandas as pd

        return pd.DataFrame()
    return frame[frame["split"] == "test"].reset_index(drop=True)


def _fmt(stats: dict[str, float]) -> str:
    if not stats.get("n"):
        return "| – | – | – | – |"
    return (f"| {stats['mape']:.1%} | {stats['median_ape']:.1%} | {stats['within_10pct']:.0%} "
            f"| {stats['within_25pct']:.0%} |")


def evaluate(data: str | Path, *, hardware: str | None = None, out: str | Path = "fidelity-report",
             seed: int = 0, models_root: Path | None = None,
             progress: Callable[[str], None] | None = None) -> Evaluation:
    say = progress or (lambda message: None)
    dataset = pick_dataset(data, hardware)
    info = store.DatasetInfo.read(dataset)
    hw = dataset_hardware(dataset)
    models = load_models(info.hardware, models_root)
    if models is None:
        raise ModelError(f"no bundled model for {info.hardware}; train one with "
                         f"`stablecost train xgboost --data {data} --save ...`")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    result = Evaluation(out / "report.md")
    lines = [f"# Fidelity report: {info.hardware} ({dataset.name})", "",
             f"Held-out test split (grouped by shape/model family, seed {seed}); "
             f"models from `{models.path}`. Errors are absolute percentage errors of the "
             "predicted against the measured median time.", ""]

    # kernel samples --------------------------------------------------------------
    test = _test_rows(dataset, "kernel", seed)
    if len(test):
        say(f"kernel samples: {len(test)} test rows")
        f, analyses = featurize_rows(test, hw, keep_analyses=True)
        assert analyses is not None  # keep_analyses=True
        measured = f.samples["median_s"].to_numpy()
        roofline = f.sample_roofline_s()
        # the per-kernel model alone: floor + sum of its kernel predictions
        learned = np.array([models.floor_s + float(np.dot([k.count for k in a.kernels],
                                                          predict_kernels(models, a, hw).time_s))
                            for a in analyses])
        families = f.samples["family"].to_numpy()
        result.kernels = {"roofline": metrics.summary(measured, roofline),
                          "xgboost": metrics.summary(measured, learned)}
        lines += ["## Kernel samples (test split)", "",
                  f"{len(measured)} samples. Learned = floor "
                  f"({models.floor_s * 1e6:.1f} µs) + sum of per-kernel XGBoost predictions.", "",
                  "| family | n | roofline MAPE | median APE | within 10% | within 25% "
                  "| XGBoost MAPE | median APE | within 10% | within 25% |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        rows = [("all", np.ones(len(measured), bool))] + \
            [(fam, families == fam) for fam in sorted(set(families))]
        for label, mask in rows:
            r = metrics.summary(measured[mask], roofline[mask])
            x = metrics.summary(measured[mask], learned[mask])
            lines.append(f"| {label} | {int(mask.sum())} " + _fmt(r) + _fmt(x)[1:])
        lines.append("")
        plots.scatter({"roofline": (measured, roofline), "XGBoost": (measured, learned)},
                      out / "kernels_scatter.png", "kernel samples, test split")
        plots.error_cdf({"roofline": metrics.ape(measured, roofline),
                         "XGBoost": metrics.ape(measured, learned)},
                        out / "kernels_error_cdf.png", "kernel samples, test split")
        lines += ["![kernels](kernels_scatter.png) ![kernels cdf](kernels_error_cdf.png)", ""]

    # whole programs ----------------------------------------------------------------
    test = _test_rows(dataset, "program", seed)
    if len(test):
        say(f"programs: {len(test)} test rows")
        f, analyses = featurize_rows(test, hw, keep_analyses=True)
        assert analyses is not None  # keep_analyses=True
        measured = f.samples["median_s"].to_numpy()
        roofline = f.sample_roofline_s()
        results = [predict_kernels(models, a, hw) for a in analyses]
        kernel_sum = np.array([models.floor_s + float(np.dot([k.count for k in a.kernels],
                                                            r.time_s))
                               for a, r in zip(analyses, results)])
        series = {"roofline": roofline, "XGBoost sum": kernel_sum}
        if models.step is not None:
            series["GNN"] = np.array([r.step_s for r in results])
        families = f.samples["family"].to_numpy()
        for name, values in series.items():
            result.programs[name] = metrics.summary(measured, values) | {
                "ranking_tau": metrics.ranking_tau(measured, values, families)}
        header = "| family | n | " + " | ".join(f"{k} MAPE" for k in series) + \
            " | " + " | ".join(f"{k} τ" for k in series) + " |"
        lines += ["## Whole programs (test split)", "",
                  f"{len(measured)} programs. τ is Kendall's rank correlation among the "
                  "configurations of one family.", "", header,
                  "|" + "---|" * (2 + 2 * len(series))]
        for label, mask in [("all", np.ones(len(measured), bool))] + \
                [(fam, families == fam) for fam in sorted(set(families))]:
            mapes = [metrics.summary(measured[mask], s[mask]).get("mape", float("nan"))
                     for s in series.values()]
            taus = [metrics.kendall_tau(measured[mask], s[mask]) if label != "all" else
                    metrics.ranking_tau(measured, s, families) for s in series.values()]
            lines.append(f"| {label} | {int(mask.sum())} | " +
                         " | ".join(f"{m:.1%}" for m in mapes) + " | " +
                         " | ".join(f"{t:.2f}" for t in taus) + " |")
        lines.append("")
        plots.scatter({k: (measured, v) for k, v in series.items()}, out / "programs_scatter.png",
                      "whole programs, test split")
        plots.error_cdf({k: metrics.ape(measured, v) for k, v in series.items()},
                        out / "programs_error_cdf.png", "whole programs, test split")
        lines += ["![programs](programs_scatter.png) ![programs cdf](programs_error_cdf.png)", ""]
    atomic_write_bytes(result.report, "\n".join(lines).encode())
    return result
