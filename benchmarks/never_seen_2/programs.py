"""The second never-seen set: programs written on 2026-11-24, after the first set
(benchmarks/never_seen/) had been run, and never used to choose anything: not for a
feature, a default, a fallback threshold or a model. They exist to judge the next
trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-2` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen training steps (forward, loss, backward and an optimizer update) of kinds
neither the program zoo, fresh_programs.py nor the first never-seen set has: a
Perceiver latent cross-attention block, RealNVP affine coupling layers, a
hypernetwork, a mixture-density network, a PointNet, a diagonal linear recurrence by
a parallel (associative) scan, unrolled log-domain Sinkhorn optimal transport, a
soft decision forest, a VQ-VAE quantizer, a Siren fitted to values and gradients (a
second derivative in the step), bilinear pooling, a multi-task head model, a neural
ODE integrated by unrolled RK4, NeRF-style volume rendering and LoRA adapters over
frozen projections. The updates vary too: plain SGD, SGD with global-norm clipping,
momentum, Adam, AdamW and Lion; two programs run in bfloat16.
"""

from __future__ import annotations

from typing import Any, Callable


def _tree_zeros(params):
    import jax
    import jax.numpy as jnp

    return jax.tree.map(jnp.zeros_like, params)


def _sgd(loss_fn: Callable[..., Any]) -> Callable[..., Any]:
    import jax

    def step(params, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        return jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads), loss
    return step


