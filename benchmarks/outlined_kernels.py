"""How well kernels and their composition price programs of families never trained on,
judged with the programs' own kernels timed one by one.

    .venv/bin/python benchmarks/outlined_kernels.py [--data data/cpu-3076d9df] [--floor]

Needs a dataset that holds, measured on one machine, program rows and the outlined
kernels of those programs (`stablecost collect kernels --from-programs`), beside the
kernel templates. Prints two tables.

1. Kernels: the bundled kernel model (trained on another machine's kernel templates,
   never on an outlined kernel) against each outlined kernel's own time, per program
   family and per kernel class, beside the roofline on the same kernels.
2. Steps, leave one family out: each program family's steps priced by the step
   calibration (`models.step_calibration`, refitted without that family) over kernel
   times from
   - the bundled kernel model;
   - a kernel model trained here on this machine's kernel templates only;
   - the same plus the outlined kernels of the other families (none of the held-out
     family's own);
   - the kernels' measured standalone times (what a perfect kernel model would give:
     the limit of pricing a step as a calibrated sum of its kernels);
   and the summed roofline. MAPE against the stored step times.

With `--floor [--rounds 3] [--per-family 8]` it then times a seeded sample of the
programs again, in rounds, and prints the same-run repeat floor and table 2's prices on
those programs against the stored times and against the fastest round (see `_floor`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import pandas as pd
from _common import ROOT, commit, today

COLUMNS = ("bundle", "templates", "templates + outlined", "standalone times", "roofline")
# with --also, "templates" are both machines' templates


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def mape(predicted: np.ndarray, measured: np.ndarray) -> float:
    return float(np.mean(np.abs(predicted / measured - 1.0)))


def kernel_class(X: np.ndarray, features: tuple[str, ...]) -> np.ndarray:
    col = {name: i for i, name in enumerate(features)}
    conv, dot = X[:, col["op_convolution"]] > 0, X[:, col["op_dot_general"]] > 0
    kind = np.where(X[:, col["kind_reduction"]] > 0, "reduction", "loop")
    return np.where(conv, "convolution", np.where(dot, "dot", kind))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "data" / "cpu-3076d9df"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--also", default=None, metavar="DATASET",
                        help="add this dataset's kernel templates (another machine's, "
                             "featurized on its own spec) to every kernel model trained here")
    parser.add_argument("--floor", action="store_true",
                        help="also time a sample of the programs in rounds now (about 3.5 min "
                             "a round at 8 per family on 2 cores; run it on an idle machine) "
                             "and print the same-run repeat floor")
    parser.add_argument("--rounds", type=int, default=3,
                        help="--floor: passes over the programs (default 3; 4 or more also "
                             "gives the floor of the faster of two rounds)")
    parser.add_argument("--per-family", type=int, default=8,
                        help="--floor: programs drawn per family (default 8; 0: every program)")
    args = parser.parse_args(argv)
    if args.floor and (args.rounds < 2 or args.per_family < 0):
        parser.error(f"--rounds {args.rounds} --per-family {args.per_family}: the floor needs "
                     "at least 2 rounds and 0 (every program) or more programs per family")

    from stablecost.datasets.outlined import FAMILY
    from stablecost.featurize.outline import outline
    from stablecost.models.features import FEATURES
    from stablecost.models.kernel_model import KernelCostModel
    from stablecost.models.learned import load_models
    from stablecost.train.data import (
        dataset_hardware,
        featurize_rows,
        kernel_targets,
        load_frame,
        per_call_floor_s,
        pick_dataset,
    )
    from stablecost.train.step_calibration import (
        ProgramSums,
        calibration_from,
        fit_terms,
        predict_sums,
    )

    start = time.perf_counter()
    dataset = pick_dataset(args.data, "host-cpu")
    hw = dataset_hardware(dataset)
    kernels = load_frame(dataset, "kernel", seed=args.seed)
    programs = load_frame(dataset, "program", seed=args.seed)
    outlined = kernels[kernels["family"] == FAMILY].reset_index(drop=True)
    templates = kernels[kernels["family"] != FAMILY].reset_index(drop=True)
    if outlined.empty:
        say(f"{dataset}: no outlined kernels; run `stablecost collect kernels "
            f"--from-programs {args.data} --out {args.data}` first")
        return 2
    say(f"{dataset.name}: {len(templates)} template kernels, {len(outlined)} outlined, "
        f"{len(programs)} programs")
    bundle = load_models("host-cpu")
    if bundle is None:
        say("no bundled host-cpu models")
        return 2
    priced_hw, _ = bundle.pricing_hardware(hw)
    ft, _ = featurize_rows(templates, hw)
    floor_s = per_call_floor_s(templates)
    t_target, t_weight = kernel_targets(ft, floor_s)
    if args.also:
        other = pick_dataset(args.also, "host-cpu")
        other_rows = load_frame(other, "kernel", seed=args.seed)
        other_rows = other_rows[other_rows["family"] != FAMILY].reset_index(drop=True)
        fa, _ = featurize_rows(other_rows, dataset_hardware(other))
        say(f"adding {len(other_rows)} template kernels of {other.name}")
        a_target, a_weight = kernel_targets(fa, per_call_floor_s(other_rows))
        ft = _concat(ft, fa)
        t_target = np.concatenate([t_target, a_target])
        t_weight = np.concatenate([t_weight, a_weight])
    fo, _ = featurize_rows(outlined, hw)
    fp, analyses = featurize_rows(programs, hw, keep_analyses=True)
    fo_bundle, _ = featurize_rows(outlined, priced_hw)
    fp_bundle, _ = featurize_rows(programs, priced_hw)
    say(f"featurized in {time.perf_counter() - start:.0f} s")

    # -- 1. kernels ------------------------------------------------------------------
    # an outlined sample is one kernel when re-analyzed, nearly always; compare per sample
    one = np.bincount(fo.sample, minlength=len(fo.samples)) == 1
    rows = np.flatnonzero(one[fo.sample])
    measured = fo.samples["median_s"].to_numpy()[fo.sample[rows]]
    learned = bundle.kernel.predict(fo_bundle.X[rows], fo_bundle.roofline_s[rows])
    roofline = fo.roofline_s[rows] + hw.launch_overhead_s
    family = fo.samples["variant"].to_numpy()[fo.sample[rows]]
    klass = kernel_class(fo.X[rows], FEATURES)
    table = pd.DataFrame({"family": family, "class": klass,
                          "learned": np.abs(learned / measured - 1),
                          "roofline": np.abs(roofline / measured - 1),
                          "bias": np.log(learned / measured)})

    def kernel_rows(by: str) -> list[str]:
        out = []
        for name, g in table.groupby(by):
            out.append(f"| {name} | {len(g)} | {g['learned'].median():.1%} | "
                       f"{np.exp(g['bias'].mean()):.2f}x | {g['roofline'].median():.1%} |")
        return out

    print(f"## Outlined kernels, {dataset.name} ({today()}, commit {commit()})\n")
    print(f"Command: `.venv/bin/python benchmarks/outlined_kernels.py --data {args.data}`\n")
    print(f"{len(rows)} outlined kernels (of {len(fo.samples)}; the rest split in two when "
          "re-analyzed) timed alone, against the bundled kernel model and the roofline "
          "(plus the spec's launch overhead).\n")
    for by in ("family", "class"):
        print(f"| program {by} | kernels | learned median APE | learned geo-mean ratio | "
              "roofline median APE |")
        print("|---|---:|---:|---:|---:|")
        print("\n".join(kernel_rows(by)))
        print(f"| **all** | {len(table)} | {table['learned'].median():.1%} | "
              f"{np.exp(table['bias'].mean()):.2f}x | {table['roofline'].median():.1%} |\n")

    # -- 2. steps, leave one family out --------------------------------------------------
    o_target, o_weight = kernel_targets(fo, floor_s)
    t_split = ft.samples["split"].to_numpy()[ft.sample]
    o_split = fo.samples["split"].to_numpy()[fo.sample]
    o_family = fo.samples["variant"].to_numpy()[fo.sample]

    def fit(outlined_rows: np.ndarray | None) -> KernelCostModel:
        parts = [(ft.X, t_target, ft.roofline_s, t_weight, t_split)]
        if outlined_rows is not None:
            m = outlined_rows
            parts.append((fo.X[m], o_target[m], fo.roofline_s[m], o_weight[m], o_split[m]))
        X, y, rl, w, split = (np.concatenate(c) for c in zip(*parts))
        tr, va = split == "train", split == "val"
        return KernelCostModel(target=bundle.kernel.target, seed=args.seed).fit(
            X[tr], y[tr], rl[tr], weight=w[tr], eval_set=(X[va], y[va], rl[va]),
            interval=False)

    n = len(fp.samples)
    p_family = fp.samples["family"].to_numpy()
    step_s = fp.samples["median_s"].to_numpy()
    is_matmul = np.array([kind == "matmul" for kind in _kernel_kinds(analyses)])
    groups = np.where(is_matmul, 0, 1)

    def sums(per_kernel_s: np.ndarray) -> ProgramSums:
        cell = fp.sample * 2 + groups
        seconds = np.bincount(cell, fp.count * per_kernel_s, minlength=n * 2).reshape(n, 2)
        launches = np.bincount(cell, fp.count, minlength=n * 2).reshape(n, 2)
        return ProgramSums(seconds, launches, np.bincount(fp.sample, minlength=n), step_s,
                           fp.sample_roofline_s(), p_family, fp.samples["split"].to_numpy())

    standalone = _standalone_times(programs, outlined, fp, analyses, outline)
    fixed = {"bundle": sums(bundle.kernel.predict(fp_bundle.X, fp_bundle.roofline_s)),
             "templates": sums(fit(None).predict(fp.X, fp.roofline_s))}
    have_all = ~np.isnan(standalone)
    fixed["standalone times"] = sums(np.nan_to_num(standalone))
    complete = np.bincount(fp.sample, ~have_all, minlength=n) == 0
    predicted = {name: np.zeros(n) for name in COLUMNS}
    predicted["roofline"] = fp.sample_roofline_s() + hw.launch_overhead_s
    families = sorted(set(p_family))
    for family in families:
        held = p_family == family
        fold = sums(fit(o_family != family).predict(fp.X, fp.roofline_s))
        for name, s in (*fixed.items(), ("templates + outlined", fold)):
            train = ~held & (complete if name == "standalone times" else True)
            calibration = calibration_from(fit_terms(s.design()[train], step_s[train]))
            predicted[name][held] = predict_sums(calibration, s.take(held))
        say(f"fold {family}: {time.perf_counter() - start:.0f} s")

    print("Steps, leave one family out: the step calibration refitted without the family "
          "over each source of kernel times; MAPE against the stored step times "
          f"({n} programs; standalone times: {int(complete.sum())} programs whose kernels "
          "were all outlined and timed).\n")
    print("| family | n | " + " | ".join(COLUMNS) + " |")
    print("|---|---:|" + "---:|" * len(COLUMNS))
    for family in [*families, None]:
        held = p_family == family if family else np.ones(n, bool)
        cells = []
        for name in COLUMNS:
            rows_ = held & complete if name == "standalone times" else held
            cells.append(f"{mape(predicted[name][rows_], step_s[rows_]):.1%}"
                         if rows_.any() else "-")
        print(f"| {family or '**all (pooled)**'} | {int(held.sum())} | " + " | ".join(cells)
              + " |")
    if args.floor:
        # standalone times exist for complete programs only
        shown = {name: np.where(complete, v, np.nan) if name == "standalone times" else v
                 for name, v in predicted.items()}
        _floor(programs, shown, fp.samples["sample_id"].to_numpy(), args.rounds,
               args.per_family)
    print(f"\n{time.perf_counter() - start:.0f} s in all.")
    return 0


def _floor(programs: pd.DataFrame, predicted: dict[str, np.ndarray], predicted_ids: np.ndarray,
           rounds: int, per_family: int) -> None:
    """Time a stratified sample of the programs (`per_family` of each family, all when 0;
    the draw is seeded) in `rounds` rounds, one pass over the sample per round, by the
    collector's rule for programs. Printed:
    - the same-run repeat floor: the MAPE of one round against another (mean over every
      pair of rounds), for the median the collector stores and for the fastest sample;
    - with 4 rounds or more, the floor of a label that is the faster of two rounds;
    - how often a program's rounds differ by more than 20 % (slow episodes of the shared
      machine last longer than one program's timing, so repeats inside a round cannot
      see them);
    - the leave-one-family-out predictions of table 2 on these programs, against the
      stored times and against the fastest round: whether the models' error is the
      labels' noise or their own."""
    from itertools import combinations, permutations

    from stablecost.featurize.xla_compile import time_module
    from stablecost.hardware.timing import PROGRAM_TIMING

    rng = np.random.default_rng(1)
    chosen = programs.index.to_numpy()
    if per_family > 0:
        chosen = np.concatenate([rng.choice(g.index.to_numpy(), size=min(per_family, len(g)),
                                            replace=False)
                                 for _, g in programs.groupby("family")])
    sample = programs.loc[chosen]
    medians, fastest = [], []
    for r in range(rounds):
        stats = [time_module(text.encode(), sid, PROGRAM_TIMING)
                 for sid, text in zip(sample["sample_id"], sample["stablehlo"])]
        medians.append([s.median_s for s in stats])
        fastest.append([s.min_s for s in stats])
        say(f"floor: round {r + 1}/{rounds} timed")
    med, low = np.array(medians), np.array(fastest)
    pairs = list(combinations(range(rounds), 2))
    stored = sample["median_s"].to_numpy()
    best = med.min(axis=0)
    spread = med.max(axis=0) / best
    print(f"\nSame-run repeat floor: {len(sample)} programs ({per_family or 'all'} per family), "
          f"{rounds} rounds, timed now by the collector's rule.\n")
    print("| label | floor MAPE (one label against another, same run) |")
    print("|---|---:|")
    print(f"| median of one round (as stored) | "
          f"{np.mean([mape(med[j], med[i]) for i, j in pairs]):.1%} |")
    print(f"| fastest sample of one round | "
          f"{np.mean([mape(low[j], low[i]) for i, j in pairs]):.1%} |")
    if rounds >= 4:
        two = [mape(np.minimum(med[c], med[d]), np.minimum(med[a], med[b]))
               for a, b, c, d in permutations(range(rounds), 4)]
        print(f"| faster median of two rounds | {np.mean(two):.1%} |")
    print(f"\nRounds of one program differ by more than 20 % on {np.mean(spread > 1.2):.0%} of "
          f"the programs (median slowest/fastest round {np.median(spread):.2f}x); the stored "
          f"times are a median {np.median(stored / best):.2f}x the fastest round now "
          f"(MAPE {mape(stored, best):.1%}).\n")
    at = pd.Series(np.arange(len(predicted_ids)), index=predicted_ids)[sample["sample_id"]]
    print("| prices (leave one family out) | MAPE against stored times | against the "
          "fastest round now |")
    print("|---|---:|---:|")
    for name, values in predicted.items():
        p = values[at.to_numpy()]
        ok = np.isfinite(p) & (p > 0)
        print(f"| {name} | {mape(p[ok], stored[ok]):.1%} | {mape(p[ok], best[ok]):.1%} |")


