"""Meshes, and per-device programs from programs sharded by annotations.

A program sharded by annotations (NamedSharding / Shardy `sdy.sharding`, GSPMD
`mhlo.sharding`) describes the *global* computation; the collectives appear only after
XLA's SPMD partitioner has split it over a mesh. `partition` runs that partitioner and
brings the per-device program back as StableHLO, so the featurizer prices what one
device runs, collectives included.

How, without touching the user's JAX set-up: XLA:CPU is compiled for `n` devices on a
*private* CPU client (`xla_client.make_cpu_client(num_devices=n)`), which needs neither
`XLA_FLAGS=--xla_force_host_platform_device_count` nor a fresh process, works whatever
jax's own backends were initialized with, and is cached per device count. The module is
captured right after the `spmd-partitioning` pass (XLA's own HLO dump, as a proto, into
a temporary directory) and converted with `jax.extend.mlir.hlo_to_stablehlo`. The module
after *all* of XLA:CPU's passes is not used: XLA:CPU upcasts bf16 dots to f32 and fuses,
lays out and tiles for a CPU, which says nothing about a GPU or TPU step.

Device numbering: mesh device `i` (row-major over the mesh axes, the order of
`jax.make_mesh` on a slice of the same shape) is logical device `i` of the per-device
program's replica groups, and device `i` of the topology it is priced on.
"""

from __future__ import annotations

import atexit
import glob
import json
import math
import os
import re
import tempfile
import threading
import time
from typing import Any, Mapping, Sequence

from ..errors import InvalidArgumentError, PartitionError
from .limits import budget

Mesh = tuple[tuple[str, int], ...]

_MESH_HELP = "give AXIS=SIZE pairs separated by commas, e.g. data=4,model=2"
# Larger than any machine built (2^20 chips); a typo such as data=99999999999 is caught.
MAX_MESH_DEVICES = 1 << 20


def parse_mesh(mesh: Any) -> Mesh:
    """A mesh as ((axis, size), ...): from a mapping {"data": 4, "model": 2}, a string
    "data=4,model=2", a sequence of (axis, size) pairs, or a `jax.sharding.Mesh` /
    `AbstractMesh`."""
    if mesh is None:
        raise InvalidArgumentError(f"mesh is None; {_MESH_HELP}")
    if isinstance(mesh, str):
        pairs: list[tuple[Any, Any]] = []
        text = mesh.strip()
        if not text:
            raise InvalidArgumentError(f"mesh '' is empty; {_MESH_HELP}")
        for part in text.split(","):
            name, eq, size = part.strip().partition("=")
            size = size.strip()
            if not eq or not name.strip() or not (size.isascii() and size.isdigit()):
                raise InvalidArgumentError(f"mesh {mesh!r} is not valid ({part.strip()!r}); "
                                           f"{_MESH_HELP}")
            pairs.append((name.strip(), int(size)))
    elif isinstance(mesh, Mapping):
        pairs = list(mesh.items())
    elif hasattr(mesh, "axis_names") and hasattr(mesh, "axis_sizes"):
        pairs = list(zip(mesh.axis_names, mesh.axis_sizes))
    elif hasattr(mesh, "axis_names") and hasattr(mesh, "shape"):
        pairs = [(n, mesh.shape[n]) for n in mesh.axis_names]
    else:
        try:
            pairs = [tuple(p) for p in mesh]
        except TypeError:
            raise InvalidArgumentError(
                f"mesh must be a mapping, a string or (axis, size) pairs, got "
                f"{type(mesh).__name__}; {_MESH_HELP}") from None
    out: list[tuple[str, int]] = []
    for pair in pairs:
        if len(pair) != 2:
            raise InvalidArgumentError(f"mesh entry {pair!r} is not (axis, size); {_MESH_HELP}")
        name, size = pair
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError(f"mesh axis name {name!r} must be a non-empty string; "
                                       f"{_MESH_HELP}")
        if not (isinstance(size, int) and not isinstance(size, bool) and size >= 1):
            raise InvalidArgumentError(f"mesh axis {name!r} has size {size!r}; sizes must be "
                                       f"integers >= 1 ({_MESH_HELP})")
        out.append((name, size))
    if not out:
        raise InvalidArgumentError(f"mesh has no axes; {_MESH_HELP}")
    if mesh_size(tuple(out)) > MAX_MESH_DEVICES:
        raise InvalidArgumentError(
            f"mesh {mesh_text(tuple(out))!r} has {mesh_size(tuple(out)):,} devices; at most "
            f"{MAX_MESH_DEVICES:,} are supported")
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"mesh {mesh_text(tuple(out))!r} names an axis twice")
    return tuple(out)


