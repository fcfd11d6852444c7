"""A topology named by a user ("torus2d:2x4", a `Topology`, or None for the chip's
default) as the `Topology` a program's collectives are priced on."""

from __future__ import annotations

import math
from typing import Any

from ...errors import InvalidArgumentError
from ...hardware import Hardware
from .topology import (
    FULLY_CONNECTED,
    HIERARCHICAL,
    RING,
    SWITCH,
    TOPOLOGY_KINDS,
    TORUS2D,
    TORUS3D,
    Topology,
    topology_for,
)

_ALIASES = {"nvswitch": SWITCH, "nvlink": SWITCH, "pcie": SWITCH,
            "fully-connected": FULLY_CONNECTED, "fullyconnected": FULLY_CONNECTED,
            "hier": HIERARCHICAL, "torus2": TORUS2D, "torus3": TORUS3D, "2d-torus": TORUS2D,
            "3d-torus": TORUS3D}
TOPOLOGY_HELP = ("switch, fully_connected, ring, torus2d, torus3d, hierarchical, each "
                 "optionally with :DIMS (e.g. torus2d:2x4, torus3d:2x2x2, hierarchical:2x8, "
                 "ring:8), or torus:AxB[xC]")


def parse_topology(spec: str | Topology | None, hardware: str | Hardware,
                   num_devices: int) -> Topology:
    """The topology `num_devices` devices of `hardware` are priced on (with the chip's
    calibrated link values where it has them).

    spec: None (the chip's default, `topology_for`), a `Topology`, or a string
    KIND[:DIMS]: KIND one of `TOPOLOGY_KINDS` (or nvswitch, torus), DIMS like "2x4".
    The topology may have more devices than the program (it uses the first ones)."""
    if isinstance(spec, Topology):
        if spec.num_devices < num_devices:
            raise InvalidArgumentError(
                f"topology {spec.describe()!r} has {spec.num_devices} devices, the program "
                f"runs on {num_devices}")
        return spec
    calibrated = _has_calibration(hardware)
    if spec is None:
        return topology_for(hardware, num_devices, calibrated=calibrated)
    kind, dims = parse_topology_spec(spec)
    total = math.prod(dims) if dims else num_devices
    if total < num_devices:
        raise InvalidArgumentError(
            f"topology {spec!r} has {total} devices, the program runs on {num_devices}")
    return topology_for(hardware, total, kind, dims, calibrated=calibrated)


def _has_calibration(hardware: str | Hardware) -> bool:
    """Chips whose links were fitted to measured collectives (`train/link_calibration.py`)
    are priced with the fitted values; the datasheet values remain for the rest."""
    from ...hardware import get_hardware

    hw = get_hardware(hardware) if isinstance(hardware, str) else hardware
    return getattr(hw, "calibrated_links", None) is not None


def parse_topology_spec(spec: Any) -> tuple[str, tuple[int, ...] | None]:
    """(kind, dims or None) of a topology string "KIND[:DIMS]", checked for spelling only
    (whether the chip can form it is `topology_for`'s call)."""
    if not isinstance(spec, str):
        raise InvalidArgumentError(
            f"topology must be a string or a Topology, got {type(spec).__name__}; allowed: "
            f"{TOPOLOGY_HELP}")
    text = spec.strip().lower()
    kind_text, _, dims_text = text.partition(":")
    kind_text = kind_text.strip().replace(" ", "")
    dims: tuple[int, ...] | None = None
    if dims_text:
        parts = dims_text.strip().split("x")
        if not all(p.strip().isascii() and p.strip().isdigit() and int(p) >= 1
                   for p in parts):
            raise InvalidArgumentError(
                f"topology {spec!r}: dims {dims_text!r} are not integers >= 1 joined by 'x'; "
                f"allowed: {TOPOLOGY_HELP}")
        dims = tuple(int(p) for p in parts)
    if kind_text == "torus":
        if dims is None or len(dims) not in (2, 3):
            raise InvalidArgumentError(
                f"topology {spec!r}: 'torus' needs 2 or 3 dims (torus:2x4); allowed: "
                f"{TOPOLOGY_HELP}")
        kind = TORUS2D if len(dims) == 2 else TORUS3D
    else:
        kind = _ALIASES.get(kind_text, kind_text)
    if kind not in TOPOLOGY_KINDS:
        raise InvalidArgumentError(f"unknown topology {spec!r}; allowed: {TOPOLOGY_HELP}")
    if dims is not None and kind in (SWITCH, FULLY_CONNECTED, RING) and len(dims) != 1:
        raise InvalidArgumentError(
            f"topology {spec!r}: {kind} has one dimension (e.g. {kind}:{math.prod(dims)}); "
            f"allowed: {TOPOLOGY_HELP}")
    return kind, dims
