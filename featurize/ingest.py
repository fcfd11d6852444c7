"""`load_program`: StableHLO in any form the user has -> a flat `Program`.

The walk visits every region. `func.call` (and `stablehlo.composite`) is inlined at
every call site, so a function called N times is costed N times. The bodies of
`stablehlo.while` are walked once with an execution count equal to the trip count
when it can be derived from the loop (the counter pattern `fori_loop` and `scan`
emit); otherwise the loop is recorded with an assumed count of 1. Regions that are a
per-element computation (the reducer of reduce, the comparator of sort, ...) are not
program ops: they are summarized into the owning op's `body_flops`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, Sequence

from ..dtypes import bits_per_element
from ..errors import (
    InvalidArgumentError,
    ProgramParseError,
    UnsupportedProgramError,
)
from ..gcpause import gc_paused
from .attributes import decode_attributes, kernel_config, scalar_constant
from .mlir import bindings, parse_module
from .partition import (
    Mesh,
    mesh_size,
    mesh_text,
    module_bytecode,
    module_meshes,
    needs_partitioning,
    parse_mesh,
    remesh,
)
from .partition import partition as run_partitioner
from .program import Loop, Op, Program, TensorType, short_location
from .sources import module_from_source

# Ops whose regions are scalar computations applied per element or per window.
_BODY_OPS = frozenset({
    "stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.sort", "stablehlo.scatter",
    "stablehlo.select_and_scatter", "stablehlo.all_reduce", "stablehlo.reduce_scatter",
    "stablehlo.map",
})
_KNOWN = frozenset(f"stablehlo.{n}" for n in (
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "negate", "abs",
    "compare", "select", "convert", "broadcast_in_dim", "reshape", "transpose", "dot_general",
    "convolution", "exponential", "log", "tanh", "rsqrt", "sqrt", "slice", "concatenate",
    "pad", "iota", "constant", "gather", "dynamic_slice", "dynamic_update_slice", "and",
    "or", "not", "power", "logistic", "clamp", "reverse", "bitcast_convert"))
# Ops through which a loop counter stays a counter (shifted by a constant).
_COUNTER_ARITHMETIC = frozenset({"stablehlo.add", "stablehlo.subtract", "stablehlo.convert"})
_TERMINATORS = frozenset({"func.return", "stablehlo.return", "sdy.return", "mhlo.return"})
# Ops the walk handles itself rather than adding them to the program.
_STRUCTURAL = _TERMINATORS | {"func.call", "stablehlo.composite", "stablehlo.while",
                              "stablehlo.case", "stablehlo.if", "sdy.manual_computation",
                              "mhlo.fusion"}
_TRANSCENDENTAL_NAMES = ("exponential", "log", "tanh", "logistic", "power", "rsqrt", "sqrt",
                         "cbrt", "sine", "cosine", "tan", "atan2", "erf")
_MIRROR = {"LT": "GT", "LE": "GE", "GT": "LT", "GE": "LE", "NE": "NE", "EQ": "EQ"}


@gc_paused
def load_program(source: Any, *example_args: Any, name: str | None = None,
                 mesh: Any = None, partition: bool | None = None,
                 **example_kwargs: Any) -> Program:
    """Load a StableHLO program.

    `source` may be a path (`.mlir` text in pretty or generic form, `.mlirbc`
    bytecode), MLIR text, bytes (text or bytecode), a `jax.stages.Lowered`, a jitted
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
        return source if mesh_t is None else _program_on_mesh(source, mesh_t)
    module, label = module_from_source(source, name, example_args, example_kwargs, mesh_t)
    return _load_module(module, label, mesh_t, partition)


