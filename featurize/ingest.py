"""`load_program`: StableHLO in any form the user has -> a flat `Program`.

It composes the steps: `sources` turns the input into an MLIR module, `walk` flattens
the module into ops (`loops` derives while-loop trip counts), and `placement` makes it
the program of one device when a mesh is given (`partition` runs XLA's partitioner).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import InvalidArgumentError
from .entry import check_entry, with_entry
from .gcpause import gc_paused
from .mlir import parse_module
from .partition import module_bytecode, parse_mesh
from .placement import load_module, program_on_mesh
from .program import Program
from .refine import check_dims, check_shapes, needs_refinement, refine
from .sources import module_from_source


@gc_paused
def load_program(source: Any, *example_args: Any, name: str | None = None,
                 mesh: Any = None, partition: bool | None = None,
                 entry: str | None = None, shapes: Mapping[Any, Any] | None = None,
                 dims: Mapping[str, int] | None = None,
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

    `entry` names the function that is the step when the module has several public
    ones and no @main (they are refused without it; see `featurize.entry`).

    `shapes` ({"arg0": (8, 128)}) and `dims` ({"b": 8}, the symbolic dimensions of a
    jax.export with shape polymorphism) make a program with dynamic dimensions
    (`tensor<?x128xf32>`) static by StableHLO's shape refinement before it is priced
    (see `featurize.refine`); without them such a program is refused with the
    arguments and dimensions that need them.
    """
    if name is not None and not isinstance(name, str):
        raise InvalidArgumentError(f"name must be a string, got {type(name).__name__}")
    if partition is not None and not isinstance(partition, bool):
        raise InvalidArgumentError(f"partition must be True, False or None, got {partition!r}")
    mesh_t = None if mesh is None else parse_mesh(mesh)
    entry = check_entry(entry)
    shapes_t, dims_t = check_shapes(shapes), check_dims(dims)
    if isinstance(source, Program):
        given = [k for k, v in (("entry", entry), ("shapes", shapes_t), ("dims", dims_t))
                 if v is not None]
        if given:
            raise InvalidArgumentError(f"{' and '.join(given)} apply to a program being "
                                       "loaded, not to a loaded Program")
        return source if mesh_t is None else program_on_mesh(source, mesh_t)
    module, label, stablehlo, notes = module_from_source(source, name, example_args,
                                                         example_kwargs, mesh_t)
    original = module

    def copy() -> Any:   # the caller's module (an ir.Module given) is never changed
        return parse_module(module_bytecode(original), label)

    module, entry_used = with_entry(module, label, entry, copy)
    if entry is not None:
        notes.append(f"entry function @{entry_used} (chosen by entry=)")
    if shapes_t is not None or dims_t is not None or needs_refinement(module):
        renamed = module is not original
        module, refined = refine(module, label, shapes_t, dims_t,
                                 (lambda: module) if renamed else copy)
        notes += refined
    if module is not original:   # what the measured fidelity compiles: the same step
        stablehlo = module.operation.get_asm(enable_debug_info=True,
                                             large_elements_limit=None)
    program = load_module(module, label, mesh_t, partition)
    program.notes[:0] = notes   # what a jax.export artifact said about itself
    # the global module, whatever the mesh: the measured fidelity compiles it
    program.stablehlo = stablehlo
    return program

