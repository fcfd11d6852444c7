"""Grouped, vmapped and few-channel convolutions alone: measured against the learned and
roofline prices.

    .venv/bin/python benchmarks/grouped_convolutions.py

Convolutions of shapes the kernel sampler draws rarely or never
(`datasets/kernels/convolution.py`: 2-8 groups, 3 input channels and more): forward
passes and both gradients of convolutions with 8-64 feature groups of 2-32 channels,
a convolution under `vmap` over clients (what federated or per-example code lowers to),
1-3-channel convolutions and their filter gradients, plain 3x3 controls, and a
recurrent convolutional cell run 5 steps in a `lax.scan` and unrolled. Each is one
jitted program, timed as `stablecost collect programs` times a step, and priced by
`predict(..., fidelity="all")` on host-cpu. Columns: measured, learned and roofline
milliseconds, the measured multiply-add rate, how XLA:CPU runs it by our rule
(`featurize.conv_lowering.runs_as_loop_on_cpu`, inside a loop body or not) and its
feature / batch group counts.

It times programs: run it on an idle machine. About a minute and a half on 2 cores.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from _common import commit, today

NHWC = ("NHWC", "HWIO", "NHWC")


def cases() -> dict[str, tuple[Callable[..., Any], list[tuple[int, ...]]]]:
    """name -> (function, argument shapes), all float32."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def conv(x, w, stride=1, groups=1, padding="SAME"):
        return lax.conv_general_dilated(x, w, (stride, stride), padding,
                                        dimension_numbers=NHWC, feature_group_count=groups)

    out: dict[str, tuple[Callable[..., Any], list[tuple[int, ...]]]] = {}
    for groups, per in ((8, 32), (16, 4), (16, 16), (64, 2)):
        x, w = (8, 32, 32, groups * per), (3, 3, per, groups * per)
        out[f"{groups} groups of {per}, forward"] = (
            lambda x, w, g=groups: conv(x, w, groups=g), [x, w])
        out[f"{groups} groups of {per}, input gradient"] = (
            lambda x, w, g=groups: jax.grad(lambda x: conv(x, w, groups=g).sum())(x), [x, w])
        out[f"{groups} groups of {per}, filter gradient"] = (
            lambda x, w, g=groups: jax.grad(lambda w: conv(x, w, groups=g).sum())(w), [x, w])
    for clients, channels in ((8, 16), (4, 32)):
        x, w = (clients, 8, 32, 32, channels), (clients, 3, 3, channels, channels)
        out[f"vmap over {clients} clients, {channels} channels, forward"] = (
            lambda x, w: jax.vmap(conv)(x, w), [x, w])
        out[f"vmap over {clients} clients, {channels} channels, filter gradient"] = (
            lambda x, w: jax.vmap(jax.grad(lambda w, x: conv(x, w).sum()))(w, x), [x, w])
    for cin in (1, 2, 3):
        for k in (3, 7):
            x, w = (16, 64, 64, cin), (k, k, cin, 16)
            out[f"{cin} input channels, {k}x{k}, forward"] = (lambda x, w: conv(x, w), [x, w])
            out[f"{cin} input channels, {k}x{k}, filter gradient"] = (
                lambda x, w: jax.grad(lambda w: conv(x, w).sum())(w), [x, w])
    out["3 channels, 11x11 stride 2 (SiamFC's first layer)"] = (
        lambda x, w: conv(x, w, stride=2, padding="VALID"), [(4, 127, 127, 3), (11, 11, 3, 96)])
    for channels in (16, 64):
        out[f"control: {channels} channels, 3x3, forward"] = (
            lambda x, w: conv(x, w), [(8, 32, 32, channels), (3, 3, channels, channels)])

    # a recurrent convolutional cell, 5 steps in a `lax.scan` and unrolled: the gradients
    # inside the scan's while body keep JAX's dimension numbers and run as loop nests
    def scanned(w, x):
        return lax.scan(lambda h, _: (jnp.tanh(conv(h, w)), None), x, None, length=5)[0]

    def unrolled(w, x):
        h = x
        for _ in range(5):
            h = jnp.tanh(conv(h, w))
        return h
    cell = [(3, 3, 64, 64), (32, 8, 8, 64)]
    for name, body in (("lax.scan", scanned), ("unrolled", unrolled)):
        out[f"5 steps of a 3x3 64-channel cell, {name}, forward"] = (body, cell)
        out[f"5 steps of a 3x3 64-channel cell, {name}, gradient"] = (
            jax.grad(lambda w, x, body=body: body(w, x).sum()), cell)
    return out


def main() -> int:
    import jax
    import jax.numpy as jnp
    from fresh_programs import measure

    import stablecost
    from stablecost.featurize.conv_lowering import multiply_adds, runs_as_loop_on_cpu
    from stablecost.featurize.ingest import load_program

    print(f"# Grouped and few-channel convolutions alone ({today()}, commit {commit()})\n")
    print("| convolution | measured | learned | roofline | measured G multiply-adds/s | "
          "loop nest | feature / batch groups |")
    print("|---|---:|---:|---:|---:|---|---|")
    for name, (fn, shapes) in cases().items():
        lowered = jax.jit(fn).lower(*[jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes])
        text = lowered.as_text()
        program = load_program(text)
        convs = [op for op in program.ops if op.opcode == "convolution"]
        measured = measure(lowered)
        p = stablecost.predict(text, "host-cpu", fidelity="all")
        learned = p.by_fidelity.get("learned")
        roofline = p.by_fidelity["roofline"]
        rate = sum(multiply_adds(op) for op in convs) / measured / 1e9
        groups = ", ".join(f"{op.attributes.get('feature_group_count', 1)} / "
                           f"{op.attributes.get('batch_group_count', 1)}" for op in convs)
        bodies = [loop.blocks for loop in program.loops]
        loops = ", ".join(
            "yes" if runs_as_loop_on_cpu(op, any(a <= op.block <= b for a, b in bodies))
            else "no" for op in convs)
        learned_ms = f"{learned.step_time_s * 1e3:.2f} ms" if learned else "-"
        print(f"| {name} | {measured * 1e3:.2f} ms | {learned_ms} | "
              f"{roofline.step_time_s * 1e3:.2f} ms | {rate:.2f} | {loops} | {groups} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
