"""The command line's answers kept on disk, so that asking `stablecost analyze` or
`stablecost predict` the same question again answers from the cache: no jax, MLIR or
xgboost import, no parsing, no pricing.

An answer is the JSON text `--json` prints (of `Analysis.to_dict()`, of the
`Prediction.to_dict()`s): a hit prints it as stored, or decodes it for the tables.
Its key is a digest of everything the answer depends on:
- the program's bytes and the label it is shown under;
- the command's options that change the result (mesh, entry, shapes, dims; hardware,
  fidelity, topology, overlap), not those that only change the display (--json, --top);
- the code and data that compute it: the size and modification time of every file of
  the package's featurize/, models/ (bundled models included), hardware/ (the chip
  catalog) and serve/, and of the user's config (host CPU spec, adapt calibrations);
- the STABLECOST_* environment (budgets) and this machine's CPU (the host CPU's
  calibration is chosen by fingerprint).
Measured fidelities (timed on this machine now) are never cached. `--no-cache` and
STABLECOST_CACHE_DIR=off skip the cache; `diskcache` keeps it bounded.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ... import diskcache
from ...userdirs import CACHE_ENV, config_dir

KIND = "answers"
MAX_ANSWERS = 512
_PACKAGE = Path(__file__).resolve().parents[2]
_CODE_DIRS = ("featurize", "models", "hardware", "serve")
_CONFIG_DIRS = ("hardware", "adapted")
# what changes an answer, by command (display-only options left out)
_OPTIONS = {"analyze": ("mesh", "entry", "shape", "dim"),
            "predict": ("mesh", "entry", "shape", "dim", "hardware", "fidelity",
                        "topology", "no_overlap", "measured_on")}


def key(args: argparse.Namespace, data: bytes, label: str) -> str | None:
    """The answer's key, or None when this question is not cached."""
    if getattr(args, "no_cache", False) or "measured" in str(getattr(args, "fidelity", "")):
        return None
    digest = hashlib.sha256(data)
    question = {"command": args.command, "label": label,
                "options": {name: getattr(args, name) for name in _OPTIONS[args.command]},
                "stamp": _stamp(), "cpu": _cpu_identity(),
                "environ": sorted((k, v) for k, v in os.environ.items()
                                  if k.startswith("STABLECOST_") and k != CACHE_ENV)}
    digest.update(json.dumps(question, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def load(answer_key: str | None) -> tuple[str, Any] | None:
    """The stored answer as (JSON text, decoded), or None. The text is decoded here, so
    a damaged entry is a miss rather than an error later."""
    if answer_key is None:
        return None
    data = diskcache.get(KIND, answer_key)
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
        return text, json.loads(text)
    except ValueError:          # UnicodeDecodeError is one too
        return None


def store(answer_key: str | None, text: str) -> None:
    """Keep `text`, the answer's JSON as `--json` prints it."""
    if answer_key is not None:
        diskcache.put(KIND, answer_key, text.encode("utf-8"), MAX_ANSWERS)


def _stamp() -> list[tuple[str, int, int]]:
    """(path, mtime_ns, size) of every file the answer is computed from."""
    roots = [_PACKAGE / d for d in _CODE_DIRS] + [config_dir() / d for d in _CONFIG_DIRS]
    out = [(str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in _PACKAGE.glob("*.py")]
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                out.append((os.path.join(folder, name), st.st_mtime_ns, st.st_size))
    return out


def _cpu_identity() -> str:
    """The first processor block of /proc/cpuinfo, less its clock readings."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return ""
    block = text.split("\n\n", 1)[0]
    return "\n".join(line for line in block.splitlines()
                     if not line.startswith(("cpu MHz", "bogomips")))
