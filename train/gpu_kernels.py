"""Train the bundled GPU kernel model: one per-kernel XGBoost model over every GPU with
public measurements (`gpu_corpus`), each chip seen through its catalog spec (the
hardware features), so that any catalog NVIDIA GPU is priced through its own numbers.

    python -m stablecost.train.gpu_kernels --data ../shared/data [--rows 4000] \\
        [--write models/bundled/gpu/kernel_xgb] [--tracking-uri URI]

Both targets (log time, log ratio to the roofline) are fitted on the training shape
groups and the one with the lower validation MAPE (per measured sample) is kept; its
test-split accuracy per chip and family goes into the bundle's metadata and the MLflow
run. With log ratio, the roofline's compute term of dots and convolutions on tensor
units is first divided by the power prior fitted on the training GEMMs
(`models.power_prior`: the share of peak a chip sustains, from its TFLOP/s per watt),
which the metadata keeps. The metadata also records the command, the chips and the coverage table
(`models.coverage`): the kernel classes and opcodes of the training data, outside which
`predict` prices a kernel with the roofline and says so.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..datasets.importers.rows import COLLECTOR_VERSION
from ..models.coverage import class_ranges, coverage_table
from ..models.kernel_model import TARGETS
from . import metrics
from .gpu_corpus import Part, fit, load_parts, predict_samples, stderr

BUNDLE = Path(__file__).resolve().parent.parent / "models" / "bundled" / "gpu" / "kernel_xgb"
VENDORS = ("NVIDIA",)


def _val_mape(model: Any, parts: list[Part]) -> float:
    measured = np.concatenate([p.measured_s[p.sample_split == "val"] for p in parts])
    predicted = np.concatenate([predict_samples(model, p)[p.sample_split == "val"]
                                for p in parts])
    return metrics.summary(measured, predicted)["mape"]


def _test_table(model: Any, parts: list[Part]) -> dict[str, dict[str, float]]:
    """Test-split accuracy per chip/family, next to the roofline's."""
    out: dict[str, dict[str, float]] = {}
    for p in parts:
        mask = p.sample_split == "test"
        if mask.sum() < 2:
            continue
        s = metrics.summary(p.measured_s[mask], predict_samples(model, p)[mask])
        r = metrics.summary(p.measured_s[mask], p.f.sample_roofline_s()[mask])
        out[f"{p.chip}/{p.family}"] = {"n": int(mask.sum()), "mape": s["mape"],
                                       "median_ape": s["median_ape"],
                                       "within_10pct": s["within_10pct"],
                                       "roofline_median_ape": r["median_ape"]}
    return out


def training_ranges(parts: list[Part]) -> dict[str, dict[str, list[float]]]:
    """Per coverage class, the range of each `coverage.RANGE_FEATURES` feature over the
    training kernels (the guard of `coverage.out_of_range`)."""
    return class_ranges([(cls, x) for p in parts for x, (cls, _) in zip(p.f.X, p.classes)])


def add_ranges(data: str | Path, bundle: Path, *, rows: int = 4000, seed: int = 0) -> Path:
    """Record the training ranges in an existing bundle's meta.json (and its manifest)
    without refitting it: the corpus is featurized again and must be the one the bundle
    was trained on (its data digest is checked)."""
    import json

    import pandas as pd

    from ..models.manifest import write_manifest
    from .data import data_digest

    meta_path = bundle / "meta.json"
    meta = json.loads(meta_path.read_text())
    parts = load_parts(data, rows=rows, seed=seed, say=stderr)
    digest = data_digest(pd.concat([p.f.samples for p in parts]))
    if digest != meta.get("data_digest"):
        raise SystemExit(f"{bundle}: trained on data {meta.get('data_digest')}, {data} "
                         f"gives {digest}: retrain it instead (--write)")
    meta["ranges"] = training_ranges(parts)
    tmp = meta_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta, indent=1) + "\n")
    tmp.replace(meta_path)
    write_manifest(bundle)
    return meta_path


