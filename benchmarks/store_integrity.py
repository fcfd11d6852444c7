"""Does stored data prove its integrity? Damage a copy of a dataset one way at a time and
count what the commands notice.

    .venv/bin/python benchmarks/store_integrity.py [--data data/cpu] [--flips 150] [--seed 19]
                                                   [--shard smallest|largest|NAME]

Works on a temporary copy of one shard of the dataset at `--data` (its `dataset.json`,
`hardware.toml` and one shard, the smallest unless `--shard` says otherwise, with a
manifest recorded for the copy) plus six journal lines; it never writes under `--data`.
Prints:

- single-bit flips of the shard, of the journal, of `manifest.json` and `dataset.json`:
  how many `dataset validate` flags, how many it only notes (a torn last journal line),
  how many change nothing a reader returns, and how many silently change the rows a
  reader returns while validate says ok. The shard is flipped twice: with its manifest,
  and without one (a dataset of before manifests, where only Parquet's structure, the
  embedded metadata and the row checks can notice);
- malformed journal lines and foreign shards: what `dataset validate`, `dataset info`,
  `dataset split` and a resumed writer (`collect`) do with each: exit code, whether the
  item is named, whether the other rows are kept, and whether anything was a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(ROOT / "data" / "cpu"))
    parser.add_argument("--flips", type=int, default=150)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--shard", default="smallest",
                        help="smallest, largest, or a shard's file name")
    args = parser.parse_args()

    from stablecost.datasets import store

    [source] = store.find_datasets(args.data)
    with tempfile.TemporaryDirectory() as tmp:
        base = _small_copy(source, Path(tmp) / "base" / source.name, args.shard)
        print(f"copy of {source}: shard {_shard(base).name} ({_shard(base).stat().st_size:,} "
              f"bytes) and 6 journal lines, {len(store.read_table(base))} rows; seed "
              f"{args.seed}\n")
        rng = random.Random(args.seed)
        print("| flipped one bit of | flips | flagged by validate | noted only | "
              "changed nothing | silently changed |")
        print("|---|---:|---:|---:|---:|---:|")
        for label, target, manifest in [
            ("the shard", lambda d: _shard(d), True),
            ("the shard, no manifest (before this change)", lambda d: _shard(d), False),
            ("journal.jsonl", lambda d: d / store.JOURNAL, True),
            ("manifest.json", lambda d: d / store.MANIFEST, True),
            ("dataset.json", lambda d: d / store.DATASET_FILE, True),
        ]:
            counts = _flips(base, Path(tmp), target, manifest, args.flips, rng)
            print(f"| {label} | {args.flips} | {counts['flagged']} | {counts['noted']} | "
                  f"{counts['nothing']} | {counts['silent']} |")
        print()
        print("| damage | validate | info | split | resumed writer (collect) |")
        print("|---|---|---|---|---|")
        for label, damage in _cases(store):
            case = Path(tmp) / "case" / base.name
            shutil.rmtree(case.parent, ignore_errors=True)
            shutil.copytree(base, case)
            named = damage(case, Path(tmp))
            print(f"| {label} | " + " | ".join(_commands(case, named)) + " |")


def _small_copy(source: Path, dest: Path, which: str) -> Path:
    """dataset.json, hardware.toml, one shard and a manifest; six journal lines (copies
    of the shard's first rows under new ids) written by the writer."""
    from stablecost.datasets import store

    (dest / store.SHARD_DIR).mkdir(parents=True)
    for name in (store.DATASET_FILE, "hardware.toml"):
        if (source / name).exists():
            shutil.copy(source / name, dest / name)
    shards = sorted(store.shard_paths(source), key=lambda p: p.stat().st_size)
    named = {"smallest": shards[0], "largest": shards[-1], **{p.name: p for p in shards}}
    if which not in named:
        raise SystemExit(f"--shard {which!r}: not smallest, largest or a shard of {source}")
    shutil.copy(named[which], dest / store.SHARD_DIR / named[which].name)
    store.update_manifest(dest)
    info = store.DatasetInfo.read(dest)
    if store.dataset_dir(dest.parent, info.hardware, info.fingerprint) != dest:
        raise SystemExit(f"{source}: its directory name is not the one its fingerprint gives")
    rows = store.read_table(dest).slice(0, 6).to_pylist()
    writer = store.DatasetWriter(dest.parent, hardware=info.hardware,
                                 fingerprint=info.fingerprint)
    for i, row in enumerate(rows):
        writer.add({**row, "sample_id": f"journal-{i}"})
    assert writer._journal is not None
    writer._journal.close()      # as if killed: the six lines stay in the journal
    writer._journal = None
    writer._unlock()
    return dest


def _shard(dataset: Path) -> Path:
    from stablecost.datasets import store

    return store.shard_paths(dataset)[0]


def _flips(base: Path, tmp: Path, target: Callable[[Path], Path], manifest: bool,
           flips: int, rng: random.Random) -> dict[str, int]:
    from stablecost.datasets import store
    from stablecost.errors import StablecostError

    work = tmp / "flips" / base.name
    shutil.rmtree(work.parent, ignore_errors=True)
    shutil.copytree(base, work)
    if not manifest:
        (work / store.MANIFEST).unlink()
    reference = _rows(store.read_table(work))
    path = target(work)
    original = path.read_bytes()
    counts = dict.fromkeys(("flagged", "noted", "nothing", "silent"), 0)
    for _ in range(flips):
        data = bytearray(original)
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        try:
            [report] = store.validate(work)
            ok, notes = report.ok, report.notes
        except StablecostError:
            ok, notes = False, []
        if not ok:
            counts["flagged"] += 1
        else:
            try:
                same = _rows(store.read_table(work)) == reference
            except StablecostError:
                same = False
            baseline = [n for n in notes if "manifest.json: none" not in n]
            if baseline:
                counts["noted"] += 1
            elif same:
                counts["nothing"] += 1
            else:
                counts["silent"] += 1
        path.write_bytes(original)
    return counts


def _rows(table: Any) -> list[tuple]:
    rows = table.to_pylist()
    return sorted(tuple(sorted((k, str(v)) for k, v in row.items())) for row in rows)


def _cases(store: Any) -> list[tuple[str, Callable[[Path, Path], str]]]:
    def journal_line(change: Callable[[bytes], bytes], named: str):
        def damage(case: Path, tmp: Path) -> str:
            journal = case / store.JOURNAL
            lines = journal.read_bytes().splitlines(keepends=True)
            lines[2] = change(lines[2])
            journal.write_bytes(b"".join(lines))
            return named
        return damage

    def unchecked(edit: Callable[[dict], None]) -> Callable[[bytes], bytes]:
        def change(line: bytes) -> bytes:
            row = json.loads(line)
            del row["line_sha256"]           # a line of before checksums
            edit(row)
            return json.dumps(row).encode() + b"\n"
        return change

    def foreign(case: Path, tmp: Path) -> str:
        other = tmp / "other"
        shutil.rmtree(other, ignore_errors=True)
        row = store.read_table(case).slice(0, 1).to_pylist()[0]
        with store.DatasetWriter(other, hardware="x", fingerprint={"elsewhere": 1}) as w:
            w.add({**row, "sample_id": "foreign-0"})
        shard = store.shard_paths(w.path)[0]
        shutil.copy(shard, case / store.SHARD_DIR / shard.name)
        return shard.name

    def copied_in(case: Path, tmp: Path) -> str:
        info = store.DatasetInfo.read(case)
        other = tmp / "twin"
        shutil.rmtree(other, ignore_errors=True)
        row = store.read_table(case).slice(0, 1).to_pylist()[0]
        with store.DatasetWriter(other, hardware=info.hardware,
                                 fingerprint=info.fingerprint) as w:
            w.add({**row, "sample_id": "twin-0"})
        shard = store.shard_paths(w.path)[0]
        shutil.copy(shard, case / store.SHARD_DIR / shard.name)
        return shard.name

    def foreign_legacy(case: Path, tmp: Path) -> str:
        named = foreign(case, tmp)
        (case / store.MANIFEST).unlink()
        return named

    def set_median(row: dict) -> None:
        row["median_s"] = "fast"

    def drop_p90(row: dict) -> None:
        del row["p90_s"]

    return [
        ("journal line 3: a non-UTF-8 byte",
         journal_line(lambda b: b.replace(b'"kind"', b'"k\xffind"', 1), "line 3")),
        ("journal line 3: `{not json}`", journal_line(lambda b: b"{not json}\n", "line 3")),
        ('journal line 3 (no checksum): `"median_s": "fast"`',
         journal_line(unchecked(set_median), "line 3")),
        ("journal line 3 (no checksum): p90_s missing",
         journal_line(unchecked(drop_p90), "line 3")),
        ("journal line 3: group_id edited",
         journal_line(lambda b: b.replace(b'"group_id":"', b'"group_id":"x', 1), "line 3")),
        ("shard of another fingerprint dropped into shards/", foreign),
        ("shard of this fingerprint copied in from elsewhere", copied_in),
        ("foreign shard, dataset without a manifest", foreign_legacy),
    ]


def _commands(case: Path, named: str) -> list[str]:
    """What validate, info, split and a resumed writer did."""
    from stablecost.datasets import store
    from stablecost.serve.cli import main as cli

    rows_before = len(store.read_table(case, damaged="skip"))
    out = []
    for argv in (["dataset", "validate"], ["dataset", "info", "--json"], ["dataset", "split"]):
        code, text, tb = _run(cli, [*argv, str(case)])
        if tb:
            out.append("**traceback**")
            continue
        mention = "names it" if named in text else "**does not name it**"
        extra = ""
        if argv[1] == "info" and code == 0:
            info = json.loads(text[: text.rindex("}") + 1])
            extra = f", {info['rows']} rows"
        if argv[1] == "split" and code == 2:
            lines = [line for line in text.splitlines() if line.strip()]
            extra = ", one line" if len(lines) == 1 else f", {len(lines)} lines"
        out.append(f"exit {code}, {mention}{extra}")
    info = store.DatasetInfo.read(case)
    try:
        with store.DatasetWriter(case.parent, hardware=info.hardware,
                                 fingerprint=info.fingerprint) as w:
            pass
    except Exception as exc:  # noqa: BLE001 - the benchmark reports whatever happens
        from stablecost.errors import StablecostError

        kind = "one-line error" if isinstance(exc, StablecostError) else "**traceback**"
        out.append(f"{kind}" + (", names it" if named in str(exc) else ""))
        return out
    said = " ".join(w.warnings)
    kept = len(store.read_table(case, damaged="skip"))
    out.append(("names it" if named in said else "**does not name it**")
               + (", set aside" if "set aside" in said else "")
               + (", left alone" if "left alone" in said else "")
               + f", {kept} of {rows_before} readable rows kept")
    return out


def _run(cli: Callable[[list[str]], int], argv: list[str]) -> tuple[int, str, bool]:
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli(argv)
    except Exception:  # noqa: BLE001 - what the benchmark looks for
        return 1, out.getvalue() + err.getvalue(), True
    return code, out.getvalue() + err.getvalue(), False


if __name__ == "__main__":
    sys.exit(main())
