"""The row schema of every shard and journal line, the content ids (samples,
fingerprints) and the check that a row fits the schema.
"""

from __future__ import annotations

import hashlib
import json
import math
from datetime import datetime, timezone
from operator import itemgetter
from typing import Any, Callable, Mapping

import pyarrow as pa

from ...errors import DatasetError

SCHEMA_VERSION = 1
# profile: a program step timed under XLA's profiler, its kernels' times in kernel_times
KINDS = ("kernel", "program", "collective", "profile")

SCHEMA = pa.schema([
    ("sample_id", pa.string()),        # content hash of what was measured and how
    ("group_id", pa.string()),         # workload / shape family, for grouped splits
    ("kind", pa.string()),             # kernel | program | collective | profile
    ("family", pa.string()),           # op family (dot_general, convolution, ...) or model family
    ("variant", pa.string()),
    ("dtype", pa.string()),
    ("params", pa.string()),           # JSON: the generator parameters (rebuilds the sample)
    ("stablehlo", pa.large_string()),  # the program measured, StableHLO text
    ("median_s", pa.float64()),
    ("p10_s", pa.float64()),
    ("p90_s", pa.float64()),
    ("min_s", pa.float64()),
    ("mean_s", pa.float64()),
    ("cv", pa.float64()),              # std / mean of the repeats
    ("repeats", pa.int32()),
    ("warmup", pa.int32()),
    ("cache_flush", pa.string()),      # how caches were flushed between repeats ("none", ...)
    ("kernel_times", pa.string()),     # JSON per-kernel times inside a step, when profiled
    ("hardware", pa.string()),         # catalog name ("host-cpu", "H100-SXM", ...)
    ("device_name", pa.string()),
    ("fingerprint", pa.string()),
    ("backend", pa.string()),
    ("jax_version", pa.string()),
    ("jaxlib_version", pa.string()),
    ("collector_version", pa.string()),
    ("timestamp", pa.timestamp("us", tz="UTC")),
    ("source", pa.string()),           # "collected" or "imported:<project>/<path>"
    ("outlier", pa.bool_()),
    ("outlier_reason", pa.string()),
])
COLUMNS = tuple(SCHEMA.names)
_NULLABLE = {"kernel_times", "outlier_reason", "jax_version", "jaxlib_version"}
SHARD_META_KEY = b"stablecost"      # shard metadata: fingerprint id, schema version


def sample_id(*parts: Any) -> str:
    """Content id of a sample: the same measurement spec always gets the same id."""
    blob = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def normalize_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Check one row against the schema (every column present or optional, each value
    of its column's type); fill optional columns; raise a one-line `DatasetError`."""
    missing = [c for c in COLUMNS if c not in row and c not in _NULLABLE
               and c not in ("outlier", "timestamp", "cache_flush", "warmup")]
    if missing:
        raise DatasetError(f"row {_name(row)}: missing columns {missing}")
    out = {c: row.get(c) for c in COLUMNS}
    if out["outlier"] is None:
        out["outlier"] = False
    if out["cache_flush"] is None:
        out["cache_flush"] = "none"
    if out["warmup"] is None:
        out["warmup"] = 0
    sid = out["sample_id"]
    if not isinstance(sid, str) or not sid:
        raise DatasetError(f"row {_name(row)}: sample_id={sid!r} is not a non-empty string")
    plain = all(map(frozenset.__contains__, _PLAIN_TYPES, map(type, _VALUES(out))))
    for column, check in _CHECKS if not plain else _INT_CHECKS:
        value = out[column]
        if value is not None and not check(value):
            raise DatasetError(f"row {sid}: {column}={_short(value)} is not "
                               f"{_WHAT[column]}")
    ts = out["timestamp"]
    if ts is None:
        out["timestamp"] = datetime.now(timezone.utc)
    elif isinstance(ts, str):
        try:
            out["timestamp"] = datetime.fromisoformat(ts)
        except ValueError:
            raise DatasetError(f"row {sid}: timestamp={_short(ts)} is not an ISO 8601 "
                               "time") from None
    if out["kind"] not in KINDS:
        raise DatasetError(f"row {sid}: kind {out['kind']!r}, allowed: {KINDS}")
    for key in ("median_s", "p10_s", "p90_s", "min_s", "mean_s"):
        value = out[key]
        if value is None or not math.isfinite(value) or value <= 0:
            raise DatasetError(f"row {sid}: {key}={value!r} is not a positive time")
    return out


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_float(value: Any) -> bool:   # numpy floats subclass float; bools are not numbers
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int32(value: Any) -> bool:
    if isinstance(value, bool) or not hasattr(value, "__index__"):   # int, numpy integers
        return False
    return -2**31 <= int(value) < 2**31


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", "") == "b"


def _is_time(value: Any) -> bool:
    return isinstance(value, (str, datetime))


_BY_TYPE: dict[pa.DataType, tuple[Callable[[Any], bool], str, tuple[type, ...]]] = {
    # Arrow type: the check, what a value must be, the Python types that pass it plainly
    pa.string(): (_is_str, "a string", (str,)),
    pa.large_string(): (_is_str, "a string", (str,)),
    pa.float64(): (_is_float, "a number", (float, int)),
    pa.int32(): (_is_int32, "a 32-bit integer", (int,)),
    pa.bool_(): (_is_bool, "true or false", (bool,)),
    pa.timestamp("us", tz="UTC"): (_is_time, "a time", (str, datetime)),
}
_CHECKS = tuple((f.name, _BY_TYPE[f.type][0]) for f in SCHEMA if f.name != "sample_id")
_INT_CHECKS = tuple((name, check) for name, check in _CHECKS if check is _is_int32)  # range
_WHAT = {f.name: _BY_TYPE[f.type][1] for f in SCHEMA}


# the fast path (an import normalizes millions of rows): every value's type is one that
# passes its column's check plainly, compared in one pass
_VALUES = itemgetter(*COLUMNS)
_PLAIN_TYPES = tuple(frozenset((*_BY_TYPE[f.type][2], type(None))) for f in SCHEMA)


def _name(row: Mapping[str, Any]) -> str:
    sid = row.get("sample_id", "?")
    return sid if isinstance(sid, str) and sid else _short(sid)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def json_default(value: Any) -> Any:
    """`json.dumps` default for journal lines: datetimes as ISO 8601 text."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")
