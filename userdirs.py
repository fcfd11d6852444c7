"""Where stablecost keeps what belongs to the user, outside the package:

- config_dir(): user data that changes predictions (the host CPU's calibrated spec,
  adapt calibrations, adapt measurements): $STABLECOST_CONFIG_DIR, else
  $XDG_CONFIG_HOME/stablecost, else ~/.config/stablecost;
- cache_dir(): what can be recomputed (partitioned programs, the command line's
  answers): $STABLECOST_CACHE_DIR, else $XDG_CACHE_HOME/stablecost, else
  ~/.cache/stablecost; None when STABLECOST_CACHE_DIR is "off".

Light on purpose (os and pathlib only): the command line's cache-hit path imports it.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "STABLECOST_CACHE_DIR"
CACHE_OFF = "off"


def config_dir() -> Path:
    explicit = os.environ.get("STABLECOST_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "stablecost"


def cache_dir() -> Path | None:
    explicit = os.environ.get(CACHE_ENV, "").strip()
    if explicit.lower() == CACHE_OFF:
        return None
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "stablecost"
