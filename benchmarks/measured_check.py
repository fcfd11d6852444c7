"""`fidelity="measured"` on the local backend, as a machine without MLflow or XGBoost
runs it (a GPU machine with its own Python: see the README's GPU collection note).

    PYTHONPATH=/tmp/p python3 benchmarks/measured_check.py

Predicts the single-device examples of `examples/programs/` on the chip the local
backend is, at the measured fidelity, with `mlflow` and `xgboost` made unimportable, and
prints each step, the wall time of the call and the measurement's note.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

PROGRAMS = ("mlp_train_step", "resnet_cnn_train_step")


def main() -> int:
    for name in ("mlflow", "xgboost"):
        sys.modules[name] = None  # type: ignore[assignment]  # import now fails
    import stablecost
    from stablecost.hardware.fingerprint import local_machine

    hardware = local_machine().hardware
    print(f"local hardware: {hardware}")
    root = Path(__file__).resolve().parents[1] / "examples" / "programs"
    for name in PROGRAMS:
        start = time.perf_counter()
        p = stablecost.predict((root / f"{name}.mlir").read_text(), hardware,
                               fidelity="measured")
        print(f"{name}: {p.fidelity} {p.step_time_s * 1e3:.3f} ms "
              f"({time.perf_counter() - start:.1f} s); {p.notes[0] if p.notes else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
