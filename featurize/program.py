"""The program IR: what a StableHLO program does, as plain Python data.

A `Program` is flat: calls are inlined (a function called N times appears N times),
loop bodies appear once with an execution `count` equal to the trip count, and every
SSA value has an integer id. Nothing here refers to MLIR objects except the lazily
rendered source locations, so featurizers and models never touch the bindings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..dtypes import bits_per_element

# 7: a dot no longer fuses into a consumer that writes more than its result
# (`featurize.fusion`); a step profile of version 6 is mapped onto these kernels by
# `datasets.profiles.kernel_seconds`.
FEATURIZER_VERSION = "7"
# The block of the step's own ops (the entry function's body, calls inlined into it):
# the first block the walk numbers; loop bodies and branches get later numbers.
STEP_BLOCK = 1


@dataclass(frozen=True, slots=True)
class TensorType:
    """A static tensor type: shape and MLIR element type (`f32`, `bf16`, `i1`, ...).

    Tokens and tuples are carried with `dtype` "token" / "tuple" and their byte size.
    """

    shape: tuple[int, ...]
    dtype: str
    nbytes: int

    @property
    def num_elements(self) -> int:
        return math.prod(self.shape)

    def __str__(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        return f"{dims}x{self.dtype}" if dims else self.dtype

    @staticmethod
    def of(shape: tuple[int, ...], dtype: str) -> "TensorType":
        bits = bits_per_element(dtype)
        nbytes = (math.prod(shape) * bits + 7) // 8 if bits else 0
        return TensorType(tuple(shape), dtype, nbytes)


@dataclass(slots=True, eq=False)
class Op:
    """One operation instance of the flattened program.

    `inputs`/`outputs` are value ids (see `Program.value_types`); `count` is how many
    times the op runs per step (product of enclosing trip counts and call counts);
    `block` identifies the block it sits in: kernels never span two blocks.
    """

    index: int
    opcode: str
    operands: tuple[TensorType, ...]
    results: tuple[TensorType, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    attributes: Mapping[str, Any]
    count: float
    block: int
    _location: Any = field(repr=False)

    @property
    def location(self) -> str:
        """The source location, shortened to `name @ file:line:col` where possible."""
        loc = self._location
        if isinstance(loc, str):
            return loc
        if isinstance(loc, tuple):   # (MLIR location, the program's rendering cache)
            mlir_loc, cache = loc
            key = mlir_loc.attr
            text = cache.get(key)
            if text is None:
                text = cache[key] = short_location(str(mlir_loc))
        else:
            text = short_location(str(loc))
        self._location = text
        return text


@dataclass(frozen=True, slots=True)
class Loop:
    """A `stablehlo.while`: its trip count and whether it was derived or assumed.

    A loop nested in another whose bounds follow the outer loop's counter has a mean
    trip count (not a whole number); `reason` explains an assumed or averaged count.
    """

    location: str
    trip_count: int | float
    derived: bool
    reason: str = ""
    # the condition also stops it on its data (`while i < n and not converged`): the
    # trip count is the most it can run (`LoopCounters.exits_early`)
    exits_early: bool = False
    # the blocks of its condition and body (nested blocks included), first to last
    blocks: tuple[int, int] = (0, -1)


@dataclass(slots=True, eq=False)
class Program:
    """A flattened StableHLO program (see module docstring)."""

    ops: list[Op]
    value_types: list[TensorType]
    producers: list[int]          # value id -> op index, -1 for arguments
    escaping: set[int]            # values returned from a function or region
    loops: list[Loop]
    num_partitions: int = 1
    num_replicas: int = 1
    source: str = "<program>"
    notes: list[str] = field(default_factory=list)
    # ((axis, size), ...): the mesh the program runs on (given to `load_program`, or
    # declared by the module's `sdy.mesh`); () when unknown.
    mesh: tuple[tuple[str, int], ...] = ()
    # Whether XLA's SPMD partitioner produced this per-device program.
    partitioned: bool = False
    # A global program sharded by annotations keeps its module (bytecode) so that a
    # mesh given later (`load_program(program, mesh=...)`) can still partition it.
    sharded_module: bytes | None = field(default=None, repr=False)
    # The StableHLO the (global) program was parsed from: MLIR text, or bytecode where
    # the bytes were read in a disposable process. The measured fidelity compiles it;
    # None when the Program was built without it.
    stablehlo: str | bytes | None = field(default=None, repr=False)
    # value id -> the values it also stands for, which a schedule must wait for too: a
    # value carried by a loop is, inside the loop, first the loop's initial value; the
    # result of a case/if is the yield of whichever branch ran.
    also_from: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # The step's parameters are value ids 0 .. num_parameters - 1 (0: not recorded).
    num_parameters: int = 0
    # The entry function's argument and result value ids, and the arguments it donates:
    # argument id -> the result index whose buffer it is (`tf.aliasing_output`), or -1
    # for a donor whose buffer is free once read (`jax.buffer_donor`).
    arguments: tuple[int, ...] = ()
    results: tuple[int, ...] = ()
    donated: dict[int, int] = field(default_factory=dict)
    # (first, last) block ids of each while loop (condition, body and what they nest),
    # in the order the loops appear.
    loop_blocks: list[tuple[int, int]] = field(default_factory=list)
    # value id -> the value whose buffer it is: a while loop's state (the body's and the
    # condition's arguments, the body's yields) lives in its initial value's buffer, a
    # case/if result in its branches' yields'.
    same_buffer: dict[int, int] = field(default_factory=dict)
    # global value id -> the per-device value a shard_map body sees of it (the operands
    # and results of `sdy.manual_computation`): one device holds only the shard.
    shards: dict[int, int] = field(default_factory=dict)
    _users: list[list[int]] | None = field(default=None, repr=False)

    @property
    def users(self) -> list[list[int]]:
        """value id -> indices of the ops that read it."""
        if self._users is None:
            users: list[list[int]] = [[] for _ in self.value_types]
            for op in self.ops:
                for v in op.inputs:
                    users[v].append(op.index)
            self._users = users
        return self._users

    @property
    def num_devices(self) -> int:
        """Devices the program runs on: replicas x partitions, or the mesh's size."""
        return max(self.num_partitions * self.num_replicas,
                   math.prod(size for _, size in self.mesh) if self.mesh else 1)

    def edges(self) -> list[tuple[int, int]]:
        """Def-use edges (producer op index, consumer op index), one per operand."""
        producers = self.producers
        return [
            (producers[v], op.index)
            for op in self.ops
            for v in op.inputs
            if producers[v] >= 0
        ]

    def __len__(self) -> int:
        return len(self.ops)


