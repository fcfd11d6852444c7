"""Throughput of `predict_many` on a cached program: predictions per second.

    .venv/bin/python benchmarks/predict_many.py [--repeat 20] [--quick]

Run it on an idle machine (the numbers are wall-clock). For each program (the
single-device transformer-block training step and the same block on an 8-device
shard_map mesh) it predicts the program on every system of a list (catalog chips x
topologies x overlap on/off) and reports:

- first pass: every system new to the cache (roofline rows per chip, collective prices
  per topology and one schedule per system are computed);
- schedule per call: the per-system result memo emptied before every call, so each
  prediction prices its collectives' lookups and runs the list schedule (the cost of a
  system never seen before, once the chip's roofline rows exist);
- repeat: the same systems again (everything memoized: the lookup and the Prediction).

The program is parsed and analyzed once, before timing (`cached_analysis`). The target
is >= 1000 predictions/s for re-predicting a cached transformer block on other systems.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import stablecost
from stablecost.serve.api import ProgramCache

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = {
    "transformer block (1 device)": ROOT / "examples/programs/transformer_block_train_step.mlir",
    "transformer block (8-device shard_map)":
        ROOT / "examples/programs/transformer_shard_map_8dev.mlir",
}
CHIPS = ("H100-SXM", "H200-SXM", "B200", "A100-SXM-80GB", "MI300X", "TPU-v4", "TPU-v5e",
         "TPU-v5p")
TOPOLOGIES = (None, "switch", "ring", "torus2d:2x4", "fully_connected")


def _systems(text: str, cache: ProgramCache) -> list[stablecost.Candidate]:
    """Every (chip, topology, overlap) the program can be predicted on."""
    candidates = [stablecost.Candidate(text, chip, topology=topology, overlap=overlap)
                  for chip in CHIPS for topology in TOPOLOGIES for overlap in (True, False)]
    results = stablecost.predict_many(candidates, errors="return", cache=ProgramCache())
    return [c for c, r in zip(candidates, results) if not isinstance(r, Exception)]


def _rate(candidates, cache, passes: int, reset=None) -> tuple[int, float]:
    count = 0
    start = time.perf_counter()
    for _ in range(passes):
        if reset is None:
            count += len(stablecost.predict_many(candidates, cache=cache))
        else:
            for c in candidates:
                reset()
                stablecost.predict_many([c], cache=cache)
                count += 1
    return count, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="passes over the systems")
    parser.add_argument("--quick", action="store_true", help="one pass of each (smoke test)")
    args = parser.parse_args()
    passes = 1 if args.quick else args.repeat
    rows = []
    for name, path in PROGRAMS.items():
        text = path.read_text()
        cache = ProgramCache()
        analysis = stablecost.serve.api.cached_analysis(text, cache=cache)
        candidates = _systems(text, cache)
        entry = cache.prepared(text)
        n, t = _rate(candidates, cache, 1)
        rows.append((name, len(analysis.kernels), "first pass", n, t))
        n, t = _rate(candidates, cache, passes, reset=entry.results.clear)
        rows.append((name, len(analysis.kernels), "schedule per call", n, t))
        n, t = _rate(candidates, cache, passes)
        rows.append((name, len(analysis.kernels), "repeat", n, t))
    width = max(len(r[0]) for r in rows)
    print(f"{'program':<{width}}  {'kernels':>7}  {'scenario':<17}  {'predictions':>11}  "
          f"{'seconds':>8}  {'predictions/s':>13}")
    for name, kernels, scenario, n, t in rows:
        print(f"{name:<{width}}  {kernels:>7}  {scenario:<17}  {n:>11}  {t:>8.3f}  "
              f"{n / t if t else float('inf'):>13,.0f}")


if __name__ == "__main__":
    main()