def _concat(a, b):
    """Two featurized sets as one (sample indices of `b` shifted past `a`'s)."""
    from stablecost.train.data import Featurized

    return Featurized(np.concatenate([a.X, b.X]), np.concatenate([a.roofline_s, b.roofline_s]),
                      np.concatenate([a.count, b.count]),
                      np.concatenate([a.sample, b.sample + len(a.samples)]),
                      pd.concat([a.samples, b.samples], ignore_index=True),
                      a.failures + b.failures)


def _kernel_kinds(analyses: list) -> list[str]:
    """The kind of every featurized kernel row, in featurize_rows' order."""
    return [k.kind for a in analyses for k in a.kernels
            if k.kind != "collective" and k.priced]


def _standalone_times(programs: pd.DataFrame, outlined: pd.DataFrame, fp, analyses,
                      outline) -> np.ndarray:
    """Per featurized kernel row of the programs: its outlined kernel's measured time,
    NaN where that kernel was not timed."""
    # a kernel timed more than once (collected for two programs before collection skipped
    # stored digests) is taken at the median of its timings
    digests = pd.Series([json.loads(p)["digest"] for p in outlined["params"]])
    by_digest = outlined["median_s"].groupby(digests.to_numpy()).median().to_dict()
    out = []
    for row, analysis in zip(fp.samples.itertuples(index=False), analyses):
        timed = {k.index: by_digest.get(k.digest, np.nan)
                 for k in outline(row.stablehlo, row.sample_id).kernels}
        out += [timed.get(k.index, np.nan) for k in analysis.kernels
                if k.kind != "collective" and k.priced]
    return np.array(out, dtype=np.float64)


if __name__ == "__main__":
    sys.exit(main())
