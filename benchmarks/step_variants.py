"""Ways of composing a step from the kernel model's predictions, each judged on program
families it was not fitted on: what would close the gap to the in-step ceiling.

    .venv/bin/python benchmarks/step_variants.py [--data data/cpu --data ...] [--seed 0]
        [--extra benchmarks/timings/host-cpu-7d6e21a6/sets ...] [--only TEXT ...]

For each CPU dataset (default: every `data/cpu*` dataset), its zoo programs are
featurized on the dataset's own calibrated spec and every kernel is priced by the
bundled kernel model (with the CPU coverage fallback to the roofline), as `predict`
prices it on that machine (on a machine the bundle takes for its own, through the
bundle's spec: `LearnedModels.pricing_hardware`, as `leave_one_family_out.py` does).
Each variant below is then fitted on the programs of every family but one (their train
and val splits) and predicts the programs of the held-out family; every family in turn.
No step GNN takes part: the variants are the step calibration's neighbours, cheap enough
to refit per fold in seconds.

- calibration: the shipped step calibration (`models/step_calibration.py`): floor,
  then a scale and a per-launch term for dot/convolution kernels and for the rest,
  clamped at a tenth of each group's predictions and at its physical floor;
- by class: a scale and a per-launch term per kernel class (dot, convolution,
  reduction, compute-bound loop, memory-bound loop; no physical floor);
- by class and size: memory-bound loops split at 1 MiB moved;
- by class with roofline terms: each class also gets a nonnegative coefficient on its
  summed roofline seconds;
- stacker (own data / pooled): gradient-boosted trees on program-level aggregates
  (each kernel class's share of the roofline and of the predicted time, launches,
  kernels, share of predicted time inside loops, predicted over roofline) fitted to
  log(measured / calibration) of the other families' programs, of this dataset or of
  every dataset given (each priced through its own spec);
- in-step corrector, own data / pooled (datasets with step profiles, `stablecost
  collect profiles`): trees on each kernel's features and its predicted time, fitted to
  log(in-step time / predicted time) over the other families' profiled kernels of this
  dataset, or of every dataset with profiles, each kernel weighted by its share of its
  step; the calibration is then refitted over the corrected kernels;
- in-step corrector, pooled with --extra: the pooled corrector also fitted on every
  profiled kernel of the `--extra` datasets (never judged; all their programs but those
  of the held-out family's name), e.g. the stored sets' programs
  (`benchmarks/set_programs.py`): whether in-step times of many more kinds of program
  carry to a held-out family;
- in-step corrector with the step's context, pooled (with `--extra` too): the same trees
  also given where each kernel sits in its step (`step_context`: the bytes the whole
  step moves, its launches, the kernel's share of its bytes), since inside a step a
  large kernel runs at about its cold-cache time alone (RESULTS.md);
- in-step corrector as shipped, pooled: the bundle's corrector (`models/in_step.py`,
  fitted as `train/in_step.py` fits it, corrections capped at e) on every profiled
  program of the datasets and `--extra` outside the held-out family and the test
  splits, then the shipped calibration refitted over its corrections (judged on every
  dataset, profiled or not);
- in-step corrector over the roofline floor, pooled: the same, the trees correcting the
  kernel model's answer raised to the roofline on kernels without a dot
  (`models.in_step.in_step_base`, a variant that the bundle does not ship);
- in-step corrector over the busy-time floor, pooled: the same with the roofline's busy
  time alone as the floor (without the spec's launch overhead, which small kernels
  run thousands of times in a loop do not pay inside a step);
- in-step corrector over the memory-time floor, pooled: the roofline's memory time alone
  (a compute rate the calibration measured on floats does not floor integer work such
  as the threefry rounds of random bits);
- in-step ceiling (same datasets): the calibration over each kernel's profiled time
  inside its step, the limit of any per-kernel model composed this way;
- XLA:CPU fusion: the programs featurized with dot and convolution kernels kept apart
  from their elementwise consumers (`fuse(..., matmul_epilogue=False)`, as XLA:CPU's
  optimized HLO has them), then the shipped calibration.

Columns per dataset: MAPE of the held-out predictions, MAPE in sample (fitted on every
family's train and val splits, judged on the same rows: the variant's capacity), and
the number of families whose held-out MAPE is above the roofline's; under them the
roofline's MAPE on the same programs. Takes about 3 minutes on 2 cores; `--only` runs
the variants whose name holds one of the texts given.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
from _common import ROOT, commit, today

MIB = float(1 << 20)
CLASSES = ("dot", "convolution", "reduction", "compute-bound loop", "memory-bound loop")


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def mape(measured: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean(np.abs(predicted / measured - 1.0)))


@dataclass
class Priced:
    """One dataset's programs, every kernel row priced (rows in `featurize_rows` order)."""

    name: str
    X: np.ndarray            # kernel features
    roofline_s: np.ndarray   # per execution
    count: np.ndarray        # executions per step
    sample: np.ndarray       # owning program
    predicted_s: np.ndarray  # kernel model, per execution (roofline where not covered)
    family: np.ndarray       # per program
    split: np.ndarray
    measured_s: np.ndarray
    sums: Any                # train.step_calibration.ProgramSums, the shipped calibration's
    in_step_s: np.ndarray | None = None   # per execution, from the step profiles
    rows: Any = None                      # train.step_calibration.PricedRows
    raw_in_step_s: np.ndarray | None = None   # as read, NaN where a program has none

    @property
    def programs(self) -> int:
        return len(self.measured_s)

    def total(self, per_kernel: np.ndarray) -> np.ndarray:
        return np.bincount(self.sample, per_kernel, minlength=self.programs)