def _clipped_sgd(loss_fn: Callable[..., Any], max_norm: float = 1.0) -> Callable[..., Any]:
    import jax
    import jax.numpy as jnp

    def step(params, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        norm = jnp.sqrt(sum((g ** 2).sum() for g in jax.tree.leaves(grads)))
        scale = jnp.minimum(1.0, max_norm / (norm + 1e-6))
        return jax.tree.map(lambda p, g: p - 1e-2 * scale * g, params, grads), loss
    return step


def _momentum(loss_fn: Callable[..., Any]) -> Callable[..., Any]:
    import jax

    def step(state, *batch):
        params, velocity = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
        params = jax.tree.map(lambda p, v: p - 1e-2 * v, params, velocity)
        return (params, velocity), loss
    return step


def _adam(loss_fn: Callable[..., Any], decay: float = 0.0) -> Callable[..., Any]:
    import jax
    import jax.numpy as jnp

    def step(state, *batch):
        params, m, v, t = state
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        t = t + 1
        m = jax.tree.map(lambda m_, g: 0.9 * m_ + 0.1 * g, m, grads)
        v = jax.tree.map(lambda v_, g: 0.999 * v_ + 0.001 * g * g, v, grads)
        c1 = 1 - 0.9 ** t.astype(jnp.float32)
        c2 = 1 - 0.999 ** t.astype(jnp.float32)

        def update(p, m_, v_):
            u = (m_ / c1) / (jnp.sqrt(v_ / c2) + 1e-8) + decay * p
            return p - (1e-3 * u).astype(p.dtype)
        params = jax.tree.map(update, params, m, v)
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


def _lower(optimizer: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    import jax
    import jax.numpy as jnp

    if optimizer == "sgd":
        return jax.jit(_sgd(loss_fn)).lower(params, *batch)
    if optimizer == "clipped_sgd":
        return jax.jit(_clipped_sgd(loss_fn)).lower(params, *batch)
    if optimizer == "momentum":
        return jax.jit(_momentum(loss_fn)).lower((params, _tree_zeros(params)), *batch)
    if optimizer in ("adam", "adamw"):
        state = (params, _tree_zeros(params), _tree_zeros(params), jnp.zeros((), jnp.int32))
        step = _adam(loss_fn, decay=0.01 if optimizer == "adamw" else 0.0)
        return jax.jit(step).lower(state, *batch)
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


def perceiver_latent(batch: int = 4, inputs: int = 1024, d_in: int = 64, latents: int = 64,
                     d: int = 256, self_blocks: int = 2) -> Any:
    """Latents cross-attend to a long input array once, then attend among themselves."""
    import jax
    import jax.numpy as jnp

    def attend(q, k, v):
        s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(q.shape[-1])
        return jax.nn.softmax(s, -1) @ v

    def loss_fn(p, x):
        z = jnp.broadcast_to(p["latents"], (batch, latents, d))
        kv = _ln(x)
        z = z + attend(_ln(z) @ p["cq"], kv @ p["ck"], kv @ p["cv"]) @ p["co"]
        for b in p["blocks"]:
            a = _ln(z)
            z = z + attend(a @ b["q"], a @ b["k"], a @ b["v"]) @ b["o"]
            z = z + jax.nn.gelu(_ln(z) @ b["up"]) @ b["down"]
        return ((z.mean(1) @ p["head"]) ** 2).mean()

    p = _init({"latents": (latents, d), "cq": (d, d), "ck": (d_in, d), "cv": (d_in, d),
               "co": (d, d), "head": (d, 10)})
    p["blocks"] = [_init({"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d),
                          "up": (d, 4 * d), "down": (4 * d, d)}) for _ in range(self_blocks)]
    return _lower("adamw", loss_fn, p, jnp.ones((batch, inputs, d_in)))


def realnvp_coupling(batch: int = 512, dim: int = 64, hidden: int = 256,
                     layers: int = 6) -> Any:
    """Affine coupling layers with alternating masks, trained by exact log-likelihood."""
    import jax
    import jax.numpy as jnp

    half = dim // 2

    def loss_fn(p, x):
        log_det = jnp.zeros((batch,))
        for i, layer in enumerate(p):
            a, b = (x[:, :half], x[:, half:]) if i % 2 == 0 else (x[:, half:], x[:, :half])
            h = jax.nn.relu(jax.nn.relu(a @ layer["w1"]) @ layer["w2"])
            s = jnp.tanh(h @ layer["ws"]) * layer["scale"]
            b = b * jnp.exp(s) + h @ layer["wt"]
            log_det = log_det + s.sum(-1)
            x = jnp.concatenate([a, b], -1) if i % 2 == 0 else jnp.concatenate([b, a], -1)
        log_pz = -0.5 * (x ** 2).sum(-1) - 0.5 * dim * jnp.log(2 * jnp.pi)
        return -(log_pz + log_det).mean()

    p = [dict(_init({"w1": (half, hidden), "w2": (hidden, hidden), "ws": (hidden, half),
                     "wt": (hidden, half)}), scale=jnp.ones((half,))) for _ in range(layers)]
    return _lower("momentum", loss_fn, p, jnp.ones((batch, dim)))


def hypernetwork(tasks: int = 16, per_task: int = 64, task_dim: int = 32, d_in: int = 64,
                 hidden: int = 64) -> Any:
    """A network that writes the weights of a per-task MLP from a task embedding."""
    import jax
    import jax.numpy as jnp

    def loss_fn(p, task_ids, x, y):
        e = p["task_embed"][task_ids]                            # (tasks, task_dim)
        h = jax.nn.relu(e @ p["h1"])
        w1 = (h @ p["gen_w1"]).reshape(tasks, d_in, hidden)
        b1 = h @ p["gen_b1"]
        w2 = (h @ p["gen_w2"]).reshape(tasks, hidden, 1)
        out = jnp.einsum("tnh,tho->tno", jnp.tanh(jnp.einsum("tni,tih->tnh", x, w1)
                                                  + b1[:, None]), w2)
        return ((out[..., 0] - y) ** 2).mean()

    p = _init({"task_embed": (256, task_dim), "h1": (task_dim, 128),
               "gen_w1": (128, d_in * hidden), "gen_b1": (128, hidden),
               "gen_w2": (128, hidden)}, scale=0.01)
    return _lower("sgd", loss_fn, p, jnp.zeros((tasks,), jnp.int32),
                  jnp.ones((tasks, per_task, d_in)), jnp.ones((tasks, per_task)))


def mixture_density(batch: int = 1024, d_in: int = 32, hidden: int = 256,
                    components: int = 16, d_out: int = 4) -> Any:
    """An MLP that outputs a Gaussian mixture, trained by its negative log-likelihood."""
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x, y):
        h = jnp.tanh(jnp.tanh(x @ p["w1"]) @ p["w2"])
        log_pi = jax.nn.log_softmax(h @ p["pi"], -1)                      # (b, k)
        mu = (h @ p["mu"]).reshape(batch, components, d_out)
        log_sigma = (h @ p["sigma"]).reshape(batch, components, d_out)
        z = (y[:, None, :] - mu) * jnp.exp(-log_sigma)
        log_n = (-0.5 * z ** 2 - log_sigma - 0.5 * jnp.log(2 * jnp.pi)).sum(-1)
        return -jax.nn.logsumexp(log_pi + log_n, axis=-1).mean()

    p = _init({"w1": (d_in, hidden), "w2": (hidden, hidden), "pi": (hidden, components),
               "mu": (hidden, components * d_out), "sigma": (hidden, components * d_out)})
    return _lower("adam", loss_fn, p, jnp.ones((batch, d_in)), jnp.ones((batch, d_out)))


def pointnet(batch: int = 8, points: int = 512, classes: int = 40) -> Any:
    """A shared per-point MLP, an input transform, max pooling over points (bfloat16)."""
    import jax
    import jax.numpy as jnp

    bf16 = jnp.bfloat16

    def loss_fn(p, pts, y):
        t = jax.nn.relu(pts @ p["t1"]).max(1) @ p["t2"]            # a learned 3x3 transform
        pts = jnp.einsum("bnc,bcd->bnd", pts, t.reshape(batch, 3, 3) + jnp.eye(3, dtype=bf16))
        h = jax.nn.relu(pts @ p["m1"])
        h = jax.nn.relu(h @ p["m2"])
        h = jax.nn.relu(h @ p["m3"])
        g = h.max(1)
        logits = (jax.nn.relu(g @ p["f1"]) @ p["f2"]).astype(jnp.float32)
        return -(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, classes)).sum(-1).mean()

    p = _init({"t1": (3, 64), "t2": (64, 9), "m1": (3, 64), "m2": (64, 128),
               "m3": (128, 256), "f1": (256, 128), "f2": (128, classes)}, dtype=bf16)
    return _lower("momentum", loss_fn, p, jnp.ones((batch, points, 3), bf16),
                  jnp.zeros((batch,), jnp.int32))


