"""An in-step corrector for XLA:GPU, fitted on profiled steps of one set and judged on
steps it never saw: other programs, another GPU.

    .venv/bin/python benchmarks/gpu_in_step.py [--rounds 300] [--min-us 0]
        [--weight share|step]

Every profiled step of the two GPUs with XLA:GPU measurements (H100 and H200: the zoo
programs and the zoo's large tier of `data/<gpu>`, the example workloads of
`benchmarks/timings/<gpu>/steps`) is priced kernel by kernel as `predict(...,
fidelity="learned")` prices it on that GPU (the shared GPU kernel model, kernels outside
its data at their roofline time), and each kernel's time inside the step is read from
the profile. Trees (XGBoost) are fitted to log(in-step / price) per kernel, weighted by
the kernel's share of its step, from inputs that are relative to the chip: the kernel
features without the chip's own columns, log2 of the price, of the executions per step
and of the roofline time, whether the price is the roofline's, and the step's launches
and bytes. A step is then its learned price with every kernel's price corrected
(`--min-us`: only kernels priced at that many µs or more, the others neither learned
from nor corrected; `--weight step`: each kernel weighted by its share of the whole
step rather than of the kernels kept). The H100's zoo profiles (2026-11-25) split the
step over the kernels before multi-output fusion, not those `predict` prices on a GPU,
and are left out: the H100 contributes its example steps only.

Judged three ways, each beside the learned price as it is and the roofline, on the
same steps:

- `other GPU`: fitted on every profiled step of one GPU, priced on the other;
- `programs held out`: fitted on both GPUs' zoo steps (both tiers), priced on the
  example workloads (LLaMA and ResNet steps, a transformer block; none in the zoo);
- `other GPU, programs held out`: fitted on one GPU's zoo, priced on the other's
  examples;
- `families held out`: the zoo (both GPUs), five folds by family.

Printed: step MAPE and median APE per set, the example steps one by one, and the median
APE of kernels of 10 µs or more. Needs no GPU; about 20 s.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
from _common import commit, today

ROOT = Path(__file__).resolve().parents[1]
GPUS = {"H100-SXM": ("data/h100-sxm-69c6a60d", "benchmarks/timings/h100-sxm-69c6a60d/steps"),
        "H200-SXM": ("data/h200-sxm-9c26a180", "benchmarks/timings/h200-sxm-9c26a180/steps")}
LOG_RATIO_RANGE = (-4.0, 3.0)
FOLDS = 5


@dataclass(frozen=True)
class Rule:
    """Which kernels the corrector learns from and corrects: those priced at `min_s` or
    more; each weighted by its share of the kernels kept (`weight="share"`) or of the
    whole step ("step")."""

    min_s: float = 0.0
    weight: str = "share"
    rounds: int = 300


@dataclass
class Step:
    """One profiled step, priced kernel by kernel."""

    gpu: str
    name: str
    kind: str                # "example", "zoo" or "large"
    family: str
    measured_s: float
    learned_s: float
    roofline_s: float
    X: np.ndarray            # per priced kernel: the corrector's inputs
    price_s: np.ndarray      # per execution, as the learned fidelity prices it
    roofline_k_s: np.ndarray  # per execution, the roofline's
    counts: np.ndarray
    in_step_s: np.ndarray    # per execution inside the step (NaN: not in the profile)

    def corrected_s(self, log_ratio: np.ndarray, min_s: float) -> float:
        gate = self.price_s >= min_s
        return self.learned_s + float(np.dot(self.counts[gate], self.price_s[gate]
                                             * (np.exp(log_ratio[gate]) - 1.0)))


def _inputs(kernels, program, hw, price_s, roofline_s, counts) -> np.ndarray:
    from stablecost.models.features import FEATURES, unique_features

    keep = [i for i, name in enumerate(FEATURES) if not name.startswith("hw_")]
    matrix, _, inverse = unique_features(kernels, program, hw)
    X = matrix[inverse][:, keep]
    launches = np.log2(max(counts.sum(), 1.0))
    step_rl = np.log2(max(float(np.dot(counts, roofline_s)) * 1e6, 1e-3))
    extra = np.column_stack([
        np.log2(np.maximum(price_s * 1e6, 1e-3)),
        np.log2(np.maximum(roofline_s * 1e6, 1e-3)),
        np.log2(np.maximum(counts, 1.0)),
        (np.abs(price_s - roofline_s) <= 1e-12 * np.maximum(roofline_s, 1e-30)).astype(float),
        np.full(len(counts), launches),
        np.full(len(counts), step_rl),
        np.log2(np.maximum(counts * roofline_s, 1e-12) / max(2.0 ** step_rl * 1e-6, 1e-12)),
    ])
    return np.column_stack([X, extra]).astype(np.float32)


def price_step(gpu: str, name: str, kind: str, family: str, text: str, measured_s: float,
               profiled: Callable[[Any], dict[int, float] | None]) -> Step | None:
    """The step priced both ways, with its kernels' profiled seconds by index
    (`profiled(analysis)`); None when it has none or no kernel is priced."""
    import stablecost
    from stablecost.featurize.analysis import analyze, for_chip_kind
    from stablecost.hardware.catalog import get_hardware

    hw = get_hardware(gpu)
    analysis = for_chip_kind(analyze(text), "gpu")
    seconds = profiled(analysis)
    if seconds is None:
        return None
    learned = stablecost.predict(text, gpu, fidelity="learned")
    roofline = stablecost.predict(text, gpu, fidelity="roofline")
    chosen = [i for i, k in enumerate(analysis.kernels) if k.kind != "collective" and k.priced]
    if not chosen:
        return None
    rows = {r.index: r for r in learned.kernels}
    rl_rows = {r.index: r for r in roofline.kernels}
    counts = np.array([max(analysis.kernels[i].count, 1.0) for i in chosen])
    price = np.array([rows[i].time_s for i in chosen])
    rl = np.array([rl_rows[i].time_s for i in chosen])
    in_step = np.array([seconds[i] / c if i in seconds else np.nan
                        for i, c in zip(chosen, counts)])
    X = _inputs([analysis.kernels[i] for i in chosen], analysis.program, hw, price, rl, counts)
    return Step(gpu, name, kind, family, measured_s, learned.step_time_s,
                roofline.step_time_s, X, price, rl, counts, in_step)


def load_steps() -> list[Step]:
    from xla_gpu_compare import profiled_kernels, read_step

    from stablecost.datasets import store
    from stablecost.datasets.profiles import kernel_seconds

    out: list[Step] = []
    for gpu, (data, steps_dir) in GPUS.items():
        frame = store.read_frame(ROOT / data)
        programs = frame[(frame["kind"] == "program") & (~frame["outlier"])]
        programs = programs.drop_duplicates("sample_id").set_index("sample_id")
        profiles = frame[frame["kind"] == "profile"]
        done = 0
        for row in profiles.itertuples(index=False):
            sample = json.loads(row.params)["program"]
            if not row.kernel_times or sample not in programs.index:
                continue
            program = programs.loc[sample]
            tier = json.loads(program["params"]).get("tier", "zoo")
            step = price_step(gpu, sample, "large" if tier == "large" else "zoo",
                              str(program["family"]), str(program["stablehlo"]),
                              float(program["median_s"]),
                              functools.partial(kernel_seconds, row.kernel_times,
                                                "multi-output"))
            if step is not None:
                out.append(step)
                done += 1
        results = json.loads((ROOT / steps_dir / "results.json").read_text())
        for name, row in results.items():
            profile = row.get("profile")
            if not profile or not profile.get("thunk_s") or "step" not in row:
                continue
            text, hlo = read_step(ROOT / steps_dir, name)
            _, seconds = profiled_kernels(text, hlo, profile)
            if sum(seconds.values()) < 0.8 * profile["busy_s"]:
                continue
            step = price_step(gpu, name, "example", name.split("-")[0].rstrip("0123456789"),
                              text, float(row["step"]["median_s"]),
                              lambda _, seconds=seconds: seconds)
            if step is not None:
                out.append(step)
                done += 1
        print(f"{gpu}: {done} profiled steps priced", file=sys.stderr, flush=True)
    return out


def example_family(name: str) -> str:
    """The example steps by family: ResNets (and the small CNN), LLaMAs (and the
    transformer block), the MLP."""
    if "resnet" in name:
        return "resnet"
    return "llama" if "llama" in name or "transformer" in name else "mlp"


def training_arrays(steps: list[Step], rule: Rule
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(inputs, clipped log ratio, weight) of every profiled kernel of `steps`, each step's
    weights summing to 1; None when none has a profiled kernel."""
    X, y, w = [], [], []
    for s in steps:
        ok = np.isfinite(s.in_step_s) & (s.in_step_s > 0) & (s.price_s > 0)
        total_all = float(np.dot(s.counts[ok], s.in_step_s[ok]))
        ok &= s.price_s >= rule.min_s
        if not ok.any() or total_all <= 0:
            continue
        total = float(np.dot(s.counts[ok], s.in_step_s[ok]))
        X.append(s.X[ok])
        y.append(np.clip(np.log(s.in_step_s[ok] / s.price_s[ok]), *LOG_RATIO_RANGE))
        w.append(s.counts[ok] * s.in_step_s[ok] / (total_all if rule.weight == "step" else total))
    if not X:
        return None
    return np.concatenate(X), np.concatenate(y), np.concatenate(w)