def _load_module(module: Any, label: str, mesh: Mesh | None,
                 partition: bool | None) -> Program:
    declared = module_meshes(module)
    if mesh is None:
        program = _walk(module, label)
        if declared:
            program.mesh = declared[0]
        if (program.num_devices > 1 or declared) and needs_partitioning(module):
            program.sharded_module = module_bytecode(module)
            program.notes.append(
                "the program is sharded by annotations over "
                f"{program.num_devices} device(s): these are the costs of the global "
                "(unpartitioned) computation; pass mesh= (--mesh) for the per-device "
                "program")
        return program
    n = mesh_size(mesh)
    run = needs_partitioning(module) if partition is None else partition
    if run and n == 1:   # one device: the global program is the per-device program
        program = _walk(module, label)
        program.mesh, program.num_partitions, program.num_replicas = mesh, 1, 1
        return program
    if run:
        if declared:
            if any(m != mesh for m in declared):   # resize a copy, never the caller's
                module = parse_module(module_bytecode(module), label)
                remesh(module, mesh, label)
        else:
            lowered_for = self_devices(module)
            if lowered_for > 1 and lowered_for != n:
                raise InvalidArgumentError(
                    f"{label}: the program's GSPMD shardings are for {lowered_for} devices, "
                    f"mesh {mesh_text(mesh)!r} has {n}; re-export it for {n} devices (only "
                    "Shardy programs, with an sdy.mesh, can be re-meshed)")
        per_device, device_ids = run_partitioner(module, mesh, label)
        program = _walk(parse_module(per_device, label), label, device_ids)
        program.num_partitions, program.num_replicas = n, 1
        program.mesh = mesh
        program.partitioned = True
        program.notes.insert(0, f"per-device program of mesh {mesh_text(mesh)}, from XLA's "
                                "SPMD partitioner")
        return program
    if declared and dict(declared[0]) != dict(mesh) and any(s > 1 for _, s in declared[0]):
        raise InvalidArgumentError(
            f"{label}: the program was lowered for mesh {mesh_text(declared[0])!r}, not "
            f"{mesh_text(mesh)!r}; its shard_map bodies have per-device shapes, so "
            "re-lower it for the mesh you want")
    program = _walk(module, label)
    return _program_on_mesh(program, mesh)


def self_devices(module: Any) -> int:
    """num_partitions x num_replicas declared by a module's attributes."""
    attrs = module.operation.attributes
    out = 1
    for key in ("mhlo.num_partitions", "mhlo.num_replicas"):
        if key in attrs:
            try:
                out *= int(attrs[key].value)
            except (ValueError, TypeError):
                pass
    return out


def _program_on_mesh(program: Program, mesh: Mesh) -> Program:
    """The program placed on `mesh`: partitioned when it is a global program sharded by
    annotations, else (already per-device) its device count must match."""
    n = mesh_size(mesh)
    if program.sharded_module is not None:
        module = parse_module(program.sharded_module, program.source)
        return _load_module(module, program.source, mesh, None)
    if program.mesh and dict(program.mesh) == dict(mesh):
        if program.mesh == mesh:
            return program
        return dataclasses.replace(program, mesh=mesh, _users=None)
    devices = program.num_partitions * program.num_replicas
    if devices > 1 and devices != n:
        raise InvalidArgumentError(
            f"{program.source}: the program runs on {devices} devices "
            f"(num_partitions={program.num_partitions}, num_replicas={program.num_replicas}), "
            f"mesh {mesh_text(mesh)!r} has {n}")
    if program.mesh and program.partitioned:
        raise InvalidArgumentError(
            f"{program.source}: the program was partitioned for mesh "
            f"{mesh_text(program.mesh)!r}; load it again with mesh {mesh_text(mesh)!r}")
    num_partitions = program.num_partitions if devices > 1 else n
    return dataclasses.replace(program, mesh=mesh, num_partitions=num_partitions, _users=None)


def _walk(module: Any, label: str,
          channel_device_ids: dict[int, list[int]] | None = None) -> Program:
    walker = _Walker(module, label, channel_device_ids or {})
    return walker.run()