def linear_recurrence_scan(batch: int = 8, length: int = 1024, d: int = 64,
                           state: int = 128, layers: int = 2) -> Any:
    """Diagonal state-space layers (S5/LRU-like): h_t = a * h_{t-1} + B x_t computed by a
    parallel associative scan, not a loop."""
    import jax
    import jax.numpy as jnp

    def combine(left, right):
        a1, b1 = left
        a2, b2 = right
        return a1 * a2, a2 * b1 + b2

    def loss_fn(p, x):
        for layer in p:
            u = _ln(x) @ layer["B"]                                   # (b, t, state)
            a = jnp.broadcast_to(jax.nn.sigmoid(layer["log_a"]), u.shape)
            _, h = jax.lax.associative_scan(combine, (a, u), axis=1)
            x = x + jax.nn.gelu(h @ layer["C"]) + x * layer["D"]
        return (x ** 2).mean()

    p = [dict(_init({"B": (d, state), "C": (state, d)}), log_a=jnp.ones((state,)) * 2.0,
              D=jnp.ones((d,))) for _ in range(layers)]
    return _lower("adam", loss_fn, p, jnp.ones((batch, length, d)))


def sinkhorn_transport(batch: int = 4, points: int = 256, d_in: int = 32, d: int = 64,
                       iterations: int = 10, eps: float = 0.1) -> Any:
    """Two point sets embedded by a shared MLP, matched by log-domain Sinkhorn iterations
    (unrolled), trained on the optimal-transport cost of the plan."""
    import jax
    import jax.numpy as jnp

    def embed(p, x):
        return jnp.tanh(jax.nn.relu(x @ p["w1"]) @ p["w2"])

    def loss_fn(p, x, y):
        a, b = embed(p, x), embed(p, y)
        cost = ((a[:, :, None, :] - b[:, None, :, :]) ** 2).sum(-1)          # (b, n, m)
        log_k = -cost / eps
        f = jnp.zeros((batch, points))
        g = jnp.zeros((batch, points))
        log_w = -jnp.log(points)
        for _ in range(iterations):
            f = eps * (log_w - jax.nn.logsumexp(log_k + g[:, None, :] / eps, axis=2))
            g = eps * (log_w - jax.nn.logsumexp(log_k + f[:, :, None] / eps, axis=1))
        plan = jnp.exp(log_k + (f[:, :, None] + g[:, None, :]) / eps)
        return (plan * cost).sum((1, 2)).mean()

    p = _init({"w1": (d_in, 128), "w2": (128, d)}, 0.05)
    return _lower("adam", loss_fn, p, jnp.ones((batch, points, d_in)),
                  jnp.ones((batch, points, d_in)))


