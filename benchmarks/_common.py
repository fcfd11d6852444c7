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
