"""Our kernels and predictions against XLA:GPU's own, on steps measured on a real GPU
(`benchmarks/xla_gpu.py`'s output; committed for the H100 under
`benchmarks/timings/h100-sxm-69c6a60d/steps/`).

    .venv/bin/python benchmarks/xla_gpu_compare.py [--steps DIR] [--hardware H100-SXM]
        [--what-if canonical-dots]

Prints two Markdown tables with the date and commit:

- kernels: per program, the kernels one step launches and the bytes at their
  boundaries, as XLA:GPU compiled it (its optimized HLO: every instruction of an
  executed computation that launches work, fusions and library calls alike, times its
  loop's known trip count; bytes are each one's operands and results) beside ours
  (`analysis.for_chip_kind(..., "gpu")`: multi-output fusion on), and the kernels the
  profiler saw run;
- steps: the measured step (the collector's rule for whole steps) beside every
  fidelity's prediction for the chip, with each one's error.

`--what-if canonical-dots` prices every GPU dot with the output-shape features of the
GEMM cuBLAS runs ([batch,] m, n, the free dimensions of each operand collapsed) instead of
the dot's own output shape (a grouped-query attention gradient's 1x2x128x3x4096): a
what-if of the kernel model's inputs, not what `predict` does (benchmarks/RESULTS.md).

Reads only committed files and needs no GPU.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from _common import commit, today

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_STEPS = "benchmarks/timings/h100-sxm-69c6a60d/steps"

# bytes per element of HLO's element types
_ELEMENT_BYTES = {"pred": 1, "s8": 1, "u8": 1, "f8e4m3fn": 1, "f8e5m2": 1, "s16": 2, "u16": 2,
                  "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8,
                  "f64": 8, "c64": 8, "c128": 16}
# instructions that launch no work of their own
_FREE = {"parameter", "constant", "get-tuple-element", "tuple", "bitcast", "while",
         "conditional", "call", "after-all", "partition-id", "replica-id", "opt-barrier",
         "add-dependency", "domain"}
_SLICES = {"slice", "dynamic-slice"}
_COMPUTATION = re.compile(r"^(ENTRY )?%?([\w.\-]+) \(.*\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(?:ROOT )?%?([\w.\-]+) = (.+?) ([a-z][\w\-]*)\((.*)$")
_ARRAY = re.compile(r"\b([a-z]+\d*[a-z0-9]*)\[([0-9,]*)\]")


def shape_bytes(shape: str) -> int:
    """Bytes of an HLO shape string (arrays and tuples of them; layouts ignored)."""
    total = 0
    for dtype, dims in _ARRAY.findall(shape):
        if dtype in _ELEMENT_BYTES:
            n = 1
            for d in (int(x) for x in dims.split(",") if x):
                n *= d
            total += n * _ELEMENT_BYTES[dtype]
    return total


def xla_kernels(hlo: str) -> tuple[float, float]:
    """(kernels one step launches, bytes at their boundaries) of an optimized HLO
    module's text: the entry computation and what its loops and branches run, each
    while body times the loop's known trip count (once when XLA knows none)."""
    computations: dict[str, list[tuple[str, str, str, str]]] = {}
    entry = ""
    current: list[tuple[str, str, str, str]] | None = None
    for line in hlo.splitlines():
        found = _COMPUTATION.match(line)
        if found:
            current = computations.setdefault(found.group(2), [])
            entry = found.group(2) if found.group(1) else entry
            continue
        found = _INSTRUCTION.match(line)
        if found and current is not None:
            current.append(found.groups())   # type: ignore[arg-type]
    weight: dict[str, float] = defaultdict(float)

    def visit(name: str, times: float) -> None:
        weight[name] += times
        for _, _, opcode, rest in computations.get(name, ()):
            trips = re.search(r'"known_trip_count":\{"n":"(\d+)"', rest)
            n = float(trips.group(1)) if trips else 1.0
            if opcode == "while":
                for key in ("body", "condition"):
                    called = re.search(rf"{key}=%?([\w.\-]+)", rest)
                    if called:
                        visit(called.group(1), times * (n if key == "body" else n + 1))
            elif opcode == "conditional":
                branches = re.search(r"branch_computations=\{([^}]*)\}", rest)
                for called in (branches.group(1).split(",") if branches else ()):
                    visit(called.strip().lstrip("%"), times)
            elif opcode == "call":
                called = re.search(r"to_apply=%?([\w.\-]+)", rest)
                if called:
                    visit(called.group(1), times)

    visit(entry, 1.0)
    kernels = moved = 0.0
    for name, times in weight.items():
        shapes = {n: shape for n, shape, _, _ in computations[name]}
        for _, shape, opcode, rest in computations[name]:
            if opcode in _FREE or opcode.endswith("-done"):   # an async pair: its start
                continue
            operands = [shapes.get(o.strip().lstrip("%"), "")
                        for o in rest.split(")", 1)[0].split(",") if o.strip()]
            called = re.search(r"calls=%?([\w.\-]+)", rest)
            kernels += times
            moved += times * _moved(shape, opcode, operands,
                                    computations.get(called.group(1), []) if called else [])
    return kernels, moved


