"""The eighth never-seen set: programs written on 2026-11-27, after the seventh set
(benchmarks/never_seen_7/) had been spent (judged once), and never used to choose
anything: not for a feature, a default, a fallback threshold or a model. They exist to
judge the next trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-8` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
seven never-seen sets has. Ten are training steps (forward, loss, backward and an
optimizer update). An E(n)-equivariant graph network denoises the atom positions of
padded molecules and fits their energies: its edge messages see squared distances, and
it moves the coordinates along relative positions by gated weights. Conv-TasNet
separates two-speaker mixtures with a strided convolution encoder, a temporal network
of dilated depthwise 1-D convolutions, per-speaker masks and a transposed-convolution
decoder, scored by scale-invariant SNR under the better of the two speaker
assignments. A TimeSformer in bfloat16 classifies short clips with divided space-time
attention: across frames at each patch position, then across the patches of each
frame. A set of anisotropic 2-D Gaussians is fitted to an image by a differentiable
splatting renderer that orders them by a learned depth with `argsort`, gathers them and
alpha-composites them through an exclusive cumulative product of transmittances. A
DenseNet-BC in bfloat16 concatenates every earlier feature map of a block into each
bottleneck layer's input, with batch norm throughout. A pointer network learns to sort
numbers: LSTM encoder and decoder under two `lax.scan`s, teacher-forced inputs
gathered by the target order (an `argsort`), additive attention over the inputs with
the positions already chosen masked out. An involution network generates a spatial
kernel per pixel and channel group from that pixel's features and applies it by a
`lax.scan` over the taps of `dynamic_slice`d shifts. A Hyena language model replaces
attention by gated long causal convolutions, computed as zero-padded real FFT products
with filters that a sine MLP generates from positions under a decay window. An
attentive neural process in bfloat16 regresses random 1-D functions through a
deterministic path of self- and cross-attention and a latent Gaussian path with a KL
term between the posterior and the context-only prior. A Tacotron-2-style decoder
under `lax.scan` reads a convolutional, bidirectional-LSTM text encoding through
location-sensitive attention (a 1-D convolution of the previous and cumulative
alignments inside the loop) and predicts two mel frames and a stop logit per step, with
a guided-attention penalty. Five are inference or scientific steps without a gradient:
coarse-to-fine Horn-Schunck optical flow (pyramids, bilinear warping by gathers, a
`fori_loop` of Jacobi relaxations with a shifted-slice neighbourhood average),
Floyd-Warshall all-pairs shortest paths in a `fori_loop` of min-plus relaxations
through `dynamic_slice`d rows and columns, then path hop counts by following next-hop
pointers with gathers in a `while_loop`, a semi-implicit Fourier-spectral Cahn-Hilliard
phase separation in a `fori_loop` of 2-D real FFTs with a structure factor binned by
`segment_sum`, product-quantization nearest-neighbour search (lookup tables of
subspace distances, gathered and summed asymmetric distances over 65,536 codes, a
`top_k` shortlist re-ranked exactly and sorted), and connected-component labelling of
thresholded noise images in a `while_loop` of neighbour minima and pointer-jumping
gathers until no label changes, with component sizes by scatter-add. The updates vary:
Shampoo (Kronecker-factored preconditioners, inverse fourth roots by a Newton iteration
in a `fori_loop`, grafted onto Adagrad), QHAdam, Adam under Lookahead, Rprop,
sharpness-aware minimization over momentum SGD (two gradients a step), MADGRAD,
schedule-free AdamW, Muon (Newton-Schulz orthogonalized momentum, AdamW for the
embedding and head), Sophia (a Hutchinson Hessian-diagonal estimate by a Hessian-vector
product every step) and AdaMod; three training steps (the TimeSformer, the DenseNet and
the neural process) run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")
_NWC = ("NWC", "WIO", "NWC")


def _params(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
            scale: float = 1.0) -> dict[str, Any]:
    """Weights for the named shapes from one fixed seed. A name ending in `_b` starts at
    zero (a bias or shift), one ending in `_g` at one (a gain); any other tensor is normal
    with standard deviation scale / sqrt(fan-in), the fan-in being every axis but the
    last."""
    import jax
    import jax.numpy as jnp

    dtype = dtype or jnp.float32
    root = jax.random.PRNGKey(seed)
    out: dict[str, Any] = {}
    for index, (name, shape) in enumerate(shapes.items()):
        if name.endswith("_b"):
            out[name] = jnp.zeros(shape, dtype)
        elif name.endswith("_g"):
            out[name] = jnp.ones(shape, dtype)
        else:
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else shape[0]
            noise = jax.random.normal(jax.random.fold_in(root, index), shape, jnp.float32)
            out[name] = (noise * (scale / math.sqrt(fan_in))).astype(dtype)
    return out


def _unzip(tree_of_tuples: Any, like: Any, count: int) -> tuple[Any, ...]:
    """A tree whose leaves are `count`-tuples (shaped like `like`) as `count` trees."""
    import jax

    treedef = jax.tree.structure(like)
    flat = treedef.flatten_up_to(tree_of_tuples)
    return tuple(treedef.unflatten([leaf[i] for leaf in flat]) for i in range(count))


def _inverse_fourth_root(a: Any, iterations: int = 12) -> Any:
    """A^(-1/4) of a symmetric positive semi-definite matrix by the coupled Newton
    iteration (matrix products only, in a `fori_loop`), after a small ridge."""
    import jax.numpy as jnp
    from jax import lax

    n = a.shape[0]
    eye = jnp.eye(n, dtype=a.dtype)
    a = a + (1e-4 * jnp.trace(a) / n + 1e-8) * eye
    z = 5.0 / (2.0 * jnp.sqrt(jnp.sum(a * a)))          # (p + 1) / (2 |A|_F), p = 4

    def body(_, carry):
        x, m = carry
        t = 1.25 * eye - 0.25 * m
        t2 = t @ t
        return x @ t, t2 @ t2 @ m

    x, _ = lax.fori_loop(0, iterations, body, (z ** 0.25 * eye, z * a))
    return x


def _newton_schulz(g: Any, iterations: int = 5) -> Any:
    """The nearest semi-orthogonal matrix to g, approximately, by Muon's quintic
    Newton-Schulz iteration in a `fori_loop` (run on the wide orientation)."""
    import jax.numpy as jnp
    from jax import lax

    tall = g.shape[0] > g.shape[1]
    x = g.T if tall else g
    x = x / (jnp.sqrt(jnp.sum(x * x)) + 1e-7)

    def body(_, x):
        gram = x @ x.T
        poly = -4.7750 * gram + 2.0315 * gram @ gram
        return 3.4445 * x + poly @ x

    x = lax.fori_loop(0, iterations, body, x)
    x = x.T if tall else x
    return x * math.sqrt(max(1.0, g.shape[0] / g.shape[1]))


def _update_rule(name: str) -> tuple[Callable[[Any], Any], Callable[..., tuple[Any, Any]]]:
    """The named optimizer as (init, update): init(params) -> state, and
    update(params, grads, state, loss_of) -> (params, state), where loss_of(params) is the
    step's loss on its batch (SAM and Sophia evaluate it again). State is float32 whatever
    the parameters' dtype; every parameter keeps its own dtype."""
    import jax
    import jax.numpy as jnp

    f32 = jnp.float32
    tm = jax.tree.map

    def zeros(tree: Any) -> Any:
        return tm(lambda p: jnp.zeros(p.shape, f32), tree)

    def wide(tree: Any) -> Any:
        return tm(lambda a: a.astype(f32), tree)

    def recast(params: Any, values: Any) -> Any:
        return tm(lambda p, v: v.astype(p.dtype), params, values)

    def count() -> Any:
        return jnp.zeros((), jnp.int32)

    if name == "qhadam":
        # quasi-hyperbolic Adam: the step mixes the raw gradient with the moving average
        def qhadam(params, grads, state, loss_of):
            m, v, t = state
            g = wide(grads)
            t = t + 1
            c = 1.0 - 0.999 ** t.astype(f32)
            m = tm(lambda m_, g_: 0.999 * m_ + 0.001 * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)

            def move(p, g_, m_, v_):
                mixed = 0.3 * g_ + 0.7 * m_ / c
                return p.astype(f32) - 1e-3 * mixed / (jnp.sqrt(v_ / c) + 1e-8)
            return recast(params, tm(move, params, g, m, v)), (m, v, t)
        return (lambda p: (zeros(p), zeros(p), count())), qhadam

    if name == "adamod":
        # Adam whose per-element step size is capped by its own long moving average
        def adamod(params, grads, state, loss_of):
            m, v, s, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            rate = tm(lambda v_: 1e-3 / (jnp.sqrt(v_ / (1.0 - 0.999 ** n)) + 1e-8), v)
            s = tm(lambda s_, r: 0.9999 * s_ + 1e-4 * r, s, rate)
            rate = tm(jnp.minimum, rate, s)
            moved = tm(lambda p, r, m_: p.astype(f32) - r * m_ / (1.0 - 0.9 ** n),
                       params, rate, m)
            return recast(params, moved), (m, v, s, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), adamod

    if name == "lookahead_adam":
        # Adam as the fast optimizer; every fifth step the slow weights move halfway
        # toward the fast ones and the fast weights restart from them
        def lookahead(params, grads, state, loss_of):
            m, v, slow, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            fast = tm(lambda p, m_, v_: p.astype(f32) - 1e-3 * (m_ / (1.0 - 0.9 ** n))
                      / (jnp.sqrt(v_ / (1.0 - 0.999 ** n)) + 1e-8), params, m, v)
            sync = t % 5 == 0
            slow = tm(lambda s, f: jnp.where(sync, s + 0.5 * (f - s), s), slow, fast)
            fast = tm(lambda s, f: jnp.where(sync, s, f), slow, fast)
            return recast(params, fast), (m, v, slow, t)
        return (lambda p: (zeros(p), zeros(p), wide(p), count())), lookahead

    if name == "rprop":
        # resilient backpropagation (iRprop-): only the gradient's sign is used; each
        # element's step grows while the sign holds and shrinks when it flips
        def rprop(params, grads, state, loss_of):
            previous, size = state

            def per_element(p, g, prev, step):
                g = g.astype(f32)
                agree = g * prev
                step = jnp.where(agree > 0, jnp.minimum(step * 1.2, 0.1),
                                 jnp.where(agree < 0, jnp.maximum(step * 0.5, 1e-6), step))
                g = jnp.where(agree < 0, 0.0, g)
                return (p.astype(f32) - jnp.sign(g) * step).astype(p.dtype), g, step

            out = tm(per_element, params, grads, previous, size)
            params, previous, size = _unzip(out, params, 3)
            return params, (previous, size)
        return (lambda p: (zeros(p), tm(lambda a: jnp.full(a.shape, 1e-3, f32), p))), rprop

    if name == "sam":
        # sharpness-aware minimization: the gradient is taken again at the worst point of
        # a small ball around the weights, then heavy-ball momentum with weight decay
        def sam(params, grads, velocity, loss_of):
            g = wide(grads)
            norm = jnp.sqrt(sum(jnp.sum(a * a) for a in jax.tree.leaves(g)))
            lifted = tm(lambda p, g_: (p.astype(f32) + 0.05 * g_ / (norm + 1e-12)
                                       ).astype(p.dtype), params, g)
            sharp = wide(jax.grad(loss_of)(lifted))
            velocity = tm(lambda b, g_, p: 0.9 * b + g_ + 5e-4 * p.astype(f32),
                          velocity, sharp, params)
            moved = tm(lambda p, b: p.astype(f32) - 0.05 * b, params, velocity)
            return recast(params, moved), velocity
        return zeros, sam

    if name == "madgrad":
        # dual averaging with cube-root scaling, anchored at the first iterate, plus
        # momentum by averaging the iterates
        def madgrad(params, grads, state, loss_of):
            s, nu, anchor, k = state
            g = wide(grads)
            weight = 1e-2 * jnp.sqrt(k.astype(f32) + 1.0)
            s = tm(lambda s_, g_: s_ + weight * g_, s, g)
            nu = tm(lambda n_, g_: n_ + weight * g_ * g_, nu, g)
            moved = tm(lambda p, s_, n_, x0: 0.9 * p.astype(f32)
                       + 0.1 * (x0 - s_ / (jnp.cbrt(n_) + 1e-6)), params, s, nu, anchor)
            return recast(params, moved), (s, nu, anchor, k + 1)
        return (lambda p: (zeros(p), zeros(p), wide(p), count())), madgrad

    if name == "schedule_free_adamw":
        # schedule-free AdamW: the parameters are the interpolation y where gradients are
        # taken; the state keeps the base sequence z and its running average x
        def schedule_free(params, grads, state, loss_of):
            z, x, v, t = state
            g = wide(grads)
            t = t + 1
            n = t.astype(f32)
            v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
            z = tm(lambda z_, g_, v_, y: z_ - 2e-3 * (g_ / (jnp.sqrt(v_ / (1.0 - 0.999 ** n))
                                                            + 1e-8) + 1e-2 * y.astype(f32)),
                   z, g, v, params)
            x = tm(lambda x_, z_: (1.0 - 1.0 / n) * x_ + z_ / n, x, z)
            y = tm(lambda x_, z_: 0.1 * z_ + 0.9 * x_, x, z)
            return recast(params, y), (z, x, v, t)
        return (lambda p: (wide(p), wide(p), zeros(p), count())), schedule_free

    if name == "muon":
        # Muon for the hidden weight matrices (Nesterov momentum, then orthogonalized by
        # Newton-Schulz); AdamW for embeddings, the output head, vectors and filters
        def is_hidden(path, p):
            key = jax.tree_util.keystr(path)
            return p.ndim == 2 and "embed" not in key and "head" not in key

        def muon(params, grads, state, loss_of):
            buf, m, v, t = state
            t = t + 1
            n = t.astype(f32)

            def per_tensor(path, p, g, b, m_, v_):
                g = g.astype(f32)
                p32 = p.astype(f32)
                if is_hidden(path, p):
                    b = 0.95 * b + g
                    step = _newton_schulz(g + 0.95 * b)
                    return (p32 - 0.02 * (step + 0.01 * p32)).astype(p.dtype), b, m_, v_
                m_ = 0.9 * m_ + 0.1 * g
                v_ = 0.95 * v_ + 0.05 * g * g
                step = (m_ / (1.0 - 0.9 ** n)) / (jnp.sqrt(v_ / (1.0 - 0.95 ** n)) + 1e-8)
                return (p32 - 3e-3 * (step + 0.01 * p32)).astype(p.dtype), b, m_, v_

            out = jax.tree_util.tree_map_with_path(per_tensor, params, grads, buf, m, v)
            params, buf, m, v = _unzip(out, params, 4)
            return params, (buf, m, v, t)
        return (lambda p: (zeros(p), zeros(p), zeros(p), count())), muon

    if name == "shampoo":
        # Shampoo: left and right Kronecker-factor statistics per matrix, inverse fourth
        # roots by Newton iteration, the step grafted onto Adagrad's norm; vectors (and
        # matrices with a side over 160) take the Adagrad step itself
        def factored(p):
            return p.ndim == 2 and max(p.shape) <= 160

        def shampoo_init(params):
            def left(p):
                return jnp.zeros((p.shape[0],) * 2 if factored(p) else (1, 1), f32)

            def right(p):
                return jnp.zeros((p.shape[1],) * 2 if factored(p) else (1, 1), f32)
            return tm(left, params), tm(right, params), zeros(params)

        def shampoo(params, grads, state, loss_of):
            lefts, rights, squares = state

            def per_tensor(p, g, lstat, rstat, sq):
                g = g.astype(f32)
                sq = sq + g * g
                adagrad = g / (jnp.sqrt(sq) + 1e-6)
                if factored(p):
                    lstat = lstat + g @ g.T
                    rstat = rstat + g.T @ g
                    pre = _inverse_fourth_root(lstat) @ g @ _inverse_fourth_root(rstat)
                    scale = jnp.sqrt(jnp.sum(adagrad ** 2) / (jnp.sum(pre ** 2) + 1e-16))
                    direction = pre * scale
                else:
                    direction = adagrad
                return (p.astype(f32) - 1e-2 * direction).astype(p.dtype), lstat, rstat, sq

            out = tm(per_tensor, params, grads, lefts, rights, squares)
            params, lefts, rights, squares = _unzip(out, params, 4)
            return params, (lefts, rights, squares)
        return shampoo_init, shampoo

    if name == "sophia":
        # Sophia: a diagonal Hessian estimate from Hutchinson's probe (a Hessian-vector
        # product by forward-over-reverse differentiation) preconditions a momentum
        # step that is clipped element-wise
        def sophia(params, grads, state, loss_of):
            m, h, t = state
            leaves, treedef = jax.tree.flatten(params)
            key = jax.random.fold_in(jax.random.PRNGKey(8), t)
            probe = treedef.unflatten([
                jax.random.rademacher(jax.random.fold_in(key, i), leaf.shape, leaf.dtype)
                for i, leaf in enumerate(leaves)])
            hvp = jax.jvp(jax.grad(loss_of), (params,), (probe,))[1]
            estimate = tm(lambda u, hv: u.astype(f32) * hv.astype(f32), probe, hvp)
            h = tm(lambda h_, e: 0.99 * h_ + 0.01 * e, h, estimate)
            m = tm(lambda m_, g: 0.965 * m_ + 0.035 * g.astype(f32), m, grads)

            def move(p, m_, h_):
                p32 = p.astype(f32)
                ratio = jnp.clip(m_ / jnp.maximum(0.05 * h_, 1e-12), -1.0, 1.0)
                return p32 - 2e-4 * ratio - 2e-5 * p32
            return recast(params, tm(move, params, m, h)), (m, h, t + 1)
        return (lambda p: (zeros(p), zeros(p), count())), sophia

    raise ValueError(name)


