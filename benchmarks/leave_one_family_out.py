"""Leave one program family out: the step GNN judged on families it never saw.

    .venv/bin/python benchmarks/leave_one_family_out.py [--data data/cpu] [--fold mlp,moe]
        [--members 1] [--epochs 200] [--target direct] [--seed 0] [--threads 1]

For each program family F of the dataset (every family, or only the `--fold` ones),
the step GNN is trained on the programs of every other family and predicts the
programs of F. The training follows the bundle's recipe (`stablecost train gnn`): the
other families' `train` split is fitted, the epoch with the lowest MAPE on their `val`
split is kept, and F takes no part in either. The bundled per-kernel model stays as it
is: it was trained on kernel samples only and never saw a program.

One Markdown row per family prices F's programs three ways, side by side:
- learned: exactly as the bundle prices a program (`models.learned.predict_kernels`
  with the fold's GNN in place of the bundled one), so the GNN, or the kernel sum
  when F's programs are smaller than every training program or kernels with opcodes
  the GNN never saw carry >= 10 % of the time (column "GNN": programs priced by it),
  or the roofline where the learned fidelity falls back to it (a kernel-sum program
  whose time sits in loops, `models.cost_model.out_of_range`);
- kernel sum: the per-call floor plus the summed learned kernel times;
- roofline: summed kernel roofline times on the dataset's `hardware.toml` spec.
Then the overall row (every held-out prediction pooled) and the totals. Under them,
for contrast only, the same fold GNNs on the other families' `test` split (in
distribution) and the bundle's own recorded test MAPE.

Per fold (the defaults): 1 network (`--members`) of the bundle's target and
architecture (read from its meta.json) for the bundle's 200 epochs, on 1 torch thread
(about 10x faster than torch's default threads on the shared 2-core VM). On that VM,
with another process busy on the other core, the `mlp` fold took 48 s (fit 46 s) and
the whole command 64 s; a fold costs in proportion to the other families' kernels
(0.87 to 1.06 times the `mlp` fold), so all 18 folds take ~15 min, and `--members 3`
(the bundle's own ensemble, which removes the seed-to-seed noise of one network)
~45 min. Run it on an idle machine for speed only: it uses the stored timings, so
the accuracy does not depend on the load.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIDELITIES = ("learned", "kernel sum", "roofline")


@dataclass
class Programs:
    """Every program of the dataset, featurized once for all folds."""

    family: np.ndarray          # per program
    split: np.ndarray           # train / val / test (by shape group)
    measured_s: np.ndarray
    roofline_s: np.ndarray      # summed kernel roofline on the dataset's spec
    graphs: list[Any]           # step graphs, built as `train.gnn_train` builds them
    analyses: list[Any]


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def git_commit() -> str:
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "--no-optional-locks", *args], cwd=ROOT,
                              capture_output=True, text=True)
    commit = git("rev-parse", "--short", "HEAD").stdout.strip() or "unknown"
    dirty = git("diff", "--quiet", "HEAD", "--").returncode == 1
    return commit + (" (+ uncommitted changes)" if dirty else "")


def repo_relative(path: str) -> str:
    return str(Path(path).relative_to(ROOT)) if Path(path).is_relative_to(ROOT) else path


def same_spec(a: Any, b: Any) -> bool:
    return {**a.to_dict(), "path": ""} == {**b.to_dict(), "path": ""}


def load_programs(dataset: Path, hw: Any, models: Any, seed: int) -> Programs:
    """Featurize the programs; their graphs are built on the spec the kernel model
    prices with (`pricing_hardware`), as `train gnn` and `predict_kernels` do."""
    from stablecost.models.gnn import graph_from_parts, kernel_edges, step_kernels
    from stablecost.train.data import featurize_rows, load_frame, stderr_progress

    frame = load_frame(dataset, "program", seed=seed)
    f, analyses = featurize_rows(frame, hw, keep_analyses=True,
                                 progress=stderr_progress("featurized programs"))
    if f.failures:
        say(f"{len(f.failures)} programs did not featurize, e.g. {f.failures[0]}")
    roofline_s = f.sample_roofline_s()
    priced_hw, _ = models.pricing_hardware(hw)
    if not same_spec(priced_hw, hw):
        say(f"the kernel model prices with {priced_hw.path}, not {hw.path}")
        f, analyses = featurize_rows(frame, priced_hw, keep_analyses=True)
    kernel_pred_s = np.asarray(models.kernel.predict(f.X, f.roofline_s), dtype=np.float64)
    bounds = np.searchsorted(f.sample, np.arange(len(f.samples) + 1))
    graphs = []
    for i, analysis in enumerate(analyses or []):
        rows = slice(bounds[i], bounds[i + 1])
        kernels = step_kernels(analysis.kernels)
        graphs.append(graph_from_parts(f.X[rows], f.roofline_s[rows], f.count[rows],
                                       kernel_pred_s[rows],
                                       kernel_edges(analysis.program, kernels), models.floor_s))
    samples = f.samples
    return Programs(samples["family"].to_numpy(), samples["split"].to_numpy(),
                    samples["median_s"].to_numpy(), roofline_s, graphs, list(analyses or []))


def pick(items: list[Any], mask: np.ndarray) -> list[Any]:
    return [item for item, keep in zip(items, mask) if keep]


def fit_without(programs: Programs, family: str, params: dict[str, Any]) -> Any:
    """The step GNN trained on the other families' train split, its epoch picked on
    their val split."""
    from stablecost.models.gnn import StepGNN

    others = programs.family != family
    train, val = others & (programs.split == "train"), others & (programs.split == "val")
    return StepGNN(**params).fit(pick(programs.graphs, train), programs.measured_s[train],
                                 eval_set=(pick(programs.graphs, val), programs.measured_s[val]))


def price_held_out(programs: Programs, family: str, models: Any, hw: Any
                   ) -> tuple[dict[str, np.ndarray], int]:
    """The three fidelities' seconds for the programs of `family`, and how many of them
    the GNN priced (the rest fell back to the kernel sum)."""
    from stablecost.models.cost_model import out_of_range
    from stablecost.models.learned import predict_kernels

    held = np.flatnonzero(programs.family == family)
    learned, kernel_sum, by_gnn, fallback = [], [], 0, ""
    for i in held:
        analysis = programs.analyses[i]
        result = predict_kernels(models, analysis, hw)
        counts = np.array([k.count for k in analysis.kernels])
        # the learned fidelity's own fallback: loop-dominated kernel-sum programs
        # are priced by the roofline (models/cost_model.py)
        roofline_instead = bool(out_of_range(analysis, result))
        learned.append(programs.roofline_s[i] if roofline_instead else result.step_s)
        kernel_sum.append(models.floor_s + float(np.dot(counts, result.time_s)))
        by_gnn += result.step_source == "step_gnn"
        if result.step_source != "step_gnn":
            fallback = result.note.split("; ")[-1]   # after the note on the spec, if any
    if by_gnn < len(held):
        say(f"  {family}: {len(held) - by_gnn}/{len(held)} by the kernel sum, e.g.: {fallback}")
    return {"learned": np.array(learned), "kernel sum": np.array(kernel_sum),
            "roofline": programs.roofline_s[held]}, by_gnn


def cells(stats: dict[str, float], tau: float) -> str:
    return (f"{stats['mape']:.1%} | {stats['median_ape']:.1%} | {stats['within_10pct']:.0%} "
            f"| {tau:.2f}")


def table_row(label: str, measured_s: np.ndarray, predicted: dict[str, np.ndarray],
              by_gnn: int, taus: dict[str, float] | None = None) -> str:
    from stablecost.train import metrics

    parts = []
    for name in FIDELITIES:
        stats = metrics.summary(measured_s, predicted[name])
        parts.append(cells(stats, stats["kendall_tau"] if taus is None else taus[name]))
    return f"| {label} | {len(measured_s)} | {by_gnn} | " + " | ".join(parts) + " |"


def header() -> list[str]:
    names = " | ".join(f"{name} MAPE | median APE | ±10 % | τ" for name in FIDELITIES)
    return [f"| family | n | GNN | {names} |", "|---|" + "---:|" * (2 + 4 * len(FIDELITIES))]


def parse_folds(values: list[str] | None, families: list[str]) -> list[str]:
    if not values:
        return families
    wanted = [name.strip() for value in values for name in value.split(",") if name.strip()]
    unknown = sorted(set(wanted) - set(families))
    if unknown:
        raise SystemExit(f"--fold {', '.join(unknown)}: no such family; the dataset has "
                         f"{', '.join(families)}")
    return list(dict.fromkeys(wanted))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "data" / "cpu"))
    parser.add_argument("--fold", action="append", help="family (repeatable, or a,b,c)")
    parser.add_argument("--members", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=None, help="default: the bundle's")
    parser.add_argument("--target", default=None, help="direct | residual; default: the bundle's")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads while fitting")
    args = parser.parse_args()

    from stablecost.datasets import store
    from stablecost.models.learned import load_models
    from stablecost.train import metrics
    from stablecost.train.data import dataset_hardware, pick_dataset

    started = time.perf_counter()
    dataset = pick_dataset(args.data, None)
    hardware = store.DatasetInfo.read(dataset).hardware
    hw = dataset_hardware(dataset)
    bundle = load_models(hardware)
    if bundle is None or bundle.step_meta is None:
        raise SystemExit(f"no bundled kernel model and step GNN for {hardware}")
    meta = bundle.step_meta
    params = {**meta["params"], "members": args.members, "seed": args.seed,
              "threads": args.threads, "warm_start": False,
              "epochs": args.epochs or meta["params"]["epochs"],
              "target": args.target or meta["target"]}
    shown = ", ".join(f"{k}={params[k]}" for k in ("target", "members", "epochs", "hidden",
                                                    "layers", "lr", "weight_decay",
                                                    "batch_size", "seed", "threads"))
    print(f"# Leave one family out: {dataset.name} ({hardware})\n\n"
          f"commit {git_commit()}, "
          f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC\n\n"
          f"Per fold: StepGNN({shown}) fitted on the other families' train split, epoch "
          f"picked on their val split; kernel model `{bundle.path.name}/kernel_xgb` "
          f"(kernel samples only, floor {bundle.floor_s * 1e6:.1f} µs); roofline on "
          f"`{repo_relative(hw.path)}`.\n", flush=True)

    programs = load_programs(dataset, hw, bundle, args.seed)
    folds = parse_folds(args.fold, sorted(set(programs.family.tolist())))
    measured, predicted, in_dist = [], {name: [] for name in FIDELITIES}, ([], [])
    rows, gnn_total, fold_s = [], 0, []
    for number, family in enumerate(folds, 1):
        t0 = time.perf_counter()
        gnn = fit_without(programs, family, params)
        fit_s = time.perf_counter() - t0
        values, by_gnn = price_held_out(programs, family, replace(bundle, step=gnn,
                                                                  step_meta=None), hw)
        held_s = programs.measured_s[programs.family == family]
        rows.append(table_row(family, held_s, values, by_gnn))
        measured.append(held_s)
        for name in FIDELITIES:
            predicted[name].append(values[name])
        gnn_total += by_gnn
        test = (programs.family != family) & (programs.split == "test")
        in_dist[0].append(programs.measured_s[test])
        in_dist[1].append(gnn.predict(pick(programs.graphs, test)))
        fold_s.append(time.perf_counter() - t0)
        say(f"fold {number}/{len(folds)} {family}: {len(held_s)} programs, fit {fit_s:.1f} s "
            f"(best epochs {gnn.best_epochs_}), {fold_s[-1]:.1f} s in all")

    measured_s = np.concatenate(measured)
    pooled = {name: np.concatenate(values) for name, values in predicted.items()}
    families = np.concatenate([[family] * len(m) for family, m in zip(folds, measured)])
    taus = {name: metrics.ranking_tau(measured_s, pooled[name], families) for name in FIDELITIES}
    print("\n".join(header() + rows))
    print(table_row("**all (pooled)**", measured_s, pooled, gnn_total, taus))
    macro = np.mean([metrics.summary(m, p)["mape"] for m, p in zip(measured, predicted["learned"])])
    pooled_tau = ", ".join(f"{name} {metrics.kendall_tau(measured_s, pooled[name]):.2f}"
                           for name in FIDELITIES)
    print(f"\nTotals: {len(folds)} folds, {len(measured_s)} held-out programs, {gnn_total} "
          f"priced by the GNN and {len(measured_s) - gnn_total} by the kernel sum; learned MAPE "
          f"averaged over folds {macro:.1%}. τ of the pooled row: mean per-family τ "
          f"(`metrics.ranking_tau`); τ over all pooled programs: {pooled_tau}. "
          f"{np.mean(fold_s):.0f} s per fold, {time.perf_counter() - started:.0f} s in all.")
    contrast = metrics.summary(np.concatenate(in_dist[0]), np.concatenate(in_dist[1]))
    recorded = meta.get("metrics", {})
    print(f"\nIn distribution, for contrast only: the fold GNNs alone on the other families' "
          f"test split: MAPE {contrast['mape']:.1%}, median APE {contrast['median_ape']:.1%}, "
          f"±10 % {contrast['within_10pct']:.0%} ({contrast['n']} predictions); the bundle "
          f"({meta['params']['members']} members x {meta['params']['epochs']} epochs) records "
          f"test MAPE {recorded.get('test_mape', float('nan')):.1%}.")


if __name__ == "__main__":
    main()
