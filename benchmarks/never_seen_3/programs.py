"""The third never-seen set: programs written on 2026-11-24, after the second set
(benchmarks/never_seen_2/), and never used to choose anything: not for a feature, a
default, a fallback threshold or a model. They exist to judge the next trained model
once. The file's SHA-256 is committed beside it (`SHA256`); `fresh_programs.py --set
never-seen-3` refuses to run when the file no longer matches it, since an edited set is
no longer unseen.

Fifteen training steps (forward, loss, backward and an optimizer update) of kinds
neither the program zoo, fresh_programs.py nor the first two never-seen sets has: a Set
Transformer with induced points, a Glow flow (actnorm, LU-parametrized invertible 1x1
convolutions, convolutional affine coupling), a graph attention network with a segment
softmax over an edge list, an energy-based model sampled by unrolled Langevin steps, a
MAML outer step differentiated through an inner gradient step, a Kalman filter
likelihood under a `lax.scan`, a Mamba-style selective scan, PPO with generalized
advantage estimates by a reverse scan, a CTC loss by its forward recursion, a DDPM
noise-prediction step, a masked autoencoder masking by `argsort`, a spatial transformer
sampling bilinearly, a GAN step updating generator and discriminator, quantization-aware
training with straight-through fake quantization, and skip-gram with negative sampling.
The updates vary too: plain SGD, SGD with global-norm clipping, momentum, Nesterov
momentum, RMSProp, Adam (with and without clipping), AdamW and Lion; two programs run in
bfloat16. (A Gaussian-process marginal likelihood was left out: XLA:CPU lowers Cholesky
and triangular solves to LAPACK custom calls, which stablecost reports as unpriced.)
"""

from __future__ import annotations

from typing import Any, Callable


def _tree_zeros(params):
    import jax
    import jax.numpy as jnp

    return jax.tree.map(jnp.zeros_like, params)


def _global_norm_scale(grads, max_norm: float):
    import jax
    import jax.numpy as jnp

    norm = jnp.sqrt(sum((g.astype(jnp.float32) ** 2).sum() for g in jax.tree.leaves(grads)))
    return jnp.minimum(1.0, max_norm / (norm + 1e-6))


def _sgd(loss_fn: Callable[..., Any], clip: float | None = None) -> Callable[..., Any]:
    import jax

    def step(params, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        scale = 1.0 if clip is None else _global_norm_scale(grads, clip)
        return jax.tree.map(lambda p, g: p - 1e-2 * scale * g, params, grads), loss
    return step


def _momentum(loss_fn: Callable[..., Any], nesterov: bool = False) -> Callable[..., Any]:
    import jax

    def step(state, *batch):
        params, velocity = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
        if nesterov:
            params = jax.tree.map(lambda p, v, g: p - 1e-2 * (g + 0.9 * v),
                                  params, velocity, grads)
        else:
            params = jax.tree.map(lambda p, v: p - 1e-2 * v, params, velocity)
        return (params, velocity), loss
    return step


def _rmsprop(loss_fn: Callable[..., Any]) -> Callable[..., Any]:
    import jax
    import jax.numpy as jnp

    def step(state, *batch):
        params, sq = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        sq = jax.tree.map(lambda s, g: 0.99 * s + 0.01 * g * g, sq, grads)
        params = jax.tree.map(lambda p, s, g: p - 1e-3 * g / (jnp.sqrt(s) + 1e-8),
                              params, sq, grads)
        return (params, sq), loss
    return step


def _adam_update(params, m, v, t, grads, decay: float = 0.0, b1: float = 0.9,
                 lr: float = 1e-3):
    import jax
    import jax.numpy as jnp

    t = t + 1
    m = jax.tree.map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v_, g: 0.999 * v_ + 0.001 * g * g, v, grads)
    c1 = 1 - b1 ** t.astype(jnp.float32)
    c2 = 1 - 0.999 ** t.astype(jnp.float32)

    def update(p, m_, v_):
        u = (m_ / c1) / (jnp.sqrt(v_ / c2) + 1e-8) + decay * p
        return p - (lr * u).astype(p.dtype)
    return jax.tree.map(update, params, m, v), m, v, t


def _adam(loss_fn: Callable[..., Any], decay: float = 0.0,
          clip: float | None = None) -> Callable[..., Any]:
    import jax

    def step(state, *batch):
        params, m, v, t = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        if clip is not None:
            scale = _global_norm_scale(grads, clip)
            grads = jax.tree.map(lambda g: (g * scale).astype(g.dtype), grads)
        params, m, v, t = _adam_update(params, m, v, t, grads, decay)
        return (params, m, v, t), loss
    return step


