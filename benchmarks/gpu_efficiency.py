"""What measured per-class efficiencies would do to GPU predictions: a what-if, not a
model the product uses.

    .venv/bin/python benchmarks/gpu_efficiency.py [--steps DIR] [--data DIR] [--hardware H100-SXM]
        [--fit-steps DIR --fit-hardware H200-SXM] [--min-roofline-us 0]
        [--what-if canonical-dots]

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

With `--fit-steps` (leave one GPU out) the factors are also fitted on another GPU's
profiled example steps, priced as `--fit-hardware`, and applied to every example and
zoo program of this one. `--min-roofline-us` scales only the roofline-priced kernels
whose roofline time is at least that (the factors come from kernels of 10 µs or more;
the zoo's small steps are mostly kernels far below that).

Printed: MAPE of the learned fidelity as it is, with the factors, and the roofline's.
Needs no GPU; about a minute (two with `--fit-steps`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from typing import Any

import numpy as np
from _common import commit, today
from xla_gpu_compare import (
    DEFAULT_STEPS,
    ROOT,
    profiled_kernels,
    read_step,
    use_canonical_dot_shapes,
)


def _kind(kernel: Any, ops: Any) -> str:
    if kernel.kind != "matmul":
        return str(kernel.kind)
    return "conv" if any(ops[i].opcode == "convolution" for i in kernel.ops) else "dot"


def priced(text: str, hardware: str) -> tuple[float, float, list[tuple[int, str, float]]]:
    """(learned step, roofline step, (kernel index, class, roofline seconds) of each
    kernel the learned fidelity priced by the roofline)."""
    import stablecost
    from stablecost.featurize.analysis import analyze, for_chip_kind

    analysis = for_chip_kind(analyze(text), "gpu")
    learned = stablecost.predict(text, hardware, fidelity="learned")
    roofline = stablecost.predict(text, hardware, fidelity="roofline")
    ops = analysis.program.ops
    fallback = [(k.index, _kind(k, ops), r.total_time_s)
                for k, lk, r in zip(analysis.kernels, learned.kernels, roofline.kernels)
                if lk.total_time_s == r.total_time_s]
    return learned.step_time_s, roofline.step_time_s, fallback


def with_factors(learned_s: float, fallback: list[tuple[int, str, float]],
                 factors: dict[str, float], min_roofline_s: float = 0.0) -> float:
    """The learned step with each roofline-priced kernel of at least `min_roofline_s`
    scaled by its class's factor."""
    return learned_s + sum((factors.get(kind, 1.0) - 1.0) * rl for _, kind, rl in fallback
                           if rl >= min_roofline_s)


def fit(ratios: dict[str, list[float]]) -> dict[str, float]:
    return {kind: float(np.median(v)) for kind, v in ratios.items() if v}


def family(name: str) -> str:
    return "resnet" if "resnet" in name else "llama" if "llama" in name else "small"


Example = tuple[float, float, float, list, dict[str, list[float]]]


def examples_of(steps_dir: str, hardware: str) -> dict[str, Example]:
    """Per profiled example step: (measured, learned, roofline, roofline-priced kernels,
    measured / roofline of those of 10 µs or more, by class)."""
    steps = ROOT / steps_dir
    results = json.loads((steps / "results.json").read_text())
    out: dict[str, Example] = {}
    for name, row in results.items():
        if "profile" not in row:
            continue
        text, hlo = read_step(steps, name)
        learned_s, roofline_s, fallback = priced(text, hardware)
        _, measured = profiled_kernels(text, hlo, row["profile"])
        ratios: dict[str, list[float]] = defaultdict(list)
        if sum(measured.values()) >= 0.8 * row["profile"]["busy_s"]:
            for index, kind, rl in fallback:
                if measured.get(index, 0.0) >= 10e-6 and rl > 0:
                    ratios[kind].append(measured[index] / rl)
        out[name] = (row["step"]["median_s"], learned_s, roofline_s, fallback, ratios)
    return out