def train(data: str | Path, *, rows: int = 4000, seed: int = 0, write: Path | None = None,
          tracking_uri: str | None = None, experiment: str = "stablecost",
          command: str = "") -> dict[str, Any]:
    from .data import data_digest

    started = time.perf_counter()
    parts = load_parts(data, rows=rows, seed=seed, say=stderr)
    if not parts:
        raise SystemExit(f"{data}: no GPU measurements found")
    fitted = {}
    for target in TARGETS:
        t0 = time.perf_counter()
        model = fit(parts, target=target, seed=seed, interval=False)
        fitted[target] = (_val_mape(model, parts), model)
        stderr(f"target {target}: val MAPE {fitted[target][0]:.1%} "
               f"({time.perf_counter() - t0:.0f} s, {model.best_iteration_} rounds)")
    choice = min(fitted, key=lambda k: fitted[k][0])
    model = fit(parts, target=choice, seed=seed)
    table = _test_table(model, parts)
    import pandas as pd

    samples = pd.concat([p.f.samples for p in parts])
    digest = data_digest(samples)
    chips = sorted({p.chip for p in parts})
    meta: dict[str, Any] = {
        "floor_s": 0.0, "hardware": "gpu", "hardware_kind": "gpu", "vendors": list(VENDORS),
        "chips": chips, "families": sorted({p.family for p in parts}),
        "coverage": coverage_table([c for p in parts for c in p.classes]),
        "ranges": training_ranges(parts),
        "data_digest": digest, "dataset": f"../shared/data ({COLLECTOR_VERSION} importers)",
        "rows_per_slice": rows, "samples": int(len(samples)),
        "kernel_rows": int(sum(len(p.f.X) for p in parts)),
        "val_mape_by_target": {k: v for k, (v, _) in fitted.items()},
        "test": table, "command": command, "seed": seed,
    }
    if model.power_prior_ is not None:
        meta["power_prior"] = model.power_prior_.to_dict()
    import mlflow

    from . import tracking

    tracking.configure(tracking_uri, experiment)
    with mlflow.start_run(run_name="kernel-xgb-gpu") as run:
        mlflow.set_tags({"stablecost.model": "kernel_xgb", "stablecost.hardware": "gpu"})
        mlflow.log_params({**model.get_params(), "target_choice": choice, "rows": rows,
                           "chips": ",".join(chips), "dataset_digest": digest,
                           "samples": len(samples), "command": command[:500],
                           "power_prior": str(meta.get("power_prior"))})
        flat = {f"val_mape_target_{k}": v for k, (v, _) in fitted.items()}
        for key, stats in table.items():
            flat |= {f"test_{key.replace('/', '_')}_{m}": v for m, v in stats.items()}
        tracking.log_dict_metrics(flat)
        meta["run_id"] = run.info.run_id
        with tempfile.TemporaryDirectory() as tmp:
            bundle = write or Path(tmp) / "kernel_xgb"
            model.save(bundle, **meta)
            mlflow.log_artifacts(str(bundle), artifact_path="bundle")
    stderr(f"done in {time.perf_counter() - started:.0f} s; target {choice}"
           + (f"; bundle written to {write}" if write else ""))
    return {"target": choice, "test": table, "run_id": meta["run_id"], "digest": digest}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m stablecost.train.gpu_kernels",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="../shared/data",
                        help="the shared data folder (aiconfigurator/, neusight/)")
    parser.add_argument("--rows", type=int, default=4000,
                        help="most samples per (chip, family) slice, seeded (default 4000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", nargs="?", const=str(BUNDLE), default=None,
                        help=f"write the bundle (default place: {BUNDLE})")
    parser.add_argument("--ranges-only", nargs="?", const=str(BUNDLE), default=None,
                        metavar="BUNDLE",
                        help="record the training ranges (the out-of-range guard) in an "
                             f"existing bundle without refitting it (default {BUNDLE})")
    parser.add_argument("--tracking-uri", default=None)
    parser.add_argument("--experiment", default="stablecost")
    args = parser.parse_args(argv)
    if args.rows < 50:
        parser.error(f"--rows {args.rows}: at least 50 samples per slice")
    if args.ranges_only is not None:
        if args.write is not None:
            parser.error("--ranges-only updates a bundle in place; leave out --write")
        written = add_ranges(args.data, Path(args.ranges_only), rows=args.rows,
                             seed=args.seed)
        print(f"wrote {written}")
        return
    argv_used = sys.argv[1:] if argv is None else argv
    command = "python -m stablecost.train.gpu_kernels " + shlex.join(argv_used)
    result = train(args.data, rows=args.rows, seed=args.seed,
                   write=Path(args.write) if args.write else None,
                   tracking_uri=args.tracking_uri, experiment=args.experiment,
                   command=command)
    print("| chip/family | test n | median APE | MAPE | within ±10 % | roofline median APE |")
    print("|---|---|---|---|---|---|")
    for key, s in result["test"].items():
        print(f"| {key} | {s['n']} | {s['median_ape']:.1%} | {s['mape']:.1%} | "
              f"{s['within_10pct']:.0%} | {s['roofline_median_ape']:.1%} |")


if __name__ == "__main__":
    main()
