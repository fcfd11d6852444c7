"""The measured fidelity: compile the program on the local JAX backend and time its step.

It prices nothing: it runs the program. The StableHLO the program was loaded from
(`Program.stablehlo`) is compiled by the default JAX backend's client for one device,
fed random arrays of its argument types (`hardware.timing.random_args`, the collector's
draws) and timed by the collector's rule for whole steps (`hardware.timing.measure` with
`PROGRAM_TIMING`: 2 warm-up calls, then batches of 5 until the median moves < 2 %, at
least 5 and at most 30 calls or 3 s). The estimate is the whole step
(`KernelEstimate.step_s`, the median). On one CPU device the step is then run again
under XLA's profiler (`featurize.step_profile`: 3 warm-up and 5 profiled calls) and the
kernel rows are the measured step split by each kernel's time inside the step (on one
GPU device too); where that profile cannot be taken (several devices, a TPU backend,
kernels the profile does not match), the rows are the roofline's shares of the step and
the notes say so.

What it covers: the chip the local backend is (`host-cpu` on CPU; on a GPU, the catalog
chip the device is, if any: `hardware.fingerprint.local_machine`), and programs whose
devices the backend has. A program of several devices (shard_map, or sharded by
annotations) is compiled as jax compiles it, for the first N local devices with XLA's
SPMD partitioner, and fed arrays placed by the executable's parameter shardings; it is
timed as exported (its own `sdy.mesh`, not re-meshed; pmap's replicas are not run). A
program that needs more devices than the backend has is refused with a
`MeasurementError` naming how many it needs and how many there are; so is one that does
not compile or run here (the first line of XLA's message). On CPU, several devices
exist only through `--xla_force_host_platform_device_count` and share the host's cores:
such a step is a measurement of this machine, not of a cluster. Arguments the program
donates (`tf.aliasing_output`, `jax.buffer_donor`) are not donated when it is timed, so
the same inputs serve every call.

Measurements are kept in-process per (SHA-256 of the StableHLO, machine fingerprint
id, devices, mesh), failures included, so predicting the same program again does not time it again.
One measurement runs at a time (a lock): two timings at once would slow each other.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import MeasurementError
from ..featurize.analysis import Analysis
from ..featurize.program import Program
from ..hardware import Hardware
from ..hardware.fingerprint import Machine, fingerprint_id, local_machine
from ..hardware.timing import (
    PROGRAM_TIMING,
    TimingSettings,
    TimingStats,
    measure,
    random_args,
)
from .roofline import KernelTime

MAX_CACHED = 4096
# above this share of a profiled step in thunks that name none of the program's ops,
# the measurement's note says so
UNMAPPED_NOTE = 0.1


@dataclass(frozen=True)
class Measurement:
    """One program's step timed on this machine, and (one CPU device) each kernel's
    seconds per step inside it by `Kernel.index`, or why there are none."""

    stats: TimingStats
    machine: str            # the device, e.g. "AMD EPYC 7B13 (cpu)"
    fingerprint_id: str
    kernel_s: dict[int, float] | None = None
    no_profile: str = ""
    # the share of the profiled step's busy time in thunks that hold none of the
    # program's ops (instructions XLA made itself, e.g. the convolutions its passes
    # rewrite without keeping their metadata): the rows, scaled to the step, spread it
    # over the kernels in proportion to their own time
    unmapped_share: float = 0.0

    def describe(self) -> str:
        s = self.stats
        rows = ("the kernel rows split it by each kernel's time inside the step (XLA's "
                "profiler)" if self.kernel_s is not None else
                f"the kernel rows are the roofline's shares of it ({self.no_profile})")
        if self.kernel_s is not None and self.unmapped_share >= UNMAPPED_NOTE:
            rows += (f"; {self.unmapped_share:.0%} of the profiled step ran in XLA thunks "
                     "that name none of the program's ops (instructions XLA made itself, "
                     "such as rewritten convolutions); the rows spread that time over the "
                     "kernels in proportion to their own")
        return (f"measured on this machine ({self.machine}, fingerprint "
                f"{self.fingerprint_id}): median of {s.repeats} calls after {s.warmup} "
                f"warm-up, p10-p90 {s.p10_s * 1e3:.3g}-{s.p90_s * 1e3:.3g} ms; {rows}")


@lru_cache(maxsize=1)
def machine() -> Machine:
    """This process's default JAX backend, fingerprinted once."""
    return local_machine()


