"""Reading the measurements the link fit uses: the NCCL collective rows of a dataset
store (as `stablecost import aiconfigurator` writes them), filtered to the all_reduce /
all_gather / reduce_scatter / all_to_all runs on 2..chips_per_node GPUs of one node of a
catalog switch chip, with a count of what was left out and why; and the held-out split
of those rows by message size.

Rows whose repeats vary by more than `MAX_CV` are left out. The importer's `outlier`
flag is *not* used to drop rows: it compares nccl-tests bus bandwidth with the
datasheet link bandwidth, which NVLS all_reduce legitimately exceeds (it moves ~B per
GPU, busbw counts 2(n-1)/n B), and those rows are the ones that pin the in-switch
efficiency.

Held-out split: by message size. Sizes whose round(log2 bytes) is a multiple of
`HELD_OUT_EVERY` (3: 512 B, 4 KiB, 32 KiB, 256 KiB, 2 MiB, 16 MiB, 128 MiB of the
512 B..512 MiB sweep) are never fitted; every row of such a size (any group size, dtype
or NCCL version) is held out.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, overload

import numpy as np

from ...errors import DatasetError, InvalidArgumentError, UnknownHardwareError
from ...hardware import Hardware, get_hardware
from ...models.comm.phases import ALL_GATHER, ALL_REDUCE, ALL_TO_ALL, REDUCE_SCATTER

CALIBRATED_KINDS = (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL)
HELD_OUT_EVERY = 3
MAX_CV = 0.25                  # repeats varying more than this: an unstable measurement
_LIBRARY_NAME = "NCCL"         # the imported variant the fit uses (custom all-reduce
                               # kernels of TRT-LLM / vLLM / SGLang are other algorithms)


@dataclass(frozen=True)
class CollectiveMeasurement:
    """One measured collective: `time_s` for `kind` over `num_devices` GPUs of one node,
    `bytes_per_device` in nccl-tests' `size` convention (as `collective_time`)."""

    hardware: str
    kind: str
    num_devices: int
    bytes_per_device: float
    dtype: str
    time_s: float
    library: str = ""          # e.g. "NCCL 2.27.3"
    cv: float = 0.0            # spread of the merged repeats
    flagged: bool = False      # the importer's outlier flag (kept; see module docstring)


@dataclass(frozen=True)
class Measurements:
    """The collectives read from a dataset root, and what was left out and why."""

    rows: tuple[CollectiveMeasurement, ...]
    excluded: Mapping[str, int]
    data_root: str = ""

    def hardware(self) -> list[str]:
        return sorted({r.hardware for r in self.rows})


_COLUMNS = ["sample_id", "kind", "family", "variant", "dtype", "params", "median_s", "cv",
            "hardware", "source", "outlier"]


def _read_collective_rows(root: Path) -> list[dict[str, Any]]:
    """The `kind == "collective"` rows of every dataset at `root` (columns `_COLUMNS`),
    read with a predicate pushed into the Parquet reader (an import holds millions of
    kernel rows); a dataset with pending journal rows is read whole."""
    import pyarrow.parquet as pq

    from ...datasets import store

    rows: list[dict[str, Any]] = []
    for dataset in store.find_datasets(root):
        store.DatasetInfo.read(dataset)
        journal = dataset / store.JOURNAL
        if journal.exists() and journal.stat().st_size > 0:
            table = store.read_table(dataset, columns=_COLUMNS)
            rows += [r for r in table.to_pylist() if r["kind"] == "collective"]
            continue
        for shard in store.checked_shards(dataset):   # damaged or foreign shards: refused
            try:
                table = pq.read_table(shard, columns=_COLUMNS, schema=store.SCHEMA,
                                      filters=[("kind", "=", "collective")])
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types
                raise DatasetError(f"{shard}: unreadable shard ({exc})") from None
            rows += table.to_pylist()
    seen: set[str] = set()
    unique = []
    for r in rows:  # the first row of each sample id
        if r["sample_id"] not in seen:
            seen.add(r["sample_id"])
            unique.append(r)
    return unique


