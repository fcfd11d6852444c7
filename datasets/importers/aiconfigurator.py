"""The aiconfigurator source: its systems layout, and GEMM, attention and collective
rows mapped to programs.

aiconfigurator (ai-dynamo/aiconfigurator, ``aic-core/src/aiconfigurator_core/systems/``)
-----------------------------------------------------------------------------------------
Layout: ``<system>/<op>/<framework>/<version>/<table>.parquet`` beside ``<system>.yaml``
(``../shared/data/aiconfigurator``), or upstream's ``<system>.yaml`` beside
``data/<system>/...``. Latencies are in ms (CUDA events over CUDA-graph replays).
Interpretation per table:

- ``gemm_perf``: C[m,n] = A[m,k] B[k,n] (family ``dot_general``, variant = the
  ``gemm_dtype`` recipe). bfloat16/float16: a plain dot. fp8, fp8_static, fp8_block
  (per-tensor / static / 128-block scales): f8E4M3FN x f8E4M3FN -> bf16. nvfp4:
  f4E2M1FN x f4E2M1FN -> bf16. The scale tensors of scaled recipes are not in the
  program (their traffic is < 1-3%); the recipe is the variant. int8_wo / int4_wo
  (weight-only): the i8/i4 weight is converted to bf16, then a bf16 dot. sq
  (SmoothQuant W8A8): i8 x i8 -> i32 converted to bf16. Other recipes are skipped
  and counted. Rows with m, n or k = 0 are skipped.
- ``context_attention_perf`` (prefill, aiconfigurator's collectors: no cached tokens):
  q and kv length = ``isl``, causal. ``generation_attention_perf`` (decode): one new
  token per sequence (``isl`` = 1) attending to ``step`` cached tokens plus itself, so
  kv length = ``step + 1`` (the collectors set num_cached_tokens = step). Family
  ``attention``, variant ``context`` / ``generation``. Heads: ``num_heads`` query
  heads share ``num_key_value_heads`` kv heads (GQA) through a grouped dot (see
  `templates.attention`). ``attn_dtype`` is the compute type (fp8 = FP8 FMHA),
  ``kv_cache_dtype`` the cache type: decode converts the cached k/v to the compute
  type; prefill with a cache type other than the compute type also returns k/v
  converted (the quantized cache write). ``window_size`` > 0 is sliding-window
  attention: prefill masks keys more than W-1 back (the dense program still computes
  them; outlier checks count only the visible pairs); decode reads the last W keys.
  Only ``beam_width`` 1 is imported.
- ``nccl_perf``: nccl-tests timings (``collect_nccl.py``). ``message_size`` is the
  nccl-tests ``size`` in *elements* (bytes / element size) and nccl-tests' size is the
  larger per-rank buffer: all_gather's output, reduce_scatter's input, all_reduce's
  and alltoall's input (= output). The program is one collective over one replica
  group of ``num_gpus`` devices with exactly those buffers (`templates.collective`).
  ``nccl_dtype`` half = f16, int8 = i8. Family = the op (alltoall -> all_to_all).
- ``comm/<framework>/custom_allreduce_perf`` (TRT-LLM / vLLM / SGLang custom
  all-reduce kernels): ``message_size`` is the element count of the all-reduced
  tensor; imported as ``all_reduce`` with variant = ``kernel_source``.
- ``wideep_deepep_*`` (DeepEP MoE dispatch/combine: data-dependent token routing)
  and any other table have no StableHLO equivalent here: skipped, counted by table.
- A ``<version>`` folder holding only ``reuse.yaml`` points at another version's
  tables: skipped without error (counted in ``skipped_files``). Parquet files next to
  a ``reuse.yaml`` are imported (they are measurements).
- Duplicate parameter rows inside one file are repeats of one measurement: merged
  into one sample (median, p10, p90, min, mean, cv over them; ``repeats`` = count).
  ``power``/``power_limit``/``compute_bound`` columns are measurements, not
  parameters: they are neither part of the parameters nor imported.
- A system's GPU is the ``device`` column of its files (the 2.23 NCCL tables have none
  and take their system's); rows naming another GPU are skipped and counted.
- Outlier peaks: the catalog chip's matmul rate for the dtype, DRAM bandwidth and
  per-direction intra-node link bandwidth (collectives: nccl-tests bus bytes per
  second); the catalog has no FP4 rate, so nvfp4 uses ``fp4_tc_flops`` from
  ``<system>.yaml`` (B200: 9e15), and chips outside the catalog use that file's rates.
  A GEMM whose inputs fit the on-chip cache can exceed DRAM bandwidth on repeated
  replays; the reason says so.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping, TypedDict

from ...errors import DatasetError
from .. import templates as T
from .checks import Peaks
from .parquet import first_device, num_rows
from .pool import ProgressFn, Source, Task, file_rows, run_tasks
from .rows import Mapped, Mapper, lb
from .sink import resolve_hardware
from .summary import ImportSummary

_AIC_OP_DIRS = ("gemm", "attention", "comm")
_AIC_LAYOUT = ("an aiconfigurator systems directory: <system>/{gemm,attention,comm}/"
               "<framework>/<version>/<table>.parquet, e.g. h100_sxm/gemm/trtllm/1.3.0rc10/"
               "gemm_perf.parquet")

# gemm_dtype -> template arguments (lhs, rhs, dot result, convert-to, weight-only)
_GEMM_DTYPES: dict[str, tuple[str, str, str, str | None, bool]] = {
    "bfloat16": ("bf16", "bf16", "bf16", None, False),
    "bf16": ("bf16", "bf16", "bf16", None, False),
    "float16": ("f16", "f16", "f16", None, False),
    "fp16": ("f16", "f16", "f16", None, False),
    "fp8": ("f8E4M3FN", "f8E4M3FN", "bf16", None, False),
    "fp8_static": ("f8E4M3FN", "f8E4M3FN", "bf16", None, False),
    "fp8_block": ("f8E4M3FN", "f8E4M3FN", "bf16", None, False),
    "nvfp4": ("f4E2M1FN", "f4E2M1FN", "bf16", None, False),
    "int8_wo": ("bf16", "i8", "bf16", None, True),
    "int4_wo": ("bf16", "i4", "bf16", None, True),
    "sq": ("i8", "i8", "i32", "bf16", False),
}
_ATTN_DTYPES = {"bfloat16": "bf16", "bf16": "bf16", "float16": "f16", "fp16": "f16",
                "fp8": "f8E4M3FN", "int8": "i8", "float32": "f32"}
_NCCL_DTYPES = {"half": "f16", "float16": "f16", "fp16": "f16", "bfloat16": "bf16",
                "bf16": "bf16", "int8": "i8", "float": "f32", "float32": "f32", "fp8": "f8E4M3FN"}
_NCCL_OPS = {"all_gather": "all_gather", "allgather": "all_gather",
             "all_reduce": "all_reduce", "allreduce": "all_reduce",
             "reduce_scatter": "reduce_scatter", "reducescatter": "reduce_scatter",
             "alltoall": "all_to_all", "all_to_all": "all_to_all"}


class _AttentionArgs(TypedDict):
    """The keyword arguments `T.attention` and `T.attention_work` share."""

    compute: str
    kv_store: str
    out: str
    causal: bool
    window: int
    cache_write: bool


_BYTES_PER_ELEMENT = {d: T.nbytes((1,), d) for d in
                      ("bf16", "f16", "f32", "i32", "f8E4M3FN", "f4E2M1FN", "i8", "i4")}


@lru_cache(maxsize=64)
def _gemm_program_tail(lhs: str, rhs: str, result: str, out: str | None, wo: bool) -> str:
    return json.dumps({"lhs": lhs, "rhs": rhs, "result": result, "out": out,
                       "dequant_rhs": wo}, separators=(",", ":"))[1:]


def _map_gemm(p: dict[str, Any]) -> Mapped:
    recipe = str(p.get("gemm_dtype"))
    spec = _GEMM_DTYPES.get(recipe)
    if spec is None:
        return Mapped(skip=f"gemm: gemm_dtype {recipe!r} has no StableHLO mapping")
    try:
        m, n, k = int(p["m"]), int(p["n"]), int(p["k"])
    except (KeyError, TypeError, ValueError):
        return Mapped(skip="gemm: m, n or k missing")
    if min(m, n, k) <= 0:
        return Mapped(skip="gemm: zero-size dimension (m, n or k = 0)")
    lhs, rhs, result, out, wo = spec
    text = T.gemm(m, n, k, lhs=lhs, rhs=rhs, result=result, out=out, dequant_rhs=wo)
    size = _BYTES_PER_ELEMENT
    work = T.Work(2.0 * m * n * k, m * k * size[lhs] + k * n * size[rhs]
                  + m * n * size[out or result])
    return Mapped(
        family="dot_general", variant=recipe, dtype=lhs,
        group_id=f"dot_general/gemm/{recipe}/m{lb(m)}/n{lb(n)}/k{lb(k)}", stablehlo=text,
        program_json=(f'{{"template":"gemm","m":{m},"n":{n},"k":{k},'
                      f'{_gemm_program_tail(lhs, rhs, result, out, wo)}'),
        work=work, peak_dtype=lhs)


def _map_attention(phase: str) -> Callable[[dict[str, Any]], Mapped]:
    def mapper(p: dict[str, Any]) -> Mapped:
        try:
            b, isl = int(p["batch_size"]), int(p["isl"])
            h, hkv, d = int(p["num_heads"]), int(p["num_key_value_heads"]), int(p["head_dim"])
            step = int(p.get("step") or 0)
        except (KeyError, TypeError, ValueError):
            return Mapped(skip=f"{phase} attention: a shape column is missing")
        beam = int(p.get("beam_width") or 1)
        win = p.get("window_size")
        window = 0 if win is None else int(win)   # NaN/whole floats became None/int on read
        compute = _ATTN_DTYPES.get(str(p.get("attn_dtype")))
        kv = _ATTN_DTYPES.get(str(p.get("kv_cache_dtype")))
        if compute is None or kv is None:
            return Mapped(skip=f"{phase} attention: dtype {p.get('attn_dtype')!r}/"
                               f"{p.get('kv_cache_dtype')!r} has no StableHLO mapping")
        if beam != 1:
            return Mapped(skip=f"{phase} attention: beam_width {beam} != 1")
        if min(b, isl, h, hkv, d) <= 0:
            return Mapped(skip=f"{phase} attention: zero-size dimension")
        if h % hkv:
            return Mapped(skip=f"{phase} attention: num_heads not a multiple of "
                               "num_key_value_heads")
        if phase == "context":
            q_len = kv_len = isl
            args = _AttentionArgs(compute=compute, kv_store=kv, out="bf16", causal=True,
                                  window=window if 0 < window < isl else 0,
                                  cache_write=kv != compute)
            seq = isl
        else:
            if isl != 1:
                return Mapped(skip="generation attention: isl != 1 (decode of several "
                                   "tokens per step)")
            q_len, kv_len = 1, step + 1
            if 0 < window < kv_len:
                kv_len = window   # a sliding window reads only the last W cached keys
            args = _AttentionArgs(compute=compute, kv_store=kv, out="bf16", causal=False,
                                  window=0, cache_write=False)
            seq = step + 1
        text = T.attention(b, h, hkv, q_len, kv_len, d, **args)
        dt = f"{p.get('attn_dtype')}-{p.get('kv_cache_dtype')}"
        return Mapped(
            family="attention", variant=phase, dtype=compute,
            group_id=f"attention/{phase}/{dt}/d{d}/s{lb(seq)}", stablehlo=text,
            program={"template": "attention", "batch": b, "heads": h, "kv_heads": hkv,
                     "q_len": q_len, "kv_len": kv_len, "head_dim": d, **args},
            work=T.attention_work(b, h, hkv, q_len, kv_len, d, **args), peak_dtype=compute)
    return mapper


def _map_collective(dtype_col: str,
                    fixed_op: str | None = None) -> Callable[[dict[str, Any]], Mapped]:
    def mapper(p: dict[str, Any]) -> Mapped:
        op = _NCCL_OPS.get(str(fixed_op or p.get("op_name")))
        if op is None:
            return Mapped(skip=f"collective: op {p.get('op_name')!r} has no StableHLO mapping")
        dtype = _NCCL_DTYPES.get(str(p.get(dtype_col)))
        if dtype is None:
            return Mapped(skip=f"collective: dtype {p.get(dtype_col)!r} has no StableHLO mapping")
        try:
            n, elements = int(p["num_gpus"]), int(p["message_size"])
        except (KeyError, TypeError, ValueError):
            return Mapped(skip="collective: num_gpus or message_size missing")
        if n < 2:
            return Mapped(skip="collective: fewer than 2 GPUs")
        if elements <= 0:
            return Mapped(skip="collective: empty message")
        if op != "all_reduce" and elements % n:
            return Mapped(skip=f"collective: {op} message not divisible by num_gpus")
        text = T.collective(op, elements, dtype, n)
        size = T.nbytes((elements,), dtype)
        return Mapped(
            kind="collective", family=op, variant=str(p.get("kernel_source") or "NCCL"),
            dtype=dtype, group_id=f"{op}/{dtype}/g{n}/b{lb(size) // 2}", stablehlo=text,
            program={"template": "collective", "op": op, "elements": elements, "dtype": dtype,
                     "num_devices": n, "bytes": size},
            bus_bytes=T.collective_bus_bytes(op, elements, dtype, n), peak_dtype=dtype)
    return mapper


_ATTN_KEY = ("batch_size", "isl", "num_heads", "num_key_value_heads", "head_dim",
             "beam_width", "attn_dtype", "kv_cache_dtype", "step", "window_size")
_AIC_TABLES: dict[str, Mapper] = {
    "gemm_perf": Mapper(_map_gemm, ("gemm_dtype", "m", "n", "k")),
    "context_attention_perf": Mapper(_map_attention("context"), _ATTN_KEY),
    "generation_attention_perf": Mapper(_map_attention("generation"), _ATTN_KEY),
    "nccl_perf": Mapper(_map_collective("nccl_dtype"),
                        ("op_name", "nccl_dtype", "num_gpus", "message_size", "kernel_source")),
    "custom_allreduce_perf": Mapper(
        _map_collective("allreduce_dtype", "all_reduce"),
        ("allreduce_dtype", "num_gpus", "message_size", "kernel_source")),
}
_AIC_UNMAPPED = {
    "wideep_deepep_ll_perf": "DeepEP MoE dispatch/combine (data-dependent token routing): "
                             "no StableHLO collective equivalent",
    "wideep_deepep_normal_perf": "DeepEP MoE dispatch/combine (data-dependent token routing): "
                                 "no StableHLO collective equivalent",
}


def mapper_for(table: str) -> Mapper | str:
    """The mapper of a table, or why its rows are skipped."""
    if table in _AIC_TABLES:
        return _AIC_TABLES[table]
    return f"{table}: {_AIC_UNMAPPED.get(table, 'no importer for this table')}"


SOURCE = Source("aiconfigurator", mapper_for, device_column="device", latency_column="latency")


def _is_system_dir(path: Path) -> bool:
    return path.is_dir() and any((path / op).is_dir() for op in _AIC_OP_DIRS)


def _aic_systems(root: Path) -> list[Path]:
    """The system folders at `root`: itself, its children, or (upstream's layout, with
    ``<system>.yaml`` next to ``data/``) the children of ``root/data``."""
    if not root.exists():
        raise DatasetError(f"{root}: no such directory (expected {_AIC_LAYOUT})")
    if not root.is_dir():
        raise DatasetError(f"{root}: not a directory (expected {_AIC_LAYOUT})")
    if _is_system_dir(root):
        return [root]
    systems = sorted(p for p in root.iterdir() if _is_system_dir(p))
    if (root / "data").is_dir():
        systems += sorted(p for p in (root / "data").iterdir() if _is_system_dir(p))
    if not systems:
        raise DatasetError(f"{root}: not an aiconfigurator systems directory (expected "
                           f"{_AIC_LAYOUT})")
    return systems


_YAML_NUMBER = re.compile(r"^\s+([A-Za-z0-9_]+):\s*([0-9][0-9.eE+_-]*)\s*(#.*)?$")


def _system_yaml(system: Path) -> dict[str, float]:
    """The numeric `key: value` lines of `<system>.yaml` (gpu and node sections), found
    next to the system folder or, upstream, next to its ``data/`` folder."""
    values: dict[str, float] = {}
    for path in (system.parent / f"{system.name}.yaml",
                 system.parent.parent / f"{system.name}.yaml"):
        try:
            text = path.read_text()
            break
        except OSError:
            continue
    else:
        return values
    for line in text.splitlines():
        m = _YAML_NUMBER.match(line)
        if m:
            try:
                values.setdefault(m.group(1), float(m.group(2).replace("_", "")))
            except ValueError:
                pass
    return values


def _aic_peaks(hw: Any, yaml: Mapping[str, float], label: str) -> Peaks | None:
    yaml_matmul = {cls: yaml[key] for cls, key in (
        ("bf16", "bfloat16_tc_flops"), ("f16", "bfloat16_tc_flops"), ("f8", "fp8_tc_flops"),
        ("i8", "int8_tc_flops"), ("f4", "fp4_tc_flops")) if key in yaml}
    if hw is not None:
        return Peaks.of_catalog(hw, yaml_matmul)
    if not yaml_matmul and "mem_bw" not in yaml:
        return None
    return Peaks(None, yaml_matmul, yaml.get("mem_bw"), yaml.get("intra_node_bw"), None,
                 f"{label}.yaml")


def _aic_files(system: Path, summary: ImportSummary) -> list[tuple[Path, str]]:
    """(parquet file, table name) for every ``<op>/<framework>/<version>/<table>.parquet``
    of a system (tables without an importer included: they are counted as skipped).
    Version folders holding only ``reuse.yaml`` and Parquet files elsewhere are
    counted in `summary.skipped_files`."""
    files = []
    for f in sorted(system.rglob("*.parquet")):
        if len(f.relative_to(system).parts) == 4:
            files.append((f, f.stem))
        else:
            summary.skipped_files[f"Parquet file outside <op>/<framework>/<version>/ "
                                  f"({f.relative_to(system).as_posix()})"] += 1
    for version_dir in sorted(system.glob("*/*/*")):
        if (version_dir.is_dir() and (version_dir / "reuse.yaml").exists()
                and not any(version_dir.glob("*.parquet"))):
            summary.skipped_files["reuse.yaml folder (reuses another version's tables)"] += 1
    return files


def import_aiconfigurator(path: str | os.PathLike, out_root: str | os.PathLike, *,
                          progress: ProgressFn | None = None,
                          jobs: int | None = 1) -> ImportSummary:
    """Import aiconfigurator's measured GEMM, attention and collective tables.

    `path` is a systems directory (``<system>/gemm|attention|comm/...``, as in
    ``aic-core/src/aiconfigurator_core/systems/`` or ``../shared/data/aiconfigurator``)
    or one system folder. Writes one dataset per GPU under `out_root`.

    `jobs`: 1 (default) imports in this process; N > 1 (or None = one per CPU) runs one
    dataset per spawned worker process, so the caller must be the CLI or a script
    whose top level is guarded by ``if __name__ == "__main__":`` (Python's rule for
    spawned workers). `progress(done_rows, total_rows, label)` is called every ~20k
    source rows and after each file. Raises `DatasetError` when `path` has not that
    layout or a file is unreadable."""
    started = time.perf_counter()
    root = Path(path)
    systems = _aic_systems(root)
    summary = ImportSummary("aiconfigurator", root, Path(out_root))
    tasks: dict[tuple[str, str], Task] = {}
    orphans: list[tuple[str, Path, str]] = []
    for system in systems:
        files = _aic_files(system, summary)
        # paths from the system folder's parent: the same ids for upstream's data/ layout
        entries = [(f.relative_to(system.parent).as_posix(), str(f), table)
                   for f, table in files]
        devices = Counter(d for f, _ in files if (d := first_device(f)))
        if not devices:
            if entries:
                summary.notes.append(f"{system.name}: no file names its GPU (no device "
                                     "column); its rows are skipped")
                orphans += [(rel, Path(p), system.name) for rel, p, _ in entries]
            continue
        device = devices.most_common(1)[0][0]
        hardware, in_catalog, hw = resolve_hardware(device)
        if not in_catalog:
            summary.notes.append(f"{system.name}: device {device!r} is not in the hardware "
                                 f"catalog; imported as {hardware!r}")
        task = tasks.get((hardware, device))
        if task is None:
            task = tasks[(hardware, device)] = Task(
                SOURCE, hardware, device, in_catalog,
                _aic_peaks(hw, _system_yaml(system), system.name), [], 0)
        task.files += entries
    for task in tasks.values():
        task.rows = file_rows(task.files)
    orphan_rows = [(rel, num_rows(p), name) for rel, p, name in orphans]
    total = sum(t.rows for t in tasks.values()) + sum(n for _, n, _ in orphan_rows)
    done = 0
    for _, n, name in orphan_rows:
        summary.skipped_rows[f"{name}: GPU unknown (no device column in any file)"] += n
        summary.files_read += 1
        summary.rows_read += n
        done += n
    if progress is not None and done:
        progress(done, total, "files without a GPU")
    run_tasks(list(tasks.values()), summary, progress=progress, jobs=jobs, done=done,
              total=total)
    summary.elapsed_s = time.perf_counter() - started
    return summary
