"""The thirty-second never-seen set: programs written on 2026-11-28, after the thirty-first
set (benchmarks/never_seen_31/), and never used to choose anything: no feature, default,
fallback threshold or model was picked by looking at them. They are here to judge one
trained model, once. The SHA-256 of this file is committed next to it (`SHA256`), and
`fresh_programs.py --set never-seen-32` refuses to run when the two disagree, since an
edited set has been seen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the
thirty-one earlier never-seen sets contain, all small or mid-sized. Seven are training
steps: one federates four clients whose local steps run in a `lax.scan` under `vmap`
(MatchboxNet), one picks under `lax.cond` between a large-batch gradient and a recursive
correction of the last estimate (the Legendre memory unit), one integrates a controlled
differential equation by RK4 inside a `lax.scan` (the neural CDE), and two run in
bfloat16 over float32 master weights (CoAtNet and Hawk). Five of the fifteen convolve by
feature groups (depthwise): in one dimension with windows of 4 (Hawk) and of 11 to 29
(MatchboxNet), in two with square windows of 3 (CoAtNet) and of 3, 5, 7 and 9 side by side
(MixNet), and with 1x7, 7x1, 1x9 and 9x1 windows inside a `fori_loop` (coherence-enhancing
diffusion).

MixNet classifies 48x48 oriented gratings inside discs and squares by inverted
residual blocks whose depthwise stage is a MixConv (the expanded channels split into two
to four groups, convolved by 3x3, 5x5, 7x7 and 9x9 depthwise kernels and concatenated),
with squeeze-excitation, stochastic depth and label smoothing; Nesterov momentum SGD is
followed by a proximal group-lasso step that shrinks every output channel of every
pointwise matrix toward zero. GraphGPS regresses three structural counts of small
molecule-like graphs padded to 32 nodes: random-walk structural encodings (the diagonals
of sixteen powers of the walk matrix, a `lax.scan`), then four layers that each add a GIN
message-passing update and a masked multi-head attention over the whole graph, trained by
AdamW under a warmup-cosine schedule. A Legendre memory unit reads 14x14 stroke glyphs
pixel by pixel in a fixed permuted order (a `lax.scan` of 196 steps with a 64-dimensional
Legendre memory discretized by zero-order hold), trained by SPIDER: a normalized step
along a variance-reduced estimator that adds the difference of the gradients at the new
and the previous weights, refreshed from a larger batch every eighth step under
`lax.cond`. MatchboxNet spots twelve keywords in 40-feature frame sequences by
time-channel separable 1-D convolutions (depthwise kernels of 11, 13, 15, 17 and a
dilated 29, each followed by a pointwise matrix and batch norm) for four clients with
their own channel tilts, federated by FedAvgM: two local SGD steps each in a `lax.scan`
under `vmap`, and server momentum on the averaged change. A neural controlled
differential equation tells clockwise from counter-clockwise spirals observed at 48
irregular times: cubic Hermite interpolation with backward differences, one RK4 step per
observation interval in a `lax.scan`, the vector field an MLP that returns a 32x3 matrix;
Adam. CoAtNet in bfloat16 stacks two MBConv stages (depthwise 3x3, stride 2,
squeeze-excitation) under two transformer blocks whose attention adds a learned
relative-position bias gathered from a 15x15 table; AdamW. Hawk in bfloat16 learns
associative recall (64 key-value pairs, then 64 queries) by residual blocks of a gated
real-gated linear recurrent unit (a causal depthwise 1-D convolution of width 4, then the
RG-LRU as a float32 `lax.scan` over 256 steps) and a gated MLP; Adam with global-norm
clipping.

Eight are scientific or algorithmic steps without a gradient: level-set advection of
Zalesak's slotted disc in rigid rotation and of a circle in a reversing single-vortex
flow by fifth-order WENO derivatives and third-order TVD Runge-Kutta (a `fori_loop` of 24
steps), then Sussman reinitialization by a Godunov scheme (a `fori_loop` of 8), areas and
perimeters; weighted least-squares phase unwrapping of four noisy wrapped surfaces
(Ghiglia and Romero: quality weights from a `reduce_window` of the phase-derivative
variance, a `fori_loop` of eight preconditioned conjugate-gradient iterations whose
preconditioner solves the Neumann Poisson problem by real 2-D FFTs of the even
extension, residue counts); LU factorization with partial pivoting of 512 dense 48x48
systems of three kinds (a `fori_loop` over the columns with `argmax` pivots, row
exchanges by gathers and masked rank-one updates; forward and back substitution in
`fori_loop`s, one step of iterative refinement, log-determinants, pivot growth and a
condition estimate); Weickert's coherence-enhancing diffusion of three fingerprint-like
ridge images (separable depthwise Gaussian smoothing of the image and of the structure
tensor, a closed-form 2x2 eigen decomposition and an explicit flux step, six steps in a
`fori_loop`; then an orientation histogram by scatter-adds); Conway's Game of Life on
eight 384x384 tori packed 32 cells to a uint32 word (neighbours by shifts and rolls,
counted by bit-sliced adders, 64 generations in a `fori_loop`, then `population_count`
censuses, extents by count-leading-zeros and an XOR hash); a bitonic sorting network of
float32 keys made sortable as uint32 by bit flips (78 compare-exchange stages in a
`fori_loop`, partners by XOR and gathers, ties broken by index), checked against `sort`,
with the inverse permutation by a scatter; CORDIC in Q2.29 int32 fixed point for sines
and cosines, two-argument arc tangents and magnitudes, and hyperbolic exponentials
(arithmetic right shifts by the loop counter in three `fori_loop`s), with errors against
float32; and SLIC superpixels of four 128x128 colour mosaics (Lab conversion, seeds
moved to the lowest gradient of their 3x3 neighbourhood by gathers, six iterations of
assignment among the nine nearest seeds by a gather and an `argmin` and of centre updates
by scatter-adds, then boundaries, colour error and `top_k` of segment sizes).

The updates new to these sets: the proximal group-lasso step (over Nesterov momentum),
SPIDER and FedAvgM.
"""

from __future__ import annotations

import math
from typing import Any, Callable


def _weights(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
             scale: float = 1.0) -> dict[str, Any]:
    """Starting weights for the named shapes, drawn in order from one numpy generator: a
    name ending in `_b` (a bias or shift) or `_z` (a weight that starts at zero) gets
    zeros, one ending in `_g` (a gain) ones, any other a Gaussian of standard deviation
    scale / sqrt(fan-in), the fan-in being the product of every axis but the last."""
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for name, shape in shapes.items():
        if name.endswith(("_b", "_z")):
            value = np.zeros(shape, np.float32)
        elif name.endswith("_g"):
            value = np.ones(shape, np.float32)
        else:
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else 1
            value = rng.standard_normal(shape).astype(np.float32) * (scale / math.sqrt(fan_in))
        out[name] = jnp.asarray(value, dtype or jnp.float32)
    return out


def _normalize(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """x standardized over `axes` with float32 statistics, scaled and shifted, returned
    in x's own dtype (layer norm over the features, batch norm by the batch's own
    statistics over every axis but the features)."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    mean = jnp.mean(x32, axes, keepdims=True)
    var = jnp.mean(jnp.square(x32 - mean), axes, keepdims=True)
    y = (x32 - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32) + shift.astype(jnp.float32)
    return y.astype(x.dtype)


def _rms_norm(x: Any, gain: Any) -> Any:
    """x divided by its root mean square over the features (float32), times the gain, in
    x's own dtype."""
    import jax.numpy as jnp
    from jax import lax

    x32 = x.astype(jnp.float32)
    y = x32 * lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-6) * gain.astype(jnp.float32)
    return y.astype(x.dtype)


def _xent(logits: Any, labels: Any) -> Any:
    """Softmax cross-entropy of integer labels, per position, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME", dilation: int = 1,
          groups: int = 1) -> Any:
    """A channels-last convolution in one or two dimensions (the kernel's rank decides),
    depthwise when `groups` is the input's channel count."""
    from jax import lax

    dims = w.ndim - 2
    spec = {1: ("NWC", "WIO", "NWC"), 2: ("NHWC", "HWIO", "NHWC")}[dims]
    return lax.conv_general_dilated(x, w, (stride,) * dims, padding,
                                    rhs_dilation=(dilation,) * dims, dimension_numbers=spec,
                                    feature_group_count=groups)


def _adam(params: Any, grads: Any, m: Any, v: Any, t: Any, rate: Any, b1: float = 0.9,
          b2: float = 0.999, decay: float = 0.0) -> tuple[Any, Any, Any]:
    """One bias-corrected Adam step, with decoupled weight decay when `decay` is set; t is
    the new step count."""
    import jax
    import jax.numpy as jnp

    m = jax.tree.map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v_, g: b2 * v_ + (1 - b2) * g * g, v, grads)
    tf = t.astype(jnp.float32)
    c1, c2 = 1 - b1 ** tf, 1 - b2 ** tf
    params = jax.tree.map(lambda w, m_, v_: w - rate * (m_ / c1 / (jnp.sqrt(v_ / c2) + 1e-8)
                                                        + decay * w), params, m, v)
    return params, m, v


