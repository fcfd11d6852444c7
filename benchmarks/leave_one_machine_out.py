"""Leave one machine out: the in-step corrector and its step calibration judged on a
machine none of their profiles comes from.

    .venv/bin/python benchmarks/leave_one_machine_out.py [--data DIR ...] [--singles]
        [--params '{"max_depth": 3}'] [--rounds 100] [--json FILE]

On a machine whose fingerprint differs from the bundle's, `predict` prices a step from
the kernel model's answers moved to their in-step times by the corrector and summed by
the step calibration fitted over them (`models.in_step`, `models.step_calibration`);
both are fitted on step profiles of other machines (`stablecost train in-step`). Every
profiled dataset given (default: every host-cpu dataset under `data/` and
`benchmarks/timings/` with step profiles, the bundle's own machine excepted) is grouped by
its machine's fingerprint; for each machine M, the corrector and its calibration are
fitted as the bundle's are (`train.in_step.fit_in_step`, `calibrate_over`) on the
datasets of every other machine, and price every program of M's datasets (all splits:
nothing of M was seen), through M's own calibrated spec.

Printed per machine: each family's MAPE, learned against the summed kernel roofline on
the same programs, then pooled (MAPE, median APE, Kendall τ within families, the share
of measured steps inside the 80 % interval), with the machine's level (the median of
measured / learned) and the MAPE left once every step is scaled by it: how much of the
miss one step factor fitted on the machine (`stablecost hardware adapt`'s) could remove,
and how much is the shape of the steps. `--singles` adds, for each machine, the
correctors fitted on each single other machine: whether more machines carry further.
`--params` / `--rounds` override the trees' hyperparameters (`models.in_step.TREE_PARAMS`,
`TREE_ROUNDS`) for a what-if; nothing the bundle ships changes. `--json` writes the pooled
figures of every fit and, for the fit on every other machine, each program's
(`benchmarks/generalisation.py` judges them against the issue's targets).

The pricing is `train.step_calibration.predict_sums` over the programs' group sums, the
composition `predict_kernels` makes; the bundle's default for other machines
(`train.other_machines`) leaves steps priced by the calibration as they are and is not
applied. Programs of M whose kernels the learned fidelity sends to the roofline
(`models.cost_model.out_of_range`) are priced here by the calibration all the same.
Featurizing and pricing the four stored datasets takes ~4 min on 2 cores, each corrector
with its calibration ~1 min.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from _common import commit, today, write_json

ROOT = Path(__file__).resolve().parent.parent
HARDWARE = "host-cpu"


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def profiled_datasets(models) -> list[Path]:
    """Every host-cpu dataset under data/ and benchmarks/timings/ with step profiles,
    the bundle's own machine excepted."""
    from stablecost.datasets import store
    from stablecost.datasets.profiles import KIND
    from stablecost.errors import DatasetError
    from stablecost.train.data import load_frame

    trained_on = str(models.kernel_meta.get("dataset", ""))
    stored = [d for root in (ROOT / "data", ROOT / "benchmarks" / "timings")
              for d in store.find_datasets(root)]
    own = {store.DatasetInfo.read(d).fingerprint_id for d in stored if d.name == trained_on}
    found = []
    for dataset in stored:
        info = store.DatasetInfo.read(dataset)
        if info.hardware == models.hardware and info.fingerprint_id not in own:
            try:
                load_frame(dataset, KIND)
            except DatasetError:
                continue
            found.append(dataset)
    return found


def fit(parts, seed: int):
    """The corrector with its step calibration, fitted as the bundle's are."""
    from stablecost.train.in_step import DEFAULT_FLOOR, calibrate_over, fit_in_step

    corrector = fit_in_step(parts, seed=seed, floor=DEFAULT_FLOOR)
    corrector.calibration, _ = calibrate_over(parts, corrector, seed=seed)
    return corrector


def judged(parts, corrector) -> dict[str, np.ndarray]:
    """Measured, learned, roofline seconds and the interval's bounds of every program."""
    from stablecost.models.cost_model import calibration_interval
    from stablecost.train.in_step import pooled_sums
    from stablecost.train.step_calibration import predict_sums

    sums = pooled_sums(parts, corrector)
    learned = predict_sums(corrector.calibration, sums)
    low, high = calibration_interval(corrector.calibration)   # as predict widens it
    return {"family": sums.family, "measured": sums.measured_s, "learned": learned,
            "roofline": sums.roofline_s,
            "low": learned * np.exp(low), "high": learned * np.exp(high)}


