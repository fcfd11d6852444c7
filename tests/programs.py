"""JAX programs the tests lower to StableHLO: dot/conv-dominated models (for the XLA
FLOP agreement) and a corpus of small programs covering every op family."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def _train(loss):
    def step(p, *batch):
        l, g = jax.value_and_grad(loss)(p, *batch)
        return jax.tree.map(lambda a, b: a - 0.01 * b, p, g), l
    return step


def mlp(train: bool, batch=32, dims=(256, 512, 128)):
    def fwd(p, x):
        for w in p:
            x = jax.nn.relu(x @ w)
        return x

    p = [jnp.ones((a, b)) for a, b in zip(dims[:-1], dims[1:])]
    x = jnp.ones((batch, dims[0]))
    fn = _train(lambda p, x: fwd(p, x).sum()) if train else fwd
    return fn, (p, x)


def conv(train: bool, layout="NHWC", groups=1, stride=1, dilation=1, batch=4, size=16,
         cin=8, cout=16, k=3):
    if layout == "NHWC":
        dn, xshape, wshape = ("NHWC", "HWIO", "NHWC"), (batch, size, size, cin), \
            (k, k, cin // groups, cout)
    else:
        dn, xshape, wshape = ("NCHW", "OIHW", "NCHW"), (batch, cin, size, size), \
            (cout, cin // groups, k, k)

    def fwd(w, x):
        y = jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                         rhs_dilation=(dilation, dilation),
                                         dimension_numbers=dn, feature_group_count=groups)
        return jnp.tanh(y)

    w, x = jnp.ones(wshape), jnp.ones(xshape)
    fn = _train(lambda w, x: fwd(w, x).sum()) if train else fwd
    return fn, (w, x)


def conv1d(train: bool, groups=1, stride=1, lhs_dilation=1, batch=2, size=12, cin=16,
           cout=32, k=3):
    def fwd(w, x):
        return jax.lax.conv_general_dilated(x, w, (stride,), ((1, 2),),
                                            lhs_dilation=(lhs_dilation,),
                                            dimension_numbers=("NWC", "WIO", "NWC"),
                                            feature_group_count=groups)

    w, x = jnp.ones((k, cin // groups, cout)), jnp.ones((batch, size, cin))
    fn = _train(lambda w, x: (fwd(w, x) ** 2).sum()) if train else fwd
    return fn, (w, x)


def outer_product(batch=8, m=16, n=12):
    return (lambda a, b: jnp.einsum("bi,bj->bij", a, b)), (jnp.ones((batch, m)),
                                                            jnp.ones((batch, n)))


def attention(train: bool, batch=2, seq=64, d=128, heads=4):
    hd = d // heads

    def fwd(p, x):
        q = (x @ p["q"]).reshape(batch, seq, heads, hd)
        k = (x @ p["k"]).reshape(batch, seq, heads, hd)
        v = (x @ p["v"]).reshape(batch, seq, heads, hd)
        s = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / hd ** 0.5)
        o = jnp.einsum("bhqk,bkhd->bqhd", s, v).reshape(batch, seq, d)
        return o @ p["o"]

    p = {n: jnp.ones((d, d)) for n in "qkvo"}
    x = jnp.ones((batch, seq, d))
    fn = _train(lambda p, x: fwd(p, x).sum()) if train else fwd
    return fn, (p, x)


FLOP_PROGRAMS = {
    "mlp_fwd": lambda: mlp(False),
    "mlp_train": lambda: mlp(True),
    "conv_nhwc_fwd": lambda: conv(False, "NHWC"),
    "conv_nhwc_train": lambda: conv(True, "NHWC"),
    "conv_nchw_fwd": lambda: conv(False, "NCHW"),
    "conv_nchw_train": lambda: conv(True, "NCHW"),
    "conv_grouped_fwd": lambda: conv(False, "NHWC", groups=4),
    "conv_grouped_train": lambda: conv(True, "NHWC", groups=4),
    # Depthwise *training* is left out on purpose: its backward-filter convolution
    # (batch_group_count = 8) is expanded by XLA:CPU into a dense convolution, so the
    # compiled count is 4x the work, and even the unoptimized count is 6 % below the
    # hand-worked value (test_costs.py::test_backward_filter_depthwise_conv).
    "conv_depthwise_fwd": lambda: conv(False, "NCHW", groups=8, cout=8),
    "conv_strided_train": lambda: conv(True, "NHWC", stride=2),
    "conv_dilated_train": lambda: conv(True, "NCHW", dilation=2),
    # grouped 1-D convolution training with input dilation: the gradient seed
    # `ones * g` is a tenth of the FLOPs here, and XLA deletes it
    "conv1d_grouped_dilated_train": lambda: conv1d(True, groups=4, stride=2, lhs_dilation=2),
    "outer_product_fwd": lambda: outer_product(),
    "attention_fwd": lambda: attention(False),
    "attention_train": lambda: attention(True),
}


def early_exit_solver(bound: int = 40):
    """(a solver whose `while_loop` stops on convergence or at `bound` iterations, the same
    loop run `bound` times by `fori_loop`): a loop that may stop on its data and one that
    cannot."""
    def solve(x):
        def cond(state):
            i, _, residual = state
            return (i < bound) & (residual > 1e-3)

        def body(state):
            i, v, _ = state
            new = jnp.tanh(v @ v)
            return i + 1, new, jnp.abs(new - v).max()
        return jax.lax.while_loop(cond, body, (0, x, jnp.float32(1.0)))[1]

    def fixed(x):
        return jax.lax.fori_loop(0, bound, lambda i, v: jnp.tanh(v @ v), x)

    return solve, fixed