def _dims(shape: str) -> list[str]:
    return [f"{t}[{d}]" for t, d in _ARRAY.findall(shape)]


def _moved(shape: str, opcode: str, operands: list[str],
           body: list[tuple[str, str, str, str]]) -> float:
    """Bytes one launch of an instruction moves: what it reads of its operands and
    writes of its results, with slices read as the slices, in-place updates
    (dynamic-update-slice of a parameter) as the update, an async start as its slice."""
    if opcode.endswith("-start"):
        last = _dims(shape)[-1:]
        return 2.0 * shape_bytes(" ".join(last))
    if opcode in _SLICES:
        return 2.0 * shape_bytes(shape) + sum(shape_bytes(o) for o in operands[1:])
    if opcode == "dynamic-update-slice":
        return 2.0 * sum(shape_bytes(o) for o in operands[1:])
    writes = _dims(shape)
    if not body:
        return sum(shape_bytes(o) for o in operands) + shape_bytes(shape)
    names = {r.split(")", 1)[0]: n for n, _, op, r in body if op == "parameter"}
    body_shapes = {n: s for n, s, _, _ in body}
    aliases = {n: n for n in names.values()}
    for n, _, op, r in body:            # bitcasts of a parameter are the parameter
        first = r.split(")", 1)[0].split(",")[0].strip().lstrip("%")
        if op == "bitcast" and first in aliases:
            aliases[n] = aliases[first]
    in_place: set[str] = set()
    updates = 0
    for _, _, op, r in body:
        args = [a.strip().lstrip("%") for a in r.split(")", 1)[0].split(",")]
        if op == "dynamic-update-slice" and args and args[0] in aliases:
            in_place.add(aliases[args[0]])
            updates += shape_bytes(body_shapes.get(args[1], "")) if len(args) > 1 else 0
    read = 0.0
    for i, operand in enumerate(operands):
        param = names.get(str(i))
        if param in in_place:
            for d in _dims(operand):    # the buffer stays where it is
                if d in writes:
                    writes.remove(d)
            continue
        read += shape_bytes(_sliced(body, i, operand))
    return read + shape_bytes(" ".join(writes)) + updates


def _sliced(body: list[tuple[str, str, str, str]], index: int, shape: str) -> str:
    """The shape(s) a fused computation reads of its parameter `index`: the slices it
    takes when every use of the parameter is a (dynamic) slice, else the whole."""
    names = [n for n, _, op, r in body if op == "parameter" and r.startswith(f"{index})")]
    if not names:
        return shape
    sliced: list[str] = []
    for _, s, op, r in body:
        args = [a.strip().lstrip("%") for a in r.split(")", 1)[0].split(",")]
        if op == "parameter" or names[0] not in args:
            continue
        if op not in _SLICES or args[0] != names[0]:
            return shape          # read whole somewhere (an index is not a slice)
        sliced.append(s)
    return " ".join(sliced) if sliced else shape


def read_step(steps: Path, name: str) -> tuple[str, str]:
    """(the StableHLO, XLA's optimized HLO) of one step `benchmarks/xla_gpu.py` kept."""
    with gzip.open(steps / f"{name}.stablehlo.mlir.gz", "rt") as f:
        text = f.read()
    with gzip.open(steps / f"{name}.optimized.hlo.gz", "rt") as f:
        return text, f.read()


