"""The NeuSight source: its data-folder layout, and fp32 PyTorch op rows mapped to
programs.

NeuSight (sitar-lab/NeuSight, ``train/<op>/<GPU>.parquet``)
-----------------------------------------------------------
PyTorch 2.1 / CUDA 12.1, fp32, TF32 disabled (NeuSight sets allow_tf32 = False; the
kernels are sgemm/scudnn), CUDA events; ``Latency`` in ms. Columns ``B``, ``H`` are a
``[B, H]`` tensor; ``M``, ``N``, ``K`` matrix sizes. Per op:

- ``bmm``: [B,M,K] x [B,K,N] -> dot_general, precision HIGHEST (no TF32);
- ``linear``: ``F.linear(x, w)`` with x [B,M,K], w [N,K] (no bias: the traces show no
  bias kernel) -> dot_general contracting k with w's dim 1;
- ``conv``: ``F.conv2d`` NCHW, square ``Input_Size`` and ``Kernel_Szie`` (sic),
  ``Stride``, ``Padding``, B x Input_Channel -> Output_Channel, no bias;
- ``add``/``mul``/``div``/``pow``: two [B,H] tensors; the ``u`` variants (``addu`` ...)
  take one tensor and a Python scalar (the kernels are PyTorch's tensor-scalar
  functors with two buffers: CUDAFunctorOnSelf_add, AUnaryFunctor, BUnaryFunctor,
  pow_tensor_scalar); the scalar values are not recorded (see
  `templates.SCALAR_OPERAND`);
- ``relu``, ``tanh``, ``gelu`` (exact erf form: the kernel is GeluType::None),
  ``softmax`` over H, ``ln`` = layer norm over H with weight and bias, returning y,
  mean and rstd as PyTorch's training kernel does.
GPUs: only Tesla T4 is an exact catalog chip. NeuSight's V100 and both A100s are PCIe
cards (lower clocks/power than our SXM entries) and P100/P4 are not in the catalog:
they are imported under the slug of their device name, with peaks for the outlier
check from NeuSight's own ``device_configs/*.json`` when present.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Mapping

from ...errors import DatasetError
from .. import templates as T
from .checks import Peaks
from .parquet import first_device
from .pool import ProgressFn, Source, Task, file_rows, run_tasks
from .rows import Mapped, Mapper, lb
from .sink import resolve_hardware
from .summary import ImportSummary

_NEUSIGHT_VECTOR = ("add", "addu", "mul", "mulu", "div", "divu", "pow", "powu",
                    "relu", "tanh", "gelu")
_NEUSIGHT_OPS = ("bmm", "linear", "conv", "softmax", "ln") + _NEUSIGHT_VECTOR
_NEUSIGHT_LAYOUT = ("NeuSight's data folder: train/<op>/<GPU>.parquet (op one of "
                    "bmm, linear, conv, add, ..., ln), optionally with device_configs/*.json")


def _ints(p: Mapping[str, Any], *names: str) -> list[int] | None:
    try:
        return [int(p[n]) for n in names]
    except (KeyError, TypeError, ValueError):
        return None


def _map_neusight(op: str) -> Callable[[dict[str, Any]], Mapped]:
    def mapper(p: dict[str, Any]) -> Mapped:
        if op in ("bmm", "linear"):
            v = _ints(p, "B", "M", "N", "K")
            if v is None or min(v) <= 0:
                return Mapped(skip=f"{op}: B, M, N or K missing or zero")
            b, m, n, k = v
            build = T.bmm if op == "bmm" else T.linear
            text = build(b, m, n, k)
            flops = 2.0 * b * m * n * k
            w = T.nbytes((b, k, n) if op == "bmm" else (n, k), "f32")
            moved = T.nbytes((b, m, k), "f32") + w + T.nbytes((b, m, n), "f32")
            group = (f"dot_general/{op}/f32/b{lb(b)}/m{lb(m)}/n{lb(n)}/k{lb(k)}"
                     if op == "bmm" else f"dot_general/{op}/f32/m{lb(m)}/n{lb(n)}/k{lb(k)}")
            return Mapped(family="dot_general", variant=op, dtype="f32", group_id=group,
                          stablehlo=text, program={"template": op, "batch": b, "m": m, "n": n,
                                                   "k": k, "dtype": "f32"},
                          work=T.Work(flops, moved), peak_dtype="f32", precision="HIGHEST")
        if op == "conv":
            v = _ints(p, "B", "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size",
                      "Stride", "Padding")
            if v is None or min(v[:6]) <= 0 or v[6] < 0:
                return Mapped(skip="conv: a shape column is missing or not positive")
            b, ci, co, ks, size, stride, pad = v
            o = T.conv2d_out(size, ks, stride, pad)
            if o <= 0:
                return Mapped(skip="conv: empty output (kernel larger than padded input)")
            text = T.conv2d(b, ci, co, ks, size, stride, pad)
            flops = T.conv2d_flops(b, ci, co, ks, size, stride, pad)
            moved = (T.nbytes((b, ci, size, size), "f32") + T.nbytes((co, ci, ks, ks), "f32")
                     + T.nbytes((b, co, o, o), "f32"))
            kernels = str(p.get("Kernels") or p.get("Kernel Name") or "").lower()
            note = ("a Winograd/FFT kernel does fewer multiplies than the direct convolution "
                    "counted here" if "winograd" in kernels or "fft" in kernels else None)
            return Mapped(family="convolution", variant="conv2d_nchw", dtype="f32", note=note,
                          group_id=f"convolution/conv2d_nchw/f32/k{ks}/s{stride}/ci{lb(ci)}/"
                                   f"co{lb(co)}/hw{lb(size)}",
                          stablehlo=text,
                          program={"template": "conv2d", "batch": b, "c_in": ci, "c_out": co,
                                   "kernel": ks, "size": size, "stride": stride,
                                   "padding": pad, "dtype": "f32"},
                          work=T.Work(flops, moved), peak_dtype="f32", precision="HIGHEST")
        v = _ints(p, "B", "H")
        if v is None or min(v) <= 0:
            return Mapped(skip=f"{op}: B or H missing or zero")
        rows, cols = v
        text = T.elementwise(op, rows, cols)
        work = T.elementwise_work(op, rows, cols)
        if op in ("softmax", "ln"):
            family = "softmax" if op == "softmax" else "layer_norm"
            group = f"{family}/{op}/f32/r{lb(rows)}/c{lb(cols)}"
        else:
            family = "elementwise"
            group = f"elementwise/{op}/f32/n{lb(rows * cols)}"
        return Mapped(family=family, variant=op, dtype="f32", group_id=group, stablehlo=text,
                      program={"template": "elementwise", "op": op, "rows": rows,
                               "cols": cols, "dtype": "f32"},
                      work=T.Work(0.0, work.bytes), peak_dtype="f32")
    return mapper


_NEUSIGHT_KEYS = {
    "bmm": ("B", "M", "N", "K"), "linear": ("B", "M", "N", "K"),
    "conv": ("B", "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size", "Stride",
             "Padding", "Kernels", "Kernel Name"),
}


def _neusight_mapper(op: str) -> Mapper:
    return Mapper(_map_neusight(op), _NEUSIGHT_KEYS.get(op, ("B", "H")))


def mapper_for(op: str) -> Mapper | str:
    """The mapper of an op folder, or why its rows are skipped."""
    if op in _NEUSIGHT_OPS:
        return _neusight_mapper(op)
    return f"{op}: no NeuSight mapping for this op"


SOURCE = Source("neusight", mapper_for, device_column="Device", latency_column="Latency")


def _neusight_device_configs(root: Path) -> dict[str, dict[str, Any]]:
    """NeuSight's device_configs/*.json by their "Device" name."""
    configs: dict[str, dict[str, Any]] = {}
    for folder in (root / "device_configs", root.parent / "device_configs"):
        for f in sorted(folder.glob("*.json")) if folder.is_dir() else ():
            try:
                data = json.loads(f.read_text())
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and "Device" in data:
                configs.setdefault(str(data["Device"]), data)
    return configs


