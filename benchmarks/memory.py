"""Peak device memory: stablecost's liveness estimate (`Prediction.peak_memory_bytes`)
against XLA:CPU's own buffer assignment (`compiled.memory_analysis()`), per device.

    PYTHONPATH=.pypath .venv/bin/python benchmarks/memory.py [--zoo N]

Programs: the bundled examples (examples/programs/*.mlir, compiled for one CPU device;
the bf16 transformer block also with bf16 -> f32, because XLA:CPU computes bf16 dots
and elementwise ops in f32 and so holds twice the bytes a GPU or TPU would), small
sizes of the workloads (examples/workloads: a tiny LLaMA-3 train step on 1 and, FSDP,
on 4 devices; ResNet-18 on 32x32 images, data parallel by shard_map on 1 and 4
devices), a scan RNN (a while loop) and the first N programs of the zoo sweep
(datasets.zoo). Multi-device programs run on XLA_FLAGS' fake CPU devices: XLA's figures
are then one device's, and ours are those of the program partitioned for the same mesh.

The comparable quantity is what XLA allocates for the step: arguments + outputs -
aliased + temporaries (XLA:CPU's `peak_memory_in_bytes` is arguments + outputs alone,
without the temporaries, so it is not used). Ours reads only the kernels and their
order, so it depends on the chip only through its kind: GPU and TPU kernels are merged
by multi-output fusion, XLA:CPU's are not. The prediction is made for host-cpu with the
roofline, the kernels XLA:CPU runs. Prints a Markdown table in MiB.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec  # noqa: E402

import stablecost  # noqa: E402


def _mib(n: float) -> str:
    return f"{n / 2**20:,.2f}"


def _xla_row(stats) -> dict[str, float]:
    arg, out = stats.argument_size_in_bytes, stats.output_size_in_bytes
    alias, temp = stats.alias_size_in_bytes, stats.temp_size_in_bytes
    return {"arg": arg, "out": out, "alias": alias, "temp": temp,
            "sum": arg + out - alias + temp}


def _ours(program, mesh=None) -> float:
    p = stablecost.predict(program, "host-cpu", fidelity="roofline", mesh=mesh)
    return p.peak_memory_bytes


def from_mlir(path: Path, f32: bool = False) -> tuple[dict[str, float], float]:
    """An example .mlir compiled for one CPU device by the client, as jax does (with
    `f32`, every bf16 made f32 first)."""
    from stablecost.featurize.mlir import parse_module
    from stablecost.featurize.partition import module_bytecode
    from stablecost.featurize.xla_compile import compile_stablehlo

    text = path.read_text()
    if f32:
        text = text.replace("bf16", "f32")
    device = jax.devices("cpu")[0]
    executable = compile_stablehlo(device.client, [device],
                                   module_bytecode(parse_module(text, path.name)))
    return _xla_row(executable.get_compiled_memory_stats()), _ours(text)


def from_jax(fn, args, mesh_axes: dict[str, int] | None = None
             ) -> tuple[dict[str, float], float]:
    """A JAX function: XLA's memory analysis of its compiled step on a real CPU mesh (when
    `mesh_axes`), ours of the same lowering, partitioned for the same mesh."""
    if mesh_axes:
        n = int(np.prod(list(mesh_axes.values())))
        mesh = Mesh(np.array(jax.devices("cpu")[:n]).reshape(tuple(mesh_axes.values())),
                    tuple(mesh_axes), axis_types=(AxisType.Auto,) * len(mesh_axes))

        def concrete(leaf):
            if isinstance(leaf, jax.ShapeDtypeStruct):
                spec = getattr(leaf, "_sharding", None)
                spec = spec.spec if isinstance(spec, NamedSharding) else spec
                return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=NamedSharding(
                    mesh, spec if isinstance(spec, PartitionSpec) else PartitionSpec()))
            return leaf

        args = jax.tree.map(concrete, args,
                            is_leaf=lambda x: isinstance(x, jax.ShapeDtypeStruct))
        with jax.set_mesh(mesh):
            lowered = jax.jit(fn).lower(*args)
    else:
        lowered = jax.jit(fn).lower(*args)
    stats = lowered.compile().memory_analysis()
    text = lowered.as_text()
    return _xla_row(stats), _ours(text, mesh_axes)


def programs(zoo: int):
    import workloads
    from workloads import llama, resnet

    for path in sorted((ROOT / "examples" / "programs").glob("*.mlir")):
        if "8dev" in path.name:   # sharded for 8 devices: below, as jax functions
            continue
        yield f"examples/programs/{path.name}", lambda p=path: from_mlir(p)
        if "bf16" in path.read_text():
            yield (f"examples/programs/{path.name}, bf16 -> f32",
                   lambda p=path: from_mlir(p, f32=True))
    tiny = llama.tiny(layers=2, d_model=256, heads=8, kv_heads=4, head_dim=32, mlp=512,
                      vocab=2048)
    for devices in (1, 4):
        def run(devices=devices):
            step, args = llama.train_step(tiny, devices, batch_per_device=2, seq=256,
                                          remat=True)
            return from_jax(step, args, {llama.FSDP: devices})
        yield f"llama tiny train (d 256, 2 layers, seq 256, FSDP x{devices})", run
    for devices in (1, 4):
        def run_resnet(devices=devices):
            step, args = resnet.train_step(18, devices, batch_per_device=8, image=32)
            return from_jax(step, args, {resnet.DATA: devices})
        yield f"resnet18 train (8 x 32x32/device, data x{devices})", run_resnet
    del workloads

    def rnn():
        def step(w, xs, h):
            def body(h, x):
                h = jnp.tanh(h @ w + x)
                return h, h.sum()
            return jax.lax.scan(body, h, xs)
        return from_jax(step, (jnp.ones((256, 256)), jnp.ones((64, 32, 256)),
                               jnp.ones((32, 256))))
    yield "scan RNN (64 steps, 32x256)", rnn
    if zoo:
        from stablecost.datasets.zoo import build_program, program_specs
        from stablecost.dtypes import jax_dtype

        for spec in program_specs(seed=0, dtypes=("f32",))[:zoo]:
            def run_zoo(spec=spec):
                fn, specs = build_program(spec.params)
                args = [jax.ShapeDtypeStruct(s.shape, jax_dtype(s.dtype)) for s in specs]
                return from_jax(fn, args)
            yield f"zoo {spec.family}/{spec.size} batch {spec.params['batch']}", run_zoo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", type=int, default=12, help="zoo programs (first N, f32)")
    args = parser.parse_args()
    print("| program | XLA arg | XLA out | XLA alias | XLA temp | XLA arg+out-alias+temp | "
          "ours | ours / XLA |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    ratios = []
    for name, run in programs(args.zoo):
        try:
            xla, ours = run()
        except Exception as exc:  # noqa: BLE001 - a row that could not be made: say why
            print(f"| {name} | {type(exc).__name__}: {str(exc).splitlines()[0][:120]} "
                  "| | | | | | |")
            continue
        ratios.append(ours / xla["sum"])
        print(f"| {name} | {_mib(xla['arg'])} | {_mib(xla['out'])} | {_mib(xla['alias'])} | "
              f"{_mib(xla['temp'])} | {_mib(xla['sum'])} | {_mib(ours)} | "
              f"{ours / xla['sum']:.2f} |", flush=True)
    if ratios:
        within = sum(abs(r - 1) <= 0.25 for r in ratios)
        print(f"\nMiB. {len(ratios)} programs. ours / XLA: median {np.median(ratios):.2f}, "
              f"range {min(ratios):.2f}-{max(ratios):.2f}, {within} within 25 %")


if __name__ == "__main__":
    main()