def summary_rows(result: dict[str, np.ndarray], label: str) -> tuple[list[str], dict]:
    from stablecost.train import metrics

    family, measured = result["family"], result["measured"]
    lines = []
    for name in sorted(set(family.tolist())):
        rows = family == name
        s = metrics.summary(measured[rows], result["learned"][rows])
        r = metrics.summary(measured[rows], result["roofline"][rows])
        lines.append(f"| {label} | {name} | {rows.sum()} | {s['mape']:.1%} | "
                     f"{r['mape']:.1%} | {s['kendall_tau']:.2f} | {r['kendall_tau']:.2f} |")
    s = metrics.summary(measured, result["learned"])
    r = metrics.summary(measured, result["roofline"])
    taus = [metrics.summary(measured[family == f], result["learned"][family == f])
            ["kendall_tau"] for f in set(family.tolist()) if (family == f).sum() > 2]
    inside = float(np.mean((measured >= result["low"]) & (measured <= result["high"])))
    # the machine's level: the median log(measured / learned), and the MAPE left once the
    # steps are scaled by it (what one step factor fitted on the machine could reach)
    bias = float(np.median(np.log(measured / result["learned"])))
    rescaled = metrics.summary(measured, result["learned"] * np.exp(bias))
    pooled = {"programs": int(len(measured)), "mape": s["mape"], "median_ape": s["median_ape"],
              "roofline_mape": r["mape"], "roofline_median_ape": r["median_ape"],
              "mean_family_tau": float(np.nanmean(taus)) if taus else float("nan"),
              "inside_interval": inside, "level": float(np.exp(bias)),
              "mape_at_level": rescaled["mape"],
              "median_width": float(np.median(result["high"] / result["low"]))}
    return lines, pooled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", type=Path,
                        help="a profiled dataset (repeatable; default: every one stored)")
    parser.add_argument("--singles", action="store_true",
                        help="also fit on each single other machine")
    parser.add_argument("--params", default=None,
                        help="JSON object overriding the corrector trees' hyperparameters")
    parser.add_argument("--rounds", type=int, default=None, help="boosting rounds")
    parser.add_argument("--families", action="store_true", help="print every family's row")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    checkout = commit()

    import stablecost.models.in_step as in_step
    from stablecost.datasets import store
    from stablecost.errors import StablecostError
    from stablecost.models.learned import load_kernel_model
    from stablecost.train.data import pick_dataset
    from stablecost.train.in_step import profiled

    try:
        if args.params:
            try:
                override = json.loads(args.params)
            except json.JSONDecodeError as exc:
                raise StablecostError(f"--params: not a JSON object ({exc})") from None
            if not isinstance(override, dict):
                raise StablecostError("--params: expected a JSON object, e.g. "
                                      "'{\"max_depth\": 3}'")
            in_step.TREE_PARAMS = {**in_step.TREE_PARAMS, **override}
        if args.rounds is not None:
            if args.rounds < 1:
                raise StablecostError(f"--rounds {args.rounds}: must be at least 1")
            in_step.TREE_ROUNDS = args.rounds
        models = load_kernel_model(HARDWARE)
        if models is None:
            raise StablecostError(f"no bundled kernel model for {HARDWARE}")
        datasets = ([pick_dataset(str(d), HARDWARE) for d in args.data] if args.data
                    else profiled_datasets(models))
        parts, machine = [], []
        start = time.perf_counter()
        for dataset in datasets:
            say(f"pricing {dataset} ({time.perf_counter() - start:.0f} s)")
            part = profiled(dataset, models, seed=args.seed)
            if part is None:
                raise StablecostError(f"{dataset}: no step profiles of this featurizer")
            parts.append(part)
            machine.append(store.DatasetInfo.read(dataset).fingerprint_id)
        machines = sorted(set(machine))
        if len(machines) < 2:
            raise StablecostError("leave one machine out needs profiled datasets of at least "
                                  f"two machines; got {', '.join(machines) or 'none'}")
        print(f"Run {today()}, commit {checkout}; trees {json.dumps(in_step.TREE_PARAMS)}, "
              f"{in_step.TREE_ROUNDS} rounds; machine inputs "
              f"{'on' if in_step.MACHINE_INPUTS else 'off'}.\n")
        header = ["| fitted on | family | n | learned MAPE | roofline MAPE | learned τ | "
                  "roofline τ |", "|---|---|---:|---:|---:|---:|---:|"]
        pooled_lines = ["| held out | fitted on | programs | learned MAPE (median APE) | "
                        "roofline MAPE (median APE) | mean τ in families | inside 80 % "
                        "interval (median width) | level | MAPE at that level |",
                        "|---|---|---:|---|---|---:|---|---:|---:|"]
        runs = []
        for held in machines:
            mine = [p for p, m in zip(parts, machine) if m == held]
            others = sorted(set(machine) - {held})
            pools = [others] + ([[o] for o in others] if args.singles and len(others) > 1
                                else [])
            family_lines = []
            for pool in pools:
                say(f"{held}: fitting on {', '.join(pool)} ({time.perf_counter() - start:.0f} s)")
                corrector = fit([p for p, m in zip(parts, machine) if m in pool], args.seed)
                result = judged(mine, corrector)
                label = " + ".join(pool)
                lines, pooled = summary_rows(result, label)
                family_lines += lines
                pooled_lines.append(
                    f"| {held} | {label} | {pooled['programs']} | {pooled['mape']:.1%} "
                    f"({pooled['median_ape']:.1%}) | {pooled['roofline_mape']:.1%} "
                    f"({pooled['roofline_median_ape']:.1%}) | {pooled['mean_family_tau']:.2f} "
                    f"| {pooled['inside_interval']:.0%} ({pooled['median_width']:.2f}x) "
                    f"| x{pooled['level']:.2f} | {pooled['mape_at_level']:.1%} |")
                run = {"held_out": held, "fitted_on": pool, **pooled}
                if pool == others:     # every program's figures, for generalisation.py
                    run["programs"] = [
                        {"family": str(f), "measured_s": float(m), "learned_s": float(v),
                         "roofline_s": float(r), "low_s": float(lo), "high_s": float(hi)}
                        for f, m, v, r, lo, hi in zip(
                            result["family"], result["measured"], result["learned"],
                            result["roofline"], result["low"], result["high"])]
                runs.append(run)
            if args.families:
                print(f"### {held} held out\n\n" + "\n".join(header + family_lines) + "\n")
        print("\n".join(pooled_lines))
        if args.json:
            write_json(args.json, {"commit": checkout, "params": in_step.TREE_PARAMS,
                                   "rounds": in_step.TREE_ROUNDS, "runs": runs})
    except StablecostError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
