"""Which parts of a dataset may be read: shards against `manifest.json` and the embedded
metadata, the checked files, the journal's lines; and what each command does with the
rest.

`scan_dataset` sorts a dataset into what may be read (`DatasetScan.shards`, the
journal's good rows), what is damaged, foreign or malformed (`damage`, each item named:
a shard whose SHA-256 or size differs from the manifest, a shard the manifest does not
list, a listed shard that is gone, a shard whose embedded fingerprint, hardware or
schema is not the dataset's, a journal line by number, `dataset.json` or
`hardware.toml` changed since they were recorded) and what could not be checked
(`notes`: no manifest yet, journal lines without a checksum, a torn last line).

Policy, per command (every damaged item is named, none is dropped silently, none is a
traceback):

- `dataset validate`: every damaged item is a problem (exit 1, "BAD"); notes are printed
  under "ok".
- `dataset info`: damaged items are left out of the counts, each named in a warning on
  stderr (and under "skipped" with --json); exit 0, as it describes what is readable.
- `dataset split`, training, evaluation, `dataset noise`, `hardware adapt` (everything
  reading through `read_table` with the default ``damaged="refuse"``): the first
  damaged item is a one-line error (exit 2) that says how many more there are.
- `collect` and `import` resuming a dataset (`DatasetWriter`): a damaged journal line is
  set aside verbatim in `journal.damaged` and named in a warning, its sample is measured
  again; a shard the manifest does not list is left alone (not counted as measured) with
  a warning; a listed shard that is damaged or gone, or a damaged manifest, is a
  one-line error (exit 2): the writer rewrites nothing it cannot verify.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator, TextIO

import pyarrow.parquet as pq

from ...errors import DatasetError
from .journal import JournalScan, scan_journal
from .layout import (
    CHECKED_FILES,
    JOURNAL,
    JOURNAL_SET_ASIDE,
    LOCK,
    MANIFEST,
    SHARD_DIR,
    Damage,
    DatasetInfo,
    one_line,
    shard_paths,
)
from .manifest import Manifest, ShardEntry, file_sha256
from .schema import SCHEMA, SCHEMA_VERSION, SHARD_META_KEY

WRITE_MANIFEST_HINT = "`stablecost dataset validate --write-manifest {}` records them"


@dataclass(frozen=True)
class DatasetScan:
    dataset: Path
    info: DatasetInfo
    manifest: Manifest | None
    shards: tuple[Path, ...]           # may be read: verified, or (no manifest) ours by metadata
    journal: JournalScan
    damage: tuple[Damage, ...]         # journal lines included
    notes: tuple[str, ...]

    def refuse(self) -> None:
        """A one-line `DatasetError` naming the first damaged item, if there is one."""
        if self.damage:
            more = len(self.damage) - 1
            also = f"; and {more} more damaged item{'s' if more > 1 else ''}" if more else ""
            raise DatasetError(f"{self.damage[0]}{also} (`stablecost dataset validate "
                               f"{self.dataset}` lists every problem)")


def scan_dataset(dataset: Path, info: DatasetInfo | None = None) -> DatasetScan:
    """Sort the files of `dataset` (hashing every listed shard). The journal is read
    first, the shards listed next and the manifest last: a writer folding its journal
    meanwhile lists a shard before renaming it into place and empties the journal after,
    so a row it moves is seen twice (readers keep one) but never missed or unlisted."""
    info = info or DatasetInfo.read(dataset)
    journal = scan_journal(dataset / JOURNAL)
    on_disk = shard_paths(dataset)
    damage: list[Damage] = []
    notes: list[str] = []
    manifest_damaged = False
    try:
        manifest = Manifest.read(dataset)
    except DatasetError as exc:
        where = dataset / MANIFEST
        damage.append(Damage(where, str(exc).removeprefix(f"{where}: ")))
        manifest, manifest_damaged = None, True
    shards: list[Path] = []
    if manifest is None:
        if on_disk and not manifest_damaged:
            notes.append(f"{dataset / MANIFEST}: none, so the {len(on_disk)} shards' "
                         f"checksums are unchecked; {WRITE_MANIFEST_HINT.format(dataset)}")
        for shard in on_disk:
            problem = embedded_problem(shard, info)
            if problem:
                damage.append(Damage(shard, problem))
            else:
                shards.append(shard)
    else:
        damage += _file_damage(dataset, manifest)
        for name, entry in sorted(manifest.shards.items()):
            shard = dataset / SHARD_DIR / name
            if not shard.exists():
                if shard.with_name(f".{name}.tmp").exists():
                    notes.append(f"{shard}: a shard write was interrupted (or is under way); "
                                 "its rows are in the journal, the writer's next run "
                                 "finishes it")
                    continue
                if not shard.exists():      # not renamed into place just now
                    damage.append(Damage(shard, f"listed in {MANIFEST} ({entry.rows} rows) "
                                         "but missing"))
                    continue
            problem = shard_problem(shard, entry) or embedded_problem(shard, info)
            if problem:
                damage.append(Damage(shard, problem))
            else:
                shards.append(shard)
        for shard in on_disk:
            if shard.name not in manifest.shards:
                problem = embedded_problem(shard, info)
                why = f"{problem}; " if problem else "a shard of this dataset's kind, but "
                damage.append(Damage(shard, f"{why}not in {MANIFEST} (not written here by "
                                     "stablecost: copied in?)"))
    for stray in _strays(dataset):
        damage.append(Damage(stray, "not a shard name stablecost writes"))
    damage += journal.damaged
    if journal.unchecked:
        notes.append(f"{journal.path}: {journal.unchecked} lines without a checksum (written "
                     "before lines carried one), checked against the schema only")
    if journal.torn is not None:
        notes.append(str(journal.torn))
    aside = dataset / JOURNAL_SET_ASIDE
    if aside.exists():
        notes.append(f"{aside}: damaged journal lines the writer set aside "
                     "(their samples are measured again); delete it once looked at")
    return DatasetScan(dataset, info, manifest, tuple(shards), journal, tuple(damage),
                       tuple(notes))


def shard_problem(shard: Path, entry: ShardEntry) -> str | None:
    """Why `shard` is not the file its manifest entry describes, or None."""
    try:
        digest, size = file_sha256(shard)
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if size != entry.size_bytes:
        return (f"damaged: {size} bytes, {MANIFEST} says {entry.size_bytes} (truncated or "
                "changed since it was written)")
    if digest != entry.sha256:
        return f"damaged: its SHA-256 is not the one in {MANIFEST} (changed since it was written)"
    return None


def embedded_problem(shard: Path, info: DatasetInfo) -> str | None:
    """Why the shard's own schema and metadata say it belongs elsewhere, or None."""
    try:
        schema = pq.read_schema(shard)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
        return f"unreadable (truncated or not Parquet: {one_line(str(exc))[:120]})"
    if not schema.remove_metadata().equals(SCHEMA):
        return f"foreign shard (its columns are not stablecost schema v{SCHEMA_VERSION})"
    raw = (schema.metadata or {}).get(SHARD_META_KEY)
    try:
        meta = json.loads(raw) if raw else {}
    except ValueError:
        meta = None
    if not isinstance(meta, dict):
        return "damaged shard metadata (not the JSON object stablecost writes)"
    if meta.get("fingerprint_id") != info.fingerprint_id:
        return (f"foreign shard (fingerprint {meta.get('fingerprint_id')!r}, dataset is "
                f"{info.fingerprint_id})")
    if meta.get("schema_version") != SCHEMA_VERSION:
        return (f"foreign shard (schema version {meta.get('schema_version')!r}, dataset is "
                f"{SCHEMA_VERSION})")
    if "hardware" in meta and meta["hardware"] != info.hardware:   # older shards lack it
        return f"foreign shard (hardware {meta['hardware']!r}, dataset is {info.hardware!r})"
    return None


