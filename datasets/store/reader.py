"""Reading every row of the datasets at a path, journal included, from verified files
only (`integrity` says what is verified and what each command does with the rest).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Literal

import pyarrow as pa
import pyarrow.parquet as pq

from ...errors import DatasetError, InvalidArgumentError
from .integrity import scan_dataset
from .layout import Damage, DatasetInfo, find_datasets
from .schema import SCHEMA

Damaged = Literal["refuse", "skip"]


def read_table(path: str | os.PathLike, columns: list[str] | None = None, *,
               damaged: Damaged = "refuse",
               warn: Callable[[str], None] | None = None) -> pa.Table:
    """Every row of every dataset at `path` (a dataset or a root), journal included.

    A damaged, foreign or malformed item (`integrity.scan_dataset`) is a one-line
    `DatasetError` (``damaged="refuse"``) or left out and named through `warn`
    (``damaged="skip"``); what could not be checked (no manifest yet, journal lines
    without a checksum) is named through `warn` either way."""
    if damaged not in ("refuse", "skip"):
        raise InvalidArgumentError(f"damaged={damaged!r}; allowed: refuse, skip")
    say = warn if warn is not None else _quiet
    wanted = columns
    if columns is not None and "sample_id" not in columns:
        columns = [*columns, "sample_id"]   # to drop rows stored twice
    tables = []
    for dataset in find_datasets(path):
        scan = scan_dataset(dataset, DatasetInfo.read(dataset))
        if damaged == "refuse":
            scan.refuse()
        for item in scan.damage:
            say(f"skipped {item}")
        for note in scan.notes:
            say(note)
        for shard in scan.shards:
            try:
                table = pq.read_table(shard, columns=columns, schema=SCHEMA)
                table.validate(full=True)   # text is UTF-8 (a shard without a manifest)
                tables.append(table)
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
                item = Damage(shard, f"unreadable shard ({str(exc)[:160]})")
                if damaged == "refuse":
                    raise DatasetError(f"{item} (`stablecost dataset validate {dataset}` "
                                       "lists every problem)") from None
                say(f"skipped {item}")
        pending = [line.row for line in scan.journal.lines]
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


def read_frame(path: str | os.PathLike, columns: list[str] | None = None, *,
               damaged: Damaged = "refuse", warn: Callable[[str], None] | None = None):
    """`read_table` as a pandas DataFrame."""
    return read_table(path, columns, damaged=damaged, warn=warn).to_pandas()


def checked_shards(dataset: Path, warn: Callable[[str], None] | None = None) -> list[Path]:
    """The shards of `dataset` a reader of its own may open (one that pushes filters into
    Parquet); any damaged item of the dataset is a one-line `DatasetError`."""
    scan = scan_dataset(dataset)
    scan.refuse()
    for note in scan.notes:
        (warn or _quiet)(note)
    return list(scan.shards)


def _quiet(message: str) -> None:
    pass
