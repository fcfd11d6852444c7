"""Whole steps measured on the local accelerator, as XLA compiled them: what only a GPU
session can give (issue 17, items 3, 5 and 7).

    PYTHONPATH=/tmp/p python3 benchmarks/xla_gpu.py --out DIR [--budget-s S] [--smoke]

Runs from a checkout without the full install (see the README's GPU collection note:
`/tmp/p/stablecost` links to the checkout). For every program (the single-device
examples in `examples/programs/`, and the workloads of `examples/workloads/` lowered
for one device), it writes to DIR:

- `<name>.stablehlo.mlir.gz`: the program exactly as timed, to predict anywhere;
- `<name>.optimized.hlo.gz`: the module as XLA compiled it for this device, to compare
  its kernels and their boundary bytes with ours (`benchmarks/xla_gpu_compare.py`);
- `<name>.xplane.pb` (the first `--traces` programs): the profiler's raw trace;
- one row in `results.json`: compile seconds, the step timed by the collector's rule
  for whole steps (`PROGRAM_TIMING`), and the step under the profiler split among our
  kernels (`featurize.step_profile`), or why not.

`--smoke` uses tiny configurations so the script can be checked on a CPU in a minute.
Programs that do not fit the budget are left for a rerun, which skips those in
`results.json`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

SINGLE_DEVICE = ("mlp_train_step", "resnet_cnn_train_step", "transformer_block_train_step")
WORKLOADS = ("llama3-100m-train", "llama3-1b-prefill", "llama3-1b-decode",
             "resnet18-train", "resnet50-train", "llama3-1b-train")


def programs(smoke: bool, extra: tuple[str, ...] = ()) -> list[tuple[str, Callable[[], str]]]:
    """(name, a builder of its StableHLO text) for every program, in run order: the
    examples, `WORKLOADS`, then the registered workloads named in `extra` (in its order)."""
    out: list[tuple[str, Callable[[], str]]] = []
    for name in SINGLE_DEVICE:
        path = ROOT / "examples" / "programs" / f"{name}.mlir"
        out.append((name, lambda path=path: path.read_text()))
    import workloads  # examples/workloads, on the path above
    from workloads import llama, resnet

    if smoke:
        tiny = llama.tiny()

        def small_llama() -> str:
            step, args = llama.train_step(tiny, 1, seq=128)
            return _lower(step, args, {llama.FSDP: 1})

        def small_resnet() -> str:
            step, args = resnet.train_step(18, 1, batch_per_device=2, image=32, width=8,
                                           classes=10)
            return _lower(step, args, {resnet.DATA: 1})

        return out + [("llama-tiny-train", small_llama), ("resnet-tiny-train", small_resnet)]
    unknown = sorted(set(extra) - set(workloads.WORKLOADS))
    if unknown:
        raise SystemExit(f"xla_gpu.py: unknown workload(s) {', '.join(unknown)}; allowed: "
                         f"{', '.join(workloads.WORKLOADS)}")
    for name in (*WORKLOADS, *(n for n in extra if n not in WORKLOADS)):
        w = workloads.WORKLOADS[name]
        out.append((name, lambda w=w: workloads.lower(w, 1)))
    return out


def _lower(step: Callable, args: tuple, mesh: dict[str, int]) -> str:
    from stablecost.featurize.partition import abstract_lowering, parse_mesh

    return str(abstract_lowering(step, args, {}, parse_mesh(mesh)).as_text())


def _write_json(path: Path, value: object) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value, indent=1, default=str))
    os.replace(tmp, path)


def run_one(name: str, build: Callable[[], str], out: Path, trace: bool) -> dict:
    from stablecost.featurize.step_profile import prepare_step
    from stablecost.hardware.timing import PROGRAM_TIMING, measure

    row: dict = {"name": name}
    t0 = time.perf_counter()
    text = build()
    row["lower_s"] = time.perf_counter() - t0
    with gzip.open(out / f"{name}.stablehlo.mlir.gz", "wt") as f:
        f.write(text)
    t0 = time.perf_counter()
    step = prepare_step(text, name, for_profile=False)
    row["compile_s"] = time.perf_counter() - t0
    with gzip.open(out / f"{name}.optimized.hlo.gz", "wt") as f:
        f.write(step.optimized_hlo())
    stats = measure(step.call, **PROGRAM_TIMING)
    row["step"] = {"median_s": stats.median_s, "p10_s": stats.p10_s, "p90_s": stats.p90_s,
                   "repeats": stats.repeats}
    if step.platform != "cpu":
        del step
        return profile_row(row, text, out, trace)
    return _profiled(row, step, out, trace)


def profile_row(row: dict, text: str, out: Path, trace: bool) -> dict:
    """`row` with the step profiled (compiled again as profiles are), or why not."""
    from stablecost.featurize.step_profile import prepare_step

    try:
        step = prepare_step(text, row["name"])
    except Exception as exc:
        row["profile_error"] = f"{type(exc).__name__}: {exc}"
        return row
    return _profiled(row, step, out, trace)


def _profiled(row: dict, step, out: Path, trace: bool) -> dict:
    from stablecost.featurize.step_profile import profile_prepared

    row.pop("profile_error", None)
    try:
        profile = profile_prepared(step, keep_trace=str(out / f"{row['name']}.xplane.pb")
                                   if trace else None)
        row["profile"] = {**profile.as_json(),
                          "thunk_s": {k: v[0] for k, v in profile.thunk_s.items()}}
    except Exception as exc:   # the timing above stands without a profile
        row["profile_error"] = f"{type(exc).__name__}: {exc}"
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--budget-s", type=float, default=300.0,
                        help="start no program after this many seconds (default 300)")
    parser.add_argument("--traces", type=int, default=2,
                        help="keep the raw profiler trace of the first N programs")
    parser.add_argument("--only", default=None,
                        help="comma-separated program names: examples, or any workload of "
                             "examples/workloads (run in the order named after the defaults)")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--profile-only", action="store_true",
                        help="profile again the programs already in results.json, from "
                             "their saved StableHLO (their timings stay)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import jax

    from stablecost.hardware.fingerprint import local_machine

    machine = local_machine()
    _write_json(out / "machine.json", {"jax": jax.__version__, "devices": str(jax.devices()),
                                       "machine": machine.__dict__})
    results_path = out / "results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {}
    start = time.perf_counter()
    wanted = None if args.only is None else args.only.split(",")
    known = set(SINGLE_DEVICE) | set(WORKLOADS)
    extra = () if args.smoke or wanted is None else tuple(n for n in wanted if n not in known)
    for i, (name, build) in enumerate(programs(args.smoke, extra)):
        if wanted is not None and name not in wanted:
            continue
        if args.profile_only:
            if name in results and "step" in results[name]:
                t0 = time.perf_counter()
                with gzip.open(out / f"{name}.stablehlo.mlir.gz", "rt") as f:
                    results[name] = profile_row(results[name], f.read(), out,
                                                trace=i < args.traces)
                _report(results[name], time.perf_counter() - t0)
                _write_json(results_path, results)
            continue
        if name in results:
            continue
        if time.perf_counter() - start > args.budget_s:
            print(f"budget spent: {name} and later left for a rerun", flush=True)
            break
        t0 = time.perf_counter()
        try:
            results[name] = run_one(name, build, out, trace=i < args.traces)
        except Exception as exc:
            results[name] = {"name": name, "error": f"{type(exc).__name__}: {exc}",
                             "traceback": traceback.format_exc()[-2000:]}
        _report(results[name], time.perf_counter() - t0)
        _write_json(results_path, results)
    return 0


def _report(row: dict, seconds: float) -> None:
    step = row.get("step", {}).get("median_s")
    profile = row.get("profile", {})
    busy = profile.get("busy_s")
    mapped = sum(profile.get("kernel_s", {}).values())
    print(f"{row['name']}: {seconds:.1f} s, compile {row.get('compile_s', float('nan')):.1f} s,"
          f" step {step * 1e3 if step else float('nan'):.3f} ms, busy "
          f"{busy * 1e3 if busy else float('nan'):.3f} ms, in our kernels "
          f"{mapped / busy if busy else float('nan'):.0%} "
          f"{row.get('error', '') or row.get('profile_error', '')}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