def _zeros_like(tree: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return jax.tree.map(lambda w: jnp.zeros(w.shape, jnp.float32), tree)


def _global_norm(tree: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return jnp.sqrt(sum(jnp.sum(jnp.square(g.astype(jnp.float32)))
                        for g in jax.tree.leaves(tree)))


def _gratings(rng: Any, count: int, side: int, classes: int = 10) -> tuple[Any, Any]:
    """numpy float32 RGB pictures (count, side, side, 3) in [0, 1] and int32 labels: a
    sinusoidal grating in one of five orientations (the label modulo 5, give or take a
    few degrees) at a random pitch and phase, seen through a disc or a square (the label
    over 5) placed and sized at random, in a random colour over a graded ground, with
    noise."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    angle = (labels % 5) * (np.pi / 5) + rng.normal(0, 0.08, count)
    pitch = rng.uniform(4, 8, count)[:, None, None]
    phase = rng.uniform(0, 2 * np.pi, count)[:, None, None]
    cx, cy = rng.uniform(0.35, 0.65, (2, count, 1, 1))
    radius = rng.uniform(0.22, 0.34, (count, 1, 1))
    dx, dy = xx[None] - cx, yy[None] - cy
    across = np.cos(angle)[:, None, None] * dx + np.sin(angle)[:, None, None] * dy
    wave = 0.5 + 0.5 * np.sin(2 * np.pi * pitch * across + phase)
    square = ((labels // 5) % 2 == 1)[:, None, None]
    inside = np.where(square, np.maximum(np.abs(dx), np.abs(dy)) < 0.85 * radius,
                      dx ** 2 + dy ** 2 < radius ** 2)
    colour = rng.uniform(0.35, 1.0, (count, 1, 1, 3))
    tilt_x, tilt_y = rng.uniform(-1, 1, (2, count, 1, 1))
    ground = rng.uniform(0.0, 0.4, (count, 1, 1, 3)) + 0.2 * (dx * tilt_x + dy * tilt_y)[..., None]
    pictures = np.where(inside[..., None], colour * (0.3 + 0.7 * wave[..., None]), ground)
    pictures = pictures + 0.05 * rng.standard_normal(pictures.shape)
    return np.clip(pictures, 0, 1).astype(np.float32), labels.astype(np.int32)


def mixnet_group_lasso(batch: int = 8, side: int = 48, classes: int = 10, rate: float = 0.05,
                       momentum: float = 0.9, lam: float = 2e-3, survive: float = 0.85,
                       smoothing: float = 0.1) -> Any:
    """A MixNet (Tan and Le) classifies 48x48 oriented gratings seen through discs and
    squares: a strided 3x3 stem, then five inverted residual blocks, each a pointwise
    expansion, a MixConv (the expanded channels split into equal groups convolved by
    depthwise kernels of 3x3 and 5x5, of 3x3 to 7x7 or of 3x3 to 9x9, two of the blocks
    strided), squeeze-excitation in the last three, a linear pointwise projection and a
    residual dropped per example by stochastic depth; batch norm by batch statistics and
    swish throughout, a pooled pointwise head, label-smoothed cross-entropy. The step is
    SGD with Nesterov momentum followed by the proximal operator of a group lasso: every
    output channel (column) of every pointwise matrix is shrunk toward zero by its norm,
    and those that reach zero are counted."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    # (input channels, expanded, output, depthwise kernels, stride, squeeze-excitation)
    config = ((16, 48, 16, (3, 5), 1, False),
              (16, 48, 24, (3, 5, 7), 2, False),
              (24, 72, 24, (3, 5, 7), 1, True),
              (24, 96, 40, (3, 5, 7, 9), 2, True),
              (40, 160, 40, (3, 5, 7, 9), 1, True))
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, 16), "stem_g": (16,),
                                          "stem_b": (16,)}
    for i, (cin, mid, cout, kernels, _, squeeze) in enumerate(config):
        shapes.update({f"x{i}": (cin, mid), f"x{i}_g": (mid,), f"x{i}_b": (mid,)})
        shapes.update({f"d{i}k{k}": (k, k, 1, mid // len(kernels)) for k in kernels})
        shapes.update({f"d{i}_g": (mid,), f"d{i}_b": (mid,)})
        if squeeze:
            shapes.update({f"s{i}": (mid, mid // 8), f"s{i}_b": (mid // 8,),
                           f"e{i}": (mid // 8, mid), f"e{i}_b": (mid,)})
        shapes.update({f"p{i}": (mid, cout), f"p{i}_g": (cout,), f"p{i}_b": (cout,)})
    shapes.update({"head": (40, 160), "head_g": (160,), "head_b": (160,),
                   "fc": (160, classes), "fc_b": (classes,)})
    params = _weights(shapes, seed=77)
    grouped = [k for k in shapes if k[0] in "xp" and not k.endswith(("_g", "_b"))] + ["head"]

    def swish(x):
        return x * jax.nn.sigmoid(x)

    def forward(p, x, key):
        x = swish(_normalize(_conv(x, p["stem"], 2), p["stem_g"], p["stem_b"], (0, 1, 2)))
        keys = jax.random.split(key, len(config))
        for i, (cin, _, cout, kernels, stride, squeeze) in enumerate(config):
            h = swish(_normalize(x @ p[f"x{i}"], p[f"x{i}_g"], p[f"x{i}_b"], (0, 1, 2)))
            parts = jnp.split(h, len(kernels), -1)
            h = jnp.concatenate([_conv(part, p[f"d{i}k{k}"], stride, groups=part.shape[-1])
                                 for part, k in zip(parts, kernels)], -1)
            h = swish(_normalize(h, p[f"d{i}_g"], p[f"d{i}_b"], (0, 1, 2)))
            if squeeze:
                s = swish(jnp.mean(h, (1, 2)) @ p[f"s{i}"] + p[f"s{i}_b"])
                h = h * jax.nn.sigmoid(s @ p[f"e{i}"] + p[f"e{i}_b"])[:, None, None, :]
            h = _normalize(h @ p[f"p{i}"], p[f"p{i}_g"], p[f"p{i}_b"], (0, 1, 2))
            if stride == 1 and cin == cout:
                keep = jax.random.bernoulli(keys[i], survive, (x.shape[0], 1, 1, 1))
                h = x + h * keep.astype(h.dtype) / survive
            x = h
        x = swish(_normalize(x @ p["head"], p["head_g"], p["head_b"], (0, 1, 2)))
        return jnp.mean(x, (1, 2)) @ p["fc"] + p["fc_b"]

    def loss_fn(p, images, labels, key):
        logits = forward(p, images, key)
        logp = jax.nn.log_softmax(logits, -1)
        nll = -jnp.take_along_axis(logp, labels[:, None], -1)[:, 0]
        loss = jnp.mean((1 - smoothing) * nll - smoothing * jnp.mean(logp, -1))
        return loss, jnp.mean(jnp.argmax(logits, -1) == labels)

    def step(p, velocity, images, labels, key):
        (loss, accuracy), g = jax.value_and_grad(loss_fn, has_aux=True)(p, images, labels, key)
        velocity = jax.tree.map(lambda v, d: momentum * v + d, velocity, g)
        p = dict(jax.tree.map(lambda w, v, d: w - rate * (d + momentum * v), p, velocity, g))
        dead = []
        for k in grouped:
            w = p[k]
            norm = jnp.sqrt(jnp.sum(w * w, 0, keepdims=True))
            threshold = rate * lam * math.sqrt(w.shape[0])
            p[k] = w * jnp.maximum(0.0, 1.0 - threshold / jnp.maximum(norm, 1e-12))
            dead.append(jnp.sum(norm <= threshold))
        return p, velocity, loss, accuracy, sum(dead)

    rng = np.random.default_rng(77)
    pictures, labels = _gratings(rng, batch, side, classes)
    return jax.jit(step).lower(params, _zeros_like(params), jnp.asarray(pictures),
                               jnp.asarray(labels), jax.random.PRNGKey(77))


def _molecule_graphs(rng: Any, count: int, nodes: int, kinds: int = 8
                     ) -> tuple[Any, Any, Any, Any]:
    """numpy padded graphs: int32 atom kinds (count, nodes), 0 for padding; float32
    symmetric adjacency (count, nodes, nodes); a float32 node mask; and float32 targets
    (count, 3), standardized: the cycle rank, the number of triangles and the number of
    branching atoms of kind 1. Each graph has between half and all of the nodes, joined
    into a tree whose parents lie at most four places back (chain-like), plus up to three
    ring closures between atoms of degree below four; atoms of degree three or more take
    one of the first three kinds."""
    import numpy as np

    types = np.zeros((count, nodes), np.int32)
    adjacency = np.zeros((count, nodes, nodes), np.float32)
    mask = np.zeros((count, nodes), np.float32)
    targets = np.zeros((count, 3), np.float32)
    for g in range(count):
        n = int(rng.integers(nodes // 2, nodes + 1))
        a = np.zeros((n, n))
        for i in range(1, n):
            j = int(rng.integers(max(0, i - 4), i))
            a[i, j] = a[j, i] = 1
        for _ in range(int(rng.integers(0, 4))):
            i, j = rng.choice(n, 2, replace=False)
            if a[i, j] == 0 and a[i].sum() < 4 and a[j].sum() < 4:
                a[i, j] = a[j, i] = 1
        degree = a.sum(1)
        kind = np.where(degree >= 3, rng.integers(0, 3, n), rng.integers(2, kinds, n))
        types[g, :n] = kind + 1
        adjacency[g, :n, :n] = a
        mask[g, :n] = 1
        cube = np.linalg.matrix_power(a, 3)
        targets[g] = [a.sum() / 2 - n + 1, np.trace(cube) / 6, np.sum(kind[degree >= 3] == 0)]
    targets = (targets - targets.mean(0)) / (targets.std(0) + 1e-6)
    return types, adjacency, mask, targets.astype(np.float32)


def graphgps_rwse(graphs: int = 32, nodes: int = 32, dim: int = 96, layers: int = 4,
                  heads: int = 4, walk: int = 16, kinds: int = 8, rate: float = 1e-3,
                  warmup: int = 100, total: int = 2000, step_count: int = 40) -> Any:
    """GraphGPS (Rampasek et al.) regresses three structural counts of 32 small graphs
    padded to 32 nodes. Random-walk structural encodings are computed in the step: the
    probability of returning to each node after 1 to 16 steps of the random walk (the
    diagonals of the walk matrix's powers, a `lax.scan` of batched matrix products),
    projected and added to the atom-kind embeddings. Each of four layers adds a local
    GIN update ((1 + eps) h + A h through a two-layer MLP, with residual and layer norm)
    and a global one (four-head attention over the graph's real nodes, residual and layer
    norm), then a feed-forward block; the readout concatenates masked mean and sum
    pooling. Smooth-L1 loss; AdamW under a linear warmup and cosine decay of the rate,
    computed from the step count."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"embed": (kinds + 1, dim), "rw": (walk, dim),
                                          "rw_b": (dim,)}
    for l in range(layers):
        shapes.update({f"eps{l}_z": (1,), f"m{l}a": (dim, dim), f"m{l}a_b": (dim,),
                       f"m{l}b": (dim, dim), f"m{l}b_b": (dim,), f"n{l}a_g": (dim,),
                       f"n{l}a_b": (dim,), f"qkv{l}": (dim, 3 * dim), f"o{l}": (dim, dim),
                       f"o{l}_b": (dim,), f"n{l}b_g": (dim,), f"n{l}b_b": (dim,),
                       f"f{l}a": (dim, 2 * dim), f"f{l}a_b": (2 * dim,),
                       f"f{l}b": (2 * dim, dim), f"f{l}b_b": (dim,), f"n{l}c_g": (dim,),
                       f"n{l}c_b": (dim,)})
    shapes.update({"r1": (2 * dim, dim), "r1_b": (dim,), "r2": (dim, 3), "r2_b": (3,)})
    params = _weights(shapes, seed=78)
    width = dim // heads

    def encodings(adjacency):
        degree = jnp.sum(adjacency, -1, keepdims=True)
        walk_matrix = adjacency / jnp.maximum(degree, 1.0)

        def one(power, _):
            power = power @ walk_matrix
            return power, jnp.diagonal(power, axis1=-2, axis2=-1)

        eye = jnp.broadcast_to(jnp.eye(nodes, dtype=jnp.float32), adjacency.shape)
        _, landing = lax.scan(one, eye, None, length=walk)             # (walk, graphs, nodes)
        return jnp.moveaxis(landing, 0, -1)

    def forward(p, types, adjacency, mask, landing):
        h = p["embed"][types] + landing @ p["rw"] + p["rw_b"]
        live = mask[..., None]
        for l in range(layers):
            local = (1 + p[f"eps{l}_z"]) * h + adjacency @ h
            local = jax.nn.relu(local @ p[f"m{l}a"] + p[f"m{l}a_b"]) @ p[f"m{l}b"] + p[f"m{l}b_b"]
            local = _normalize(h + local, p[f"n{l}a_g"], p[f"n{l}a_b"])
            q, k, v = jnp.split((h @ p[f"qkv{l}"]).reshape(graphs, nodes, heads, 3 * width), 3, -1)
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(width)
            scores = jnp.where(mask[:, None, None, :] > 0, scores, -1e9)
            mixed = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1), v)
            mixed = mixed.reshape(graphs, nodes, dim) @ p[f"o{l}"] + p[f"o{l}_b"]
            attended = _normalize(h + mixed, p[f"n{l}b_g"], p[f"n{l}b_b"])
            h = local + attended
            ffn = jax.nn.relu(h @ p[f"f{l}a"] + p[f"f{l}a_b"]) @ p[f"f{l}b"] + p[f"f{l}b_b"]
            h = _normalize(h + ffn, p[f"n{l}c_g"], p[f"n{l}c_b"]) * live
        count = jnp.maximum(jnp.sum(mask, 1, keepdims=True), 1.0)
        pooled = jnp.concatenate([jnp.sum(h, 1) / count, jnp.sum(h, 1) / nodes], -1)
        return jax.nn.relu(pooled @ p["r1"] + p["r1_b"]) @ p["r2"] + p["r2_b"]

    def loss_fn(p, types, adjacency, mask, landing, targets):
        error = jnp.abs(forward(p, types, adjacency, mask, landing) - targets)
        return jnp.mean(jnp.where(error < 1.0, 0.5 * error * error, error - 0.5))

    def step(p, opt, types, adjacency, mask, targets):
        m, v, t = opt
        landing = encodings(adjacency)
        loss, g = jax.value_and_grad(loss_fn)(p, types, adjacency, mask, landing, targets)
        t = t + 1
        tf = t.astype(jnp.float32)
        schedule = jnp.minimum(tf / warmup, 1.0) * 0.5 * (
            1 + jnp.cos(jnp.pi * jnp.minimum(tf / total, 1.0)))
        p, m, v = _adam(p, g, m, v, t, rate * schedule, decay=0.01)
        return p, (m, v, t), loss

    rng = np.random.default_rng(78)
    arrays = _molecule_graphs(rng, graphs, nodes, kinds)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(step_count, jnp.int32))
    return jax.jit(step).lower(params, opt, *(jnp.asarray(a) for a in arrays))


def _glyphs(rng: Any, count: int, side: int, classes: int = 10) -> tuple[Any, Any]:
    """numpy float32 grey glyphs (count, side, side) in [0, 1] and int32 labels: each
    class is a polyline through four anchor points fixed per class; each glyph jitters
    the points, draws the line at its own thickness and adds noise."""
    import numpy as np

    anchors = np.random.default_rng(4000 + classes).uniform(0.15, 0.85, (classes, 4, 2))
    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    labels = rng.integers(0, classes, count)
    points = anchors[labels] + rng.normal(0, 0.04, (count, 4, 2))
    width = rng.uniform(0.05, 0.09, (count, 1, 1))
    gap = np.full((count, side, side), np.inf)
    for s in range(3):
        ax, ay = points[:, s, 0, None, None], points[:, s, 1, None, None]
        dx = points[:, s + 1, 0, None, None] - ax
        dy = points[:, s + 1, 1, None, None] - ay
        t = np.clip(((xx - ax) * dx + (yy - ay) * dy) / (dx * dx + dy * dy + 1e-9), 0, 1)
        gap = np.minimum(gap, np.hypot(xx - ax - t * dx, yy - ay - t * dy))
    ink = np.clip(1.5 - gap / width, 0, 1)
    ink = np.clip(ink + 0.05 * rng.standard_normal(ink.shape), 0, 1)
    return ink.astype(np.float32), labels.astype(np.int32)


def _legendre_memory(order: int, theta: float) -> tuple[Any, Any]:
    """The Legendre delay system of a memory unit (Voelker, Kajic and Eliasmith) over a
    window of `theta` steps, discretized by zero-order hold over one step: (A_bar, B_bar)
    as numpy float32, the matrix exponential by scaling and squaring of a Taylor series."""
    import numpy as np

    q = np.arange(order)
    r = ((2 * q + 1) / theta)[:, None]
    i, j = np.meshgrid(q, q, indexing="ij")
    a = r * np.where(i < j, -1.0, (-1.0) ** (i - j + 1))
    b = r[:, 0] * (-1.0) ** q
    squarings = max(0, int(np.ceil(np.log2(max(np.abs(a).sum(1).max(), 1e-9)))) + 1)
    scaled = a / 2.0 ** squarings
    term, total = np.eye(order), np.eye(order)
    for k in range(1, 18):
        term = term @ scaled / k
        total = total + term
    for _ in range(squarings):
        total = total @ total
    b_bar = np.linalg.solve(a, (total - np.eye(order)) @ b)
    return total.astype(np.float32), b_bar.astype(np.float32)


def lmu_spider(batch: int = 32, anchor: int = 128, side: int = 14, order: int = 64,
               hidden: int = 96, classes: int = 10, rate: float = 0.05, clip: float = 1.0,
               refresh: int = 8, step_count: int = 5) -> Any:
    """A Legendre memory unit (Voelker, Kajic and Eliasmith) classifies 14x14 stroke
    glyphs read one pixel at a time in a fixed random order: a `lax.scan` of 196 steps
    whose cell projects the pixel, the hidden state and the memory to one input u, moves
    the 64-dimensional memory by the zero-order-hold Legendre delay system (m A^T + u B)
    and updates a tanh hidden state of 96 units from pixel, hidden state and memory. The
    step is SPIDER (Fang, Li, Lin and Zhang): under `lax.cond`, every eighth step the
    estimator is refreshed by the gradient of a batch of 128, otherwise it is corrected
    by the difference of the minibatch gradients at the current and the previous
    weights (two gradients); the weights move by a normalized step along it."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    steps = side * side
    a_bar, b_bar = _legendre_memory(order, float(steps))
    transition, push = jnp.asarray(a_bar.T), jnp.asarray(b_bar[None, :])
    permutation = np.random.default_rng(79).permutation(steps)
    shapes = {"ex": (1, 1), "eh": (hidden, 1), "em": (order, 1), "wx": (1, hidden),
              "wh": (hidden, hidden), "wm": (order, hidden), "w_b": (hidden,),
              "out": (hidden, classes), "out_b": (classes,)}
    params = _weights(shapes, seed=79)

    def loss_fn(p, pixels, labels):
        xs = jnp.swapaxes(pixels, 0, 1)[..., None]                       # (steps, batch, 1)

        def cell(carry, x):
            h, m = carry
            u = x @ p["ex"] + h @ p["eh"] + m @ p["em"]
            m = m @ transition + u * push
            h = jnp.tanh(x @ p["wx"] + h @ p["wh"] + m @ p["wm"] + p["w_b"])
            return (h, m), None

        n = pixels.shape[0]
        (h, _), _ = lax.scan(cell, (jnp.zeros((n, hidden)), jnp.zeros((n, order))), xs)
        logits = h @ p["out"] + p["out_b"]
        return jnp.mean(_xent(logits, labels)), jnp.mean(jnp.argmax(logits, -1) == labels)

    grad_of = jax.value_and_grad(loss_fn, has_aux=True)

    def step(p, previous, estimate, t, pixels, labels, anchor_pixels, anchor_labels):
        def refreshed():
            (loss, accuracy), g = grad_of(p, anchor_pixels, anchor_labels)
            return g, loss, accuracy

        def corrected():
            (loss, accuracy), here = grad_of(p, pixels, labels)
            _, there = grad_of(previous, pixels, labels)
            return (jax.tree.map(lambda e, a, b: e + a - b, estimate, here, there),
                    loss, accuracy)

        estimate, loss, accuracy = lax.cond(t % refresh == 0, refreshed, corrected)
        norm = _global_norm(estimate)
        scale = rate * jnp.minimum(1.0, clip / (norm + 1e-12))
        new = jax.tree.map(lambda w, e: w - scale * e, p, estimate)
        return new, p, estimate, t + 1, loss, accuracy, norm

    rng = np.random.default_rng(79)
    glyphs, labels = _glyphs(rng, batch + anchor, side)
    pixels = glyphs.reshape(batch + anchor, steps)[:, permutation]
    previous = {k: w + jnp.asarray(rng.normal(0, 0.01, w.shape).astype(np.float32))
                for k, w in params.items()}
    estimate = {k: jnp.asarray(rng.normal(0, 0.01, w.shape).astype(np.float32))
                for k, w in params.items()}
    return jax.jit(step).lower(params, previous, estimate, jnp.asarray(step_count, jnp.int32),
                               jnp.asarray(pixels[:batch]), jnp.asarray(labels[:batch]),
                               jnp.asarray(pixels[batch:]), jnp.asarray(labels[batch:]))


def _keywords(rng: Any, count: int, frames: int, features: int, classes: int, tilt: float
              ) -> tuple[Any, Any]:
    """numpy float32 feature sequences (count, frames, features) and int32 labels: every
    keyword is three phones (from sixteen fixed feature templates) spoken one after the
    other over a random stretch of the clip, with random phone boundaries, in noise; the
    client's channel scales the features by a tilt across them and shifts them."""
    import numpy as np

    table = np.random.default_rng(5000 + classes)
    phones = table.normal(0, 1, (16, features))
    words = table.integers(0, 16, (classes, 3))
    labels = rng.integers(0, classes, count)
    out = 0.3 * rng.standard_normal((count, frames, features))
    for i, label in enumerate(labels):
        start = int(rng.integers(0, frames // 4))
        length = int(rng.integers(frames // 2, frames - start + 1))
        cuts = np.sort(rng.uniform(0.2, 0.8, 2))
        bounds = start + (np.array([0.0, cuts[0], cuts[1], 1.0]) * length).astype(int)
        for s in range(3):
            out[i, bounds[s]:bounds[s + 1]] += phones[words[label, s]]
    out = out * (1 + tilt * np.linspace(-1, 1, features)) + 0.5 * tilt
    return out.astype(np.float32), labels.astype(np.int32)


def matchboxnet_fedavgm(clients: int = 4, local: int = 2, batch: int = 4, frames: int = 50,
                        features: int = 40, channels: int = 48,
                        kernels: tuple[int, ...] = (13, 15, 17), classes: int = 12,
                        rate: float = 0.05, server_rate: float = 1.0, beta: float = 0.9) -> Any:
    """MatchboxNet (Majumdar and Ginsburg) spots twelve keywords in sequences of 50
    frames of 40 features: a prologue (a depthwise 1-D convolution of width 11 over the
    features, then pointwise to 48 channels), three residual blocks of two time-channel
    separable sub-blocks each (depthwise widths 13, 15 and 17, each followed by a
    pointwise matrix and batch norm; the residual a pointwise matrix and batch norm), an
    epilogue of a dilated depthwise convolution of width 29 and two pointwise layers,
    pointwise class scores averaged over time. Four clients, each with its own channel
    tilt, are federated by FedAvgM (Hsu, Qi and Brown): under `vmap`, every client takes
    two local SGD steps in a `lax.scan` from the server weights; the server treats the
    mean change as a gradient with momentum."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"pro_d": (11, 1, features),
                                          "pro_p": (features, channels),
                                          "pro_g": (channels,), "pro_b": (channels,)}
    for b, k in enumerate(kernels):
        shapes.update({f"r{b}": (channels, channels), f"r{b}_g": (channels,),
                       f"r{b}_b": (channels,)})
        for s in range(2):
            shapes.update({f"b{b}s{s}_d": (k, 1, channels), f"b{b}s{s}_p": (channels, channels),
                           f"b{b}s{s}_g": (channels,), f"b{b}s{s}_b": (channels,)})
    shapes.update({"e1_d": (29, 1, channels), "e1_p": (channels, 2 * channels),
                   "e1_g": (2 * channels,), "e1_b": (2 * channels,),
                   "e2": (2 * channels, 2 * channels), "e2_g": (2 * channels,),
                   "e2_b": (2 * channels,), "cls": (2 * channels, classes),
                   "cls_b": (classes,)})
    params = _weights(shapes, seed=80)

    def bn(x, p, name):
        return _normalize(x, p[f"{name}_g"], p[f"{name}_b"], (0, 1))

    def forward(p, x):
        x = jax.nn.relu(bn(_conv(x, p["pro_d"], groups=features) @ p["pro_p"], p, "pro"))
        for b in range(len(kernels)):
            residual = bn(x @ p[f"r{b}"], p, f"r{b}")
            y = x
            for s in range(2):
                y = bn(_conv(y, p[f"b{b}s{s}_d"], groups=channels) @ p[f"b{b}s{s}_p"], p,
                       f"b{b}s{s}")
                y = jax.nn.relu(y + residual if s == 1 else y)
            x = y
        x = _conv(x, p["e1_d"], dilation=2, groups=channels)
        x = jax.nn.relu(bn(x @ p["e1_p"], p, "e1"))
        x = jax.nn.relu(bn(x @ p["e2"], p, "e2"))
        return jnp.mean(x @ p["cls"] + p["cls_b"], 1)

    def loss_fn(p, x, labels):
        return jnp.mean(_xent(forward(p, x), labels))

    def client(x, feats, labels):
        def local_step(y, batch_):
            loss, g = jax.value_and_grad(loss_fn)(y, *batch_)
            return jax.tree.map(lambda w, d: w - rate * d, y, g), loss

        return lax.scan(local_step, x, (feats, labels))

    def step(x, momentum, feats, labels):
        ys, losses = jax.vmap(client, (None, 0, 0))(x, feats, labels)
        delta = jax.tree.map(lambda w, y: w - jnp.mean(y, 0), x, ys)
        momentum = jax.tree.map(lambda m, d: beta * m + d, momentum, delta)
        x = jax.tree.map(lambda w, m: w - server_rate * m, x, momentum)
        return x, momentum, jnp.mean(losses[:, 0]), jnp.mean(losses[:, -1])

    rng = np.random.default_rng(80)
    feats, labels = zip(*(_keywords(rng, local * batch, frames, features, classes,
                                    0.3 * (c - (clients - 1) / 2) / clients)
                          for c in range(clients)))
    feats = np.stack(feats).reshape(clients, local, batch, frames, features)
    labels = np.stack(labels).reshape(clients, local, batch)
    return jax.jit(step).lower(params, _zeros_like(params), jnp.asarray(feats),
                               jnp.asarray(labels))


def _spirals(rng: Any, count: int, points: int, dense: int = 100) -> tuple[Any, Any]:
    """numpy float32 paths (count, points, 3): (time, x, y) of a spiral with a random
    start angle and size, observed at `points` of `dense` regular times chosen at random
    (kept in order), with noise on x and y; float32 labels, 1 for counter-clockwise."""
    import numpy as np

    labels = rng.integers(0, 2, count)
    keep = np.sort(np.stack([rng.choice(dense, points, replace=False) for _ in range(count)]), 1)
    t = np.linspace(0, 4 * np.pi, dense)[keep]
    start = rng.uniform(0, 2 * np.pi, (count, 1))
    turn = np.where(labels == 1, 1.0, -1.0)[:, None]
    radius = rng.uniform(0.5, 1.0, (count, 1)) * (0.2 + t / (4 * np.pi))
    x = radius * np.cos(turn * t + start) + 0.03 * rng.standard_normal(t.shape)
    y = radius * np.sin(turn * t + start) + 0.03 * rng.standard_normal(t.shape)
    path = np.stack([t / (4 * np.pi), x, y], -1)
    return path.astype(np.float32), labels.astype(np.float32)


def neural_cde_spirals(batch: int = 128, points: int = 48, hidden: int = 32, width: int = 64,
                       rate: float = 3e-3) -> Any:
    """A neural controlled differential equation (Kidger, Morrill, Foster and Lyons)
    tells clockwise from counter-clockwise spirals observed at 48 irregular times. The
    control path X (time, x, y) is a cubic Hermite spline with backward-difference
    slopes at the knots (Morrill et al.); the hidden state starts from a linear map of
    the first observation and follows dz = f(z) dX, f an MLP (ReLU, softplus, tanh) that
    returns a 32x3 matrix, integrated by one RK4 step per observation interval in
    local time (the spline's derivative at the stage points) inside a `lax.scan`. A
    linear readout of the final state gives the logit; binary cross-entropy; Adam."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    channels = 3
    shapes = {"z0": (channels, hidden), "z0_b": (hidden,), "f1": (hidden, width),
              "f1_b": (width,), "f2": (width, width), "f2_b": (width,),
              "f3": (width, hidden * channels), "f3_b": (hidden * channels,),
              "read": (hidden, 1), "read_b": (1,)}
    params = _weights(shapes, seed=81)

    def field(p, z):
        h = jax.nn.relu(z @ p["f1"] + p["f1_b"])
        h = jax.nn.softplus(h @ p["f2"] + p["f2_b"])
        return jnp.tanh(h @ p["f3"] + p["f3_b"]).reshape(z.shape[0], hidden, channels)

    def velocity(s, xl, xr, dl, dr):         # dX/ds of the Hermite cubic at s in [0, 1]
        return ((6 * s * s - 6 * s) * xl + (3 * s * s - 4 * s + 1) * dl
                + (6 * s - 6 * s * s) * xr + (3 * s * s - 2 * s) * dr)

    def loss_fn(p, path, labels):
        times = path[..., 0]
        gaps = jnp.maximum(times[:, 1:] - times[:, :-1], 1e-3)[..., None]
        slopes = (path[:, 1:] - path[:, :-1]) / gaps
        slopes = jnp.concatenate([slopes[:, :1], slopes], 1)            # backward, per knot
        swap = lambda a: jnp.swapaxes(a, 0, 1)                          # noqa: E731
        xs = (swap(path[:, :-1]), swap(path[:, 1:]), swap(slopes[:, :-1] * gaps),
              swap(slopes[:, 1:] * gaps))

        def interval(z, x):
            xl, xr, dl, dr = x

            def f(z, s):
                return jnp.einsum("bhc,bc->bh", field(p, z), velocity(s, xl, xr, dl, dr))

            k1 = f(z, 0.0)
            k2 = f(z + 0.5 * k1, 0.5)
            k3 = f(z + 0.5 * k2, 0.5)
            k4 = f(z + k3, 1.0)
            return z + (k1 + 2 * k2 + 2 * k3 + k4) / 6, None

        z, _ = lax.scan(interval, path[:, 0] @ p["z0"] + p["z0_b"], xs)
        logit = (z @ p["read"] + p["read_b"])[:, 0]
        loss = jnp.mean(jnp.logaddexp(0.0, logit) - labels * logit)
        return loss, jnp.mean((logit > 0) == (labels > 0.5))

    def step(p, opt, path, labels):
        m, v, t = opt
        (loss, accuracy), g = jax.value_and_grad(loss_fn, has_aux=True)(p, path, labels)
        p, m, v = _adam(p, g, m, v, t + 1, rate)
        return p, (m, v, t + 1), loss, accuracy

    rng = np.random.default_rng(81)
    path, labels = _spirals(rng, batch, points)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(path), jnp.asarray(labels))


def coatnet_relpos(batch: int = 8, side: int = 64, classes: int = 10,
                   widths: tuple[int, int, int, int] = (32, 48, 64, 96), heads: int = 3,
                   blocks: int = 2, rate: float = 1e-3, decay: float = 0.05) -> Any:
    """A CoAtNet (Dai, Liu, Le and Tan) in bfloat16 over float32 master weights
    classifies 64x64 oriented gratings: a strided 3x3 stem (32 channels), two MBConv
    stages (pre-norm, pointwise expansion by four, a strided depthwise 3x3 convolution,
    batch norm, squeeze-excitation, pointwise projection; the shortcut a 2x2 average pool
    and a pointwise matrix) down to 8x8, then the 64 positions as tokens of width 96
    through two pre-norm transformer blocks whose three-head attention adds a learned
    bias per head for every relative offset (gathered from a 15x15 table), a pooled
    layer-normed head. Cross-entropy; AdamW on the float32 weights."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    c0, c1, c2, d = widths
    grid = side // 8
    tokens = grid * grid
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, c0), "stem_g": (c0,),
                                          "stem_b": (c0,)}
    for i, (cin, cout) in enumerate(((c0, c1), (c1, c2))):
        mid = 4 * cin
        shapes.update({f"mb{i}_g": (cin,), f"mb{i}_b": (cin,), f"mb{i}x": (cin, mid),
                       f"mb{i}d": (3, 3, 1, mid), f"mb{i}n_g": (mid,), f"mb{i}n_b": (mid,),
                       f"mb{i}s": (mid, mid // 4), f"mb{i}s_b": (mid // 4,),
                       f"mb{i}e": (mid // 4, mid), f"mb{i}e_b": (mid,),
                       f"mb{i}p": (mid, cout), f"mb{i}short": (cin, cout)})
    shapes.update({"tok": (c2, d), "tok_b": (d,)})
    for l in range(blocks):
        shapes.update({f"t{l}a_g": (d,), f"t{l}a_b": (d,), f"t{l}qkv": (d, 3 * d),
                       f"t{l}rel_z": ((2 * grid - 1) ** 2, heads), f"t{l}o": (d, d),
                       f"t{l}o_b": (d,), f"t{l}m_g": (d,), f"t{l}m_b": (d,),
                       f"t{l}u": (d, 4 * d), f"t{l}u_b": (4 * d,), f"t{l}w": (4 * d, d),
                       f"t{l}w_b": (d,)})
    shapes.update({"final_g": (d,), "final_b": (d,), "fc": (d, classes), "fc_b": (classes,)})
    params = _weights(shapes, seed=82)
    coords = np.stack(np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij"), -1)
    coords = coords.reshape(tokens, 2)
    offset = coords[:, None, :] - coords[None, :, :] + grid - 1
    relative = jnp.asarray(offset[..., 0] * (2 * grid - 1) + offset[..., 1], jnp.int32)
    gelu = jax.nn.gelu

    def forward(p32, images):
        p = jax.tree.map(lambda w: w.astype(bf16), p32)
        x = images.astype(bf16)
        x = gelu(_normalize(_conv(x, p["stem"], 2), p["stem_g"], p["stem_b"], (0, 1, 2)))
        for i in range(2):
            b, h, w, c = x.shape
            mid = 4 * c
            short = x.reshape(b, h // 2, 2, w // 2, 2, c).mean((2, 4)) @ p[f"mb{i}short"]
            y = gelu(_normalize(x, p[f"mb{i}_g"], p[f"mb{i}_b"], (0, 1, 2)) @ p[f"mb{i}x"])
            y = _conv(y, p[f"mb{i}d"], 2, groups=mid)
            y = gelu(_normalize(y, p[f"mb{i}n_g"], p[f"mb{i}n_b"], (0, 1, 2)))
            s = jnp.mean(y.astype(f32), (1, 2)).astype(bf16)
            s = jax.nn.sigmoid(gelu(s @ p[f"mb{i}s"] + p[f"mb{i}s_b"]) @ p[f"mb{i}e"]
                               + p[f"mb{i}e_b"])
            x = short + (y * s[:, None, None, :]) @ p[f"mb{i}p"]
        b = x.shape[0]
        t = x.reshape(b, tokens, c2) @ p["tok"] + p["tok_b"]
        for l in range(blocks):
            y = _normalize(t, p[f"t{l}a_g"], p[f"t{l}a_b"])
            q, k, v = (a.reshape(b, tokens, heads, d // heads)
                       for a in jnp.split(y @ p[f"t{l}qkv"], 3, -1))
            bias = jnp.moveaxis(p32[f"t{l}rel_z"][relative], -1, 0)       # (heads, n, n)
            scores = jnp.einsum("bqhe,bkhe->bhqk", q, k).astype(f32) / math.sqrt(d // heads)
            weights = jax.nn.softmax(scores + bias, -1).astype(bf16)
            mixed = jnp.einsum("bhqk,bkhe->bqhe", weights, v).reshape(b, tokens, d)
            t = t + mixed @ p[f"t{l}o"] + p[f"t{l}o_b"]
            y = _normalize(t, p[f"t{l}m_g"], p[f"t{l}m_b"])
            t = t + gelu(y @ p[f"t{l}u"] + p[f"t{l}u_b"]) @ p[f"t{l}w"] + p[f"t{l}w_b"]
        pooled = jnp.mean(_normalize(t, p["final_g"], p["final_b"]).astype(f32), 1)
        return pooled @ p32["fc"] + p32["fc_b"]

    def loss_fn(p, images, labels):
        logits = forward(p, images)
        return jnp.mean(_xent(logits, labels)), jnp.mean(jnp.argmax(logits, -1) == labels)

    def step(p, opt, images, labels):
        m, v, t = opt
        (loss, accuracy), g = jax.value_and_grad(loss_fn, has_aux=True)(p, images, labels)
        p, m, v = _adam(p, g, m, v, t + 1, rate, decay=decay)
        return p, (m, v, t + 1), loss, accuracy

    rng = np.random.default_rng(82)
    pictures, labels = _gratings(rng, batch, side, classes)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(pictures).astype(bf16),
                               jnp.asarray(labels))


def _recall_sequences(rng: Any, count: int, pairs: int, keys: int, values: int
                      ) -> tuple[Any, Any]:
    """numpy int32 token sequences (count, 4 pairs + 1) for associative recall and
    float32 loss weights (count, 4 pairs): `pairs` distinct keys each followed by its
    value, a separator (token 1), then `pairs` queries, a key seen before followed by
    its value. Keys are tokens 2 to keys + 1, values the next `values` tokens. The
    prediction of a queried value weighs 1, every other next token 0.05."""
    import numpy as np

    length = 4 * pairs + 1
    tokens = np.zeros((count, length), np.int32)
    chosen = np.argsort(rng.uniform(size=(count, keys)), 1)[:, :pairs] + 2
    answers = rng.integers(0, values, (count, pairs)) + 2 + keys
    tokens[:, 0:2 * pairs:2] = chosen
    tokens[:, 1:2 * pairs:2] = answers
    tokens[:, 2 * pairs] = 1
    asked = rng.integers(0, pairs, (count, pairs))
    where = 2 * pairs + 1 + 2 * np.arange(pairs)
    tokens[:, where] = np.take_along_axis(chosen, asked, 1)
    tokens[:, where + 1] = np.take_along_axis(answers, asked, 1)
    weights = np.full((count, length - 1), 0.05, np.float32)
    weights[:, where] = 1.0
    return tokens, weights


def hawk_rglru_lm(batch: int = 4, pairs: int = 64, dim: int = 96, width: int = 128,
                  expand: int = 3, layers: int = 2, keys: int = 64, values: int = 64,
                  rate: float = 2e-3, clip: float = 1.0, c: float = 8.0) -> Any:
    """Hawk (De, Smith, Fernando et al.) in bfloat16 over float32 master weights learns
    associative recall over 256 tokens (64 key-value pairs, a separator, 64 queries):
    pre-RMS-norm residual blocks, each a recurrent block (a GELU gate branch; a branch
    through a causal depthwise 1-D convolution of width 4 and the real-gated linear
    recurrent unit, whose recurrence and input gates and decay a = sigmoid(L)^(8 r) are
    computed in float32 and whose recurrence h = a h + sqrt(1 - a^2) (i x) runs as a
    `lax.scan` over the 256 steps; the branches multiplied and projected) and a gated
    GELU MLP, with tied embeddings. Next-token cross-entropy weighted toward the queried
    values; Adam with global-norm clipping and decoupled weight decay."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    bf16, f32 = jnp.bfloat16, jnp.float32
    vocab = 2 + keys + values
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, dim)}
    for l in range(layers):
        shapes.update({f"n{l}a_g": (dim,), f"g{l}": (dim, width), f"i{l}": (dim, width),
                       f"conv{l}": (4, 1, width), f"conv{l}_b": (width,),
                       f"ra{l}": (width, width), f"ra{l}_b": (width,),
                       f"rx{l}": (width, width), f"rx{l}_b": (width,), f"lam{l}": (width,),
                       f"o{l}": (width, dim), f"n{l}b_g": (dim,), f"u{l}": (dim, expand * dim),
                       f"v{l}": (dim, expand * dim), f"d{l}": (expand * dim, dim)})
    shapes["final_g"] = (dim,)
    params = _weights(shapes, seed=83)
    rng = np.random.default_rng(83)
    for l in range(layers):
        root = rng.uniform(0.9, 0.999, width) ** (1 / c)
        params[f"lam{l}"] = jnp.asarray(np.log(root / (1 - root)).astype(np.float32))

    def forward(p32, tokens):
        p = jax.tree.map(lambda w: w.astype(bf16), p32)
        x = p["embed"][tokens]
        b, n, _ = x.shape
        for l in range(layers):
            y = _rms_norm(x, p[f"n{l}a_g"])
            gate = jax.nn.gelu(y @ p[f"g{l}"])
            u = jnp.pad(y @ p[f"i{l}"], ((0, 0), (3, 0), (0, 0)))
            u = _conv(u, p[f"conv{l}"], padding="VALID", groups=width) + p[f"conv{l}_b"]
            u32 = u.astype(f32)
            r = jax.nn.sigmoid(u32 @ p32[f"ra{l}"] + p32[f"ra{l}_b"])
            i = jax.nn.sigmoid(u32 @ p32[f"rx{l}"] + p32[f"rx{l}_b"])
            log_a = -c * r * jax.nn.softplus(-p32[f"lam{l}"])
            pushed = jnp.sqrt(-jnp.expm1(2 * log_a)) * i * u32

            def recur(h, inputs):
                decay, push = inputs
                h = decay * h + push
                return h, h

            _, hs = lax.scan(recur, jnp.zeros((b, width), f32),
                             (jnp.swapaxes(jnp.exp(log_a), 0, 1), jnp.swapaxes(pushed, 0, 1)))
            x = x + (gate * jnp.swapaxes(hs, 0, 1).astype(bf16)) @ p[f"o{l}"]
            y = _rms_norm(x, p[f"n{l}b_g"])
            x = x + (jax.nn.gelu(y @ p[f"u{l}"]) * (y @ p[f"v{l}"])) @ p[f"d{l}"]
        return (_rms_norm(x, p["final_g"]) @ p["embed"].T).astype(f32)

    def loss_fn(p, tokens, weights):
        nll = _xent(forward(p, tokens[:, :-1]), tokens[:, 1:])
        return jnp.sum(nll * weights) / jnp.sum(weights)

    def step(p, opt, tokens, weights):
        m, v, t = opt
        loss, g = jax.value_and_grad(loss_fn)(p, tokens, weights)
        norm = _global_norm(g)
        g = jax.tree.map(lambda d: d * jnp.minimum(1.0, clip / (norm + 1e-6)), g)
        p, m, v = _adam(p, g, m, v, t + 1, rate, b2=0.98, decay=0.1)
        return p, (m, v, t + 1), loss, norm

    tokens, weights = _recall_sequences(rng, batch, pairs, keys, values)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(tokens), jnp.asarray(weights))


def weno5_level_set(side: int = 128, steps: int = 24, reinit: int = 8, cfl: float = 0.5,
                    period: float = 2.0) -> Any:
    """Level-set advection of two interfaces on 128x128 grids over the unit square, no
    gradient: Zalesak's slotted disc in rigid rotation about the centre and a circle in
    LeVeque's single-vortex flow, whose velocity reverses as cos(pi t / T). Spatial
    derivatives are fifth-order WENO (Jiang and Shu, as Jiang and Peng use it for
    Hamilton-Jacobi equations): both one-sided estimates along each axis from the five
    differences of an edge-padded grid, with smoothness indicators and nonlinear
    weights, upwinded by the velocity's sign; time stepping is third-order TVD
    Runge-Kutta at CFL 0.5, 24 steps in a `fori_loop`. Then eight steps of Sussman
    reinitialization toward a signed distance (Godunov's scheme on first-order one-sided
    differences, a smoothed sign) in a second `fori_loop`. Returned: the level sets, the
    enclosed areas and interface lengths (smoothed Heaviside and delta functions) before
    and after, and the mean gradient norm near the interface."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    dx = 1.0 / side
    centres = (np.arange(side) + 0.5) / side
    y, x = np.meshgrid(centres, centres, indexing="ij")
    u0 = np.stack([-2 * np.pi * (y - 0.5), -np.sin(np.pi * x) ** 2 * np.sin(2 * np.pi * y)])
    v0 = np.stack([2 * np.pi * (x - 0.5), np.sin(np.pi * y) ** 2 * np.sin(2 * np.pi * x)])
    dt = cfl * dx / float(np.max(np.abs(u0)) + np.max(np.abs(v0)))
    base_u, base_v = jnp.asarray(u0, jnp.float32), jnp.asarray(v0, jnp.float32)
    reverses = jnp.asarray([0.0, 1.0])
    eps = 1.5 * dx

    def weno(v1, v2, v3, v4, v5):
        p1 = v1 / 3 - 7 * v2 / 6 + 11 * v3 / 6
        p2 = -v2 / 6 + 5 * v3 / 6 + v4 / 3
        p3 = v3 / 3 + 5 * v4 / 6 - v5 / 6
        s1 = 13 / 12 * (v1 - 2 * v2 + v3) ** 2 + 0.25 * (v1 - 4 * v2 + 3 * v3) ** 2
        s2 = 13 / 12 * (v2 - 2 * v3 + v4) ** 2 + 0.25 * (v2 - v4) ** 2
        s3 = 13 / 12 * (v3 - 2 * v4 + v5) ** 2 + 0.25 * (3 * v3 - 4 * v4 + v5) ** 2
        a1, a2, a3 = 0.1 / (1e-6 + s1) ** 2, 0.6 / (1e-6 + s2) ** 2, 0.3 / (1e-6 + s3) ** 2
        return (a1 * p1 + a2 * p2 + a3 * p3) / (a1 + a2 + a3)

    def one_sided(phi, axis, reach):
        pad = [(0, 0)] * 3
        pad[axis] = (reach, reach)
        d = jnp.diff(jnp.pad(phi, pad, mode="edge"), axis=axis) / dx
        return [lax.slice_in_dim(d, s, s + side, axis=axis) for s in range(2 * reach)]

    def derivatives(phi, axis):
        v = one_sided(phi, axis, 3)             # v[s] = phi[i+s-2] - phi[i+s-3], over dx
        return weno(v[0], v[1], v[2], v[3], v[4]), weno(v[5], v[4], v[3], v[2], v[1])

    def rate_of_change(phi, t):
        factor = jnp.where(reverses > 0, jnp.cos(jnp.pi * t / period), 1.0)[:, None, None]
        u, v = base_u * factor, base_v * factor
        ym, yp = derivatives(phi, 1)
        xm, xp = derivatives(phi, 2)
        return -(u * jnp.where(u > 0, xm, xp) + v * jnp.where(v > 0, ym, yp))

    def advect(n, phi):
        t = n * dt
        one = phi + dt * rate_of_change(phi, t)
        two = 0.75 * phi + 0.25 * (one + dt * rate_of_change(one, t + dt))
        return phi / 3 + 2 / 3 * (two + dt * rate_of_change(two, t + 0.5 * dt))

    def gradient_norm(phi, sign):
        ym, yp = one_sided(phi, 1, 1)
        xm, xp = one_sided(phi, 2, 1)
        outward = (jnp.maximum(jnp.maximum(xm, 0) ** 2, jnp.minimum(xp, 0) ** 2)
                   + jnp.maximum(jnp.maximum(ym, 0) ** 2, jnp.minimum(yp, 0) ** 2))
        inward = (jnp.maximum(jnp.minimum(xm, 0) ** 2, jnp.maximum(xp, 0) ** 2)
                  + jnp.maximum(jnp.minimum(ym, 0) ** 2, jnp.maximum(yp, 0) ** 2))
        return jnp.sqrt(jnp.where(sign > 0, outward, inward))

    def measures(phi):
        inside = jnp.where(phi < -eps, 1.0, jnp.where(phi > eps, 0.0, 0.5 * (
            1 - phi / eps - jnp.sin(jnp.pi * phi / eps) / jnp.pi)))
        delta = jnp.where(jnp.abs(phi) < eps, 0.5 / eps * (1 + jnp.cos(jnp.pi * phi / eps)), 0.0)
        ym, _ = one_sided(phi, 1, 1)
        xm, _ = one_sided(phi, 2, 1)
        length = jnp.sum(delta * jnp.sqrt(xm ** 2 + ym ** 2), (1, 2)) * dx * dx
        return jnp.sum(inside, (1, 2)) * dx * dx, length

    def run(phi0):
        phi = lax.fori_loop(0, steps, advect, phi0)
        sign = phi / jnp.sqrt(phi * phi + dx * dx)

        def redistance(_, phi):
            return phi - 0.5 * dx * sign * (gradient_norm(phi, sign) - 1.0)

        phi = lax.fori_loop(0, reinit, redistance, phi)
        area0, length0 = measures(phi0)
        area, length = measures(phi)
        near = jnp.abs(phi) < 3 * dx
        slope = jnp.sum(jnp.where(near, gradient_norm(phi, sign), 0.0), (1, 2)) / \
            jnp.maximum(jnp.sum(near, (1, 2)), 1)
        return phi, area, length, area / area0 - 1, length0, slope

    disc = np.hypot(x - 0.5, y - 0.75) - 0.15
    slot = np.maximum(np.abs(x - 0.5) - 0.025, y - 0.85)
    phi0 = np.stack([np.maximum(disc, -slot), np.hypot(x - 0.5, y - 0.75) - 0.15])
    return jax.jit(run).lower(jnp.asarray(phi0, jnp.float32))


def _wrapped_surfaces(rng: Any, count: int, side: int) -> tuple[Any, Any]:
    """numpy float32 wrapped phases (count, side, side) in [-pi, pi] and the true
    surfaces: five Gaussian hills and pits of up to 25 radians plus a tilt of up to 15,
    noise of 0.15 radians, and a disc of poor coherence (noise of 1.2 radians) per
    image."""
    import numpy as np

    c = np.linspace(-1, 1, side)
    y, x = np.meshgrid(c, c, indexing="ij")
    truth = np.zeros((count, side, side))
    for i in range(count):
        for _ in range(5):
            cx, cy = rng.uniform(-0.7, 0.7, 2)
            w = rng.uniform(0.15, 0.4)
            hill = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * w * w))
            truth[i] += rng.uniform(-25, 25) * hill
        truth[i] += rng.uniform(-15, 15) * x + rng.uniform(-15, 15) * y
    cx, cy = rng.uniform(-0.5, 0.5, (2, count, 1, 1))
    patch = np.hypot(x - cx, y - cy) < 0.15
    noise = np.where(patch, 1.2, 0.15) * rng.standard_normal(truth.shape)
    wrapped = np.angle(np.exp(1j * (truth + noise)))
    return wrapped.astype(np.float32), truth.astype(np.float32)


def phase_unwrap_pcg(images: int = 4, side: int = 128, iterations: int = 8,
                     spread: float = 0.5) -> Any:
    """Weighted least-squares phase unwrapping (Ghiglia and Romero) of four 128x128
    wrapped surfaces, no gradient: wrapped phase differences along both axes; quality
    weights from the local variance of the wrapped differences (a 3x3 `reduce_window`
    sum); the normal equations G^T W G phi = G^T W d solved by eight preconditioned
    conjugate-gradient iterations in a `fori_loop`, started from the unweighted solution.
    The preconditioner solves the unweighted Neumann problem exactly: the residual's even
    extension to 256x256, a real 2-D FFT, division by the eigenvalues of the discrete
    Laplacian, the inverse FFT. Returned: the unwrapped surfaces, their congruent
    versions (re-wrapped onto the data), the residual norms, the residues (2x2 loops whose
    wrapped differences do not sum to zero) and the error against the truth up to a
    constant."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    tau = 2 * np.pi
    k = np.arange(2 * side)
    ring = 2 - 2 * np.cos(np.pi * k / side)
    eig = ring[:, None] + ring[None, :side + 1]
    inverse = jnp.asarray(np.where(eig > 1e-9, 1.0 / np.maximum(eig, 1e-9), 0.0), jnp.float32)

    def wrap(a):
        return a - tau * jnp.round(a / tau)

    def precondition(r):
        ext = jnp.concatenate([r, r[:, ::-1]], 1)
        ext = jnp.concatenate([ext, ext[:, :, ::-1]], 2)
        z = jnp.fft.irfft2(jnp.fft.rfft2(ext) * inverse, s=(2 * side, 2 * side))
        return z[:, :side, :side]

    def grad(phi):
        zeros_x = jnp.zeros((phi.shape[0], side, 1), phi.dtype)
        zeros_y = jnp.zeros((phi.shape[0], 1, side), phi.dtype)
        return (jnp.concatenate([phi[:, :, 1:] - phi[:, :, :-1], zeros_x], 2),
                jnp.concatenate([phi[:, 1:] - phi[:, :-1], zeros_y], 1))

    def grad_t(fx, fy):
        tx = jnp.concatenate([-fx[:, :, :1], fx[:, :, :-2] - fx[:, :, 1:-1], fx[:, :, -2:-1]], 2)
        ty = jnp.concatenate([-fy[:, :1], fy[:, :-2] - fy[:, 1:-1], fy[:, -2:-1]], 1)
        return tx + ty

    def run(psi, truth):
        gx, gy = grad(psi)
        dxw, dyw = wrap(gx), wrap(gy)
        def box(a):
            return lax.reduce_window(a, np.float32(0), lax.add, (1, 3, 3), (1, 1, 1), "SAME") / 9

        variance = (box(dxw * dxw) - box(dxw) ** 2) + (box(dyw * dyw) - box(dyw) ** 2)
        quality = 1 / (1 + variance / spread)
        weight = quality * quality
        wx = jnp.concatenate([jnp.minimum(weight[:, :, 1:], weight[:, :, :-1]),
                              jnp.zeros((images, side, 1))], 2)
        wy = jnp.concatenate([jnp.minimum(weight[:, 1:], weight[:, :-1]),
                              jnp.zeros((images, 1, side))], 1)
        dxw = dxw * (jnp.arange(side) < side - 1)
        dyw = dyw * (jnp.arange(side) < side - 1)[:, None]

        def normal(phi):
            fx, fy = grad(phi)
            return grad_t(wx * fx, wy * fy)

        rhs = grad_t(wx * dxw, wy * dyw)
        phi = precondition(grad_t(dxw, dyw))
        r = rhs - normal(phi)
        z = precondition(r)
        rz = jnp.sum(r * z, (1, 2))

        def body(_, carry):
            phi, r, d, rz = carry
            qd = normal(d)
            alpha = rz / (jnp.sum(d * qd, (1, 2)) + 1e-20)
            phi = phi + alpha[:, None, None] * d
            r = r - alpha[:, None, None] * qd
            z = precondition(r)
            rz_new = jnp.sum(r * z, (1, 2))
            d = z + (rz_new / (rz + 1e-20))[:, None, None] * d
            return phi, r, d, rz_new

        phi, r, _, _ = lax.fori_loop(0, iterations, body, (phi, r, z, rz))
        congruent = phi + wrap(psi - phi)
        loop = (dxw[:, :-1, :-1] + dyw[:, :-1, 1:] - dxw[:, 1:, :-1] - dyw[:, :-1, :-1])
        residues = jnp.sum(jnp.abs(jnp.round(loop / tau)) > 0, (1, 2))
        error = phi - truth
        error = error - jnp.mean(error, (1, 2), keepdims=True)
        return (phi, congruent, jnp.sqrt(jnp.sum(r * r, (1, 2))), residues,
                jnp.sqrt(jnp.mean(error * error, (1, 2))))

    rng = np.random.default_rng(85)
    wrapped, truth = _wrapped_surfaces(rng, images, side)
    return jax.jit(run).lower(jnp.asarray(wrapped), jnp.asarray(truth))


def lu_partial_pivoting(count: int = 512, n: int = 48, rhs: int = 4) -> Any:
    """LU factorization with partial pivoting of 512 dense 48x48 systems, no gradient, in
    three kinds: Gaussian, Gaussian with a heavy diagonal, and Gaussian scaled on both
    sides by factors spanning six and four orders of magnitude. Under `vmap`, a
    `fori_loop` over the columns finds the pivot by `argmax` of the remaining column,
    exchanges two rows by a gather of a permuted row index, forms the multipliers and
    applies a masked rank-one update; forward and back substitution for four right-hand
    sides run as `fori_loop`s over the rows, then one step of iterative refinement
    (residual, solve again). Returned: the solutions, residual norms before and after
    refinement, sign and logarithm of the determinant, the pivot growth factor and a
    1-norm condition estimate from one solve against an alternating vector."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    rows = jnp.arange(n)

    def factor(a):
        def body(k, carry):
            lu, perm, sign = carry
            column = jnp.where(rows >= k, jnp.abs(lu[:, k]), -1.0)
            pivot = jnp.argmax(column)
            order = jnp.where(rows == k, pivot, jnp.where(rows == pivot, k, rows))
            lu, perm = lu[order], perm[order]
            sign = jnp.where(pivot == k, sign, -sign)
            multipliers = jnp.where(rows > k, lu[:, k] / lu[k, k], 0.0)
            lu = lu - multipliers[:, None] * jnp.where(rows > k, lu[k], 0.0)[None, :]
            lu = lu.at[:, k].set(jnp.where(rows > k, multipliers, lu[:, k]))
            return lu, perm, sign

        return lax.fori_loop(0, n, body, (a, rows, jnp.float32(1.0)))

    def solve(lu, perm, b):
        b = b[perm]

        def forward(i, y):
            return y.at[i].set(y[i] - jnp.where(rows < i, lu[i], 0.0) @ y)

        def backward(k, x):
            i = n - 1 - k
            return x.at[i].set((x[i] - jnp.where(rows > i, lu[i], 0.0) @ x) / lu[i, i])

        return lax.fori_loop(0, n, backward, lax.fori_loop(0, n, forward, b))

    def one(a, b):
        lu, perm, sign = factor(a)
        x = solve(lu, perm, b)
        residual = b - a @ x
        x = x + solve(lu, perm, residual)
        refined = b - a @ x
        diagonal = jnp.diagonal(lu)
        logdet = jnp.sum(jnp.log(jnp.abs(diagonal)))
        sign = sign * jnp.prod(jnp.sign(diagonal))
        growth = jnp.max(jnp.abs(jnp.where(rows[:, None] <= rows[None, :], lu, 0.0))) / \
            jnp.max(jnp.abs(a))
        probe = solve(lu, perm, jnp.where(rows % 2 == 0, 1.0, -1.0)[:, None])
        condition = jnp.max(jnp.sum(jnp.abs(a), 0)) * jnp.sum(jnp.abs(probe)) / n
        return (x, jnp.sqrt(jnp.sum(residual ** 2)), jnp.sqrt(jnp.sum(refined ** 2)), sign,
                logdet, growth, condition)

    rng = np.random.default_rng(86)
    kind = (np.arange(count) % 3)[:, None, None]
    g = rng.standard_normal((count, n, n))
    left = 10.0 ** rng.uniform(-3, 3, (count, n, 1))
    right = 10.0 ** rng.uniform(-2, 2, (count, 1, n))
    a = np.where(kind == 0, g, np.where(kind == 1, g + 3 * math.sqrt(n) * np.eye(n),
                                        left * g * right))
    b = rng.standard_normal((count, n, rhs))
    return jax.jit(jax.vmap(one)).lower(jnp.asarray(a, jnp.float32), jnp.asarray(b, jnp.float32))


def _ridges(rng: Any, count: int, side: int) -> Any:
    """numpy float32 fingerprint-like images (count, side, side): ridges of a random
    frequency whose orientation winds around a core and a delta (half the angles about
    two random points added to a base orientation), under heavy noise and three thin
    dark scratches across them."""
    import numpy as np

    c = (np.arange(side) + 0.5) / side
    y, x = np.meshgrid(c, c, indexing="ij")
    out = np.zeros((count, side, side), np.float32)
    for i in range(count):
        theta = np.full_like(x, rng.uniform(0, np.pi))
        for s in (1.0, -1.0):
            px, py = rng.uniform(0.3, 0.7, 2)
            theta = theta + 0.5 * s * np.arctan2(y - py, x - px)
        frequency = rng.uniform(10, 14)
        ridges = 0.5 + 0.5 * np.cos(2 * np.pi * frequency * (x * np.cos(theta) + y * np.sin(theta)))
        noisy = ridges + 0.35 * rng.standard_normal(x.shape)
        for _ in range(3):
            a, offset = rng.uniform(0, np.pi), rng.uniform(-0.3, 0.3)
            across = np.abs((x - 0.5) * np.sin(a) - (y - 0.5) * np.cos(a) - offset)
            noisy = np.where(across < 0.006, 0.0, noisy)
        out[i] = noisy
    return out


def coherence_diffusion(images: int = 3, side: int = 128, steps: int = 6, sigma: float = 1.0,
                        rho: float = 2.0, inner: int = 7, outer: int = 9, alpha: float = 1e-3,
                        contrast: float = 1e-4, tau: float = 0.2, bins: int = 36) -> Any:
    """Coherence-enhancing diffusion (Weickert) of three 128x128 fingerprint-like ridge
    images, no gradient: six explicit steps in a `fori_loop`, each smoothing the image by
    a separable Gaussian (depthwise convolutions of 1x7 and 7x1 windows, one group per
    image, on an edge-padded grid), forming the structure tensor from central
    differences and smoothing its three components by depthwise 1x9 and 9x1
    convolutions, finding its eigenvectors in closed form, building the diffusion tensor
    (a small rate across the ridges, along them a rate that grows with the coherence
    (mu1 - mu2)^2) and adding tau times the divergence of the flux. From the final
    images: the coherence and the dominant orientation per pixel, an orientation
    histogram of 36 bins weighted by coherence (scatter-adds) and its peak."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def gaussian(length, s):
        t = np.arange(length) - length // 2
        g = np.exp(-t * t / (2 * s * s))
        return g / g.sum()

    def taps(g, channels, horizontal):
        k = np.tile(g[:, None], (1, channels)).astype(np.float32)
        shape = (1, len(g), 1, channels) if horizontal else (len(g), 1, 1, channels)
        return jnp.asarray(k.reshape(shape))

    image_h = taps(gaussian(inner, sigma), images, True)
    image_v = taps(gaussian(inner, sigma), images, False)
    tensor_h = taps(gaussian(outer, rho), 3 * images, True)
    tensor_v = taps(gaussian(outer, rho), 3 * images, False)

    def blur(x, h, v):
        half = h.shape[1] // 2
        x = jnp.pad(x, ((0, 0), (0, 0), (half, half), (0, 0)), mode="edge")
        x = _conv(x, h, padding="VALID", groups=x.shape[-1])
        x = jnp.pad(x, ((0, 0), (half, half), (0, 0), (0, 0)), mode="edge")
        return _conv(x, v, padding="VALID", groups=x.shape[-1])

    def central(u, axis):
        pad = [(0, 0)] * 4
        pad[axis] = (1, 1)
        padded = jnp.pad(u, pad, mode="edge")
        size = u.shape[axis]
        return 0.5 * (lax.slice_in_dim(padded, 2, size + 2, axis=axis)
                      - lax.slice_in_dim(padded, 0, size, axis=axis))

    def structure(u):
        smooth = blur(u, image_h, image_v)
        ux, uy = central(smooth, 2), central(smooth, 1)
        tensor = blur(jnp.concatenate([ux * ux, ux * uy, uy * uy], -1), tensor_h, tensor_v)
        j11, j12, j22 = jnp.split(tensor, 3, -1)
        gap = jnp.sqrt((j11 - j22) ** 2 + 4 * j12 ** 2)
        vx, vy = 2 * j12, j22 - j11 + gap
        norm = jnp.sqrt(vx * vx + vy * vy)
        flat = norm < 1e-12
        vx = jnp.where(flat, 1.0, vx / jnp.where(flat, 1.0, norm))
        vy = jnp.where(flat, 0.0, vy / jnp.where(flat, 1.0, norm))
        return vx, vy, gap * gap

    def evolve(_, u):
        vx, vy, coherence = structure(u)
        along = alpha + (1 - alpha) * jnp.exp(-contrast / (coherence + 1e-12))
        a = alpha * vx * vx + along * vy * vy
        b = (alpha - along) * vx * vy
        c = alpha * vy * vy + along * vx * vx
        gx, gy = central(u, 2), central(u, 1)
        return u + tau * (central(a * gx + b * gy, 2) + central(b * gx + c * gy, 1))

    def run(pictures):
        u = jnp.moveaxis(pictures, 0, -1)[None]                      # (1, side, side, images)
        u = lax.fori_loop(0, steps, evolve, u)
        vx, vy, coherence = structure(u)
        angle = jnp.mod(jnp.arctan2(vy, vx) + jnp.pi / 2, jnp.pi)     # the ridge direction
        which = jnp.clip(jnp.floor(angle / jnp.pi * bins), 0, bins - 1).astype(jnp.int32)
        which = jnp.moveaxis(which[0], -1, 0).reshape(images, -1)
        weight = jnp.moveaxis(coherence[0], -1, 0).reshape(images, -1)
        histogram = jnp.zeros((images, bins)).at[jnp.arange(images)[:, None], which].add(weight)
        peak = (jnp.argmax(histogram, -1) + 0.5) * (180.0 / bins)
        return jnp.moveaxis(u[0], -1, 0), jnp.mean(weight, -1), histogram, peak

    rng = np.random.default_rng(87)
    return jax.jit(run).lower(jnp.asarray(_ridges(rng, images, side)))


def _soups(rng: Any, boards: int, side: int) -> Any:
    """numpy uint32 Game of Life boards (boards, side, side / 32), 32 cells to a word,
    column c in bit c % 32 of word c // 32: a random soup over the central half of the
    board, denser on later boards, and four gliders in random places and phases."""
    import numpy as np

    cells = np.zeros((boards, side, side), bool)
    glider = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 1]], bool)
    lo, hi = side // 4, 3 * side // 4
    for b in range(boards):
        density = 0.15 + 0.35 * b / max(boards - 1, 1)
        cells[b, lo:hi, lo:hi] = rng.uniform(size=(hi - lo, hi - lo)) < density
        for _ in range(4):
            r, c = rng.integers(0, side - 3, 2)
            cells[b, r:r + 3, c:c + 3] |= np.rot90(glider, int(rng.integers(4)))
    packed = np.ascontiguousarray(np.packbits(cells, axis=-1, bitorder="little"))
    return packed.view("<u4").astype(np.uint32)


def bitboard_life(boards: int = 8, side: int = 384, generations: int = 64, tile: int = 64
                  ) -> Any:
    """Conway's Game of Life on eight 384x384 tori packed 32 cells to a uint32 word, no
    gradient: in a `fori_loop` of 64 generations, the eight neighbours of every cell come
    from rolls of the rows and one-bit shifts within words (carrying the edge bit in
    from the neighbouring word), and are counted modulo 8 by bit-sliced full adders
    (ANDs and XORs); a cell lives on three, or on two if alive. The population of every
    generation is kept (`population_count`). From the final boards: a census of 64x64
    tiles, the cells that changed in the last generation, the live extents (rows by
    `argmax`, columns by an OR-reduce, count-trailing-zeros from `population_count` and
    count-leading-zeros) and an XOR hash of the board."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    words = side // 32
    u32 = jnp.uint32

    def west(x):                       # the neighbour at column c - 1, moved onto column c
        return (x << 1) | (jnp.roll(x, 1, -1) >> 31)

    def east(x):                       # the neighbour at column c + 1
        return (x >> 1) | (jnp.roll(x, -1, -1) << 31)

    def tick(g, carry):
        x, _, history = carry
        up, down = jnp.roll(x, 1, 1), jnp.roll(x, -1, 1)
        s0 = s1 = s2 = jnp.zeros_like(x)
        for v in (west(up), up, east(up), west(x), east(x), west(down), down, east(down)):
            c0 = s0 & v
            s0 = s0 ^ v
            c1 = s1 & c0
            s1 = s1 ^ c0
            s2 = s2 ^ c1
        new = ~s2 & s1 & (s0 | x)
        population = jnp.sum(lax.population_count(new).astype(jnp.int32), (1, 2))
        return new, x, history.at[g].set(population)

    def run(board):
        history = jnp.zeros((generations, boards), jnp.int32)
        final, before, history = lax.fori_loop(0, generations, tick, (board, board, history))
        counts = lax.population_count(final).astype(jnp.int32)
        census = counts.reshape(boards, side // tile, tile, words // (tile // 32),
                                tile // 32).sum((2, 4))
        changed = jnp.sum(lax.population_count(final ^ before).astype(jnp.int32), (1, 2))
        rows = jnp.any(final != 0, 2)
        top = jnp.argmax(rows, 1)
        bottom = side - 1 - jnp.argmax(rows[:, ::-1], 1)
        columns = lax.reduce(final, np.uint32(0), lax.bitwise_or, (1,))            # (boards, words)
        lowest = lax.population_count((columns & (~columns + u32(1))) - u32(1)).astype(jnp.int32)
        highest = 31 - lax.clz(columns).astype(jnp.int32)
        occupied = columns != 0
        index = jnp.arange(words)
        left = jnp.min(jnp.where(occupied, index * 32 + lowest, side), 1)
        right = jnp.max(jnp.where(occupied, index * 32 + highest, -1), 1)
        salt = (jnp.arange(side * words, dtype=u32) * u32(0x85EBCA6B)).reshape(side, words)
        mixed = (final * u32(0x9E3779B1)) ^ salt
        digest = lax.reduce(mixed, np.uint32(0), lax.bitwise_xor, (1, 2))
        return final, history, census, changed, top, bottom, left, right, digest

    rng = np.random.default_rng(88)
    return jax.jit(run).lower(jnp.asarray(_soups(rng, boards, side)))


def bitonic_sort_network(rows: int = 16, n: int = 4096) -> Any:
    """A bitonic sorting network (Batcher) sorts sixteen rows of 4096 float32 keys, no
    gradient: keys become uint32 whose unsigned order is the float order (the sign bit
    flipped for positives, every bit for negatives, by a `bitcast_convert` and XORs);
    a `fori_loop` runs the 78 compare-exchange stages, each stage's block and distance
    read from constant tables by the loop counter, partners found by XOR of the
    position, directions by AND, partner keys and indices fetched by gathers, ties
    broken by the original index so the sort is stable. Returned: the sorted values
    (bits flipped back), the permutation and its inverse (a scatter), agreement with
    `sort` and monotonicity checks, the count of distinct keys and the quartiles. Rows
    are Gaussian at scales from 1e-3 to 1e3, integers with many ties and negative zeros,
    nearly sorted with a few swaps, and sorted in reverse."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32 = jnp.uint32
    stages = [(k, j) for k in (2 ** e for e in range(1, int(math.log2(n)) + 1))
              for j in (k >> s for s in range(1, int(math.log2(k)) + 1))]
    blocks = jnp.asarray([k for k, _ in stages], jnp.int32)
    distances = jnp.asarray([j for _, j in stages], jnp.int32)
    position = jnp.arange(n, dtype=jnp.int32)

    def to_key(x):
        bits = lax.bitcast_convert_type(x, u32)
        return bits ^ jnp.where((bits >> 31) == 1, u32(0xFFFFFFFF), u32(0x80000000))

    def from_key(key):
        bits = key ^ jnp.where((key >> 31) == 1, u32(0x80000000), u32(0xFFFFFFFF))
        return lax.bitcast_convert_type(bits, jnp.float32)

    def exchange(s, carry):
        key, index = carry
        partner = position ^ distances[s]
        ascending = (position & blocks[s]) == 0
        other_key, other_index = key[:, partner], index[:, partner]
        greater = (key > other_key) | ((key == other_key) & (index > other_index))
        take = jnp.where((position < partner) == ascending, greater, ~greater)
        return jnp.where(take, other_key, key), jnp.where(take, other_index, index)

    def run(values):
        key, index = lax.fori_loop(0, len(stages), exchange,
                                   (to_key(values), jnp.broadcast_to(position, values.shape)))
        ordered = from_key(key)
        agree = jnp.all(ordered == jnp.sort(values, -1), -1)
        monotone = jnp.all(key[:, 1:] >= key[:, :-1], -1)
        inverse = jnp.zeros_like(index).at[jnp.arange(rows)[:, None], index].set(
            jnp.broadcast_to(position, index.shape))
        gathered = jnp.take_along_axis(values, index, -1)
        distinct = 1 + jnp.sum(key[:, 1:] != key[:, :-1], -1)
        quartiles = ordered[:, jnp.asarray([n // 4, n // 2, 3 * n // 4])]
        return (ordered, index, inverse, agree, monotone, jnp.all(gathered == ordered, -1),
                distinct, quartiles)

    rng = np.random.default_rng(89)
    values = np.zeros((rows, n), np.float32)
    for r in range(rows):
        kind = r % 4
        if kind == 0:
            values[r] = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3)
        elif kind == 1:
            values[r] = np.round(rng.uniform(-8, 8, n))
            values[r, rng.integers(0, n, 32)] = -0.0
        elif kind == 2:
            v = np.sort(rng.standard_normal(n))
            i, j = rng.integers(0, n, (2, n // 32))
            v[i], v[j] = v[j], v[i]
            values[r] = v
        else:
            values[r] = np.sort(rng.exponential(1.0, n))[::-1]
    return jax.jit(run).lower(jnp.asarray(values))


def cordic_fixed_point(count: int = 262144, iterations: int = 24, fraction: int = 29) -> Any:
    """CORDIC (Volder; Walther's hyperbolic extension) in Q2.29 int32 fixed point, no
    gradient, on 262144 inputs per mode: rotation mode for cosines and sines (angles
    reduced to [-pi/2, pi/2] by a half turn, starting from the inverse gain), vectoring
    mode for two-argument arc tangents and magnitudes (points first reflected into the
    right half plane) and hyperbolic rotation for exponentials (cosh + sinh, iterations
    4 and 13 repeated), each a `fori_loop` of shift-and-add steps: arithmetic right
    shifts by the loop counter (or by a shift read from a table), selects on the sign of
    the residual angle or of y, and arc tangent or area tangent constants read from
    tables. Returned: the results as float32 and the largest errors against float32
    functions, in bits."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    i32 = jnp.int32
    one = 1 << fraction
    shift = np.arange(iterations)
    arctan = jnp.asarray(np.round(np.arctan(2.0 ** -shift) * one), i32)
    gain = float(np.prod(1 / np.sqrt(1 + 2.0 ** (-2 * shift))))
    sequence = [i for i in range(1, iterations + 1) for _ in range(2 if i in (4, 13) else 1)]
    hyperbolic_shift = jnp.asarray(sequence, i32)
    arctanh = jnp.asarray(np.round(np.arctanh(2.0 ** -np.array(sequence, float)) * one), i32)
    hyperbolic_gain = float(np.prod(np.sqrt(1 - 2.0 ** (-2 * np.array(sequence, float)))))

    def fixed(x):
        return jnp.round(x * one).astype(i32)

    def real(q):
        return q.astype(jnp.float32) / one

    def rotate(theta):
        flip = jnp.abs(theta) > jnp.pi / 2
        z = fixed(jnp.where(flip, theta - jnp.sign(theta) * jnp.pi, theta))
        x = jnp.full(z.shape, round(gain * one), i32)

        def body(i, carry):
            x, y, z = carry
            up = z >= 0
            dx, dy = y >> i, x >> i
            return (jnp.where(up, x - dx, x + dx), jnp.where(up, y + dy, y - dy),
                    jnp.where(up, z - arctan[i], z + arctan[i]))

        x, y, _ = lax.fori_loop(0, iterations, body, (x, jnp.zeros_like(x), z))
        sign = jnp.where(flip, -1.0, 1.0)
        return sign * real(x), sign * real(y)

    def vector(px, py):
        left = px < 0
        x, y = fixed(jnp.where(left, -px, px)), fixed(jnp.where(left, -py, py))

        def body(i, carry):
            x, y, z = carry
            below = y < 0
            dx, dy = y >> i, x >> i
            return (jnp.where(below, x - dx, x + dx), jnp.where(below, y + dy, y - dy),
                    jnp.where(below, z - arctan[i], z + arctan[i]))

        x, _, z = lax.fori_loop(0, iterations, body, (x, y, jnp.zeros_like(x)))
        angle = real(z) + jnp.where(left, jnp.where(py >= 0, jnp.pi, -jnp.pi), 0.0)
        return real(x) * gain, angle

    def hyperbolic(t):
        z = fixed(t)
        x = jnp.full(z.shape, round(one / hyperbolic_gain), i32)

        def body(s, carry):
            x, y, z = carry
            i = hyperbolic_shift[s]
            up = z >= 0
            dx, dy = y >> i, x >> i
            return (jnp.where(up, x + dx, x - dx), jnp.where(up, y + dy, y - dy),
                    jnp.where(up, z - arctanh[s], z + arctanh[s]))

        x, y, _ = lax.fori_loop(0, len(sequence), body, (x, jnp.zeros_like(x), z))
        return real(x) + real(y)

    def bits(error):
        return -jnp.log2(jnp.max(jnp.abs(error)) + 1e-30)

    def run(theta, px, py, t):
        cos, sin = rotate(theta)
        magnitude, angle = vector(px, py)
        exp = hyperbolic(t)
        errors = jnp.stack([bits(cos - jnp.cos(theta)), bits(sin - jnp.sin(theta)),
                            bits(angle - jnp.arctan2(py, px)),
                            bits(magnitude - jnp.hypot(px, py)),
                            bits((exp - jnp.exp(t)) / jnp.exp(t))])
        return cos, sin, angle, magnitude, exp, errors

    rng = np.random.default_rng(90)
    theta = rng.uniform(-np.pi, np.pi, count)
    radius = 1.2 * np.sqrt(rng.uniform(0.0, 1.0, count))
    phi = rng.uniform(-np.pi, np.pi, count)
    t = rng.uniform(-1.1, 1.1, count)
    return jax.jit(run).lower(*(jnp.asarray(a, jnp.float32) for a in
                                (theta, radius * np.cos(phi), radius * np.sin(phi), t)))


def _mosaics(rng: Any, count: int, side: int, sites: int = 40) -> Any:
    """numpy float32 RGB pictures (count, side, side, 3) in [0, 1]: a Voronoi mosaic of
    40 regions, each a colour with a gentle linear gradient, under a smooth
    illumination, with noise."""
    import numpy as np

    c = np.arange(side) + 0.5
    y, x = np.meshgrid(c, c, indexing="ij")
    out = np.zeros((count, side, side, 3), np.float32)
    for i in range(count):
        centres = rng.uniform(0, side, (sites, 2))
        region = np.argmin((y[..., None] - centres[:, 0]) ** 2
                           + (x[..., None] - centres[:, 1]) ** 2, -1)
        colours = rng.uniform(0.05, 0.95, (sites, 3))
        slopes = rng.normal(0, 0.003, (sites, 2))
        shade = (slopes[region, 0] * (y - centres[region, 0])
                 + slopes[region, 1] * (x - centres[region, 1]))
        light = 0.8 + 0.2 * np.sin(np.pi * rng.uniform(0.5, 2.0) * x / side + rng.uniform(0, np.pi))
        picture = (colours[region] + shade[..., None]) * light[..., None]
        out[i] = np.clip(picture + 0.03 * rng.standard_normal(picture.shape), 0, 1)
    return out


def slic_superpixels(images: int = 4, side: int = 128, grid: int = 16, iterations: int = 6,
                     compactness: float = 10.0, largest: int = 8) -> Any:
    """SLIC superpixels (Achanta et al.) of four 128x128 colour mosaics, no gradient: sRGB
    to CIELAB (gamma expansion, a 3x3 matrix, cube roots); 256 seeds on a 16x16 grid,
    each moved to the lowest colour gradient of its 3x3 neighbourhood (gathers and an
    `argmin`); then six iterations in a `fori_loop`, each assigning every pixel to the
    nearest of the nine seeds of its own and the neighbouring grid cells (a gather of
    centres, a distance mixing Lab and position by the compactness, an `argmin`) and
    moving every centre to the mean of its pixels (scatter-adds of Lab, position and
    count). Returned: the labels, the centres, how far they moved last, the boundary
    pixels, the colour error of the mean-colour picture, the eight largest segments
    (`top_k`) and the count of tiny ones."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    step = side // grid
    segments = grid * grid
    cell = np.arange(side) // step
    offsets = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
    candidates = np.stack([np.clip(cell[:, None] + dy, 0, grid - 1) * grid
                           + np.clip(cell[None, :] + dx, 0, grid - 1) for dy, dx in offsets], -1)
    candidates = jnp.asarray(candidates, jnp.int32)                      # (side, side, 9)
    seed = step // 2 + step * np.arange(grid)
    seed_y = np.repeat(seed, grid)
    seed_x = np.tile(seed, grid)
    around_y = jnp.asarray(np.clip(seed_y[:, None] + np.array([o[0] for o in offsets]),
                                   0, side - 1))
    around_x = jnp.asarray(np.clip(seed_x[:, None] + np.array([o[1] for o in offsets]),
                                   0, side - 1))
    to_xyz = jnp.asarray(np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                                   [0.0193, 0.1192, 0.9505]]).T / np.array([0.9505, 1.0, 1.089]),
                         jnp.float32)
    scale = jnp.asarray([1.0, 1.0, 1.0, compactness / step, compactness / step], jnp.float32)
    batch = jnp.arange(images)[:, None, None]

    def to_lab(rgb):
        linear = jnp.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        xyz = linear @ to_xyz
        f = jnp.where(xyz > (6 / 29) ** 3, jnp.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
        fx, fy, fz = f[..., 0], f[..., 1], f[..., 2]
        return jnp.stack([116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)], -1)

    def run(rgb):
        lab = to_lab(rgb)
        yy, xx = jnp.meshgrid(jnp.arange(side, dtype=jnp.float32),
                              jnp.arange(side, dtype=jnp.float32), indexing="ij")
        features = jnp.concatenate([lab, jnp.broadcast_to(jnp.stack([yy, xx], -1),
                                                          (images, side, side, 2))], -1)
        padded = jnp.pad(lab, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="edge")
        rough = (jnp.sum((padded[:, 1:-1, 2:] - padded[:, 1:-1, :-2]) ** 2, -1)
                 + jnp.sum((padded[:, 2:, 1:-1] - padded[:, :-2, 1:-1]) ** 2, -1))
        best = jnp.argmin(rough[:, around_y, around_x], -1)             # (images, segments)
        start_y = jnp.take_along_axis(jnp.broadcast_to(around_y, best.shape + (9,)),
                                      best[..., None], -1)[..., 0]
        start_x = jnp.take_along_axis(jnp.broadcast_to(around_x, best.shape + (9,)),
                                      best[..., None], -1)[..., 0]
        centres = features[jnp.arange(images)[:, None], start_y, start_x]  # (images, segs, 5)
        ones = jnp.ones((images, side, side, 1))

        def assign(centres):
            near = centres[:, candidates]                               # (images, s, s, 9, 5)
            distance = jnp.sum(((features[..., None, :] - near) * scale) ** 2, -1)
            choice = jnp.argmin(distance, -1)
            return jnp.take_along_axis(jnp.broadcast_to(candidates, choice.shape + (9,)),
                                       choice[..., None], -1)[..., 0]

        def iterate(_, carry):
            centres, _, _ = carry
            label = assign(centres)
            sums = jnp.zeros((images, segments, 6)).at[batch, label].add(
                jnp.concatenate([features, ones], -1))
            count = sums[..., 5:]
            moved = jnp.where(count > 0, sums[..., :5] / jnp.maximum(count, 1.0), centres)
            shift = jnp.mean(jnp.sqrt(jnp.sum((moved[..., 3:] - centres[..., 3:]) ** 2, -1)), -1)
            return moved, label, shift

        start = (centres, jnp.zeros((images, side, side), jnp.int32), jnp.zeros(images))
        centres, label, shift = lax.fori_loop(0, iterations, iterate, start)
        across = jnp.pad(label[:, :, 1:] != label[:, :, :-1], ((0, 0), (0, 0), (0, 1)))
        down = jnp.pad(label[:, 1:] != label[:, :-1], ((0, 0), (0, 1), (0, 0)))
        painted = centres[batch, label, :3]                             # (images, s, s, 3)
        error = jnp.sqrt(jnp.mean((painted - lab) ** 2, (1, 2, 3)))
        sizes = jnp.zeros((images, segments)).at[batch[..., 0], label.reshape(images, -1)].add(1.0)
        top, which = lax.top_k(sizes, largest)
        tiny = jnp.sum(sizes < step * step / 4, -1)
        return label, centres, shift, jnp.sum(across | down, (1, 2)), error, top, which, tiny

    rng = np.random.default_rng(91)
    return jax.jit(run).lower(jnp.asarray(_mosaics(rng, images, side)))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "mixnet_group_lasso/8x48px-16-24-40-k3-5-7-9": mixnet_group_lasso,
    "graphgps_rwse/32x32-nodes-d96-l4-rw16": graphgps_rwse,
    "lmu_spider/32+128x196-steps-m64-h96": lmu_spider,
    "matchboxnet_fedavgm/4x2x4x50x40-c48-k13-15-17": matchboxnet_fedavgm,
    "neural_cde_spirals/128x48-obs-h32-w64-rk4": neural_cde_spirals,
    "coatnet_relpos/8x64px-32-48-64-96-bf16": coatnet_relpos,
    "hawk_rglru_lm/4x256-d96-r128-l2-bf16": hawk_rglru_lm,
    "weno5_level_set/2x128x128-24-steps-8-reinit": weno5_level_set,
    "phase_unwrap_pcg/4x128x128-dct-8-iterations": phase_unwrap_pcg,
    "lu_partial_pivoting/512x48x48-4-rhs-refined": lu_partial_pivoting,
    "coherence_diffusion/3x128x128-1x7-1x9-6-steps": coherence_diffusion,
    "bitboard_life/8x384x384-bits-64-generations": bitboard_life,
    "bitonic_sort_network/16x4096-float-keys-78-stages": bitonic_sort_network,
    "cordic_fixed_point/3x262144-q29-24-iterations": cordic_fixed_point,
    "slic_superpixels/4x128x128-256-segments-6-iterations": slic_superpixels,
}
