"""Leave one family out with the in-step corrector's target changed: a what-if harness.

    .venv/bin/python benchmarks/corrector_variants.py [--upper-dot 1.0] [--upper-other 1.0]
        [--upper-loop U] [--objective squarederror|gamma] [--in-step-weight 0.5]
        -- [leave_one_family_out.py arguments]

Runs `leave_one_family_out.py` unchanged except for the corrector each fold refits
(`models.in_step`):
- `--upper-dot`, `--upper-other`: the upper clip of the fitted and predicted
  log(in-step / predicted) for kernels holding a dot or a convolution and for the rest
  (the bundle's is 1.0 for both, `LOG_RATIO_RANGE`: a kernel at most e times its
  standalone price inside a step); `--upper-loop` overrides the second for loop
  kernels (elementwise fusions) alone;
- `--objective gamma`: trees fitted to the ratio itself under XGBoost's gamma deviance
  (log link), so that they predict the log of the mean ratio rather than the mean log
  ratio; a sum of kernels is a sum of means, and a log-space fit sits below the mean by
  about half the residual variance;
- `--in-step-weight`: the share of each kernel's weight taken by its in-step time (the
  rest by the time the trees correct; `train.in_step.IN_STEP_SHARE`, the bundle's 0.5).

Each variant keeps the bundle's class offsets for standalone kernels (`models.in_step`).

Nothing the bundle ships changes; the figures it prints are those of
`leave_one_family_out.py` for the variant. The results are in benchmarks/RESULTS.md
("The in-step corrector's clip and objective, held out by family").
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def patch(upper_dot: float, upper_other: float, objective: str,
          upper_loop: float | None = None, in_step_weight: float = 0.5) -> None:
    """Replace the corrector's fit and answer for this process (see the docstring)."""
    import stablecost.models.in_step as in_step
    import stablecost.train.in_step as train_in_step
    from stablecost.models.features import FEATURES
    from stablecost.models.step_calibration import kernel_groups

    train_in_step.IN_STEP_SHARE = in_step_weight

    n = len(FEATURES)
    low = in_step.LOG_RATIO_RANGE[0]
    loop_upper = upper_other if upper_loop is None else upper_loop
    in_step.LOG_RATIO_RANGE = (low, max(upper_dot, upper_other, loop_upper))
    loop_column = FEATURES.index("kind_loop")

    def upper(inputs: np.ndarray) -> np.ndarray:
        x = np.asarray(inputs)[:, :n]
        other = np.where(x[:, loop_column] > 0, loop_upper, upper_other)
        return np.where(kernel_groups(x) == 0, upper_dot, other)

    def fit(inputs, log_ratio, weight, *, seed=0, rounds=100, threads=2, meta=None, floor=""):
        import xgboost as xgb

        target = np.clip(np.asarray(log_ratio, dtype=np.float64), low, upper(inputs))
        label = np.exp(target) if objective == "gamma" else target
        params = {"objective": f"reg:{objective}", "max_depth": 6, "eta": 0.1,
                  "subsample": 0.8, "colsample_bytree": 0.5, "min_child_weight": 20,
                  "reg_lambda": 10.0, "nthread": threads, "verbosity": 0, "seed": seed}
        booster = xgb.train(params, xgb.DMatrix(np.asarray(inputs, dtype=np.float32), label,
                                                weight=weight), rounds)
        booster.set_param({"nthread": 1})
        trees = in_step.InStepCorrector(booster)
        residual = target - trees.log_ratio(inputs, offsets=False)
        return in_step.InStepCorrector(booster, {
            **(meta or {}), "rows": int(len(inputs)), "base": in_step.BASES[floor],
            "class_offsets": in_step.class_offsets(inputs, residual, np.asarray(weight))})

    def log_ratio(self, inputs, *, offsets=True):
        import xgboost as xgb

        inputs = np.asarray(inputs)
        raw = np.asarray(self.booster.predict(xgb.DMatrix(inputs.astype(np.float32)),
                                              output_margin=True), dtype=np.float64)
        if offsets and len(inputs):
            raw = raw + self._offsets[in_step.offset_classes(inputs)]
        return np.clip(raw, low, upper(inputs))

    in_step.fit_corrector = fit
    train_in_step.fit_corrector = fit
    in_step.InStepCorrector.log_ratio = log_ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upper-dot", type=float, default=1.0)
    parser.add_argument("--upper-other", type=float, default=1.0)
    parser.add_argument("--upper-loop", type=float, default=None)
    parser.add_argument("--objective", choices=("squarederror", "gamma"),
                        default="squarederror")
    parser.add_argument("--in-step-weight", type=float, default=0.5,
                        help="share of each kernel's weight taken by its in-step time, "
                             "the rest by its priced time (the bundle's: 0.5)")
    args, rest = parser.parse_known_args()
    if rest and rest[0] == "--":
        rest = rest[1:]
    uppers = [args.upper_dot, args.upper_other,
              args.upper_other if args.upper_loop is None else args.upper_loop]
    if min(uppers) <= 0:
        raise SystemExit(f"--upper-dot/--upper-other/--upper-loop {uppers}: the clips "
                         "must be above 0 (log ratios)")
    if not 0.0 <= args.in_step_weight <= 1.0:
        raise SystemExit(f"--in-step-weight {args.in_step_weight}: a share, from 0 to 1")
    patch(args.upper_dot, args.upper_other, args.objective, args.upper_loop,
          args.in_step_weight)
    sys.path.insert(0, str(HERE))
    sys.argv = [str(HERE / "leave_one_family_out.py"), *rest]
    runpy.run_path(str(HERE / "leave_one_family_out.py"), run_name="__main__")


if __name__ == "__main__":
    main()
