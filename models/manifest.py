"""A model directory's manifest: the SHA-256 and size of every file in it, written by
the save paths and checked on load before any byte reaches xgboost or torch.

    models/bundled/host-cpu/kernel_xgb/manifest.json
    {"manifest_version": 1,
     "files": {"meta.json": {"sha256": "9f2c...", "size_bytes": 5729}, ...}}

`verified_files(directory, required, optional)` returns the bytes of the files a loader
reads after checking them: a truncated, emptied, bit-flipped or edited file, a listed
file that is gone, or a file the loader reads that the manifest does not list is a
one-line `ModelError` naming the file. The loader then parses those same bytes, so a
file replaced after the check is never read. The manifest guards against damage, not
forgery (whoever rewrites a file can rewrite its manifest): the loaders still check
every value they read (`models/bundle_checks.py`).

A directory without a manifest is refused: it is a bundle from before manifests, or one
whose manifest was removed. After checking that its files are the ones trained,

    python -m stablecost.models.manifest --write models/bundled/host-cpu

(re)writes the manifest of every model directory (one holding a meta.json) under the
path; `--check` verifies them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any, Sequence

from ..atomicio import atomic_write_bytes
from ..errors import ModelError

MANIFEST_FILE = "manifest.json"
MANIFEST_VERSION = 1
WRITE_COMMAND = "python -m stablecost.models.manifest --write"


def _entry(data: bytes) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(data).hexdigest(), "size_bytes": len(data)}


def _bundle_files(directory: Path) -> list[str]:
    """The files a manifest of `directory` covers: every regular file but the manifest
    and hidden ones (the temp files of atomic writes)."""
    return sorted(p.name for p in directory.iterdir()
                  if p.is_file() and not p.is_symlink() and p.name != MANIFEST_FILE
                  and not p.name.startswith("."))


def _write(directory: Path, files: dict[str, dict[str, Any]]) -> Path:
    path = directory / MANIFEST_FILE
    body = {"manifest_version": MANIFEST_VERSION, "files": dict(sorted(files.items()))}
    atomic_write_bytes(path, json.dumps(body, indent=1).encode() + b"\n")
    return path


def write_manifest(directory: str | Path) -> Path:
    """Record every file of `directory` as it is now (the save paths call this last)."""
    directory = Path(directory)
    return _write(directory, {name: _entry((directory / name).read_bytes())
                              for name in _bundle_files(directory)})


def refresh_manifest(directory: str | Path, changed: Sequence[str]) -> Path:
    """Re-record the `changed` files after checking that every other listed file is
    still as recorded (a writer of one file must not bless damage to the others)."""
    directory = Path(directory)
    listed = read_manifest(directory)
    unchanged = [name for name in listed if name not in changed]
    _checked(directory, listed, unchanged)
    files = {name: listed[name] for name in unchanged}
    files.update({name: _entry((directory / name).read_bytes()) for name in changed})
    return _write(directory, files)


def read_manifest(directory: Path) -> dict[str, dict[str, Any]]:
    """name -> {"sha256", "size_bytes"}, as recorded; a missing or malformed manifest
    is a `ModelError`."""
    path = directory / MANIFEST_FILE
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise ModelError(f"{directory}: no {MANIFEST_FILE} (the SHA-256 of every model file, "
                         "checked on load); if these files are the ones trained, write it "
                         f"with `{WRITE_COMMAND} {directory}`") from None
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: unreadable manifest ({type(exc).__name__}: {exc})") \
            from None
    if not isinstance(data, dict) or data.get("manifest_version") != MANIFEST_VERSION:
        version = data.get("manifest_version") if isinstance(data, dict) else None
        raise ModelError(f"{path}: manifest version {version!r}; this stablecost reads "
                         f"{MANIFEST_VERSION}")
    files = data.get("files")
    if not isinstance(files, dict):
        raise ModelError(f"{path}: 'files' must map file names to their SHA-256 and size")
    for name, entry in files.items():
        if name in ("", ".", "..", MANIFEST_FILE) or "/" in name or "\\" in name:
            raise ModelError(f"{path}: lists {name!r}, which is not a model file name")
        if not (isinstance(entry, dict) and isinstance(entry.get("sha256"), str)
                and type(entry.get("size_bytes")) is int and entry["size_bytes"] >= 0):
            raise ModelError(f"{path}: the entry of {name!r} must hold a sha256 string and "
                             "a size_bytes count")
    return files


def verified_files(directory: str | Path, required: Sequence[str],
                   optional: Sequence[str] = ()) -> dict[str, bytes]:
    """The bytes of the `required` files and of the `optional` ones present, each checked
    against the manifest, after checking that every other file it lists is intact too
    (see the module docstring)."""
    directory = Path(directory)
    listed = read_manifest(directory)
    wanted = set(required) | {n for n in optional if (directory / n).exists()}
    checked = _checked(directory, listed, sorted(wanted | set(listed)))
    return {name: data for name, data in checked.items() if name in wanted}


def _checked(directory: Path, listed: dict[str, dict[str, Any]],
             names: Sequence[str]) -> dict[str, bytes]:
    """The bytes of `names`, each present, listed and as recorded."""
    out = {}
    for name in names:
        path = directory / name
        if name not in listed:
            raise ModelError(f"{path}: not listed in {MANIFEST_FILE}; if it belongs to the "
                             f"model, rewrite the manifest (`{WRITE_COMMAND} {directory}`)")
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise ModelError(f"{path}: missing, but {MANIFEST_FILE} lists it") from None
        except OSError as exc:
            raise ModelError(f"{path}: unreadable ({exc.strerror or exc})") from None
        expected = listed[name]
        if len(data) != expected["size_bytes"]:
            raise ModelError(f"{path}: {len(data)} bytes, {MANIFEST_FILE} records "
                             f"{expected['size_bytes']} (truncated, emptied or replaced)")
        if hashlib.sha256(data).hexdigest() != expected["sha256"]:
            raise ModelError(f"{path}: SHA-256 differs from the one {MANIFEST_FILE} records "
                             "(damaged or edited)")
        out[name] = data
    return out


def _model_dirs(root: Path) -> list[Path]:
    """`root` itself when it is a model directory, else the model directories under it."""
    if (root / "meta.json").is_file():
        return [root]
    return sorted(p.parent for p in root.rglob("meta.json"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write or check the manifests of model "
                                                 "bundles (models/manifest.py).")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="DIR", help="(re)write the manifests under DIR")
    action.add_argument("--check", metavar="DIR", help="verify the manifests under DIR")
    args = parser.parse_args(argv)
    root = Path(args.write or args.check)
    dirs = _model_dirs(root) if root.is_dir() else []
    if not dirs:
        print(f"error: no model directory (one holding a meta.json) under {root}")
        return 2
    for directory in dirs:
        if args.write:
            print(f"wrote {write_manifest(directory)}")
            continue
        try:
            verified_files(directory, ["meta.json"])
        except ModelError as exc:
            print(f"error: {exc}")
            return 2
        print(f"ok {directory / MANIFEST_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