def soft_decision_forest(batch: int = 1024, d: int = 128, trees: int = 8, depth: int = 6,
                         classes: int = 10) -> Any:
    """A forest of soft decision trees: sigmoid routing at every inner node, the
    probability of each leaf as a product along its path, level by level."""
    import jax
    import jax.numpy as jnp

    inner, leaves = 2 ** depth - 1, 2 ** depth

    def loss_fn(p, x, y):
        route = jax.nn.sigmoid(jnp.einsum("bd,tdn->tbn", x, p["split"]) + p["bias"][:, None])
        mu = jnp.ones((trees, batch, 1))
        for level in range(depth):
            go = route[:, :, 2 ** level - 1:2 ** (level + 1) - 1]
            mu = jnp.stack([mu * go, mu * (1 - go)], -1).reshape(trees, batch, -1)
        probs = jnp.einsum("tbl,tlc->bc", mu, jax.nn.softmax(p["leaf"], -1)) / trees
        return -(jnp.log(probs + 1e-9) * jax.nn.one_hot(y, classes)).sum(-1).mean()

    p = _init({"split": (trees, d, inner), "bias": (trees, inner),
               "leaf": (trees, leaves, classes)}, 0.05)
    return _lower("momentum", loss_fn, p, jnp.ones((batch, d)), jnp.zeros((batch,), jnp.int32))


def vq_vae(batch: int = 32, side: int = 16, d_in: int = 48, d: int = 64,
           codes: int = 512) -> Any:
    """An encoder, a nearest-code quantizer with the straight-through gradient, the
    codebook and commitment losses and a decoder."""
    import jax
    import jax.numpy as jnp

    sg = jax.lax.stop_gradient

    def loss_fn(p, x):
        z = jax.nn.relu(x @ p["e1"]) @ p["e2"]                          # (b, s, s, d)
        flat = z.reshape(-1, d)
        d2 = (flat ** 2).sum(-1, keepdims=True) - 2 * flat @ p["codebook"].T \
            + (p["codebook"] ** 2).sum(-1)[None]
        q = p["codebook"][jnp.argmin(d2, -1)].reshape(z.shape)
        zq = z + sg(q - z)
        recon = jax.nn.relu(zq @ p["d1"]) @ p["d2"]
        return (((recon - x) ** 2).mean() + ((sg(z) - q) ** 2).mean()
                + 0.25 * ((z - sg(q)) ** 2).mean())

    p = _init({"e1": (d_in, 128), "e2": (128, d), "codebook": (codes, d), "d1": (d, 128),
               "d2": (128, d_in)})
    return _lower("adam", loss_fn, p, jnp.ones((batch, side, side, d_in)))


def siren_gradient_fit(points: int = 2048, hidden: int = 256, layers: int = 3) -> Any:
    """A sine-activated coordinate MLP fitted to values and to their spatial gradients:
    the loss differentiates the network by its input, so the step differentiates
    twice."""
    import jax
    import jax.numpy as jnp

    def net(p, xy):
        h = jnp.sin(30.0 * (xy @ p["w0"] + p["b0"]))
        for i in range(layers):
            h = jnp.sin(h @ p[f"w{i + 1}"] + p[f"b{i + 1}"])
        return (h @ p["out"])[0]

    def loss_fn(p, xy, value, grad):
        v, g = jax.vmap(jax.value_and_grad(net, argnums=1), (None, 0))(p, xy)
        return ((v - value) ** 2).mean() + 0.1 * ((g - grad) ** 2).mean()

    shapes = {"w0": (2, hidden), "b0": (hidden,), "out": (hidden, 1)}
    shapes |= {f"w{i + 1}": (hidden, hidden) for i in range(layers)}
    shapes |= {f"b{i + 1}": (hidden,) for i in range(layers)}
    return _lower("adam", loss_fn, _init(shapes, 0.05), jnp.ones((points, 2)),
                  jnp.ones((points,)), jnp.ones((points, 2)))