def _neusight_peaks(hw: Any, config: Mapping[str, Any] | None, device: str) -> Peaks | None:
    if hw is not None:
        return Peaks.of_catalog(hw, {})
    if not config:
        return None
    flops = config.get("SingleFLOPsMM") or config.get("SingleFLOPs")   # GFLOP/s
    bw = config.get("Mem_Bw")                                          # GB/s
    l2 = config.get("L2Cache")                                         # MB
    return Peaks(None, {"f32": float(flops) * 1e9} if flops else {},
                 float(bw) * 1e9 if bw else None, None, float(l2) * 1e6 if l2 else None,
                 f"NeuSight device_configs {device}")


def import_neusight(path: str | os.PathLike, out_root: str | os.PathLike, *,
                    progress: ProgressFn | None = None,
                    jobs: int | None = 1) -> ImportSummary:
    """Import NeuSight's fp32 per-op training measurements.

    `path` is NeuSight's data folder (holding ``train/``) or the ``train/`` folder
    itself. Writes one dataset per GPU under `out_root`; GPUs outside the hardware
    catalog are imported under the slug of their device name (see the summary's
    notes). `jobs` and `progress` as in `import_aiconfigurator`. Raises `DatasetError`
    when `path` has not that layout."""
    started = time.perf_counter()
    root = Path(path)
    if not root.exists():
        raise DatasetError(f"{root}: no such directory (expected {_NEUSIGHT_LAYOUT})")
    train = root / "train" if (root / "train").is_dir() else root
    op_dirs = sorted(d for d in train.iterdir() if d.is_dir()) if train.is_dir() else []
    files = [(d.name, f) for d in op_dirs for f in sorted(d.glob("*.parquet"))]
    if not any(op in _NEUSIGHT_OPS for op, _ in files):
        raise DatasetError(f"{root}: not a NeuSight data folder (expected {_NEUSIGHT_LAYOUT})")
    summary = ImportSummary("neusight", root, Path(out_root))
    configs = _neusight_device_configs(train.parent)
    tasks: dict[str, Task] = {}
    for op, f in files:
        device = first_device(f, "Device") or f.stem.replace("_", " ")
        task = tasks.get(device)
        if task is None:
            hardware, in_catalog, hw = resolve_hardware(device)
            peaks = _neusight_peaks(hw, configs.get(device), device)
            if not in_catalog:
                summary.notes.append(
                    f"{device!r} is not in the hardware catalog; imported as {hardware!r}"
                    + ("" if peaks else " without an outlier check (no peaks known)"))
            task = tasks[device] = Task(SOURCE, hardware, device, in_catalog, peaks, [], 0)
        task.files.append((f"{op}/{f.name}", str(f), op))
    for task in tasks.values():
        task.rows = file_rows(task.files)
    run_tasks(list(tasks.values()), summary, progress=progress, jobs=jobs, done=0,
              total=sum(t.rows for t in tasks.values()))
    summary.elapsed_s = time.perf_counter() - started
    return summary