def ours(text: str, hardware: str) -> tuple[float, float]:
    """(kernels, bytes at their boundaries) of our GPU analysis of the program."""
    from stablecost.featurize.analysis import analyze, for_chip_kind

    analysis = for_chip_kind(analyze(text), "gpu")
    kernels = [k for k in analysis.kernels if k.kind != "collective" and k.priced]
    return sum(k.count for k in kernels), float(analysis.fused_bytes_accessed)


def use_canonical_dot_shapes() -> None:
    """From here on, GPU kernels rooted at a dot get the output-shape features
    (`out_rank`, `out_last`, ...) of the GEMM cuBLAS runs, ([batch,] m, n), instead of
    the dot's own output shape: the shapes the kernel model's GEMM tables were
    featurized from. Wraps `models.features.kernel_features`; a what-if."""
    import math

    import stablecost.models.features as features

    plain = features.kernel_features
    column = features._COL

    def canonical(kernel, program, hw, out=None):
        row = plain(kernel, program, hw, out)
        root = program.ops[kernel.root]
        if hw.kind != "gpu" or root.opcode != "dot_general":
            return row
        dims = root.attributes.get("dot_dimension_numbers", {}) or {}
        lhs, rhs = root.operands[0], root.operands[1]
        lb = dims.get("lhs_batching_dimensions") or []
        lc = dims.get("lhs_contracting_dimensions") or []
        rb = dims.get("rhs_batching_dimensions") or []
        rc = dims.get("rhs_contracting_dimensions") or []
        batch = math.prod(lhs.shape[d] for d in lb)
        m = math.prod(s for d, s in enumerate(lhs.shape) if d not in lb and d not in lc)
        n = math.prod(s for d, s in enumerate(rhs.shape) if d not in rb and d not in rc)
        shape = (batch, m, n) if batch > 1 else (m, n)
        row[column["out_rank"]] = float(len(shape))
        row[column["out_last"]] = features._lg(n)
        row[column["out_second_last"]] = features._lg(m)
        row[column["out_last_mod8"]] = float(n % 8 == 0)
        row[column["out_last_mod128"]] = float(n % 128 == 0)
        row[column["out_last_pow2"]] = float(n & (n - 1) == 0)
        return row

    features.kernel_features = canonical


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default=DEFAULT_STEPS)
    parser.add_argument("--hardware", default="H100-SXM")
    parser.add_argument("--what-if", choices=("canonical-dots",), default=None,
                        help="price GPU dots with the output-shape features of the GEMM "
                             "cuBLAS runs (not what predict does)")
    args = parser.parse_args()
    if args.what_if == "canonical-dots":
        use_canonical_dot_shapes()
    steps = ROOT / args.steps
    results = json.loads((steps / "results.json").read_text())
    machine = json.loads((steps / "machine.json").read_text())
    import stablecost

    print(f"XLA:GPU's kernels and steps against ours on {args.hardware}, {today()}, commit "
          f"{commit()}: benchmarks/xla_gpu_compare.py --steps {args.steps} --hardware "
          f"{args.hardware}" + (f" --what-if {args.what_if}" if args.what_if else ""))
    from stablecost.hardware.fingerprint import fingerprint_id

    print(f"measured on {machine['machine']['device_name']} (fingerprint "
          f"{fingerprint_id(machine['machine']['fingerprint'])}, jax {machine['jax']})\n")
    print("| program | XLA:GPU kernels | ours | distinct kernels profiled | XLA:GPU boundary bytes "
          "| ours | ours / XLA |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for name, row in results.items():
        if "step" not in row:
            print(f"| {name} | {row.get('error', 'not measured')[:60]} |||||")
            continue
        text, hlo = read_step(steps, name)
        xla_count, xla_bytes = xla_kernels(hlo)
        our_count, our_bytes = ours(text, args.hardware)
        profiled = row.get("profile", {}).get("thunks", "")
        print(f"| {name} | {xla_count:,.0f} | {our_count:,.0f} | {profiled} | "
              f"{xla_bytes / 1e6:,.1f} MB | {our_bytes / 1e6:,.1f} MB | "
              f"{our_bytes / xla_bytes:.2f} |")
        rows.append((name, text, row["step"]["median_s"]))
    print("\n| program | measured | learned | error | roofline | error |")
    print("|---|---|---|---|---|---|")
    errors: dict[str, list[float]] = defaultdict(list)
    for name, text, measured in rows:
        p = stablecost.predict(text, args.hardware, fidelity="all")
        cells = []
        for fidelity in ("learned", "roofline"):
            got = p.by_fidelity.get(fidelity)
            if got is None:
                cells += ["—", ""]
                continue
            err = got.step_time_s / measured - 1
            errors[fidelity].append(abs(err))
            cells += [f"{got.step_time_s * 1e3:.3f} ms", f"{err:+.0%}"]
        print(f"| {name} | {measured * 1e3:.3f} ms | " + " | ".join(cells) + " |")
    print("\n" + ", ".join(f"{f}: MAPE {100 * sum(e) / len(e):.1f} % over {len(e)} programs"
                           for f, e in errors.items()))
    kernel_table(results, steps, args.hardware)
    return 0


def profiled_kernels(text: str, hlo: str, profile: dict) -> tuple[Any, dict[int, float]]:
    """(our GPU analysis of the program, seconds per step of each of its kernels inside
    the profiled step): the profile's per-instruction times split over our kernels by
    the op labels the optimized HLO carries, as `featurize.step_profile` splits them."""
    from stablecost.featurize.analysis import analyze, for_chip_kind
    from stablecost.featurize.ingest import load_program
    from stablecost.featurize.mlir import parse_module
    from stablecost.featurize.step_profile import (
        _attribute,
        compute_thunks,
        label_ops,
        thunk_labels,
    )

    module = parse_module(text.encode(), "program")
    label_ops(module)
    analysis = for_chip_kind(analyze(load_program(
        module.operation.get_asm(enable_debug_info=True))), "gpu")
    labels, _ = thunk_labels(hlo)
    computing, unnamed = compute_thunks(hlo, labels)
    exclusive = {name: seconds * 1e9 for name, seconds in profile["thunk_s"].items()}
    split = _attribute(analysis, labels, exclusive, profile["busy_s"] * 1e9, [1.0],
                       unnamed, computing)
    return analysis, dict(split.kernel_s)


def kernel_table(results: dict, steps: Path, hardware: str) -> None:
    """Per kernel class, the kernels' time inside the profiled steps beside their
    learned and roofline prices (programs whose profile maps 80 % of the busy time)."""
    import numpy as np

    import stablecost

    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    apes: dict[str, list[tuple[float, float]]] = defaultdict(list)
    used = []
    for name, row in results.items():
        profile = row.get("profile")
        if not profile or not profile.get("thunk_s"):
            continue
        text, hlo = read_step(steps, name)
        analysis, measured = profiled_kernels(text, hlo, profile)
        if sum(measured.values()) < 0.8 * profile["busy_s"]:
            continue
        used.append(name)
        learned = stablecost.predict(text, hardware, fidelity="learned").kernels
        roofline = stablecost.predict(text, hardware, fidelity="roofline").kernels
        ops = analysis.program.ops
        for k, lk, rk in zip(analysis.kernels, learned, roofline):
            if k.index not in measured:
                continue
            kind = k.kind if k.kind != "matmul" else (
                "matmul: convolution" if any(ops[i].opcode == "convolution" for i in k.ops)
                else "matmul: dot")
            cell = totals[kind]
            m = measured[k.index]
            cell[0] += m
            cell[1] += lk.total_time_s
            cell[2] += rk.total_time_s
            if m >= 10e-6:
                apes[kind].append((abs(lk.total_time_s / m - 1), abs(rk.total_time_s / m - 1)))
    print(f"\nKernels inside the profiled steps ({', '.join(used)}): time per step of each "
          "class, and the median APE of kernels of 10 µs or more\n")
    print("| class | measured | learned | roofline | kernels ≥ 10 µs | learned median APE "
          "| roofline median APE |")
    print("|---|---|---|---|---|---|---|")
    for kind, (m, lt, rt) in sorted(totals.items(), key=lambda kv: -kv[1][0]):
        pairs = np.array(apes.get(kind, [(np.nan, np.nan)]))
        print(f"| {kind} | {m * 1e3:.2f} ms | {lt * 1e3:.2f} ms | {rt * 1e3:.2f} ms | "
              f"{len(apes.get(kind, []))} | {100 * np.median(pairs[:, 0]):.0f} % | "
              f"{100 * np.median(pairs[:, 1]):.0f} % |")


if __name__ == "__main__":
    sys.exit(main())
