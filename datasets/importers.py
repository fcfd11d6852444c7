"""Importers of public GPU measurements into the measurement store.

    summary = import_aiconfigurator("../shared/data/aiconfigurator", "stablecost-data")
    summary = import_neusight("../shared/data/neusight", "stablecost-data")
    print(summary.format())

Every measured row becomes one store row holding the StableHLO program that does the
same work (built from `templates`, never by lowering through JAX), the source row's
parameters as JSON, and its latency in seconds. One dataset per GPU: the hardware is
the catalog name when the device is in the catalog (`get_hardware(device)` resolves
it exactly), else a slug of the device name; the fingerprint is
``{"backend": "gpu", "device_name": <device>, "source": <project>}``, so imported data
never mixes with data collected on a machine. Re-importing adds nothing: sample ids are
content hashes of (project, the file's path from its system folder's parent, the params
JSON = the source row's parameters and the program's template arguments).

Nothing is dropped silently: every source row is written, found already present,
merged as a repeat of an identical parameter row of the same file, or skipped with a
counted reason (`ImportSummary`). Rows whose implied throughput exceeds
`OUTLIER_FRACTION` (95%) of the chip's peak are kept and flagged (`outlier`,
`outlier_reason`).

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

Performance: programs come from cached f-string templates; one dataset per task, and
``jobs`` > 1 runs datasets in parallel worker processes.

Group ids (grouped train/test splits hold out whole shape regions)
-------------------------------------------------------------------
``lb(x)`` = floor(log2 x). GEMM: ``dot_general/gemm/<recipe>/m<lb m>/n<lb n>/k<lb k>``.
Attention: ``attention/<phase>/<attn>-<kv>/d<head_dim>/s<lb seq>`` with seq = isl
(prefill) or kv length (decode). Collectives: ``<op>/<dtype>/g<num_gpus>/b<lb(bytes)//2>``
(4x size ranges). NeuSight: bmm ``b<lb>/m/n/k``, linear ``m/n/k``, conv
``k<kernel>/s<stride>/ci<lb>/co<lb>/hw<lb>``, softmax/ln ``r<lb B>/c<lb H>``, other
vector ops ``n<lb B*H>``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple

import pyarrow.parquet as pq

from ..errors import DatasetError, UnknownHardwareError
from . import store
from . import templates as T

COLLECTOR_VERSION = "import-1"
OUTLIER_FRACTION = 0.95
FLUSH_ROWS = 50_000           # rows buffered per dataset before a shard is written
PROGRESS_EVERY = 20_000       # source rows between progress callbacks

ProgressFn = Callable[[int, int, str], None]
"""`progress(done_rows, total_rows, label)`: called every ~20k source rows and after each
file; `label` is the file being read (relative to the import root)."""

_MEASURED_COLUMNS = {"latency", "Latency", "power", "power_limit", "compute_bound"}


# -- summary ------------------------------------------------------------------------------
@dataclass
class DatasetSummary:
    """What one import did to one dataset."""

    path: Path
    hardware: str
    device_name: str
    in_catalog: bool
    written: int = 0
    already_present: int = 0
    merged_repeats: int = 0          # identical parameter rows folded into one sample
    outliers: int = 0
    skipped: Counter = field(default_factory=Counter)            # reason -> source rows
    outlier_reasons: Counter = field(default_factory=Counter)    # kind of excess -> rows
    families: Counter = field(default_factory=Counter)           # family -> rows written


@dataclass
class ImportSummary:
    """Per dataset: rows written, already present, merged, skipped by reason, outliers
    flagged, rows per family. `rows_read` = written + already present + merged + skipped
    always holds."""

    project: str
    source_path: Path
    out_root: Path
    datasets: dict[str, DatasetSummary] = field(default_factory=dict)
    skipped_files: Counter = field(default_factory=Counter)     # reason -> files/folders
    skipped_rows: Counter = field(default_factory=Counter)      # reason -> rows (no dataset)
    files_read: int = 0
    rows_read: int = 0
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def written(self) -> int:
        return sum(d.written for d in self.datasets.values())

    @property
    def already_present(self) -> int:
        return sum(d.already_present for d in self.datasets.values())

    @property
    def outliers(self) -> int:
        return sum(d.outliers for d in self.datasets.values())

    @property
    def skipped(self) -> Counter:
        """Skipped source rows by reason, over every dataset and files with none."""
        total = Counter(self.skipped_rows)
        for d in self.datasets.values():
            total.update(d.skipped)
        return total

    def counts(self) -> dict[tuple[str, str], int]:
        """Rows written per (hardware, family)."""
        out: Counter = Counter()
        for d in self.datasets.values():
            for family, n in d.families.items():
                out[(d.hardware, family)] += n
        return dict(sorted(out.items()))

    def table_rows(self) -> list[dict[str, Any]]:
        """One dict per (dataset, family), for a rich table or JSON."""
        rows = []
        for d in self.datasets.values():
            for family, n in sorted(d.families.items()):
                rows.append({"dataset": str(d.path), "hardware": d.hardware,
                             "in_catalog": d.in_catalog, "family": family, "written": n})
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project, "source_path": str(self.source_path),
            "out_root": str(self.out_root), "files_read": self.files_read,
            "rows_read": self.rows_read, "written": self.written,
            "already_present": self.already_present, "outliers": self.outliers,
            "elapsed_s": self.elapsed_s, "skipped": dict(self.skipped),
            "skipped_files": dict(self.skipped_files), "notes": list(self.notes),
            "datasets": [{
                "path": str(d.path), "hardware": d.hardware, "device_name": d.device_name,
                "in_catalog": d.in_catalog, "written": d.written,
                "already_present": d.already_present, "merged_repeats": d.merged_repeats,
                "outliers": d.outliers, "outlier_reasons": dict(d.outlier_reasons),
                "skipped": dict(d.skipped), "families": dict(d.families),
            } for d in self.datasets.values()],
        }

    def format(self) -> str:
        """A plain-text report (fixed-width table plus skip reasons)."""
        lines = [f"{self.project}: {self.rows_read} rows from {self.files_read} files in "
                 f"{self.elapsed_s:.1f} s -> {self.out_root}",
                 f"  written {self.written}, already present {self.already_present}, "
                 f"skipped {sum(self.skipped.values())}, outliers flagged {self.outliers}"]
        header = f"  {'hardware':<26} {'family':<16} {'written':>9}"
        lines.append(header)
        for (hw, family), n in self.counts().items():
            lines.append(f"  {hw:<26} {family:<16} {n:>9}")
        for d in self.datasets.values():
            where = "catalog" if d.in_catalog else "NOT in catalog (slug of the device name)"
            lines.append(f"  dataset {d.path}: {d.hardware} [{d.device_name}, {where}] "
                         f"written {d.written}, present {d.already_present}, merged repeats "
                         f"{d.merged_repeats}, outliers {d.outliers}")
            for reason, n in d.outlier_reasons.most_common():
                lines.append(f"      outlier: {reason}: {n}")
        skipped = self.skipped
        if skipped:
            lines.append("  skipped rows:")
            lines += [f"    {n:>9}  {reason}" for reason, n in skipped.most_common()]
        if self.skipped_files:
            lines.append("  skipped files/folders:")
            lines += [f"    {n:>9}  {reason}" for reason, n in self.skipped_files.most_common()]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


# -- peaks for outlier checks ----------------------------------------------------------------
@dataclass(frozen=True)
class _Peaks:
    """The rates a row's implied throughput is checked against: the catalog chip's, with
    `matmul_by_class` filling rates the catalog lacks (FP4 on B200 from aiconfigurator's
    system file), or only `matmul_by_class` for chips outside the catalog."""

    hw: Any                                   # catalog Hardware, or None
    matmul_by_class: Mapping[str, float]      # f32 | bf16 | f16 | f8 | f4 | i8 -> FLOP/s
    memory_bytes_per_s: float | None
    link_bytes_per_s: float | None
    cache_bytes: float | None
    label: str

    @classmethod
    def of_catalog(cls, hw: Any, extra: Mapping[str, float]) -> "_Peaks":
        return cls(hw, dict(extra), hw.memory_bandwidth_bytes_per_s,
                   hw.intra_node_bandwidth_bytes_per_s, hw.on_chip_cache_bytes,
                   f"catalog {hw.name}")

    def matmul(self, dtype: str, precision: str | None = None) -> float | None:
        from ..dtypes import compute_class

        cls = "f4" if dtype.startswith("f4") else compute_class(dtype)
        if self.hw is None:
            return self.matmul_by_class.get(cls)
        table = self.hw.matmul_flops_per_s
        if cls == "f4":   # the catalog prices f4 as f8, but FP4 tensor cores run 2x FP8
            return table.get("f4") or self.matmul_by_class.get("f4")
        if cls == "f8" and "f8" not in table:
            return self.matmul_by_class.get("f8")
        return self.hw.matmul_peak_flops_per_s(dtype, precision)


def _check(work: T.Work, latency_s: float, peaks: _Peaks | None, dtype: str,
           peak_flops: float | None) -> "_Verdict":
    """(outlier reason, its category) when the implied FLOP/s exceed `peak_flops` or the
    implied DRAM traffic the chip's bandwidth (by more than `OUTLIER_FRACTION`)."""
    if peaks is None:
        return None, None
    reason = kind = None
    if peak_flops and work.flops > OUTLIER_FRACTION * peak_flops * latency_s:
        rate = work.flops / latency_s
        reason = (f"implied {rate:.3g} FLOP/s is {rate / peak_flops:.0%} of the {dtype} "
                  f"matmul peak {peak_flops:.3g} ({peaks.label})")
        kind = f"compute > {OUTLIER_FRACTION:.0%} of the {dtype} peak"
    bandwidth = peaks.memory_bytes_per_s
    if bandwidth and work.bytes > OUTLIER_FRACTION * bandwidth * latency_s:
        rate = work.bytes / latency_s
        why = ""
        if peaks.cache_bytes and work.bytes <= peaks.cache_bytes:
            why = (f"; its {work.bytes / 1e6:.3g} MB fit the {peaks.cache_bytes / 1e6:.0f} MB "
                   "on-chip cache, so repeats run cache-resident")
        text = (f"implied {rate:.3g} B/s is {rate / bandwidth:.0%} of the memory bandwidth "
                f"{bandwidth:.3g} ({peaks.label}){why}")
        reason = f"{reason}; {text}" if reason else text
        kind = kind or f"memory traffic > {OUTLIER_FRACTION:.0%} of DRAM bandwidth"
    return reason, kind


