"""Speed of the analytical path on a ~10k-op training step.

    .venv/bin/python benchmarks/speed.py [--layers 24] [--repeats 7]

Prints the median in-process time of load_program + analyze + predict (after
imports), of a repeated predict on the already analyzed program (fresh caches), of a
memoized host-cpu predict of it as a tuner's loop makes (when host-cpu is calibrated),
and the wall time of the `stablecost predict` CLI process, computing the answer
(--no-cache) and asked again (answered from the disk cache). Targets: <= 0.15 s,
<= 50 ms, < 0.4 s.
Run it on an idle machine: the two cores are shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def training_step_text(layers: int) -> str:
    import jax
    import jax.numpy as jnp

    def layer(x, p):
        h = jax.nn.gelu(x @ p["w1"]) @ p["w2"]
        x = x + h
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * p["g"]

    def loss(ps, x):
        for p in ps:
            x = layer(x, p)
        return (x ** 2).mean()

    def step(ps, x):
        l, g = jax.value_and_grad(loss)(ps, x)
        return jax.tree.map(lambda a, b: a - 1e-3 * b, ps, g), l

    ps = [{"w1": jnp.ones((256, 1024)), "w2": jnp.ones((1024, 256)), "g": jnp.ones((256,))}
          for _ in range(layers)]
    return jax.jit(step).lower(ps, jnp.ones((64, 256))).as_text(debug_info=True)


TUNER_CALLS = 200   # predictions per timed sample of the tuner's loop


def median_s(fn, repeats: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples), max(samples) - min(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=75)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    text = training_step_text(args.layers)
    import stablecost

    program = stablecost.load_program(text)
    analysis = stablecost.analyze(program)
    stablecost.predict(analysis, "H100-SXM")  # warm caches (hardware catalog)

    full, full_spread = median_s(
        lambda: stablecost.predict(stablecost.analyze(stablecost.load_program(text)),
                                   "H100-SXM", fidelity="roofline"), args.repeats)
    load, _ = median_s(lambda: stablecost.load_program(text), args.repeats)
    ana, _ = median_s(lambda: stablecost.analyze(program), args.repeats)
    from stablecost.serve.api import ProgramCache

    # a fresh cache each time: the roofline rows and the schedule are recomputed
    again, again_spread = median_s(
        lambda: stablecost.predict(analysis, "TPU-v5p", fidelity="roofline",
                                   cache=ProgramCache()), args.repeats)

    # what a tuner's loop calls: the same analyzed program, this machine, the default
    # fidelity, its answers memoized (the cost is resolving the chip and the model)
    from stablecost.hardware import host_cpu_path

    tuner_s = None
    if host_cpu_path().is_file():
        stablecost.predict(analysis, "host-cpu")
        tuner_s, _ = median_s(lambda: [stablecost.predict(analysis, "host-cpu")
                                       for _ in range(TUNER_CALLS)], args.repeats)
        tuner_s /= TUNER_CALLS

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "step.mlir"
        path.write_text(text)
        env = {**os.environ, "STABLECOST_CACHE_DIR": str(Path(tmp) / "cache")}
        cli = [str(Path(sys.executable).parent / "stablecost"), "predict", str(path),
               "--hardware", "H100-SXM", "--json"]

        def run(*extra: str) -> None:
            subprocess.run([*cli, *extra], check=True, capture_output=True, env=env)

        run()   # the answer is now in the cache
        cli_repeats = max(3, args.repeats // 2)
        wall, wall_spread = median_s(lambda: run("--no-cache"), cli_repeats)
        hit, hit_spread = median_s(run, cli_repeats)

    rows = [
        ("program", f"{len(program.ops)} ops, {len(analysis.kernels)} kernels, "
                    f"{len(text) / 1e6:.1f} MB text", ""),
        ("load + analyze + predict (in-process)",
         f"{full * 1e3:.0f} ms (spread {full_spread * 1e3:.0f})", "<= 150 ms"),
        ("  of which load_program", f"{load * 1e3:.0f} ms", ""),
        ("  of which analyze (costs + fusion)", f"{ana * 1e3:.0f} ms", ""),
        ("repeated predict on the analyzed program",
         f"{again * 1e3:.1f} ms (spread {again_spread * 1e3:.1f})", "<= 50 ms"),
        ("repeated host-cpu predict, memoized (a tuner's loop)",
         "host-cpu not calibrated" if tuner_s is None else f"{tuner_s * 1e6:.0f} µs", ""),
        ("CLI `stablecost predict --json --no-cache` wall time",
         f"{wall * 1e3:.0f} ms (spread {wall_spread * 1e3:.0f})", ""),
        ("CLI `stablecost predict --json`, asked before (cache hit)",
         f"{hit * 1e3:.0f} ms (spread {hit_spread * 1e3:.0f})", "< 400 ms"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':{width}s}  {'median':28s} target")
    for name, value, target in rows:
        print(f"{name:{width}s}  {value:28s} {target}")


if __name__ == "__main__":
    main()
