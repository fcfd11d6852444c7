"""Export the custom-call test programs in this folder (run from the repository root:
`.venv/bin/python tests/custom_calls/export.py`).

- `cudnn_attention_*.mlir`: `jax.nn.dot_product_attention(..., implementation="cudnn")`
  lowered for CUDA. Lowering it only builds the custom call, but jax first asks the
  local cuDNN for its version and the GPU for its compute capability; on a machine
  without a GPU those three checks are answered here (cuDNN 9.11, Hopper), which is
  the only thing this script changes. jax and jaxlib are pinned (constraints.txt).
- `pallas_tpu_*.mlir`: Pallas kernels lowered for TPU (which needs no TPU), one with
  its author's `CostEstimate` and one without.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp

HERE = Path(__file__).resolve().parent


def _pretend_cuda() -> None:
    import jax._src.cudnn.fused_attention_stablehlo as fused

    fused.check_cudnn_version = lambda: 91100
    fused.check_compute_capability = lambda capability: True
    fused.is_cuda_compute_capability_equal = lambda capability: False


def _write(name: str, fn, *args, platform: str) -> None:
    text = jax.jit(fn).trace(*args).lower(lowering_platforms=(platform,)).as_text()
    (HERE / name).write_text(text)
    print(f"{name}: {len(text)} characters")


def attention(is_causal: bool, window: int | None = None):
    def fn(q, k, v):
        size = None if window is None else (window - 1, 0)
        return jax.nn.dot_product_attention(q, k, v, is_causal=is_causal,
                                            local_window_size=size, implementation="cudnn")
    return fn


def main() -> None:
    _pretend_cuda()
    bf16 = jnp.bfloat16
    q = jax.ShapeDtypeStruct((2, 128, 8, 64), bf16)

    def loss(q, k, v):
        return attention(True)(q, k, v).astype(jnp.float32).sum()

    _write("cudnn_attention_causal_train.mlir", jax.grad(loss, argnums=(0, 1, 2)), q, q, q,
           platform="cuda")
    cross_q = jax.ShapeDtypeStruct((2, 64, 4, 64), bf16)
    cross_kv = jax.ShapeDtypeStruct((2, 256, 4, 64), bf16)
    _write("cudnn_attention_cross_fwd.mlir", attention(False), cross_q, cross_kv, cross_kv,
           platform="cuda")
    _write("cudnn_attention_window_fwd.mlir", attention(True, window=32), q, q, q,
           platform="cuda")

    from jax.experimental import pallas as pl

    def scale_add(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] * 2.0 + y_ref[...]

    x = jax.ShapeDtypeStruct((256, 512), jnp.float32)
    out = jax.ShapeDtypeStruct((256, 512), jnp.float32)

    def with_estimate(a, b):
        return pl.pallas_call(scale_add, out_shape=out, cost_estimate=pl.CostEstimate(
            flops=2 * 256 * 512, transcendentals=0, bytes_accessed=3 * 256 * 512 * 4))(a, b)

    def without_estimate(a, b):
        return pl.pallas_call(scale_add, out_shape=out)(a, b)

    _write("pallas_tpu_estimate.mlir", with_estimate, x, x, platform="tpu")
    _write("pallas_tpu_no_estimate.mlir", without_estimate, x, x, platform="tpu")


if __name__ == "__main__":
    main()
