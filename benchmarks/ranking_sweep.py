"""Ranking configuration sweeps: does the learned fidelity order configurations of one
model the way they run?

    .venv/bin/python benchmarks/ranking_sweep.py [--hardware host-cpu] [--rounds 2]
        [--sweep decoder --sweep cnn --sweep mlp]

A tuner's question, three times, each sweep eight training-step configurations of one
model at shapes the zoo the bundled models were trained on does not hold:

- decoder: an equal token count per step (1,024 tokens: batch 8 x sequence 128 or
  batch 2 x sequence 512), width 192 or 384, 1 or 3 layers;
- cnn: an equal pixel count per step (batch 4 of 48x48 images or batch 16 of 24x24),
  12 or 24 channels, 2 or 3 stages;
- mlp: a batch-size sweep (24 or 96) of an MLP of width 384 or 768, 3 or 6 layers.

Each configuration is timed `--rounds` times (the collector's program timing rule,
rounds one after the other; the geometric mean is the measured time) and predicted at
`fidelity="all"`. Prints each sweep's table and Kendall τ between the measured order
and each fidelity's order, next to the τ of one timing round against another (the order
the measurement itself can vouch for), then the generalisation issue's target per
sweep: learned τ at least 0.9 and not below the roofline's. Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import itertools
from datetime import date
from typing import Any

import numpy as np
from _common import commit

TARGET_TAU = 0.9


def _decoder() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for (b, t), d, n in itertools.product(((8, 128), (2, 512)), (192, 384), (1, 3)):
        out.append((f"batch {b} x seq {t}, width {d}, {n} layers",
                    {"batch": b, "seq": t, "d_model": d, "layers": n, "heads": max(2, d // 64),
                     "vocab": 2048, "family": "transformer_train", "size": f"d{d}-l{n}"}))
    return out


def _cnn() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for (b, i), c, s in itertools.product(((4, 48), (16, 24)), (12, 24), (2, 3)):
        out.append((f"batch {b} x {i}px, {c} channels, {s} stages",
                    {"batch": b, "image": i, "channels": c, "stages": s, "family": "cnn",
                     "size": f"c{c}-s{s}-i{i}"}))
    return out


def _mlp() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for w, n, b in itertools.product((384, 768), (3, 6), (24, 96)):
        out.append((f"width {w}, {n} layers, batch {b}",
                    {"width": w, "layers": n, "batch": b, "family": "mlp",
                     "size": f"w{w}-l{n}"}))
    return out


SWEEPS = {"decoder": _decoder, "cnn": _cnn, "mlp": _mlp}


def run_sweep(name: str, hardware: str, rounds: int) -> dict[str, float]:
    """Time and predict one sweep, print its table; the τ of each order."""
    import stablecost
    from stablecost.datasets.collect import PROGRAM_TIMING, lower, make_args
    from stablecost.datasets.zoo import build_program
    from stablecost.hardware.timing import blocking, measure
    from stablecost.train.metrics import kendall_tau

    configs = SWEEPS[name]()
    rng = np.random.default_rng(0)
    built = []
    for _, params in configs:
        fn, specs = build_program({**params, "dtype": "f32"})
        lowered = lower(fn, specs)
        built.append((lowered, blocking(lowered.compile(), *make_args(specs, rng))))
    times = [[measure(call, **PROGRAM_TIMING).median_s for _, call in built]
             for _ in range(rounds)]
    measured = np.exp(np.mean(np.log(times), axis=0))
    predicted: dict[str, list[float]] = {"learned": [], "roofline": []}
    print(f"### {name}\n")
    print("| configuration | measured | learned | roofline |")
    print("|---|---|---|---|")
    for (label, _), (lowered, _), t in zip(configs, built, measured):
        p = stablecost.predict(lowered.as_text(), hardware, fidelity="all")
        for fidelity in predicted:
            predicted[fidelity].append(p.by_fidelity[fidelity].step_time_s)
        print(f"| {label} | {t * 1e3:.2f} ms | {predicted['learned'][-1] * 1e3:.2f} ms | "
              f"{predicted['roofline'][-1] * 1e3:.2f} ms |")
    tau = {f: kendall_tau(measured, np.array(v)) for f, v in predicted.items()}
    mape = {f: float(np.mean(np.abs(np.array(v) / measured - 1.0)))
            for f, v in predicted.items()}
    if rounds > 1:
        tau["rounds"] = kendall_tau(np.array(times[0]), np.array(times[1]))
    print(f"\nKendall τ against the measured order: learned {tau['learned']:.2f} (MAPE "
          f"{mape['learned']:.1%}), roofline {tau['roofline']:.2f} (MAPE "
          f"{mape['roofline']:.1%})"
          + (f"; timing round 2 against round 1: {tau['rounds']:.2f}" if rounds > 1 else "")
          + "\n", flush=True)
    return tau


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hardware", default="host-cpu")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sweep", action="append", choices=tuple(SWEEPS),
                        help="run only these sweeps (repeatable; default: all)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: need at least 1")
    sweeps = args.sweep or list(SWEEPS)
    print(f"## Ranking sweeps ({date.today()}, commit {commit()}, hardware "
          f"{args.hardware})\n")
    print(f"Command: `.venv/bin/python benchmarks/ranking_sweep.py --rounds {args.rounds}"
          + "".join(f" --sweep {s}" for s in args.sweep or []) + "`\n")
    results = {name: run_sweep(name, args.hardware, args.rounds) for name in sweeps}
    print("| sweep | learned τ | roofline τ | round 2 against round 1 | target (τ >= "
          f"{TARGET_TAU}, not below the roofline) |")
    print("|---|---|---|---|---|")
    for name, tau in results.items():
        met = tau["learned"] >= TARGET_TAU and tau["learned"] >= tau["roofline"]
        rounds = f"{tau['rounds']:.2f}" if "rounds" in tau else "-"
        print(f"| {name} | {tau['learned']:.2f} | {tau['roofline']:.2f} | {rounds} | "
              f"{'met' if met else 'MISSED'} |")


if __name__ == "__main__":
    main()