def check_file(dataset: Path, name: str, manifest: Manifest | None = None) -> str | None:
    """Why the checked file `name` differs from its manifest entry, or None (also when
    the dataset has no manifest, or the file no entry and does not exist)."""
    manifest = manifest if manifest is not None else Manifest.read(dataset)
    path = dataset / name
    if manifest is None:
        return None
    if name not in manifest.files:
        return f"not in {MANIFEST}" if path.exists() else None
    try:
        digest, _ = file_sha256(path)
    except FileNotFoundError:
        return f"listed in {MANIFEST} but missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if digest != manifest.files[name]:
        return f"changed since it was recorded (its SHA-256 is not the one in {MANIFEST})"
    return None


def _file_damage(dataset: Path, manifest: Manifest) -> list[Damage]:
    out = []
    for name in sorted(set(CHECKED_FILES) | set(manifest.files)):
        problem = check_file(dataset, name, manifest)
        if problem:
            out.append(Damage(dataset / name, problem))
    return out


def _strays(dataset: Path) -> list[Path]:
    folder = dataset / SHARD_DIR
    if not folder.is_dir():
        return []
    known = set(shard_paths(dataset))
    return sorted(p for p in folder.iterdir()
                  if p.suffix == ".parquet" and p not in known and p.is_file())


