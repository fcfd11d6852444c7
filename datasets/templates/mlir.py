"""What every template is built from: tensor types, tensor sizes, the module
around one public `@main`, and `Work`, the least work a measured kernel does.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ...dtypes import bits_per_element

_HEAD = ("module @{name} attributes {{mhlo.num_partitions = {parts} : i32, "
         "mhlo.num_replicas = 1 : i32}} {{\n")
NEG_INF_F32 = "0xFF800000"


def tensor_type(shape: tuple[int, ...] | list[int], dtype: str) -> str:
    """`tensor<2x3xf32>`; `tensor<f32>` for a scalar."""
    if not shape:
        return f"tensor<{dtype}>"
    return f"tensor<{'x'.join(map(str, shape))}x{dtype}>"


def nbytes(shape: tuple[int, ...] | list[int], dtype: str) -> float:
    """Storage bytes of a tensor (sub-byte types packed)."""
    bits = bits_per_element(dtype)
    if bits is None:
        raise ValueError(f"unknown element type {dtype!r}")
    return math.prod(shape) * bits / 8


def module_text(name: str, args: list[str], results: list[str], body: list[str],
                returns: list[str], parts: int = 1) -> str:
    """`module @name` holding `func.func public @main(args) -> results { body; return }`."""
    sig = ", ".join(f"%arg{i}: {a}" for i, a in enumerate(args))
    res = results[0] if len(results) == 1 else f"({', '.join(results)})"
    lines = [_HEAD.format(name=name, parts=parts),
             f"  func.func public @main({sig}) -> {res} {{\n"]
    lines.extend(f"    {line}\n" for line in body)
    lines.append(f"    return {', '.join(returns)} : {', '.join(results)}\n  }}\n}}\n")
    return "".join(lines)


class Work(NamedTuple):
    """What the measured kernel must do at least: FLOPs and DRAM bytes."""

    flops: float
    bytes: float
