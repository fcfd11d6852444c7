"""Stored data proves its integrity: every damaged, foreign or malformed item of a
dataset is named by `dataset validate`, refused by strict readers (split, training),
left out with a named warning by `dataset info`, set aside by a resumed writer; never
dropped silently, never a traceback.
"""

from __future__ import annotations

import json
import random
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from stablecost.datasets import store
from stablecost.errors import DatasetError
from stablecost.serve.cli import main

FP = {"backend": "cpu", "cpu_model": "test", "cpu_cores": 2}
OTHER_FP = {"backend": "gpu", "device_name": "elsewhere"}
TEXT = ("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.exponential %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}")


def _row(i: int, **over) -> dict:
    row = {
        "sample_id": f"s{i}", "group_id": f"g{i % 3}", "kind": "kernel",
        "family": "elementwise", "variant": "unary", "dtype": "f32",
        "params": json.dumps({"n": i}), "stablehlo": TEXT, "median_s": 1e-5 * (i + 1),
        "p10_s": 9e-6 * (i + 1), "p90_s": 2e-5 * (i + 1), "min_s": 8e-6, "mean_s": 1.2e-5,
        "cv": 0.1, "repeats": 10, "warmup": 2, "cache_flush": "none", "hardware": "host-cpu",
        "device_name": "test", "backend": "cpu", "jax_version": "0", "jaxlib_version": "0",
        "collector_version": "1", "timestamp": datetime(2026, 11, 1, tzinfo=timezone.utc),
        "source": "collected",
    }
    row.update(over)
    return row


def _dataset(root: Path, rows: int = 6, journal: int = 0, fp: dict = FP,
             hardware: str = "host-cpu", first: int = 0) -> Path:
    """A dataset with one shard of `rows` rows (ids from `first` on) and `journal` rows
    still in the journal."""
    with store.DatasetWriter(root, hardware=hardware, fingerprint=fp) as w:
        for i in range(first, first + rows):
            w.add(_row(i))
    if journal:
        w = store.DatasetWriter(root, hardware=hardware, fingerprint=fp)
        for i in range(first + rows, first + rows + journal):
            w.add(_row(i))
        w._journal.close()     # as if killed: the lines stay in the journal
        w._journal = None
        w._unlock()
    return w.path


def _one_line_error(capsys, argv: list[str], *needles: str) -> None:
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert len(errors) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, (needle, err)


# --------------------------------------------------------------------------- shards
def test_every_single_bit_flip_of_a_shard_is_detected(tmp_path):
    path = _dataset(tmp_path, rows=8)
    [shard] = store.shard_paths(path)
    original = shard.read_bytes()
    before = store.read_table(path)
    rng = random.Random(19)
    missed = []
    for _ in range(150):
        offset, bit = rng.randrange(len(original)), rng.randrange(8)
        flipped = bytearray(original)
        flipped[offset] ^= 1 << bit
        shard.write_bytes(bytes(flipped))
        [report] = store.validate(path)
        if report.ok or not any(str(shard) in p for p in report.problems):
            missed.append((offset, bit))
        with pytest.raises(DatasetError, match="SHA-256|bytes"):
            store.read_table(path)
    assert missed == []
    shard.write_bytes(original)
    assert store.read_table(path).equals(before)