def _lion(loss_fn: Callable[..., Any]) -> Callable[..., Any]:
    import jax
    import jax.numpy as jnp

    def step(state, *batch):
        params, m = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params = jax.tree.map(lambda p, m_, g: p - 1e-4 * (jnp.sign(0.9 * m_ + 0.1 * g)
                                                         + 0.01 * p), params, m, grads)
        m = jax.tree.map(lambda m_, g: 0.99 * m_ + 0.01 * g, m, grads)
        return (params, m), loss
    return step


def _adam_state(params: Any) -> Any:
    import jax.numpy as jnp

    return (params, _tree_zeros(params), _tree_zeros(params), jnp.zeros((), jnp.int32))


def _lower(optimizer: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    import jax

    if optimizer in ("sgd", "clipped_sgd"):
        step = _sgd(loss_fn, clip=1.0 if optimizer == "clipped_sgd" else None)
        return jax.jit(step).lower(params, *batch)
    if optimizer in ("momentum", "nesterov"):
        step = _momentum(loss_fn, nesterov=optimizer == "nesterov")
        return jax.jit(step).lower((params, _tree_zeros(params)), *batch)
    if optimizer == "rmsprop":
        return jax.jit(_rmsprop(loss_fn)).lower((params, _tree_zeros(params)), *batch)
    if optimizer in ("adam", "adamw", "clipped_adam"):
        step = _adam(loss_fn, decay=0.01 if optimizer == "adamw" else 0.0,
                     clip=1.0 if optimizer == "clipped_adam" else None)
        return jax.jit(step).lower(_adam_state(params), *batch)
    if optimizer == "lion":
        return jax.jit(_lion(loss_fn)).lower((params, _tree_zeros(params)), *batch)
    raise ValueError(optimizer)


def _ln(x):
    from jax import lax

    m = x.mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)


def _init(shapes: dict[str, tuple[int, ...]], scale: float = 0.02, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    return {k: (jnp.ones(s, dtype or jnp.float32) * scale) for k, s in shapes.items()}


def _xent(logits, labels, classes: int):
    import jax

    return -(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, classes)).sum(-1).mean()


_NHWC = ("NHWC", "HWIO", "NHWC")


def _conv(x, w, stride: int = 1):
    import jax

    return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                        dimension_numbers=_NHWC)


def set_transformer(batch: int = 16, elements: int = 128, d_in: int = 16, d: int = 128,
                    induced: int = 32, heads: int = 4, classes: int = 40) -> Any:
    """Induced set attention blocks (ISAB: m inducing points attend to the set, the set
    attends back to them) and pooling by multihead attention onto one seed vector."""
    import jax
    import jax.numpy as jnp

    hd = d // heads

    def mab(b, q_in, kv_in):
        q = (q_in @ b["q"]).reshape(*q_in.shape[:2], heads, hd)
        k = (kv_in @ b["k"]).reshape(*kv_in.shape[:2], heads, hd)
        v = (kv_in @ b["v"]).reshape(*kv_in.shape[:2], heads, hd)
        a = jax.nn.softmax(jnp.einsum("bqhk,bshk->bhqs", q, k) / jnp.sqrt(hd), -1)
        h = _ln(q_in + jnp.einsum("bhqs,bshk->bqhk", a, v).reshape(q_in.shape) @ b["o"])
        return _ln(h + jax.nn.relu(h @ b["f1"]) @ b["f2"])

    def loss_fn(p, x, y):
        h = x @ p["embed"]
        for isab in p["isab"]:
            inducing = jnp.broadcast_to(isab["points"], (batch, induced, d))
            h = mab(isab["back"], h, mab(isab["to"], inducing, h))
        pooled = mab(p["pma"], jnp.broadcast_to(p["seed"], (batch, 1, d)), h)[:, 0]
        return _xent(pooled @ p["head"], y, classes)

    def block():
        return _init({"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "f1": (d, 2 * d),
                      "f2": (2 * d, d)})

    p = _init({"embed": (d_in, d), "seed": (1, d), "head": (d, classes)})
    p["isab"] = [{"points": jnp.ones((induced, d)) * 0.02, "to": block(), "back": block()}
                 for _ in range(2)]
    p["pma"] = block()
    return _lower("adamw", loss_fn, p, jnp.ones((batch, elements, d_in)),
                  jnp.zeros((batch,), jnp.int32))


