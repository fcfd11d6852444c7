"""Leave one GPU out: the GPU kernel model on a GPU whose data it never saw.

    .venv/bin/python benchmarks/gpu_leave_one_out.py [--data ../shared/data]
                                                     [--rows 2000] [--quick] [--seed 0]
                                                     [--no-power-prior] [--by-size]

For every GPU with measurements in ../shared/data (`train/gpu_corpus.py`: aiconfigurator
GEMMs and fused attention on A100-SXM, H100, H200 and B200; NeuSight fp32 ops on P100,
P4, T4, V100-PCIe and A100-PCIe), the per-kernel model is trained as the bundle is
(`python -m stablecost.train.gpu_kernels`: same corpus, target and defaults) on every
other GPU, and predicts every sample of the held-out one, which it knows only through
its catalog spec. Attention rows are the fused flash-attention kernel that ran, for
the model and the roofline alike (`templates.fused_attention`). The A100 entries (SXM
80 GB, PCIe 40 GB, PCIe 80 GB: one GA100 die) are held out together, so an A100 is
never priced from another A100's data.

Prints one Markdown table per op family: per held-out GPU, the learned model's MAPE,
median APE, share within ±10 % and Kendall τ, its bias and scatter (`bias_split`: the
median of predicted/measured, and the median APE once that one factor is divided
out), next to the roofline's on the same rows, and whether the issue's target holds
(GEMMs, i.e. gemm, bmm and linear: median APE <= 10 % and <= half the roofline's;
other families: median APE <= half the roofline's).

Each (chip, family) slice is capped at `--rows` samples (seeded; `--quick`: 500), so a
run takes a few minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# chips held out together (one die in several boards)
GROUPS = {"A100-SXM-80GB": "A100", "A100-PCIe-40GB": "A100", "A100-PCIe-80GB": "A100"}


def _bundled_target() -> str:
    import json

    meta = ROOT / "models" / "bundled" / "gpu" / "kernel_xgb" / "meta.json"
    try:
        return str(json.loads(meta.read_text())["params"]["target"])
    except (OSError, ValueError, KeyError):
        return "log_ratio"


# the families that are GEMMs: aiconfigurator's bf16/fp8 GEMMs and NeuSight's fp32
# batched matmuls and linear layers
GEMMS = ("gemm", "bmm", "linear")


def bias_split(measured_s, predicted_s) -> tuple[float, float]:
    """(bias, scatter): the median of predicted/measured, and the median APE of the
    predictions divided by it. A held-out chip's error is mostly bias when the scatter
    is far below the median APE (one factor for the whole chip), mostly scatter when
    they are close. Measured (1, 2, 4), predicted (1.1, 2.4, 4.4): ratios 1.1, 1.2,
    1.1, bias 1.1, ratios over it 1, 1.0909, 1, scatter 0."""
    import numpy as np

    ratio = np.asarray(predicted_s, dtype=np.float64) / np.asarray(measured_s, np.float64)
    bias = float(np.median(ratio))
    return bias, float(np.median(np.abs(ratio / bias - 1.0)))


def by_size(part, predicted_s) -> list[tuple[str, int, int, float, float]]:
    """(dtype, quarter 1-4 of roofline time within the dtype, samples, bias, median APE)
    of a GEMM part's predictions."""
    import numpy as np

    ratio = np.asarray(predicted_s) / part.measured_s
    dtypes = part.f.samples["dtype"].to_numpy()
    size = part.f.sample_roofline_s()
    out = []
    for dtype in sorted(set(dtypes)):
        rows = dtypes == dtype
        edges = np.quantile(size[rows], [0.25, 0.5, 0.75])
        quarter = np.searchsorted(edges, size)
        for q in range(4):
            chosen = rows & (quarter == q)
            if chosen.any():
                out.append((str(dtype), q + 1, int(chosen.sum()),
                            float(np.median(ratio[chosen])),
                            float(np.median(np.abs(ratio[chosen] - 1.0)))))
    return out


