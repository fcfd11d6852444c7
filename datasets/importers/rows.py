"""From a source file's rows to store rows: the mapped form of a parameter row,
merged repeats and their statistics, content ids, and `import_file`, which
maps, checks and sinks every row of one file.
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple

from .. import templates as T
from .checks import Peaks, check_link, check_work
from .parquet import MEASURED_COLUMNS, normalize_columns, read_parquet
from .sink import PROGRESS_EVERY, Sink

COLLECTOR_VERSION = "import-1"


@dataclass(slots=True)
class Mapped:
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


def lb(x: int | float) -> int:
    """floor(log2 x), -1 for x <= 0: the size buckets of group ids."""
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


def _group_rows(columns: dict[str, list[Any]],
                latency_col: str) -> tuple[list[str], dict[tuple, list[float]]]:
    """Parameter columns and {parameter tuple: [latency ms, ...]} in first-seen order."""
    names = [c for c in columns if c not in MEASURED_COLUMNS]
    lat = columns[latency_col]
    groups: dict[tuple, list[float]] = {}
    for key, v in zip(zip(*(columns[c] for c in names)), lat):
        found = groups.get(key)
        if found is None:
            groups[key] = [v]
        else:
            found.append(v)
    return names, groups


class Mapper(NamedTuple):
    """Maps a source parameter row; rows equal on `key_columns` map alike (cached)."""

    fn: Callable[[dict[str, Any]], Mapped]
    key_columns: tuple[str, ...]


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


def import_file(sink: Sink, *, rel: str, path: Path, latency_col: str, mapper: Mapper,
                peaks: Peaks | None,
                row_filter: Callable[[dict[str, Any]], str | None] | None = None,
                 ) -> tuple[int, int]:
    """Map every row of one source file into the sink; returns (files, rows) read."""
    table = read_parquet(path)
    n_rows = table.num_rows
    ds = sink.summary
    skipped = ds.skipped
    if latency_col not in table.column_names:
        skipped[f"{Path(rel).name}: no {latency_col!r} column"] += n_rows
        sink.tick(n_rows, rel, force=True)
        return 1, n_rows
    columns = normalize_columns(table)
    del table
    names, groups = _group_rows(columns, latency_col)
    del columns
    key_index = [names.index(c) if c in names else None for c in mapper.key_columns]
    source = f"imported:{sink.project}/{rel}"
    project, now = sink.project, sink.now
    hardware, device_name = ds.hardware, ds.device_name
    cache: dict[tuple, Mapped] = {}
    encode = json.JSONEncoder(separators=(",", ":")).encode
    row_json = _row_encoder(names)
    check, check_bus, stats_of, add = check_work, check_link, _stats, sink.add
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
            reason, category = check_bus(mapped.bus_bytes, stats["median_s"], peaks)
        else:
            assert mapped.work is not None   # every kernel mapper sets the work it priced
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