def fit(steps: list[Step], rule: Rule):
    import xgboost as xgb

    arrays = training_arrays(steps, rule)
    if arrays is None:
        raise ValueError("no profiled kernel to fit on")
    X, y, w = arrays
    model = xgb.XGBRegressor(n_estimators=rule.rounds, max_depth=5, learning_rate=0.05,
                             subsample=0.8, colsample_bytree=0.8, min_child_weight=1e-3,
                             reg_lambda=1.0, n_jobs=2, random_state=0)
    model.fit(X, y, sample_weight=w * len(steps))
    return model


def corrected(model, step: Step, rule: Rule) -> float:
    ratio = np.clip(model.predict(step.X), *LOG_RATIO_RANGE)
    return step.corrected_s(ratio, rule.min_s)


def _errors(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    e = np.array([abs(p / m - 1) for p, m in pairs])
    return 100 * float(e.mean()), 100 * float(np.median(e))


def report(title: str, priced: list[tuple[Step, float]]) -> dict[str, float]:
    learned = _errors([(s.learned_s, s.measured_s) for s, _ in priced])
    ours = _errors([(c, s.measured_s) for s, c in priced])
    roof = _errors([(s.roofline_s, s.measured_s) for s, _ in priced])
    best = min(learned[0], ours[0], roof[0])
    cells = [f"**{m:.1f} %** ({d:.1f} %)" if m == best else f"{m:.1f} % ({d:.1f} %)"
             for m, d in (learned, ours, roof)]
    print(f"| {title} | {len(priced)} | " + " | ".join(cells) + " |")
    return {"learned": learned[0], "corrected": ours[0], "roofline": roof[0]}


def kernel_errors(model, steps: list[Step]) -> tuple[int, float, float, float]:
    """(kernels of 10 µs or more, median APE learned / corrected / roofline)."""
    a, b, c = [], [], []
    for s in steps:
        ok = np.isfinite(s.in_step_s) & (s.in_step_s * s.counts >= 10e-6)
        if not ok.any():
            continue
        ratio = np.clip(model.predict(s.X[ok]), *LOG_RATIO_RANGE)
        m = s.in_step_s[ok]
        a += list(np.abs(s.price_s[ok] / m - 1))
        b += list(np.abs(s.price_s[ok] * np.exp(ratio) / m - 1))
        c += list(np.abs(s.roofline_k_s[ok] / m - 1))
    return len(a), *(100 * float(np.median(v)) for v in (a, b, c))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--min-us", type=float, default=0.0)
    parser.add_argument("--weight", choices=("share", "step"), default="share")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: must be at least 1")
    if not args.min_us >= 0:
        parser.error(f"--min-us {args.min_us}: must be >= 0")
    rule = Rule(args.min_us * 1e-6, args.weight, args.rounds)
    steps = load_steps()
    gpus = list(GPUS)
    print(f"An in-step corrector for XLA:GPU, {today()}, commit {commit()}: "
          f"benchmarks/gpu_in_step.py --rounds {args.rounds} --min-us {args.min_us:g} "
          f"--weight {args.weight}")
    for gpu in gpus:
        have = [s for s in steps if s.gpu == gpu]
        print(f"{gpu}: " + ", ".join(f"{sum(s.kind == k for s in have)} {k}"
                                      for k in ("zoo", "large", "example")) + " steps")
    print("\nStep MAPE (median APE); the corrector never saw the steps it prices.\n")
    print("| fitted on -> priced | steps | learned today | corrected | roofline |")
    print("|---|---|---|---|---|")
    zoo = [s for s in steps if s.kind != "example"]
    for fit_gpu, test_gpu in ((gpus[0], gpus[1]), (gpus[1], gpus[0])):
        train = [s for s in steps if s.gpu == fit_gpu]
        if training_arrays(train, rule) is None:
            continue
        model = fit(train, rule)
        for kind in ("example", "large", "zoo"):
            test = [s for s in steps if s.gpu == test_gpu and s.kind == kind]
            if test:
                report(f"{fit_gpu}, every profiled step -> {test_gpu} {kind}",
                       [(s, corrected(model, s, rule)) for s in test])
    zoo_model = fit(zoo, rule)
    fitted_on = " and ".join(sorted({s.gpu for s in zoo}))
    examples_by: dict[str, list[tuple[Step, float]]] = {}
    for gpu in gpus:
        test = [s for s in steps if s.gpu == gpu and s.kind == "example"]
        examples_by[gpu] = [(s, corrected(zoo_model, s, rule)) for s in test]
        report(f"{fitted_on} zoo, both tiers -> {gpu} example", examples_by[gpu])
    families = sorted({s.family for s in zoo})
    folds = [families[i::FOLDS] for i in range(FOLDS)]
    held: list[tuple[Step, float]] = []
    for fold in folds:
        model = fit([s for s in zoo if s.family not in fold], rule)
        held += [(s, corrected(model, s, rule)) for s in zoo if s.family in fold]
    for kind in ("large", "zoo"):
        report(f"{fitted_on} zoo, families held out -> {kind}",
               [p for p in held if p[0].kind == kind])
    by_family: list[tuple[Step, float]] = []
    for fam in sorted({example_family(s.name) for s in steps if s.kind == "example"}):
        model = fit([s for s in steps if s.kind != "example"
                     or example_family(s.name) != fam], rule)
        by_family += [(s, corrected(model, s, rule)) for s in steps
                      if s.kind == "example" and example_family(s.name) == fam]
    for gpu in gpus:
        report(f"zoo and the other examples' families -> {gpu} example",
               [p for p in by_family if p[0].gpu == gpu])
    examples_by = {gpu: [p for p in by_family if p[0].gpu == gpu] for gpu in gpus}

    print("\nThe example steps, the corrector fitted on the zoo and the examples of the other "
          "families (LLaMA, ResNet, the two small ones), both GPUs:\n")
    print("| GPU | example | measured | learned today | corrected | roofline |")
    print("|---|---|---|---|---|---|")
    for gpu, rows in examples_by.items():
        for s, c in rows:
            print(f"| {gpu} | {s.name} | {s.measured_s * 1e3:.3f} ms | "
                  f"{s.learned_s / s.measured_s - 1:+.0%} | {c / s.measured_s - 1:+.0%} | "
                  f"{s.roofline_s / s.measured_s - 1:+.0%} |")
    n, a, b, c = kernel_errors(zoo_model, [s for s in steps if s.kind == "example"])
    print(f"\nKernels of 10 µs or more in the example steps ({n}), the corrector fitted on "
          f"the zoos: median APE learned {a:.0f} %, corrected {b:.0f} %, roofline {c:.0f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
