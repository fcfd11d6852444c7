"""What multi-output fusion changes in ResNet training steps on a GPU: kernels, bytes at
kernel boundaries, and the share of the roofline compute time in loop and reduction
kernels, before (producer-consumer fusion only, `analyze`'s kernels) and after (the
kernels GPU predictions price, `for_chip_kind(analysis, "gpu")`).

    .venv/bin/python benchmarks/multi_output_fusion.py [--hardware A100-SXM-80GB]

Programs: the bundled `examples/programs/resnet_cnn_train_step.mlir` and the per-device
ResNet-50 training step of `examples/workloads` (256 images of 224x224 per device, data
parallel over 4 devices). Per-step totals: kernels in loops count once per iteration.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def programs():
    import stablecost

    sys.path.insert(0, str(ROOT / "examples"))
    import workloads

    yield "resnet_cnn_train_step.mlir", stablecost.analyze(
        ROOT / "examples" / "programs" / "resnet_cnn_train_step.mlir")
    w = workloads.WORKLOADS["resnet50-train"]
    yield "resnet50-train (4 devices)", stablecost.analyze(
        stablecost.load_program(workloads.lower(w, devices=4), mesh=w.mesh(4)))


def summary(analysis, hw) -> dict:
    from stablecost.featurize.fusion import COLLECTIVE
    from stablecost.models.roofline import kernel_times

    kernels = [k for k in analysis.kernels if k.kind != COLLECTIVE]
    by_kind: dict[str, float] = defaultdict(float)
    for k, t in zip(kernels, kernel_times(kernels, analysis.program, hw)):
        by_kind[k.kind] += t.time_s * k.count
    compute_s = sum(by_kind.values())
    return {"kernels": len(kernels), "bytes": analysis.fused_bytes_accessed,
            "compute_s": compute_s, "loop": by_kind["loop"] / compute_s,
            "reduction": by_kind["reduction"] / compute_s,
            "reductions": sum(1 for k in kernels if k.kind == "reduction")}


def main() -> None:
    import stablecost
    from stablecost.featurize.analysis import for_chip_kind
    from stablecost.hardware import get_hardware

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hardware", default="A100-SXM-80GB")
    hw = get_hardware(parser.parse_args().hardware)
    print(f"{'program':28s} {'fusion':8s} {'kernels':>8s} {'reductions':>10s} "
          f"{'boundary GB':>11s} {'compute ms':>10s} {'loop':>6s} {'reduce':>6s} "
          f"{'loop+reduce':>11s}")
    for name, analysis in programs():
        gpu = for_chip_kind(analysis, hw.kind)
        p = stablecost.predict(analysis, hw, fidelity="roofline")
        assert p.fused_bytes_accessed == gpu.fused_bytes_accessed   # what predict prices
        for label, a in (("before", analysis), ("after", gpu)):
            s = summary(a, hw)
            print(f"{name:28s} {label:8s} {s['kernels']:8d} {s['reductions']:10d} "
                  f"{s['bytes'] / 1e9:11.2f} {s['compute_s'] * 1e3:10.2f} {s['loop']:6.1%} "
                  f"{s['reduction']:6.1%} {s['loop'] + s['reduction']:11.1%}")


if __name__ == "__main__":
    main()