def glow_flow(batch: int = 16, side: int = 32, steps: int = 4, hidden: int = 96) -> Any:
    """Glow: a squeeze to 12 channels, then flow steps of actnorm, an invertible 1x1
    convolution parametrized by its LU factors (the log-determinant is a sum of logs,
    no determinant is taken) and a convolutional affine coupling, trained by exact
    log-likelihood."""
    import jax
    import jax.numpy as jnp

    c = 12
    half = c // 2
    pixels = (side // 2) ** 2
    lower = jnp.tril(jnp.ones((c, c)), -1)
    perm = jnp.eye(c)[::-1]

    def loss_fn(p, x):
        h = x.reshape(batch, side // 2, 2, side // 2, 2, 3).transpose(0, 1, 3, 2, 4, 5)
        h = h.reshape(batch, side // 2, side // 2, c)
        log_det = jnp.zeros((batch,))
        for s in p:
            h = (h + s["an_bias"]) * jnp.exp(s["an_logs"])
            log_det = log_det + pixels * s["an_logs"].sum()
            w = perm @ (s["l"] * lower + jnp.eye(c)) @ (
                s["u"] * lower.T + jnp.diag(s["sign"] * jnp.exp(s["log_s"])))
            h = h @ w
            log_det = log_det + pixels * s["log_s"].sum()
            a, b = h[..., :half], h[..., half:]
            net = jax.nn.relu(_conv(jax.nn.relu(_conv(a, s["c1"])) @ s["c2"], s["c3"]))
            log_scale = jax.nn.log_sigmoid(net[..., :half] + 2.0)
            b = (b + net[..., half:]) * jnp.exp(log_scale)
            log_det = log_det + log_scale.sum((1, 2, 3))
            h = jnp.concatenate([a, b], -1)
        log_pz = (-0.5 * h ** 2 - 0.5 * jnp.log(2 * jnp.pi)).sum((1, 2, 3))
        return -((log_pz + log_det) / (side * side * 3)).mean()

    p = [dict(_init({"c1": (3, 3, half, hidden), "c2": (hidden, hidden),
                     "c3": (3, 3, hidden, c), "l": (c, c), "u": (c, c)}, 0.01),
              an_bias=jnp.zeros((c,)), an_logs=jnp.zeros((c,)), log_s=jnp.zeros((c,)),
              sign=jnp.ones((c,))) for _ in range(steps)]
    return _lower("clipped_adam", loss_fn, p, jnp.ones((batch, side, side, 3)))


def graph_attention(nodes: int = 2048, edges: int = 16384, d_in: int = 128, heads: int = 4,
                    hd: int = 32, classes: int = 16, layers: int = 2) -> Any:
    """GAT layers over an edge list: per-edge attention logits, a softmax over each
    node's incoming edges by segment max and segment sums, weighted messages summed
    per node."""
    import jax
    import jax.numpy as jnp

    def layer(w, h, src, dst):
        z = (h @ w["w"]).reshape(nodes, heads, hd)
        logits = jax.nn.leaky_relu((z * w["a_src"]).sum(-1)[src]
                                   + (z * w["a_dst"]).sum(-1)[dst], 0.2)        # (e, h)
        peak = jax.ops.segment_max(logits, dst, nodes)
        e = jnp.exp(logits - jax.lax.stop_gradient(peak)[dst])
        alpha = e / (jax.ops.segment_sum(e, dst, nodes)[dst] + 1e-9)
        out = jax.ops.segment_sum(alpha[..., None] * z[src], dst, nodes)
        return jax.nn.elu(out.reshape(nodes, heads * hd))

    def loss_fn(p, x, src, dst, y):
        h = x
        for w in p["layers"]:
            h = layer(w, h, src, dst)
        return _xent(h @ p["head"], y, classes)

    dims = [d_in] + [heads * hd] * layers
    p = {"layers": [_init({"w": (dims[i], heads * hd), "a_src": (heads, hd),
                           "a_dst": (heads, hd)}, 0.05) for i in range(layers)],
         "head": jnp.ones((heads * hd, classes)) * 0.05}
    return _lower("nesterov", loss_fn, p, jnp.ones((nodes, d_in)),
                  jnp.zeros((edges,), jnp.int32), jnp.zeros((edges,), jnp.int32),
                  jnp.zeros((nodes,), jnp.int32))


def langevin_ebm(batch: int = 128, dim: int = 256, hidden: int = 512,
                 langevin_steps: int = 10, step_size: float = 0.01) -> Any:
    """An energy-based model: negatives drawn by unrolled Langevin dynamics (each step
    a gradient of the energy by its input, plus noise), detached, then contrastive
    divergence with an energy-magnitude penalty."""
    import jax
    import jax.numpy as jnp

    def energy(p, x):
        h = jax.nn.silu(x @ p["w1"])
        h = jax.nn.silu(h @ p["w2"])
        return (h @ p["w3"])[..., 0]

    def loss_fn(p, pos, start, noise):
        grad_x = jax.grad(lambda x: energy(p, x).sum())
        neg = start
        for k in range(langevin_steps):
            neg = neg - 0.5 * step_size * grad_x(neg) + jnp.sqrt(step_size) * noise[k]
        neg = jax.lax.stop_gradient(neg)
        e_pos, e_neg = energy(p, pos), energy(p, neg)
        return e_pos.mean() - e_neg.mean() + 0.1 * (e_pos ** 2 + e_neg ** 2).mean()

    p = _init({"w1": (dim, hidden), "w2": (hidden, hidden), "w3": (hidden, 1)})
    return _lower("clipped_sgd", loss_fn, p, jnp.ones((batch, dim)), jnp.ones((batch, dim)),
                  jnp.ones((langevin_steps, batch, dim)))


def maml_inner_step(tasks: int = 16, shots: int = 32, d_in: int = 64, hidden: int = 128,
                    ways: int = 5) -> Any:
    """MAML: per task one inner SGD step on the support set, the query loss taken at
    the adapted weights, and the outer gradient through the inner step (second order),
    vectorized over tasks."""
    import jax
    import jax.numpy as jnp

    def net(w, x):
        h = jax.nn.relu(x @ w["w1"] + w["b1"])
        h = jax.nn.relu(h @ w["w2"] + w["b2"])
        return h @ w["w3"]

    def task_loss(w, sx, sy, qx, qy):
        g = jax.grad(lambda w_: _xent(net(w_, sx), sy, ways))(w)
        fast = jax.tree.map(lambda a, b: a - 0.4 * b, w, g)
        return _xent(net(fast, qx), qy, ways)

    def loss_fn(p, sx, sy, qx, qy):
        return jax.vmap(task_loss, (None, 0, 0, 0, 0))(p, sx, sy, qx, qy).mean()

    p = _init({"w1": (d_in, hidden), "b1": (hidden,), "w2": (hidden, hidden),
               "b2": (hidden,), "w3": (hidden, ways)}, 0.05)
    xs = jnp.ones((tasks, shots, d_in))
    ys = jnp.zeros((tasks, shots), jnp.int32)
    return _lower("adam", loss_fn, p, xs, ys, xs, ys)


def kalman_filter_scan(batch: int = 64, length: int = 256, state: int = 8) -> Any:
    """A linear-Gaussian state-space model with learned dynamics, noise and read-out,
    fitted by the exact likelihood of its innovations: a Kalman filter under
    `lax.scan` (scalar observations, so the gain needs no matrix inverse)."""
    import jax
    import jax.numpy as jnp

    def loss_fn(p, ys):
        a, h = p["a"], p["h"]
        q = jnp.diag(jnp.exp(p["log_q"]))
        r = jnp.exp(p["log_r"])

        def step(carry, y):
            m, cov = carry                                       # (b, n), (b, n, n)
            m = m @ a.T
            cov = jnp.einsum("ij,bjk,lk->bil", a, cov, a) + q
            ph = cov @ h                                         # (b, n)
            s = ph @ h + r                                       # (b,)
            e = y - m @ h
            gain = ph / s[:, None]
            m = m + gain * e[:, None]
            cov = cov - gain[:, :, None] * ph[:, None, :]
            return (m, cov), 0.5 * (jnp.log(s) + e ** 2 / s)

        init = (jnp.zeros((batch, state)), jnp.broadcast_to(jnp.eye(state),
                                                            (batch, state, state)))
        _, nll = jax.lax.scan(step, init, ys)
        return nll.mean()

    p = {"a": jnp.eye(state) * 0.9, "h": jnp.ones((state,)) * 0.3,
         "log_q": jnp.zeros((state,)) - 2.0, "log_r": jnp.zeros(())}
    return _lower("rmsprop", loss_fn, p, jnp.ones((length, batch)))


def selective_scan(batch: int = 4, length: int = 128, d: int = 64, expand: int = 2,
                   state: int = 16, layers: int = 2) -> Any:
    """Mamba blocks (bfloat16): a causal depthwise convolution, then a selective state
    space whose step size, B and C depend on the input, run by `lax.scan` over time in
    float32, gated by a SiLU branch."""
    import jax
    import jax.numpy as jnp

    bf16 = jnp.bfloat16
    inner = expand * d
    rank = d // 16

    def block(w, x):
        xz = _ln(x) @ w["in"]
        u, z = xz[..., :inner], xz[..., inner:]
        u = jax.lax.conv_general_dilated(u, w["conv"], (1,), [(3, 0)],
                                         dimension_numbers=("NWC", "WIO", "NWC"),
                                         feature_group_count=inner)
        u = jax.nn.silu(u)
        dbc = u @ w["x_proj"]
        delta = jax.nn.softplus(dbc[..., :rank] @ w["dt"]).astype(jnp.float32)  # (b,l,i)
        b_t = dbc[..., rank:rank + state].astype(jnp.float32)                   # (b,l,n)
        c_t = dbc[..., rank + state:].astype(jnp.float32)
        a = -jnp.exp(w["a_log"].astype(jnp.float32))                            # (i, n)
        da = jnp.exp(delta[..., None] * a)                                      # (b,l,i,n)
        dbu = delta[..., None] * b_t[:, :, None, :] * u.astype(jnp.float32)[..., None]

        def step(hs, inputs):
            da_t, dbu_t, c = inputs
            hs = da_t * hs + dbu_t
            return hs, jnp.einsum("bin,bn->bi", hs, c)

        _, ys = jax.lax.scan(step, jnp.zeros((batch, inner, state)),
                             (da.swapaxes(0, 1), dbu.swapaxes(0, 1), c_t.swapaxes(0, 1)))
        y = (ys.swapaxes(0, 1) + u.astype(jnp.float32) * w["skip"]).astype(bf16)
        return x + (y * jax.nn.silu(z)) @ w["out"]

    def loss_fn(p, x):
        for w in p:
            x = block(w, x)
        return (x.astype(jnp.float32) ** 2).mean()

    p = [dict(_init({"in": (d, 2 * inner), "conv": (4, 1, inner),
                     "x_proj": (inner, rank + 2 * state), "dt": (rank, inner),
                     "out": (inner, d)}, dtype=bf16),
              a_log=jnp.zeros((inner, state), bf16), skip=jnp.ones((inner,), bf16))
         for _ in range(layers)]
    return _lower("adamw", loss_fn, p, jnp.ones((batch, length, d), bf16))


def ppo_gae(steps: int = 128, envs: int = 16, obs: int = 64, hidden: int = 256,
            actions: int = 8) -> Any:
    """A PPO update on one rollout: generalized advantage estimates by a reverse
    `lax.scan`, the clipped surrogate, a value loss and an entropy bonus from a shared
    actor-critic MLP; Adam with global-norm clipping."""
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x, act, old_logp, rewards, dones, last_obs):
        h = jnp.tanh(jnp.tanh(x @ p["w1"]) @ p["w2"])
        logp_all = jax.nn.log_softmax(h @ p["pi"])                      # (t, e, a)
        value = (h @ p["v"])[..., 0]
        last_value = (jnp.tanh(jnp.tanh(last_obs @ p["w1"]) @ p["w2"]) @ p["v"])[..., 0]
        v_sg = jax.lax.stop_gradient(value)
        next_v = jnp.concatenate([v_sg[1:], jax.lax.stop_gradient(last_value)[None]], 0)
        deltas = rewards + 0.99 * next_v * (1 - dones) - v_sg

        def gae(adv, inputs):
            delta, done = inputs
            adv = delta + 0.99 * 0.95 * (1 - done) * adv
            return adv, adv

        _, adv = jax.lax.scan(gae, jnp.zeros((envs,)), (deltas, dones), reverse=True)
        returns = adv + v_sg
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        logp = jnp.take_along_axis(logp_all, act[..., None], -1)[..., 0]
        ratio = jnp.exp(logp - old_logp)
        surrogate = jnp.minimum(ratio * adv, jnp.clip(ratio, 0.8, 1.2) * adv)
        entropy = -(jnp.exp(logp_all) * logp_all).sum(-1)
        return (-surrogate.mean() + 0.5 * ((value - returns) ** 2).mean()
                - 0.01 * entropy.mean())

    p = _init({"w1": (obs, hidden), "w2": (hidden, hidden), "pi": (hidden, actions),
               "v": (hidden, 1)}, 0.05)
    f = jnp.ones((steps, envs))
    return _lower("clipped_adam", loss_fn, p, jnp.ones((steps, envs, obs)),
                  jnp.zeros((steps, envs), jnp.int32), f, f, f * 0, jnp.ones((envs, obs)))


def ctc_loss(batch: int = 16, frames: int = 200, features: int = 80, hidden: int = 256,
             vocab: int = 32, label_len: int = 40) -> Any:
    """An acoustic model (strided 1-D convolution and an MLP) trained by connectionist
    temporal classification: the forward (alpha) recursion over the blank-extended
    labels in log space under `lax.scan`."""
    import jax
    import jax.numpy as jnp

    ext = 2 * label_len + 1
    neg_inf = -1e30

    def loss_fn(p, x, labels):
        h = jax.nn.relu(jax.lax.conv_general_dilated(
            x, p["conv"], (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")))
        h = jax.nn.relu(h @ p["w1"])
        logp = jax.nn.log_softmax(h @ p["out"])                         # (b, t, v)
        ext_labels = jnp.zeros((batch, ext), jnp.int32).at[:, 1::2].set(labels)
        emit = jnp.take_along_axis(logp, jnp.broadcast_to(ext_labels[:, None],
                                                          (batch, logp.shape[1], ext)), -1)
        prev2 = jnp.pad(ext_labels, ((0, 0), (2, 0)))[:, :ext]
        can_skip = (ext_labels != 0) & (ext_labels != prev2)
        alpha0 = jnp.full((batch, ext), neg_inf).at[:, :2].set(emit[:, 0, :2])

        def step(alpha, e):
            a1 = jnp.pad(alpha, ((0, 0), (1, 0)), constant_values=neg_inf)[:, :ext]
            a2 = jnp.pad(alpha, ((0, 0), (2, 0)), constant_values=neg_inf)[:, :ext]
            a2 = jnp.where(can_skip, a2, neg_inf)
            alpha = jnp.logaddexp(jnp.logaddexp(alpha, a1), a2) + e
            return alpha, None

        alpha, _ = jax.lax.scan(step, alpha0, emit[:, 1:].swapaxes(0, 1))
        return -jnp.logaddexp(alpha[:, -1], alpha[:, -2]).mean() / label_len

    p = _init({"conv": (5, features, hidden), "w1": (hidden, hidden),
               "out": (hidden, vocab)}, 0.02)
    return _lower("adam", loss_fn, p, jnp.ones((batch, 2 * frames, features)),
                  jnp.ones((batch, label_len), jnp.int32))


def ddpm_diffusion(batch: int = 16, side: int = 16, c: int = 64, blocks: int = 3,
                   timesteps: int = 1000) -> Any:
    """A DDPM training step (bfloat16): a random timestep per image, its noise level
    gathered from the cumulative schedule, the noised image, and a convolutional
    residual network conditioned on a sinusoidal time embedding regressing the noise."""
    import jax
    import jax.numpy as jnp

    bf16 = jnp.bfloat16

    def loss_fn(p, x0, t, eps):
        betas = jnp.linspace(1e-4, 0.02, timesteps)
        alpha_bar = jnp.cumprod(1 - betas)[t].astype(bf16)[:, None, None, None]
        xt = jnp.sqrt(alpha_bar) * x0 + jnp.sqrt(1 - alpha_bar) * eps
        freqs = jnp.exp(-jnp.log(10000.0) * jnp.arange(c // 2) / (c // 2))
        angle = t[:, None].astype(jnp.float32) * freqs
        temb = jnp.concatenate([jnp.sin(angle), jnp.cos(angle)], -1).astype(bf16)
        temb = jax.nn.silu(temb @ p["t1"]) @ p["t2"]
        h = _conv(xt, p["stem"])
        for b in p["blocks"]:
            r = jax.nn.silu(_conv(jax.nn.silu(h), b["c1"]) + (temb @ b["t"])[:, None, None])
            h = h + _conv(r, b["c2"])
        pred = _conv(jax.nn.silu(h), p["head"])
        return ((pred - eps).astype(jnp.float32) ** 2).mean()

    p = _init({"t1": (c, 4 * c), "t2": (4 * c, 4 * c), "stem": (3, 3, 3, c),
               "head": (3, 3, c, 3)}, dtype=bf16)
    p["blocks"] = [_init({"c1": (3, 3, c, c), "c2": (3, 3, c, c), "t": (4 * c, c)},
                         dtype=bf16) for _ in range(blocks)]
    img = jnp.ones((batch, side, side, 3), bf16)
    return _lower("adamw", loss_fn, p, img, jnp.zeros((batch,), jnp.int32), img)


def masked_autoencoder(batch: int = 16, patches: int = 64, patch_dim: int = 48,
                       d: int = 128, keep: int = 16, enc_blocks: int = 2) -> Any:
    """A masked autoencoder: patches shuffled by the `argsort` of noise, the kept
    quarter encoded by transformer blocks, mask tokens put back by the inverse
    permutation, a one-block decoder, the loss on the masked patches only."""
    import jax
    import jax.numpy as jnp

    def block(b, x):
        a = _ln(x)
        q, k, v = a @ b["q"], a @ b["k"], a @ b["v"]
        s = jax.nn.softmax(jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(d), -1)
        x = x + (s @ v) @ b["o"]
        return x + jax.nn.gelu(_ln(x) @ b["up"]) @ b["down"]

    def loss_fn(p, x, noise):
        order = jnp.argsort(noise, -1)
        restore = jnp.argsort(order, -1)
        tokens = x @ p["embed"] + p["pos"]
        visible = jnp.take_along_axis(tokens, order[:, :keep, None], 1)
        for b in p["enc"]:
            visible = block(b, visible)
        latent = _ln(visible) @ p["dec_embed"]
        filler = jnp.broadcast_to(p["mask_token"], (batch, patches - keep, d))
        full = jnp.take_along_axis(jnp.concatenate([latent, filler], 1),
                                   restore[..., None], 1) + p["dec_pos"]
        pred = _ln(block(p["dec"], full)) @ p["pred"]
        masked = (restore >= keep).astype(jnp.float32)
        return ((((pred - x) ** 2).mean(-1) * masked).sum() / masked.sum())

    def blk():
        return _init({"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d),
                      "up": (d, 4 * d), "down": (4 * d, d)})

    p = _init({"embed": (patch_dim, d), "pos": (patches, d), "dec_embed": (d, d),
               "mask_token": (1, d), "dec_pos": (patches, d), "pred": (d, patch_dim)})
    p["enc"] = [blk() for _ in range(enc_blocks)]
    p["dec"] = blk()
    return _lower("adamw", loss_fn, p, jnp.ones((batch, patches, patch_dim)),
                  jnp.ones((batch, patches)))


def spatial_transformer(batch: int = 32, side: int = 32, c: int = 32,
                        classes: int = 10) -> Any:
    """A spatial transformer network: a localization CNN predicts an affine transform,
    the image is resampled on the transformed grid by bilinear interpolation (four
    gathers), and a CNN classifies the result."""
    import jax
    import jax.numpy as jnp

    def sample(img, theta):
        lin = jnp.linspace(-1.0, 1.0, side)
        gx, gy = jnp.meshgrid(lin, lin)
        grid = jnp.stack([gx, gy, jnp.ones_like(gx)], -1).reshape(-1, 3)      # (hw, 3)
        src = jnp.einsum("bij,nj->bni", theta, grid)                          # (b, hw, 2)
        px = (src[..., 0] + 1) * (side - 1) / 2
        py = (src[..., 1] + 1) * (side - 1) / 2
        x0, y0 = jnp.floor(px), jnp.floor(py)
        bidx = jnp.arange(batch)[:, None]

        def at(xi, yi):
            xi = jnp.clip(xi, 0, side - 1).astype(jnp.int32)
            yi = jnp.clip(yi, 0, side - 1).astype(jnp.int32)
            return img[bidx, yi, xi]                                         # (b, hw, ch)

        wx, wy = (px - x0)[..., None], (py - y0)[..., None]
        out = (at(x0, y0) * (1 - wx) * (1 - wy) + at(x0 + 1, y0) * wx * (1 - wy)
               + at(x0, y0 + 1) * (1 - wx) * wy + at(x0 + 1, y0 + 1) * wx * wy)
        return out.reshape(img.shape)

    def loss_fn(p, x, y):
        loc = jax.nn.relu(_conv(x, p["l1"], 2))
        loc = jax.nn.relu(_conv(loc, p["l2"], 2)).mean((1, 2))
        theta = (loc @ p["l_fc"]).reshape(batch, 2, 3) + jnp.array([[1.0, 0, 0], [0, 1, 0]])
        h = sample(x, theta)
        h = jax.nn.relu(_conv(h, p["c1"]))
        h = jax.nn.relu(_conv(h, p["c2"], 2))
        h = jax.nn.relu(_conv(h, p["c3"], 2)).mean((1, 2))
        return _xent(h @ p["fc"], y, classes)

    p = _init({"l1": (5, 5, 3, 16), "l2": (3, 3, 16, 32), "l_fc": (32, 6), "c1": (3, 3, 3, c),
               "c2": (3, 3, c, 2 * c), "c3": (3, 3, 2 * c, 2 * c), "fc": (2 * c, classes)},
              0.01)
    return _lower("momentum", loss_fn, p, jnp.ones((batch, side, side, 3)),
                  jnp.zeros((batch,), jnp.int32))


def gan_step(batch: int = 32, latent: int = 128, c: int = 64) -> Any:
    """One GAN iteration in one step: the discriminator's non-saturating loss and Adam
    update, then the generator's loss through the updated discriminator and its own
    Adam update (beta1 0.5): two backward passes, two optimizers."""
    import jax
    import jax.numpy as jnp

    def conv_t(x, w):
        return jax.lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=_NHWC)

    def generate(g, z):
        h = jax.nn.relu(_ln(z @ g["fc"])).reshape(batch, 4, 4, 2 * c)
        h = jax.nn.relu(conv_t(h, g["t1"]))                                   # 8x8
        h = jax.nn.relu(conv_t(h, g["t2"]))                                   # 16x16
        return jnp.tanh(conv_t(h, g["t3"]))                                   # 32x32x3

    def discriminate(d, x):
        h = jax.nn.leaky_relu(_conv(x, d["c1"], 2), 0.2)
        h = jax.nn.leaky_relu(_conv(h, d["c2"], 2), 0.2)
        h = jax.nn.leaky_relu(_conv(h, d["c3"], 2), 0.2)
        return (h.reshape(batch, -1) @ d["fc"])[:, 0]

    def d_loss(d, g, real, z):
        fake = jax.lax.stop_gradient(generate(g, z))
        return (jax.nn.softplus(-discriminate(d, real))
                + jax.nn.softplus(discriminate(d, fake))).mean()

    def g_loss(g, d, z):
        return jax.nn.softplus(-discriminate(d, generate(g, z))).mean()

    def step(state, real, z):
        (g, g_m, g_v, g_t), (d, d_m, d_v, d_t) = state
        ld, grads = jax.value_and_grad(d_loss)(d, g, real, z)
        d, d_m, d_v, d_t = _adam_update(d, d_m, d_v, d_t, grads, b1=0.5, lr=2e-4)
        lg, grads = jax.value_and_grad(g_loss)(g, d, z)
        g, g_m, g_v, g_t = _adam_update(g, g_m, g_v, g_t, grads, b1=0.5, lr=2e-4)
        return ((g, g_m, g_v, g_t), (d, d_m, d_v, d_t)), (ld, lg)

    g = _init({"fc": (latent, 16 * 2 * c), "t1": (4, 4, 2 * c, c), "t2": (4, 4, c, c // 2),
               "t3": (4, 4, c // 2, 3)})
    d = _init({"c1": (4, 4, 3, c // 2), "c2": (4, 4, c // 2, c), "c3": (4, 4, c, 2 * c),
               "fc": (16 * 2 * c, 1)})
    return jax.jit(step).lower((_adam_state(g), _adam_state(d)),
                               jnp.ones((batch, 32, 32, 3)), jnp.ones((batch, latent)))


def qat_fake_quant(batch: int = 256, d_in: int = 784, hidden: int = 512,
                   classes: int = 10) -> Any:
    """Quantization-aware training: int8 fake quantization of weights (per output
    channel, scale from the absolute maximum) and activations (a learned per-tensor
    scale, LSQ-style), rounding passed through by the straight-through estimator."""
    import jax
    import jax.numpy as jnp

    sg = jax.lax.stop_gradient

    def ste_round(x):
        return x + sg(jnp.round(x) - x)

    def quant_w(w):
        scale = jnp.abs(w).max(0, keepdims=True) / 127 + 1e-8
        return ste_round(jnp.clip(w / scale, -127, 127)) * scale

    def quant_a(x, log_scale):
        scale = jnp.exp(log_scale)
        return ste_round(jnp.clip(x / scale, 0, 255)) * scale

    def loss_fn(p, x, y):
        h = x
        for i in range(3):
            h = h @ quant_w(p[f"w{i}"]) + p[f"b{i}"]
            if i < 2:
                h = quant_a(jax.nn.relu(h), p[f"s{i}"])
        return _xent(h, y, classes)

    p = _init({"w0": (d_in, hidden), "b0": (hidden,), "w1": (hidden, hidden),
               "b1": (hidden,), "w2": (hidden, classes), "b2": (classes,)}, 0.02)
    p |= {"s0": jnp.zeros(()) - 4.0, "s1": jnp.zeros(()) - 4.0}
    return _lower("lion", loss_fn, p, jnp.ones((batch, d_in)), jnp.zeros((batch,), jnp.int32))


def skipgram_negative_sampling(batch: int = 2048, vocab: int = 32768, d: int = 128,
                               negatives: int = 8) -> Any:
    """word2vec skip-gram with negative sampling: centre and context rows gathered from
    two embedding tables, logistic loss on the true pair and on sampled negatives, and
    plain SGD over both whole tables (scatter-added gradients)."""
    import jax
    import jax.numpy as jnp

    def loss_fn(p, centre, context, negative):
        u = p["in"][centre]                                                # (b, d)
        pos = (u * p["out"][context]).sum(-1)
        neg = jnp.einsum("bd,bkd->bk", u, p["out"][negative])
        return -(jax.nn.log_sigmoid(pos) + jax.nn.log_sigmoid(-neg).sum(-1)).mean()

    p = _init({"in": (vocab, d), "out": (vocab, d)}, 0.01)
    return _lower("sgd", loss_fn, p, jnp.zeros((batch,), jnp.int32),
                  jnp.zeros((batch,), jnp.int32), jnp.zeros((batch, negatives), jnp.int32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "set_transformer/16x128-i32": set_transformer,
    "glow_flow/32px-k4": glow_flow,
    "graph_attention/2048-nodes-h4": graph_attention,
    "langevin_ebm/10-steps": langevin_ebm,
    "maml_inner_step/16-tasks": maml_inner_step,
    "kalman_filter_scan/256x8": kalman_filter_scan,
    "selective_scan/128x128-bf16": selective_scan,
    "ppo_gae/128x16": ppo_gae,
    "ctc_loss/200x40": ctc_loss,
    "ddpm_diffusion/16px-bf16": ddpm_diffusion,
    "masked_autoencoder/64-patches": masked_autoencoder,
    "spatial_transformer/32px": spatial_transformer,
    "gan_step/32px": gan_step,
    "qat_fake_quant/784-512": qat_fake_quant,
    "skipgram_negative_sampling/32768x128": skipgram_negative_sampling,
}
