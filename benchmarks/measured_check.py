import sys, time
for m in ("mlflow", "xgboost"):
    sys.modules[m] = None
import jax, stablecost
from stablecost.hardware.fingerprint import local_machine
hw = local_machine().hardware
print("local hardware:", hw)
for name in ("mlp_train_step", "resnet_cnn_train_step"):
    text = open(f"examples/programs/{name}.mlir").read()
    t0 = time.perf_counter()
    p = stablecost.predict(text, hw, fidelity="measured")
    print(name, p.fidelity if hasattr(p, "fidelity") else "", f"{p.step_time_s*1e3:.3f} ms", f"({time.perf_counter()-t0:.1f} s)", getattr(p, "notes", "")[:3] if hasattr(p,"notes") else "")
