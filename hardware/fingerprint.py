"""Who is measuring: the local JAX backend's hardware fingerprint and catalog name.

A fingerprint names what determines a timing: the backend and device; for a CPU its
vendor, family, model and stepping, the ISA extensions that change kernel speed
(AVX-512 and its BF16/FP16/VNNI parts, AMX), cores and cache sizes; for a GPU its name,
SM count, memory, clocks and driver; and the jaxlib (XLA) version. Datasets and model
bundles are keyed by it, so rows taken on one machine are never mixed with another's,
and a model used elsewhere says so (`differences`).

    local_machine().fingerprint   # {"backend": "cpu", "cpu_family": 25, "cpu_isa": "avx2,..."}
    differences(bundle_fingerprint, local_machine().fingerprint)   # ["cpu_family: ..."]
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping


@dataclass(frozen=True)
class Machine:
    hardware: str                  # catalog name the rows are priced against
    device_name: str
    backend: str                   # cpu | gpu | tpu
    fingerprint: dict[str, Any]
    jax_version: str
    jaxlib_version: str


# ISA extensions that change how fast XLA:CPU kernels run (matmul paths, bf16/fp16
# arithmetic, int8 dot products, tile units), as /proc/cpuinfo spells them
ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16",
             "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8")
# keys whose value may differ between runs on one machine without changing its timings
VOLATILE_KEYS = ("device_count",)


def _cpuinfo_text() -> str:
    try:
        return Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""


def _first_cpu(text: str) -> dict[str, str]:
    """The `key: value` lines of the first processor block of /proc/cpuinfo."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip(), value.strip())
    return fields


def cpu_model(cpuinfo: str | None = None) -> str:
    name = _first_cpu(_cpuinfo_text() if cpuinfo is None else cpuinfo).get("model name")
    return name or platform.processor() or platform.machine()


def _int_or_text(value: str | None) -> int | str:
    if value is None:
        return ""
    return int(value) if value.isdigit() else value


def cache_sizes_bytes(cache_dir: Path = Path("/sys/devices/system/cpu/cpu0/cache")
                      ) -> dict[str, int]:
    """{"L1d": bytes, "L2": bytes, "L3": bytes, ...} of cpu0, from sysfs ({} if absent)."""
    sizes: dict[str, int] = {}
    for index in sorted(cache_dir.glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            text = (index / "size").read_text().strip()
        except OSError:
            continue
        scale = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(text[-1:], 1)
        digits = text[:-1] if text[-1:] in "KMG" else text
        if not digits.isdigit():
            continue
        suffix = {"Data": "d", "Instruction": "i"}.get(kind, "")
        sizes[f"L{level}{suffix}"] = int(digits) * scale
    return sizes


def cpu_identity(cpuinfo: str | None = None, cache_dir: Path | None = None) -> dict[str, Any]:
    """What tells one CPU from another for timing purposes (see the module docstring)."""
    fields = _first_cpu(_cpuinfo_text() if cpuinfo is None else cpuinfo)
    flags = set(fields.get("flags", "").split())
    caches = cache_sizes_bytes(cache_dir) if cache_dir is not None else cache_sizes_bytes()
    return {
        "cpu_vendor": fields.get("vendor_id", ""),
        "cpu_family": _int_or_text(fields.get("cpu family")),
        "cpu_model_number": _int_or_text(fields.get("model")),
        "cpu_stepping": _int_or_text(fields.get("stepping")),
        "cpu_model": fields.get("model name") or platform.processor() or platform.machine(),
        "cpu_isa": ",".join(f for f in ISA_FLAGS if f in flags),
        "cpu_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else os.cpu_count() or 1,
        "cache_bytes": caches,
    }


def fingerprint_id(fingerprint: Mapping[str, Any]) -> str:
    """A short stable id of a hardware fingerprint (sorted-key JSON, SHA-256)."""
    blob = json.dumps(dict(fingerprint), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def differences(theirs: Mapping[str, Any], ours: Mapping[str, Any]) -> list[str]:
    """How a recorded fingerprint (a dataset's, a bundle's) differs from `ours`: one
    entry per key of ours it lacks or holds another value for. Empty: the same machine."""
    out = []
    for key, value in ours.items():
        if key in VOLATILE_KEYS:
            continue
        if key not in theirs:
            out.append(f"{key}: not recorded (this machine: {value})")
        elif theirs[key] != value:
            out.append(f"{key}: {theirs[key]} (this machine: {value})")
    return out


def _nvidia_smi(fields: str) -> list[str]:
    """One GPU's `nvidia-smi --query-gpu=FIELDS` values ([] without nvidia-smi)."""
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    lines = out.stdout.strip().splitlines()
    return [v.strip() for v in lines[0].split(",")] if lines else []


def gpu_identity(device: Any) -> dict[str, Any]:
    """Name, SM count, memory, clocks and driver of a JAX GPU device."""
    memory = 0
    try:
        memory = int((device.memory_stats() or {}).get("bytes_limit", 0))
    except Exception:  # noqa: BLE001 - a backend without memory_stats
        pass
    smi = _nvidia_smi("driver_version,clocks.max.sm,clocks.max.memory,memory.total")
    smi += [""] * (4 - len(smi))
    return {"gpu_name": device.device_kind, "gpu_sm_count": getattr(device, "core_count", 0),
            "gpu_memory_bytes": memory, "driver": smi[0], "gpu_max_sm_clock": smi[1],
            "gpu_max_memory_clock": smi[2], "gpu_memory_total": smi[3]}


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
                                   "device_count": jax.device_count(), **cpu_identity(),
                                   "jaxlib": jaxlib.__version__}
    if backend == "gpu":
        fingerprint.update(gpu_identity(device))
    if backend == "cpu":
        # Fake host devices (XLA_FLAGS) share the same cores: not part of the identity.
        fingerprint["device_count"] = 1
        device_name = cpu_model()
    return Machine(hardware=_catalog_name(device_name, backend), device_name=device_name,
                   backend=backend, fingerprint=fingerprint, jax_version=jax.__version__,
                   jaxlib_version=jaxlib.__version__)
