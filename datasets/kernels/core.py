"""The kernel-sample registry and sweep: the spec types, the table of samplers and
builders the family modules fill, the sweep order (`WEIGHTS`, `kernel_spec`) and the
shape helpers every sampler draws with.

The order of `WEIGHTS` is part of every sample's identity: `kernel_spec(index, seed,
families)` picks the family by position in that order, and sample ids are content
hashes that existing datasets resume by. Append new families; never reorder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ...errors import InvalidArgumentError

# Largest work one kernel sample may do: keeps every call well under ~0.1 s on a
# 2-core CPU so a sweep covers many shapes.
MAX_FLOPS = 4e9
MAX_BYTES = 256e6


@dataclass(frozen=True)
class ArgSpec:
    shape: tuple[int, ...]
    dtype: str
    index_high: int | None = None  # integer operand drawn in [0, index_high)


@dataclass(frozen=True)
class KernelSpec:
    family: str
    variant: str
    dtype: str
    params: dict[str, Any]
    size_bucket: int               # log2 of the sample's dominant size

    @property
    def group_id(self) -> str:
        return f"{self.family}/{self.variant}/{self.dtype}/s{self.size_bucket}"


Builder = Callable[[dict[str, Any]], tuple[Callable[..., Any], list[ArgSpec]]]
Sampler = Callable[[np.random.Generator], KernelSpec]

# How often each family comes up in a sweep, in sweep order: the families that dominate
# step time (matmuls, convolutions, fused epilogues and normalizations) get more samples.
WEIGHTS = {"dot_general": 3, "convolution": 3, "fused": 3, "elementwise": 2,
           "transcendental": 1, "data_movement": 2, "reduce": 2, "reduce_window": 1,
           "gather_scatter": 1, "sort": 1, "select_compare": 1, "convert": 1, "iota": 1,
           "fft": 1, "conv3d": 1, "scan": 1, "top_k": 1, "bitwise": 1, "complex": 1,
           "pool_grad": 1}
FAMILIES = tuple(WEIGHTS)

SAMPLERS: dict[str, Sampler] = {}                  # family -> sampler (family modules)
_BUILDERS: dict[tuple[str, str], Builder] = {}     # (family, variant) -> builder


def sampler(family: str) -> Callable[[Sampler], Sampler]:
    """Register the sampler of a family listed in `WEIGHTS`."""
    if family not in WEIGHTS:
        raise ValueError(f"kernel family {family!r} has no sweep weight (add it to WEIGHTS)")

    def register(fn: Sampler) -> Sampler:
        SAMPLERS[family] = fn
        return fn
    return register


def builder(family: str, *variants: str) -> Callable[[Builder], Builder]:
    """Register the builder of these variants of a family."""
    def register(fn: Builder) -> Builder:
        for variant in variants:
            _BUILDERS[(family, variant)] = fn
        return fn
    return register


def build(family: str, variant: str,
          params: dict[str, Any]) -> tuple[Callable[..., Any], list[ArgSpec]]:
    try:
        make = _BUILDERS[(family, variant)]
    except KeyError:
        raise InvalidArgumentError(f"no kernel builder for {family}/{variant}") from None
    return make(params)


def schedule(families: tuple[str, ...]) -> list[str]:
    """One round of the sweep: families interleaved by weight, so any prefix of the
    sweep (a short budget) covers every requested family."""
    rounds = max(WEIGHTS[f] for f in families)
    order: list[str] = []
    for r in range(rounds):
        order.extend(f for f in families if WEIGHTS[f] > r)
    return order


def kernel_spec(index: int, seed: int, families: tuple[str, ...]) -> KernelSpec:
    """The `index`-th sample of the sweep with this seed (deterministic)."""
    order = schedule(families)
    family = order[index % len(order)]
    rng = np.random.default_rng([seed, index])
    spec = SAMPLERS[family](rng)
    return KernelSpec(spec.family, spec.variant, spec.dtype,
                      {**spec.params, "variant": spec.variant}, spec.size_bucket)


# --------------------------------------------------------------------------- shape helpers
def log_uniform_int(rng: np.random.Generator, low: int, high: int) -> int:
    return int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))


def maybe_round(rng: np.random.Generator, value: int, p_pow2: float = 0.4) -> int:
    """Real programs favour multiples of 8 and powers of two; keep some odd sizes too."""
    r = rng.uniform()
    if r < p_pow2:
        return 2 ** max(0, round(math.log2(max(value, 1))))
    if r < 0.75:
        return max(8, 8 * round(value / 8))
    return max(1, value)


def log2_bucket(value: float) -> int:
    return int(math.floor(math.log2(max(value, 1.0))))


def shrink_to_fit(sizes: list[int], cost: Callable[[list[int]], float], limit: float) -> list[int]:
    """Halve the largest size until `cost(sizes) <= limit`."""
    sizes = list(sizes)
    while cost(sizes) > limit and max(sizes) > 1:
        i = int(np.argmax(sizes))
        sizes[i] = max(1, sizes[i] // 2)
    return sizes


def num_elements(shape: tuple[int, ...] | list[int]) -> int:
    return int(np.prod(shape)) if len(shape) else 1


def random_shape(rng: np.random.Generator, low_elems: float, high_elems: float,
                 max_rank: int = 4) -> list[int]:
    total = log_uniform_int(rng, int(low_elems), int(high_elems))
    rank = int(rng.integers(1, max_rank + 1))
    if rank == 1:
        return [maybe_round(rng, total)]
    # Split log(total) over the dims; the last dim gets a realistic feature width.
    last = maybe_round(rng, log_uniform_int(rng, 8, 4096))
    rest = max(1, total // last)
    dims = [last]
    for _ in range(rank - 2):
        d = max(1, int(round(rest ** rng.uniform(0.2, 0.6))))
        dims.insert(0, d)
        rest = max(1, rest // d)
    dims.insert(0, max(1, rest))
    return dims