def mesh_size(mesh: Mesh) -> int:
    return math.prod(size for _, size in mesh)


def mesh_text(mesh: Mesh) -> str:
    """((data, 4), (model, 2)) -> 'data=4,model=2'."""
    return ",".join(f"{n}={s}" for n, s in mesh)


# --------------------------------------------------------------------------- inspection


def module_meshes(module: Any) -> list[Mesh]:
    """The `sdy.mesh` declarations of a module, in order."""
    _, _, _, sdy = _bindings()
    meshes = []
    for op in module.body.operations:
        if op.operation.name != "sdy.mesh":
            continue
        attr = op.operation.attributes["mesh"]
        meshes.append(sdy_mesh_axes(sdy, attr))
    return meshes


def sdy_mesh_axes(sdy: Any, attr: Any) -> Mesh:
    """((axis, size), ...) of an `sdy.mesh` attribute."""
    mesh = sdy.MeshAttr(attr)
    return tuple((a.name, a.size) for a in (sdy.MeshAxisAttr(x) for x in mesh.axes))


_SHARDING_OPS = frozenset({"sdy.sharding_constraint", "sdy.reshard"})
_SHARDING_ATTRS = ("sdy.sharding", "mhlo.sharding")


def needs_partitioning(module: Any) -> bool:
    """Whether the module carries sharding annotations outside manual computations
    (shard_map bodies are per-device already): arguments, results or ops annotated with
    `sdy.sharding` / `mhlo.sharding`, sharding constraints, `@Sharding` custom calls."""
    for op in module.body.operations:
        op = op.operation
        if op.name != "func.func":
            continue
        attrs = op.attributes
        for key in ("arg_attrs", "res_attrs"):
            if key in attrs and any(a in str(attrs[key]) for a in _SHARDING_ATTRS):
                return True
        if _annotated(op.regions[0]):
            return True
    return False


def _annotated(region: Any) -> bool:
    for block in region.blocks:
        for view in block.operations:
            op = view.operation
            name = op.name
            if name == "sdy.manual_computation":
                continue
            if name in _SHARDING_OPS:
                return True
            attrs = op.attributes
            if len(attrs):
                for key in _SHARDING_ATTRS:
                    if key in attrs:
                        return True
                if name == "stablehlo.custom_call" and "call_target_name" in attrs and \
                        str(attrs["call_target_name"]).strip('"') == "Sharding":
                    return True
            for inner in op.regions:
                if _annotated(inner):
                    return True
    return False


def _bindings():
    from .mlir import bindings

    return bindings()


# --------------------------------------------------------------------------- re-meshing


def remesh(module: Any, mesh: Mesh, label: str) -> None:
    """Resize the module's `sdy.mesh` declarations to `mesh` (in place), so a program
    exported for one mesh shape can be partitioned for another. The axis names must be
    the program's."""
    ir, _, _, sdy = _bindings()
    wanted = dict(mesh)
    for view in module.body.operations:
        op = view.operation
        if op.name != "sdy.mesh":
            continue
        current = sdy_mesh_axes(sdy, op.attributes["mesh"])
        if current == mesh:
            continue
        names = [n for n, _ in current]
        if set(names) != set(wanted):
            raise InvalidArgumentError(
                f"{label}: mesh {mesh_text(mesh)!r} does not name the program's mesh axes "
                f"{names} (declared as {mesh_text(current) or 'an empty mesh'}); give a size "
                "for each of them")
        with module.context:
            axes = [sdy.MeshAxisAttr.get(n, s) for n, s in mesh]
            op.attributes["mesh"] = sdy.MeshAttr.get(axes)
    with module.context:
        module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(32), mesh_size(mesh))


# --------------------------------------------------------------------------- partitioning

# XLA's partitioner runs on a private CPU client with one device per chip: XLA:CPU
# compiles for at most 2,048 of them (2,050 fails with "Multiprocess computations aren't
# implemented on the CPU backend"; 2,048 took 2 s and 0.6 GB here).
MAX_PARTITION_DEVICES = 2048