def short_location(loc: str) -> str:
    """`loc("jit(f)/dot_general"("/a/b.py":3:8 to :32))` -> `jit(f)/dot_general @ b.py:3:8`.

    MLIR's Python bindings offer no accessors for location parts in this jaxlib, so
    the printed form is taken apart; anything unexpected is returned whole.
    """
    if not loc.startswith("loc("):
        return loc
    body = loc[4:-1]
    if body == "unknown":
        return "unknown"
    name = ""
    if body.startswith('"'):
        end = body.find('"', 1)
        if body[end + 1:end + 2] != ":":  # a name location, not a file location
            name = body[1:end]
            body = body[end + 1:]
    # the innermost file location is the first `"file":line:col` that follows
    start = body.find('"')
    where = ""
    while start >= 0:
        end = body.find('"', start + 1)
        rest = body[end + 1:]
        if rest.startswith(":"):
            parts = rest[1:].split(":")
            line = parts[0]
            col = "".join(ch for ch in (parts[1] if len(parts) > 1 else "").split(" ")[0]
                          if ch.isdigit())
            filename = body[start + 1:end].rsplit("/", 1)[-1]
            where = f"{filename}:{line}:{col}" if col else f"{filename}:{line}"
            break
        start = body.find('"', end + 1)
    if name and where:
        return f"{name} @ {where}"
    return name or where or loc
