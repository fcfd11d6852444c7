"""Predicted step times of the workloads users ask about (examples/workloads/) on five
systems, at every fidelity each chip has, and what each prediction costs.

    .venv/bin/python benchmarks/workloads.py [--quick] [--only NAME[,NAME...]]

Systems: 4 x A100-SXM-40GB, 4 x H100-SXM, 4 x H200-SXM, 4 x B200 (each on its catalog
fabric, NVSwitch) and 8 x TPU-v3 (its 2D torus), every workload on a mesh of 4 or 8
devices along its one axis. `fidelity="all"`: the four NVIDIA systems get a learned
row (the bundled GPU kernel model, kernels outside its data at their roofline time) and
a roofline row; TPU v3 has the roofline only (both with alpha-beta collectives).

Prints two Markdown tables with the date and commit:
- one row per workload x system x fidelity: step time, compute, communication (all
  collectives back to back), exposed communication (what compute does not hide), and
  the wall time of that `predict` on the already prepared program;
- one row per workload x mesh: the time to lower the JAX step to StableHLO (no
  devices), to load it for the mesh (XLA's SPMD partitioner for the FSDP and tensor
  parallel steps; the shard_map ResNets need none), to analyze it, to merge its kernels
  as XLA:GPU's multi-output fusion does (kept on the analysis for every GPU and TPU),
  and to predict it on the mesh's first chip and (median) on each later chip. A program
  is lowered, partitioned and analyzed once per mesh (`predict(text, hw, mesh=...)`
  keeps it in its `ProgramCache`); the first predict of an analysis also builds what
  every chip shares (its kernel graph, its peak memory), so a predict on another chip
  for the same mesh costs only the later-predict column. The process's one-time
  imports and bundle loads happen before the tables, on a one-kernel program, and are
  reported apart.

`--quick` keeps the smallest model of each kind. Runs in under a minute on 2 cores, in
under 1 GB of memory.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import commit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

import workloads  # noqa: E402

import stablecost  # noqa: E402
from stablecost.featurize.analysis import for_chip_kind  # noqa: E402

# (label, catalog name, devices)
SYSTEMS = (("4 x A100-40GB", "A100-SXM-40GB", 4), ("4 x H100", "H100-SXM", 4),
           ("4 x H200", "H200-SXM", 4), ("4 x B200", "B200", 4), ("8 x TPU v3", "TPU-v3", 8))
# a one-kernel program whose predictions on every system import what predictions need
WARM_UP = """
func.func @main(%a: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0]
      : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %0 : tensor<256x256xbf16>
}"""
QUICK = ("llama3-100m-train", "resnet18-train", "llama3-1b-prefill", "llama3-1b-decode")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:,.0f} us"


def _selected(args: argparse.Namespace) -> list[str]:
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in workloads.WORKLOADS]
        if unknown:
            sys.exit(f"unknown workload {unknown[0]!r}; known: "
                     f"{', '.join(workloads.WORKLOADS)}")
        return names
    return list(QUICK) if args.quick else list(workloads.WORKLOADS)


def run(names: list[str]) -> tuple[list[tuple], list[tuple]]:
    """Prediction rows and preparation rows for the named workloads."""
    rows, prep = [], []
    for name in names:
        w = workloads.WORKLOADS[name]
        for devices in sorted({d for _, _, d in SYSTEMS}):
            mesh = w.mesh(devices)
            t0 = time.perf_counter()
            text = workloads.lower(w, devices)
            t1 = time.perf_counter()
            program = stablecost.load_program(text, name=name, mesh=mesh)
            t2 = time.perf_counter()
            analysis = stablecost.analyze(program)
            t3 = time.perf_counter()
            for_chip_kind(analysis, "gpu")   # the kernels as XLA:GPU fuses them, kept on it
            gpu_s = time.perf_counter() - t3
            partitioned = any("SPMD partitioner" in n for n in program.notes)
            print(f"{name} on {w.axis}={devices}: lowered {t1 - t0:.1f} s, loaded "
                  f"{t2 - t1:.1f} s, analyzed {t3 - t2:.1f} s", file=sys.stderr, flush=True)
            walls = []
            for label, hardware, n in SYSTEMS:
                if n != devices:
                    continue
                t = time.perf_counter()
                p = stablecost.predict(analysis, hardware, fidelity="all")
                wall = time.perf_counter() - t
                walls.append(wall)
                for fidelity, tot in p.by_fidelity.items():
                    rows.append((name, f"{label} ({p.topology})", fidelity, tot.step_time_s,
                                 tot.compute_s, tot.communication_s,
                                 tot.exposed_communication_s, wall))
            later = statistics.median(walls[1:]) if len(walls) > 1 else None
            prep.append((name, f"{w.axis}={devices}", t1 - t0, t2 - t1, t3 - t2, gpu_s, walls[0],
                         later, len(program.ops), partitioned))
    return rows, prep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smallest model of each kind")
    parser.add_argument("--only", default="", help="comma-separated workload names")
    args = parser.parse_args()
    names = _selected(args)
    # partitions from an earlier run must not make this one's loads look fast
    cache = tempfile.TemporaryDirectory(prefix="stablecost-workloads-")
    os.environ["STABLECOST_CACHE_DIR"] = cache.name
    t = time.perf_counter()   # one-time imports (xgboost, the bundled models), apart
    for _, hardware, _ in SYSTEMS:
        stablecost.predict(WARM_UP, hardware, fidelity="all")
    warm_up_s = time.perf_counter() - t
    start = time.perf_counter()
    rows, prep = run(names)
    total = time.perf_counter() - start

    command = "benchmarks/workloads.py" + (" --quick" if args.quick else "") + \
        (f" --only {args.only}" if args.only else "")
    print(f"{datetime.date.today().isoformat()}, commit {commit()}, `{command}`, "
          f"{total:.0f} s in all; the process's one-time imports and model loads (a "
          f"one-kernel program on every system, before the table) {warm_up_s:.1f} s\n")
    print("| workload | system | fidelity | step time | compute | communication "
          "| exposed comm. | predict wall |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for name, system, fidelity, step, comp, comm, exposed, wall in rows:
        print(f"| {name} | {system} | {fidelity} | {_ms(step)} | {_ms(comp)} | {_ms(comm)} "
              f"| {_ms(exposed)} | {_ms(wall)} |")
    print("\n| workload | mesh | ops per device | lower | load (partition) | analyze "
          "| GPU kernels (multi-output fusion) | first predict | later predicts (median) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, mesh, lower_s, load_s, analyze_s, gpu_s, first, later, ops, partitioned \
            in prep:
        load = f"{load_s:.2f} s" + ("" if partitioned else " (none needed)")
        print(f"| {name} | {mesh} | {ops:,} | {lower_s:.2f} s | {load} | {analyze_s:.2f} s "
              f"| {gpu_s:.2f} s | {_ms(first)} | {_ms(later) if later is not None else '-'} |")


if __name__ == "__main__":
    main()
