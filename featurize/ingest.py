"""`load_program`: StableHLO in any form the user has -> a flat `Program`.

It composes the steps: `sources` turns the input into an MLIR module, `walk` flattens
the module into ops (`loops` derives while-loop trip counts), and `placement` makes it
the program of one device when a mesh is given (`partition` runs XLA's partitioner).
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgumentError
from .gcpause import gc_paused
from .partition import parse_mesh
from .placement import load_module, program_on_mesh
from .program import Program
from .sources import module_from_source


@gc_paused
def load_program(source: Any, *example_args: Any, name: str | None = None,
                 mesh: Any = None, partition: bool | None = None,
                 **example_kwargs: Any) -> Program:
    """Load a StableHLO program.

    `source` may be a path (`.mlir` text in pretty or generic form, `.mlirbc`
    bytecode or a StableHLO portable artifact of any version this jaxlib reads, the
    bytes of `jax.export.Exported.serialize()`), MLIR text, bytes (any of those), a
    `jax.stages.Lowered`, a jitted
    or plain JAX function (then pass example arguments), an `ir.Module`, or a
    `Program` (returned as is).

    `mesh` ({"data": 4, "model": 2}, "data=4,model=2", or a jax Mesh) makes it the
    program of *one device* of that mesh:

    - a program sharded by annotations (NamedSharding / Shardy `sdy.sharding`, GSPMD
      `mhlo.sharding`, sharding constraints) is split by XLA's SPMD partitioner for the
      mesh (see `featurize.partition`; no extra devices or XLA_FLAGS needed), and its
      collectives appear. A module whose `sdy.mesh` has other sizes is re-meshed first
      (same axis names); GSPMD shardings are fixed to their device count.
    - a program with explicit collectives (shard_map, pmap) is already per-device: the
      mesh gives its device count and layout (it must match the program's).
    - a JAX function is lowered for the mesh without devices: under an abstract mesh of
      that shape, so its example arguments may be `jax.ShapeDtypeStruct`s whose
      `sharding` is a bare `PartitionSpec`, and `with_sharding_constraint(x, P(...))` /
      `jax.shard_map` without `mesh=` work inside it.

    `partition` forces (True) or skips (False) the partitioner; by default it runs when
    the program carries sharding annotations outside shard_map bodies. Without `mesh`,
    a program sharded by annotations is loaded as the global computation (a note says
    so).
    """
    if name is not None and not isinstance(name, str):
        raise InvalidArgumentError(f"name must be a string, got {type(name).__name__}")
    if partition is not None and not isinstance(partition, bool):
        raise InvalidArgumentError(f"partition must be True, False or None, got {partition!r}")
    mesh_t = None if mesh is None else parse_mesh(mesh)
    if isinstance(source, Program):
        return source if mesh_t is None else program_on_mesh(source, mesh_t)
    module, label, stablehlo, notes = module_from_source(source, name, example_args,
                                                         example_kwargs, mesh_t)
    program = load_module(module, label, mesh_t, partition)
    program.notes[:0] = notes   # what a jax.export artifact said about itself
    # the global module, whatever the mesh: the measured fidelity compiles it
    program.stablehlo = stablehlo
    return program
