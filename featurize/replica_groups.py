"""Replica groups written as Shardy mesh axes
(`#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [...]>`) -> explicit groups of
device ids, from the module's `sdy.mesh` declarations."""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from .partition import Mesh, sdy_mesh_axes

# A declared mesh: its axes and the device ids at its positions (None: 0, 1, 2, ...).
MeshDevices = tuple[Mesh, list[int] | None]

_MESH_REF = re.compile(r"mesh\s*=\s*@([\w.$-]+)")
_AXIS_REF = re.compile(r'axis_ref<name\s*=\s*"([^"]+)"'
                       r'(?:[^>]*?pre_size\s*=\s*(\d+)[^>]*?size\s*=\s*(\d+))?')


def declared_mesh(sdy: Any, op: Any) -> tuple[str, MeshDevices]:
    """(symbol, its mesh) of an `sdy.mesh` operation."""
    attrs = op.attributes
    ids = list(sdy.MeshAttr(attrs["mesh"]).device_ids)
    return attrs["sym_name"].value, (sdy_mesh_axes(sdy, attrs["mesh"]), ids or None)


def mesh_symbol(text: str) -> str | None:
    """The mesh (`@m`) that mesh-axes replica groups refer to."""
    found = _MESH_REF.search(text)
    return found.group(1) if found else None


def axis_refs(text: str) -> list[tuple[str, int, int | None]]:
    """(axis, pre_size, size; None for the whole axis) of each axis in mesh-axes
    replica groups."""
    return [(ref.group(1), int(ref.group(2)) if ref.group(2) else 1,
             int(ref.group(3)) if ref.group(3) else None)
            for ref in _AXIS_REF.finditer(text)]


def mesh_axes_groups(axes: Sequence[tuple[str, int]], refs: Sequence[tuple[str, int, int]],
                     device_ids: Sequence[int] | None = None) -> list[list[int]]:
    """Replica groups of the devices that differ only along `refs` ((axis, pre_size,
    size): the sub-axis of `size` coordinates `pre_size` apart; a whole axis is
    (axis, 1, its size)) on a mesh of `axes` whose positions, row-major, hold
    `device_ids` (default: 0, 1, 2, ...)."""
    names = [a for a, _ in axes]
    sizes = [s for _, s in axes]
    total = math.prod(sizes)
    ids = [int(d) for d in device_ids] if device_ids is not None else list(range(total))
    groups: dict[tuple, list[tuple[tuple, int]]] = {}
    for position in range(total):
        coords = []
        rest = position
        for size in reversed(sizes):
            rest, c = divmod(rest, size)
            coords.append(c)
        coords.reverse()
        fixed = list(coords)
        varying = []
        for axis, pre, size in refs:
            i = names.index(axis)
            part = (coords[i] // pre) % size
            varying.append(part)
            fixed[i] -= part * pre
        key = tuple(fixed)
        groups.setdefault(key, []).append((tuple(varying), ids[position]))
    return [[d for _, d in sorted(members)] for _, members in sorted(groups.items())]

