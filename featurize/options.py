"""The options of `load_program` that change which program is loaded (`entry`,
`shapes`, `dims`), checked and made hashable: a part of every program cache key.

    >>> options = load_options(entry="step", dims={"b": 8})
    >>> options
    ('step', None, (('b', 8),))
    >>> options_kwargs(options)
    {'entry': 'step', 'dims': {'b': 8}}
"""

from __future__ import annotations

from typing import Any

from .entry import check_entry
from .refine import check_dims, check_shapes

LoadOptions = tuple[str | None, tuple[tuple[str, tuple[int, ...]], ...] | None,
                    tuple[tuple[str, int], ...] | None]


def load_options(entry: Any = None, shapes: Any = None, dims: Any = None) -> LoadOptions:
    """`entry`, `shapes` and `dims` checked and made hashable (a cache key part);
    `options_kwargs` turns them back into `load_program`'s keyword arguments."""
    entry = check_entry(entry)
    shapes_t, dims_t = check_shapes(shapes), check_dims(dims)
    return (entry, None if shapes_t is None else tuple(sorted(shapes_t.items())),
            None if dims_t is None else tuple(sorted(dims_t.items())))


def options_kwargs(options: LoadOptions) -> dict[str, Any]:
    """The keyword arguments of `load_program` that `options` stands for."""
    entry, shapes, dims = options
    out: dict[str, Any] = {}
    if entry is not None:
        out["entry"] = entry
    if shapes is not None:
        out["shapes"] = dict(shapes)
    if dims is not None:
        out["dims"] = dict(dims)
    return out
