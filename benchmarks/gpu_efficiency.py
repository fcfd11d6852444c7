"""What measured per-class efficiencies would do to GPU predictions: a what-if, not a
model the product uses.

    .venv/bin/python benchmarks/gpu_efficiency.py [--steps DIR] [--data DIR]

The kernels the learned GPU fidelity prices by the roofline (classes outside its data:
loops, reductions, convolutions, ...) ran on the H100 at a steady fraction of the
roofline's time inside the profiled example steps (`benchmarks/xla_gpu_compare.py`).
Here that fraction is fitted per class (`dot`, `conv`, `loop`, `reduction`,
`standalone`) as the median measured / roofline time of those kernels of 10 µs or
more, and the roofline-priced kernels of a step are scaled by it:

- on the example steps, each priced by factors fitted without its family (ResNets,
  LLaMAs, the two small examples) and without the step itself;
- on the zoo programs of `--data` (none of which the factors saw), with factors fitted
  on every example.

Printed: MAPE of the learned fidelity as it is, with the factors, and the roofline's.
Needs no GPU; about a minute.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from typing import Any

import numpy as np
from _common import commit, today
from xla_gpu_compare import DEFAULT_STEPS, ROOT, profiled_kernels, read_step

HARDWARE = "H100-SXM"


def _kind(kernel: Any, ops: Any) -> str:
    if kernel.kind != "matmul":
        return str(kernel.kind)
    return "conv" if any(ops[i].opcode == "convolution" for i in kernel.ops) else "dot"


def priced(text: str) -> tuple[float, float, list[tuple[int, str, float]]]:
    """(learned step, roofline step, (kernel index, class, roofline seconds) of each
    kernel the learned fidelity priced by the roofline)."""
    import stablecost
    from stablecost.featurize.analysis import analyze, for_chip_kind

    analysis = for_chip_kind(analyze(text), "gpu")
    learned = stablecost.predict(text, HARDWARE, fidelity="learned")
    roofline = stablecost.predict(text, HARDWARE, fidelity="roofline")
    ops = analysis.program.ops
    fallback = [(k.index, _kind(k, ops), r.total_time_s)
                for k, lk, r in zip(analysis.kernels, learned.kernels, roofline.kernels)
                if lk.total_time_s == r.total_time_s]
    return learned.step_time_s, roofline.step_time_s, fallback


def with_factors(learned_s: float, fallback: list[tuple[int, str, float]],
                 factors: dict[str, float]) -> float:
    return learned_s + sum((factors.get(kind, 1.0) - 1.0) * rl for _, kind, rl in fallback)


def fit(ratios: dict[str, list[float]]) -> dict[str, float]:
    return {kind: float(np.median(v)) for kind, v in ratios.items() if v}


def family(name: str) -> str:
    return "resnet" if "resnet" in name else "llama" if "llama" in name else "small"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default=DEFAULT_STEPS)
    parser.add_argument("--data", default="data/h100-sxm-69c6a60d")
    args = parser.parse_args()
    steps = ROOT / args.steps
    results = json.loads((steps / "results.json").read_text())
    examples: dict[str, tuple[float, float, float, list, dict[str, list[float]]]] = {}
    for name, row in results.items():
        text, hlo = read_step(steps, name)
        learned_s, roofline_s, fallback = priced(text)
        _, measured = profiled_kernels(text, hlo, row["profile"])
        ratios: dict[str, list[float]] = defaultdict(list)
        if sum(measured.values()) >= 0.8 * row["profile"]["busy_s"]:
            for index, kind, rl in fallback:
                if measured.get(index, 0.0) >= 10e-6 and rl > 0:
                    ratios[kind].append(measured[index] / rl)
        examples[name] = (row["step"]["median_s"], learned_s, roofline_s, fallback, ratios)

    print(f"Measured efficiencies of roofline-priced GPU kernels, a what-if on {HARDWARE}, "
          f"{today()}, commit {commit()}: benchmarks/gpu_efficiency.py")
    print("\n| example | measured | learned | with factors (family held out) | roofline |")
    print("|---|---|---|---|---|")
    errors: dict[str, list[float]] = defaultdict(list)
    for name, (measured_s, learned_s, roofline_s, fallback, _) in examples.items():
        pooled: dict[str, list[float]] = defaultdict(list)
        for other, entry in examples.items():
            if family(other) != family(name):
                for kind, values in entry[4].items():
                    pooled[kind] += values
        scaled = with_factors(learned_s, fallback, fit(pooled))
        for key, value in (("learned", learned_s), ("factors", scaled),
                           ("roofline", roofline_s)):
            errors[key].append(abs(value / measured_s - 1))
        print(f"| {name} | {measured_s * 1e3:.3f} ms | {learned_s / measured_s - 1:+.0%} | "
              f"{scaled / measured_s - 1:+.0%} | {roofline_s / measured_s - 1:+.0%} |")
    print("| MAPE | | " + " | ".join(f"{100 * np.mean(errors[k]):.1f} %"
                                       for k in ("learned", "factors", "roofline")) + " |")
    pooled = defaultdict(list)
    for entry in examples.values():
        for kind, values in entry[4].items():
            pooled[kind] += values
    factors = fit(pooled)
    print("\nfactors fitted on every example (kernels): " + ", ".join(
        f"{k} {v:.2f} ({len(pooled[k])})" for k, v in sorted(factors.items())))
    from stablecost.datasets.outlined import program_rows

    zoo: dict[str, list[float]] = defaultdict(list)
    for row in program_rows(ROOT / args.data, None):
        learned_s, roofline_s, fallback = priced(row.stablehlo)
        measured_s = float(row.median_s)
        zoo["learned"].append(abs(learned_s / measured_s - 1))
        zoo["factors"].append(abs(with_factors(learned_s, fallback, factors) / measured_s - 1))
        zoo["roofline"].append(abs(roofline_s / measured_s - 1))
    print(f"zoo ({len(zoo['learned'])} programs the factors never saw): learned "
          f"{100 * np.mean(zoo['learned']):.1f} %, with factors "
          f"{100 * np.mean(zoo['factors']):.1f} %, roofline {100 * np.mean(zoo['roofline']):.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