class _Walker:
    def __init__(self, module: Any, label: str,
                 channel_device_ids: dict[int, list[int]]) -> None:
        self.ir, self.stablehlo, _, sdy = bindings()
        self.module = module
        self.label = label
        self.functions: dict[str, Any] = {}
        # sdy.mesh symbol -> (axes, device ids or None): for mesh-axes replica groups
        self.meshes: dict[str, tuple[tuple[tuple[str, int], ...], list[int] | None]] = {}
        self.channel_device_ids = channel_device_ids
        for op in module.body.operations:
            if op.operation.name == "func.func":
                fname = op.attributes["sym_name"].value
                self.functions[fname] = op
            elif op.operation.name == "sdy.mesh":
                attrs = op.operation.attributes
                mesh = sdy.MeshAttr(attrs["mesh"])
                axes = tuple((a.name, a.size) for a in (sdy.MeshAxisAttr(x) for x in mesh.axes))
                ids = list(mesh.device_ids)
                self.meshes[attrs["sym_name"].value] = (axes, ids or None)
        self.ops: list[Op] = []
        self.value_types: list[TensorType] = []
        self.producers: list[int] = []
        self.escaping: set[int] = set()
        self.loops: list[Loop] = []
        self.notes: list[str] = []
        self.const_values: dict[int, int | float] = {}
        # value id of a loop counter inside its loop -> the values it takes
        self.counter_values: dict[int, range] = {}
        self.also_from: dict[int, tuple[int, ...]] = {}
        self.type_cache: dict[Any, TensorType] = {}
        self.attr_cache: dict[Any, Any] = {}
        # location attribute -> shortened text, shared by the ops of this program
        # (MLIR uniques locations: the layers of a model repeat the same few)
        self.location_cache: dict[Any, str] = {}
        self.call_stack: list[str] = []
        self.blocks = 0

    # -- entry ------------------------------------------------------------------
    def run(self) -> Program:
        entry = self._entry()
        func = self.functions[entry]
        block = func.regions[0].blocks[0]
        args = [self._new_value(self._type(a.type, "func.func", func), -1)
                for a in block.arguments]
        results = self._call(entry, args, 1.0, self._new_block(), func)
        self.escaping.update(results)
        attrs = self.module.operation.attributes
        return Program(
            ops=self.ops, value_types=self.value_types, producers=self.producers,
            escaping=self.escaping, loops=self.loops,
            num_partitions=self._module_int(attrs, "mhlo.num_partitions"),
            num_replicas=self._module_int(attrs, "mhlo.num_replicas"),
            source=self.label, notes=self.notes, also_from=self.also_from,
        )

    def _entry(self) -> str:
        if not self.functions:
            raise ProgramParseError(f"{self.label}: the module has no func.func to run")
        if "main" in self.functions:
            return "main"
        public = [n for n, f in self.functions.items()
                  if "sym_visibility" not in f.attributes
                  or f.attributes["sym_visibility"].value == "public"]
        return public[0] if public else next(iter(self.functions))

    def _module_int(self, attrs: Any, key: str) -> int:
        if key in attrs:
            try:
                return int(attrs[key].value)
            except (ValueError, TypeError):
                return 1
        return 1

    # -- values and types ----------------------------------------------------------
    def _new_value(self, ttype: TensorType, producer: int) -> int:
        self.value_types.append(ttype)
        self.producers.append(producer)
        return len(self.value_types) - 1

    def _new_block(self) -> int:
        self.blocks += 1
        return self.blocks

    def _type(self, mlir_type: Any, opname: str, op: Any) -> TensorType:
        cached = self.type_cache.get(mlir_type)
        if cached is not None:
            return cached
        ir = self.ir
        if isinstance(mlir_type, ir.RankedTensorType):
            ranked = mlir_type
            dtype = str(ranked.element_type)
            if not ranked.has_static_shape:
                raise self._unsupported(op, opname, f"dynamically shaped type {mlir_type}")
            if bits_per_element(dtype) is None:
                if dtype.startswith("!quant."):
                    raise self._unsupported(op, opname, f"quantized type {mlir_type}")
                raise self._unsupported(op, opname, f"element type {dtype}")
            result = TensorType.of(tuple(ranked.shape), dtype)
        elif isinstance(mlir_type, ir.TupleType):
            tup = mlir_type
            parts = [self._type(tup.get_type(i), opname, op) for i in range(tup.num_types)]
            result = TensorType((), "tuple", sum(p.nbytes for p in parts))
        elif isinstance(mlir_type, ir.UnrankedTensorType):
            raise self._unsupported(op, opname, f"unranked type {mlir_type}")
        else:
            text = str(mlir_type)
            if "token" in text:
                result = TensorType((), "token", 0)
            elif bits_per_element(text) is not None:
                result = TensorType.of((), text)
            else:
                raise self._unsupported(op, opname, f"type {text}")
        self.type_cache[mlir_type] = result
        return result

    def _unsupported(self, op: Any, opname: str, what: str) -> UnsupportedProgramError:
        where = short_location(str(op.location)) if op is not None else ""
        at = f" at {where}" if where and where != "unknown" else ""
        return UnsupportedProgramError(
            f"{self.label}: unsupported program: {what} in op {opname}{at} "
            "(only statically shaped, non-quantized programs can be priced)")

    # -- walking ------------------------------------------------------------------------
    def _call(self, fname: str, args: list[int], count: float, block_id: int,
              site: Any) -> list[int]:
        if fname in self.call_stack:
            raise self._unsupported(site, "func.call", f"recursive call to @{fname}")
        func = self.functions.get(fname)
        if func is None:
            raise ProgramParseError(f"{self.label}: call to undefined function @{fname}")
        block = func.regions[0].blocks[0]
        env = dict(zip(block.arguments, args))
        self.call_stack.append(fname)
        try:
            return self._walk_block(block, env, count, block_id)
        finally:
            self.call_stack.pop()

    def _walk_block(self, block: Any, env: dict, count: float, block_id: int) -> list[int]:
        add_op = self._add_op
        for view in block.operations:
            op = view.operation
            name = op.name
            if name not in _STRUCTURAL:   # the common case: one plain op
                add_op(op, name, env, count, block_id)
            elif name in _TERMINATORS:
                return [env[v] for v in op.operands]
            elif name == "func.call":
                callee = op.attributes["callee"].value
                self._bind_results(op, env, self._call(
                    callee, [env[v] for v in op.operands], count, block_id, op))
            elif name == "stablehlo.composite":
                callee = op.attributes["decomposition"].value
                self._bind_results(op, env, self._call(
                    callee, [env[v] for v in op.operands], count, block_id, op))
            elif name == "stablehlo.while":
                self._while(op, env, count)
            elif name in ("stablehlo.case", "stablehlo.if"):
                self._branches(op, env, count)
            elif name == "sdy.manual_computation":
                self._manual_computation(op, env, count, block_id)
            elif name == "mhlo.fusion":
                # XLA's fusions (in modules converted from optimized HLO): inline the
                # body; our own fusion pass groups kernels for the target.
                body = op.regions[0].blocks[0]
                for arg, value in zip(body.arguments, op.operands):
                    env[arg] = env[value]
                self._bind_results(op, env, self._walk_block(body, env, count, block_id))
        return []

    def _bind_results(self, op: Any, env: dict, values: list[int]) -> None:
        for result, vid in zip(op.results, values):
            env[result] = vid

    def _add_op(self, op: Any, name: str, env: dict, count: float, block_id: int) -> None:
        # The hot loop of ingestion (one call per op): locals and list comprehensions
        # rather than helper calls, see benchmarks/speed.py.
        index = len(self.ops)
        inputs = tuple([env[v] for v in op.operands])
        value_types = self.value_types
        producers = self.producers
        type_cache = self.type_cache
        outputs = []
        result_types = []
        for result in op.results:
            mlir_type = result.type
            ttype = type_cache.get(mlir_type)
            if ttype is None:
                ttype = self._type(mlir_type, name, op)
            vid = len(value_types)
            value_types.append(ttype)
            producers.append(index)
            env[result] = vid
            outputs.append(vid)
            result_types.append(ttype)
        attributes = decode_attributes(op, self.attr_cache)
        if name == "stablehlo.constant":
            value = scalar_constant(op, self.attr_cache)
            attributes["value"] = value
            if value is not None and outputs:
                self.const_values[outputs[0]] = value
        elif name == "stablehlo.custom_call":
            config = kernel_config(op, attributes.get("call_target_name", ""))
            if config is not None:
                attributes["backend_config"] = config
        elif name in _BODY_OPS:
            self._summarize_body(op, attributes)
        elif name not in _KNOWN and len(op.regions):
            # an op with regions we do not know: walk them as part of the program
            for region in op.regions:
                for block in region.blocks:
                    self._walk_block(block, env, count, block_id)
        groups = attributes.get("replica_groups")
        if isinstance(groups, str) and "replica_group_mesh_axes" in groups:
            attributes["replica_groups"] = self._mesh_axes_groups(groups, attributes, op, name)
        if self.counter_values and name in _COUNTER_ARITHMETIC and outputs:
            self._follow_counter(name, inputs, outputs[0])
        opcode = name[10:] if name.startswith("stablehlo.") else name
        self.ops.append(Op(index, opcode, tuple([value_types[v] for v in inputs]),
                           tuple(result_types), inputs, tuple(outputs), attributes,
                           count, block_id, (op.location, self.location_cache)))

    def _mesh_axes_groups(self, text: str, attributes: dict, op: Any,
                          name: str) -> list[list[int]]:
        """`#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [...]>` as explicit
        groups of device ids, from the module's `sdy.mesh @m`."""
        found = _MESH_REF.search(text)
        mesh = self.meshes.get(found.group(1)) if found else None
        if mesh is None:
            raise self._unsupported(op, name, f"replica groups {text} on an undeclared mesh")
        axes, device_ids = mesh
        channel = (attributes.get("channel_handle") or {}).get("handle")
        if channel in self.channel_device_ids:   # XLA's device order, lost in conversion
            device_ids = self.channel_device_ids[channel]
        refs = []
        sizes = dict(axes)
        for ref in _AXIS_REF.finditer(text):
            axis, pre, size = ref.group(1), ref.group(2), ref.group(3)
            if axis not in sizes:
                raise self._unsupported(op, name, f"replica groups on unknown mesh axis "
                                                  f"{axis!r} ({text})")
            refs.append((axis, int(pre) if pre else 1, int(size) if size else sizes[axis]))
        return mesh_axes_groups(axes, refs, device_ids)

    def _summarize_body(self, op: Any, attributes: dict) -> None:
        """One application of the op's scalar regions, into `attributes`:
        `body_ops` (the short names of its arithmetic ops: costs weighs them for complex
        values), `body_flops` (their number), `body_transcendentals`, and for
        select_and_scatter `select_flops` / `scatter_flops` (its two regions run a
        different number of times)."""
        names: list[str] = []
        per_region: list[int] = []
        transcendentals = 0
        for region in op.regions:
            before = len(names)
            for block in region.blocks:
                for inner in block.operations:
                    iname = inner.operation.name
                    if iname in _TERMINATORS or iname.endswith("constant"):
                        continue
                    short = iname.split(".", 1)[-1]
                    if short.startswith(_TRANSCENDENTAL_NAMES):
                        transcendentals += 1
                    else:
                        names.append(short)
            per_region.append(len(names) - before)
        attributes["body_ops"] = tuple(names)
        attributes["body_flops"] = len(names)
        attributes["body_transcendentals"] = transcendentals
        if len(per_region) == 2 and op.name == "stablehlo.select_and_scatter":
            attributes["select_flops"], attributes["scatter_flops"] = per_region

    # -- control flow ---------------------------------------------------------------------
    def _while(self, op: Any, env: dict, count: float) -> None:
        init = [env[v] for v in op.operands]
        cond = op.regions[0].blocks[0]
        body = op.regions[1].blocks[0]
        body_yield = list(body.operations)[-1].operation.operands
        trip, reason = self._trip_count(init, cond, body, body_yield)
        where = short_location(str(op.location))
        if trip is None:
            self.loops.append(Loop(where, 1, False, reason))
            self.notes.append(f"while loop at {where}: trip count not derivable ({reason}); "
                              "assumed to run once")
            trip = 1
        else:
            self.loops.append(Loop(where, trip, True, reason))
            if reason:
                self.notes.append(f"while loop at {where}: {reason}")
        # A value the body passes on unchanged is the initial value in every iteration;
        # any other carried value is a new value inside the loop: its producer is the
        # previous iteration, not the op that computed the initial value.
        invariant = [isinstance(y, self.ir.BlockArgument) and y.owner == body
                     and y.arg_number == i for i, y in enumerate(body_yield)]
        for block in (cond, body):
            for i, (arg, vid) in enumerate(zip(block.arguments, init)):
                if invariant[i]:
                    env[arg] = vid
                else:
                    env[arg] = carried = self._new_value(self.value_types[vid], -1)
                    self.also_from[carried] = (vid,)
        if isinstance(trip, int) and 0 < trip <= _MAX_COUNTER_VALUES:
            self._note_counters(init, body, body_yield, trip, invariant, env)
        self.escaping.update(self._walk_block(cond, env, count * (trip + 1), self._new_block()))
        yields = self._walk_block(body, env, count * trip, self._new_block())
        self.escaping.update(yields)
        self._bind_results(op, env, yields if trip > 0 else init)

    def _note_counters(self, init: list[int], body: Any, body_yield: Any, trip: int,
                       invariant: list[bool], env: dict) -> None:
        """Remember the values each induction variable of the body takes (a constant
        start, a constant step per iteration): loops nested in this one may run up to
        them. jax's fori_loop carries the user's `i` beside the loop's own counter."""
        for position, (arg, vid) in enumerate(zip(body.arguments, init)):
            start = self.const_values.get(vid)
            if invariant[position] or not isinstance(start, int):
                continue
            step = self._counter_step(body_yield[position], position, init, body_yield, body)
            if isinstance(step, int) and step:
                self.counter_values[env[arg]] = range(start, start + trip * step, step)

    def _trip_count(self, init: list[int], cond: Any, body: Any, body_yield: Any
                    ) -> tuple[int | float | None, str]:
        """(trip count or None when it cannot be derived, explanation).

        A loop whose start or bound is the counter of an enclosing loop runs a different
        number of times in each iteration of the enclosing loop: its count is their
        mean, so that it times the enclosing loop's count is the exact total.
        """
        ir = self.ir
        cond_ops = list(cond.operations)
        predicate = cond_ops[-1].operation.operands[0]
        if isinstance(predicate, ir.BlockArgument) or predicate.owner.name != "stablehlo.compare":
            return None, "the condition is not a single compare"
        compare = predicate.owner
        direction = self.stablehlo.ComparisonDirectionAttr(
            compare.attributes["comparison_direction"]).value
        lhs, rhs = compare.operands[0], compare.operands[1]
        for counter, limit, dirn in ((lhs, rhs, direction), (rhs, lhs, _MIRROR[direction])):
            if not isinstance(counter, ir.BlockArgument):
                continue
            position = counter.arg_number
            start = self._known(init[position])
            bound = self._loop_constant(limit, init, body_yield)
            step = self._counter_step(body_yield[position], position, init, body_yield, body)
            if start is None or bound is None or step is None:
                continue
            if isinstance(start, range) or isinstance(bound, range):
                trip = _mean_trip(start, bound, int(step), dirn)
                if trip is not None:
                    return trip, (f"its bounds follow an enclosing loop's counter: {trip:g} "
                                  "iterations on average over that loop's iterations")
                continue
            trip = _trip(int(start), int(bound), int(step), dirn)
            if trip is not None:
                return trip, ""
        return None, "no counter compared against a constant bound"

    def _known(self, vid: int) -> int | float | range | None:
        """A value's constant, or the values it takes as an enclosing loop's counter."""
        value = self.const_values.get(vid)
        return value if value is not None else self.counter_values.get(vid)

    def _loop_constant(self, value: Any, init: list[int], body_yield: Any
                       ) -> int | float | range | None:
        """A value's constant: defined by a constant, or a loop-invariant argument
        whose initial value is constant (or an enclosing loop's counter)."""
        ir = self.ir
        if isinstance(value, ir.BlockArgument):
            position = value.arg_number
            passed = body_yield[position]
            if isinstance(passed, ir.BlockArgument) and passed.arg_number == position:
                return self._known(init[position])
            return None
        owner = value.owner
        if owner.name == "stablehlo.constant":
            return scalar_constant(owner.operation)
        return None

    def _counter_step(self, yielded: Any, position: int, init: list[int], body_yield: Any,
                      body: Any) -> int | float | None:
        """c when the body yields (its argument `position`) + c at `position`, c a
        constant; looks through the functions the body calls (fori_loop's body is one)."""
        return self._offset(yielded, body.arguments[position], {}, init, body_yield, 0)

    def _offset(self, value: Any, target: Any, passed: dict, init: list[int],
                body_yield: Any, depth: int) -> int | float | None:
        ir = self.ir
        if isinstance(value, ir.BlockArgument):
            if value == target:
                return 0
            outer = passed.get(value)   # an argument of a called function
            return None if outer is None else self._offset(
                outer, target, passed, init, body_yield, depth)
        owner = value.owner
        name = owner.name
        if name in ("stablehlo.add", "stablehlo.subtract"):
            a, b = owner.operands[0], owner.operands[1]
            pairs = ((a, b, 1), (b, a, 1)) if name == "stablehlo.add" else ((a, b, -1),)
            for term, other, sign in pairs:
                offset = self._offset(term, target, passed, init, body_yield, depth)
                if offset is None:
                    continue
                while isinstance(other, ir.BlockArgument) and other in passed:
                    other = passed[other]
                constant = self._loop_constant(other, init, body_yield)
                if isinstance(constant, (int, float)):
                    return offset + sign * constant
            return None
        if name == "stablehlo.convert":
            return self._offset(owner.operands[0], target, passed, init, body_yield, depth)
        if name == "func.call" and depth < 8:
            callee = self.functions.get(owner.attributes["callee"].value)
            if callee is None:
                return None
            entry = callee.regions[0].blocks[0]
            returned = list(entry.operations)[-1].operation.operands[value.result_number]
            inner = dict(passed)
            inner.update(zip(entry.arguments, owner.operands))
            return self._offset(returned, target, inner, init, body_yield, depth + 1)
        return None

    def _follow_counter(self, name: str, inputs: tuple[int, ...], output: int) -> None:
        """A loop counter shifted by a constant (`i + 1`, `n - 1 - i`) or converted is
        a counter too: a nested loop may run up to it."""
        counters, constants = self.counter_values, self.const_values
        first = counters.get(inputs[0])
        if name == "stablehlo.convert":
            if first is not None:
                counters[output] = first
            return
        if len(inputs) != 2:
            return
        second = counters.get(inputs[1])
        if first is not None and isinstance(k := constants.get(inputs[1]), int):
            k = k if name == "stablehlo.add" else -k
            counters[output] = range(first.start + k, first.stop + k, first.step)
        elif second is not None and isinstance(k := constants.get(inputs[0]), int):
            if name == "stablehlo.add":
                counters[output] = range(second.start + k, second.stop + k, second.step)
            else:   # k - i
                counters[output] = range(k - second.start, k - second.stop, -second.step)

    def _branches(self, op: Any, env: dict, count: float) -> None:
        n = len(op.regions)
        where = short_location(str(op.location))
        self.notes.append(f"{op.name} at {where}: {n} branches, each assumed to run "
                          f"1/{n} of the time")
        branches: list[list[int]] = []
        for region in op.regions:
            yields = self._walk_block(region.blocks[0], env, count / n, self._new_block())
            self.escaping.update(yields)
            branches.append(yields)
        # a result is whichever branch's yield: a new value that waits for all of them
        for i, result in enumerate(op.results):
            vid = env[result] = self._new_value(self._type(result.type, op.name, op), -1)
            self.also_from[vid] = tuple(b[i] for b in branches if i < len(b))

    def _manual_computation(self, op: Any, env: dict, count: float, block_id: int) -> None:
        body = op.regions[0].blocks[0]
        for arg in body.arguments:  # per-device shapes differ from the global operands
            env[arg] = self._new_value(self._type(arg.type, op.name, op), -1)
        yields = self._walk_block(body, env, count, block_id)
        self.escaping.update(yields)
        for result in op.results:
            env[result] = self._new_value(self._type(result.type, op.name, op), -1)