def _train(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any) -> Any:
    """One training step (loss, gradients, the named update) lowered for `batch`."""
    import jax

    init, update = _update_rule(rule)

    def step(params, state, *batch):
        def loss_of(p):
            return loss_fn(p, *batch)

        loss, grads = jax.value_and_grad(loss_of)(params)
        params, state = update(params, grads, state, loss_of)
        return params, state, loss

    return jax.jit(step).lower(params, init(params), *batch)


def _layer_norm(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """Normalization over `axes` with float32 statistics, returned in x's dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = x32.mean(axes, keepdims=True)
    var = jnp.square(x32 - mean).mean(axes, keepdims=True)
    return ((x32 - mean) * lax.rsqrt(var + 1e-5) * gain + shift).astype(x.dtype)


def _batch_norm(x: Any, gain: Any, shift: Any) -> Any:
    """Batch norm over every axis but the channels (last), statistics in float32."""
    return _layer_norm(x, gain, shift, tuple(range(x.ndim - 1)))


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Mean softmax cross-entropy of integer labels, computed in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1).mean()


def _lstm(x: Any, h: Any, c: Any, w: Any, b: Any) -> tuple[Any, Any]:
    """One LSTM cell step on concat(x, h) with fused gate weights (input, forget, cell,
    output), the forget bias offset by one."""
    import jax
    import jax.numpy as jnp

    i, f, g, o = jnp.split(jnp.concatenate([x, h], -1) @ w + b, 4, -1)
    c = jax.nn.sigmoid(f + 1.0) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    return jax.nn.sigmoid(o) * jnp.tanh(c), c


def egnn_denoiser(batch: int = 12, atoms: int = 24, hidden: int = 64, layers: int = 4,
                  species: int = 8) -> Any:
    """An E(n)-equivariant graph network over padded small molecules: per layer an edge
    MLP of both atoms' features and their squared distance, a sigmoid edge gate,
    coordinate updates along the relative positions weighted by a second MLP, and a
    residual node update from the summed messages; trained to denoise positions and to
    fit a per-molecule energy; Shampoo."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(1)
    sizes = rng.integers(atoms // 2, atoms + 1, size=batch)
    present = (np.arange(atoms)[None, :] < sizes[:, None]).astype(np.float32)     # (B, N)
    pairs = present[:, :, None] * present[:, None, :] * (1.0 - np.eye(atoms))[None]
    node_mask, pair_mask = jnp.asarray(present)[..., None], jnp.asarray(pairs)[..., None]

    shapes: dict[str, tuple[int, ...]] = {"embed": (species, hidden)}
    for l in range(layers):
        shapes |= {f"edge1_{l}": (2 * hidden + 1, hidden), f"edge1_{l}_b": (hidden,),
                   f"edge2_{l}": (hidden, hidden), f"edge2_{l}_b": (hidden,),
                   f"gate_{l}": (hidden, 1), f"coord1_{l}": (hidden, hidden),
                   f"coord1_{l}_b": (hidden,), f"coord2_{l}": (hidden, 1),
                   f"node1_{l}": (2 * hidden, hidden), f"node1_{l}_b": (hidden,),
                   f"node2_{l}": (hidden, hidden), f"node2_{l}_b": (hidden,)}
    shapes |= {"energy1": (hidden, hidden), "energy1_b": (hidden,), "energy2": (hidden, 1)}
    p = _params(shapes, seed=1)

    def loss_fn(p, kinds, noisy, clean, energy):
        h = p["embed"][kinds] * node_mask                                 # (B, N, H)
        x = noisy
        for l in range(layers):
            w = p[f"edge1_{l}"]
            diff = x[:, :, None, :] - x[:, None, :, :]                    # (B, N, N, 3)
            dist2 = jnp.sum(diff * diff, -1, keepdims=True)
            # the first edge layer on concat(h_i, h_j, d_ij^2), split so nothing is
            # concatenated over the pairs
            pre = ((h @ w[:hidden])[:, :, None] + (h @ w[hidden:2 * hidden])[:, None]
                   + dist2 * w[2 * hidden] + p[f"edge1_{l}_b"])
            msg = jax.nn.silu(jax.nn.silu(pre) @ p[f"edge2_{l}"] + p[f"edge2_{l}_b"])
            msg = msg * jax.nn.sigmoid(msg @ p[f"gate_{l}"]) * pair_mask
            weight = jnp.tanh(jax.nn.silu(msg @ p[f"coord1_{l}"] + p[f"coord1_{l}_b"])
                              @ p[f"coord2_{l}"])
            x = x + jnp.sum(diff * weight * pair_mask, 2) / (atoms - 1)
            update = jnp.concatenate([h, msg.sum(2)], -1) @ p[f"node1_{l}"] + p[f"node1_{l}_b"]
            h = (h + jax.nn.silu(update) @ p[f"node2_{l}"] + p[f"node2_{l}_b"]) * node_mask
        per_atom = jax.nn.silu(h @ p["energy1"] + p["energy1_b"]) @ p["energy2"]
        predicted = jnp.sum(per_atom * node_mask, (1, 2))
        position_error = jnp.sum(jnp.square(x - clean) * node_mask) / node_mask.sum()
        return jnp.mean(jnp.square(predicted - energy)) + position_error

    clean = 1.5 * rng.standard_normal((batch, atoms, 3)) * present[..., None]
    noisy = clean + 0.1 * rng.standard_normal(clean.shape) * present[..., None]
    return _train("shampoo", loss_fn, p,
                  jnp.asarray(rng.integers(0, species, (batch, atoms)), jnp.int32),
                  jnp.asarray(noisy, jnp.float32), jnp.asarray(clean, jnp.float32),
                  jnp.asarray(rng.standard_normal(batch), jnp.float32))


def conv_tasnet_separation(batch: int = 4, samples: int = 1600, filters: int = 64,
                           hidden: int = 96, blocks: int = 4, repeats: int = 2) -> Any:
    """Conv-TasNet separating two-speaker mixtures: a strided 1-D convolution encoder, a
    temporal convolutional network of repeated blocks (1x1 expansion, PReLU, global
    layer norm, dilated depthwise convolution, residual and skip 1x1 outputs), sigmoid
    masks per speaker and a transposed-convolution decoder; trained by negative
    scale-invariant SNR under permutation-invariant assignment (the better of the two
    speaker orders per mixture); QHAdam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    kernel, stride = 16, 8
    shapes: dict[str, tuple[int, ...]] = {"encoder": (kernel, 1, filters),
                                          "neck": (filters, filters), "neck_b": (filters,)}
    for r in range(repeats):
        for k in range(blocks):
            n = f"{r}_{k}"
            shapes |= {f"expand_{n}": (filters, hidden), f"expand_{n}_b": (hidden,),
                       f"slope1_{n}_b": (1,), f"norm1_{n}_g": (hidden,),
                       f"norm1_{n}_b": (hidden,), f"depth_{n}": (3, 1, hidden),
                       f"slope2_{n}_b": (1,), f"norm2_{n}_g": (hidden,),
                       f"norm2_{n}_b": (hidden,), f"residual_{n}": (hidden, filters),
                       f"skip_{n}": (hidden, filters)}
    shapes |= {"mask_slope_b": (1,), "mask": (filters, 2 * filters), "mask_b": (2 * filters,),
               "decoder": (kernel, filters, 1)}
    p = _params(shapes, seed=2)

    def prelu(x, offset):
        return jnp.where(x > 0, x, (0.25 + offset) * x)

    def separate(p, mixture):
        frames = jax.nn.relu(lax.conv_general_dilated(mixture[..., None], p["encoder"],
                                                      (stride,), "VALID",
                                                      dimension_numbers=_NWC))
        x = frames @ p["neck"] + p["neck_b"]
        skips = 0.0
        for r in range(repeats):
            for k in range(blocks):
                n = f"{r}_{k}"
                y = prelu(x @ p[f"expand_{n}"] + p[f"expand_{n}_b"], p[f"slope1_{n}_b"])
                y = _layer_norm(y, p[f"norm1_{n}_g"], p[f"norm1_{n}_b"], (1, 2))
                y = lax.conv_general_dilated(y, p[f"depth_{n}"], (1,), "SAME",
                                             rhs_dilation=(2 ** k,), dimension_numbers=_NWC,
                                             feature_group_count=hidden)
                y = prelu(y, p[f"slope2_{n}_b"])
                y = _layer_norm(y, p[f"norm2_{n}_g"], p[f"norm2_{n}_b"], (1, 2))
                x = x + y @ p[f"residual_{n}"]
                skips = skips + y @ p[f"skip_{n}"]
        masks = jax.nn.sigmoid(prelu(skips, p["mask_slope_b"]) @ p["mask"] + p["mask_b"])
        masks = masks.reshape(*frames.shape[:2], 2, filters)
        outs = []
        for s in range(2):
            outs.append(lax.conv_transpose(frames * masks[:, :, s], p["decoder"], (stride,),
                                           "VALID", dimension_numbers=_NWC)[..., 0])
        return jnp.stack(outs, 1)                                         # (B, 2, T)

    def si_snr(estimate, target):
        estimate = estimate - estimate.mean(-1, keepdims=True)
        target = target - target.mean(-1, keepdims=True)
        scale = jnp.sum(estimate * target, -1, keepdims=True) / (
            jnp.sum(target * target, -1, keepdims=True) + 1e-8)
        projection = scale * target
        noise = estimate - projection
        return 10.0 * jnp.log10(jnp.sum(projection ** 2, -1) / (jnp.sum(noise ** 2, -1) + 1e-8)
                                + 1e-8)

    def loss_fn(p, sources):
        estimate = separate(p, sources.sum(1))
        straight = si_snr(estimate, sources).mean(-1)
        swapped = si_snr(estimate[:, ::-1], sources).mean(-1)
        return -jnp.maximum(straight, swapped).mean()

    rng = np.random.default_rng(2)
    t = np.arange(samples) / 8000.0
    tones = np.sin(2 * np.pi * rng.uniform(100, 900, (batch, 2, 1)) * t)
    sources = tones * (1.0 + 0.5 * np.sin(2 * np.pi * 3.0 * t)) + 0.05 * rng.standard_normal(
        (batch, 2, samples))
    return _train("qhadam", loss_fn, p, jnp.asarray(sources, jnp.float32))


def timesformer_video(batch: int = 2, frames: int = 8, side: int = 64, patch: int = 8,
                      width: int = 128, heads: int = 4, layers: int = 2,
                      classes: int = 50) -> Any:
    """A TimeSformer video classifier in bfloat16 with divided space-time attention:
    patch embedding with separate learned space and time positions, then blocks that
    attend first across frames at each patch position and then across patches within
    each frame, each followed by its own residual, and an MLP; mean pooling and a
    cross-entropy head; Adam wrapped by Lookahead."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    grid = side // patch
    tokens = grid * grid
    shapes: dict[str, tuple[int, ...]] = {"embed": (patch * patch * 3, width),
                                          "embed_b": (width,), "space": (tokens, width),
                                          "time": (frames, width)}
    for l in range(layers):
        for kind in ("time", "space"):
            shapes |= {f"{kind}_norm_{l}_g": (width,), f"{kind}_norm_{l}_b": (width,),
                       f"{kind}_qkv_{l}": (width, 3 * width), f"{kind}_out_{l}": (width, width)}
        shapes |= {f"mlp_norm_{l}_g": (width,), f"mlp_norm_{l}_b": (width,),
                   f"mlp1_{l}": (width, 4 * width), f"mlp1_{l}_b": (4 * width,),
                   f"mlp2_{l}": (4 * width, width), f"mlp2_{l}_b": (width,)}
    shapes |= {"final_g": (width,), "final_b": (width,), "classify": (width, classes)}
    p = _params(shapes, seed=3, dtype=bf16)
    p["space"] = p["space"] * 0.02
    p["time"] = p["time"] * 0.02

    def attend(x, qkv_w, out_w):
        """Self-attention over the second-to-last axis of x (..., S, D)."""
        lead = x.shape[:-2]
        s = x.shape[-2]
        q, k, v = jnp.split((x @ qkv_w).reshape(*lead, s, 3 * heads, width // heads), 3, -2)
        scores = jnp.einsum("...qhd,...khd->...hqk", q, k) / math.sqrt(width // heads)
        weights = jax.nn.softmax(scores.astype(jnp.float32), -1).astype(bf16)
        mixed = jnp.einsum("...hqk,...khd->...qhd", weights, v)
        return mixed.reshape(*lead, s, width) @ out_w

    def loss_fn(p, video, labels):
        b = video.shape[0]
        cubes = video.reshape(b, frames, grid, patch, grid, patch, 3)
        cubes = cubes.transpose(0, 1, 2, 4, 3, 5, 6).reshape(b, frames, tokens, -1)
        x = cubes @ p["embed"] + p["embed_b"] + p["space"] + p["time"][:, None]  # (B,T,P,D)
        for l in range(layers):
            along_time = x.transpose(0, 2, 1, 3)                               # (B, P, T, D)
            h = _layer_norm(along_time, p[f"time_norm_{l}_g"], p[f"time_norm_{l}_b"])
            x = x + attend(h, p[f"time_qkv_{l}"], p[f"time_out_{l}"]).transpose(0, 2, 1, 3)
            h = _layer_norm(x, p[f"space_norm_{l}_g"], p[f"space_norm_{l}_b"])
            x = x + attend(h, p[f"space_qkv_{l}"], p[f"space_out_{l}"])
            h = _layer_norm(x, p[f"mlp_norm_{l}_g"], p[f"mlp_norm_{l}_b"])
            h = jax.nn.gelu(h @ p[f"mlp1_{l}"] + p[f"mlp1_{l}_b"])
            x = x + h @ p[f"mlp2_{l}"] + p[f"mlp2_{l}_b"]
        pooled = _layer_norm(x, p["final_g"], p["final_b"]).mean((1, 2))
        return _cross_entropy(pooled @ p["classify"], labels)

    rng = np.random.default_rng(3)
    video = rng.uniform(0.0, 1.0, (batch, frames, side, side, 3))
    return _train("lookahead_adam", loss_fn, p, jnp.asarray(video, bf16),
                  jnp.asarray(rng.integers(0, classes, batch), jnp.int32))


def gaussian_splatting_2d(gaussians: int = 256, height: int = 64, width: int = 64) -> Any:
    """Fitting an image with anisotropic 2-D Gaussians rendered front to back: the
    Gaussians are ordered by a learned depth with `argsort` and gathered, each pixel's
    opacity per Gaussian comes from the inverse of its rotated, scaled covariance, and
    colours are alpha-composited with an exclusive cumulative product of
    transmittances over a background; an L1 plus squared-error loss; Rprop."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(4)
    p = {"mean": jnp.asarray(rng.uniform(-1, 1, (gaussians, 2)), jnp.float32),
         "log_scale": jnp.full((gaussians, 2), -2.5, jnp.float32)
         + jnp.asarray(0.3 * rng.standard_normal((gaussians, 2)), jnp.float32),
         "angle": jnp.asarray(rng.uniform(0, np.pi, gaussians), jnp.float32),
         "colour": jnp.asarray(rng.standard_normal((gaussians, 3)), jnp.float32),
         "opacity": jnp.zeros((gaussians,), jnp.float32),
         "depth": jnp.asarray(rng.standard_normal(gaussians), jnp.float32)}
    ys, xs = np.meshgrid(np.linspace(-1, 1, height), np.linspace(-1, 1, width), indexing="ij")
    pixels = jnp.asarray(np.stack([xs.ravel(), ys.ravel()], -1), jnp.float32)   # (P, 2)

    def render(p, background):
        order = jnp.argsort(p["depth"])
        g = jax.tree.map(lambda a: jnp.take(a, order, 0), p)
        scale = jnp.exp(g["log_scale"])
        cos, sin = jnp.cos(g["angle"]), jnp.sin(g["angle"])
        sx, sy = scale[:, 0] ** 2, scale[:, 1] ** 2
        a = cos * cos * sx + sin * sin * sy                    # covariance R S^2 R^T
        b = cos * sin * (sx - sy)
        c = sin * sin * sx + cos * cos * sy
        det = a * c - b * b + 1e-10
        dx = pixels[:, 0:1] - g["mean"][:, 0]                  # (P, G)
        dy = pixels[:, 1:2] - g["mean"][:, 1]
        power = -0.5 * (c * dx * dx - 2.0 * b * dx * dy + a * dy * dy) / det
        alpha = jnp.minimum(0.99, jax.nn.sigmoid(g["opacity"]) * jnp.exp(jnp.minimum(power, 0.)))
        through = jnp.cumprod(1.0 - alpha, 1)
        before = jnp.concatenate([jnp.ones_like(through[:, :1]), through[:, :-1]], 1)
        weights = before * alpha
        rgb = weights @ jax.nn.sigmoid(g["colour"]) + through[:, -1:] * background
        return rgb.reshape(height, width, 3)

    def loss_fn(p, target, background):
        error = render(p, background) - target
        return jnp.abs(error).mean() * 0.8 + jnp.square(error).mean() * 0.2

    target = 0.5 + 0.4 * np.sin(3 * xs[..., None] + np.array([0.0, 1.0, 2.0])) * np.cos(
        2 * ys[..., None])
    return _train("rprop", loss_fn, p, jnp.asarray(target, jnp.float32),
                  jnp.asarray([0.1, 0.1, 0.1], jnp.float32))


def densenet_classifier(batch: int = 4, side: int = 32, growth: int = 12,
                        per_block: int = 4, blocks: int = 3, classes: int = 10) -> Any:
    """A DenseNet-BC classifier in bfloat16: dense blocks whose every layer (batch norm,
    ReLU, 1x1 bottleneck, batch norm, ReLU, 3x3 convolution) sees the concatenation of
    all earlier feature maps in its block, transitions that halve channels by a 1x1
    convolution and the resolution by 2x2 average pooling, and a global-pool head;
    sharpness-aware minimization (two gradients a step) over SGD with momentum."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16 = jnp.bfloat16
    channels = 2 * growth
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, channels)}
    for k in range(blocks):
        for j in range(per_block):
            n = f"{k}_{j}"
            shapes |= {f"bn1_{n}_g": (channels,), f"bn1_{n}_b": (channels,),
                       f"bottleneck_{n}": (1, 1, channels, 4 * growth),
                       f"bn2_{n}_g": (4 * growth,), f"bn2_{n}_b": (4 * growth,),
                       f"conv_{n}": (3, 3, 4 * growth, growth)}
            channels += growth
        if k < blocks - 1:
            shapes |= {f"tbn_{k}_g": (channels,), f"tbn_{k}_b": (channels,),
                       f"transition_{k}": (1, 1, channels, channels // 2)}
            channels //= 2
    shapes |= {"head_bn_g": (channels,), "head_bn_b": (channels,),
               "classify": (channels, classes), "classify_b": (classes,)}
    p = _params(shapes, seed=5, dtype=bf16)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=_NHWC)

    def loss_fn(p, images, labels):
        x = conv(images, p["stem"])
        for k in range(blocks):
            for j in range(per_block):
                n = f"{k}_{j}"
                h = jax.nn.relu(_batch_norm(x, p[f"bn1_{n}_g"], p[f"bn1_{n}_b"]))
                h = conv(h, p[f"bottleneck_{n}"])
                h = jax.nn.relu(_batch_norm(h, p[f"bn2_{n}_g"], p[f"bn2_{n}_b"]))
                x = jnp.concatenate([x, conv(h, p[f"conv_{n}"])], -1)
            if k < blocks - 1:
                h = jax.nn.relu(_batch_norm(x, p[f"tbn_{k}_g"], p[f"tbn_{k}_b"]))
                h = conv(h, p[f"transition_{k}"])
                b, s, _, c = h.shape
                x = h.reshape(b, s // 2, 2, s // 2, 2, c).mean((2, 4))
        x = jax.nn.relu(_batch_norm(x, p["head_bn_g"], p["head_bn_b"])).mean((1, 2))
        return _cross_entropy(x @ p["classify"] + p["classify_b"], labels)

    rng = np.random.default_rng(5)
    return _train("sam", loss_fn, p,
                  jnp.asarray(rng.uniform(0, 1, (batch, side, side, 3)), bf16),
                  jnp.asarray(rng.integers(0, classes, batch), jnp.int32))


def pointer_network_sort(batch: int = 64, length: int = 16, hidden: int = 128) -> Any:
    """A pointer network learning to sort: an LSTM encoder under `lax.scan` reads the
    numbers, and an LSTM decoder under a second `lax.scan`, fed (teacher forcing) the
    number it should have pointed at one step earlier by a gather, points at an input
    position by additive attention over the encoder states with the positions already
    chosen masked out; targets are the `argsort` of the input; MADGRAD."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    p = _params({"read": (2, hidden), "read_b": (hidden,),
                 "encoder": (2 * hidden, 4 * hidden), "encoder_b": (4 * hidden,),
                 "start_b": (hidden,), "decoder": (2 * hidden, 4 * hidden),
                 "decoder_b": (4 * hidden,), "attend_keys": (hidden, hidden),
                 "attend_query": (hidden, hidden), "attend_v": (hidden,)}, seed=6)

    def loss_fn(p, numbers):
        target = jnp.argsort(numbers, -1).astype(jnp.int32)             # (B, L)
        feats = jnp.stack([numbers, numbers * numbers], -1) @ p["read"] + p["read_b"]
        zeros = jnp.zeros((numbers.shape[0], hidden))

        def encode(carry, x):
            h, c = _lstm(x, *carry, p["encoder"], p["encoder_b"])
            return (h, c), h

        (h, c), states = lax.scan(encode, (zeros, zeros), feats.transpose(1, 0, 2))
        states = states.transpose(1, 0, 2)                                # (B, L, H)
        keys = states @ p["attend_keys"]
        chosen = jnp.take_along_axis(feats, target[..., None], 1)         # (B, L, H)
        start = jnp.broadcast_to(p["start_b"], (numbers.shape[0], 1, hidden))
        inputs = jnp.concatenate([start, chosen[:, :-1]], 1).transpose(1, 0, 2)

        def decode(carry, step):
            h, c, used = carry
            x, goal = step
            h, c = _lstm(x, h, c, p["decoder"], p["decoder_b"])
            scores = jnp.tanh(keys + (h @ p["attend_query"])[:, None]) @ p["attend_v"]
            scores = jnp.where(used, -1e9, scores)
            logp = jax.nn.log_softmax(scores, -1)
            picked = jnp.take_along_axis(logp, goal[:, None], 1)[:, 0]
            used = used | (jnp.arange(length) == goal[:, None])
            return (h, c, used), picked

        used = jnp.zeros(numbers.shape, bool)
        _, picked = lax.scan(decode, (h, c, used), (inputs, target.T))
        return -picked.mean()

    rng = np.random.default_rng(6)
    return _train("madgrad", loss_fn, p,
                  jnp.asarray(rng.uniform(0, 1, (batch, length)), jnp.float32))


def involution_classifier(batch: int = 4, side: int = 32, kernel: int = 5,
                          classes: int = 10) -> Any:
    """A classifier of involutions: at every pixel a kernel is generated from that
    pixel's own features (a 1x1 reduction, batch norm and ReLU, a 1x1 span to one kernel
    per channel group) and applied to the pixel's neighbourhood by a `lax.scan` over the
    taps that cuts one shifted `dynamic_slice` of the padded map per tap and accumulates
    it; residual blocks with 1x1 channel mixing in two stages at 32 and 16 pixels,
    average pooling between; schedule-free AdamW."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    stages = [(32, 4), (64, 8)]            # (channels, groups) per stage, two blocks each
    taps = kernel * kernel
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, stages[0][0]),
                                          "stem_bn_g": (stages[0][0],),
                                          "stem_bn_b": (stages[0][0],)}
    for s, (c, g) in enumerate(stages):
        if s > 0:
            shapes |= {f"widen_{s}": (stages[s - 1][0], c)}
        for j in range(2):
            n = f"{s}_{j}"
            shapes |= {f"reduce_{n}": (c, c // 4), f"reduce_bn_{n}_g": (c // 4,),
                       f"reduce_bn_{n}_b": (c // 4,), f"span_{n}": (c // 4, g * taps),
                       f"span_{n}_b": (g * taps,), f"bn_{n}_g": (c,), f"bn_{n}_b": (c,),
                       f"mix_{n}": (c, c), f"mix_bn_{n}_g": (c,), f"mix_bn_{n}_b": (c,)}
    shapes |= {"classify": (stages[-1][0], classes), "classify_b": (classes,)}
    p = _params(shapes, seed=7)

    offsets = jnp.asarray([(dy, dx) for dy in range(kernel) for dx in range(kernel)], jnp.int32)

    def involution(x, p, n, groups):
        b, h, w, c = x.shape
        mid = jax.nn.relu(_batch_norm(x @ p[f"reduce_{n}"], p[f"reduce_bn_{n}_g"],
                                      p[f"reduce_bn_{n}_b"]))
        weights = (mid @ p[f"span_{n}"] + p[f"span_{n}_b"]).reshape(b, h, w, groups, taps)
        weights = weights.transpose(4, 0, 1, 2, 3)[..., None]           # (taps, B, H, W, G, 1)
        r = kernel // 2
        padded = jnp.pad(x, ((0, 0), (r, r), (r, r), (0, 0)))

        def tap(total, step):
            weight, (dy, dx) = step
            shifted = lax.dynamic_slice(padded, (0, dy, dx, 0), (b, h, w, c))
            return total + shifted.reshape(b, h, w, groups, c // groups) * weight, None

        start = jnp.zeros((b, h, w, groups, c // groups), x.dtype)
        total, _ = lax.scan(tap, start, (weights, (offsets[:, 0], offsets[:, 1])))
        return total.reshape(b, h, w, c)

    def loss_fn(p, images, labels):
        x = lax.conv_general_dilated(images, p["stem"], (1, 1), "SAME", dimension_numbers=_NHWC)
        x = jax.nn.relu(_batch_norm(x, p["stem_bn_g"], p["stem_bn_b"]))
        for s, (_, groups) in enumerate(stages):
            if s > 0:
                b, side_, _, width = x.shape
                x = x.reshape(b, side_ // 2, 2, side_ // 2, 2, width).mean((2, 4))
                x = x @ p[f"widen_{s}"]
            for j in range(2):
                n = f"{s}_{j}"
                h = jax.nn.relu(_batch_norm(involution(x, p, n, groups), p[f"bn_{n}_g"],
                                            p[f"bn_{n}_b"]))
                h = _batch_norm(h @ p[f"mix_{n}"], p[f"mix_bn_{n}_g"], p[f"mix_bn_{n}_b"])
                x = jax.nn.relu(x + h)
        return _cross_entropy(x.mean((1, 2)) @ p["classify"] + p["classify_b"], labels)

    rng = np.random.default_rng(7)
    return _train("schedule_free_adamw", loss_fn, p,
                  jnp.asarray(rng.uniform(0, 1, (batch, side, side, 3)), jnp.float32),
                  jnp.asarray(rng.integers(0, classes, batch), jnp.int32))


def hyena_language_model(batch: int = 2, length: int = 512, width: int = 128,
                         layers: int = 2, vocab: int = 256, filter_width: int = 64) -> Any:
    """A Hyena byte-level language model: each operator projects to a value and two
    gates, runs a short causal depthwise convolution, then twice multiplies a gate by a
    long causal convolution of the running signal, done as a zero-padded real FFT
    product with a filter as long as the sequence that a small sine MLP generates from
    positional features and an exponential decay window shapes; next-byte
    cross-entropy; Muon for hidden matrices, AdamW for the rest."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bands = 8
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width)}
    for l in range(layers):
        shapes |= {f"norm1_{l}_g": (width,), f"norm1_{l}_b": (width,),
                   f"in_{l}": (width, 3 * width), f"in_{l}_b": (3 * width,),
                   f"short_{l}": (3, 3 * width),
                   f"filter1_{l}": (2 * bands + 1, filter_width), f"filter1_{l}_b": (filter_width,),
                   f"filter2_{l}": (filter_width, filter_width),
                   f"filter2_{l}_b": (filter_width,), f"filter3_{l}": (filter_width, 2 * width),
                   f"decay_{l}_b": (2 * width,), f"skip_{l}_b": (2, width),
                   f"out_{l}": (width, width), f"out_{l}_b": (width,),
                   f"norm2_{l}_g": (width,), f"norm2_{l}_b": (width,),
                   f"mlp1_{l}": (width, 2 * width), f"mlp1_{l}_b": (2 * width,),
                   f"mlp2_{l}": (2 * width, width), f"mlp2_{l}_b": (width,)}
    shapes |= {"final_g": (width,), "final_b": (width,), "head": (width, vocab)}
    p = _params(shapes, seed=8)

    t = np.linspace(0.0, 1.0, length)[:, None]
    freqs = np.arange(1, bands + 1)[None, :]
    positions = jnp.asarray(np.concatenate([t, np.sin(2 * np.pi * freqs * t),
                                            np.cos(2 * np.pi * freqs * t)], -1), jnp.float32)
    ramp = jnp.asarray(t, jnp.float32)

    def long_filters(p, l):
        h = jnp.sin(10.0 * (positions @ p[f"filter1_{l}"] + p[f"filter1_{l}_b"]))
        h = jnp.sin(h @ p[f"filter2_{l}"] + p[f"filter2_{l}_b"]) @ p[f"filter3_{l}"]
        rates = jnp.exp(jnp.linspace(0.0, 3.5, 2 * width) + p[f"decay_{l}_b"])
        return h * jnp.exp(-rates * ramp)                                 # (L, 2 * D)

    def causal_fft_conv(u, h):
        """u (B, L, D) convolved along L with h (L, D), zero-padded to 2L."""
        n = 2 * length
        spectrum = jnp.fft.rfft(u, n, axis=1) * jnp.fft.rfft(h, n, axis=0)
        return jnp.fft.irfft(spectrum, n, axis=1)[:, :length]

    def loss_fn(p, text):
        x = p["embed"][text[:, :-1]]                                      # (B, L, D)
        for l in range(layers):
            z = _layer_norm(x, p[f"norm1_{l}_g"], p[f"norm1_{l}_b"]) @ p[f"in_{l}"]
            # the short causal depthwise filter as three shifted multiply-adds
            padded = jnp.pad(z + p[f"in_{l}_b"], ((0, 0), (2, 0), (0, 0)))
            z = sum(padded[:, k:k + length] * p[f"short_{l}"][k] for k in range(3))
            value, gate1, gate2 = jnp.split(z, 3, -1)
            filters = long_filters(p, l)
            y = value
            for order, gate in enumerate((gate1, gate2)):
                h = filters[:, order * width:(order + 1) * width]
                y = gate * (causal_fft_conv(y, h) + p[f"skip_{l}_b"][order] * y)
            x = x + y @ p[f"out_{l}"] + p[f"out_{l}_b"]
            h = _layer_norm(x, p[f"norm2_{l}_g"], p[f"norm2_{l}_b"])
            x = x + jax.nn.gelu(h @ p[f"mlp1_{l}"] + p[f"mlp1_{l}_b"]) @ p[f"mlp2_{l}"] \
                + p[f"mlp2_{l}_b"]
        logits = _layer_norm(x, p["final_g"], p["final_b"]) @ p["head"]
        return _cross_entropy(logits, text[:, 1:])

    rng = np.random.default_rng(8)
    words = rng.integers(97, 123, (batch, length + 1))
    words[:, ::6] = 32
    return _train("muon", loss_fn, p, jnp.asarray(words, jnp.int32))


def attentive_neural_process(tasks: int = 16, context: int = 32, targets: int = 64,
                             width: int = 128, heads: int = 4, latent: int = 64) -> Any:
    """An attentive neural process in bfloat16 regressing random 1-D functions: a
    deterministic path (an MLP of context pairs, self-attention among them, then
    multi-head cross-attention from each target input to the context inputs) and a
    latent path (a mean-pooled set encoder giving a diagonal Gaussian, the posterior
    from context and targets, the prior from the context alone, a reparameterized
    sample), decoded to a Gaussian per target; the loss is the negative log-likelihood
    plus the KL term; Sophia (a Hutchinson Hessian-diagonal estimate each step)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16 = jnp.bfloat16
    f32 = jnp.float32
    shapes: dict[str, tuple[int, ...]] = {}
    for path in ("det", "lat"):
        shapes |= {f"{path}_in": (2, width), f"{path}_in_b": (width,),
                   f"{path}_hid": (width, width), f"{path}_hid_b": (width,)}
    shapes |= {"self_qkv": (width, 3 * width), "self_out": (width, width),
               "self_norm_g": (width,), "self_norm_b": (width,),
               "query_in": (1, width), "query_in_b": (width,), "query_hid": (width, width),
               "cross_q": (width, width), "cross_k": (width, width), "cross_v": (width, width),
               "cross_out": (width, width), "cross_norm_g": (width,), "cross_norm_b": (width,),
               "lat_stats": (width, 2 * latent), "lat_stats_b": (2 * latent,),
               "dec1": (2 * width + latent, width), "dec1_b": (width,),
               "dec2": (width, width), "dec2_b": (width,), "dec_out": (width, 2),
               "dec_out_b": (2,)}
    p = _params(shapes, seed=9, dtype=bf16)

    def mlp(p, path, x):
        h = jax.nn.relu(x @ p[f"{path}_in"] + p[f"{path}_in_b"])
        return h @ p[f"{path}_hid"] + p[f"{path}_hid_b"]

    def attention(q, k, v):
        b, n, _ = q.shape
        split = lambda a: a.reshape(a.shape[0], a.shape[1], heads, width // heads)
        scores = jnp.einsum("bqhd,bkhd->bhqk", split(q), split(k)) / math.sqrt(width // heads)
        weights = jax.nn.softmax(scores.astype(f32), -1).astype(bf16)
        return jnp.einsum("bhqk,bkhd->bqhd", weights, split(v)).reshape(b, n, width)

    def gaussian(p, pairs):
        stats = mlp(p, "lat", pairs).mean(1) @ p["lat_stats"] + p["lat_stats_b"]
        mean, raw = jnp.split(stats.astype(f32), 2, -1)
        return mean, 0.1 + 0.9 * jax.nn.sigmoid(raw)

    def loss_fn(p, xc, yc, xt, yt, noise):
        context_pairs = jnp.concatenate([xc, yc], -1)
        target_pairs = jnp.concatenate([xt, yt], -1)
        r = mlp(p, "det", context_pairs)
        q, k, v = jnp.split(r @ p["self_qkv"], 3, -1)
        r = _layer_norm(r + attention(q, k, v) @ p["self_out"], p["self_norm_g"],
                        p["self_norm_b"])
        embed = lambda x: jax.nn.relu(x @ p["query_in"] + p["query_in_b"]) @ p["query_hid"]
        queries, keys = embed(xt), embed(xc)
        read = attention(queries @ p["cross_q"], keys @ p["cross_k"], r @ p["cross_v"])
        read = _layer_norm(read @ p["cross_out"] + queries, p["cross_norm_g"], p["cross_norm_b"])
        prior_mean, prior_std = gaussian(p, context_pairs)
        post_mean, post_std = gaussian(p, jnp.concatenate([context_pairs, target_pairs], 1))
        z = (post_mean + post_std * noise).astype(bf16)
        z = jnp.broadcast_to(z[:, None], (z.shape[0], targets, latent))
        h = jax.nn.relu(jnp.concatenate([read, z, queries], -1) @ p["dec1"] + p["dec1_b"])
        h = jax.nn.relu(h @ p["dec2"] + p["dec2_b"])
        mean, raw = jnp.split((h @ p["dec_out"] + p["dec_out_b"]).astype(f32), 2, -1)
        std = 0.05 + 0.95 * jax.nn.softplus(raw)
        nll = 0.5 * jnp.square((yt.astype(f32) - mean) / std) + jnp.log(std)
        kl = (jnp.log(prior_std / post_std)
              + (post_std ** 2 + (post_mean - prior_mean) ** 2) / (2 * prior_std ** 2) - 0.5)
        return nll.mean() + kl.sum(-1).mean() / targets

    rng = np.random.default_rng(9)
    xs = rng.uniform(-2, 2, (tasks, context + targets, 1))
    lengths = rng.uniform(0.3, 1.0, (tasks, 1, 1))
    ys = np.sin(xs / lengths + rng.uniform(0, 6, (tasks, 1, 1))) * rng.uniform(0.5, 2, (tasks, 1,
                                                                                       1))
    return _train("sophia", loss_fn, p,
                  jnp.asarray(xs[:, :context], bf16), jnp.asarray(ys[:, :context], bf16),
                  jnp.asarray(xs[:, context:], bf16), jnp.asarray(ys[:, context:], bf16),
                  jnp.asarray(rng.standard_normal((tasks, latent)), f32))


def tacotron_attention(batch: int = 8, text: int = 48, frames: int = 60, mels: int = 40,
                       reduction: int = 2, width: int = 128, symbols: int = 40) -> Any:
    """A Tacotron-2-style text-to-spectrogram model: character embeddings, a 1-D
    convolution stack and a bidirectional LSTM (two `lax.scan`s, one reversed) encode
    the text; an autoregressive decoder under `lax.scan` (teacher-forced through a ReLU
    prenet) runs an attention LSTM, location-sensitive attention whose energies see a
    1-D convolution of the previous and the cumulative alignments, a decoder LSTM and a
    projection to two mel frames and a stop logit per step; mean-squared mel error, a
    stop cross-entropy and a guided-attention penalty on off-diagonal alignment; AdaMod."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    steps = frames // reduction
    half = width // 2
    attend = 64
    shapes: dict[str, tuple[int, ...]] = {"embed": (symbols, width)}
    for j in range(2):
        shapes |= {f"conv_{j}": (5, width, width), f"conv_{j}_b": (width,),
                   f"conv_norm_{j}_g": (width,), f"conv_norm_{j}_b": (width,)}
    shapes |= {"forward": (width + half, 4 * half), "forward_b": (4 * half,),
               "backward": (width + half, 4 * half), "backward_b": (4 * half,),
               "memory": (width, attend), "prenet1": (mels, 64), "prenet1_b": (64,),
               "prenet2": (64, 64), "prenet2_b": (64,),
               "att_lstm": (64 + width + width, 4 * width), "att_lstm_b": (4 * width,),
               "query": (width, attend), "location": (15, 2, 16), "location_proj": (16, attend),
               "energy": (attend,), "dec_lstm": (2 * width + width, 4 * width),
               "dec_lstm_b": (4 * width,), "frame": (2 * width, reduction * mels),
               "frame_b": (reduction * mels,), "stop": (2 * width, 1), "stop_b": (1,)}
    p = _params(shapes, seed=10)

    rng = np.random.default_rng(10)
    text_length = rng.integers(text // 2, text + 1, batch)
    frame_length = rng.integers(frames // 2, frames + 1, batch)
    text_mask = jnp.asarray(np.arange(text)[None] < text_length[:, None])          # (B, N)
    step_index = np.arange(steps)[None]
    stop_target = jnp.asarray(step_index * reduction >= frame_length[:, None] - reduction,
                              jnp.float32)                                          # (B, S)
    frame_mask = jnp.asarray(np.arange(frames)[None] < frame_length[:, None], jnp.float32)
    # guided attention: alignments far from the diagonal n / N = s / S cost more
    n_rel = np.arange(text)[None, None] / text_length[:, None, None]
    s_rel = np.arange(steps)[None, :, None] / (frame_length[:, None, None] / reduction)
    guide = jnp.asarray(1.0 - np.exp(-np.square(n_rel - s_rel) / (2 * 0.2 ** 2)), jnp.float32)

    def sigmoid_cross_entropy(logits, labels):
        return jnp.maximum(logits, 0) - logits * labels + jnp.log1p(jnp.exp(-jnp.abs(logits)))

    def encode(p, characters):
        x = p["embed"][characters]
        for j in range(2):
            x = lax.conv_general_dilated(x, p[f"conv_{j}"], (1,), "SAME",
                                         dimension_numbers=_NWC) + p[f"conv_{j}_b"]
            x = jax.nn.relu(_layer_norm(x, p[f"conv_norm_{j}_g"], p[f"conv_norm_{j}_b"]))
        zeros = jnp.zeros((batch, half))
        mask = text_mask.T[..., None]

        def run(w, b):
            def cell(carry, step):
                h, c = carry
                x_t, keep = step
                h2, c2 = _lstm(x_t, h, c, w, b)
                h, c = jnp.where(keep, h2, h), jnp.where(keep, c2, c)
                return (h, c), h
            return cell

        xs = (x.transpose(1, 0, 2), mask)
        _, ahead = lax.scan(run(p["forward"], p["forward_b"]), (zeros, zeros), xs)
        _, behind = lax.scan(run(p["backward"], p["backward_b"]), (zeros, zeros), xs,
                             reverse=True)
        return jnp.concatenate([ahead, behind], -1).transpose(1, 0, 2)            # (B, N, D)

    def loss_fn(p, characters, target):
        memory = encode(p, characters)
        keys = memory @ p["memory"]
        grouped = target.reshape(batch, steps, reduction * mels)
        previous = jnp.concatenate([jnp.zeros((batch, 1, mels)), grouped[:, :-1, -mels:]], 1)
        pre = jax.nn.relu(previous @ p["prenet1"] + p["prenet1_b"])
        pre = jax.nn.relu(pre @ p["prenet2"] + p["prenet2_b"]).transpose(1, 0, 2)

        def step(carry, x):
            ah, ac, dh, dc, read, align, total = carry
            ah, ac = _lstm(jnp.concatenate([x, read], -1), ah, ac, p["att_lstm"],
                           p["att_lstm_b"])
            history = jnp.stack([align, total], -1)                           # (B, N, 2)
            location = lax.conv_general_dilated(history, p["location"], (1,), "SAME",
                                                dimension_numbers=_NWC) @ p["location_proj"]
            energy = jnp.tanh((ah @ p["query"])[:, None] + keys + location) @ p["energy"]
            align = jax.nn.softmax(jnp.where(text_mask, energy, -1e9), -1)
            read = jnp.einsum("bn,bnd->bd", align, memory)
            dh, dc = _lstm(jnp.concatenate([ah, read], -1), dh, dc, p["dec_lstm"],
                           p["dec_lstm_b"])
            out = jnp.concatenate([dh, read], -1)
            frame = out @ p["frame"] + p["frame_b"]
            stop = (out @ p["stop"] + p["stop_b"])[:, 0]
            return (ah, ac, dh, dc, read, align, total + align), (frame, stop, align)

        zeros_w = jnp.zeros((batch, width))
        first = jnp.zeros((batch, text)).at[:, 0].set(1.0)
        start = (zeros_w, zeros_w, zeros_w, zeros_w, zeros_w, first, first)
        _, (frame, stop, align) = lax.scan(step, start, pre)
        predicted = frame.transpose(1, 0, 2).reshape(batch, frames, mels)
        mel_error = (jnp.square(predicted - target).mean(-1) * frame_mask).sum() / frame_mask.sum()
        stop_loss = jnp.mean(sigmoid_cross_entropy(stop.T, stop_target))
        guided = jnp.mean(align.transpose(1, 0, 2) * guide)
        return mel_error + stop_loss + 10.0 * guided

    spectrogram = np.cumsum(0.3 * rng.standard_normal((batch, frames, mels)), 1)
    return _train("adamod", loss_fn, p,
                  jnp.asarray(rng.integers(1, symbols, (batch, text)), jnp.int32),
                  jnp.asarray(spectrogram, jnp.float32))


def horn_schunck_flow(pairs: int = 4, side: int = 192, levels: int = 3,
                      iterations: int = 40, smoothness: float = 0.5) -> Any:
    """Inference: coarse-to-fine Horn-Schunck optical flow between image pairs: a
    Gaussian blur and image pyramids by 2x2 average pooling; per level the flow from the
    coarser level is upsampled, the second image warped toward the first by bilinear
    sampling (four gathers), brightness gradients taken by a small 2-D convolution, and
    the flow increment relaxed by Jacobi iterations in a `fori_loop` (a weighted 3x3
    neighbourhood average by shifted slices, then the closed-form pointwise update);
    then the warped residual and the flow's mean magnitude."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    blur = np.outer([1, 4, 6, 4, 1], [1, 4, 6, 4, 1]).astype(np.float32)
    blur = jnp.asarray((blur / blur.sum())[:, :, None, None])
    derivative = np.zeros((3, 3, 1, 2), np.float32)
    derivative[1, :, 0, 0] = [-0.5, 0.0, 0.5]                                # d/dx
    derivative[:, 1, 0, 1] = [-0.5, 0.0, 0.5]                                # d/dy
    derivative = jnp.asarray(derivative)

    def conv(x, kernel):
        """x (B, H, W) filtered by kernel (kh, kw, 1, out) -> (B, H, W, out)."""
        return lax.conv_general_dilated(x[..., None], kernel, (1, 1), "SAME",
                                        dimension_numbers=_NHWC)

    def neighbour_average(field):
        """Horn and Schunck's weighted 3x3 average (edges 1/6, corners 1/12) of a
        (B, H, W) field by shifted slices, the border replicated."""
        padded = jnp.pad(field, ((0, 0), (1, 1), (1, 1)), mode="edge")
        h, w = field.shape[1:]
        cut = lambda dy, dx: padded[:, dy:dy + h, dx:dx + w]
        edges = cut(0, 1) + cut(2, 1) + cut(1, 0) + cut(1, 2)
        corners = cut(0, 0) + cut(0, 2) + cut(2, 0) + cut(2, 2)
        return edges / 6.0 + corners / 12.0

    def pool(image):
        b, h, w = image.shape
        return image.reshape(b, h // 2, 2, w // 2, 2).mean((2, 4))

    def warp(image, u, v):
        """image (B, H, W) sampled bilinearly at pixel + (u, v), clamped to the border."""
        b, h, w = image.shape
        ys, xs = jnp.meshgrid(jnp.arange(h, dtype=jnp.float32),
                              jnp.arange(w, dtype=jnp.float32), indexing="ij")
        x = jnp.clip(xs + u, 0.0, w - 1.001)
        y = jnp.clip(ys + v, 0.0, h - 1.001)
        x0, y0 = jnp.floor(x), jnp.floor(y)
        fx, fy = x - x0, y - y0
        flat = image.reshape(b, h * w)

        def at(yy, xx):
            index = (yy.astype(jnp.int32) * w + xx.astype(jnp.int32)).reshape(b, h * w)
            return jnp.take_along_axis(flat, index, 1).reshape(b, h, w)

        top = at(y0, x0) * (1 - fx) + at(y0, x0 + 1) * fx
        bottom = at(y0 + 1, x0) * (1 - fx) + at(y0 + 1, x0 + 1) * fx
        return top * (1 - fy) + bottom * fy

    def run(first, second):
        pyramid = [(conv(first, blur)[..., 0], conv(second, blur)[..., 0])]
        for _ in range(levels - 1):
            pyramid.append(tuple(pool(image) for image in pyramid[-1]))
        u = v = jnp.zeros(pyramid[-1][0].shape)
        for level, (a, c) in enumerate(reversed(pyramid)):
            if level > 0:
                u, v = (2.0 * jnp.repeat(jnp.repeat(f, 2, 1), 2, 2) for f in (u, v))
            warped = warp(c, u, v)
            grads = conv(0.5 * (a + warped), derivative)
            gx, gy = grads[..., 0], grads[..., 1]
            temporal = warped - a
            denominator = smoothness ** 2 + gx * gx + gy * gy

            def jacobi(_, increment, u=u, v=v, gx=gx, gy=gy, temporal=temporal,
                       denominator=denominator):
                du, dv = increment
                mean_u = neighbour_average(u + du) - u
                mean_v = neighbour_average(v + dv) - v
                shrink = (gx * mean_u + gy * mean_v + temporal) / denominator
                return mean_u - gx * shrink, mean_v - gy * shrink

            du, dv = lax.fori_loop(0, iterations, jacobi, (jnp.zeros_like(u), jnp.zeros_like(v)))
            u, v = u + du, v + dv
        a, c = pyramid[0]
        residual = jnp.abs(warp(c, u, v) - a).mean((1, 2))
        return u, v, residual, jnp.sqrt(u * u + v * v).mean((1, 2))

    rng = np.random.default_rng(11)
    first = rng.standard_normal((pairs, side, side))
    second = np.roll(first, (1, 2), (1, 2)) + 0.1 * rng.standard_normal(first.shape)
    return jax.jit(run).lower(jnp.asarray(first, jnp.float32), jnp.asarray(second, jnp.float32))


def floyd_warshall_paths(graphs: int = 4, nodes: int = 256, density: float = 0.08) -> Any:
    """Inference: all-pairs shortest paths on weighted random digraphs by Floyd-Warshall
    in a `fori_loop` over the intermediate node (the k-th row and column cut by
    `dynamic_slice`, a min-plus relaxation, the next-hop table updated where a path
    improved), then the hop counts of the paths from node 0, following the next-hop
    pointers by gathers in a `while_loop` until every walk has arrived, reachability and
    the mean and largest finite distance."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    threshold = float(np.quantile(np.random.default_rng(0).standard_normal(100000),
                                  1.0 - density))

    def run(draws):
        edge = draws > threshold
        eye = jnp.eye(nodes, dtype=bool)
        dist = jnp.where(eye, 0.0, jnp.where(edge, 1.0 + jnp.abs(draws), jnp.inf))
        hop = jnp.where(edge | eye, jnp.arange(nodes, dtype=jnp.int32), -1)

        def relax(k, carry):
            dist, hop = carry
            column = lax.dynamic_slice_in_dim(dist, k, 1, 2)                  # (G, N, 1)
            row = lax.dynamic_slice_in_dim(dist, k, 1, 1)                     # (G, 1, N)
            through = column + row
            better = through < dist
            via = lax.dynamic_slice_in_dim(hop, k, 1, 2)
            return jnp.where(better, through, dist), jnp.where(better, via, hop)

        dist, hop = lax.fori_loop(0, nodes, relax, (dist, hop))
        reachable = jnp.isfinite(dist)

        targets = jnp.arange(nodes)
        from_source = reachable[:, 0, :]                                      # (G, N)

        def unfinished(carry):
            here, hops, rounds = carry
            return (rounds < nodes) & jnp.any(from_source & (here != targets))

        def walk(carry):
            here, hops, rounds = carry
            moving = from_source & (here != targets)
            nxt = jax.vmap(lambda table, at: table[at, targets])(hop, here)  # hop[g, here, j]
            return jnp.where(moving, nxt, here), hops + moving, rounds + 1

        start = (jnp.zeros((graphs, nodes), jnp.int32), jnp.zeros((graphs, nodes), jnp.int32),
                 jnp.zeros((), jnp.int32))
        _, hops, _ = lax.while_loop(unfinished, walk, start)
        finite = jnp.where(reachable, dist, 0.0)
        return (dist, hops, reachable.mean((1, 2)),
                finite.sum((1, 2)) / reachable.sum((1, 2)), finite.max((1, 2)))

    rng = np.random.default_rng(12)
    return jax.jit(run).lower(jnp.asarray(rng.standard_normal((graphs, nodes, nodes)),
                                          jnp.float32))


def cahn_hilliard_spectral(fields: int = 2, side: int = 256, steps: int = 40,
                           dt: float = 0.5, kappa: float = 1.0, bins: int = 48) -> Any:
    """Inference: spinodal decomposition of binary mixtures by a semi-implicit
    Fourier-spectral Cahn-Hilliard solver in a `fori_loop` (2-D real FFTs, the cubic
    chemical potential explicit and the fourth-order term implicit, a 2/3 dealiasing
    mask), then the free energy from spectral gradients and the radially averaged
    structure factor, binned by wavenumber with a `segment_sum`."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(noise):
        ky = 2 * jnp.pi * jnp.fft.fftfreq(side)[:, None]                    # (side, 1)
        kx = 2 * jnp.pi * jnp.fft.rfftfreq(side)[None, :]                   # (1, side/2+1)
        k2 = ky * ky + kx * kx
        keep = ((jnp.abs(ky) < (2 / 3) * jnp.pi) & (kx < (2 / 3) * jnp.pi)).astype(jnp.float32)
        implicit = 1.0 + dt * kappa * k2 * k2

        def step(_, c):
            spectrum = jnp.fft.rfft2(c)
            potential = jnp.fft.rfft2(c ** 3 - c) * keep
            return jnp.fft.irfft2((spectrum - dt * k2 * potential) / implicit, (side, side))

        c = lax.fori_loop(0, steps, step, 0.05 * noise)
        spectrum = jnp.fft.rfft2(c)
        gy = jnp.fft.irfft2(spectrum * 1j * ky, (side, side))
        gx = jnp.fft.irfft2(spectrum * 1j * kx, (side, side))
        energy = jnp.mean(0.25 * (c * c - 1.0) ** 2 + 0.5 * kappa * (gx * gx + gy * gy), (1, 2))
        shell = jnp.minimum((jnp.sqrt(k2) / jnp.sqrt(k2).max() * bins).astype(jnp.int32),
                            bins - 1).ravel()
        count = jax.ops.segment_sum(jnp.ones_like(shell, jnp.float32), shell, bins)
        power = (jnp.abs(spectrum) ** 2 / side ** 2).reshape(fields, -1)
        structure = jax.ops.segment_sum(power.T, shell, bins).T / jnp.maximum(count, 1.0)
        return c, energy, structure

    rng = np.random.default_rng(13)
    return jax.jit(run).lower(jnp.asarray(rng.standard_normal((fields, side, side)),
                                          jnp.float32))


def product_quantization_search(queries: int = 64, database: int = 65536, dim: int = 64,
                                subspaces: int = 8, centroids: int = 256, shortlist: int = 64,
                                top: int = 10) -> Any:
    """Inference: approximate nearest-neighbour search over a product-quantized database:
    per query and subspace a lookup table of squared distances to the codebook, the
    asymmetric distance of every database code summed from gathered table entries, a
    `top_k` shortlist, exact re-ranking of the shortlisted vectors gathered from the
    raw database, and a final `sort` of the re-ranked distances with their ids."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    part = dim // subspaces

    def run(query, codebooks, codes, vectors):
        pieces = query.reshape(queries, subspaces, 1, part)
        table = jnp.sum(jnp.square(pieces - codebooks[None]), -1)          # (Q, M, K)
        approx = jnp.zeros((queries, database), jnp.float32)
        for m in range(subspaces):
            approx = approx + jnp.take(table[:, m], codes[:, m], axis=1)
        _, candidates = lax.top_k(-approx, shortlist)                       # (Q, S)
        exact = jnp.sum(jnp.square(vectors[candidates] - query[:, None]), -1)
        ranked, order = lax.sort((exact, candidates), dimension=1, num_keys=1)
        return ranked[:, :top], order[:, :top], approx.min(1)

    rng = np.random.default_rng(14)
    vectors = rng.standard_normal((database, dim)).astype(np.float32)
    codebooks = rng.standard_normal((subspaces, centroids, part)).astype(np.float32)
    codes = rng.integers(0, centroids, (database, subspaces)).astype(np.int32)
    return jax.jit(run).lower(jnp.asarray(rng.standard_normal((queries, dim)), jnp.float32),
                              jnp.asarray(codebooks), jnp.asarray(codes), jnp.asarray(vectors))


def connected_components(images: int = 2, side: int = 192, max_rounds: int = 400) -> Any:
    """Inference: labelling the 4-connected components of thresholded noise images in a
    `while_loop` that stops when no label changes: each round takes the smallest label
    among foreground neighbours (shifted copies) and then shortcuts labels by pointer
    jumping (two gathers of the label of the label); afterwards component sizes by a
    scatter-add, the number of components, the largest one and a size histogram."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    pixels = side * side
    background = pixels

    def run(field):
        smooth = (field + jnp.roll(field, 1, 1) + jnp.roll(field, 1, 2)) / 3.0
        foreground = smooth > 0.0
        index = jnp.arange(pixels, dtype=jnp.int32).reshape(1, side, side)
        labels = jnp.where(foreground, index, background)

        def neighbour_min(labels):
            padded = jnp.pad(labels, ((0, 0), (1, 1), (1, 1)), constant_values=background)
            best = jnp.minimum(jnp.minimum(padded[:, :-2, 1:-1], padded[:, 2:, 1:-1]),
                               jnp.minimum(padded[:, 1:-1, :-2], padded[:, 1:-1, 2:]))
            return jnp.where(foreground, jnp.minimum(labels, best), background)

        def jump(labels):
            flat = jnp.concatenate([labels.reshape(images, pixels),
                                    jnp.full((images, 1), background, jnp.int32)], 1)
            return jnp.take_along_axis(flat, labels.reshape(images, pixels), 1).reshape(
                labels.shape)

        def changing(carry):
            _, changed, rounds = carry
            return changed & (rounds < max_rounds)

        def round_(carry):
            labels, _, rounds = carry
            new = jump(jump(neighbour_min(labels)))
            return new, jnp.any(new != labels), rounds + 1

        labels, _, rounds = lax.while_loop(changing, round_, (labels, jnp.array(True),
                                                                jnp.zeros((), jnp.int32)))
        flat = labels.reshape(images, pixels)
        sizes = jax.vmap(lambda l: jnp.zeros(pixels + 1, jnp.int32).at[l].add(1))(flat)
        sizes = sizes[:, :pixels]
        roots = (flat == jnp.arange(pixels)) & foreground.reshape(images, pixels)
        histogram = jax.vmap(lambda s: jnp.zeros(16, jnp.int32).at[
            jnp.minimum(jnp.log2(jnp.maximum(s, 1)).astype(jnp.int32), 15)].add(s > 0))(sizes)
        return labels, roots.sum(1), sizes.max(1), histogram, rounds

    rng = np.random.default_rng(15)
    return jax.jit(run).lower(jnp.asarray(rng.standard_normal((images, side, side)),
                                          jnp.float32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "egnn_denoiser/12x24-atoms-l4": egnn_denoiser,
    "conv_tasnet_separation/4x1600-2-speakers": conv_tasnet_separation,
    "timesformer_video/2x8x64px-bf16": timesformer_video,
    "gaussian_splatting_2d/256-on-64x64": gaussian_splatting_2d,
    "densenet_classifier/4x32px-k12-bf16": densenet_classifier,
    "pointer_network_sort/64x16": pointer_network_sort,
    "involution_classifier/4x32px-k5": involution_classifier,
    "hyena_language_model/2x512-d128": hyena_language_model,
    "attentive_neural_process/16x32+64-bf16": attentive_neural_process,
    "tacotron_attention/8x48-chars-30-steps": tacotron_attention,
    "horn_schunck_flow/4x192px-3-levels": horn_schunck_flow,
    "floyd_warshall_paths/4x256-nodes": floyd_warshall_paths,
    "cahn_hilliard_spectral/2x256x256-40": cahn_hilliard_spectral,
    "product_quantization_search/64x65536-m8": product_quantization_search,
    "connected_components/2x192px-max400": connected_components,
}