def local_hardware() -> str:
    """The catalog name of the local backend's chip (host-cpu on CPU)."""
    return machine().hardware


# (SHA-256 of the StableHLO, fingerprint id, devices, mesh) -> what measuring it gave
_cache: dict[tuple[Any, ...], Measurement | MeasurementError] = {}
_lock = threading.Lock()


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def cache_size() -> int:
    return len(_cache)


def estimate(analysis: Analysis, hw: Hardware, roofline: Sequence[KernelTime]) -> Any:
    """The `KernelEstimate` of the measured step of `analysis` (see the module docstring)."""
    from .cost_model import KernelEstimate

    local = local_hardware()
    if hw.name != local:
        raise MeasurementError(
            f"fidelity 'measured' times programs on this machine's backend, which is "
            f"{local}; it cannot measure {hw.name}")
    m = measure_program(analysis.program)
    times = [t.time_s for t in roofline]
    inside = m.kernel_s
    if inside is not None:
        profiled = {k.index for k in analysis.kernels if k.kind != "collective" and k.priced}
        if set(inside) != profiled:
            m = replace(m, kernel_s=None, no_profile="the profiled kernels are not this "
                        "analysis's")
        elif sum(inside.values()) <= 0:
            m = replace(m, kernel_s=None, no_profile="the profile found no time in any "
                        "kernel")
        else:
            times = [inside[k.index] / max(k.count, 1) if k.index in profiled else 0.0
                     for k in analysis.kernels]
    return KernelEstimate(time_s=times, step_s=m.stats.median_s,
                          step_low_s=m.stats.p10_s, step_high_s=m.stats.p90_s,
                          note=m.describe(), communication_included=True,
                          model=f"measured on {m.machine} (fingerprint {m.fingerprint_id})")


def measure_program(program: Program) -> Measurement:
    """Compile and time `program`'s step here, or return the measurement made before."""
    label = program.source
    source = program.stablehlo
    if source is None:
        raise MeasurementError(
            f"{label}: fidelity 'measured' compiles the program's StableHLO, and this "
            "Program holds none (it was built from an ir.Module, or by hand): load it "
            "from text, "
            "bytes, a file or a JAX function")
    devices = check_devices(program)
    here = machine()
    data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
    ident = fingerprint_id(here.fingerprint)
    key = (hashlib.sha256(data).hexdigest(), ident, devices, program.mesh)
    with _lock:
        found = _cache.get(key)
        if found is None:
            on = f"{here.device_name} ({here.backend})" if devices == 1 else \
                f"{devices} x {here.device_name} ({here.backend})"
            try:
                found = Measurement(_time(data, label, devices, here, program=program), on,
                                    ident)
                found = _with_profile(found, data, label, devices, here)
            except MeasurementError as exc:
                found = exc
            if len(_cache) >= MAX_CACHED:
                _cache.pop(next(iter(_cache)))
            _cache[key] = found
    if isinstance(found, MeasurementError):
        raise MeasurementError(str(found))
    return found


def _with_profile(m: Measurement, data: bytes, label: str, devices: int,
                  here: Machine) -> Measurement:
    """`m` with each kernel's seconds inside the step, where a profile can be taken."""
    if devices != 1 or here.backend not in ("cpu", "gpu"):
        why = "several devices" if devices != 1 else f"the {here.backend} backend"
        return replace(m, no_profile=f"kernel times inside a step are read on one CPU "
                                     f"or GPU device, not on {why}")
    from ..featurize.step_profile import profile_step

    try:
        profile = profile_step(data, label)
    except Exception as exc:  # noqa: BLE001 - the step is measured; rows fall back
        return replace(m, no_profile=f"the profile failed: {_first_line(exc)}")
    share = profile.unmapped_s / profile.busy_s if profile.busy_s > 0 else 0.0
    return replace(m, kernel_s=dict(profile.kernel_s), unmapped_share=share)


