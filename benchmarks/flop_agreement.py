"""FLOPs of `stablecost.analyze` against XLA's own count, over a sweep of JAX programs.

    .venv/bin/python benchmarks/flop_agreement.py [--quick]

The sweep: 1-D, 2-D and 3-D convolutions (channels-last and channels-first layouts,
feature groups, strides, kernel and input dilation, SAME / VALID / asymmetric
padding), forward and training steps; einsums with batch, free and contracted
dimensions (outer products included) in f32 and bf16, forward and training; a
transformer block and a transposed convolution. XLA's count is
`jit(f).lower(...).compile().cost_analysis()["flops"]` on this machine's CPU backend.
The table prints, per group, how many programs agree within 2 % and the extreme
ratios (ours / XLA), then every program outside 2 %.

Two differences are XLA:CPU's and not the program's: XLA:CPU computes bf16 dots in
f32, so its count adds the converts around them (the bf16 rows); and its fusion may
duplicate a producer into two kernels, which it then counts twice.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import warnings
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from programs import _train  # noqa: E402  (the tests' plain-SGD training step)


def _conv(nd, channels_last, groups, stride, rhs_dilation, lhs_dilation, padding, train):
    import jax.numpy as jnp
    from jax import lax

    spatial = "DHW"[-nd:] if nd > 1 else "W"
    size, cin, cout, k, batch = (8 if nd == 3 else 12), 16, 32, 3, 2
    if channels_last:
        dn = ("N" + spatial + "C", spatial + "IO", "N" + spatial + "C")
        x = jnp.ones((batch,) + (size,) * nd + (cin,))
        w = jnp.ones((k,) * nd + (cin // groups, cout))
    else:
        dn = ("NC" + spatial, "OI" + spatial, "NC" + spatial)
        x = jnp.ones((batch, cin) + (size,) * nd)
        w = jnp.ones((cout, cin // groups) + (k,) * nd)

    def fwd(w, x):
        return lax.conv_general_dilated(x, w, (stride,) * nd, padding,
                                        lhs_dilation=(lhs_dilation,) * nd,
                                        rhs_dilation=(rhs_dilation,) * nd,
                                        dimension_numbers=dn, feature_group_count=groups)
    if train:
        return _train(lambda w, x: (fwd(w, x) ** 2).sum()), (w, x)
    return fwd, (w, x)


def _einsum(spec, shapes, train, dtype):
    import jax.numpy as jnp

    args = tuple(jnp.ones(s, dtype) for s in shapes)

    def fwd(*operands):
        return jnp.einsum(spec, *operands)
    if train:
        return _train(lambda first, *rest: (fwd(first, *rest) ** 2).sum()), args
    return fwd, args


def _transformer(train, batch=2, seq=32, d=64, heads=4, ff=256):
    import jax
    import jax.numpy as jnp
    from jax import lax

    def block(p, x):
        m = x.mean(-1, keepdims=True)
        h = (x - m) * lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)
        q, k, v = ((h @ p[n]).reshape(batch, seq, heads, d // heads) for n in "qkv")
        a = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / 8.0, -1)
        x = x + jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(batch, seq, d) @ p["o"]
        return x + jax.nn.gelu(x @ p["w1"]) @ p["w2"]
    params = {n: jnp.ones((d, d)) for n in "qkvo"} | {"w1": jnp.ones((d, ff)),
                                                       "w2": jnp.ones((ff, d))}
    x = jnp.ones((batch, seq, d))
    if train:
        return _train(lambda p, x: block(p, x).sum()), (params, x)
    return block, (params, x)


def _conv_transpose(train):
    import jax.numpy as jnp
    from jax import lax

    x, w = jnp.ones((2, 8, 8, 16)), jnp.ones((3, 3, 16, 8))

    def fwd(w, x):
        return lax.conv_transpose(x, w, (2, 2), "SAME",
                                  dimension_numbers=("NHWC", "HWIO", "NHWC"))
    if train:
        return _train(lambda w, x: (fwd(w, x) ** 2).sum()), (w, x)
    return fwd, (w, x)


_EINSUMS = [
    ("bij,bjk->bik", [(4, 32, 64), (4, 64, 16)]),
    ("abij,abjk->abik", [(2, 3, 32, 64), (2, 3, 64, 16)]),
    ("ij,bjk->bik", [(32, 64), (4, 64, 16)]),
    ("bhqd,bhkd->bhqk", [(2, 4, 64, 32), (2, 4, 48, 32)]),
    ("ijk,kl->ijl", [(8, 16, 32), (32, 24)]),
    ("bij,bkj->bik", [(3, 17, 33), (3, 19, 33)]),
    ("i,i->", [(128,), (128,)]),
    ("ij,j->i", [(64, 128), (128,)]),
    ("bi,bj->bij", [(8, 16), (8, 12)]),
]


def programs(quick: bool):
    """(group, name, thunk returning (fn, args))."""
    import jax.numpy as jnp

    out = []
    paddings = ("SAME", "VALID", "asym")
    for nd, last, groups, stride, dil, lhs, pad, train in itertools.product(
            (1, 2, 3), (True, False), (1, 4), (1, 2), (1, 2), (1, 2), paddings, (False, True)):
        if nd == 3 and (stride, dil, lhs) != (1, 1, 1):
            continue
        if lhs > 1 and pad != "asym":
            continue   # jax takes only explicit padding with input dilation
        if quick and (not last or groups > 1 and stride > 1):
            continue
        padding = ((1, 2),) * nd if pad == "asym" else pad
        name = (f"conv{nd}d {'channels-last' if last else 'channels-first'} groups={groups} "
                f"stride={stride} "
                f"dilation={dil} lhs_dilation={lhs} {pad}")
        group = f"conv{nd}d {'train' if train else 'fwd'}"
        out.append((group, f"{name} {'train' if train else 'fwd'}",
                    lambda a=(nd, last, groups, stride, dil, lhs, padding, train): _conv(*a)))
    for (spec, shapes), train, dtype in itertools.product(
            _EINSUMS, (False, True), (jnp.float32, jnp.bfloat16)):
        dname = jnp.dtype(dtype).name
        group = f"einsum {dname} {'train' if train else 'fwd'}"
        out.append((group, f"{spec} {dname} {'train' if train else 'fwd'}",
                    lambda a=(spec, shapes, train, dtype): _einsum(*a)))
    for train in (False, True):
        suffix = "train" if train else "fwd"
        out.append(("transformer, conv_transpose", f"transformer block {suffix}",
                    lambda t=train: _transformer(t)))
        out.append(("transformer, conv_transpose", f"conv_transpose {suffix}",
                    lambda t=train: _conv_transpose(t)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="channels-last convolutions only, fewer grouped strided ones")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import jax

    import stablecost

    by_group: dict[str, list[tuple[str, float]]] = defaultdict(list)
    skipped = []
    for group, name, make in programs(args.quick):
        fn, fn_args = make()
        lowered = jax.jit(fn).lower(*fn_args)
        xla = lowered.compile().cost_analysis().get("flops", 0.0)
        ours = stablecost.analyze(stablecost.load_program(lowered)).flops
        if xla <= 0:   # XLA leaves "flops" out when it counts none
            if ours > 0:
                skipped.append(f"{name}: XLA counts no FLOPs, stablecost {ours:.0f}")
                continue
            ours = xla = 1.0   # (every product lands on a dilation hole)
        by_group[group].append((name, ours / xla))
    width = max(len(g) for g in by_group)
    print(f"{'group':{width}s}  {'programs':>8s}  {'within 2 %':>10s}  {'min ratio':>9s}  "
          f"{'max ratio':>9s}")
    total = agree = 0
    outside = []
    for group in sorted(by_group):
        rows = by_group[group]
        ok = sum(abs(r - 1) <= 0.02 for _, r in rows)
        total += len(rows)
        agree += ok
        outside += [(n, r) for n, r in rows if abs(r - 1) > 0.02]
        ratios = [r for _, r in rows]
        print(f"{group:{width}s}  {len(rows):8d}  {ok:10d}  {min(ratios):9.3f}  "
              f"{max(ratios):9.3f}")
    print(f"{'all':{width}s}  {total:8d}  {agree:10d}")
    if outside:
        print("\noutside 2 % (ours / XLA):")
        for name, ratio in outside:
            print(f"  {ratio:6.3f}  {name}")
    if skipped:
        print("\nnot compared:")
        for line in skipped:
            print(f"  {line}")


if __name__ == "__main__":
    main()
