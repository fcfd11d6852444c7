"""The row schema of every shard and journal line, the content ids (samples,
fingerprints) and the check that a row fits the schema.
"""

from __future__ import annotations

import hashlib
import json
import math
from datetime import datetime, timezone
from typing import Any, Mapping

import pyarrow as pa

from ...errors import DatasetError

SCHEMA_VERSION = 1
KINDS = ("kernel", "program", "collective")

SCHEMA = pa.schema([
    ("sample_id", pa.string()),        # content hash of what was measured and how
    ("group_id", pa.string()),         # workload / shape family, for grouped splits
    ("kind", pa.string()),             # kernel | program | collective
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
    """Check one row against the schema; fill optional columns; raise on a bad row."""
    missing = [c for c in COLUMNS if c not in row and c not in _NULLABLE
               and c not in ("outlier", "timestamp", "cache_flush", "warmup")]
    if missing:
        raise DatasetError(f"row {row.get('sample_id', '?')}: missing columns {missing}")
    out = {c: row.get(c) for c in COLUMNS}
    out.setdefault("outlier", False)
    if out["outlier"] is None:
        out["outlier"] = False
    if out["cache_flush"] is None:
        out["cache_flush"] = "none"
    if out["warmup"] is None:
        out["warmup"] = 0
    ts = out["timestamp"]
    if ts is None:
        out["timestamp"] = datetime.now(timezone.utc)
    elif isinstance(ts, str):
        out["timestamp"] = datetime.fromisoformat(ts)
    if out["kind"] not in KINDS:
        raise DatasetError(f"row {out['sample_id']}: kind {out['kind']!r}, allowed: {KINDS}")
    for key in ("median_s", "p10_s", "p90_s", "min_s", "mean_s"):
        value = out[key]
        if value is None or not math.isfinite(value) or value <= 0:
            raise DatasetError(f"row {out['sample_id']}: {key}={value!r} is not a positive time")
    return out


def json_default(value: Any) -> Any:
    """`json.dumps` default for journal lines: datetimes as ISO 8601 text."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")
