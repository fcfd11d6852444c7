"""GEMM: `[m,k] x [k,n]` in any precision recipe, with its work."""

from __future__ import annotations

from functools import lru_cache

from .mlir import Work, module_text, nbytes, tensor_type


@lru_cache(maxsize=65536)
def gemm(m: int, n: int, k: int, *, lhs: str = "bf16", rhs: str = "bf16",
         result: str = "bf16", out: str | None = None, dequant_rhs: bool = False) -> str:
    """`[m,k] x [k,n]`. `dequant_rhs`: the weight is stored in `rhs` and converted to
    `lhs` before the dot (weight-only quantization). `out`: convert the dot's `result`
    type to `out` afterwards (an int32 accumulator scaled back to bf16)."""
    a, b = tensor_type((m, k), lhs), tensor_type((k, n), rhs)
    body = []
    w = "%arg1"
    if dequant_rhs:
        body.append(f"%w = stablehlo.convert %arg1 : ({b}) -> {tensor_type((k, n), lhs)}")
        w, b = "%w", tensor_type((k, n), lhs)
    r = tensor_type((m, n), result)
    body.append(f"%0 = stablehlo.dot_general %arg0, {w}, contracting_dims = [1] x [0] : "
                f"({a}, {b}) -> {r}")
    ret, final = "%0", r
    if out is not None and out != result:
        final = tensor_type((m, n), out)
        body.append(f"%1 = stablehlo.convert %0 : ({r}) -> {final}")
        ret = "%1"
    return module_text("gemm", [a, tensor_type((k, n), rhs)], [final], body, [ret])


def gemm_work(m: int, n: int, k: int, *, lhs: str = "bf16", rhs: str = "bf16",
              out: str = "bf16") -> Work:
    """2mnk FLOPs; reads A and B once and writes C once."""
    return Work(2.0 * m * n * k,
                nbytes((m, k), lhs) + nbytes((k, n), rhs) + nbytes((m, n), out))