def price(dataset: Path, bundle: Any, *, epilogue: bool = True) -> Priced:
    """Featurize and price one dataset's programs (see the module docstring)."""
    from stablecost.featurize import analysis as analysis_module
    from stablecost.featurize.fusion import fuse
    from stablecost.train.data import dataset_hardware, load_frame
    from stablecost.train.in_step import read_in_step
    from stablecost.train.step_calibration import priced_rows, sums_of

    # the spec `predict` would price the dataset's machine with from here (its own
    # calibration, unless this machine is the bundle's: `pricing_hardware`)
    hw, _ = bundle.pricing_hardware(dataset_hardware(dataset))
    frame = load_frame(dataset, "program", seed=0)
    if not epilogue:   # XLA:CPU's own kernels: analyze() fuses with this rule instead
        analysis_module.fuse = lambda program, costs, **kw: fuse(  # type: ignore[assignment]
            program, costs, **(kw or {"matmul_epilogue": False}))
    try:
        rows = priced_rows(frame, hw, bundle, progress=False, keep_analyses=True)
    finally:
        analysis_module.fuse = fuse   # type: ignore[assignment]
    predicted = np.where(rows.outside, rows.roofline_s, rows.predicted_s)
    samples = rows.samples
    priced = Priced(dataset.parent.name, rows.X, rows.roofline_s, rows.count, rows.sample,
                    predicted, samples["family"].to_numpy(), samples["split"].to_numpy(),
                    samples["median_s"].to_numpy(np.float64), sums_of(rows), rows=rows)
    if not epilogue:
        return priced
    in_step_s = read_in_step(dataset, samples, rows.analyses or [])
    rows.analyses = None
    priced.raw_in_step_s = in_step_s
    if in_step_s is not None and np.isnan(in_step_s).mean() < 0.01:   # (almost) every one
        priced.in_step_s = np.nan_to_num(in_step_s)
    return priced


# -- kernel classes and the linear step models -------------------------------------------
def kernel_class(p: Priced, size_split: bool = False) -> tuple[np.ndarray, int]:
    """Each kernel's class index (CLASSES order; with `size_split` a sixth class: the
    memory-bound loops moving 1 MiB or more) and the number of classes."""
    from stablecost.models.features import FEATURES

    col = {name: i for i, name in enumerate(FEATURES)}
    X = p.X

    def unlog(name: str) -> np.ndarray:
        return np.exp2(X[:, col[name]]) - 1.0

    dot, conv = X[:, col["op_dot_general"]] > 0, X[:, col["op_convolution"]] > 0
    reduction = (X[:, col["kind_reduction"]] > 0) & ~dot & ~conv
    loop = ~dot & ~conv & ~reduction
    compute = unlog("rl_compute_us") >= unlog("rl_memory_us")
    classes = np.select([dot, conv, reduction, loop & compute], [0, 1, 2, 3], default=4)
    if not size_split:
        return classes, len(CLASSES)
    moved = unlog("bytes_read") + unlog("bytes_written")
    return np.where((classes == 4) & (moved >= MIB), 5, classes), len(CLASSES) + 1