@dataclass(frozen=True)
class ManifestUpdate:
    manifest: Manifest
    added: tuple[str, ...] = ()        # shards and files recorded
    forgotten: tuple[str, ...] = ()    # listed, but gone from disk
    refused: tuple[str, ...] = ()      # unlisted shards that did not pass, with why


def update_manifest(dataset: Path, info: DatasetInfo | None = None, *,
                    locked: bool = False) -> ManifestUpdate:
    """Make `manifest.json` describe the good files on disk (`validate --write-manifest`,
    and the writer on a dataset written before manifests): record each unlisted shard
    that reads back whole with this dataset's schema and fingerprint and each unlisted
    checked file; forget listed ones that are gone. A listed file whose checksum does not
    match stays as it is (move the file away first). A damaged manifest is refused
    (delete it to record everything anew). Takes the dataset's writer lock unless the
    caller holds it (`locked`)."""
    info = info or DatasetInfo.read(dataset)
    if not locked:
        with dataset_lock(dataset):
            return update_manifest(dataset, info, locked=True)
    manifest = Manifest.read(dataset)
    original = manifest
    manifest = manifest or Manifest()
    added: list[str] = []
    forgotten: list[str] = []
    refused: list[str] = []
    for name in sorted(manifest.shards):
        if not (dataset / SHARD_DIR / name).exists():
            manifest = manifest.without_shard(name)
            forgotten.append(name)
    for shard in shard_paths(dataset):
        if shard.name in manifest.shards:
            continue
        problem = embedded_problem(shard, info)
        if problem is None:
            try:
                table = pq.read_table(shard)     # every page decodes
                table.validate(full=True)        # and its text is UTF-8
                rows = table.num_rows
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
                problem = f"unreadable (a damaged page: {one_line(str(exc))[:120]})"
        if problem is not None:
            refused.append(f"{shard}: {problem}; not recorded in {MANIFEST}")
            continue
        digest, size = file_sha256(shard)
        manifest = manifest.with_shard(shard.name, ShardEntry(digest, rows, size))
        added.append(shard.name)
    for name in CHECKED_FILES:
        path = dataset / name
        if name in manifest.files and not path.exists():
            manifest = replace(manifest, files={k: v for k, v in manifest.files.items()
                                                if k != name})
            forgotten.append(name)
        elif name not in manifest.files and path.is_file():
            manifest = manifest.with_file(name, file_sha256(path)[0])
            added.append(name)
    if manifest != original:
        manifest.write(dataset)
    return ManifestUpdate(manifest, tuple(added), tuple(forgotten), tuple(refused))


@contextlib.contextmanager
def dataset_lock(dataset: Path) -> Iterator[TextIO]:
    """The one-writer lock of `dataset` (`.lock`), or a one-line error if it is held."""
    handle = open(dataset / LOCK, "a+")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DatasetError(f"{dataset} is being written by another stablecost "
                               "process") from None
        yield handle
    finally:
        handle.close()      # closing releases the lock