def pooled_ratios(examples: dict[str, Example], keep=lambda name: True
                  ) -> dict[str, list[float]]:
    pooled: dict[str, list[float]] = defaultdict(list)
    for name, entry in examples.items():
        if keep(name):
            for kind, values in entry[4].items():
                pooled[kind] += values
    return pooled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default=DEFAULT_STEPS)
    parser.add_argument("--data", default="data/h100-sxm-69c6a60d")
    parser.add_argument("--hardware", default="H100-SXM")
    parser.add_argument("--fit-steps", default=None, metavar="DIR",
                        help="another GPU's profiled example steps to fit the factors on")
    parser.add_argument("--fit-hardware", default=None, metavar="NAME",
                        help="that GPU's catalog name (with --fit-steps)")
    parser.add_argument("--min-roofline-us", type=float, default=0.0,
                        help="scale only roofline-priced kernels of at least this many µs")
    parser.add_argument("--what-if", choices=("canonical-dots",), default=None,
                        help="also price GPU dots with the output-shape features of the GEMM "
                             "cuBLAS runs (xla_gpu_compare.py's what-if)")
    args = parser.parse_args()
    if args.what_if == "canonical-dots":
        use_canonical_dot_shapes()
    if (args.fit_steps is None) != (args.fit_hardware is None):
        parser.error("--fit-steps and --fit-hardware go together")
    if not args.min_roofline_us >= 0:
        parser.error(f"--min-roofline-us {args.min_roofline_us}: must be >= 0")
    gate = args.min_roofline_us * 1e-6
    examples = examples_of(args.steps, args.hardware)
    other = None if args.fit_steps is None else fit(pooled_ratios(
        examples_of(args.fit_steps, args.fit_hardware)))

    command = (f"benchmarks/gpu_efficiency.py --steps {args.steps} --data {args.data} "
               f"--hardware {args.hardware} --min-roofline-us {args.min_roofline_us:g}")
    if other is not None:
        command += f" --fit-steps {args.fit_steps} --fit-hardware {args.fit_hardware}"
    if args.what_if:
        command += f" --what-if {args.what_if}"
    print(f"Measured efficiencies of roofline-priced GPU kernels, a what-if on "
          f"{args.hardware}, {today()}, commit {commit()}: {command}")
    columns = ["learned", "factors"] + (["other GPU's factors"] if other else []) + ["roofline"]
    print("\n| example | measured | learned | with factors (family held out) | "
          + (f"with {args.fit_hardware}'s factors | " if other else "") + "roofline |")
    print("|---|---|" + "---|" * len(columns))
    errors: dict[str, list[float]] = defaultdict(list)
    for name, (measured_s, learned_s, roofline_s, fallback, _) in examples.items():
        held = fit(pooled_ratios(examples, lambda o, n=name: family(o) != family(n)))
        values = {"learned": learned_s, "factors": with_factors(learned_s, fallback, held, gate),
                  "roofline": roofline_s}
        if other:
            values["other GPU's factors"] = with_factors(learned_s, fallback, other, gate)
        for key in columns:
            errors[key].append(abs(values[key] / measured_s - 1))
        print(f"| {name} | {measured_s * 1e3:.3f} ms | "
              + " | ".join(f"{values[k] / measured_s - 1:+.0%}" for k in columns) + " |")
    print("| MAPE | | " + " | ".join(f"{100 * np.mean(errors[k]):.1f} %" for k in columns)
          + " |")
    pooled = pooled_ratios(examples)
    factors = fit(pooled)
    print("\nfactors fitted on every example (kernels): " + ", ".join(
        f"{k} {v:.2f} ({len(pooled[k])})" for k, v in sorted(factors.items())))
    if other:
        print(f"factors fitted on {args.fit_hardware}'s examples: " + ", ".join(
            f"{k} {v:.2f}" for k, v in sorted(other.items())))
    from stablecost.datasets.outlined import program_rows

    zoo: dict[str, list[float]] = defaultdict(list)
    for row in program_rows(ROOT / args.data, None):
        learned_s, roofline_s, fallback = priced(row.stablehlo, args.hardware)
        measured_s = float(row.median_s)
        values = {"learned": learned_s, "roofline": roofline_s,
                  "factors": with_factors(learned_s, fallback, factors, gate)}
        if other:
            values["other GPU's factors"] = with_factors(learned_s, fallback, other, gate)
        for key, value in values.items():
            zoo[key].append(abs(value / measured_s - 1))
    print(f"zoo ({len(zoo['learned'])} programs the factors never saw): " + ", ".join(
        f"{'with factors' if k == 'factors' else k} {100 * np.mean(zoo[k]):.1f} %"
        for k in columns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
