"""What every benchmark's table header needs: the commit it measured and the date."""

from __future__ import annotations

import datetime
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def commit() -> str:
    """The checkout's short commit hash ("unknown" outside git), marked when the working
    tree differs from it: a figure from uncommitted code says so."""
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(ROOT), "--no-optional-locks", *args],
                              capture_output=True, text=True, check=False)
    head = git("rev-parse", "--short", "HEAD").stdout.strip() or "unknown"
    dirty = git("diff", "--quiet", "HEAD", "--").returncode == 1
    return head + (" (+ uncommitted changes)" if dirty else "")


def today() -> str:
    return datetime.date.today().isoformat()


def write_json(path: Path, data: object) -> None:
    """Write `data` as JSON to `path` atomically (a crash leaves the old file or none)."""
    import json
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


# The generalisation issue's accuracy target, per set of programs judged: learned MAPE at
# most 15 % (or, where the repeat floor measured in the same run is above 12 %, at most
# 1.25x that floor) and at most half the calibrated roofline's MAPE on the same programs.
TARGET_MAPE, FLOOR_ABOVE, FLOOR_FACTOR = 0.15, 0.12, 1.25


def target_bound(roofline_mape: float, floor_mape: float | None) -> float:
    """The learned MAPE a set of programs must not exceed (NaN or None floor: none)."""
    bound = TARGET_MAPE
    if floor_mape is not None and floor_mape == floor_mape and floor_mape > FLOOR_ABOVE:
        bound = max(bound, FLOOR_FACTOR * floor_mape)
    return min(bound, roofline_mape / 2)
