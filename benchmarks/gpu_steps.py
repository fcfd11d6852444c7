"""Whole steps measured on a GPU against every way stablecost prices them.

    .venv/bin/python benchmarks/gpu_steps.py [--data data/h100-sxm-69c6a60d]
        [--steps benchmarks/timings/h100-sxm-69c6a60d/steps]

Two sets of steps measured with XLA:GPU on the dataset's chip: the zoo programs of
`--data` (`stablecost collect programs` there) and the example workloads of `--steps`
(`benchmarks/xla_gpu.py`). Each is priced by:

- `kernel sum`: the shared GPU bundle's kernel model, kernels outside its data at their
  roofline time (what `predict(..., fidelity="learned")` gives for a GPU today);
- `calibration, free` / `calibration, pinned`: a step calibration fitted on the zoo
  steps over those kernel sums (`train.step_calibration`, its five terms free, or the
  scales held at 1); on the zoo each family is priced by a fit without it, the
  examples by a fit over the whole zoo;
- `roofline`: the calibrated roofline.

Printed: MAPE and median APE per set and pricing, the examples one by one, and the
zoo's repeat floor (`stablecost dataset noise` run on the GPU, kept beside the dataset
as `noise-*.json`). Needs no GPU; about a minute.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np
from _common import commit, today

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="data/h100-sxm-69c6a60d")
    parser.add_argument("--steps", default="benchmarks/timings/h100-sxm-69c6a60d/steps")
    args = parser.parse_args()
    from stablecost.models.learned import GPU_BUNDLE, load_kernel_model
    from stablecost.train import step_calibration as sc
    from stablecost.train.data import dataset_hardware, load_frame, pick_dataset

    dataset = pick_dataset(ROOT / args.data, None)
    hw = dataset_hardware(dataset)
    models = load_kernel_model(GPU_BUNDLE)
    frame = load_frame(dataset, "program", seed=0)
    zoo = sc.program_sums(frame, hw, models, progress=False)
    steps = ROOT / args.steps
    results = {n: r for n, r in json.loads((steps / "results.json").read_text()).items()
               if "step" in r}
    examples = frame.iloc[[0] * len(results)].copy().reset_index(drop=True)
    for i, (name, row) in enumerate(results.items()):
        with gzip.open(steps / f"{name}.stablehlo.mlir.gz", "rt") as f:
            examples.loc[i, "stablehlo"] = f.read()
        examples.loc[i, "median_s"] = row["step"]["median_s"]
        examples.loc[i, "family"] = name
    ex = sc.program_sums(examples, hw, models, progress=False)

    def kernel_sum(sums: sc.ProgramSums) -> np.ndarray:
        return models.floor_s + sums.seconds.sum(axis=1) + sums.fixed_s

    def calibrated(fit: sc.ProgramSums, sums: sc.ProgramSums, pin: bool) -> np.ndarray:
        terms = sc.fit_terms(fit.design(), fit.fit_target_s(), pin_scales=pin)
        return sc.predict_sums(sc.calibration_from(terms), sums)

    def held_out(pin: bool) -> np.ndarray:
        out = np.zeros(len(zoo.measured_s))
        for family in sorted(set(zoo.family.tolist())):
            held = zoo.family == family
            out[held] = calibrated(zoo.take(~held), zoo.take(held), pin)
        return out

    pricings = {
        "kernel sum (learned today)": (kernel_sum(zoo), kernel_sum(ex)),
        "calibration, free": (held_out(False), calibrated(zoo, ex, False)),
        "calibration, pinned": (held_out(True), calibrated(zoo, ex, True)),
        "roofline": (zoo.roofline_s, ex.roofline_s),
    }
    noise = sorted((ROOT / args.data).glob("noise-*.json"))
    floor = ""
    if noise:
        stats = json.loads(noise[-1].read_text())["by_statistic"]["median_s"]
        floor = (f"; repeat floor (`dataset noise`, {stats['rows']} rows re-measured on the "
                 f"GPU): median {100 * stats['median_abs_error']:.1f} %")
    print(f"GPU steps, measured on {hw.name} ({Path(args.data).name}), {today()}, commit "
          f"{commit()}: benchmarks/gpu_steps.py --data {args.data}")
    print(f"\nzoo: {len(zoo.measured_s)} programs, {len(set(zoo.family.tolist()))} families, "
          f"calibrations priced leave-one-family-out{floor}; examples: {len(ex.measured_s)} "
          "steps, calibrations fitted on the whole zoo\n")
    print("| pricing | zoo MAPE | zoo median APE | examples MAPE | examples median APE |")
    print("|---|---|---|---|---|")
    for name, (on_zoo, on_ex) in pricings.items():
        z, e = np.abs(on_zoo / zoo.measured_s - 1), np.abs(on_ex / ex.measured_s - 1)
        print(f"| {name} | {100 * z.mean():.1f} % | {100 * np.median(z):.1f} % | "
              f"{100 * e.mean():.1f} % | {100 * np.median(e):.1f} % |")
    print("\n| example | measured | " + " | ".join(pricings) + " |")
    print("|---|---|" + "---|" * len(pricings))
    for i, name in enumerate(ex.family):
        cells = [f"{on_ex[i] / ex.measured_s[i] - 1:+.0%}" for _, on_ex in pricings.values()]
        print(f"| {name} | {ex.measured_s[i] * 1e3:.3f} ms | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