def class_design(p: Priced, per_kernel_s: np.ndarray, *, size_split: bool = False,
                 roofline_terms: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(design, lower bounds): a column of ones, then per class its summed predicted
    seconds and launches (and summed roofline seconds); scales and roofline
    coefficients >= 0, per-launch terms free."""
    classes, n_classes = kernel_class(p, size_split)
    cell = p.sample * n_classes + classes

    def per_class(weights: np.ndarray) -> np.ndarray:
        return np.bincount(cell, weights, minlength=p.programs * n_classes).reshape(
            p.programs, n_classes)

    terms = [per_class(p.count * per_kernel_s), per_class(p.count)]
    lower = [0.0, -np.inf]
    if roofline_terms:
        terms.append(per_class(p.count * p.roofline_s))
        lower.append(0.0)
    columns = [np.ones(p.programs)] + [t[:, c] for c in range(n_classes) for t in terms]
    return np.stack(columns, axis=1), np.array([0.0] + lower * n_classes)


def fit_linear(design: np.ndarray, lower: np.ndarray, measured_s: np.ndarray) -> np.ndarray:
    """Coefficients minimizing the squared relative error (as `fit_terms` fits)."""
    from scipy.optimize import lsq_linear

    weight = 1.0 / measured_s
    return lsq_linear(design * weight[:, None], measured_s * weight,
                      bounds=(lower, np.full(len(lower), np.inf))).x


# -- the variants: each maps (dataset, rows to fit on, rows to predict) to seconds -------
Variant = Callable[[Priced, np.ndarray, np.ndarray], np.ndarray]


def shipped_calibration(p: Priced, fit: np.ndarray, held: np.ndarray) -> np.ndarray:
    from stablecost.train.step_calibration import calibration_from, fit_on, predict_sums

    return predict_sums(calibration_from(fit_on(p.sums, fit)), p.sums.take(held))


def linear_variant(**options: bool) -> Variant:
    def run(p: Priced, fit: np.ndarray, held: np.ndarray) -> np.ndarray:
        design, lower = class_design(p, p.predicted_s, **options)
        coefficients = fit_linear(design[fit], lower, p.measured_s[fit])
        floor = 0.1 * p.total(p.count * p.predicted_s)[held]   # the shipped clamp
        return np.maximum(design[held] @ coefficients, floor)
    return run


def program_features(p: Priced, calibrated_s: np.ndarray) -> np.ndarray:
    """Per program: what the stacker reads (all ratios or logs, none in seconds alone
    but the calibration's answer against the roofline)."""
    classes, n_classes = kernel_class(p)
    roofline = p.count * p.roofline_s
    predicted = p.count * p.predicted_s
    columns = []
    for c in range(n_classes):
        columns.append(p.total(roofline * (classes == c)) / p.total(roofline))
        columns.append(p.total(predicted * (classes == c)) / p.total(predicted))
    launches = p.total(p.count)
    columns += [np.log(launches), np.log(np.bincount(p.sample, minlength=p.programs)),
                p.total(predicted * (p.count > 1.5)) / p.total(predicted),
                np.log(p.total(predicted) / p.total(roofline)),
                np.log(p.total(roofline) / launches),
                np.log(calibrated_s / p.total(roofline))]
    return np.stack(columns, axis=1)


TREE_PARAMS = {"max_depth": 3, "eta": 0.05, "subsample": 0.8, "colsample_bytree": 0.8,
               "min_child_weight": 5, "reg_lambda": 5.0, "objective": "reg:absoluteerror",
               "nthread": 2, "verbosity": 0}


def stacker(pool: list[Priced] | None, seed: int) -> Variant:
    """Trees over the calibration (see the module docstring); `pool`: fit on the other
    families of every dataset in it, else of the dataset alone."""
    import xgboost as xgb

    def run(p: Priced, fit: np.ndarray, held: np.ndarray) -> np.ndarray:
        family = set(p.family[held].tolist()) - set(p.family[fit].tolist())  # held out
        inputs, targets = [], []
        for other in pool or [p]:
            rows = fit if other is p else np.flatnonzero(
                ~np.isin(other.family, list(family)) & (other.split != "test"))
            everything = np.arange(other.programs)
            calibrated = shipped_calibration(other, rows, everything)
            inputs.append(program_features(other, calibrated)[rows])
            targets.append(np.log(other.measured_s[rows] / calibrated[rows]))
        booster = xgb.train({**TREE_PARAMS, "seed": seed},
                            xgb.DMatrix(np.concatenate(inputs), np.concatenate(targets)), 200)
        calibrated = shipped_calibration(p, fit, np.arange(p.programs))
        correction = booster.predict(xgb.DMatrix(program_features(p, calibrated)[held]))
        return calibrated[held] * np.exp(correction)
    return run


def in_step_ceiling(p: Priced, fit: np.ndarray, held: np.ndarray) -> np.ndarray:
    assert p.in_step_s is not None
    return refit_over(p, p.in_step_s, fit, held)


def refit_over(p: Priced, per_kernel_s: np.ndarray, fit: np.ndarray,
               held: np.ndarray) -> np.ndarray:
    """The shipped calibration's two groups refitted over other per-kernel seconds."""
    classes, _ = kernel_class(p)
    group = np.where(classes <= 1, 0, 1)          # dots and convolutions, the rest
    cell = p.sample * 2 + group
    seconds = np.bincount(cell, p.count * per_kernel_s, minlength=p.programs * 2)
    launches = np.bincount(cell, p.count, minlength=p.programs * 2)
    seconds, launches = seconds.reshape(-1, 2), launches.reshape(-1, 2)
    design = np.stack([np.ones(p.programs), seconds[:, 0], launches[:, 0], seconds[:, 1],
                       launches[:, 1]], axis=1)
    lower = np.array([0.0, 0.0, -np.inf, 0.0, -np.inf])
    coefficients = fit_linear(design[fit], lower, p.measured_s[fit])
    return np.maximum(design[held] @ coefficients, 0.1 * seconds[held].sum(axis=1))


def step_context(p: Priced) -> np.ndarray:
    """Per kernel row, where it sits in its step: log2 of the bytes the whole step moves
    (executions counted: how much of it a cache could hold), of the step's kernel
    launches, and of the kernel's share of the step's bytes."""
    from stablecost.models.features import FEATURES

    col = {name: i for i, name in enumerate(FEATURES)}
    moved = sum(np.exp2(p.X[:, col[name]]) - 1.0 for name in ("bytes_read", "bytes_written"))
    step_bytes = p.total(p.count * moved)[p.sample]
    launches = p.total(p.count)[p.sample]
    return np.column_stack([np.log2(step_bytes + 1.0), np.log2(launches + 1.0),
                            np.log2((p.count * moved + 1.0) / (step_bytes + 1.0))])


def in_step_rows(p: Priced, context: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The corrector's (inputs, target, weight) per kernel row of `p`: its features and
    predicted time (and with `context`, `step_context`); log(in-step / predicted); its
    share of its step."""
    assert p.in_step_s is not None
    step_predicted = p.total(p.count * p.predicted_s)
    step_in_step = p.total(p.count * p.in_step_s)
    weight = 0.5 * (p.count * p.in_step_s / step_in_step[p.sample]
                    + p.count * p.predicted_s / step_predicted[p.sample])
    inputs = np.column_stack([p.X, np.log2(p.predicted_s * 1e6), np.log2(p.count)]
                             + ([step_context(p)] if context else []))
    target = np.clip(np.log(np.maximum(p.in_step_s, 1e-8) / p.predicted_s), -6.0, 4.0)
    return inputs, target, weight


def in_step_corrector(pool: list[Priced] | None, seed: int,
                      extra: frozenset[str] = frozenset(), context: bool = False) -> Variant:
    """Trees correcting the kernel model toward in-step times (see the module docstring),
    fitted on the other families of this dataset, or of every dataset with profiles in
    `pool`; of the datasets named in `extra` (never judged) every row but the held-out
    family's is taken, their test splits too."""
    import xgboost as xgb

    def run(p: Priced, fit: np.ndarray, held: np.ndarray) -> np.ndarray:
        family = set(p.family[held].tolist()) - set(p.family[fit].tolist())  # held out
        parts = []
        for other in [q for q in pool or [p] if q.in_step_s is not None]:
            inputs, target, weight = in_step_rows(other, context)
            rows = (np.isin(other.sample, fit) if other is p else
                    ~np.isin(other.family, list(family))[other.sample]
                    & ((other.split[other.sample] != "test") | (other.name in extra)))
            parts.append((inputs[rows], target[rows], weight[rows]))
        inputs = np.concatenate([x for x, _, _ in parts])
        target = np.concatenate([t for _, t, _ in parts])
        weight = np.concatenate([w for _, _, w in parts])
        booster = xgb.train({**TREE_PARAMS, "objective": "reg:squarederror", "max_depth": 6,
                             "eta": 0.1, "colsample_bytree": 0.5, "min_child_weight": 20,
                             "reg_lambda": 10.0, "seed": seed},
                            xgb.DMatrix(inputs, target, weight=weight), 100)
        corrected = p.predicted_s * np.exp(booster.predict(
            xgb.DMatrix(in_step_rows(p, context)[0])))
        return refit_over(p, corrected, fit, held)
    return run


def shipped_corrector(pool: list[Priced], seed: int, floor: str = "") -> Variant:
    """The bundle's in-step corrector (`models.in_step`, fitted as `train.in_step` fits
    it) on every profiled program of `pool` outside the held-out family and the test
    splits, then the shipped step calibration refitted over its corrections.
    `floor`: the trees correct the kernel model's answer raised to the roofline ("roofline"),
    its busy time alone ("busy") or its memory time alone ("memory") on kernels without a dot
    (`models.in_step.in_step_base`), not the answer itself."""
    from stablecost.train.in_step import Profiled, fit_in_step
    from stablecost.train.step_calibration import (
        calibration_from,
        fit_on,
        predict_sums,
        sums_of,
    )

    def run(p: Priced, fit: np.ndarray, held: np.ndarray) -> np.ndarray:
        family = set(p.family[held].tolist()) - set(p.family[fit].tolist())  # held out
        parts = [Profiled(q.name, q.rows, q.raw_in_step_s) for q in pool
                 if q.raw_in_step_s is not None]
        corrector = fit_in_step(parts, exclude_families=sorted(family), seed=seed,
                                floor=floor)
        sums = sums_of(p.rows, corrector)
        return predict_sums(calibration_from(fit_on(sums, fit)), sums.take(held))
    return run


# -- judging ------------------------------------------------------------------------------
@dataclass
class Judged:
    held_out: np.ndarray    # per program, predicted by a fit without its family
    in_sample: float        # MAPE fitted and judged on the train and val splits
    worse: list[str]        # families whose held-out MAPE is above the roofline's


def judge(p: Priced, variant: Variant) -> Judged:
    held_out = np.zeros(p.programs)
    for family in sorted(set(p.family.tolist())):
        held = np.flatnonzero(p.family == family)
        fit = np.flatnonzero((p.family != family) & (p.split != "test"))
        held_out[held] = variant(p, fit, held)
    fit = np.flatnonzero(p.split != "test")
    in_sample = mape(p.measured_s[fit], variant(p, fit, fit))
    roofline = p.sums.roofline_s
    worse = [f for f in sorted(set(p.family.tolist()))
             if mape(p.measured_s[p.family == f], held_out[p.family == f])
             > mape(p.measured_s[p.family == f], roofline[p.family == f])]
    return Judged(held_out, in_sample, worse)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", default=None,
                        help="a CPU dataset (repeatable); default: every data/cpu* one")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--extra", action="append", default=None, metavar="DATA",
                        help="a dataset with step profiles that only joins the pooled "
                             "in-step corrector's data, never judged (repeatable; e.g. "
                             "the stored sets' programs, benchmarks/set_programs.py)")
    parser.add_argument("--only", action="append", default=None, metavar="TEXT",
                        help="run only the variants whose name holds this text (repeatable)")
    args = parser.parse_args(argv)

    from stablecost.errors import StablecostError
    from stablecost.models.learned import load_models
    from stablecost.train.data import pick_dataset

    started = time.perf_counter()
    folders = args.data or [str(d) for d in sorted((ROOT / "data").glob("cpu*"))]
    bundle = load_models("host-cpu")
    if bundle is None:
        say("no bundled host-cpu models")
        return 2
    # every variant is fitted here over the kernel model alone: the bundle's own
    # corrector saw every family
    bundle = replace(bundle, corrector=None)
    try:
        datasets = [pick_dataset(folder, "host-cpu") for folder in folders]
        extra_sets = [pick_dataset(folder, "host-cpu") for folder in args.extra or []]
    except StablecostError as exc:
        say(f"error: {exc}")
        return 2
    priced = []
    for dataset in datasets:
        priced.append(price(dataset, bundle))
        say(f"{dataset.name}: {priced[-1].programs} programs priced "
            f"({time.perf_counter() - started:.0f} s)")
    extras = []
    for dataset in extra_sets:
        extras.append(price(dataset, bundle))
        extras[-1].name = f"{dataset.parent.name}/{dataset.name}"
        say(f"{extras[-1].name}: {extras[-1].programs} programs priced, step profiles "
            f"{'of every one' if extras[-1].in_step_s is not None else 'missing'} "
            f"({time.perf_counter() - started:.0f} s)")
    xla_cpu = {} if args.only and not any(t in "XLA:CPU fusion" for t in args.only) else \
        {p.name: price(d, bundle, epilogue=False) for p, d in zip(priced, datasets)}
    variants: dict[str, Variant] = {
        "calibration (shipped)": shipped_calibration,
        "by class": linear_variant(),
        "by class and size": linear_variant(size_split=True),
        "by class with roofline terms": linear_variant(roofline_terms=True),
        "stacker, own data": stacker(None, args.seed),
        "stacker, pooled": stacker(priced, args.seed),
        "in-step corrector, own data": in_step_corrector(None, args.seed),
        "in-step corrector, pooled": in_step_corrector(priced, args.seed),
        **({"in-step corrector, pooled with --extra": in_step_corrector(
            priced + extras, args.seed, frozenset(e.name for e in extras))}
           if extras else {}),
        "in-step corrector with the step's context, pooled": in_step_corrector(
            priced + extras, args.seed, frozenset(e.name for e in extras), context=True),
        "in-step corrector as shipped (models/in_step.py), pooled": shipped_corrector(
            priced + extras, args.seed),
        "in-step corrector over the roofline floor, pooled":
            shipped_corrector(priced + extras, args.seed, floor="roofline"),
        "in-step corrector over the busy-time floor, pooled":
            shipped_corrector(priced + extras, args.seed, floor="busy"),
        "in-step corrector over the memory-time floor, pooled":
            shipped_corrector(priced + extras, args.seed, floor="memory"),
        "in-step ceiling": in_step_ceiling,
    }
    if args.only:
        variants = {n: v for n, v in variants.items() if any(t in n for t in args.only)}
    results: dict[str, dict[str, Judged]] = {}
    for name, variant in variants.items():
        results[name] = {}
        for p in priced:
            if "in-step" in name and p.in_step_s is None and not (
                    "as shipped" in name or " floor, pooled" in name):
                continue
            results[name][p.name] = judge(p, variant)
        say(f"{name}: {time.perf_counter() - started:.0f} s")
    if not args.only or any(t in "XLA:CPU fusion" for t in args.only):
        results["XLA:CPU fusion"] = {name: judge(p, shipped_calibration)
                                     for name, p in xla_cpu.items()}

    names = [p.name for p in priced]
    print(f"## Step models over the kernel model, leave one family out ({today()}, commit "
          f"{commit()})\n")
    print("Command: `.venv/bin/python benchmarks/step_variants.py`"
          + "".join(f" --data {f}" for f in args.data or [])
          + "".join(f" --extra {f}" for f in args.extra or [])
          + "".join(f" --only '{t}'" for t in args.only or []) + "\n")
    print("Each cell: held-out MAPE / in-sample MAPE / families worse than the roofline.\n")
    print("| variant | " + " | ".join(f"{n} ({p.programs})" for n, p in zip(names, priced))
          + " |")
    print("|---|" + "---|" * len(names))
    for name, by_data in results.items():
        cells = []
        for p in priced:
            judged = by_data.get(p.name)
            cells.append("-" if judged is None else
                         f"{mape(p.measured_s, judged.held_out):.1%} / "
                         f"{judged.in_sample:.1%} / {len(judged.worse)}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    roofline = " | ".join(f"{mape(p.measured_s, p.sums.roofline_s):.1%}" for p in priced)
    print(f"| roofline | {roofline} |")
    say(f"{time.perf_counter() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
