"""Accuracy and speed of the learned fidelity against the Learned-models issue's targets.

    .venv/bin/python benchmarks/learned.py [--data data/cpu] [--hardware host-cpu]
                                           [--rows 1000000] [--layers 75]

Prints three tables:
1. accuracy on the held-out test split of the dataset (the bundled models, as
   `stablecost evaluate` computes it): per kernel sample and per whole program, learned
   vs roofline;
2. the training time of the XGBoost model on `--rows` rows (the dataset's kernel
   feature rows resampled with small jitter up to that count), through the same fitting
   step as `stablecost train xgboost` with its defaults (both targets compared on a
   subsample, the winner fitted on all rows, quantile model), 2 threads; the rounds
   are fixed (see `training_speed`);
3. the latency of a learned prediction of a ~10k-op training step after it is loaded
   and analyzed (fresh caches every repeat).

Run it on an idle machine: the two cores are shared.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))


def _row(name: str, value: str, target: str, met: bool | None) -> str:
    verdict = "" if met is None else ("met" if met else "MISSED")
    return f"| {name} | {value} | {target} | {verdict} |"


def accuracy(data: str, hardware: str | None) -> list[str]:
    from stablecost.train.evaluate import evaluate

    with tempfile.TemporaryDirectory() as tmp:
        result = evaluate(data, hardware=hardware, out=tmp)
    k, p = result.kernels, result.programs
    lines = ["| measure | measured | target | |", "|---|---|---|---|"]
    if k:
        x, r = k["xgboost"], k["roofline"]
        lines += [
            _row(f"kernel samples within ±10 % (n={x['n']})", f"{x['within_10pct']:.1%}",
                 "≥ 90 %", x["within_10pct"] >= 0.9),
            _row("kernel samples median APE", f"{x['median_ape']:.1%}", "≤ 5 %",
                 x["median_ape"] <= 0.05),
            _row("kernel samples MAPE (roofline)", f"{x['mape']:.1%} ({r['mape']:.1%})", "", None),
            _row("kernel samples Kendall τ", f"{x['kendall_tau']:.2f}", "", None),
        ]
    if p:
        best = "GNN" if "GNN" in p else "XGBoost sum"
        b, r = p[best], p["roofline"]
        lines += [
            _row(f"programs MAPE, {best} (n={b['n']})", f"{b['mape']:.1%}", "≤ 10 %",
                 b["mape"] <= 0.10),
            _row("programs median APE / within ±10 % / within ±25 %",
                 f"{b['median_ape']:.1%} / {b['within_10pct']:.0%} / {b['within_25pct']:.0%}",
                 "", None),
            _row("programs Kendall τ within a family", f"{b['ranking_tau']:.3f}", "≥ 0.9",
                 b["ranking_tau"] >= 0.9),
            _row("roofline MAPE / learned MAPE", f"{r['mape'] / b['mape']:.1f}x "
                 f"({r['mape']:.1%} / {b['mape']:.1%})", "≥ 3x", r["mape"] / b["mape"] >= 3),
        ]
        for name, s in p.items():
            if name != best:
                lines.append(_row(f"programs MAPE, {name}", f"{s['mape']:.1%}", "", None))
    return lines


def training_speed(data: str, hardware: str | None, rows: int) -> list[str]:
    """Time `train xgboost`'s fitting step (`fit_kernel_model`: both targets compared on
    a subsample, the winner fitted on every row with its quantile model; default
    hyperparameters) on `rows` training rows resampled, with small jitter, from the
    dataset's train split.

    Resampled rows carry no new information, so early stopping on them says nothing
    about a real 1M-row dataset: the rounds are fixed instead, once at the count the
    bundled model early-stopped at on the real data, once at the `n_estimators` cap
    (the worst case)."""
    from stablecost.models.kernel_model import KernelCostModel
    from stablecost.models.learned import load_models
    from stablecost.train.data import (
        dataset_hardware,
        featurize_rows,
        kernel_targets,
        load_frame,
        per_call_floor_s,
        pick_dataset,
    )
    from stablecost.train.xgboost_train import fit_kernel_model

    dataset = pick_dataset(data, hardware)
    hw = dataset_hardware(dataset)
    frame = load_frame(dataset, "kernel")
    f, _ = featurize_rows(frame, hw)
    target, weight = kernel_targets(f, per_call_floor_s(frame))
    split = f.samples["split"].to_numpy()[f.sample]
    rng = np.random.default_rng(0)
    val_rows = rows * 15 // 70          # the default 70/15/15 split's proportions
    pick = np.concatenate([rng.choice(np.flatnonzero(split == "train"), size=rows),
                           rng.choice(np.flatnonzero(split == "val"), size=val_rows)])
    X = f.X[pick] + rng.normal(0, 0.01, size=(len(pick), f.X.shape[1])).astype(np.float32)
    is_train = np.arange(len(pick)) < rows
    defaults = KernelCostModel().get_params()
    bundled = load_models(hw.name)
    lines = ["| measure | measured | target | |", "|---|---|---|---|"]
    runs = [("the n_estimators cap", defaults["n_estimators"])]
    if bundled is not None:
        runs.insert(0, ("the bundled model's early-stopped count",
                        bundled.kernel.best_iteration_))
    for why, rounds in runs:
        params = {k: defaults[k] for k in ("max_depth", "learning_rate", "seed")}
        params |= {"n_estimators": rounds, "early_stopping_rounds": 0}
        start = time.perf_counter()
        fit_kernel_model(X, target[pick], f.roofline_s[pick], weight[pick], is_train,
                         ~is_train, ("log_time", "log_ratio"), params,
                         score=lambda m: 0.0)
        fit_s = time.perf_counter() - start
        lines.append(_row(f"XGBoost training, {rows:,} rows x {X.shape[1]} features, "
                          f"target auto, {rounds} rounds ({why})",
                          f"{fit_s:.0f} s", "≤ 120 s", fit_s <= 120))
    return lines


def predict_speed(hardware: str, layers: int, repeats: int) -> list[str]:
    from speed import training_step_text

    import stablecost
    from stablecost.serve.api import ProgramCache

    analysis = stablecost.analyze(training_step_text(layers))
    stablecost.predict(analysis, hardware, fidelity="learned", cache=ProgramCache())  # load
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        stablecost.predict(analysis, hardware, fidelity="learned", cache=ProgramCache())
        samples.append(time.perf_counter() - start)
    median = statistics.median(samples)
    return ["| measure | measured | target | |", "|---|---|---|---|",
            _row(f"learned predict, {len(analysis.program.ops):,} ops / "
                 f"{len(analysis.kernels):,} kernels, after load", f"{median * 1e3:.0f} ms",
                 "≤ 100 ms", median <= 0.1)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(ROOT / "data" / "cpu"))
    parser.add_argument("--hardware", default="host-cpu")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--layers", type=int, default=75)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--skip-training", action="store_true")
    args = parser.parse_args()
    print("## Accuracy on the held-out test split\n")
    print("\n".join(accuracy(args.data, args.hardware)))
    print("\n## Learned prediction latency\n")
    print("\n".join(predict_speed(args.hardware, args.layers, args.repeats)))
    if not args.skip_training:
        print("\n## Training speed\n")
        print("\n".join(training_speed(args.data, args.hardware, args.rows)))


if __name__ == "__main__":
    main()
