"""The per-kernel model on consistent public GPU measurements (aiconfigurator's GEMMs).

    .venv/bin/python benchmarks/gpu_kernels.py [--aiconfigurator ../shared/data/aiconfigurator]
                                               [--rows 12000] [--quick]

On the shipped CPU data the per-kernel targets of the Learned-models issue (90 % of
held-out kernels within ±10 %, median APE <= 5 %) are out of reach because this VM
cannot time a kernel twice within 10 % (see the README). This benchmark asks whether
the *model* can meet them where the measurements are steady: aiconfigurator's GEMM
tables, timed with CUDA graphs and CUDA events on A100, H100, H200 and B200.

One GEMM shape is timed there by several libraries (TRT-LLM, vLLM, SGLang; several
versions each) and several fp8 recipes (per-tensor, static, 128-block scales) that
are the same StableHLO program, so mixing them gives one program several true
times. Each slice below is therefore one library version and one recipe:
TRT-LLM 1.3.0rc20 on Hopper and Blackwell, TRT-LLM 1.0.0 on A100 (the only TRT-LLM
A100 table), bf16 and per-tensor fp8.

Prints three tables:
1. per slice: the kernel model (`stablecost train xgboost`'s fitting step and
   defaults, both targets compared on validation) trained on the slice's training
   shape groups (m, n, k in power-of-two buckets) and scored on its held-out test
   groups, next to the roofline;
2. how far apart two timings of the same GEMMs are: two versions of one library, and
   two libraries (the floor a model mixing them would face);
3. one model over several chips, through the hardware features: trained on the
   training groups of every chip, scored per chip on the test groups; and with one
   chip's data left out of training entirely.

Each slice is imported from a copy of its one parquet file with `stablecost import
aiconfigurator`'s code and capped at `--rows` samples (seeded), so the run takes a few
minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

# (chip, aiconfigurator system folder, library folder, version, recipes)
SLICES = [
    ("A100-SXM-80GB", "a100_sxm", "trtllm", "1.0.0", ("bfloat16",)),
    ("H100-SXM", "h100_sxm", "trtllm", "1.3.0rc20", ("bfloat16", "fp8")),
    ("H200-SXM", "h200_sxm", "trtllm", "1.3.0rc20", ("bfloat16", "fp8")),
    ("B200", "b200_sxm", "trtllm", "1.3.0rc20", ("bfloat16", "fp8")),
]
# (label, system, (library, version), (library, version)) timed on the same shapes
PAIRS = [
    ("H100 bf16, TRT-LLM 1.3.0rc10 vs 1.3.0rc20", "h100_sxm",
     ("trtllm", "1.3.0rc10"), ("trtllm", "1.3.0rc20")),
    ("H100 bf16, TRT-LLM 1.3.0rc20 vs vLLM 0.24.0", "h100_sxm",
     ("trtllm", "1.3.0rc20"), ("vllm", "0.24.0")),
    ("H100 bf16, TRT-LLM 1.3.0rc20 vs SGLang 0.5.14", "h100_sxm",
     ("trtllm", "1.3.0rc20"), ("sglang", "0.5.14")),
]
LEAVE_OUT = "H200-SXM"


@dataclass
class Part:
    """One slice, featurized: kernel rows and the samples they belong to."""

    chip: str
    recipe: str
    f: object                  # stablecost.train.data.Featurized
    target_s: np.ndarray
    weight: np.ndarray

    @property
    def row_split(self) -> np.ndarray:
        return self.f.samples["split"].to_numpy()[self.f.sample]

    def score(self, model, split: str = "test") -> dict[str, float]:
        from stablecost.train import metrics

        mask = self.f.samples["split"].to_numpy() == split
        predicted = self.f.sum_per_sample(model.predict(self.f.X, self.f.roofline_s))
        return metrics.summary(self.f.samples["median_s"].to_numpy()[mask], predicted[mask])

    def roofline(self, split: str = "test") -> dict[str, float]:
        from stablecost.train import metrics

        mask = self.f.samples["split"].to_numpy() == split
        return metrics.summary(self.f.samples["median_s"].to_numpy()[mask],
                               self.f.sample_roofline_s()[mask])


def _import_slices(source: Path, out: Path, work: Path) -> None:
    """Import each slice's one parquet file (a copy of its system's layout holding
    only that file, linked, not copied)."""
    from stablecost.datasets.importers import import_aiconfigurator

    for _, system, library, version, _ in SLICES:
        table = source / system / "gemm" / library / version / "gemm_perf.parquet"
        if not table.is_file():
            sys.exit(f"gpu_kernels: {table} not found; --aiconfigurator must point at a copy "
                     "of aiconfigurator's systems folder (../shared/data/aiconfigurator)")
        folder = work / system / "gemm" / library / version
        folder.mkdir(parents=True)
        (folder / "gemm_perf.parquet").symlink_to(table.resolve())
        (work / f"{system}.yaml").symlink_to((source / f"{system}.yaml").resolve())
    import_aiconfigurator(work, out)


def _featurize(out: Path, rows: int) -> list[Part]:
    from stablecost.train.data import (
        dataset_hardware,
        featurize_rows,
        kernel_targets,
        load_frame,
        pick_dataset,
    )

    parts = []
    for chip, _, _, _, recipes in SLICES:
        dataset = pick_dataset(out, chip)
        hw = dataset_hardware(dataset)
        frame = load_frame(dataset, "kernel")
        for recipe in recipes:
            sub = frame[frame["variant"] == recipe]
            if len(sub) > rows:
                sub = sub.sample(n=rows, random_state=0)
            start = time.perf_counter()
            f, _ = featurize_rows(sub.reset_index(drop=True), hw)
            target_s, weight = kernel_targets(f, 0.0)   # CUDA-graph replays: no call floor
            parts.append(Part(chip, recipe, f, target_s, weight))
            print(f"  featurized {chip} {recipe}: {len(f.samples):,} GEMMs "
                  f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    return parts


def _fit(parts: list[Part]):
    """The kernel model trained on the training rows of `parts` (validation rows for
    early stopping and the target choice), as `stablecost train xgboost` fits it."""
    from stablecost.train import metrics
    from stablecost.train.xgboost_train import fit_kernel_model

    X = np.concatenate([p.f.X for p in parts])
    split = np.concatenate([p.row_split for p in parts])

    def val_mape(model) -> float:
        measured = np.concatenate([p.f.samples["median_s"].to_numpy()[
            p.f.samples["split"].to_numpy() == "val"] for p in parts])
        predicted = np.concatenate([p.f.sum_per_sample(model.predict(p.f.X, p.f.roofline_s))[
            p.f.samples["split"].to_numpy() == "val"] for p in parts])
        return metrics.summary(measured, predicted)["mape"]

    model, *_ = fit_kernel_model(
        X, np.concatenate([p.target_s for p in parts]),
        np.concatenate([p.f.roofline_s for p in parts]),
        np.concatenate([p.weight for p in parts]), split == "train", split == "val",
        ("log_time", "log_ratio"), {"seed": 0}, score=val_mape)
    return model


def _line(label: str, n: int, s: dict[str, float], roofline: dict[str, float]) -> str:
    met = s["within_10pct"] >= 0.9 and s["median_ape"] <= 0.05
    return (f"| {label} | {n:,} | {s['within_10pct']:.0%} | {s['median_ape']:.1%} | "
            f"{s['mape']:.1%} | {s['kendall_tau']:.3f} | {roofline['median_ape']:.1%} | "
            f"{'met' if met else 'MISSED'} |")


HEADER = ["| slice | held-out GEMMs | within ±10 % | median APE | MAPE | Kendall τ | "
          "roofline median APE | target (≥ 90 %, ≤ 5 %) |",
          "|---|---|---|---|---|---|---|---|"]


def per_slice(parts: list[Part]) -> list[str]:
    lines = list(HEADER)
    for part in parts:
        model = _fit([part])
        n = int((part.f.samples["split"] == "test").sum())
        lines.append(_line(f"{part.chip} {part.recipe}, own model", n, part.score(model),
                           part.roofline()))
    return lines


def agreement(source: Path) -> list[str]:
    import pandas as pd

    lines = ["| same bf16 GEMM shapes timed twice | shapes | median |t1/t2 - 1| | "
             "within ±10 % |", "|---|---|---|---|"]
    for label, system, a, b in PAIRS:
        tables = []
        for library, version in (a, b):
            path = source / system / "gemm" / library / version / "gemm_perf.parquet"
            t = pd.read_parquet(path, columns=["gemm_dtype", "m", "n", "k", "latency"])
            t = t[t["gemm_dtype"] == "bfloat16"].groupby(["m", "n", "k"])["latency"].median()
            tables.append(t)
        joined = pd.concat(tables, axis=1, join="inner").to_numpy()
        ratio = np.abs(joined[:, 0] / joined[:, 1] - 1)
        lines.append(f"| {label} | {len(joined):,} | {np.median(ratio):.1%} | "
                     f"{np.mean(ratio <= 0.1):.0%} |")
    return lines


def across_chips(parts: list[Part]) -> list[str]:
    lines = list(HEADER)
    model = _fit(parts)
    for part in parts:
        n = int((part.f.samples["split"] == "test").sum())
        lines.append(_line(f"{part.chip} {part.recipe}, one model for all chips", n,
                           part.score(model), part.roofline()))
    kept = [p for p in parts if p.chip != LEAVE_OUT]
    model = _fit(kept)
    for part in parts:
        if part.chip == LEAVE_OUT:
            n = int((part.f.samples["split"] == "test").sum())
            lines.append(_line(f"{part.chip} {part.recipe}, chip never seen in training", n,
                               part.score(model), part.roofline()))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--aiconfigurator", default=str(ROOT.parent / "shared" / "data" /
                                                        "aiconfigurator"))
    parser.add_argument("--rows", type=int, default=12_000,
                        help="most GEMMs per slice (seeded sample; default 12000)")
    parser.add_argument("--quick", action="store_true", help="3,000 GEMMs per slice")
    args = parser.parse_args()
    source = Path(args.aiconfigurator)
    rows = 3_000 if args.quick else args.rows
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        _import_slices(source, Path(tmp) / "data", Path(tmp) / "systems")
        parts = _featurize(Path(tmp) / "data", rows)
    print(f"## Per slice: the kernel model on held-out GEMM shape groups ({rows:,} GEMMs "
          "at most per slice)\n")
    print("\n".join(per_slice(parts)))
    print("\n## Two timings of the same GEMMs\n")
    print("\n".join(agreement(source)))
    print(f"\n## One model for several chips ({LEAVE_OUT} also left out of training "
          "entirely)\n")
    print("\n".join(across_chips(parts)))
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