def _check(family: str, learned: dict, roofline: dict) -> str:
    ok = learned["median_ape"] <= 0.5 * roofline["median_ape"]
    if family in GEMMS:
        ok = ok and learned["median_ape"] <= 0.10
    return "met" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--rows", type=int, default=2000,
                        help="most samples per (chip, family) slice (seeded; default 2000)")
    parser.add_argument("--quick", action="store_true", help="500 samples per slice")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-power-prior", action="store_true",
                        help="fit against the plain roofline, without the TFLOP/s-per-watt "
                             "efficiency prior (models/power_prior.py) the bundle uses")
    parser.add_argument("--by-size", action="store_true",
                        help="also print, per held-out GPU, its GEMMs' bias and median APE "
                             "by dtype and quarter of roofline time")
    args = parser.parse_args()
    from stablecost.train import metrics
    from stablecost.train.gpu_corpus import FAMILIES, fit, load_parts, predict_samples

    rows = 500 if args.quick else args.rows
    started = time.perf_counter()
    if not Path(args.data).is_dir():
        sys.exit(f"gpu_leave_one_out: {args.data} not found; --data must point at the shared "
                 "data folder (../shared/data)")
    parts = load_parts(args.data, rows=rows, seed=args.seed,
                       say=lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    target = _bundled_target()
    held = sorted({GROUPS.get(p.chip, p.chip) for p in parts})
    # family -> list of (held-out label, chip, learned summary, roofline summary)
    results: dict[str, list[tuple[str, dict, dict]]] = {f: [] for f in FAMILIES}
    priors = {}
    sizes: list[tuple[str, list[tuple[str, int, int, float, float]]]] = []
    for group in held:
        t0 = time.perf_counter()
        train = [p for p in parts if GROUPS.get(p.chip, p.chip) != group]
        test = [p for p in parts if GROUPS.get(p.chip, p.chip) == group]
        model = fit(train, target=target, seed=args.seed, interval=False,
                    prior=not args.no_power_prior)
        priors[group] = model.power_prior_
        for p in test:
            predicted = predict_samples(model, p)
            learned = metrics.summary(p.measured_s, predicted)
            learned["bias"], learned["scatter"] = bias_split(p.measured_s, predicted)
            roofline = metrics.summary(p.measured_s, p.f.sample_roofline_s())
            results[p.family].append((p.chip, learned, roofline))
            if args.by_size and p.family == "gemm":
                sizes.append((p.chip, by_size(p, predicted)))
        print(f"  held out {group}: {model.best_iteration_} rounds, "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    print(f"## Leave one GPU out ({rows:,} samples at most per chip and family, seed "
          f"{args.seed}, target {target})\n")
    print("Power prior per fold (efficiency = e_max below the knee, falling as (TFLOP/s "
          "per W / knee)^-alpha above it; fitted on the fold's training GEMMs): "
          + "; ".join(f"without {g}: " + ("none" if p is None else
                      f"e_max {p.e_max:.3f}, knee {p.knee:.2f}, alpha {p.alpha:.3f}")
                      for g, p in priors.items()) + "\n")
    for family in FAMILIES:
        if not results[family]:
            continue
        print(f"### {family}\n")
        print("| held-out GPU | n | MAPE | median APE | within ±10 % | Kendall τ | "
              "bias (median pred/meas) | scatter (median APE, bias divided out) | "
              "roofline MAPE | roofline median APE | roofline within ±10 % | roofline τ | "
              "target |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for chip, s, r in results[family]:
            print(f"| {chip} | {s['n']:,} | {s['mape']:.1%} | {s['median_ape']:.1%} | "
                  f"{s['within_10pct']:.0%} | {s['kendall_tau']:.3f} | {s['bias']:.3f} | "
                  f"{s['scatter']:.1%} | {r['mape']:.1%} | "
                  f"{r['median_ape']:.1%} | {r['within_10pct']:.0%} | "
                  f"{r['kendall_tau']:.3f} | {_check(family, s, r)} |")
        print()
    if sizes:
        print("### GEMMs by dtype and size\n")
        print("Each held-out GPU's GEMMs split by dtype, then into quarters of their "
              "roofline time (1: the smallest): bias (median predicted / measured) and "
              "median APE.\n")
        print("| held-out GPU | dtype | quarter | n | bias | median APE |")
        print("|---|---|---|---|---|---|")
        for chip, table in sizes:
            for dtype, quarter, n, bias, ape in table:
                print(f"| {chip} | {dtype} | {quarter} | {n:,} | {bias:.3f} | {ape:.1%} |")
        print()
    met = [(f, c) for f, rows_ in results.items() for c, s, r in rows_
           if _check(f, s, r) == "met"]
    total = sum(len(v) for v in results.values())
    print(f"Target met on {len(met)} of {total} (GPU, family) rows; "
          f"{time.perf_counter() - started:.0f} s in all.")


if __name__ == "__main__":
    main()