_Verdict = tuple[str | None, str | None]     # (outlier reason, its category)


def _check_link(bus_bytes: float, latency_s: float, peaks: _Peaks | None) -> _Verdict:
    if peaks is None or not peaks.link_bytes_per_s or bus_bytes <= 0:
        return None, None
    rate = bus_bytes / latency_s
    if rate > OUTLIER_FRACTION * peaks.link_bytes_per_s:
        return (f"implied bus bandwidth {rate:.3g} B/s is {rate / peaks.link_bytes_per_s:.0%} of "
                f"the per-direction link bandwidth {peaks.link_bytes_per_s:.3g} ({peaks.label})",
                f"bus bandwidth > {OUTLIER_FRACTION:.0%} of the link")
    return None, None


# -- shared machinery ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Mapped:
    """One source parameter row, mapped: what to write, or why not."""

    family: str = ""
    variant: str = ""
    dtype: str = ""
    kind: str = "kernel"
    group_id: str = ""
    stablehlo: str = ""
    program: dict[str, Any] | None = None    # template name and arguments
    work: T.Work | None = None
    bus_bytes: float = 0.0
    peak_dtype: str = ""
    precision: str | None = None
    skip: str | None = None
    note: str | None = None                  # appended to an outlier reason
    program_json: str = ""


