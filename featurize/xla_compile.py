"""Compiling a StableHLO module on an XLA client, for N devices.

jax compiles only what it traced; a module we hold as bytecode has no public path to an
executable, so this is the one place that reaches into `jax._src` for it. The
partitioner's child process (`spmd_child.py`) builds the same options from jaxlib alone,
to stay free of jax's import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..errors import MeasurementError

if TYPE_CHECKING:
    from ..hardware.timing import TimingSettings, TimingStats

_DONATION = ("tf.aliasing_output", "jax.buffer_donor")


def compile_stablehlo(client: Any, devices: Sequence[Any], bytecode: bytes, *,
                      spmd: bool = False, shardy: bool = False,
                      overrides: Sequence[tuple[str, Any]] = ()) -> Any:
    """`bytecode` compiled and loaded on `client` for one partition per device in
    `devices`; `spmd` runs XLA's SPMD partitioner (Shardy's with `shardy`), `overrides`
    are XLA debug options (`xla_dump_to`, ...). XLA's errors propagate."""
    from jax._src import compiler
    from jax._src.lib import xla_client

    options = compiler.get_compile_options(
        num_replicas=1, num_partitions=len(devices),
        device_assignment=[[d.id for d in devices]], backend=client)
    if spmd:
        options.executable_build_options.use_spmd_partitioning = True
        options.executable_build_options.use_shardy_partitioner = shardy
    if overrides:
        options.env_option_overrides = list(overrides)
    return client.compile_and_load(bytecode, xla_client.DeviceList(tuple(devices)), options)


def entry_arguments(module: Any, label: str) -> list[tuple[tuple[int, ...], str]]:
    """(shape, element type) of every argument of the module's step function, which is
    renamed @main (what XLA runs) when it is the one public function, and whose donated
    arguments are made plain ones."""
    from .mlir import bindings

    ir = bindings()[0]
    with module.context:
        funcs = {ir.StringAttr(op.attributes["sym_name"]).value: op
                 for op in module.body.operations if op.operation.name == "func.func"}
        public = [f for n, f in funcs.items() if "sym_visibility" not in f.attributes
                  or ir.StringAttr(f.attributes["sym_visibility"]).value == "public"]
        func = funcs.get("main") or (public[0] if len(public) == 1 else None)
        if func is None:
            raise MeasurementError(f"{label}: no @main and not exactly one public function: "
                                   "cannot tell which function is the step")
        func.attributes["sym_name"] = ir.StringAttr.get("main")
        if "arg_attrs" in func.attributes:
            kept = []
            for attrs in ir.ArrayAttr(func.attributes["arg_attrs"]):
                d = ir.DictAttr(attrs)
                named = [d[i] for i in range(len(d))]
                kept.append(ir.DictAttr.get({n.name: n.attr for n in named
                                             if n.name not in _DONATION}))
            func.attributes["arg_attrs"] = ir.ArrayAttr.get(kept)
        specs = []
        for i, t in enumerate(ir.FunctionType(ir.TypeAttr(
                func.attributes["function_type"]).value).inputs):
            if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
                raise MeasurementError(f"{label}: argument {i} is {t}; fidelity 'measured' "
                                       "feeds statically shaped tensors only")
            specs.append((tuple(t.shape), str(t.element_type)))
    return specs


def time_module(data: bytes, label: str, settings: "TimingSettings",
                flush: Callable[[], None] | None = None) -> "TimingStats":
    """Compile a one-device StableHLO module (text or bytecode) on the default backend's
    first device, feed it random arguments (the measured fidelity's draws) and time it
    by `settings`: how `collect kernels --from-programs` times the kernels it outlines.
    XLA's errors propagate."""
    import jax
    import numpy as np

    from ..hardware.timing import measure, random_args
    from .mlir import parse_module
    from .partition import module_bytecode

    module = parse_module(data, label)
    specs = entry_arguments(module, label)
    device = jax.devices()[0]
    executable = compile_stablehlo(device.client, [device], module_bytecode(module))
    args = random_args(specs, np.random.default_rng(0))

    def call() -> Any:
        return jax.block_until_ready(
            executable.execute_sharded(args).disassemble_into_single_device_arrays())

    return measure(call, flush=flush, **settings)