def bilinear_pooling(batch: int = 16, side: int = 28, c: int = 64, classes: int = 100) -> Any:
    """Two convolutions, then the outer product of the features averaged over
    positions, a signed square root and L2 normalization before the classifier."""
    import jax
    import jax.numpy as jnp

    dn = ("NHWC", "HWIO", "NHWC")

    def loss_fn(p, x, y):
        h = jax.nn.relu(jax.lax.conv_general_dilated(x, p["c1"], (1, 1), "SAME",
                                                     dimension_numbers=dn))
        h = jax.nn.relu(jax.lax.conv_general_dilated(h, p["c2"], (2, 2), "SAME",
                                                     dimension_numbers=dn))
        f = h.reshape(batch, -1, c)
        bil = jnp.einsum("bnc,bnd->bcd", f, f).reshape(batch, c * c) / f.shape[1]
        bil = jnp.sign(bil) * jnp.sqrt(jnp.abs(bil) + 1e-8)
        bil = bil / jnp.linalg.norm(bil, axis=-1, keepdims=True)
        logits = bil @ p["fc"]
        return -(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, classes)).sum(-1).mean()

    p = _init({"c1": (3, 3, 3, c), "c2": (3, 3, c, c), "fc": (c * c, classes)}, 0.01)
    return _lower("momentum", loss_fn, p, jnp.ones((batch, side, side, 3)),
                  jnp.zeros((batch,), jnp.int32))


