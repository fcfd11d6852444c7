"""StableHLO text for the kernels that public GPU measurements time.

Importers turn millions of measured rows into programs, so the text is built from
f-string templates here instead of lowering through JAX (which costs milliseconds per
program). Every template is checked in `tests/test_importers.py` to parse with
`load_program` and to have the FLOPs and bytes that `analyze` counts, against
hand-worked values.

Each builder is cached on its arguments: a sweep over a few thousand distinct shapes
builds each text once. The `*_work` helpers give the *effective* work of the measured
kernel (FLOPs it must do, bytes it must move at least) for outlier checks; they can be
smaller than what `analyze` counts on the dense program (a causal mask still computes
the masked half densely in StableHLO, a flash-attention kernel skips it).

`mlir` holds the shared pieces, `matmul`, `sdpa`, `collectives` and `neusight` the
templates per kernel kind.

Conventions (those of the programs JAX emits):
- one public `@main`, module attributes `mhlo.num_partitions` / `mhlo.num_replicas`;
- element types in MLIR spelling (`bf16`, `f16`, `f32`, `f8E4M3FN`, `f4E2M1FN`, `i8`,
  `i4`, `i32`);
- a collective is written as the per-device program XLA's partitioner produces: one
  replica group `[[0, 1, ..., n-1]]` over `n` partitions, `use_global_device_ids`.
"""

from .collectives import COLLECTIVES, collective, collective_bus_bytes
from .matmul import gemm, gemm_work
from .mlir import NEG_INF_F32, Work, module_text, nbytes, tensor_type
from .neusight import (
    SCALAR_OPERAND,
    bmm,
    conv2d,
    conv2d_flops,
    conv2d_out,
    elementwise,
    elementwise_work,
    linear,
)
from .sdpa import attention, attention_work, fused_attention, visible_pairs

__all__ = ["COLLECTIVES", "NEG_INF_F32", "SCALAR_OPERAND", "Work", "attention",
           "attention_work", "bmm", "collective", "collective_bus_bytes", "conv2d",
           "conv2d_flops", "conv2d_out", "elementwise", "elementwise_work", "fused_attention",
           "gemm", "gemm_work", "linear", "module_text", "nbytes", "tensor_type", "visible_pairs"]
