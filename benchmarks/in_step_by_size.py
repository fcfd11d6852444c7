"""Kernels inside profiled steps against their prices, by kernel class and bytes moved.

    .venv/bin/python benchmarks/in_step_by_size.py [--data DIR ...]

For every kernel run once per step of each dataset's profiled programs (`stablecost
collect profiles`), priced on the spec `predict` prices that machine with: its time
inside the step against the bundled kernel model's price and against its roofline time
(`max(compute, memory)` on that machine's calibration), by kernel class and by the
bytes it reads and writes. Two ratios per cell: the median of the kernels' ratios, and
the ratio of the summed times (what a step, a sum of kernels, sees). Default data: the
datasets the bundled in-step corrector was fitted on.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BINS_MIB = (0.0, 0.25, 1.0, 4.0, 16.0, 64.0, float("inf"))
KINDS = ("loop", "reduction", "matmul", "standalone")


def table(dataset: Path, models) -> list[str]:
    import pandas as pd

    from stablecost.models.features import FEATURES
    from stablecost.train.in_step import profiled

    part = profiled(dataset, models)
    if part is None:
        raise SystemExit(f"{dataset}: no step profiles (`stablecost collect profiles`)")
    r = part.rows

    def column(name: str) -> np.ndarray:
        return r.X[:, FEATURES.index(name)]

    # the kernel features are log2(1 + value)
    mib = (np.exp2(column("bytes_read")) + np.exp2(column("bytes_written")) - 2.0) / 2**20
    roofline_us = np.maximum(np.exp2(column("rl_memory_us")), np.exp2(column("rl_compute_us"))) - 1
    kind = np.array(KINDS)[np.argmax(np.stack([column(f"kind_{k}") for k in KINDS], 1), 1)]
    in_step_us = part.in_step_s * 1e6
    keep = np.isfinite(in_step_us) & (in_step_us > 0) & ~r.outside & (r.count == 1)
    frame = pd.DataFrame({"kind": kind, "mib": mib, "in_step": in_step_us,
                          "kernel": r.predicted_s * 1e6, "roofline": roofline_us})[keep]
    frame["size"] = pd.cut(frame.mib, BINS_MIB)
    lines = [f"### {part.name}: {int(keep.sum())} kernels run once per step", "",
             "| class | MiB moved | kernels | in-step / kernel model, median | summed "
             "| in-step / roofline, median | summed |", "|---|---|---:|---:|---:|---:|---:|"]
    for (k, size), g in frame.groupby(["kind", "size"], observed=True):
        lines.append(
            f"| {k} | {size.left:g}-{size.right:g} | {len(g)} "
            f"| {np.exp(np.median(np.log(g.in_step / g.kernel))):.2f} "
            f"| {g.in_step.sum() / g.kernel.sum():.2f} "
            f"| {np.exp(np.median(np.log(g.in_step / g.roofline))):.2f} "
            f"| {g.in_step.sum() / g.roofline.sum():.2f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", default=[],
                        help="a profiled dataset (repeatable; default: the in-step "
                             "corrector's)")
    args = parser.parse_args(argv)
    from stablecost.models.learned import bundled_corrector, load_models
    from stablecost.train.data import pick_dataset

    models = load_models("host-cpu")
    corrector = bundled_corrector(models) if models is not None else None
    folders = args.data or (corrector.meta.get("data", []) if corrector else [])
    if not folders:
        raise SystemExit("no profiled dataset given (--data) and no bundled corrector")
    for folder in folders:
        path = Path(folder) if Path(folder).is_absolute() else ROOT / folder
        print("\n".join(table(pick_dataset(str(path), "host-cpu"), models)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