def test_a_damaged_shard_is_named_by_validate_skipped_by_info_refused_by_split(tmp_path,
                                                                               capsys):
    path = _dataset(tmp_path, rows=6, journal=2)
    [shard] = store.shard_paths(path)
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0x10
    shard.write_bytes(bytes(data))
    assert main(["dataset", "validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{shard}: damaged: its SHA-256 is not the one in manifest.json" in out
    assert main(["dataset", "info", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    info = json.loads(captured.out)
    assert info["rows"] == 2 and len(info["skipped"]) == 1      # the journal's two rows
    assert f"warning: skipped {shard}: damaged" in captured.err
    _one_line_error(capsys, ["dataset", "split", str(path)], str(shard), "SHA-256")
    # a resumed writer refuses it too, and says how to go on
    with pytest.raises(DatasetError, match="move it away.*--write-manifest"):
        store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP)
    shard.rename(tmp_path / "aside.parquet")
    [report] = store.validate(path)
    assert report.problems == [f"{shard}: listed in manifest.json (6 rows) but missing"]
    [report] = store.validate(path, write_manifest=True)
    assert report.ok and report.manifest_update.forgotten == (shard.name,)
    assert report.rows == 2


def test_a_foreign_shard_is_named_and_never_read(tmp_path, capsys):
    from stablecost.train.data import load_frame

    path = _dataset(tmp_path / "a", rows=4)
    other = _dataset(tmp_path / "b", rows=3, fp=OTHER_FP, hardware="x")
    foreign = path / "shards" / store.shard_paths(other)[0].name
    shutil.copy(store.shard_paths(other)[0], foreign)
    [report] = store.validate(path)
    assert report.problems == [
        f"{foreign}: foreign shard (fingerprint {store.fingerprint_id(OTHER_FP)[:12]!r}, "
        f"dataset is {store.fingerprint_id(FP)[:12]}); not in manifest.json (not written "
        "here by stablecost: copied in?)"]
    assert main(["dataset", "info", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["rows"] == 4 and f"skipped {foreign}" in captured.err
    _one_line_error(capsys, ["dataset", "split", str(path)], f"{foreign}: foreign shard")
    with pytest.raises(DatasetError, match="foreign shard"):
        load_frame(path, "kernel")
    # a resumed writer leaves it alone and says so
    with store.DatasetWriter(tmp_path / "a", hardware="host-cpu", fingerprint=FP) as w:
        assert not w.has("s0") or w.has("s3")
    assert any(f"{foreign}: not in manifest.json; left alone" in m for m in w.warnings)
    # without a manifest (a dataset of before them) the embedded fingerprint still tells
    (path / store.MANIFEST).unlink()
    assert main(["dataset", "info", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["rows"] == 4 and f"skipped {foreign}: foreign" in captured.err
    _one_line_error(capsys, ["dataset", "split", str(path)], f"{foreign}: foreign shard")


def test_a_shard_of_this_dataset_copied_in_is_named_until_recorded(tmp_path):
    path = _dataset(tmp_path / "a", rows=4)
    twin = _dataset(tmp_path / "b", rows=2, first=10)   # the same machine, elsewhere
    copied = path / "shards" / store.shard_paths(twin)[0].name
    shutil.copy(store.shard_paths(twin)[0], copied)
    [report] = store.validate(path)
    assert report.problems == [f"{copied}: a shard of this dataset's kind, but not in "
                               "manifest.json (not written here by stablecost: copied in?)"]
    assert len(store.read_table(path, damaged="skip")) == 4
    [report] = store.validate(path, write_manifest=True)     # the user vouches for it
    assert report.ok and report.rows == 6
    assert report.manifest_update.added == (copied.name,)


def test_a_dataset_without_a_manifest_keeps_working_and_gets_one(tmp_path, capsys):
    path = _dataset(tmp_path, rows=5)
    (path / store.MANIFEST).unlink()
    said: list[str] = []
    assert len(store.read_table(path, warn=said.append)) == 5
    assert said == [f"{path / store.MANIFEST}: none, so the 1 shards' checksums are unchecked;"
                    f" `stablecost dataset validate --write-manifest {path}` records them"]
    assert main(["dataset", "validate", str(path)]) == 0
    assert "no manifest: checksums unchecked" in capsys.readouterr().out
    assert main(["dataset", "validate", "--write-manifest", str(path)]) == 0
    out = capsys.readouterr().out
    assert "recorded 1 shards and dataset.json" in out and "(checksums verified)" in out
    # a writer opening such a dataset records it as well, and says so
    (path / store.MANIFEST).unlink()
    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP) as w:
        w.add(_row(9))
    assert "recorded the checksums of the 1 shards" in w.warnings[0]
    [report] = store.validate(path)
    assert report.ok and report.checksums and report.rows == 6


def test_a_damaged_manifest_or_dataset_json_is_named(tmp_path, capsys):
    path = _dataset(tmp_path, rows=3)
    manifest = path / store.MANIFEST
    good = manifest.read_bytes()
    for offset in (0, len(good) // 3, len(good) - 30, len(good) - 1):
        data = bytearray(good)
        data[offset] ^= 0x01
        manifest.write_bytes(bytes(data))
        [report] = store.validate(path)
        assert report.problems and report.problems[0].startswith(f"{manifest}: damaged manifest")
        _one_line_error(capsys, ["dataset", "split", str(path)], "damaged manifest")
        with pytest.raises(DatasetError, match="damaged manifest"):
            store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP)
    manifest.write_bytes(good)
    meta = path / store.DATASET_FILE
    meta.write_text(meta.read_text().replace('"created": "', '"created": "1'))
    [report] = store.validate(path)
    assert report.problems == [f"{meta}: changed since it was recorded (its SHA-256 is not "
                               "the one in manifest.json)"]


def test_an_interrupted_shard_write_is_rolled_back_from_the_journal(tmp_path, monkeypatch):
    """Killed after the manifest listed the new shard and before its rename: the next
    writer drops the listing and folds the journal again; nothing is lost."""
    w = store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP)
    for i in range(3):
        w.add(_row(i))
    journal = (w.path / store.JOURNAL).read_bytes()
    w.flush()
    w._journal.close()
    w._lock.close()
    [shard] = store.shard_paths(w.path)
    shard.rename(shard.with_name(f".{shard.name}.tmp"))    # the state a kill there leaves
    (w.path / store.JOURNAL).write_bytes(journal)
    [report] = store.validate(tmp_path)
    assert report.ok and "a shard write was interrupted" in report.notes[0]
    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP) as again:
        assert all(again.has(f"s{i}") for i in range(3))
    assert "rolled back" in again.warnings[0]
    [report] = store.validate(tmp_path)
    assert report.ok and report.rows == 3 and not report.notes


# --------------------------------------------------------------------------- journal
def _journal_case(path: Path, case: str) -> str:
    """Damage the second of three journal lines as `case` says; returns what is named."""
    journal = path / store.JOURNAL
    lines = journal.read_bytes().splitlines(keepends=True)
    old = json.loads(lines[1])
    del old["line_sha256"]
    if case == "not utf-8":
        lines[1] = lines[1].replace(b'"elementwise"', b'"elem\xffwise"')
        named = "line 2: not UTF-8"
    elif case == "not json":
        lines[1] = b"{not json}\n"
        named = "line 2: not JSON"
    elif case == "median fast":
        old["median_s"] = "fast"      # a line of before checksums: the schema must catch it
        lines[1] = json.dumps(old).encode() + b"\n"
        named = "line 2: row s4: median_s='fast' is not a number"
    elif case == "missing field":
        del old["p90_s"]
        lines[1] = json.dumps(old).encode() + b"\n"
        named = "line 2: row s4: missing columns ['p90_s']"
    elif case == "changed value":
        lines[1] = lines[1].replace(b'"group_id":"g1"', b'"group_id":"g7"')
        named = "line 2: checksum does not match"
    else:   # the newline between lines 2 and 3 lost: two lines run together
        lines[1] = lines[1][:-1]
        named = "line 2: not JSON"
    journal.write_bytes(b"".join(lines))
    return named


CASES = ["not utf-8", "not json", "median fast", "missing field", "changed value",
         "lost newline"]


@pytest.mark.parametrize("case", CASES)
def test_a_damaged_journal_line_is_named_by_every_command(tmp_path, capsys, case):
    path = _dataset(tmp_path, rows=3, journal=3)
    named = _journal_case(path, case)
    journal = path / store.JOURNAL
    assert main(["dataset", "validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{journal} {named}" in out and "Traceback" not in out
    assert main(["dataset", "info", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    rows = 3 + (1 if case == "lost newline" else 2)
    assert json.loads(captured.out)["rows"] == rows
    assert f"warning: skipped {journal} {named}" in captured.err
    _one_line_error(capsys, ["dataset", "split", str(path)], f"{journal} {named}")
    # a resumed collection keeps every good row and sets the damaged line aside
    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP) as w:
        assert all(w.has(f"s{i}") for i in (0, 1, 2, 3)) and not w.has("s4")
    assert any(named in m and "set aside in journal.damaged" in m for m in w.warnings)
    assert len(store.read_table(path)) == rows
    [report] = store.validate(path)
    assert report.ok and "journal.damaged" in report.notes[-1]


def test_bad_values_are_one_line_errors_naming_the_column():
    for over, match in [({"median_s": "fast"}, "median_s='fast' is not a number"),
                        ({"repeats": 2.5}, "repeats=2.5 is not a 32-bit integer"),
                        ({"outlier": "no"}, "outlier='no' is not true or false"),
                        ({"params": {"n": 1}}, "params={'n': 1} is not a string"),
                        ({"timestamp": "yesterday"}, "timestamp='yesterday' is not an ISO"),
                        ({"sample_id": 7}, "sample_id=7 is not a non-empty string")]:
        with pytest.raises(DatasetError, match=match):
            store.normalize_row(_row(0, fingerprint="f", **over))


def test_a_torn_last_line_is_a_note_and_a_lost_last_newline_is_damage(tmp_path):
    path = _dataset(tmp_path, rows=2, journal=2)
    journal = path / store.JOURNAL
    good = journal.read_bytes()
    journal.write_bytes(good + b'{"sample_id":"s9","gro')      # killed mid-write
    [report] = store.validate(path)
    assert report.ok and report.rows == 4
    assert report.notes == [f"{journal} line 3: torn last line (a write cut short; its "
                            "sample is not stored and is measured again)"]
    journal.write_bytes(good[:-1] + b"\x0b")                     # its newline flipped
    [report] = store.validate(path)
    assert report.problems == [f"{journal} line 2: not JSON (Extra data at column "
                               f"{len(good.splitlines()[1]) + 1})"]


def test_journal_lines_of_before_checksums_are_counted_unchecked(tmp_path, capsys):
    path = _dataset(tmp_path, rows=2, journal=2)
    journal = path / store.JOURNAL
    lines = []
    for line in journal.read_bytes().splitlines():
        row = json.loads(line)
        del row["line_sha256"]
        lines.append(json.dumps(row))
    journal.write_text("\n".join(lines) + "\n")
    assert main(["dataset", "validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "4 rows in 1 shards (checksums verified; 2 journal lines without a checksum)" in out


def test_a_changed_hardware_toml_is_refused_by_training(tmp_path):
    from stablecost.train.data import dataset_hardware

    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP) as w:
        w.keep_file("hardware.toml", b'name = "host-cpu"\n')
    (w.path / "hardware.toml").write_bytes(b'name = "host-cpx"\n')
    with pytest.raises(DatasetError, match="hardware.toml: changed since it was recorded"):
        dataset_hardware(w.path)


def test_collect_resumes_past_a_damaged_journal_without_losing_rows(tmp_path, capsys):
    out = tmp_path / "d"
    argv = ["collect", "kernels", "--out", str(out), "--families", "elementwise", "--seed", "3"]
    assert main([*argv, "--max-samples", "2"]) == 0
    [path] = store.find_datasets(out)
    fingerprint = store.DatasetInfo.read(path).fingerprint_id
    good = store.encode_line(store.normalize_row(_row(100, fingerprint=fingerprint)))
    (path / store.JOURNAL).write_bytes(good + b"{not json}\n" + b'{"sample_id":"\xff"}\n')
    capsys.readouterr()
    assert main([*argv, "--max-samples", "3"]) == 0
    captured = capsys.readouterr()
    assert "2 already measured were skipped; the dataset holds 4 rows" in captured.out
    journal = path / store.JOURNAL
    assert f"warning: {journal} line 2: not JSON" in captured.err
    assert f"warning: {journal} line 3: not UTF-8" in captured.err
    assert "Traceback" not in captured.err
    assert (path / store.JOURNAL_SET_ASIDE).read_bytes() == b'{not json}\n{"sample_id":"\xff"}\n'
    [report] = store.validate(out)
    assert report.ok and report.rows == 4 and "s100" in set(store.read_frame(out)["sample_id"])


def test_write_manifest_waits_for_no_writer(tmp_path, capsys):
    path = _dataset(tmp_path, rows=2)
    (path / store.MANIFEST).unlink()
    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP):
        assert main(["dataset", "validate", "--write-manifest", str(path)]) == 1
    assert f"{path} is being written by another stablecost process" in capsys.readouterr().out


def test_a_shard_without_a_manifest_whose_text_is_not_utf8_is_named_not_a_traceback(tmp_path,
                                                                                    capsys):
    """Before manifests only Parquet's structure can tell: a flipped bit that leaves a
    string invalid UTF-8 was a UnicodeDecodeError traceback in validate, info and split."""
    import pyarrow.parquet as pq

    path = _dataset(tmp_path, rows=3)
    [shard] = store.shard_paths(path)
    table = pq.read_table(shard)
    pq.write_table(table, shard, compression="none", use_dictionary=False,
                   write_statistics=False)
    (path / store.MANIFEST).unlink()
    data = shard.read_bytes()
    at = data.index(b"kernel")       # the `kind` column's first value (read by every command)
    shard.write_bytes(data[:at] + bytes([data[at] ^ 0x80]) + data[at + 1:])
    [report] = store.validate(path)
    assert len(report.problems) == 1 and report.problems[0].startswith(f"{shard}: unreadable")
    assert main(["dataset", "info", str(path), "--json"]) == 0
    assert f"skipped {shard}: unreadable" in capsys.readouterr().err
    _one_line_error(capsys, ["dataset", "split", str(path)], f"{shard}: unreadable")
