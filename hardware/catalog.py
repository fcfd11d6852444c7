"""The catalog: the chip files in `chips/`, parsed once, and `host-cpu`, which
`stablecost hardware calibrate` measures and keeps in the user's config dir.

    get_hardware("h100")        # by name or alias, case-insensitive
    list_hardware()             # every chip, plus host-cpu once calibrated
"""

from __future__ import annotations

import stat
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..atomicio import atomic_write_toml
from ..errors import HardwareSpecError, UnknownHardwareError
from ..userdirs import config_dir
from .spec import HOST_CPU, Hardware, parse_spec

CHIPS_DIR = Path(__file__).parent / "chips"
MAX_NAME_CHARS = 100   # longer names are mistakes (and too long for a file name)


def load_spec_file(path: Path) -> Hardware:
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise HardwareSpecError(f"{path}: not valid TOML: {exc}") from None
    return parse_spec(data, str(path))


@lru_cache(maxsize=1)
def _catalog() -> dict[str, Hardware]:
    chips = {}
    for path in sorted(CHIPS_DIR.glob("*.toml")):
        hw = load_spec_file(path)
        chips[hw.name] = hw
    return chips


def reload_catalog() -> None:
    """Forget the parsed catalog: the next lookup re-reads `chips/` (after a rewrite)."""
    _catalog.cache_clear()


def host_cpu_path() -> Path:
    return config_dir() / "hardware" / f"{HOST_CPU}.toml"


def catalog_names() -> list[str]:
    return sorted(_catalog()) + [HOST_CPU]


def list_hardware() -> list[Hardware]:
    """Every catalog chip, plus host-cpu when it has been calibrated."""
    chips = list(_catalog().values())
    if host_cpu_path().is_file():
        chips.append(get_hardware(HOST_CPU))
    return chips


def get_hardware(name: str | Hardware) -> Hardware:
    """A chip by name or alias (case-insensitive)."""
    if isinstance(name, Hardware):
        return name
    if len(str(name)) > MAX_NAME_CHARS:
        raise UnknownHardwareError(
            f"unknown hardware {str(name)[:40]!r}... ({len(str(name))} characters; names are "
            f"at most {MAX_NAME_CHARS}); valid names: {', '.join(catalog_names())}")
    catalog = _catalog()
    wanted = str(name).strip().lower()
    if wanted == HOST_CPU:
        path = host_cpu_path()
        try:
            found = path.stat()
        except OSError:
            found = None
        if found is None or not stat.S_ISREG(found.st_mode):
            raise UnknownHardwareError(
                f"hardware {HOST_CPU!r} is not calibrated on this machine (no {path}); "
                "run `stablecost hardware calibrate` first")
        return _host_cpu_spec(str(path), found.st_ino, found.st_mtime_ns, found.st_size)
    for hw in catalog.values():
        if wanted == hw.name.lower() or wanted in hw.aliases:
            return hw
    raise UnknownHardwareError(
        f"unknown hardware {name!r}; valid names: {', '.join(catalog_names())}")


@lru_cache(maxsize=4)
def _host_cpu_spec(path: str, inode: int, mtime_ns: int, size: int) -> Hardware:
    """The calibrated spec in `path`, parsed once per version of the file (a tuner asks
    for host-cpu on every predict, and parsing its TOML took most of a repeated
    prediction's time); a new calibration, written atomically, is a new file."""
    return load_spec_file(Path(path))


def save_host_cpu(data: Mapping[str, Any]) -> Path:
    """Validate and store a measured host-cpu spec in the user's config dir."""
    parse_spec(data, HOST_CPU)
    return atomic_write_toml(host_cpu_path(), data)
