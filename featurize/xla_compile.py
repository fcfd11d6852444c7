"""Compiling a StableHLO module on an XLA client, for N devices.

jax compiles only what it traced; a module we hold as bytecode has no public path to an
executable, so this is the one place that reaches into `jax._src` for it. The
partitioner's child process (`spmd_child.py`) builds the same options from jaxlib alone,
to stay free of jax's import time.
"""

from __future__ import annotations

from typing import Any, Sequence


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