def _lb(x: int | float) -> int:
    x = int(x)
    return x.bit_length() - 1 if x > 0 else -1


def _stats(latencies_ms: list[float]) -> dict[str, Any]:
    lat = sorted(v * 1e-3 for v in latencies_ms)
    n = len(lat)
    if n == 1:
        v = lat[0]
        return {"median_s": v, "p10_s": v, "p90_s": v, "min_s": v, "mean_s": v, "cv": 0.0,
                "repeats": 1}

    def pct(q: float) -> float:
        pos = (n - 1) * q
        lo = math.floor(pos)
        hi = min(lo + 1, n - 1)
        return lat[lo] + (lat[hi] - lat[lo]) * (pos - lo)

    mean = sum(lat) / n
    return {"median_s": statistics.median(lat), "p10_s": pct(0.1), "p90_s": pct(0.9),
            "min_s": lat[0], "mean_s": mean, "cv": statistics.pstdev(lat) / mean,
            "repeats": n}


def _json_value(v: Any) -> Any:
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if v.is_integer():
            return int(v)
    return v


class _Sink:
    """One dataset's writer, its pending rows and its summary (one per task)."""

    def __init__(self, out_root: Path, project: str, hardware: str, device_name: str,
                 in_catalog: bool, report: Callable[[int, str], None]) -> None:
        self.project = project
        self.report = report
        self.unreported = 0
        self.now = datetime.now(timezone.utc)
        fingerprint = {"backend": "gpu", "device_name": device_name, "source": project}
        self.writer = store.DatasetWriter(out_root, hardware=hardware, fingerprint=fingerprint,
                                          shard_rows=FLUSH_ROWS)
        self.summary = DatasetSummary(self.writer.path, hardware, device_name, in_catalog)
        self.pending: list[dict[str, Any]] = []
        self.seen: set[str] = set()

    def tick(self, rows: int, label: str, force: bool = False) -> None:
        self.unreported += rows
        if self.unreported >= PROGRESS_EVERY or (force and self.unreported):
            self.report(self.unreported, label)
            self.unreported = 0

    def add(self, row: dict[str, Any], outlier_category: str | None = None) -> None:
        sid, ds = row["sample_id"], self.summary
        if sid in self.seen or self.writer.has(sid):
            ds.already_present += row["repeats"]
            return
        if outlier_category:
            ds.outlier_reasons[outlier_category] += 1
        self.seen.add(sid)
        self.pending.append(row)
        ds.written += 1
        ds.merged_repeats += row["repeats"] - 1
        ds.families[row["family"]] += 1
        if row["outlier"]:
            ds.outliers += 1
        if len(self.pending) >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.writer.add_many(self.pending)
            self.pending = []

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.writer.close()


