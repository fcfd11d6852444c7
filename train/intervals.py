"""The 80 % interval of a learned step time, fitted on held-out programs.

The per-kernel quantile model bounds one kernel; a step's error is not the sum of its
kernels' (their errors partly cancel, and the step GNN corrects them). So the step
interval is read off the bundle's own errors on programs it was not fitted to: the
validation split of its dataset, priced exactly as predict prices them, and split by
what priced the step (the step GNN, or the kernel sum; the step calibration carries
its own interval, from held-out families: train/step_calibration.py). The 10th and
90th percentiles of log(measured / predicted) become `kernel_xgb/step_interval.json` in the bundle;
predict multiplies the step by their exponentials. The test split's coverage is
reported beside them, for a check on programs the fit did not see.

    python -m stablecost.train.intervals --data data/cpu [--write]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..atomicio import atomic_write_bytes
from ..datasets import store
from ..errors import ModelError
from ..featurize.analysis import analyze, for_chip_kind
from ..featurize.ingest import load_program
from ..models.learned import STEP_INTERVAL_FILE, bundle_path, load_models, predict_kernels
from ..models.manifest import refresh_manifest
from .data import dataset_hardware, load_frame, pick_dataset

COVERAGE = 0.8


def _log_residuals(frame: Any, models: Any, hw: Any) -> dict[str, list[float]]:
    """log(measured / predicted) of each program row, by what priced its step."""
    out: dict[str, list[float]] = {"step_gnn": [], "kernel_sum": []}
    # the GNN's own errors: a step it prices is blended with the calibration, whose
    # interval (from held-out families) the predicted interval spans too. The steps are
    # composed as on the bundle's own machine, the only one where the GNN takes part
    # (elsewhere the in-step corrector composes them: `learned.step_composition`).
    models = dataclasses.replace(models, calibration=None, corrector=None)
    for text, measured in zip(frame["stablehlo"], frame["median_s"]):
        learned = predict_kernels(
            models, for_chip_kind(analyze(load_program(text)), hw.kind), hw)
        if learned.step_s > 0 and measured > 0 and learned.step_source in out:
            out[learned.step_source].append(math.log(measured / learned.step_s))
    return out


def fit_step_interval(data: str | Path, *, hardware: str | None = None,
                      seed: int = 0) -> dict[str, Any]:
    """The interval table for the bundle of `data`'s hardware (see the docstring)."""
    dataset = pick_dataset(data, hardware)
    info = store.DatasetInfo.read(dataset)
    models = load_models(info.hardware)
    if models is None:
        raise ModelError(f"no bundled model for {info.hardware}")
    hw = dataset_hardware(dataset)
    frame = load_frame(dataset, "program", seed=seed)
    by_split = {split: _log_residuals(frame[frame["split"] == split], models, hw)
                for split in ("val", "test")}
    low_q, high_q = (1 - COVERAGE) / 2, (1 + COVERAGE) / 2
    sources = {}
    for source, values in by_split["val"].items():
        if len(values) < 10:
            continue
        low, high = (float(q) for q in np.quantile(values, [low_q, high_q]))
        test = by_split["test"][source]
        inside = [low <= v <= high for v in test]
        sources[source] = {"low_log_ratio": low, "high_log_ratio": high, "n": len(values),
                           "test_n": len(test),
                           "test_coverage": float(np.mean(inside)) if inside else None}
    return {"coverage": COVERAGE, "split": "val", "dataset": info.path.name,
            "data_digest": str(models.kernel_meta.get("data_digest", "")),
            "by_source": sources}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="data/cpu")
    parser.add_argument("--hardware", default=None)
    parser.add_argument("--write", action="store_true",
                        help="write the table into the bundle (kernel_xgb/)")
    args = parser.parse_args(argv)
    table = fit_step_interval(args.data, hardware=args.hardware)
    text = json.dumps(table, indent=1) + "\n"
    print(text, end="")
    if args.write:
        hardware = store.DatasetInfo.read(pick_dataset(args.data, args.hardware)).hardware
        path = bundle_path(hardware) / "kernel_xgb" / STEP_INTERVAL_FILE
        atomic_write_bytes(path, text.encode())
        # the manifest records the new table once the bundle's other files check out
        refresh_manifest(path.parent, [STEP_INTERVAL_FILE])
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
