"""Pricing steps from their kernels' times inside the step: how much of the error is the
composition, how much the kernel model.

    .venv/bin/python benchmarks/step_profiles.py [--data data/cpu-3076d9df]

Needs a dataset that holds, from one machine, program rows, their profiles (`stablecost
collect profiles --from-programs`: each kernel's exclusive time inside the step, from
XLA's profiler, see featurize/step_profile.py) and their outlined kernels (`collect
kernels --from-programs`). Prints three tables.

1. Steps, leave one family out: each family's steps priced by the step calibration
   (refitted without the family) over per-kernel seconds from
   - the bundled kernel model (as `predict` does);
   - each kernel's standalone time (its outlined kernel timed as its own executable:
     a perfect kernel model of the kind we train today);
   - each kernel's time inside the step, profiled (a perfect kernel model of in-step
     times: the limit of this composition);
   - a kernel model trained here on the in-step times of the other families' kernels;
   beside the summed roofline, and the profiled steps' own wall times against the
   stored ones (two timings of the same programs: the floor of any column). MAPE
   against the stored step times.
2. Per family and kernel class, time-weighted: summed standalone time and summed
   bundle prediction over the summed in-step time; where the kernel model and the
   standalone labels part from what runs in a step.
3. The profiles: what share of the steps' busy time the mapping found a kernel for,
   and busy time over the profiled wall.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import pandas as pd
from _common import ROOT, commit, today
from outlined_kernels import _kernel_kinds, _standalone_times, kernel_class, mape, say

COLUMNS = ("bundle", "standalone times", "in-step times", "in-step kernel model", "roofline",
           "profiled wall")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "data" / "cpu-3076d9df"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from stablecost.datasets.outlined import FAMILY
    from stablecost.datasets.profiles import KIND, kernel_seconds, newest_first
    from stablecost.errors import DatasetError
    from stablecost.featurize.outline import outline
    from stablecost.models.features import FEATURES
    from stablecost.models.kernel_model import KernelCostModel
    from stablecost.models.learned import load_models
    from stablecost.train.data import dataset_hardware, featurize_rows, load_frame, pick_dataset
    from stablecost.train.step_calibration import (
        ProgramSums,
        calibration_from,
        fit_terms,
        predict_sums,
    )

    start = time.perf_counter()
    dataset = pick_dataset(args.data, "host-cpu")
    hw = dataset_hardware(dataset)
    programs = load_frame(dataset, "program", seed=args.seed)
    try:
        profiles = load_frame(dataset, KIND, seed=args.seed)
        kernels = load_frame(dataset, "kernel", seed=args.seed)
    except DatasetError:
        profiles = kernels = pd.DataFrame({"family": []})
    outlined = kernels[kernels["family"] == FAMILY].reset_index(drop=True)
    if profiles.empty or outlined.empty:
        say(f"{dataset}: needs profiles and outlined kernels; run `stablecost collect "
            f"profiles --from-programs {args.data} --out {args.data}` and `stablecost collect "
            f"kernels --from-programs {args.data} --out {args.data}` first")
        return 2
    bundle = load_models("host-cpu")
    if bundle is None:
        say("no bundled host-cpu models")
        return 2
    priced_hw, _ = bundle.pricing_hardware(hw)
    fp, analyses = featurize_rows(programs, hw, keep_analyses=True)
    fp_bundle, _ = featurize_rows(programs, priced_hw)
    say(f"{dataset.name}: {len(programs)} programs, {len(profiles)} profiles, "
        f"{len(outlined)} outlined kernels; featurized in {time.perf_counter() - start:.0f} s")

    # in-step seconds per execution of every featurized kernel row (NaN: not profiled)
    stored: dict[str, list] = {}   # a program profiled again keeps both rows
    for profile in profiles.itertuples(index=False):
        if profile.kernel_times:
            stored.setdefault(json.loads(profile.params)["program"], []).append(profile)
    by_program = {}
    in_step, counts = [], []
    for row, analysis in zip(fp.samples.itertuples(index=False), analyses):
        priced = [k for k in analysis.kernels if k.kind != "collective" and k.priced]
        seconds = None
        for profile in newest_first(stored.get(row.sample_id, []),
                                    lambda p: p.kernel_times):
            seconds = kernel_seconds(profile.kernel_times, analysis=analysis)
            if seconds is not None:
                by_program[row.sample_id] = (seconds, profile.median_s,
                                             json.loads(profile.kernel_times))
                break
        in_step += [seconds.get(k.index, np.nan) / max(k.count, 1) if seconds else np.nan
                    for k in priced]
        counts += [k.count for k in priced]
    in_step_s = np.array(in_step)
    n = len(fp.samples)
    step_s = fp.samples["median_s"].to_numpy()
    family = fp.samples["family"].to_numpy()
    split = fp.samples["split"].to_numpy()
    profiled = np.bincount(fp.sample, np.isnan(in_step_s), minlength=n) == 0
    groups = np.where(np.array([kind == "matmul" for kind in _kernel_kinds(analyses)]), 0, 1)

    def sums(per_kernel_s: np.ndarray) -> ProgramSums:
        cell = fp.sample * 2 + groups
        seconds = np.bincount(cell, fp.count * per_kernel_s, minlength=n * 2).reshape(n, 2)
        launches = np.bincount(cell, fp.count, minlength=n * 2).reshape(n, 2)
        return ProgramSums(seconds, launches, np.bincount(fp.sample, minlength=n), step_s,
                           fp.sample_roofline_s(), family, split)

    standalone = _standalone_times(programs, outlined, fp, analyses, outline)
    complete = profiled & (np.bincount(fp.sample, np.isnan(standalone), minlength=n) == 0)
    bundle_s = bundle.kernel.predict(fp_bundle.X, fp_bundle.roofline_s)
    fixed = {"bundle": sums(bundle_s), "standalone times": sums(np.nan_to_num(standalone)),
             "in-step times": sums(np.nan_to_num(in_step_s))}
    predicted = {name: np.full(n, np.nan) for name in COLUMNS}
    predicted["roofline"] = fp.sample_roofline_s() + hw.launch_overhead_s
    predicted["profiled wall"] = np.array([by_program.get(s, (None, np.nan))[1]
                                           for s in fp.samples["sample_id"]])
    # an in-step label of a kernel XLA fused into another is its share of that thunk:
    # floored at the profiler's resolution for the log target
    target = np.maximum(np.nan_to_num(in_step_s), 1e-7)
    k_split = split[fp.sample]
    for held_family in sorted(set(family)):
        held = family == held_family
        train_rows = ~held[fp.sample] & profiled[fp.sample]
        fit_rows, val_rows = train_rows & (k_split != "val"), train_rows & (k_split == "val")
        model = KernelCostModel(target=bundle.kernel.target, seed=args.seed).fit(
            fp.X[fit_rows], target[fit_rows], fp.roofline_s[fit_rows],
            eval_set=(fp.X[val_rows], target[val_rows], fp.roofline_s[val_rows]),
            interval=False)
        learned = {**fixed, "in-step kernel model": sums(model.predict(fp.X, fp.roofline_s))}
        for name, s in learned.items():
            train = ~held & complete
            calibration = calibration_from(fit_terms(s.design()[train], step_s[train]))
            predicted[name][held] = predict_sums(calibration, s.take(held))
        say(f"fold {held_family}: {time.perf_counter() - start:.0f} s")

    print(f"## Steps from their kernels' in-step times, {dataset.name} ({today()}, commit "
          f"{commit()})\n")
    print(f"Command: `.venv/bin/python benchmarks/step_profiles.py --data {args.data}`\n")
    print(f"Leave one family out, {int(complete.sum())} of {n} programs (those with a profile "
          "and every kernel outlined and timed): the step calibration refitted without the "
          "family over each source of kernel seconds; MAPE against the stored step times. "
          "\"profiled wall\": the profiled steps' median wall time against the same stored "
          "times (a second timing of each program: the floor of every column).\n")
    print("| family | n | " + " | ".join(COLUMNS) + " |")
    print("|---|---:|" + "---:|" * len(COLUMNS))
    for name in [*sorted(set(family)), None]:
        rows = (family == name if name else np.ones(n, bool)) & complete
        print(f"| {name or '**all (pooled)**'} | {int(rows.sum())} | " + " | ".join(
            f"{mape(predicted[c][rows], step_s[rows]):.1%}" for c in COLUMNS) + " |")

    # -- 2. where the kernel labels part from the step ----------------------------------
    k_ok = complete[fp.sample]
    frame = pd.DataFrame({"family": family[fp.sample], "class": kernel_class(fp.X, FEATURES),
                          "in_step": fp.count * np.nan_to_num(in_step_s),
                          "standalone": fp.count * np.nan_to_num(standalone),
                          "bundle": fp.count * bundle_s})[k_ok]
    table = frame.groupby(["family", "class"]).sum()
    share = table["in_step"] / table.groupby(level=0)["in_step"].transform("sum")
    classes = sorted(frame["class"].unique())
    print("\nPer family and kernel class, summed over the programs above: the class's share "
          "of the in-step time, then standalone / in-step and bundle / in-step (time-"
          "weighted ratios; 1.00 is a label or model that agrees with the step).\n")
    print("| family | " + " | ".join(f"{c}: share, standalone, bundle" for c in classes) + " |")
    print("|---|" + "---|" * len(classes))
    for name in sorted(set(frame["family"])):
        cells = []
        for c in classes:
            if (name, c) not in table.index or table.loc[(name, c), "in_step"] <= 0:
                cells.append("-")
                continue
            r = table.loc[(name, c)]
            cells.append(f"{share[(name, c)]:.0%}, {r['standalone'] / r['in_step']:.2f}, "
                         f"{r['bundle'] / r['in_step']:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")

    # -- 3. the profiles themselves --------------------------------------------------------
    found = np.array([1 - d["unmapped_s"] / d["busy_s"] for _, _, d in by_program.values()
                      if d["busy_s"] > 0])
    busy = np.array([d["busy_s"] / d["wall_s"] for _, _, d in by_program.values()
                     if d["wall_s"] > 0])
    print(f"\n{len(by_program)} profiles: the mapping found a kernel for a median "
          f"{np.median(found):.1%} of a step's busy time (10th percentile "
          f"{np.quantile(found, 0.1):.1%}); "
          f"busy time is a median {np.median(busy):.1%} of the profiled wall time.")
    print(f"\n{time.perf_counter() - start:.0f} s in all.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
