"""Reading source Parquet tables: row counts, the device a file names, and
columns as JSON-ready Python lists.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ...errors import DatasetError

# measurements, not parameters: never part of a row's parameters or its identity
MEASURED_COLUMNS = {"latency", "Latency", "power", "power_limit", "compute_bound"}


def _json_value(v: Any) -> Any:
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if v.is_integer():
            return int(v)
    return v


def _unreadable(path: Path, exc: Exception) -> DatasetError:
    return DatasetError(f"{path}: unreadable Parquet file ({exc})")


def read_parquet(path: Path) -> Any:
    """The whole table; `DatasetError` when the file is not readable Parquet."""
    try:
        return pq.read_table(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
        raise _unreadable(path, exc) from None


def num_rows(path: Path) -> int:
    """Rows in the file, from its footer."""
    try:
        return pq.read_metadata(path).num_rows
    except Exception as exc:  # noqa: BLE001
        raise _unreadable(path, exc) from None


def normalize_columns(table: Any) -> dict[str, list[Any]]:
    """Columns as Python lists; floats that are whole numbers become ints, NaN None
    (so parameters print as `128`, not `128.0`, and JSON stays valid)."""
    import pyarrow as pa

    columns = {}
    for name in table.column_names:
        column = table.column(name)
        values = column.to_pylist()
        if pa.types.is_floating(column.type) and name not in MEASURED_COLUMNS:
            values = [_json_value(v) for v in values]
        columns[name] = values
    return columns


def first_device(path: Path, column: str = "device") -> str | None:
    """The device named in the first row of a file, or None without that column."""
    try:
        schema = pq.read_schema(path)
        if column not in schema.names:
            return None
        values = pq.read_table(path, columns=[column]).column(0)
    except Exception as exc:  # noqa: BLE001
        raise _unreadable(path, exc) from None
    return values[0].as_py() if len(values) else None