def _read_table(path: Path) -> Any:
    try:
        return pq.read_table(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
        raise DatasetError(f"{path}: unreadable Parquet file ({exc})") from None


def _num_rows(path: Path) -> int:
    try:
        return pq.read_metadata(path).num_rows
    except Exception as exc:  # noqa: BLE001
        raise DatasetError(f"{path}: unreadable Parquet file ({exc})") from None


def _group_rows(columns: dict[str, list[Any]],
                latency_col: str) -> tuple[list[str], dict[tuple, list[float]]]:
    """Parameter columns and {parameter tuple: [latency ms, ...]} in first-seen order."""
    names = [c for c in columns if c not in _MEASURED_COLUMNS]
    lat = columns[latency_col]
    groups: dict[tuple, list[float]] = {}
    for key, v in zip(zip(*(columns[c] for c in names)), lat):
        found = groups.get(key)
        if found is None:
            groups[key] = [v]
        else:
            found.append(v)
    return names, groups


class _Mapper(NamedTuple):
    """Maps a source parameter row; rows equal on `key_columns` map alike (cached)."""

    fn: Callable[[dict[str, Any]], _Mapped]
    key_columns: tuple[str, ...]


def _normalize_columns(table: Any) -> dict[str, list[Any]]:
    """Columns as Python lists; floats that are whole numbers become ints, NaN None
    (so parameters print as `128`, not `128.0`, and JSON stays valid)."""
    import pyarrow as pa

    columns = {}
    for name in table.column_names:
        column = table.column(name)
        values = column.to_pylist()
        if pa.types.is_floating(column.type) and name not in _MEASURED_COLUMNS:
            values = [_json_value(v) for v in values]
        columns[name] = values
    return columns


def _row_encoder(names: list[str]) -> Callable[[tuple], str]:
    """JSON of a parameter row (`names` -> values) with each distinct value encoded once:
    rows of a sweep repeat the same strings and sizes, so this beats `json` per row."""
    encode = json.JSONEncoder(separators=(",", ":")).encode
    prefixes = [("{" if i == 0 else ",") + encode(n) + ":" for i, n in enumerate(names)]
    memo: dict[Any, str] = {}

    def row_json(values: tuple) -> str:
        if len(memo) > 1_000_000:
            memo.clear()
        out = []
        for prefix, v in zip(prefixes, values):
            text = memo.get(v) if type(v) is not bool else None
            if text is None:
                text = encode(v)
                if type(v) is not bool:
                    memo[v] = text
            out.append(prefix)
            out.append(text)
        out.append("}")
        return "".join(out)

    return row_json


def _content_id(project: str, rel: str, params_json: str) -> str:
    """The sample id of an imported row: SHA-256 of project, file and parameters (the
    20-hex-digit form of `store.sample_id`, without its per-call JSON encoding, which
    costs more than the rest of an import row)."""
    return hashlib.sha256(f"{project}\x00{rel}\x00{params_json}".encode()).hexdigest()[:20]


def _import_file(sink: _Sink, *, rel: str, path: Path, latency_col: str, mapper: _Mapper,
                 peaks: _Peaks | None,
                 row_filter: Callable[[dict[str, Any]], str | None] | None = None,
                 ) -> tuple[int, int]:
    """Map every row of one source file into the sink; returns (files, rows) read."""
    table = _read_table(path)
    n_rows = table.num_rows
    ds = sink.summary
    skipped = ds.skipped
    if latency_col not in table.column_names:
        skipped[f"{Path(rel).name}: no {latency_col!r} column"] += n_rows
        sink.tick(n_rows, rel, force=True)
        return 1, n_rows
    columns = _normalize_columns(table)
    del table
    names, groups = _group_rows(columns, latency_col)
    del columns
    key_index = [names.index(c) if c in names else None for c in mapper.key_columns]
    source = f"imported:{sink.project}/{rel}"
    project, now = sink.project, sink.now
    hardware, device_name = ds.hardware, ds.device_name
    cache: dict[tuple, _Mapped] = {}
    encode = json.JSONEncoder(separators=(",", ":")).encode
    row_json = _row_encoder(names)
    check, check_link, stats_of, add = _check, _check_link, _stats, sink.add
    peak_of: dict[tuple[str, str | None], float | None] = {}
    done_in_file = 0
    for key, lats in groups.items():
        done_in_file += len(lats)
        if done_in_file >= PROGRESS_EVERY:
            sink.tick(done_in_file, rel)
            done_in_file = 0
        params = dict(zip(names, key))
        if row_filter is not None:
            why = row_filter(params)
            if why:
                skipped[why] += len(lats)
                continue
        good = [v for v in lats if v is not None and v > 0 and math.isfinite(v)]
        if len(good) < len(lats):
            skipped["latency missing, NaN or not positive"] += len(lats) - len(good)
            if not good:
                continue
        shape_key = tuple([None if i is None else key[i] for i in key_index])
        mapped = cache.get(shape_key)
        if mapped is None:
            if len(cache) >= 200_000:   # bound memory on huge files
                cache.clear()
            mapped = cache[shape_key] = mapper.fn(params)
            if not mapped.skip and not mapped.program_json:
                mapped.program_json = encode(mapped.program)
        if mapped.skip:
            skipped[mapped.skip] += len(good)
            continue
        stats = stats_of(good)
        if mapped.kind == "collective":
            reason, category = check_link(mapped.bus_bytes, stats["median_s"], peaks)
        else:
            which = (mapped.peak_dtype, mapped.precision)
            if which not in peak_of:
                peak_of[which] = peaks.matmul(*which) if peaks is not None else None
            reason, category = check(mapped.work, stats["median_s"], peaks, mapped.peak_dtype,
                                     peak_of[which])
        if category and mapped.note:
            reason = f"{reason} ({mapped.note})"
        params_json = f'{{"program":{mapped.program_json},"row":{row_json(key)}}}'
        stats.update({
            "sample_id": _content_id(project, rel, params_json),
            "group_id": mapped.group_id, "kind": mapped.kind, "family": mapped.family,
            "variant": mapped.variant, "dtype": mapped.dtype, "params": params_json,
            "stablehlo": mapped.stablehlo, "warmup": 0, "cache_flush": "unknown",
            "kernel_times": None, "hardware": hardware, "device_name": device_name,
            "backend": "gpu", "jax_version": None, "jaxlib_version": None,
            "collector_version": COLLECTOR_VERSION, "timestamp": now, "source": source,
            "outlier": reason is not None, "outlier_reason": reason,
        })
        add(stats, category)
    sink.tick(done_in_file, rel, force=True)
    return 1, n_rows


def _resolve(device_name: str) -> tuple[str, bool, Any]:
    """(hardware name, in catalog, Hardware or None) for a device name."""
    from ..hardware import get_hardware

    try:
        hw = get_hardware(device_name)
    except UnknownHardwareError:
        return store.slug(device_name), False, None
    return hw.name, True, hw


# -- aiconfigurator ---------------------------------------------------------------------------
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


_BYTES_PER_ELEMENT = {d: T.nbytes((1,), d) for d in
                      ("bf16", "f16", "f32", "i32", "f8E4M3FN", "f4E2M1FN", "i8", "i4")}


@lru_cache(maxsize=64)
def _gemm_program_tail(lhs: str, rhs: str, result: str, out: str | None, wo: bool) -> str:
    return json.dumps({"lhs": lhs, "rhs": rhs, "result": result, "out": out,
                       "dequant_rhs": wo}, separators=(",", ":"))[1:]


def _map_gemm(p: dict[str, Any]) -> _Mapped:
    recipe = str(p.get("gemm_dtype"))
    spec = _GEMM_DTYPES.get(recipe)
    if spec is None:
        return _Mapped(skip=f"gemm: gemm_dtype {recipe!r} has no StableHLO mapping")
    try:
        m, n, k = int(p["m"]), int(p["n"]), int(p["k"])
    except (KeyError, TypeError, ValueError):
        return _Mapped(skip="gemm: m, n or k missing")
    if min(m, n, k) <= 0:
        return _Mapped(skip="gemm: zero-size dimension (m, n or k = 0)")
    lhs, rhs, result, out, wo = spec
    text = T.gemm(m, n, k, lhs=lhs, rhs=rhs, result=result, out=out, dequant_rhs=wo)
    size = _BYTES_PER_ELEMENT
    work = T.Work(2.0 * m * n * k, m * k * size[lhs] + k * n * size[rhs]
                  + m * n * size[out or result])
    return _Mapped(
        family="dot_general", variant=recipe, dtype=lhs,
        group_id=f"dot_general/gemm/{recipe}/m{_lb(m)}/n{_lb(n)}/k{_lb(k)}", stablehlo=text,
        program_json=(f'{{"template":"gemm","m":{m},"n":{n},"k":{k},'
                      f'{_gemm_program_tail(lhs, rhs, result, out, wo)}'),
        work=work, peak_dtype=lhs)


def _map_attention(phase: str) -> Callable[[dict[str, Any]], _Mapped]:
    def mapper(p: dict[str, Any]) -> _Mapped:
        try:
            b, isl = int(p["batch_size"]), int(p["isl"])
            h, hkv, d = int(p["num_heads"]), int(p["num_key_value_heads"]), int(p["head_dim"])
            step = int(p.get("step") or 0)
        except (KeyError, TypeError, ValueError):
            return _Mapped(skip=f"{phase} attention: a shape column is missing")
        beam = int(p.get("beam_width") or 1)
        win = p.get("window_size")
        window = 0 if win is None else int(win)   # NaN/whole floats became None/int on read
        compute = _ATTN_DTYPES.get(str(p.get("attn_dtype")))
        kv = _ATTN_DTYPES.get(str(p.get("kv_cache_dtype")))
        if compute is None or kv is None:
            return _Mapped(skip=f"{phase} attention: dtype {p.get('attn_dtype')!r}/"
                                f"{p.get('kv_cache_dtype')!r} has no StableHLO mapping")
        if beam != 1:
            return _Mapped(skip=f"{phase} attention: beam_width {beam} != 1")
        if min(b, isl, h, hkv, d) <= 0:
            return _Mapped(skip=f"{phase} attention: zero-size dimension")
        if h % hkv:
            return _Mapped(skip=f"{phase} attention: num_heads not a multiple of "
                                "num_key_value_heads")
        if phase == "context":
            q_len = kv_len = isl
            args = dict(compute=compute, kv_store=kv, out="bf16", causal=True,
                        window=window if 0 < window < isl else 0, cache_write=kv != compute)
            seq = isl
        else:
            if isl != 1:
                return _Mapped(skip="generation attention: isl != 1 (decode of several "
                                    "tokens per step)")
            q_len, kv_len = 1, step + 1
            if 0 < window < kv_len:
                kv_len = window   # a sliding window reads only the last W cached keys
            args = dict(compute=compute, kv_store=kv, out="bf16", causal=False, window=0,
                        cache_write=False)
            seq = step + 1
        text = T.attention(b, h, hkv, q_len, kv_len, d, **args)
        dt = f"{p.get('attn_dtype')}-{p.get('kv_cache_dtype')}"
        return _Mapped(
            family="attention", variant=phase, dtype=compute,
            group_id=f"attention/{phase}/{dt}/d{d}/s{_lb(seq)}", stablehlo=text,
            program={"template": "attention", "batch": b, "heads": h, "kv_heads": hkv,
                     "q_len": q_len, "kv_len": kv_len, "head_dim": d, **args},
            work=T.attention_work(b, h, hkv, q_len, kv_len, d, **args), peak_dtype=compute)
    return mapper


def _map_collective(dtype_col: str,
                    fixed_op: str | None = None) -> Callable[[dict[str, Any]], _Mapped]:
    def mapper(p: dict[str, Any]) -> _Mapped:
        op = _NCCL_OPS.get(str(fixed_op or p.get("op_name")))
        if op is None:
            return _Mapped(skip=f"collective: op {p.get('op_name')!r} has no StableHLO mapping")
        dtype = _NCCL_DTYPES.get(str(p.get(dtype_col)))
        if dtype is None:
            return _Mapped(skip=f"collective: dtype {p.get(dtype_col)!r} has no StableHLO mapping")
        try:
            n, elements = int(p["num_gpus"]), int(p["message_size"])
        except (KeyError, TypeError, ValueError):
            return _Mapped(skip="collective: num_gpus or message_size missing")
        if n < 2:
            return _Mapped(skip="collective: fewer than 2 GPUs")
        if elements <= 0:
            return _Mapped(skip="collective: empty message")
        if op != "all_reduce" and elements % n:
            return _Mapped(skip=f"collective: {op} message not divisible by num_gpus")
        text = T.collective(op, elements, dtype, n)
        size = T.nbytes((elements,), dtype)
        return _Mapped(
            kind="collective", family=op, variant=str(p.get("kernel_source") or "NCCL"),
            dtype=dtype, group_id=f"{op}/{dtype}/g{n}/b{_lb(size) // 2}", stablehlo=text,
            program={"template": "collective", "op": op, "elements": elements, "dtype": dtype,
                     "num_devices": n, "bytes": size},
            bus_bytes=T.collective_bus_bytes(op, elements, dtype, n), peak_dtype=dtype)
    return mapper


_ATTN_KEY = ("batch_size", "isl", "num_heads", "num_key_value_heads", "head_dim",
             "beam_width", "attn_dtype", "kv_cache_dtype", "step", "window_size")
_AIC_TABLES: dict[str, _Mapper] = {
    "gemm_perf": _Mapper(_map_gemm, ("gemm_dtype", "m", "n", "k")),
    "context_attention_perf": _Mapper(_map_attention("context"), _ATTN_KEY),
    "generation_attention_perf": _Mapper(_map_attention("generation"), _ATTN_KEY),
    "nccl_perf": _Mapper(_map_collective("nccl_dtype"),
                         ("op_name", "nccl_dtype", "num_gpus", "message_size", "kernel_source")),
    "custom_allreduce_perf": _Mapper(
        _map_collective("allreduce_dtype", "all_reduce"),
        ("allreduce_dtype", "num_gpus", "message_size", "kernel_source")),
}
_AIC_UNMAPPED = {
    "wideep_deepep_ll_perf": "DeepEP MoE dispatch/combine (data-dependent token routing): "
                             "no StableHLO collective equivalent",
    "wideep_deepep_normal_perf": "DeepEP MoE dispatch/combine (data-dependent token routing): "
                                 "no StableHLO collective equivalent",
}


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


def _aic_peaks(hw: Any, yaml: Mapping[str, float], label: str) -> _Peaks | None:
    yaml_matmul = {cls: yaml[key] for cls, key in (
        ("bf16", "bfloat16_tc_flops"), ("f16", "bfloat16_tc_flops"), ("f8", "fp8_tc_flops"),
        ("i8", "int8_tc_flops"), ("f4", "fp4_tc_flops")) if key in yaml}
    if hw is not None:
        return _Peaks.of_catalog(hw, yaml_matmul)
    if not yaml_matmul and "mem_bw" not in yaml:
        return None
    return _Peaks(None, yaml_matmul, yaml.get("mem_bw"), yaml.get("intra_node_bw"), None,
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


def _first_device(path: Path, column: str = "device") -> str | None:
    """The device named in the first row of a file, or None without that column."""
    try:
        schema = pq.read_schema(path)
        if column not in schema.names:
            return None
        values = pq.read_table(path, columns=[column]).column(0)
    except Exception as exc:  # noqa: BLE001
        raise DatasetError(f"{path}: unreadable Parquet file ({exc})") from None
    return values[0].as_py() if len(values) else None


# -- tasks: one per dataset, run in this process or in worker processes -----------------------
@dataclass
class _Task:
    """Everything one dataset's import needs (picklable, for worker processes)."""

    project: str
    hardware: str
    device: str
    in_catalog: bool
    peaks: _Peaks | None
    files: list[tuple[str, str, str]]      # (path relative to the import root, path, table/op)
    rows: int                               # source rows in `files`


_worker_queue: Any = None


def _init_worker(queue: Any) -> None:
    global _worker_queue
    _worker_queue = queue
    _exit_with_parent()


def _exit_with_parent(poll_s: float = 0.5) -> None:
    """End this worker when the importer that started it is gone (killed: SIGKILL or
    SIGTERM do not reach the pool): an orphan would keep the dataset's lock and make
    the re-run fail. What it stored is kept; the re-run imports the rest."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="stablecost-parent-watch", daemon=True).start()


def _run_in_worker(task: _Task, out_root: str) -> tuple[DatasetSummary, int, int]:
    return _run_task(task, out_root, lambda n, label: _worker_queue.put((n, label)))


def _mapper_for(project: str, name: str) -> _Mapper | str:
    """The mapper of a table (aiconfigurator) or op folder (NeuSight), or a skip reason."""
    if project == "aiconfigurator":
        if name in _AIC_TABLES:
            return _AIC_TABLES[name]
        return f"{name}: {_AIC_UNMAPPED.get(name, 'no importer for this table')}"
    if name in _NEUSIGHT_OPS:
        return _neusight_mapper(name)
    return f"{name}: no NeuSight mapping for this op"


def _run_task(task: _Task, out_root: str,
              report: Callable[[int, str], None]) -> tuple[DatasetSummary, int, int]:
    """Import one dataset's files; returns (its summary, files read, rows read)."""
    sink = _Sink(Path(out_root), task.project, task.hardware, task.device, task.in_catalog,
                 report)
    device_column, latency = (("device", "latency") if task.project == "aiconfigurator"
                              else ("Device", "Latency"))

    def same_device(p: dict[str, Any]) -> str | None:
        d = p.get(device_column)
        if d is not None and d != task.device:
            return f"device {d!r} differs from the dataset's GPU {task.device!r}"
        return None

    files = rows = 0
    try:
        for rel, path, name in task.files:
            mapper = _mapper_for(task.project, name)
            if isinstance(mapper, str):
                n = _num_rows(Path(path))
                sink.summary.skipped[mapper] += n
                sink.tick(n, rel, force=True)
                files, rows = files + 1, rows + n
                continue
            f, n = _import_file(sink, rel=rel, path=Path(path), latency_col=latency,
                                mapper=mapper, peaks=task.peaks, row_filter=same_device)
            files, rows = files + f, rows + n
    finally:
        sink.close()
    return sink.summary, files, rows


def _default_jobs(tasks: int) -> int:
    return max(1, min(os.cpu_count() or 1, tasks, 8))


def _run_tasks(tasks: list[_Task], summary: ImportSummary, *, progress: ProgressFn | None,
               jobs: int | None, done: int, total: int) -> None:
    """Run the tasks (largest first), merging their results into `summary`."""
    state = {"done": done}

    def report(n: int, label: str) -> None:
        state["done"] += n
        if progress is not None:
            progress(state["done"], total, label)

    def merge(result: tuple[DatasetSummary, int, int]) -> None:
        ds, files, rows = result
        summary.datasets[str(ds.path)] = ds
        summary.files_read += files
        summary.rows_read += rows

    tasks = sorted(tasks, key=lambda t: -t.rows)
    jobs = _default_jobs(len(tasks)) if jobs is None else max(1, min(int(jobs), len(tasks) or 1))
    out_root = str(summary.out_root)
    if jobs <= 1:
        for task in tasks:
            merge(_run_task(task, out_root, report))
        return
    import multiprocessing
    import queue as queue_mod
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

    ctx = multiprocessing.get_context("spawn")   # fork is unsafe after pyarrow's threads start
    queue = ctx.Queue()

    def drain() -> None:
        while True:
            try:
                n, label = queue.get_nowait()
            except queue_mod.Empty:
                return
            report(n, label)

    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker,
                             initargs=(queue,)) as pool:
        futures = [pool.submit(_run_in_worker, task, out_root) for task in tasks]
        pending = set(futures)
        try:
            while pending:
                finished, pending = wait(pending, timeout=0.25, return_when=FIRST_EXCEPTION)
                drain()
                if any(f.exception() is not None for f in finished):
                    for f in pending:
                        f.cancel()
                    break
        except BaseException:
            for f in pending:
                f.cancel()
            raise
        results = [f.result() for f in futures if not f.cancelled()]   # raises a worker's error
    drain()
    for result in results:
        merge(result)


def _file_rows(files: list[tuple[str, str, str]]) -> int:
    return sum(_num_rows(Path(path)) for _, path, _ in files)


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
    tasks: dict[tuple[str, str], _Task] = {}
    orphans: list[tuple[str, Path, str]] = []
    for system in systems:
        files = _aic_files(system, summary)
        # paths from the system folder's parent: the same ids for upstream's data/ layout
        entries = [(f.relative_to(system.parent).as_posix(), str(f), table)
                   for f, table in files]
        devices = Counter(d for f, _ in files if (d := _first_device(f)))
        if not devices:
            if entries:
                summary.notes.append(f"{system.name}: no file names its GPU (no device "
                                     "column); its rows are skipped")
                orphans += [(rel, Path(p), system.name) for rel, p, _ in entries]
            continue
        device = devices.most_common(1)[0][0]
        hardware, in_catalog, hw = _resolve(device)
        if not in_catalog:
            summary.notes.append(f"{system.name}: device {device!r} is not in the hardware "
                                 f"catalog; imported as {hardware!r}")
        task = tasks.get((hardware, device))
        if task is None:
            task = tasks[(hardware, device)] = _Task(
                "aiconfigurator", hardware, device, in_catalog,
                _aic_peaks(hw, _system_yaml(system), system.name), [], 0)
        task.files += entries
    for task in tasks.values():
        task.rows = _file_rows(task.files)
    orphan_rows = [(rel, _num_rows(p), name) for rel, p, name in orphans]
    total = sum(t.rows for t in tasks.values()) + sum(n for _, n, _ in orphan_rows)
    done = 0
    for rel, n, name in orphan_rows:
        summary.skipped_rows[f"{name}: GPU unknown (no device column in any file)"] += n
        summary.files_read += 1
        summary.rows_read += n
        done += n
    if progress is not None and done:
        progress(done, total, "files without a GPU")
    _run_tasks(list(tasks.values()), summary, progress=progress, jobs=jobs, done=done,
               total=total)
    summary.elapsed_s = time.perf_counter() - started
    return summary


# -- NeuSight -----------------------------------------------------------------------------------
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


def _map_neusight(op: str) -> Callable[[dict[str, Any]], _Mapped]:
    def mapper(p: dict[str, Any]) -> _Mapped:
        if op in ("bmm", "linear"):
            v = _ints(p, "B", "M", "N", "K")
            if v is None or min(v) <= 0:
                return _Mapped(skip=f"{op}: B, M, N or K missing or zero")
            b, m, n, k = v
            build = T.bmm if op == "bmm" else T.linear
            text = build(b, m, n, k)
            flops = 2.0 * b * m * n * k
            w = T.nbytes((b, k, n) if op == "bmm" else (n, k), "f32")
            moved = T.nbytes((b, m, k), "f32") + w + T.nbytes((b, m, n), "f32")
            group = (f"dot_general/{op}/f32/b{_lb(b)}/m{_lb(m)}/n{_lb(n)}/k{_lb(k)}"
                     if op == "bmm" else f"dot_general/{op}/f32/m{_lb(m)}/n{_lb(n)}/k{_lb(k)}")
            return _Mapped(family="dot_general", variant=op, dtype="f32", group_id=group,
                           stablehlo=text, program={"template": op, "batch": b, "m": m, "n": n,
                                                    "k": k, "dtype": "f32"},
                           work=T.Work(flops, moved), peak_dtype="f32", precision="HIGHEST")
        if op == "conv":
            v = _ints(p, "B", "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size",
                      "Stride", "Padding")
            if v is None or min(v[:6]) <= 0 or v[6] < 0:
                return _Mapped(skip="conv: a shape column is missing or not positive")
            b, ci, co, ks, size, stride, pad = v
            o = T.conv2d_out(size, ks, stride, pad)
            if o <= 0:
                return _Mapped(skip="conv: empty output (kernel larger than padded input)")
            text = T.conv2d(b, ci, co, ks, size, stride, pad)
            flops = T.conv2d_flops(b, ci, co, ks, size, stride, pad)
            moved = (T.nbytes((b, ci, size, size), "f32") + T.nbytes((co, ci, ks, ks), "f32")
                     + T.nbytes((b, co, o, o), "f32"))
            kernels = str(p.get("Kernels") or p.get("Kernel Name") or "").lower()
            note = ("a Winograd/FFT kernel does fewer multiplies than the direct convolution "
                    "counted here" if "winograd" in kernels or "fft" in kernels else None)
            return _Mapped(family="convolution", variant="conv2d_nchw", dtype="f32", note=note,
                           group_id=f"convolution/conv2d_nchw/f32/k{ks}/s{stride}/ci{_lb(ci)}/"
                                    f"co{_lb(co)}/hw{_lb(size)}",
                           stablehlo=text,
                           program={"template": "conv2d", "batch": b, "c_in": ci, "c_out": co,
                                    "kernel": ks, "size": size, "stride": stride,
                                    "padding": pad, "dtype": "f32"},
                           work=T.Work(flops, moved), peak_dtype="f32", precision="HIGHEST")
        v = _ints(p, "B", "H")
        if v is None or min(v) <= 0:
            return _Mapped(skip=f"{op}: B or H missing or zero")
        rows, cols = v
        text = T.elementwise(op, rows, cols)
        work = T.elementwise_work(op, rows, cols)
        if op in ("softmax", "ln"):
            family = "softmax" if op == "softmax" else "layer_norm"
            group = f"{family}/{op}/f32/r{_lb(rows)}/c{_lb(cols)}"
        else:
            family = "elementwise"
            group = f"elementwise/{op}/f32/n{_lb(rows * cols)}"
        return _Mapped(family=family, variant=op, dtype="f32", group_id=group, stablehlo=text,
                       program={"template": "elementwise", "op": op, "rows": rows,
                                "cols": cols, "dtype": "f32"},
                       work=T.Work(0.0, work.bytes), peak_dtype="f32")
    return mapper


_NEUSIGHT_KEYS = {
    "bmm": ("B", "M", "N", "K"), "linear": ("B", "M", "N", "K"),
    "conv": ("B", "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size", "Stride",
             "Padding", "Kernels", "Kernel Name"),
}


def _neusight_mapper(op: str) -> _Mapper:
    return _Mapper(_map_neusight(op), _NEUSIGHT_KEYS.get(op, ("B", "H")))


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


def _neusight_peaks(hw: Any, config: Mapping[str, Any] | None, device: str) -> _Peaks | None:
    if hw is not None:
        return _Peaks.of_catalog(hw, {})
    if not config:
        return None
    flops = config.get("SingleFLOPsMM") or config.get("SingleFLOPs")   # GFLOP/s
    bw = config.get("Mem_Bw")                                          # GB/s
    l2 = config.get("L2Cache")                                         # MB
    return _Peaks(None, {"f32": float(flops) * 1e9} if flops else {},
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
    tasks: dict[str, _Task] = {}
    for op, f in files:
        device = _first_device(f, "Device") or f.stem.replace("_", " ")
        task = tasks.get(device)
        if task is None:
            hardware, in_catalog, hw = _resolve(device)
            peaks = _neusight_peaks(hw, configs.get(device), device)
            if not in_catalog:
                summary.notes.append(
                    f"{device!r} is not in the hardware catalog; imported as {hardware!r}"
                    + ("" if peaks else " without an outlier check (no peaks known)"))
            task = tasks[device] = _Task("neusight", hardware, device, in_catalog, peaks, [], 0)
        task.files.append((f"{op}/{f.name}", str(f), op))
    for task in tasks.values():
        task.rows = _file_rows(task.files)
    _run_tasks(list(tasks.values()), summary, progress=progress, jobs=jobs, done=0,
               total=sum(t.rows for t in tasks.values()))
    summary.elapsed_s = time.perf_counter() - started
    return summary


__all__ = ["COLLECTOR_VERSION", "DatasetSummary", "ImportSummary", "OUTLIER_FRACTION",
           "ProgressFn", "import_aiconfigurator", "import_neusight"]
