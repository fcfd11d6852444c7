"""Convolutions XLA:CPU runs as loop nests: the kernel samples of a dataset's convolution
families, learned and roofline against their measured times, by variant.

    .venv/bin/python benchmarks/loop_convolutions.py [--data data/cpu-3076d9df]
        [--spec HARDWARE.toml]

Each sample is one convolution program timed alone (`collect kernels`). A row per
(family, variant, runs as a loop nest): the samples, then for the learned fidelity
(the bundled kernel model; a kernel it does not cover on the spec, a loop-nest
convolution where the spec measured `loop_convolution_macs_per_s`, takes its roofline
time, as a prediction does) and for the roofline the median of predicted / measured and
the MAPE, and the measured multiply-add rate. `--spec` prices with another calibration
of the dataset's machine than its own `hardware.toml` (e.g.
`benchmarks/specs/host-cpu-3076d9df-loop-convolution.toml`, the second machine's spec
plus the loop-convolution probe). Featurizing takes about a minute per thousand
samples.
"""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

import numpy as np
from _common import commit

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = ("convolution", "conv3d")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "data" / "cpu-3076d9df"))
    parser.add_argument("--spec", default=None)
    args = parser.parse_args()

    import pandas as pd
    from leave_one_family_out import read_spec

    from stablecost.datasets import store
    from stablecost.featurize.conv_lowering import multiply_adds
    from stablecost.featurize.ingest import load_program
    from stablecost.models.coverage import LOOP_NEST_CONVOLUTION, with_roofline_fallback
    from stablecost.models.learned import load_models
    from stablecost.train.data import dataset_hardware, featurize_rows, load_frame, pick_dataset

    dataset = pick_dataset(args.data, None)
    hardware = store.DatasetInfo.read(dataset).hardware
    hw = dataset_hardware(dataset) if args.spec is None else read_spec(args.spec, hardware)
    bundle = load_models(hardware)
    if bundle is None:
        raise SystemExit(f"no bundled kernel model for {hardware}")
    frame = load_frame(dataset, "kernel", seed=0)
    frame = frame[frame["family"].isin(FAMILIES)].reset_index(drop=True)
    if frame.empty:
        raise SystemExit(f"{dataset}: no kernel samples of {', '.join(FAMILIES)}")
    priced, _ = bundle.pricing_hardware(hw)
    f, _ = featurize_rows(frame, priced)
    learned_k = with_roofline_fallback(bundle.kernel.predict(f.X, f.roofline_s), f.roofline_s,
                                       f.cpu_kind, priced, bundle.kernel_meta)
    samples = f.samples
    measured = samples["median_s"].to_numpy()
    learned = bundle.floor_s + f.sum_per_sample(learned_k)
    roofline = f.sample_roofline_s()
    loop = np.bincount(f.sample, (f.cpu_kind == LOOP_NEST_CONVOLUTION).astype(float),
                       minlength=len(samples)) > 0
    macs = np.array([sum(multiply_adds(op) for op in load_program(text).ops
                         if op.opcode == "convolution") for text in samples["stablehlo"]])
    table = pd.DataFrame({"family": samples["family"], "variant": samples["variant"],
                          "loop": loop, "learned": learned / measured,
                          "roofline": roofline / measured, "gmacs": macs / measured / 1e9})

    def mape(ratio: pd.Series) -> float:
        return float(np.mean(np.abs(ratio - 1)))

    print(f"# Loop-nest convolutions: {dataset.name}, spec `{hw.path}`\n\n"
          f"commit {commit()}, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}"
          f" UTC; loop rate {hw.loop_convolution_macs_per_s or 'not measured'}\n")
    print("| family | variant | loop nest | n | learned / measured (median) | learned MAPE | "
          "roofline / measured (median) | roofline MAPE | measured G multiply-adds/s |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for (family, variant, is_loop), rows in table.groupby(["family", "variant", "loop"]):
        print(f"| {family} | {variant} | {'yes' if is_loop else 'no'} | {len(rows)} | "
              f"{rows.learned.median():.2f} | {mape(rows.learned):.1%} | "
              f"{rows.roofline.median():.2f} | {mape(rows.roofline):.1%} | "
              f"{rows.gmacs.median():.2f} |")
    for name, rows in (("loop nests", table[table.loop]), ("all", table)):
        print(f"| **{name}** | | | {len(rows)} | {rows.learned.median():.2f} | "
              f"{mape(rows.learned):.1%} | {rows.roofline.median():.2f} | "
              f"{mape(rows.roofline):.1%} | {rows.gmacs.median():.2f} |")


if __name__ == "__main__":
    main()