_MESH_REF = re.compile(r"mesh\s*=\s*@([\w.$-]+)")
_AXIS_REF = re.compile(r'axis_ref<name\s*=\s*"([^"]+)"'
                       r'(?:[^>]*?pre_size\s*=\s*(\d+)[^>]*?size\s*=\s*(\d+))?')


def mesh_axes_groups(axes: Sequence[tuple[str, int]], refs: Sequence[tuple[str, int, int]],
                     device_ids: Sequence[int] | None = None) -> list[list[int]]:
    """Replica groups of the devices that differ only along `refs` ((axis, pre_size,
    size): the sub-axis of `size` coordinates `pre_size` apart; a whole axis is
    (axis, 1, its size)) on a mesh of `axes` whose positions, row-major, hold
    `device_ids` (default: 0, 1, 2, ...)."""
    names = [a for a, _ in axes]
    sizes = [s for _, s in axes]
    total = math.prod(sizes)
    ids = [int(d) for d in device_ids] if device_ids is not None else list(range(total))
    groups: dict[tuple, list[tuple[tuple, int]]] = {}
    for position in range(total):
        coords = []
        rest = position
        for size in reversed(sizes):
            rest, c = divmod(rest, size)
            coords.append(c)
        coords.reverse()
        fixed = list(coords)
        varying = []
        for axis, pre, size in refs:
            i = names.index(axis)
            part = (coords[i] // pre) % size
            varying.append(part)
            fixed[i] -= part * pre
        key = tuple(fixed)
        groups.setdefault(key, []).append((tuple(varying), ids[position]))
    return [[d for _, d in sorted(members)] for _, members in sorted(groups.items())]


# An enclosing loop's counter with more values than this is not followed into the
# loops nested in it (their counts are then not derivable).
_MAX_COUNTER_VALUES = 100_000


def _mean_trip(start: int | float | range, bound: int | float | range, step: int,
               direction: str) -> float | None:
    """Mean trip count of a loop whose start and/or bound take the values of an
    enclosing loop's counter (a range), one per iteration of the enclosing loop."""
    if isinstance(start, range) and isinstance(bound, range):
        return None   # two counters: which values go together is not followed
    n = len(start) if isinstance(start, range) else len(bound)  # type: ignore[arg-type]
    if n == 0:
        return 0.0
    total = 0
    for k in range(n):
        s = start[k] if isinstance(start, range) else start
        b = bound[k] if isinstance(bound, range) else bound
        trip = _trip(int(s), int(b), step, direction)
        if trip is None:
            return None
        total += trip
    return total / n


def _trip(start: int, bound: int, step: int, direction: str) -> int | None:
    if step == 0:
        return None
    if direction == "LT" and step > 0:
        return max(0, math.ceil((bound - start) / step))
    if direction == "LE" and step > 0:
        return max(0, (bound - start) // step + 1)
    if direction == "GT" and step < 0:
        return max(0, math.ceil((start - bound) / -step))
    if direction == "GE" and step < 0:
        return max(0, (start - bound) // -step + 1)
    if direction == "NE" and (bound - start) % step == 0 and (bound - start) / step >= 0:
        return (bound - start) // step
    return None
