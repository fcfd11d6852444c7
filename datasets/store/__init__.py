"""The measurement store: append-only Parquet shards, one dataset per hardware fingerprint.

Layout of a dataset directory::

    <dataset>/
      dataset.json          what measured it: fingerprint, schema version, hardware name
      shards/part-*.parquet  immutable shards, each written to a temp file and renamed
      journal.jsonl          finished samples not yet in a shard (fsynced line by line)
      .lock                  held by the one writer

A *root* is any directory holding datasets (``collect --out d`` writes ``d/<slug>/``);
every reader accepts either a dataset or a root.

Rows keep the StableHLO text of what was measured and never its features: features are
computed at load time, so a new featurizer never needs re-measuring.

`schema` holds the row schema and ids, `layout` the files of a dataset, `writer` the
one writer (and its crash safety), `reader` the readers, `validation` the checks.
"""

from ...hardware.fingerprint import fingerprint_id
from .layout import (
    DATASET_FILE,
    JOURNAL,
    SHARD_DIR,
    DatasetInfo,
    dataset_dir,
    find_datasets,
    read_journal,
    shard_paths,
    slug,
)
from .reader import read_frame, read_table
from .schema import (
    COLUMNS,
    KINDS,
    SCHEMA,
    SCHEMA_VERSION,
    json_default,
    normalize_row,
    sample_id,
)
from .validation import ValidationReport, validate
from .writer import BULK_COMPRESSION_LEVEL, DatasetWriter

__all__ = ["BULK_COMPRESSION_LEVEL", "COLUMNS", "DATASET_FILE", "JOURNAL", "KINDS", "SCHEMA",
           "SCHEMA_VERSION", "SHARD_DIR", "DatasetInfo", "DatasetWriter", "ValidationReport",
           "dataset_dir", "find_datasets", "fingerprint_id", "json_default", "normalize_row",
           "read_frame", "read_journal", "read_table", "sample_id", "shard_paths", "slug",
           "validate"]