_clients: dict[int, Any] = {}
_clients_lock = threading.Lock()


def _cpu_client(n: int) -> Any:
    from jax._src.lib import xla_client

    with _clients_lock:
        client = _clients.get(n)
        if client is None:
            client = _clients[n] = xla_client.make_cpu_client(num_devices=n)
        return client


# What XLA dumps while it partitions: the module after the `spmd-partitioning` pass (as
# a proto and as text, which keeps the replica groups' device order), and after the pass
# that follows it, whose dump marks the first one complete.
_DUMP_OPTIONS: list[tuple[str, Any]] = [
    ("xla_dump_hlo_pass_re", "spmd-partitioning|control-dep-rewriter"),
    ("xla_dump_hlo_as_proto", True),
    ("xla_dump_hlo_as_text", True),
    ("xla_backend_optimization_level", 0),     # the CPU code is thrown away
    ("xla_llvm_disable_expensive_passes", True),
]
# Any of these in the dump directory means the partitioned module's dump is complete
# (XLA writes its dumps in order, from the compiling thread).
_LATER_DUMPS = ("after_control-dep-rewriter", "cpu_after_optimizations")
_POLL_S = 0.005


def partition(module: Any, mesh: Mesh, label: str) -> tuple[bytes, dict[int, list[int]]]:
    """Run XLA's SPMD partitioner on `module` (an `ir.Module` sharded by annotations) for
    `mesh`. Returns the per-device program as StableHLO bytecode, and for collectives
    whose replica groups are mesh axes over a permuted device order, that order by
    channel id (the HLO -> StableHLO conversion drops it).

    The partitioner runs inside an XLA:CPU compilation, in a child process
    (`featurize/spmd_child.py`) that is killed as soon as the partitioned module is
    dumped: the rest of the compilation is CPU code generation, about 97 % of its time
    (5.4 s -> ~0.3 s for a 4-device 100M-parameter training step). Where no child can
    be started, it compiles in this process."""
    n = mesh_size(mesh)
    if n > MAX_PARTITION_DEVICES:
        raise InvalidArgumentError(
            f"{label}: mesh {mesh_text(mesh)} has {n:,} devices; a program sharded by "
            f"annotations is partitioned on one CPU device per chip, at most "
            f"{MAX_PARTITION_DEVICES:,} (give a smaller mesh, or a per-device program)")
    bytecode = module_bytecode(module)
    shardy = bool(module_meshes(module))
    key = _cache_key(bytecode, n, shardy, mesh)
    cached = _cached_partition(key)
    if cached is not None:
        return cached
    result = _run_partitioner(bytecode, n, shardy, mesh, label)
    from .. import diskcache

    header = json.dumps({str(k): v for k, v in result[1].items()}).encode()
    diskcache.put("partitions", key, header + b"\n" + result[0], _CACHED_PARTITIONS)
    return result


# Partitioned programs kept on disk (by content, mesh and jaxlib version); bump the
# version when what is stored changes meaning.
_CACHE_VERSION = "1"
_CACHED_PARTITIONS = 128


def _cache_key(bytecode: bytes, n: int, shardy: bool, mesh: Mesh) -> str:
    import hashlib

    import jaxlib

    digest = hashlib.sha256(bytecode)
    digest.update(json.dumps([_CACHE_VERSION, jaxlib.__version__, n, shardy,
                              mesh_text(mesh)]).encode())
    return digest.hexdigest()


def _cached_partition(key: str) -> tuple[bytes, dict[int, list[int]]] | None:
    from .. import diskcache

    data = diskcache.get("partitions", key)
    if data is None:
        return None
    header, sep, bytecode = data.partition(b"\n")
    try:
        device_ids = {int(k): [int(d) for d in v] for k, v in json.loads(header).items()}
    except (ValueError, TypeError, AttributeError):
        return None             # a damaged entry is a miss
    return (bytecode, device_ids) if sep and bytecode else None