def multitask_heads(batch: int = 256, d_in: int = 128, d: int = 512) -> Any:
    """A shared trunk and four heads (classification, regression, multi-label and a
    ranking score) whose weighted losses are summed; SGD with global-norm clipping."""
    import jax
    import jax.numpy as jnp

    def loss_fn(p, x, cls, reg, labels):
        h = jax.nn.gelu(_ln(jax.nn.gelu(x @ p["t1"]) @ p["t2"]))
        c_logits = jax.nn.relu(h @ p["c1"]) @ p["c2"]
        l_cls = -(jax.nn.log_softmax(c_logits) * jax.nn.one_hot(cls, 20)).sum(-1).mean()
        l_reg = ((jax.nn.relu(h @ p["r1"]) @ p["r2"] - reg) ** 2).mean()
        m_logits = h @ p["m"]
        l_multi = (jax.nn.softplus(m_logits) - labels * m_logits).mean()
        score = (h @ p["s"])[:, 0]
        l_rank = jax.nn.softplus(-(score[: batch // 2] - score[batch // 2:])).mean()
        return l_cls + 0.5 * l_reg + l_multi + 0.1 * l_rank

    p = _init({"t1": (d_in, d), "t2": (d, d), "c1": (d, 256), "c2": (256, 20),
               "r1": (d, 256), "r2": (256, 8), "m": (d, 64), "s": (d, 1)})
    return _lower("clipped_sgd", loss_fn, p, jnp.ones((batch, d_in)),
                  jnp.zeros((batch,), jnp.int32), jnp.ones((batch, 8)),
                  jnp.ones((batch, 64)))


def neural_ode_rk4(batch: int = 256, d: int = 64, hidden: int = 256, steps: int = 8) -> Any:
    """A time-conditioned vector field integrated by fixed-step RK4, unrolled: the
    gradient flows back through every stage (discretize-then-optimize)."""
    import jax.numpy as jnp

    def field(p, t, z):
        h = jnp.tanh(z @ p["w1"] + t * p["wt"])
        return jnp.tanh(h @ p["w2"]) @ p["w3"]

    def loss_fn(p, z, target):
        dt = 1.0 / steps
        for i in range(steps):
            t = i * dt
            k1 = field(p, t, z)
            k2 = field(p, t + dt / 2, z + dt / 2 * k1)
            k3 = field(p, t + dt / 2, z + dt / 2 * k2)
            k4 = field(p, t + dt, z + dt * k3)
            z = z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return ((z - target) ** 2).mean()

    p = _init({"w1": (d, hidden), "wt": (hidden,), "w2": (hidden, hidden), "w3": (hidden, d)})
    return _lower("sgd", loss_fn, p, jnp.ones((batch, d)), jnp.ones((batch, d)))


def nerf_render(rays: int = 512, samples: int = 32, freqs: int = 8, hidden: int = 128) -> Any:
    """NeRF-style volume rendering: positional encoding of the samples along each ray,
    an MLP for density and colour, and alpha compositing by a cumulative product."""
    import jax
    import jax.numpy as jnp

    def loss_fn(p, origins, dirs, target):
        t = jnp.linspace(2.0, 6.0, samples)
        pts = origins[:, None] + dirs[:, None] * t[None, :, None]            # (r, s, 3)
        scaled = pts[..., None] * (2.0 ** jnp.arange(freqs))                  # (r, s, 3, f)
        enc = jnp.concatenate([pts, jnp.sin(scaled).reshape(rays, samples, -1),
                               jnp.cos(scaled).reshape(rays, samples, -1)], -1)
        h = jax.nn.relu(enc @ p["w1"])
        h = jax.nn.relu(h @ p["w2"])
        h = jax.nn.relu(h @ p["w3"])
        sigma = jax.nn.softplus((h @ p["sigma"])[..., 0])
        rgb = jax.nn.sigmoid(h @ p["rgb"])
        delta = jnp.full((samples,), 4.0 / samples)
        alpha = 1 - jnp.exp(-sigma * delta)
        trans = jnp.cumprod(jnp.concatenate([jnp.ones((rays, 1)), 1 - alpha[:, :-1] + 1e-10],
                                            -1), -1)
        colour = ((trans * alpha)[..., None] * rgb).sum(1)
        return ((colour - target) ** 2).mean()

    enc_dim = 3 + 6 * freqs
    p = _init({"w1": (enc_dim, hidden), "w2": (hidden, hidden), "w3": (hidden, hidden),
               "sigma": (hidden, 1), "rgb": (hidden, 3)}, 0.05)
    return _lower("adam", loss_fn, p, jnp.ones((rays, 3)), jnp.ones((rays, 3)),
                  jnp.ones((rays, 3)))


def lora_adapter(batch: int = 4, seq: int = 64, d: int = 256, rank: int = 8,
                 layers: int = 4) -> Any:
    """Low-rank adapters on frozen projections (bfloat16): only the adapters are
    trained, by Lion; the frozen weights are inputs of the step."""
    import jax
    import jax.numpy as jnp

    bf16 = jnp.bfloat16

    def loss_fn(adapters, frozen, x):
        h = x
        for ad, w in zip(adapters, frozen):
            a = _ln(h)
            y = a @ w["in"] + (a @ ad["a_in"]) @ ad["b_in"] * 2.0
            y = jax.nn.gelu(y)
            h = h + y @ w["out"] + (y @ ad["a_out"]) @ ad["b_out"] * 2.0
        return (h.astype(jnp.float32) ** 2).mean()

    adapters = [_init({"a_in": (d, rank), "b_in": (rank, 2 * d), "a_out": (2 * d, rank),
                       "b_out": (rank, d)}, dtype=bf16) for _ in range(layers)]
    frozen = [_init({"in": (d, 2 * d), "out": (2 * d, d)}, dtype=bf16) for _ in range(layers)]
    return _lower("lion", loss_fn, adapters, frozen, jnp.ones((batch, seq, d), bf16))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "perceiver_latent/1024x64-l64": perceiver_latent,
    "realnvp_coupling/64-l6": realnvp_coupling,
    "hypernetwork/16-tasks": hypernetwork,
    "mixture_density/1024x16": mixture_density,
    "pointnet/512-points-bf16": pointnet,
    "linear_recurrence_scan/1024x128": linear_recurrence_scan,
    "sinkhorn_transport/4x256x256": sinkhorn_transport,
    "soft_decision_forest/8-trees-d6": soft_decision_forest,
    "vq_vae/16px-512-codes": vq_vae,
    "siren_gradient_fit/2048x256": siren_gradient_fit,
    "bilinear_pooling/28px-c64": bilinear_pooling,
    "multitask_heads/256x512": multitask_heads,
    "neural_ode_rk4/8-steps": neural_ode_rk4,
    "nerf_render/512x32": nerf_render,
    "lora_adapter/r8-bf16": lora_adapter,
}
