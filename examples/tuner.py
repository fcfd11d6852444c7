"""Rank the meshes x batch sizes of a transformer training step by predicted step time.

    .venv/bin/python examples/tuner.py [--batches 8,16,32,64] [--rank-by sample|step]

The step (examples/transformer_parallel.py) is sharded by annotations over a
("data", "model") mesh of 8 devices. For every mesh shape and global batch size the
program is lowered without devices, partitioned by XLA for that mesh (once: the
per-device program is cached by content), and predicted on two systems, 8 x H100 on
NVSwitch and 8 TPU v5e chips on a 2 x 4 torus, with `stablecost.predict_many`.

Ranked by time per example (`--rank-by sample`, the throughput a tuner wants: larger
batches take longer per step), or by raw step time (`--rank-by step`), with
`stablecost.rank`: configurations whose step does not fit in a chip's memory
(`Prediction.fits`, peak device memory against the chip's capacity) are dropped first
and listed after the ranking.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import transformer_parallel as tp  # noqa: E402

import stablecost  # noqa: E402

SYSTEMS = (("8 x H100 (NVSwitch)", "H100-SXM", "switch"),
           ("8 x TPU v5e (2x4 torus)", "TPU-v5e", "torus2d:2x4"))
MESHES = ({"data": 8, "model": 1}, {"data": 4, "model": 2}, {"data": 2, "model": 4},
          {"data": 1, "model": 8})


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} us"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="8,16,32,64", help="global batch sizes")
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--d-model", type=int, default=1024)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--ffn", type=int, default=4096)
    parser.add_argument("--rank-by", choices=("sample", "step"), default="sample")
    parser.add_argument("--top", type=int, default=0, help="rows per system (0: all)")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]

    candidates, labels = [], []
    for mesh in MESHES:
        for batch in batches:
            if batch % mesh["data"]:
                continue
            step, example = tp.annotated_step(batch=batch, seq=args.seq, d_model=args.d_model,
                                              heads=args.heads, ffn=args.ffn)
            print(f"partitioning batch {batch} for mesh {mesh} ...", file=sys.stderr)
            program = stablecost.load_program(step, *example, mesh=mesh)
            for system, hardware, topology in SYSTEMS:
                candidates.append(stablecost.Candidate(program, hardware, topology=topology))
                labels.append((system, mesh, batch))
    predictions = stablecost.predict_many(candidates)

    header = (f"{'rank':>4}  {'mesh':<16} {'batch':>5}  {'step time':>11}  {'per example':>11}"
              f"  {'compute':>11}  {'comm':>11}  {'exposed':>11}  {'collectives':>11}"
              f"  {'peak memory':>11}")
    for system, _, _ in SYSTEMS:
        mine = [i for i, label in enumerate(labels) if label[0] == system]
        preds = [predictions[i] for i in mine]
        if args.rank_by == "sample":
            batch_of = {id(p): labels[i][2] for i, p in zip(mine, preds)}
            order = stablecost.rank(preds, key=lambda p: p.step_time_s / batch_of[id(p)])
        else:
            order = stablecost.rank(preds)
        if args.top:
            order = order[:args.top]
        print(f"\n{system}: {args.d_model}-wide transformer block, seq {args.seq}, "
              f"ranked by {'time per example' if args.rank_by == 'sample' else 'step time'}")
        print(header)
        for i, j in enumerate(order, 1):
            _, mesh, batch = labels[mine[j]]
            p = preds[j]
            print(f"{i:>4}  {_mesh(mesh):<16} {batch:>5}  {_us(p.step_time_s):>11}  "
                  f"{_us(p.step_time_s / batch):>11}  {_us(p.compute_s):>11}  "
                  f"{_us(p.communication_s):>11}  {_us(p.exposed_communication_s):>11}  "
                  f"{len(p.collectives):>11}  {_mib(p.peak_memory_bytes):>11}")
        for j, p in enumerate(preds):
            if not p.fits:
                _, mesh, batch = labels[mine[j]]
                print(f"   -  {_mesh(mesh):<16} {batch:>5}  does not fit: "
                      f"{_mib(p.peak_memory_bytes)} > {_mib(p.memory_capacity_bytes)}")


def _mesh(mesh: dict[str, int]) -> str:
    return f"data={mesh['data']},model={mesh['model']}"


def _mib(nbytes: float) -> str:
    return f"{nbytes / 2**20:,.1f} MiB"


if __name__ == "__main__":
    main()