def load_collective_measurements(data_root: str | Path,
                                 hardware: str | Sequence[str] | None = None,
                                 ) -> Measurements:
    """The NCCL all_reduce / all_gather / reduce_scatter / all_to_all measurements at
    `data_root` (a dataset or a root, as `stablecost import aiconfigurator` writes it) on
    2..chips_per_node GPUs of one node of a catalog chip with a switch fabric.
    `hardware`: only these chips (names or aliases). Raises `DatasetError` when none is
    left, naming what was found instead."""
    root = Path(data_root)
    wanted = wanted_chips(hardware)
    excluded: Counter[str] = Counter()
    out = []
    chips: dict[str, Hardware | None] = {}
    for r in _read_collective_rows(root):
        name = str(r["hardware"])
        if name not in chips:
            try:
                chips[name] = get_hardware(name)
            except UnknownHardwareError:
                chips[name] = None
        hw = chips[name]
        if wanted is not None and (hw is None or hw.name not in wanted):
            excluded["another chip than asked for"] += 1
            continue
        if hw is None:
            excluded[f"chip {name!r} is not in the catalog"] += 1
            continue
        if r["variant"] != _LIBRARY_NAME:
            excluded[f"not NCCL ({r['variant']}: its own algorithms)"] += 1
            continue
        if r["family"] not in CALIBRATED_KINDS:
            excluded[f"kind {r['family']} is not calibrated"] += 1
            continue
        if hw.topology != "nvswitch":
            excluded[f"{hw.name}: topology {hw.topology!r} (calibration fits switch "
                     "nodes)"] += 1
            continue
        try:
            params = json.loads(r["params"])
            program = params["program"]
            n = int(program["num_devices"])
            size = float(program["bytes"])
        except (TypeError, ValueError, KeyError):
            excluded["params without program num_devices / bytes"] += 1
            continue
        if not 2 <= n <= hw.chips_per_node:
            excluded["group size outside 2..chips_per_node (one node)"] += 1
            continue
        t = r["median_s"]
        if t is None or not (t > 0 and math.isfinite(t)) or size <= 0:
            excluded["latency or size not positive"] += 1
            continue
        cv = r["cv"] if r["cv"] is not None and math.isfinite(r["cv"]) else 0.0
        if cv > MAX_CV:
            excluded[f"repeats vary by more than cv {MAX_CV}"] += 1
            continue
        # The version folder names the NCCL build (the `version` column of some
        # aiconfigurator files repeats another folder's); the column is the fallback.
        m = re.search(r"/nccl/([^/]+)/", str(r["source"]))
        version = m.group(1) if m else (params.get("row") or {}).get("version") or ""
        out.append(CollectiveMeasurement(
            hardware=hw.name, kind=r["family"], num_devices=n, bytes_per_device=size,
            dtype=str(r["dtype"]), time_s=float(t),
            library=f"NCCL {version}".strip(), cv=float(cv), flagged=bool(r["outlier"])))
    if not out:
        found = ", ".join(f"{k} ({v})" for k, v in excluded.most_common()) or \
            "no collective rows at all"
        asked = "" if wanted is None else f" for {sorted(wanted)}"
        raise DatasetError(
            f"{root}: no NCCL collective measurements{asked} to calibrate with (kind "
            f"'collective', variant 'NCCL', one of {list(CALIBRATED_KINDS)} on 2.."
            f"chips_per_node GPUs of a catalog switch chip); found: {found}. Import them "
            "with `stablecost import aiconfigurator <aiconfigurator systems dir> --out "
            f"{root}`")
    out.sort(key=lambda m: (m.hardware, m.kind, m.num_devices, m.bytes_per_device,
                            m.dtype, m.library))
    return Measurements(tuple(out), dict(excluded), str(root))


@overload
def wanted_chips(hardware: None) -> None: ...
@overload
def wanted_chips(hardware: str | Sequence[str]) -> set[str]: ...
def wanted_chips(hardware: str | Sequence[str] | None) -> set[str] | None:
    """The catalog names of `hardware` (names or aliases); None for every chip."""
    if hardware is None:
        return None
    names = [hardware] if isinstance(hardware, (str, Hardware)) else list(hardware)
    return {get_hardware(h).name for h in names}


def held_out_mask(bytes_per_device: Iterable[float], every: int = HELD_OUT_EVERY,
                  offset: int = 0) -> np.ndarray:
    """True for the sizes held out of the fit: round(log2 bytes) % every == offset (every
    third power of two by default), so whole message sizes are held out and the held-out
    sizes spread over the whole range."""
    if not (isinstance(every, int) and every >= 2 and 0 <= offset < every):
        raise InvalidArgumentError(
            f"held-out split needs an integer every >= 2 and 0 <= offset < every, got "
            f"every={every!r}, offset={offset!r}")
    b = np.asarray(list(bytes_per_device), dtype=float)
    if np.any(~(b > 0)):
        raise InvalidArgumentError("held-out split needs positive byte counts")
    return np.rint(np.log2(b)).astype(int) % every == offset
