"""Export the distributed example programs: one transformer-block training step on an
8-device ("data"=4, "model"=2) mesh, written two ways (see transformer_parallel.py):

    examples/programs/transformer_shard_map_8dev.mlir   explicit collectives (shard_map)
    examples/programs/transformer_annotated_8dev.mlir   sharded by annotations (Shardy)

    .venv/bin/python examples/export_distributed.py [--out examples/programs]

No devices are needed: the steps are lowered under an abstract mesh. Predict them with

    stablecost predict examples/programs/transformer_shard_map_8dev.mlir --hardware H100-SXM
    stablecost predict examples/programs/transformer_annotated_8dev.mlir \\
        --hardware H100-SXM,TPU-v5e --mesh data=4,model=2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import transformer_parallel as tp  # noqa: E402

from stablecost.featurize.partition import abstract_lowering, parse_mesh  # noqa: E402

MESH = "data=4,model=2"
PROGRAMS = {
    "transformer_shard_map_8dev": tp.shard_map_step,
    "transformer_annotated_8dev": tp.annotated_step,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "programs"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, build in PROGRAMS.items():
        step, example = build()
        lowered = abstract_lowering(step, example, {}, parse_mesh(MESH))
        path = out / f"{name}.mlir"
        text = lowered.as_text()
        # Lowered without devices, a shard_map step declares 1 partition; a lowering on 8
        # real devices declares 8: write what the real one would.
        text = text.replace("mhlo.num_partitions = 1 : i32", "mhlo.num_partitions = 8 : i32", 1)
        path.write_text(text)
        print(f"{path}  ({path.stat().st_size / 1e3:.0f} kB, mesh {MESH})")


if __name__ == "__main__":
    main()
