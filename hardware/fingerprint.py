"""Who is measuring: the local JAX backend's hardware fingerprint and catalog name.

A fingerprint names what determines a timing (backend, device kind and name, CPU
model or GPU name and driver, core count); datasets are keyed by it, so rows taken on
one machine are never mixed with another's.
"""

from __future__ import annotations

import os
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Machine:
    hardware: str                  # catalog name the rows are priced against
    device_name: str
    backend: str                   # cpu | gpu | tpu
    fingerprint: dict[str, Any]
    jax_version: str
    jaxlib_version: str


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _nvidia_driver() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10, check=False)
        return out.stdout.strip().splitlines()[0] if out.stdout.strip() else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def _catalog_name(device_name: str, backend: str) -> str:
    """The catalog chip a device is, or host-cpu for the CPU backend."""
    if backend == "cpu":
        return "host-cpu"
    from ..errors import UnknownHardwareError
    from . import get_hardware

    candidates = [device_name, device_name.replace("NVIDIA ", "")]
    for candidate in candidates:
        try:
            return get_hardware(candidate).name
        except UnknownHardwareError:
            continue
    lowered = device_name.lower()
    for key, name in (("h200", "H200-SXM"), ("h100", "H100-SXM"), ("b200", "B200"),
                      ("a100", "A100-SXM-80GB" if "80" in lowered else "A100-SXM-40GB"),
                      ("v100", "V100-SXM2"), ("l4", "L4"), ("t4", "T4"), ("mi300", "MI300X")):
        if key in lowered:
            return name
    return device_name


def local_machine() -> Machine:
    """Fingerprint of the default JAX backend of this process."""
    import jax
    import jaxlib

    device = jax.devices()[0]
    backend = device.platform
    device_name = device.device_kind
    fingerprint: dict[str, Any] = {"backend": backend, "device_kind": device.device_kind,
                                   "device_count": jax.device_count(),
                                   "cpu_model": cpu_model(), "cpu_cores": os.cpu_count()}
    if backend == "gpu":
        fingerprint["driver"] = _nvidia_driver()
    if backend == "cpu":
        # Fake host devices (XLA_FLAGS) share the same cores: not part of the identity.
        fingerprint["device_count"] = 1
        device_name = cpu_model()
    return Machine(hardware=_catalog_name(device_name, backend), device_name=device_name,
                   backend=backend, fingerprint=fingerprint, jax_version=jax.__version__,
                   jaxlib_version=jaxlib.__version__)
