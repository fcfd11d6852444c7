"""Single-kernel sample generators for `stablecost collect kernels`.

Each op family has a *sampler* that draws one configuration (shapes log-uniform over
realistic ranges, a variant, a dtype) from a seeded generator, and a *builder* that
turns that configuration back into a JAX function and its argument specs. Samples are
reproducible from their parameters alone, which is how `dataset noise` re-measures a
row.

`core` holds the registry and the sweep; each family module registers its samplers
and builders there when imported, which this package does for all of them.

Group ids (for grouped splits) are the family, variant, dtype and the log2 bucket of
the sample's size: a held-out group is a region of shape space the model never saw.
"""

from . import (  # noqa: F401 - imported to register their families
    bitwise,
    convolution,
    elementwise,
    fused,
    matmul,
    movement,
    reductions,
    sorting,
    spectral,
)
from .core import (
    FAMILIES,
    MAX_BYTES,
    MAX_FLOPS,
    SAMPLERS,
    WEIGHTS,
    ArgSpec,
    Builder,
    KernelSpec,
    Sampler,
    build,
    builder,
    kernel_spec,
    log_uniform_int,
    sampler,
    schedule,
)

__all__ = ["FAMILIES", "MAX_BYTES", "MAX_FLOPS", "SAMPLERS", "WEIGHTS", "ArgSpec", "Builder",
           "KernelSpec", "Sampler", "build", "builder", "kernel_spec", "log_uniform_int",
           "sampler", "schedule"]
