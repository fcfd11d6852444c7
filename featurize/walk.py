"""The module walk: a parsed StableHLO module -> a flat `Program` of ops.

The walk visits every region. `func.call` (and `stablehlo.composite`) is inlined at
every call site, so a function called N times is costed N times. The bodies of
`stablehlo.while` are walked once with an execution count equal to the trip count
when it can be derived from the loop (see `loops`); otherwise the loop is recorded
with an assumed count of 1. Regions that are a per-element computation (the reducer of
reduce, the comparator of sort, ...) are not program ops: they are summarized into the
owning op's `body_flops`.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from ..dtypes import bits_per_element, is_quantized, quantized_storage
from ..errors import ProgramParseError, UnsupportedProgramError
from .attributes import decode_attributes, kernel_config, scalar_constant
from .entry import entry_name
from .limits import budget
from .loops import COUNTER_ARITHMETIC, LoopCounters
from .mlir import bindings
from .program import STEP_BLOCK, Loop, Op, Program, TensorType, short_location
from .replica_groups import (
    MeshDevices,
    axis_refs,
    declared_mesh,
    mesh_axes_groups,
    mesh_symbol,
)

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
_TERMINATORS = frozenset({"func.return", "stablehlo.return", "sdy.return", "mhlo.return"})
# Ops the walk handles itself rather than adding them to the program.
_STRUCTURAL = _TERMINATORS | {"func.call", "stablehlo.composite", "stablehlo.while",
                              "stablehlo.case", "stablehlo.if", "sdy.manual_computation",
                              "mhlo.fusion"}
# Loop-invariant code motion (`_hoist_invariant`), a what-if until the bundle is refitted
# over it: off by default, STABLECOST_HOIST_INVARIANT=1 turns it on. XLA's
# WhileLoopInvariantCodeMotion runs before fusion in the CPU and GPU pipelines and
# moves out of a `while` body every side-effect-free op whose operands are all
# invariant in the loop; on never-seen-24's equilibrium propagation it computes the
# first layer's 128 x 784 x 512 dot once, not in each of 64 sweeps.
HOIST_INVARIANT = os.environ.get("STABLECOST_HOIST_INVARIANT", "0") == "1"
# Cheap ops XLA does not hoist on their own, only with a hoisted op that needs them
# (its `NotWorthHoistingIndividually`).
_NOT_WORTH_HOISTING = frozenset({"bitcast", "broadcast", "broadcast_in_dim", "constant",
                                 "iota", "reshape", "reverse", "slice", "dynamic_slice",
                                 "transpose", "tuple", "get_tuple_element"})
# Ops never hoisted: they have effects, talk to other devices, or draw random bits.
_NOT_HOISTED = frozenset({"custom_call", "rng", "rng_bit_generator", "all_reduce",
                          "all_gather", "reduce_scatter", "all_to_all", "collective_permute",
                          "collective_broadcast", "send", "recv", "infeed", "outfeed",
                          "after_all", "optimization_barrier", "partition_id", "replica_id"})
# Ops of other dialects that are a StableHLO op under another name: torch-mlir's
# StableHLO output keeps small tensor constants as `arith.constant`.
_ALIASES = {"arith.constant": "stablehlo.constant"}
_TRANSCENDENTAL_NAMES = ("exponential", "log", "tanh", "logistic", "power", "rsqrt", "sqrt",
                         "cbrt", "sine", "cosine", "tan", "atan2", "erf")


def scan_window(shape: list[int], attributes: dict) -> dict[str, Any]:
    """The window of the cumulative reduce_window a `chlo.scan` along `dimension` is
    (jax 0.11 lowers `jnp.cumsum` to the scan, jax 0.10 to that reduce_window): the
    whole dimension, padded by its length - 1 before it (after it when reversed). It is
    priced and featurized as that reduce_window, which the bundled models know."""
    dim = int(attributes.get("dimension", 0))
    n = shape[dim] if 0 <= dim < len(shape) else 1
    padding = [[0, 0] for _ in shape]
    if 0 <= dim < len(shape):
        padding[dim] = [0, n - 1] if attributes.get("is_reverse") else [n - 1, 0]
    return {"window_dimensions": [n if d == dim else 1 for d in range(len(shape))],
            "window_strides": [1] * len(shape), "padding": padding}


def walk(module: Any, label: str,
         channel_device_ids: dict[int, list[int]] | None = None) -> Program:
    """The program of `module`'s entry function (`label` names it in messages;
    `channel_device_ids`: the partitioner's device order of mesh-axes replica groups,
    by channel)."""
    walker = _Walker(module, label, channel_device_ids or {})
    return walker.run()


class _Walker:
    """One walk of one module: the ops, values, loops and notes it collects."""

    def __init__(self, module: Any, label: str,
                 channel_device_ids: dict[int, list[int]]) -> None:
        self.ir, self.stablehlo, _, sdy = bindings()
        self.module = module
        self.label = label
        self.max_call_depth = budget("STABLECOST_MAX_CALL_DEPTH")
        self.max_ops = budget("STABLECOST_MAX_OPS")
        self.functions: dict[str, Any] = {}
        # sdy.mesh symbol -> (axes, device ids or None): for mesh-axes replica groups
        self.meshes: dict[str, MeshDevices] = {}
        self.channel_device_ids = channel_device_ids
        for op in module.body.operations:
            if op.operation.name == "func.func":
                fname = op.attributes["sym_name"].value
                self.functions[fname] = op
            elif op.operation.name == "sdy.mesh":
                symbol, mesh = declared_mesh(sdy, op.operation)
                self.meshes[symbol] = mesh
        self.ops: list[Op] = []
        self.value_types: list[TensorType] = []
        self.producers: list[int] = []
        self.escaping: set[int] = set()
        self.loops: list[Loop] = []
        self.notes: list[str] = []
        self.counters = LoopCounters(self.ir, self.stablehlo, self.functions)
        self.also_from: dict[int, tuple[int, ...]] = {}
        self.same_buffer: dict[int, int] = {}
        self.loop_blocks: list[tuple[int, int]] = []
        self.shards: dict[int, int] = {}
        self.type_cache: dict[Any, TensorType] = {}
        self.attr_cache: dict[Any, Any] = {}
        # location attribute -> shortened text, shared by the ops of this program
        # (MLIR uniques locations: the layers of a model repeat the same few)
        self.location_cache: dict[Any, str] = {}
        self.call_stack: list[str] = []
        self.called: set[str] = set()
        self.size_checked = False
        self.entry = ""
        self.blocks = 0
        self.quantized_types: set[str] = set()

    # -- entry ------------------------------------------------------------------
    def run(self) -> Program:
        entry = self._entry()
        self.entry = entry
        func = self.functions[entry]
        block = func.regions[0].blocks[0]
        args = [self._new_value(self._type(a.type, "func.func", func), -1)
                for a in block.arguments]
        step_block = self._new_block()
        assert step_block == STEP_BLOCK
        results = self._call(entry, args, 1.0, step_block, func)
        self.escaping.update(results)
        if self.quantized_types:
            shown = sorted(self.quantized_types)
            self.notes.append(
                f"{len(shown)} quantized element type(s) ({', '.join(shown[:3])}"
                f"{', ...' if len(shown) > 3 else ''}) priced as their integer storage "
                "types: quantized dot/convolution at the chip's integer rate, "
                "uniform_quantize/dequantize as elementwise passes")
        attrs = self.module.operation.attributes
        return Program(
            ops=self.ops, value_types=self.value_types, producers=self.producers,
            escaping=self.escaping, loops=self.loops,
            num_partitions=self._module_int(attrs, "mhlo.num_partitions"),
            num_replicas=self._module_int(attrs, "mhlo.num_replicas"),
            source=self.label, notes=self.notes, also_from=self.also_from,
            num_parameters=len(args),
            arguments=tuple(args), results=tuple(results),
            donated={args[i]: out for i, out in _donated_arguments(self.ir, func).items()
                     if i < len(args)},
            same_buffer=self.same_buffer, shards=self.shards, loop_blocks=self.loop_blocks,
        )

    def _check_inlined_size(self, entry: str) -> None:
        """Refuse, before walking, a call graph that inlines to more than `max_ops` ops.

        Functions that call each other several times multiply: 40 functions each calling
        the next twice are 2^40 copies, which the walk would otherwise copy out op by op
        until the budget stops it (about 20 s at 1M ops). One pass over the op names
        counts each function's own ops and call sites; sizes then follow the call graph,
        each function costed once (a recursion is left for the walk to name). Run when
        a function is first called a second time: until then nothing is copied twice."""
        own: dict[str, int] = {}
        callees: dict[str, list[str]] = {}
        for fname, func in self.functions.items():
            count, calls = 0, []
            blocks = [block for region in func.regions for block in region.blocks]
            while blocks:
                for view in blocks.pop().operations:
                    op = view.operation
                    name = op.name
                    if name == "func.call":
                        calls.append(op.attributes["callee"].value)
                    elif name == "stablehlo.composite":
                        calls.append(op.attributes["decomposition"].value)
                    else:
                        count += 1
                        if name in _STRUCTURAL:
                            blocks.extend(b for r in op.regions for b in r.blocks)
            own[fname], callees[fname] = count, calls
        size: dict[str, float] = {}
        stack = [entry]
        while stack:                     # iterative post-order over the call graph
            fname = stack[-1]
            pending = [c for c in callees.get(fname, ()) if c not in size and c in own
                       and c not in stack]
            if pending:
                stack.extend(dict.fromkeys(pending))
                continue
            stack.pop()
            size[fname] = own[fname] + sum(size.get(c, 0.0) for c in callees[fname])
            if size[fname] > self.max_ops:
                raise UnsupportedProgramError(
                    f"{self.label}: more than {self.max_ops:,} ops once calls are inlined "
                    f"(@{fname} alone inlines to {size[fname]:,.0f}; budget "
                    "STABLECOST_MAX_OPS); a function called from many places is copied "
                    "at each call")

    def _entry(self) -> str:
        return entry_name(self.module, self.label, None)

    def _module_int(self, attrs: Any, key: str) -> int:
        if key in attrs:
            try:
                return int(attrs[key].value)
            except (ValueError, TypeError, AttributeError):   # not an integer attribute
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
                storage = quantized_storage(dtype)
                if storage is None:
                    what = "quantized type" if is_quantized(dtype) else "element type"
                    raise self._unsupported(op, opname, f"{what} {dtype}")
                # a quantized value is priced as the integers it is stored in
                self.quantized_types.add(dtype)
                dtype = storage
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
            "(only statically shaped programs with known element types can be priced)")

    # -- walking ------------------------------------------------------------------------
    def _call(self, fname: str, args: list[int], count: float, block_id: int,
              site: Any) -> list[int]:
        if fname in self.call_stack:
            raise self._unsupported(site, "func.call", f"recursive call to @{fname}")
        if len(self.call_stack) >= self.max_call_depth:
            raise UnsupportedProgramError(
                f"{self.label}: calls nested more than {self.max_call_depth} deep (budget "
                "STABLECOST_MAX_CALL_DEPTH)")
        func = self.functions.get(fname)
        if func is None:
            raise ProgramParseError(f"{self.label}: call to undefined function @{fname}")
        if fname in self.called and not self.size_checked:
            # only a function inlined more than once can multiply the program
            self.size_checked = True
            self._check_inlined_size(self.entry)
        self.called.add(fname)
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
                self._while(op, env, count, block_id)
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
        name = _ALIASES.get(name, name)
        if name == "stablehlo.constant":
            value = scalar_constant(op, self.attr_cache)
            attributes["value"] = value
            if value is not None and outputs:
                self.counters.const_values[outputs[0]] = value
        elif name == "stablehlo.custom_call":
            config = kernel_config(op, attributes.get("call_target_name", ""))
            if config is not None:
                attributes["backend_config"] = config
        elif name in _BODY_OPS:
            self._summarize_body(op, attributes)
        elif name == "chlo.scan":
            name = "stablehlo.reduce_window"
            self._summarize_body(op, attributes)
            attributes.update(scan_window(op.operands[0].type.shape, attributes))
        elif name not in _KNOWN and len(op.regions):
            # an op with regions we do not know: walk them as part of the program
            for region in op.regions:
                for block in region.blocks:
                    self._walk_block(block, env, count, block_id)
        groups = attributes.get("replica_groups")
        if isinstance(groups, str) and "replica_group_mesh_axes" in groups:
            attributes["replica_groups"] = self._mesh_axes_groups(groups, attributes, op, name)
        if self.counters.counter_values and name in COUNTER_ARITHMETIC and outputs:
            self.counters.follow_counter(name, inputs, outputs[0])
        opcode = name[10:] if name.startswith("stablehlo.") else name
        if len(self.ops) >= self.max_ops:
            raise UnsupportedProgramError(
                f"{self.label}: more than {self.max_ops:,} ops once calls are inlined "
                "(budget STABLECOST_MAX_OPS); a function called from many places is "
                "copied at each call")
        self.ops.append(Op(index, opcode, tuple([value_types[v] for v in inputs]),
                           tuple(result_types), inputs, tuple(outputs), attributes,
                           count, block_id, (op.location, self.location_cache)))

    def _mesh_axes_groups(self, text: str, attributes: dict, op: Any,
                          name: str) -> list[list[int]]:
        """`#stablehlo.replica_group_mesh_axes<mesh = @m, axes = [...]>` as explicit
        groups of device ids, from the module's `sdy.mesh @m`."""
        symbol = mesh_symbol(text)
        mesh = self.meshes.get(symbol) if symbol else None
        if mesh is None:
            raise self._unsupported(op, name, f"replica groups {text} on an undeclared mesh")
        axes, device_ids = mesh
        channel = (attributes.get("channel_handle") or {}).get("handle")
        if channel in self.channel_device_ids:   # XLA's device order, lost in conversion
            device_ids = self.channel_device_ids[channel]
        refs = []
        sizes = dict(axes)
        for axis, pre, size in axis_refs(text):
            if axis not in sizes:
                raise self._unsupported(op, name, f"replica groups on unknown mesh axis "
                                                  f"{axis!r} ({text})")
            refs.append((axis, pre, sizes[axis] if size is None else size))
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
    def _while(self, op: Any, env: dict, count: float, outer_block: int) -> None:
        boundary = len(self.value_types)     # every value before it is defined outside
        init = [env[v] for v in op.operands]
        cond = op.regions[0].blocks[0]
        body = op.regions[1].blocks[0]
        body_yield = list(body.operations)[-1].operation.operands
        trip, reason = self.counters.trip_count(init, cond, body, body_yield)
        where = short_location(str(op.location))
        position = len(self.loops)
        if trip is None:
            self.loops.append(Loop(where, 1, False, reason))
            self.notes.append(f"while loop at {where}: trip count not derivable ({reason}); "
                              "assumed to run once")
            trip = 1
        else:
            self.loops.append(Loop(where, trip, True, reason,
                                   exits_early=self.counters.exits_early(cond)))
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
                    self.same_buffer[carried] = vid
        self.counters.note_counters(init, body, body_yield, trip, invariant, env)
        first = self.blocks + 1
        self.escaping.update(self._walk_block(cond, env, count * (trip + 1), self._new_block()))
        body_start, body_block = len(self.ops), self._new_block()
        yields = self._walk_block(body, env, count * trip, body_block)
        if HOIST_INVARIANT and trip > 1:
            hoisted = self._hoist_invariant(body_start, boundary, body_block, count,
                                            outer_block)
            if hoisted:
                self.notes.append(f"while loop at {where}: {hoisted} op(s) invariant in the "
                                  "loop run once before it (loop-invariant code motion)")
        self.loop_blocks.append((first, self.blocks))
        self.loops[position] = dataclasses.replace(self.loops[position],
                                                   blocks=(first, self.blocks))
        self.escaping.update(yields)
        for i, (vid, out) in enumerate(zip(init, yields)):
            if not invariant[i] and out != vid and out not in self.same_buffer:
                self.same_buffer[out] = vid   # the next iteration's state, in place
        self._bind_results(op, env, yields if trip > 0 else init)

    def _hoist_invariant(self, start: int, boundary: int, body_block: int, count: float,
                         outer_block: int) -> int:
        """Move out of a loop body the ops XLA's loop-invariant code motion moves: those
        of the body's own block (calls inlined; not in nested loops or branches) added
        from `start` on, free of effects, whose operands are all defined before the
        loop (value ids below `boundary`, the loop's invariant arguments included) or
        by ops moved already; a cheap op (`_NOT_WORTH_HOISTING`) only where a moved op
        needs it. Constants and ops of constants alone are folded by XLA, not moved: they
        go with the moved ops that use them only where no op left in the loop does.
        A moved op runs `count` times, in `outer_block`. Returns how many."""
        invariant_values: set[int] = set()
        folded: set[int] = set()     # constants, and ops of constants only: XLA folds them
        candidates = []              # (op, folded)
        body_ops = [op for op in self.ops[start:] if op.block == body_block]
        for op in body_ops:
            if "." in op.opcode or op.opcode in _NOT_HOISTED:
                continue
            if all(v in folded for v in op.inputs):
                folded.update(op.outputs)
                invariant_values.update(op.outputs)
                candidates.append((op, True))
            elif all(v < boundary or v in invariant_values for v in op.inputs):
                invariant_values.update(op.outputs)
                candidates.append((op, False))
        users: dict[int, list[int]] = {}    # value -> the body ops reading it
        for op in body_ops:
            for v in op.inputs:
                users.setdefault(v, []).append(op.index)
        needed: set[int] = set()
        moving: set[int] = set()     # op indices
        for op, is_folded in reversed(candidates):
            wanted = any(v in needed for v in op.outputs)
            if is_folded:
                # a folded constant goes with the moved ops that use it (XLA clones it
                # there) when nothing left in the loop uses it too
                stays = any(user not in moving for v in op.outputs for user in users.get(v, ()))
                if not wanted or stays:
                    continue
            elif op.opcode in _NOT_WORTH_HOISTING and not wanted:
                continue
            needed.update(op.inputs)
            moving.add(op.index)
            op.count, op.block = count, outer_block
        return len(moving)

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
            for b in branches:
                if i < len(b) and b[i] not in self.same_buffer:
                    self.same_buffer[b[i]] = vid

    def _manual_computation(self, op: Any, env: dict, count: float, block_id: int) -> None:
        body = op.regions[0].blocks[0]
        for arg, operand in zip(body.arguments, op.operands):
            # per-device shapes differ from the global operands
            env[arg] = local = self._new_value(self._type(arg.type, op.name, op), -1)
            self.shards.setdefault(env[operand], local)
        yields = self._walk_block(body, env, count, block_id)
        self.escaping.update(yields)
        for i, result in enumerate(op.results):
            env[result] = vid = self._new_value(self._type(result.type, op.name, op), -1)
            if i < len(yields):
                self.shards[vid] = yields[i]


def _donated_arguments(ir: Any, func: Any) -> dict[int, int]:
    """The entry function's donated arguments: position -> the result index
    `tf.aliasing_output` names, or -1 for `jax.buffer_donor`."""
    if "arg_attrs" not in func.attributes:
        return {}
    out = {}
    for i, attrs in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"])):
        d = ir.DictAttr(attrs)
        if "tf.aliasing_output" in d:
            out[i] = int(ir.IntegerAttr(d["tf.aliasing_output"]).value)
        elif "jax.buffer_donor" in d:
            out[i] = -1
    return out
