"""Whether adapt's step factor carries to steps it was not fitted on: one factor against
none and against a factor per step size, held out by machine and by group.

    .venv/bin/python benchmarks/adapt_factors.py [--adapt-data DIR]

Every step sample the bundle prices with a step model (`train.adapt.residual_of`) is
taken from the project's datasets of machines other than the bundle's own (`data/*/`,
as `train.other_machines` takes them) and, where it exists, from this machine's
`stablecost hardware adapt` data (`--adapt-data`, default the config dir's
`adapt-data/`). Three corrections of the step time are compared:

- `none`: the bundle's answer as it is;
- `one factor`: the MAPE-optimal factor of the fitting samples (what adapt and the
  bundle's default for other machines fit, `train.adapt.mape_log_factor`);
- `by size`: one such factor per bin of the bundle's predicted step time (under 2 ms,
  2-10 ms, 10-50 ms, 50 ms and more), each shrunk toward the single factor by
  `train.adapt.SHRINK` pseudo-samples.

Held out two ways: fitted on the other machines' samples and priced on one machine's
(the bundle's default), and, on the adapt data, five folds by group (adapt's own
fit). Printed: MAPE per way, and by measured step size. Needs no timing; about a
minute and a half.
"""

from __future__ import annotations

import argparse
import math
import sys
import zlib
from pathlib import Path
from typing import Callable

import numpy as np
from _common import ROOT, commit, today

EDGES_S = (0.002, 0.01, 0.05)
SIZE_BINS = ((0.0, 0.002), (0.002, 0.01), (0.01, 0.05), (0.05, math.inf))
# (group, predicted step seconds, measured seconds, log(measured / predicted))
Sample = tuple[str, float, float, float]
Correction = Callable[[float], float]


def step_samples(dataset: Path, hw) -> list[Sample]:
    from stablecost.datasets import store
    from stablecost.featurize.analysis import analyze, for_chip_kind
    from stablecost.featurize.ingest import load_program
    from stablecost.models.learned import load_models, predict_kernels
    from stablecost.train.adapt import residual_of

    models = load_models("host-cpu")
    frame = store.read_frame(dataset, columns=["group_id", "stablehlo", "median_s", "family"])
    frame = frame[frame["family"] != "outlined"]
    out = []
    for group, text, measured, _ in frame.itertuples(index=False):
        analysis = for_chip_kind(analyze(load_program(text)), hw.kind)
        learned = predict_kernels(models, analysis, hw)
        residual = residual_of(models, analysis, learned, group, measured)
        if residual is not None and residual.kind == "step":
            out.append((group, learned.step_s, float(measured), residual.log_ratio))
    return out


def fit(samples: list[Sample], edges: tuple[float, ...]) -> Correction:
    from stablecost.train.adapt import SHRINK, mape_log_factor

    ratios = np.array([s[3] for s in samples])
    overall = mape_log_factor(list(ratios))
    if not edges:
        return lambda _: math.exp(overall)
    bins = np.searchsorted(edges, [s[1] for s in samples])
    factors = []
    for b in range(len(edges) + 1):
        own = ratios[bins == b]
        log_factor = overall if not len(own) else \
            (len(own) * mape_log_factor(list(own)) + SHRINK * overall) / (len(own) + SHRINK)
        factors.append(math.exp(log_factor))
    return lambda predicted_s: factors[int(np.searchsorted(edges, predicted_s))]


def errors(samples: list[Sample], correction: Correction) -> np.ndarray:
    return np.array([abs(correction(s[1]) * math.exp(-s[3]) - 1) for s in samples])


def row(title: str, samples: list[Sample], corrections: dict[str, Correction]) -> None:
    cells = []
    for correction in corrections.values():
        e = errors(samples, correction)
        sizes = " / ".join(
            f"{100 * errors([s for s in samples if lo <= s[2] < hi], correction).mean():.0f}"
            if any(lo <= s[2] < hi for s in samples) else "-" for lo, hi in SIZE_BINS)
        cells.append(f"{100 * e.mean():.1f} % ({sizes})")
    print(f"| {title} | {len(samples)} | " + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapt-data", default=None,
                        help="this machine's adapt data (default: the config dir's adapt-data/)")
    args = parser.parse_args()
    from stablecost.datasets import store
    from stablecost.hardware import get_hardware
    from stablecost.models.learned import load_models
    from stablecost.train.adapt import default_data_dir
    from stablecost.train.data import dataset_hardware
    from stablecost.train.other_machines import other_machines

    models = load_models("host-cpu")
    if models is None:
        print("adapt_factors.py: no bundled host-cpu model", file=sys.stderr)
        return 1
    machines = {store.DatasetInfo.read(d).fingerprint_id: step_samples(d, dataset_hardware(d))
                for d in other_machines(ROOT / "data", models)}
    adapt_dir = Path(args.adapt_data) if args.adapt_data else default_data_dir()
    found = store.find_datasets(adapt_dir) if adapt_dir.is_dir() else []
    adapt = step_samples(found[0], get_hardware("host-cpu")) if found else []
    print(f"Adapt's step factor held out, {today()}, commit {commit()}: "
          "benchmarks/adapt_factors.py")
    print("\nStep MAPE (by measured step: under 2 ms / 2-10 ms / 10-50 ms / 50 ms and more)\n")
    print("| fitted on -> priced | steps | none | one factor | by size |")
    print("|---|---|---|---|---|")
    for machine, samples in machines.items():
        others = [s for m, rows in machines.items() if m != machine for s in rows]
        if others:
            row(f"the other machines -> {machine}", samples,
                {"none": lambda _: 1.0, "one": fit(others, ()), "size": fit(others, EDGES_S)})
    if adapt:
        pooled = [s for rows in machines.values() for s in rows]
        row(f"every machine -> this machine's adapt data ({found[0].name})", adapt,
            {"none": lambda _: 1.0, "one": fit(pooled, ()), "size": fit(pooled, EDGES_S)})
        folds = [zlib.crc32(s[0].encode()) % 5 for s in adapt]
        held: dict[str, list[float]] = {"none": [], "one": [], "size": []}
        for k in range(5):
            train = [s for s, f in zip(adapt, folds) if f != k]
            test = [s for s, f in zip(adapt, folds) if f == k]
            for name, edges in (("one", ()), ("size", EDGES_S)):
                held[name] += list(errors(test, fit(train, edges)))
            held["none"] += list(errors(test, lambda _: 1.0))
        print(f"| this machine's adapt data, five folds by group | {len(adapt)} | "
              + " | ".join(f"{100 * np.mean(v):.1f} %" for v in held.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
