"""Ranking a configuration sweep: does the learned fidelity order configurations of one
model the way they run?

    .venv/bin/python benchmarks/ranking_sweep.py [--hardware host-cpu] [--rounds 2]

A tuner's question: eight configurations of a decoder training step at an equal token
count per step (1,024 tokens: batch 8 x sequence 128 or batch 2 x sequence 512), width
192 or 384, 1 or 3 layers; none of these widths or depths is in the program zoo the
bundled models were trained on. Each is timed `--rounds` times (the collector's
program timing rule, rounds one after the other) and predicted at `fidelity="all"`.
Prints the table and Kendall τ between the measured order and each fidelity's order,
next to the τ of one timing round against another (the order the measurement itself
can vouch for). Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import itertools
from datetime import date

import numpy as np
from _common import commit

CONFIGS = [{"batch": b, "seq": t, "d_model": d, "layers": n}
           for (b, t), d, n in itertools.product(((8, 128), (2, 512)), (192, 384), (1, 3))]


def _params(config: dict) -> dict:
    d = config["d_model"]
    return {**config, "heads": max(2, d // 64), "vocab": 2048, "dtype": "f32",
            "family": "transformer_train", "size": f"d{d}-l{config['layers']}"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hardware", default="host-cpu")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    import stablecost
    from stablecost.datasets.collect import PROGRAM_TIMING, lower, make_args
    from stablecost.datasets.zoo import build_program
    from stablecost.hardware.timing import blocking, measure
    from stablecost.train.metrics import kendall_tau

    rng = np.random.default_rng(0)
    built = []
    for config in CONFIGS:
        fn, specs = build_program(_params(config))
        lowered = lower(fn, specs)
        built.append((lowered, blocking(lowered.compile(), *make_args(specs, rng))))
    rounds = [[measure(call, **PROGRAM_TIMING).median_s for _, call in built]
              for _ in range(args.rounds)]
    measured = np.exp(np.mean(np.log(rounds), axis=0))
    predicted = {"learned": [], "roofline": []}
    print(f"ranking sweep, {date.today()}, commit {commit()}, hardware {args.hardware}\n")
    print("| batch x seq | width | layers | measured | learned | roofline |")
    print("|---|---|---|---|---|---|")
    for config, (lowered, _), t in zip(CONFIGS, built, measured):
        p = stablecost.predict(lowered.as_text(), args.hardware, fidelity="all")
        for name in predicted:
            predicted[name].append(p.by_fidelity[name].step_time_s)
        print(f"| {config['batch']} x {config['seq']} | {config['d_model']} | "
              f"{config['layers']} | {t * 1e3:.2f} ms | "
              f"{predicted['learned'][-1] * 1e3:.2f} ms | "
              f"{predicted['roofline'][-1] * 1e3:.2f} ms |")
    print("\n| order of | Kendall τ against the measured order |")
    print("|---|---|")
    for name, values in predicted.items():
        print(f"| {name} | {kendall_tau(measured, np.array(values)):.2f} |")
    if args.rounds > 1:
        print(f"| timing round 2 against round 1 | "
              f"{kendall_tau(np.array(rounds[0]), np.array(rounds[1])):.2f} |")


if __name__ == "__main__":
    main()