def check_devices(program: Program) -> int:
    """The devices `program` runs on, refused when the local backend has fewer."""
    import jax

    needed = program.num_devices
    have = jax.local_device_count()
    if needed > have:
        raise MeasurementError(f"{program.source}: cannot measure it here: it runs on "
                               f"{_spans(program)}, and the local {machine().backend} "
                               f"backend has {have}")
    return needed


def _spans(program: Program) -> str:
    needed = program.num_devices
    if program.mesh:
        return f"{needed} devices (mesh {','.join(f'{a}={s}' for a, s in program.mesh)})"
    return f"{needed} devices"


def _check_module(module: Any, program: Program) -> None:
    """A module of several devices is timed as it was exported: not re-meshed, not pmap."""
    from ..featurize.partition import module_meshes
    from ..featurize.placement import self_devices

    attrs = module.operation.attributes
    if "mhlo.num_replicas" in attrs and int(attrs["mhlo.num_replicas"].value) > 1:
        raise MeasurementError(f"{program.source}: cannot measure it here: programs of "
                               "several replicas (pmap, mhlo.num_replicas > 1) are not timed")
    declared = module_meshes(module)
    if declared and program.mesh and dict(declared[0]) != dict(program.mesh):
        raise MeasurementError(
            f"{program.source}: cannot measure it on mesh "
            f"{','.join(f'{a}={s}' for a, s in program.mesh)}: it was exported for mesh "
            f"{','.join(f'{a}={s}' for a, s in declared[0])}, which is what would run; "
            "re-export it for the mesh you want")
    own = self_devices(module)
    if own > 1 and own != program.num_devices:
        raise MeasurementError(f"{program.source}: cannot measure it on "
                               f"{_spans(program)}: it was exported for {own}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:300]


def _time(data: bytes, label: str, devices: int, here: Machine, *,
          program: Program | None = None, settings: TimingSettings = PROGRAM_TIMING,
          flush: Callable[[], None] | None = None) -> TimingStats:
    import jax
    from jax._src.sharding_impls import GSPMDSharding

    from ..featurize.mlir import parse_module
    from ..featurize.partition import module_bytecode, module_meshes
    from ..featurize.xla_compile import compile_stablehlo, entry_arguments

    module = parse_module(data, label)
    specs = entry_arguments(module, label)
    if devices > 1 and program is not None:
        _check_module(module, program)
    chosen = jax.devices()[:devices]
    where = f"the local {here.backend} backend ({here.device_name})"
    try:
        # several devices: the module's shardings (or shard_map bodies) split it, as in jax
        executable = compile_stablehlo(chosen[0].client, chosen, module_bytecode(module),
                                       spmd=devices > 1, shardy=bool(module_meshes(module)))
        try:
            args = random_args(specs, np.random.default_rng(0))
        except ValueError as exc:   # an element type with no random draw (quantized, ...)
            raise MeasurementError(f"{label}: cannot make its arguments: {exc}") from None
        if devices > 1:
            args = [jax.device_put(a, GSPMDSharding(tuple(chosen), sharding))
                    for a, sharding in zip(args, executable.get_parameter_shardings())]
    except MeasurementError:
        raise
    except Exception as exc:  # noqa: BLE001 - XLA rejected the program: one line
        raise MeasurementError(f"{label}: does not compile on {where}: "
                               f"{_first_line(exc)}") from None

    def call() -> Any:
        return jax.block_until_ready(
            executable.execute_sharded(args).disassemble_into_single_device_arrays())

    try:
        return measure(call, flush=flush, **settings)
    except Exception as exc:  # noqa: BLE001 - the run failed (out of memory, ...)
        raise MeasurementError(f"{label}: failed to run on {where}: "
                               f"{_first_line(exc)}") from None