def _run_partitioner(bytecode: bytes, n: int, shardy: bool, mesh: Mesh,
                     label: str) -> tuple[bytes, dict[int, list[int]]]:
    try:
        from jax.extend.mlir import hlo_to_stablehlo
    except ImportError as exc:  # pragma: no cover - jax is a dependency
        raise PartitionError(f"{label}: partitioning needs jax/jaxlib ({exc})") from None
    with tempfile.TemporaryDirectory(prefix="stablecost-spmd-") as work:
        dump = os.path.join(work, "dump")
        os.mkdir(dump)
        failure = _partition_in_child(bytecode, n, shardy, work, dump)
        if failure is _NO_CHILD:
            failure = _partition_here(bytecode, n, shardy, dump)
        if failure:
            raise PartitionError(f"{label}: XLA could not partition the program for mesh "
                                 f"{mesh_text(mesh)}: {failure}")
        dumps = sorted(glob.glob(os.path.join(dump, "*after_spmd-partitioning*.hlo.pb")))
        if not dumps:
            raise PartitionError(
                f"{label}: XLA ran no SPMD partitioner for mesh {mesh_text(mesh)} (the "
                "program has no sharding XLA could partition)")
        with open(dumps[-1], "rb") as f:
            hlo_proto = f.read()
        text_dump = dumps[-1][:-len(".hlo.pb")] + ".txt"
        device_ids = {}
        if os.path.isfile(text_dump):
            with open(text_dump, encoding="utf-8", errors="replace") as f:
                device_ids = mesh_group_device_ids(f.read())
    module_proto = _proto_field(hlo_proto, 1)   # HloProto.hlo_module
    if module_proto is None:
        raise PartitionError(f"{label}: unreadable XLA dump {os.path.basename(dumps[-1])}")
    return bytes(hlo_to_stablehlo(module_proto)), device_ids




_NO_CHILD = "no child process"
_idle: dict[str, Any] = {}     # "proc": a started child waiting for its request, "pid"
_idle_lock = threading.Lock()
_CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spmd_child.py")


