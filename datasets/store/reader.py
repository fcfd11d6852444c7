"""Reading every row of the datasets at a path, journal included.
"""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq

from ...errors import DatasetError
from .layout import JOURNAL, DatasetInfo, find_datasets, read_journal, shard_paths
from .schema import SCHEMA, normalize_row


def read_table(path: str | os.PathLike, columns: list[str] | None = None) -> pa.Table:
    """Every row of every dataset at `path` (a dataset or a root), journal included."""
    wanted = columns
    if columns is not None and "sample_id" not in columns:
        columns = [*columns, "sample_id"]   # to drop rows stored twice
    tables = []
    for dataset in find_datasets(path):
        DatasetInfo.read(dataset)
        for shard in shard_paths(dataset):
            try:
                tables.append(pq.read_table(shard, columns=columns, schema=SCHEMA))
            except Exception as exc:  # noqa: BLE001
                raise DatasetError(f"{shard}: unreadable shard ({exc})") from None
        pending = [normalize_row(r) for r in read_journal(dataset / JOURNAL)]
        if pending:
            table = pa.Table.from_pylist(pending, schema=SCHEMA)
            tables.append(table.select(columns) if columns else table)
    if not tables:
        schema = SCHEMA if wanted is None else pa.schema([SCHEMA.field(c) for c in wanted])
        return schema.empty_table()
    table = pa.concat_tables([t.replace_schema_metadata(None) for t in tables])
    if "sample_id" in table.column_names:  # journal rows that also reached a shard
        ids = table.column("sample_id").to_pylist()
        seen: set[str] = set()
        keep: list[bool] = []
        for i in ids:   # the first occurrence of each id
            keep.append(i not in seen)
            seen.add(i)
        if not all(keep):
            table = table.filter(pa.array(keep))
    return table if wanted is None or wanted == columns else table.select(wanted)


def read_frame(path: str | os.PathLike, columns: list[str] | None = None):
    """`read_table` as a pandas DataFrame."""
    return read_table(path, columns).to_pandas()
