"""The measurement store: append-only Parquet shards, one dataset per hardware fingerprint.

Layout of a dataset directory::

    <dataset>/
      dataset.json          what measured it: fingerprint, schema version, hardware name
      manifest.json         SHA-256, size and rows of every shard; SHA-256 of dataset.json
                            and hardware.toml
      shards/part-*.parquet  immutable shards, each written to a temp file and renamed
      journal.jsonl          finished samples not yet in a shard (fsynced line by line,
                             each line with its own SHA-256)
      journal.damaged        journal lines that failed their checks, set aside verbatim
      .lock                  held by the one writer

A *root* is any directory holding datasets (``collect --out d`` writes ``d/<slug>/``);
every reader accepts either a dataset or a root.

Rows keep the StableHLO text of what was measured and never its features: features are
computed at load time, so a new featurizer never needs re-measuring.

`schema` holds the row schema and ids, `layout` the files of a dataset, `manifest` and
`journal` the checksummed formats, `integrity` what may be read and each command's
policy for what may not, `writer` the one writer (and its crash safety), `reader` the
readers, `validation` the checks.
"""

from ...hardware.fingerprint import fingerprint_id
from .integrity import DatasetScan, check_file, scan_dataset, update_manifest
from .journal import encode_line, scan_journal
from .layout import (
    DATASET_FILE,
    JOURNAL,
    JOURNAL_SET_ASIDE,
    MANIFEST,
    SHARD_DIR,
    Damage,
    DatasetInfo,
    dataset_dir,
    find_datasets,
    shard_paths,
    slug,
)
from .manifest import Manifest
from .reader import checked_shards, read_frame, read_table
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

__all__ = ["BULK_COMPRESSION_LEVEL", "COLUMNS", "DATASET_FILE", "JOURNAL", "JOURNAL_SET_ASIDE",
           "KINDS", "MANIFEST", "SCHEMA", "SCHEMA_VERSION", "SHARD_DIR", "Damage", "DatasetInfo",
           "DatasetScan", "DatasetWriter", "Manifest", "ValidationReport", "check_file",
           "checked_shards", "dataset_dir", "encode_line", "find_datasets", "fingerprint_id",
           "json_default", "normalize_row", "read_frame", "read_table", "sample_id",
           "scan_dataset", "scan_journal", "shard_paths", "slug", "update_manifest", "validate"]