def _spawn_child() -> Any:
    import subprocess
    import sys

    return subprocess.Popen([sys.executable, "-P", _CHILD_SCRIPT], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _take_child() -> Any:
    """A started child for one partitioning (the waiting one when there is one), and
    another started in the background for the next: its interpreter and jaxlib load
    while this one partitions. None when no process can be started."""
    with _idle_lock:
        proc = _idle.pop("proc", None)
        if proc is not None and (_idle.pop("pid") != os.getpid() or proc.poll() is not None):
            proc = None                # inherited through a fork, or gone
        try:
            if proc is None:
                proc = _spawn_child()
            _idle.update(proc=_spawn_child(), pid=os.getpid())
        except OSError:
            return proc
        return proc


def _stop_idle_child() -> None:
    with _idle_lock:
        proc = _idle.pop("proc", None)
        if proc is not None and _idle.pop("pid", None) == os.getpid():
            proc.kill()
            proc.wait()


atexit.register(_stop_idle_child)


def _partition_in_child(bytecode: bytes, n: int, shardy: bool, work: str,
                        dump: str) -> str | None:
    """Partition in a child process; returns None when the dump is complete, XLA's
    error message, or `_NO_CHILD`."""

    proc = _take_child()
    if proc is None:
        return _NO_CHILD
    source = os.path.join(work, "module.mlirbc")
    errors = os.path.join(work, "stderr.txt")
    with open(source, "wb") as f:
        f.write(bytecode)
    try:
        request = {"bytecode": source, "devices": n, "shardy": shardy, "dump": dump,
                   "overrides": _DUMP_OPTIONS, "stderr": errors}
        try:
            proc.stdin.write((json.dumps(request) + "\n").encode())
            proc.stdin.close()
        except OSError:                # it died before its request
            return _NO_CHILD
        deadline = time.monotonic() + budget("STABLECOST_MAX_PARTITION_SECONDS")
        while True:
            if any(later in name for name in os.listdir(dump) for later in _LATER_DUMPS):
                return None
            code = proc.poll()
            if code is not None:
                if code == 0:
                    return None
                return _child_error(errors, code)
            if time.monotonic() > deadline:
                return (f"stopped after {budget('STABLECOST_MAX_PARTITION_SECONDS')} s "
                        "(STABLECOST_MAX_PARTITION_SECONDS)")
            time.sleep(_POLL_S)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _child_error(path: str, code: int) -> str:
    from .isolation import exit_description

    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [line[len("error: "):].strip() for line in f
                     if line.startswith("error: ")]
    except OSError:
        lines = []
    return lines[-1] if lines else f"the partitioning process ended ({exit_description(code)})"


def _partition_here(bytecode: bytes, n: int, shardy: bool, dump: str) -> str | None:
    """Partition in this process (the whole compilation runs); None or XLA's error."""
    from .xla_compile import compile_stablehlo

    client = _cpu_client(n)
    try:
        compile_stablehlo(client, client.devices()[:n], bytecode, spmd=True, shardy=shardy,
                          overrides=[("xla_dump_to", dump), *_DUMP_OPTIONS])
    except Exception as exc:  # JaxRuntimeError: XLA rejected the program
        text = str(exc).strip()
        return text.splitlines()[0] if text else type(exc).__name__
    return None


_MESH_GROUPS = re.compile(r"channel_id=(\d+), replica_groups=mesh\[[^\]]*\], "
                          r"device_ids=\((\[[\d,]+\](?:T\([\d,]+\))?|[\d,\s]+)\)")


def mesh_group_device_ids(hlo_text: str) -> dict[int, list[int]]:
    """channel id -> device order of every `replica_groups=mesh[...], device_ids=(...)`
    in XLA's HLO text: an iota `[4,2]T(1,0)` (reshape, transpose, flatten) or a list."""
    out: dict[int, list[int]] = {}
    for found in _MESH_GROUPS.finditer(hlo_text):
        channel, spec = int(found.group(1)), found.group(2)
        if spec.startswith("["):
            dims_text, _, perm_text = spec.partition("T")
            dims = [int(d) for d in dims_text.strip("[]").split(",")]
            perm = [int(p) for p in perm_text.strip("()").split(",")] if perm_text else \
                list(range(len(dims)))
            out[channel] = _iota_order(dims, perm)
        else:
            out[channel] = [int(d) for d in spec.replace(" ", "").split(",") if d]
    return out


def _iota_order(dims: list[int], perm: list[int]) -> list[int]:
    """iota(prod(dims)).reshape(dims).transpose(perm).flatten(), without numpy."""
    strides = [math.prod(dims[i + 1:]) for i in range(len(dims))]
    new_dims = [dims[p] for p in perm]
    order = []
    for flat in range(math.prod(dims)):
        index, rest = [], flat
        for size in reversed(new_dims):
            rest, c = divmod(rest, size)
            index.append(c)
        index.reverse()
        order.append(sum(index[k] * strides[perm[k]] for k in range(len(perm))))
    return order


def module_bytecode(module: Any) -> bytes:
    import io

    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return buffer.getvalue()


def _proto_field(data: bytes, number: int) -> bytes | None:
    """The first length-delimited field `number` of a serialized protobuf message."""
    i, end = 0, len(data)

    def varint() -> int:
        nonlocal i
        value = shift = 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while i < end:
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            varint()
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            length = varint()
            if field == number:
                return data[i:i + length]
            i += length
        else:
            return None
    return None


def abstract_lowering(source: Any, args: Sequence[Any], kwargs: Mapping[str, Any],
                      mesh: Mesh) -> Any:
    """Lower a JAX function for `mesh` without devices: under an abstract mesh of that
    shape, with example arguments whose `sharding` may be a bare `PartitionSpec`."""
    import jax
    from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec

    abstract = AbstractMesh(tuple(s for _, s in mesh), tuple(n for n, _ in mesh),
                            axis_types=(AxisType.Auto,) * len(mesh))

    def spec(leaf: Any) -> Any:
        if isinstance(leaf, jax.ShapeDtypeStruct):
            # `.sharding` of a bare PartitionSpec needs a *concrete* context mesh
            sharding = getattr(leaf, "_sharding", None)
            if sharding is None and not hasattr(leaf, "_sharding"):
                sharding = leaf.sharding
            if isinstance(sharding, PartitionSpec):
                return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype,
                                            sharding=NamedSharding(abstract, sharding))
            if isinstance(sharding, NamedSharding):
                return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype,
                                            sharding=NamedSharding(abstract, sharding.spec))
            return leaf
        if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
            return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype)
        return leaf

    is_leaf = lambda x: isinstance(x, jax.ShapeDtypeStruct)  # noqa: E731
    jitted = source if hasattr(source, "trace") else jax.jit(source)
    with jax.sharding.use_abstract_mesh(abstract):   # a bare PartitionSpec resolves here
        args = jax.tree.map(spec, tuple(args), is_leaf=is_leaf)
        kwargs = jax.tree.map(spec, dict(kwargs), is_leaf=is_leaf)
        return jitted.trace(*args, **kwargs).lower(lowering_platforms=("cpu",))
