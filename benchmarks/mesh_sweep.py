"""A tuner's mesh sweep: one training step on 16 distinct meshes, cold, then again with
the partitions on disk, then every chip and topology for each partitioned mesh.

    .venv/bin/python benchmarks/mesh_sweep.py [--workload llama3-100m-train] [--meshes 16]

The step (examples/workloads/) is lowered for FSDP over the first N device counts its
weights divide evenly (1, 2, 3, 4, 6, 8, 9, 12, ... for the 100M model; batch 1 per
device: N distinct programs and meshes); lowering is the tuner's own JAX work and is
timed apart. Each mesh is then predicted on H100-SXM with `predict(text, mesh=...)`:
- cold: an empty disk cache (STABLECOST_CACHE_DIR set to a fresh directory) and a fresh
  ProgramCache, so every mesh runs XLA's SPMD partitioner;
- warm disk: a fresh ProgramCache again, the partitions now on disk (a new tuner
  process asking the same meshes);
- chips x topologies: `predict_many` over every catalog GPU and TPU and each of their
  topologies for every mesh already loaded (the per-prediction median).
Target (issue 20): the 16 cold meshes in under 30 s in all. Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

from _common import ROOT, commit, today

sys.path.insert(0, str(ROOT / "examples"))

import workloads  # noqa: E402

import stablecost  # noqa: E402
from stablecost.serve.api import ProgramCache  # noqa: E402

HARDWARE = "H100-SXM"
TOPOLOGIES = (None, "ring", "fully_connected")


def sweep(texts: dict[int, str], w) -> tuple[float, list[float]]:
    cache = ProgramCache()
    walls = []
    for devices, text in texts.items():
        t = time.perf_counter()
        stablecost.predict(text, HARDWARE, mesh=w.mesh(devices), cache=cache)
        walls.append(time.perf_counter() - t)
    return sum(walls), walls


def _example(refused: list[Exception]) -> str:
    if not refused:
        return ""
    return f" (as user errors, e.g. `{str(refused[0]).split(';')[0]}`)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="llama3-100m-train",
                        choices=[n for n, w in workloads.WORKLOADS.items() if w.kind == "train"])
    parser.add_argument("--meshes", type=int, default=16)
    parser.add_argument("--in-process", action="store_true",
                        help="partition inside this process, the whole XLA:CPU compile "
                             "(the path used where no child process can be started)")
    args = parser.parse_args()
    if args.in_process:
        from stablecost.featurize import partition

        def no_child() -> None:
            raise OSError("benchmark: --in-process")

        partition._spawn_child = no_child   # type: ignore[assignment]
    w = workloads.WORKLOADS[args.workload]

    t = time.perf_counter()
    texts: dict[int, str] = {}
    devices = 0
    while len(texts) < args.meshes:
        devices += 1
        try:
            texts[devices] = workloads.lower(w, devices)
        except ValueError as exc:   # jax: the weights do not split evenly over `devices`
            if "evenly divide" not in str(exc):
                raise
    lower_s = time.perf_counter() - t
    stablecost.predict(texts[1], HARDWARE, mesh=w.mesh(1), cache=ProgramCache())  # imports

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["STABLECOST_CACHE_DIR"] = tmp
        cold, cold_walls = sweep(texts, w)
        warm, warm_walls = sweep(texts, w)
        cache = ProgramCache()
        for d, text in texts.items():
            cache.prepared(text, w.mesh(d))
        chips = [hw.name for hw in stablecost.list_hardware() if hw.kind in ("gpu", "tpu")]
        candidates = [stablecost.Candidate(text, hw, mesh=w.mesh(d), topology=topo)
                      for d, text in texts.items() for hw in chips for topo in TOPOLOGIES]
        t = time.perf_counter()
        results = stablecost.predict_many(candidates, cache=cache, errors="return")
        many_s = time.perf_counter() - t
    refused = [r for r in results if isinstance(r, Exception)]
    ok = len(results) - len(refused)

    print(f"{today()}, commit {commit()}, `benchmarks/mesh_sweep.py --workload "
          f"{args.workload} --meshes {args.meshes}{' --in-process' if args.in_process else ''}"
          "`\n")
    print(f"meshes: {', '.join(f'{w.axis}={d}' for d in texts)}\n")
    print("| measure | result | target |")
    print("|---|---:|---|")
    print(f"| lowering {args.meshes} programs (JAX, the tuner's own work) | "
          f"{lower_s:.1f} s | |")
    print(f"| {args.meshes} meshes cold (partition + analyze + predict on {HARDWARE}) | "
          f"{cold:.1f} s (median {statistics.median(cold_walls):.2f} s, max "
          f"{max(cold_walls):.2f} s) | < 30 s |")
    print(f"| the same {args.meshes} meshes, partitions on disk, fresh ProgramCache | "
          f"{warm:.1f} s (median {statistics.median(warm_walls):.2f} s) | |")
    print(f"| predict_many: {len(candidates)} chip x topology x mesh candidates "
          f"({len(chips)} chips, {len(TOPOLOGIES)} topologies), {ok} answered, "
          f"{len(refused)} refused{_example(refused)} | "
          f"{many_s:.1f} s ({many_s / len(candidates) * 1e3:.1f} ms each) | |")


if __name__ == "__main__":
    main()
