"""Whole steps measured on a GPU against every way stablecost prices them.

    .venv/bin/python benchmarks/gpu_steps.py [--data data/h100-sxm-69c6a60d]
        [--steps benchmarks/timings/h100-sxm-69c6a60d/steps]
        [--fit-data data/h200-sxm-9c26a180 --fit-steps benchmarks/timings/h200-sxm-9c26a180/steps]

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

With `--fit-data` (leave one GPU out) the calibrations are fitted on another GPU's whole
zoo and price this GPU's steps through this GPU's kernel sums, and one more pricing is
the other GPU's measured time of the same program (the zoo sweep is seeded, so both
GPUs hold the same samples; the examples match by name): what a user who measured the
step on the other GPU would quote; and that time times the ratio of this GPU's price of
the step to the other's, by kernel sums and by rooflines (a measurement carried across
GPUs by a model of their difference).

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


def same_program(names, other_names, other_s: np.ndarray) -> np.ndarray:
    """Per name, the other GPU's measured seconds of the same program (NaN where it has
    none): the step time a user with only that GPU's measurement would quote."""
    by_name = dict(zip(np.asarray(other_names).tolist(), other_s.tolist()))
    return np.array([by_name.get(n, np.nan) for n in np.asarray(names).tolist()])


def ape(predicted: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """Absolute percentage errors of the rows with a prediction."""
    known = np.isfinite(predicted)
    return np.abs(predicted[known] / measured[known] - 1)


def measured_steps(data: str, steps_dir: str, models) -> tuple:
    """(hardware, zoo sums, example sums, zoo sample ids) of one GPU's measurements."""
    from stablecost.train import step_calibration as sc
    from stablecost.train.data import dataset_hardware, load_frame, pick_dataset

    dataset = pick_dataset(ROOT / data, None)
    hw = dataset_hardware(dataset)
    frame = load_frame(dataset, "program", seed=0)
    zoo = sc.program_sums(frame, hw, models, progress=False)
    steps = ROOT / steps_dir
    results = {n: r for n, r in json.loads((steps / "results.json").read_text()).items()
               if "step" in r}
    examples = frame.iloc[[0] * len(results)].copy().reset_index(drop=True)
    for i, (name, row) in enumerate(results.items()):
        with gzip.open(steps / f"{name}.stablehlo.mlir.gz", "rt") as f:
            examples.loc[i, "stablehlo"] = f.read()
        examples.loc[i, "median_s"] = row["step"]["median_s"]
        examples.loc[i, "family"] = name
    ex = sc.program_sums(examples, hw, models, progress=False)
    return hw, zoo, ex, frame["sample_id"].to_numpy()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="data/h100-sxm-69c6a60d")
    parser.add_argument("--steps", default="benchmarks/timings/h100-sxm-69c6a60d/steps")
    parser.add_argument("--fit-data", default=None, metavar="DATA",
                        help="fit the calibrations on another GPU's zoo instead (leave one "
                             "GPU out); also price each step by that GPU's measured time of "
                             "the same program")
    parser.add_argument("--fit-steps", default=None, metavar="STEPS",
                        help="that GPU's example steps (with --fit-data)")
    args = parser.parse_args()
    if (args.fit_data is None) != (args.fit_steps is None):
        parser.error("--fit-data and --fit-steps go together: another GPU's dataset and "
                     "its example steps")
    from stablecost.models.learned import GPU_BUNDLE, load_kernel_model
    from stablecost.train import step_calibration as sc

    models = load_kernel_model(GPU_BUNDLE)
    hw, zoo, ex, ids = measured_steps(args.data, args.steps, models)
    other = None
    if args.fit_data is not None:
        other = measured_steps(args.fit_data, args.fit_steps, models)

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

    if other is None:
        pricings = {
            "kernel sum (learned today)": (kernel_sum(zoo), kernel_sum(ex)),
            "calibration, free": (held_out(False), calibrated(zoo, ex, False)),
            "calibration, pinned": (held_out(True), calibrated(zoo, ex, True)),
            "roofline": (zoo.roofline_s, ex.roofline_s),
        }
    else:
        fit = other[1]
        pricings = {
            "kernel sum (learned today)": (kernel_sum(zoo), kernel_sum(ex)),
            f"calibration on {other[0].name}, free": (calibrated(fit, zoo, False),
                                                       calibrated(fit, ex, False)),
            f"calibration on {other[0].name}, pinned": (calibrated(fit, zoo, True),
                                                         calibrated(fit, ex, True)),
            "roofline": (zoo.roofline_s, ex.roofline_s),
            f"{other[0].name}'s measured time": (
                same_program(ids, other[3], other[1].measured_s),
                same_program(ex.family, other[2].family, other[2].measured_s)),
        }
        # the other GPU's measurement carried over by the ratio of the two GPUs' prices
        for label, this_zoo, this_ex, that_zoo, that_ex in (
                ("kernel sums", kernel_sum(zoo), kernel_sum(ex), kernel_sum(other[1]),
                 kernel_sum(other[2])),
                ("rooflines", zoo.roofline_s, ex.roofline_s, other[1].roofline_s,
                 other[2].roofline_s)):
            pricings[f"{other[0].name}'s time x ratio of {label}"] = (
                same_program(ids, other[3], other[1].measured_s / that_zoo) * this_zoo,
                same_program(ex.family, other[2].family, other[2].measured_s / that_ex)
                * this_ex)
    noise = sorted((ROOT / args.data).glob("noise-*.json"))
    floor = ""
    if noise:
        stats = json.loads(noise[-1].read_text())["by_statistic"]["median_s"]
        floor = (f"; repeat floor (`dataset noise`, {stats['rows']} rows re-measured on the "
                 f"GPU): median {100 * stats['median_abs_error']:.1f} %")
    command = f"benchmarks/gpu_steps.py --data {args.data} --steps {args.steps}"
    if other is not None:
        command += f" --fit-data {args.fit_data} --fit-steps {args.fit_steps}"
    print(f"GPU steps, measured on {hw.name} ({Path(args.data).name}), {today()}, commit "
          f"{commit()}: {command}")
    fitted = ("calibrations priced leave-one-family-out" if other is None else
              f"calibrations fitted on {other[0].name}'s {len(other[1].measured_s)} zoo "
              "programs, never on this GPU's")
    print(f"\nzoo: {len(zoo.measured_s)} programs, {len(set(zoo.family.tolist()))} families, "
          f"{fitted}{floor}; examples: {len(ex.measured_s)} steps"
          + (", calibrations fitted on the whole zoo" if other is None else "")
          + "; rows of a pricing with no value (no measurement of that program on the other "
          "GPU) are left out of its figures\n")
    print("| pricing | zoo MAPE | zoo median APE | examples MAPE | examples median APE |")
    print("|---|---|---|---|---|")
    for name, (on_zoo, on_ex) in pricings.items():
        z, e = ape(on_zoo, zoo.measured_s), ape(on_ex, ex.measured_s)
        print(f"| {name} | {100 * z.mean():.1f} % | {100 * np.median(z):.1f} % | "
              f"{100 * e.mean():.1f} % | {100 * np.median(e):.1f} % |")
    print("\n| example | measured | " + " | ".join(pricings) + " |")
    print("|---|---|" + "---|" * len(pricings))
    for i, name in enumerate(ex.family):
        cells = [f"{on_ex[i] / ex.measured_s[i] - 1:+.0%}" if np.isfinite(on_ex[i]) else "-"
                 for _, on_ex in pricings.values()]
        print(f"| {name} | {ex.measured_s[i] * 1e3:.3f} ms | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
