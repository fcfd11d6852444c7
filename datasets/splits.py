"""Grouped, deterministic train/validation/test splits.

A row's split is decided by a hash of its group id and the seed alone, so every row of
a group lands in the same split (no shape family leaks from train into test), the
assignment never depends on row order, and appending rows never moves old ones.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

SPLITS = ("train", "val", "test")
DEFAULT_FRACTIONS = (0.7, 0.15, 0.15)


def split_of(group_id: str, seed: int = 0,
             fractions: Sequence[float] = DEFAULT_FRACTIONS) -> str:
    digest = hashlib.sha256(f"{seed}:{group_id}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2 ** 64
    edge = 0.0
    for name, fraction in zip(SPLITS, fractions):
        edge += fraction
        if u < edge:
            return name
    return SPLITS[-1]


def assign_splits(group_ids: Sequence[str], seed: int = 0,
                  fractions: Sequence[float] = DEFAULT_FRACTIONS) -> list[str]:
    """The split of each row, from its group id."""
    from ..errors import InvalidArgumentError

    if len(fractions) != 3 or not all(f >= 0 for f in fractions) or \
            not abs(sum(fractions) - 1) <= 1e-9:   # `not <=` is true for NaN too
        raise InvalidArgumentError(f"split fractions {list(fractions)}: need three "
                                   "non-negative numbers (train, val, test) summing to 1")
    cache: dict[str, str] = {}
    out = []
    for group in group_ids:
        split = cache.get(group)
        if split is None:
            split = cache[group] = split_of(group, seed, fractions)
        out.append(split)
    return out
