"""The thirty-fourth never-seen set: programs written on 2026-11-28, after the thirty-third
set (benchmarks/never_seen_33/), and never used to choose anything: no feature, default,
fallback threshold or model was picked by looking at them. They are here to judge one
trained model, once. The SHA-256 of this file is committed next to it (`SHA256`), and
`fresh_programs.py --set never-seen-34` refuses to run when the two disagree, since an
edited set has been seen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the
thirty-three earlier never-seen sets contain. Eight are training steps. Two keep large
activations, some twenty MiB or more of float32 temporaries in one step (CSRNet's
full-resolution front end, the deep image prior's 96x96 decoder maps); two are clearly
small, a few MiB at most (the NADE and the Wide & Deep model, whose deep tower's
covariance is 1.2 MB). Two convolve depthwise: RepLKNet in two dimensions with 13x13 and
9x9 kernels beside 3x3 ones, Primer in one dimension (causal, width 3) after every
attention projection; Primer runs in bfloat16 over float32 master weights. Two hold a
`fori_loop` (the Gauss-Jordan solve of the extended Kalman filter, the NADE's ancestral
sampling over the 144 pixels) and one a `lax.scan` (the quasi-recurrent network's
fo-pooling).

RepLKNet classifies 48x48 pictures by the bearing from a red disc to a blue one far
apart (a task that needs a wide receptive field): a strided stem, a stage of 24 channels
whose block sums a batch-normalized depthwise 13x13 convolution and a parallel 3x3 one,
a strided transition to 48 channels and a stage with 9x9 and 3x3 depthwise kernels,
each block followed by a ConvFFN; label smoothing; AdamW under warmup and cosine decay;
the step also returns each stage's kernels merged into one (the inference-time
structural reparameterization, the batch statistics folded in). CSRNet counts people in
96x96 crowd scenes: a VGG-like front end of 3x3 convolutions (16, 32 and 48 channels, two
max-pools by reshapes) and a back end of convolutions dilated by two regressing a
quarter-resolution density map; Euclidean loss, Adam. A deep image prior inpaints two
96x96 pictures: an hourglass of strided 3x3 convolutions (24, 48 and 96 channels),
per-picture normalization and leaky ReLUs, bilinear upsampling (`jax.image.resize`) and
four-channel skips, fitted to the known pixels from a fixed noise input jittered anew in
every step (Adam), with the PSNR of the hidden pixels returned. Primer (So et al.) in
bfloat16 models token sequences with copied spans: multi-Dconv-head attention (a causal
depthwise convolution of width 3 after each query, key and value projection), squared
ReLU feed-forward layers, AdamW with global-norm clipping. A quasi-recurrent network
models pseudo-English bytes: two layers whose gates come from a width-2 causal
convolution (one matrix over each position and its predecessor) and whose fo-pooling
is a `lax.scan`, zoneout on the forget gates, trained by NT-ASGD (Merity, Keskar and
Socher): plain SGD with clipping that switches to iterate averaging once the loss of a
held-out batch exceeds the best loss seen more than five checks ago (a history of
sixteen checks). ChebNet learns node classes of a 2048-node stochastic block model in
two tasks (classes 0-3, then 4-7, one head each): Chebyshev polynomial filters of order
three through the scaled normalized Laplacian (gathers and scatter-adds over 20 000
directed edges), dropout, and A-GEM (Chaudhry et al.): the gradient of the current task
projected, when it conflicts, off the gradient of an episodic memory of 128 nodes of the
first task, then Adam. Wide & Deep predicts clicks from eight categorical fields and six
numbers: a wide part of per-category weights and 28 hashed field crosses (uint32
multiply-xorshift hashes into 1024 buckets) and the embeddings, both by AdaGrad, and a
deep tower of 553 weights trained by a global extended Kalman filter (Singhal and Wu):
per-example Jacobians of the predicted probabilities (a `vmap` of gradients), the
innovation covariance solved by Gauss-Jordan elimination in a `fori_loop` of 64 pivots,
the gain applied and the 553x553 covariance updated. A NADE (Larochelle and Murray)
learns 12x12 binary stroke glyphs (hidden pre-activations by an exclusive `cumsum` over
the pixels, Adam under a cosine decay) and draws sixteen glyphs by ancestral sampling.

Seven are scientific or algorithmic steps without a gradient: a battery of tests of two
random number generators (xoshiro128** and a 32-bit linear congruential generator, 16384
lanes each drawing four uint32 numbers in a `fori_loop`, seeded by splitmix32): the
Kolmogorov-Smirnov and Anderson-Darling statistics from a `sort` of all 65536 draws,
Marsaglia's birthday spacings in 64 rows of 1024 birthdays (a `sort`, spacings, a second
`sort` and repeated spacings), bit frequencies, `population_count`, runs of the lowest
bit and serial pair tests by scatter-add histograms; rolling L-moments of 32 sensor
series in windows of 16 (every window sorted, probability-weighted moments by a matrix
product, the median and the median absolute deviation from a second sort of short
segments, robust scores, `top_k` over each window and over each series); Kepler's
equation for 4096 orbits at 64 epochs by eight Newton iterations in a `fori_loop` from
Danby's start, then positions and velocities rotated to the ecliptic, vis-viva and
angular-momentum residuals and the closest approaches to the Earth (`top_k`); the
Lyapunov spectrum (six largest exponents) of sixteen Fermi-Pasta-Ulam-Tsingou beta chains
of 32 particles at energies from 0.05 to 8: velocity Verlet steps with the tangent
vectors carried by `jax.jvp` under `vmap`, ten steps in an inner `fori_loop` between
modified Gram-Schmidt renormalizations, forty in an outer one, then normal-mode energies;
Rice coding of 64 blocks of 4096 second-order prediction residuals (zigzag mapping,
the parameter chosen per block among sixteen, code positions by `cumsum`, the codes
written into one bit stream of 131072 uint32 words by two scatter-adds of shifted
halves, read back by gathers and checked with count-leading-zeros against their unary
prefixes, Elias-gamma headers and exponential-Golomb lengths for comparison); exact
triangle counting in a 4096-node random geometric graph with long-range edges
(neighbour lists gathered for both ends of every edge, intersected by a batched
`searchsorted`, triangles per node by scatter-adds, clustering coefficients,
transitivity and edge supports); and 0/1 knapsack by dynamic programming for 64
instances of 96 items and a capacity of 1023 (an int32 `fori_loop` over the items with
shifted gathers of the table, the take decisions packed 32 to a uint32 word, a second
`fori_loop` backtracking through the packed bits, and Dantzig's bound from an `argsort`
of the value-to-weight ratios of each instance).

The updates new to these sets: NT-ASGD, A-GEM (over Adam) and the global extended Kalman
filter (beside AdaGrad).
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


def _xent(logits: Any, labels: Any) -> Any:
    """Softmax cross-entropy of integer labels, per position, in float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv(x: Any, w: Any, stride: int = 1, padding: Any = "SAME", dilation: int = 1,
          groups: int = 1) -> Any:
    """A channels-last convolution in one or two dimensions (the kernel's rank decides),
    depthwise when `groups` is the input's channel count (the kernel then has one input
    channel), dilated by `dilation`."""
    from jax import lax

    if w.ndim == 3:
        numbers, strides, dilations = ("NWC", "WIO", "NWC"), (stride,), (dilation,)
    else:
        numbers, strides, dilations = ("NHWC", "HWIO", "NHWC"), (stride, stride), (dilation,
                                                                                   dilation)
    return lax.conv_general_dilated(x, w, strides, padding, rhs_dilation=dilations,
                                    dimension_numbers=numbers, feature_group_count=groups)


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


def _tree_dot(a: Any, b: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return sum(jnp.sum(x * y) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def _bearing_pictures(rng: Any, count: int, side: int, classes: int = 8) -> tuple[Any, Any]:
    """numpy float32 RGB pictures (count, side, side, 3) in [0, 1] and int32 labels: a red
    disc and a blue disc about half the side apart on a cluttered grey ground (bars and
    noise); the label is the bearing from the red disc to the blue one in eight sectors of
    45 degrees, so that a network has to see across most of the picture."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    pictures = np.zeros((count, side, side, 3))
    labels = rng.integers(0, classes, count)
    for i in range(count):
        picture = np.repeat(rng.uniform(0.3, 0.6)
                            + 0.05 * rng.standard_normal((side, side, 1)), 3, -1)
        for _ in range(6):
            x0, y0 = rng.uniform(0, side, 2)
            bar = (np.abs(xx - x0) < rng.uniform(1, 6)) & (np.abs(yy - y0) < rng.uniform(1, 6))
            picture[bar] = rng.uniform(0.2, 0.8)
        angle = (labels[i] + rng.uniform(0.15, 0.85)) * 2 * np.pi / classes
        half = 0.5 * rng.uniform(0.45, 0.6) * side
        cx, cy = side / 2 + rng.uniform(-2, 2, 2)
        step = half * np.array([np.cos(angle), np.sin(angle)])
        radius = rng.uniform(2.0, 3.5)
        for (px, py), colour in (((cx - step[0], cy - step[1]), (0.9, 0.1, 0.1)),
                                 ((cx + step[0], cy + step[1]), (0.1, 0.2, 0.9))):
            picture[(xx - px) ** 2 + (yy - py) ** 2 < radius * radius] = colour
        pictures[i] = picture
    return np.clip(pictures, 0, 1).astype(np.float32), labels.astype(np.int32)


def replknet_reparam(batch: int = 4, side: int = 48, classes: int = 8,
                     widths: tuple[int, int] = (24, 48), kernels: tuple[int, int] = (13, 9),
                     small: int = 3, rate: float = 2e-3, warmup: int = 200, total: int = 4000,
                     decay: float = 0.05, smoothing: float = 0.1, step_count: int = 500) -> Any:
    """RepLKNet (Ding et al.) classifies 48x48 pictures by the bearing from a red disc to
    a distant blue one: a strided 3x3 stem to 24 channels and a depthwise 3x3 convolution;
    a stage at 24x24 whose RepLK block (batch norm, a pointwise projection and ReLU, a
    depthwise 13x13 convolution and a parallel depthwise 3x3 one, each batch-normalized,
    summed, ReLU and a pointwise projection) and ConvFFN block (batch norm, a fourfold
    pointwise expansion, GELU, a projection) are residual; a transition (pointwise to 48
    channels, a strided depthwise 3x3 convolution) and a stage at 12x12 with 9x9 and 3x3
    depthwise kernels; batch norm, global pooling and a linear classifier. Label-smoothed
    cross-entropy; AdamW under linear warmup and cosine decay from the step count. The
    step returns, beside the loss, every stage's two depthwise kernels merged into one
    with their batch statistics folded in (the structural reparameterization used at
    inference), with its bias."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    c0, c1 = widths
    shapes: dict[str, tuple[int, ...]] = {
        "stem": (3, 3, 3, c0), "stem_g": (c0,), "stem_b": (c0,),
        "stem_dw": (3, 3, 1, c0), "stem_dw_g": (c0,), "stem_dw_b": (c0,),
        "t_in": (c0, c1), "t_in_g": (c1,), "t_in_b": (c1,),
        "t_dw": (3, 3, 1, c1), "t_dw_g": (c1,), "t_dw_b": (c1,)}
    for s, (c, k) in enumerate(zip(widths, kernels)):
        shapes.update({f"{s}pre_g": (c,), f"{s}pre_b": (c,), f"{s}in": (c, c), f"{s}in_b": (c,),
                       f"{s}large": (k, k, 1, c), f"{s}large_g": (c,), f"{s}large_b": (c,),
                       f"{s}small": (small, small, 1, c), f"{s}small_g": (c,),
                       f"{s}small_b": (c,), f"{s}out": (c, c), f"{s}out_b": (c,),
                       f"{s}ffn_g": (c,), f"{s}ffn_b": (c,), f"{s}up": (c, 4 * c),
                       f"{s}up_b": (4 * c,), f"{s}down": (4 * c, c), f"{s}down_b": (c,)})
    shapes.update({"head_g": (c1,), "head_b": (c1,), "cls": (c1, classes), "cls_b": (classes,)})
    params = _weights(shapes, seed=107)

    def bn(p, name, x):
        return _normalize(x, p[f"{name}_g"], p[f"{name}_b"], (0, 1, 2))

    def branch(p, name, h):
        """A batch-normalized depthwise convolution, with the per-channel scale and shift
        that fold its batch statistics into the kernel."""
        y = _conv(h, p[name], groups=h.shape[-1])
        mean = jnp.mean(y, (0, 1, 2))
        var = jnp.mean(jnp.square(y - mean), (0, 1, 2))
        scale = p[f"{name}_g"] * lax.rsqrt(var + 1e-5)
        shift = p[f"{name}_b"] - mean * scale
        return y * scale + shift, (scale, shift)

    def forward(p, x):
        x = jax.nn.relu(bn(p, "stem", _conv(x, p["stem"], 2)))
        x = jax.nn.relu(bn(p, "stem_dw", _conv(x, p["stem_dw"], groups=c0)))
        merged = []
        for s, k in enumerate(kernels):
            if s == 1:
                x = jax.nn.relu(bn(p, "t_in", x @ p["t_in"]))
                x = jax.nn.relu(bn(p, "t_dw", _conv(x, p["t_dw"], 2, groups=c1)))
            h = jax.nn.relu(bn(p, f"{s}pre", x) @ p[f"{s}in"] + p[f"{s}in_b"])
            big, (scale_l, shift_l) = branch(p, f"{s}large", h)
            little, (scale_s, shift_s) = branch(p, f"{s}small", h)
            x = x + jax.nn.relu(big + little) @ p[f"{s}out"] + p[f"{s}out_b"]
            h = bn(p, f"{s}ffn", x)
            x = x + jax.nn.gelu(h @ p[f"{s}up"] + p[f"{s}up_b"]) @ p[f"{s}down"] \
                + p[f"{s}down_b"]
            edge = (k - small) // 2
            kernel = p[f"{s}large"] * scale_l + jnp.pad(
                p[f"{s}small"] * scale_s, ((edge, edge), (edge, edge), (0, 0), (0, 0)))
            merged.append((lax.stop_gradient(kernel), lax.stop_gradient(shift_l + shift_s)))
        h = jnp.mean(bn(p, "head", x), (1, 2))
        return h @ p["cls"] + p["cls_b"], merged

    def loss_fn(p, images, labels):
        logits, merged = forward(p, images)
        target = (1 - smoothing) * jax.nn.one_hot(labels, classes) + smoothing / classes
        return -jnp.mean(jnp.sum(target * jax.nn.log_softmax(logits, -1), -1)), merged

    def step(p, opt, images, labels):
        m, v, t = opt
        (loss, merged), g = jax.value_and_grad(loss_fn, has_aux=True)(p, images, labels)
        t = t + 1
        tf = t.astype(jnp.float32)
        lr = rate * jnp.minimum(1.0, tf / warmup) * 0.5 * (1 + jnp.cos(jnp.pi * jnp.minimum(
            tf / total, 1.0)))
        p, m, v = _adam(p, g, m, v, t, lr, decay=decay)
        return p, (m, v, t), loss, merged

    rng = np.random.default_rng(107)
    images, labels = _bearing_pictures(rng, batch, side, classes)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(step_count, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(images), jnp.asarray(labels))


def _crowd_scenes(rng: Any, count: int, side: int, factor: int) -> tuple[Any, Any]:
    """numpy float32 RGB crowd scenes (count, side, side, 3) in [0, 1] and density maps
    (count, side / factor, side / factor, 1): a graded ground with a few coloured
    rectangles, and 20 to 160 heads (a dark disc of hair above a skin-coloured rim),
    denser and smaller toward the top as under perspective. Every head adds a Gaussian of
    its own width, normalized to one inside the picture, to the density, which is
    summed over factor x factor cells."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    pictures = np.zeros((count, side, side, 3))
    maps = np.zeros((count, side // factor, side // factor, 1))
    for i in range(count):
        ground = (0.35 + 0.25 * (rng.uniform(-1, 1) * xx + rng.uniform(-1, 1) * yy) / side
                  + 0.04 * rng.standard_normal((side, side)))
        picture = ground[..., None] * rng.uniform(0.7, 1.1, 3)
        for _ in range(5):
            x0, y0 = rng.uniform(0, side, 2)
            box = (np.abs(xx - x0) < rng.uniform(3, 15)) & (np.abs(yy - y0) < rng.uniform(3, 15))
            picture[box] = rng.uniform(0.2, 0.9, 3)
        heads = int(rng.integers(20, 161))
        hy = side * rng.beta(1.2, 2.0, heads)
        hx = rng.uniform(0, side, heads)
        density = np.zeros((side, side))
        for y0, x0 in zip(hy, hx):
            r = 1.2 + 2.8 * y0 / side
            d2 = (xx - x0) ** 2 + (yy - y0) ** 2
            rim = (d2 < (1.6 * r) ** 2) & (d2 >= r * r) & (yy > y0)
            picture[rim] = np.array([0.85, 0.65, 0.5]) * rng.uniform(0.6, 1.1)
            picture[d2 < r * r] = rng.uniform(0.03, 0.3)
            blob = np.exp(-d2 / (2 * r * r))
            density += blob / blob.sum()
        pictures[i] = picture + 0.02 * rng.standard_normal(picture.shape)
        cells = side // factor
        maps[i, ..., 0] = density.reshape(cells, factor, cells, factor).sum((1, 3))
    return np.clip(pictures, 0, 1).astype(np.float32), maps.astype(np.float32)


def csrnet_counting(batch: int = 4, side: int = 96, scale: float = 100.0,
                    rate: float = 1e-4) -> Any:
    """CSRNet (Li, Zhang and Chen) counts people in 96x96 crowd scenes by regressing a
    density map at a quarter of the resolution: a VGG-like front end of 3x3 convolutions
    with ReLU (16 and 16 channels at full resolution, a 2x2 max-pool by a reshape, 32 and
    32, a pool, 48 and 48) and a back end of 3x3 convolutions dilated by two (48, 24 and
    12 channels) and a pointwise convolution to one channel. The loss is half the summed
    squared error of the density map (scaled by 100) per picture; Adam. Returned with the
    mean absolute error of the counts."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    front = (("c1", 3, 16), ("c2", 16, 16), None, ("c3", 16, 32), ("c4", 32, 32), None,
             ("c5", 32, 48), ("c6", 48, 48))
    back = (("d1", 48, 48), ("d2", 48, 24), ("d3", 24, 12))
    shapes: dict[str, tuple[int, ...]] = {}
    for layer in front + back:
        if layer is not None:
            name, cin, cout = layer
            shapes.update({name: (3, 3, cin, cout), f"{name}_b": (cout,)})
    shapes.update({"out": (12, 1), "out_b": (1,)})
    params = _weights(shapes, seed=108, scale=math.sqrt(2.0))

    def pool(x):
        b, h, w, c = x.shape
        return x.reshape(b, h // 2, 2, w // 2, 2, c).max((2, 4))

    def forward(p, x):
        for layer in front:
            if layer is None:
                x = pool(x)
            else:
                x = jax.nn.relu(_conv(x, p[layer[0]]) + p[f"{layer[0]}_b"])
        for name, _, _ in back:
            x = jax.nn.relu(_conv(x, p[name], dilation=2) + p[f"{name}_b"])
        return x @ p["out"] + p["out_b"]

    def loss_fn(p, images, density):
        predicted = forward(p, images)
        return 0.5 * jnp.sum(jnp.square(predicted - scale * density)) / images.shape[0], \
            predicted

    def step(p, opt, images, density):
        m, v, t = opt
        (loss, predicted), g = jax.value_and_grad(loss_fn, has_aux=True)(p, images, density)
        p, m, v = _adam(p, g, m, v, t + 1, rate)
        counts = jnp.sum(predicted, (1, 2, 3)) / scale
        error = jnp.mean(jnp.abs(counts - jnp.sum(density, (1, 2, 3))))
        return p, (m, v, t + 1), loss, error

    rng = np.random.default_rng(108)
    images, density = _crowd_scenes(rng, batch, side, 4)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(0, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(images), jnp.asarray(density))


def _inpainting_pictures(rng: Any, count: int, side: int) -> tuple[Any, Any, Any]:
    """numpy float32 clean RGB pictures (count, side, side, 3) in [0, 1], masks of the
    known pixels (count, side, side, 1) and the corrupted pictures (the known pixels with
    slight noise, the rest zero). A picture is a tilted graded ground under discs and
    rectangles with a patch of sinusoidal texture; a mask hides ten thick random strokes
    and three blocks, about a quarter of the pixels."""
    import numpy as np

    yy, xx = (np.mgrid[0:side, 0:side] + 0.5) / side
    clean = np.zeros((count, side, side, 3))
    known = np.ones((count, side, side, 1))
    for i in range(count):
        picture = (rng.uniform(0.2, 0.6, 3)
                   + 0.3 * (rng.uniform(-1, 1) * xx + rng.uniform(-1, 1) * yy)[..., None])
        for _ in range(6):
            cx, cy, r = rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9), rng.uniform(0.05, 0.2)
            if rng.random() < 0.5:
                inside = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
            else:
                inside = (np.abs(xx - cx) < r) & (np.abs(yy - cy) < 0.6 * r)
            picture[inside] = rng.uniform(0, 1, 3)
        wave = 0.12 * np.sin(2 * np.pi * rng.uniform(6, 12) * (xx + rng.uniform(-1, 1) * yy))
        patch = (np.abs(xx - rng.uniform(0.3, 0.7)) < 0.2) & (np.abs(yy - 0.5) < 0.25)
        clean[i] = np.clip(picture + np.where(patch, wave, 0.0)[..., None], 0, 1)
        hidden = np.zeros((side, side), bool)
        for _ in range(10):
            ax, ay, bx, by = rng.uniform(0, 1, 4)
            dx, dy = bx - ax, by - ay
            t = np.clip(((xx - ax) * dx + (yy - ay) * dy) / (dx * dx + dy * dy + 1e-9), 0, 1)
            width = rng.uniform(0.01, 0.025)
            hidden |= (xx - ax - t * dx) ** 2 + (yy - ay - t * dy) ** 2 < width * width
        for _ in range(3):
            x0, y0 = rng.uniform(0, 0.85, 2)
            hidden |= (xx > x0) & (xx < x0 + 0.12) & (yy > y0) & (yy < y0 + 0.08)
        known[i, ..., 0] = ~hidden
    corrupted = known * (clean + 0.02 * rng.standard_normal(clean.shape))
    return clean.astype(np.float32), known.astype(np.float32), corrupted.astype(np.float32)


def deep_image_prior(pictures: int = 2, side: int = 96, noise_channels: int = 8,
                     widths: tuple[int, int, int] = (24, 48, 96), skip: int = 4,
                     rate: float = 0.01, sigma: float = 1 / 30, step_count: int = 300) -> Any:
    """A deep image prior (Ulyanov, Vedaldi and Lempitsky) inpaints two 96x96 colour
    pictures with about a quarter of their pixels hidden: an hourglass from a fixed
    8-channel noise input, three levels down by a strided 3x3 convolution and a 3x3
    convolution each (24, 48 and 96 channels), and three levels up, each a bilinear
    upsampling (`jax.image.resize`), a concatenated four-channel skip (a pointwise
    convolution of the matching encoder level, or of the noise), a 3x3 and a pointwise
    convolution; every convolution normalized over its picture's own pixels (batch norm
    of a batch of one) and followed by a leaky ReLU; a pointwise convolution and a
    sigmoid give the picture. The loss is the squared error over the known pixels; the
    input is jittered by fresh Gaussian noise in every step; Adam. Returned with the PSNR
    of the hidden pixels against the clean pictures."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {}
    cin = noise_channels
    for l, c in enumerate(widths):
        shapes.update({f"e{l}a": (3, 3, cin, c), f"e{l}a_g": (c,), f"e{l}a_b": (c,),
                       f"e{l}b": (3, 3, c, c), f"e{l}b_g": (c,), f"e{l}b_b": (c,)})
        cin = c
    sources = (noise_channels, widths[0], widths[1])
    outputs = (widths[0], widths[0], widths[1])
    inputs = (widths[0], widths[1], widths[2])
    for l in range(3):
        shapes.update({f"s{l}": (sources[l], skip), f"s{l}_g": (skip,), f"s{l}_b": (skip,),
                       f"d{l}a": (3, 3, inputs[l] + skip, outputs[l]), f"d{l}a_g": (outputs[l],),
                       f"d{l}a_b": (outputs[l],), f"d{l}b": (outputs[l], outputs[l]),
                       f"d{l}b_g": (outputs[l],), f"d{l}b_b": (outputs[l],)})
    shapes.update({"out": (widths[0], 3), "out_b": (3,)})
    params = _weights(shapes, seed=109)

    def unit(p, name, x):
        return jax.nn.leaky_relu(_normalize(x, p[f"{name}_g"], p[f"{name}_b"], (1, 2)), 0.2)

    def forward(p, z):
        levels = [z]
        x = z
        for l in range(3):
            x = unit(p, f"e{l}a", _conv(x, p[f"e{l}a"], 2))
            x = unit(p, f"e{l}b", _conv(x, p[f"e{l}b"]))
            levels.append(x)
        for l in (2, 1, 0):
            side_branch = unit(p, f"s{l}", levels[l] @ p[f"s{l}"])
            b, h, w, c = x.shape
            up = jax.image.resize(x, (b, 2 * h, 2 * w, c), "bilinear")
            x = jnp.concatenate([up, side_branch], -1)
            x = unit(p, f"d{l}a", _conv(x, p[f"d{l}a"]))
            x = unit(p, f"d{l}b", x @ p[f"d{l}b"])
        return jax.nn.sigmoid(x @ p["out"] + p["out_b"])

    def step(p, opt, z, key, corrupted, known, clean):
        m, v, t = opt
        jitter = sigma * jax.random.normal(jax.random.fold_in(key, t), z.shape)

        def loss_fn(p):
            out = forward(p, z + jitter)
            return jnp.sum(known * jnp.square(out - corrupted)) / (3 * jnp.sum(known)), out

        (loss, out), g = jax.value_and_grad(loss_fn, has_aux=True)(p)
        p, m, v = _adam(p, g, m, v, t + 1, rate)
        hidden = 1 - known
        error = jnp.sum(hidden * jnp.square(out - clean), (1, 2, 3)) / (
            3 * jnp.sum(hidden, (1, 2, 3)) + 1e-6)
        return p, (m, v, t + 1), loss, -10 * jnp.log10(error + 1e-10), out

    rng = np.random.default_rng(109)
    clean, known, corrupted = _inpainting_pictures(rng, pictures, side)
    z = (0.1 * rng.uniform(0, 1, (pictures, side, side, noise_channels))).astype(np.float32)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(step_count, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(z), jax.random.PRNGKey(109),
                               jnp.asarray(corrupted), jnp.asarray(known), jnp.asarray(clean))


def _copying_tokens(rng: Any, count: int, length: int, vocab: int, branching: int = 5,
                    copy_rate: float = 0.02) -> Any:
    """numpy int32 token sequences (count, length): a sparse bigram source (five
    successors per token, chosen with probabilities falling as 1/k) interrupted now and
    then by a copy of an earlier span of 8 to 32 tokens of the same sequence."""
    import numpy as np

    table = np.random.default_rng(9400 + vocab).integers(0, vocab, (vocab, branching))
    share = 1.0 / np.arange(1, branching + 1)
    share /= share.sum()
    tokens = np.zeros((count, length), np.int32)
    for i in range(count):
        tokens[i, 0] = rng.integers(0, vocab)
        t = 1
        while t < length:
            if t > 48 and rng.random() < copy_rate:
                span = int(rng.integers(8, 33))
                start = int(rng.integers(0, t - span))
                n = min(span, length - t)
                tokens[i, t:t + n] = tokens[i, start:start + n]
                t += n
            else:
                tokens[i, t] = table[tokens[i, t - 1], rng.choice(branching, p=share)]
                t += 1
    return tokens


def primer_mdha_lm(batch: int = 4, length: int = 256, vocab: int = 384, width: int = 128,
                   heads: int = 4, layers: int = 2, hidden: int = 512, kernel: int = 3,
                   rate: float = 1e-3, warmup: int = 100, decay: float = 0.01,
                   clip: float = 1.0, step_count: int = 200) -> Any:
    """Primer (So, Manke, Liu et al.) in bfloat16 over float32 master weights models
    sequences of a bigram source with copied spans: learned positions, pre-norm blocks
    whose multi-Dconv-head attention passes every query, key and value projection through
    a causal depthwise convolution of width 3 along the sequence (started near the
    identity) before causal softmax attention, and squared-ReLU feed-forward layers of 512.
    AdamW with global-norm clipping, the rate warmed up and then decayed as the inverse
    square root of the step count."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    size = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, width), "pos": (length, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}q": (width, width),
                       f"{l}k": (width, width), f"{l}v": (width, width),
                       f"{l}dq": (kernel, 1, width), f"{l}dk": (kernel, 1, width),
                       f"{l}dv": (kernel, 1, width), f"{l}o": (width, width),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,), f"{l}up": (width, hidden),
                       f"{l}up_b": (hidden,), f"{l}down": (hidden, width),
                       f"{l}down_b": (width,)})
    shapes.update({"nf_g": (width,), "nf_b": (width,), "out": (width, vocab)})
    params = _weights(shapes, seed=110)
    identity = np.zeros((kernel, 1, width), np.float32)
    identity[-1] = 1.0
    for l in range(layers):
        for name in ("dq", "dk", "dv"):
            params[f"{l}{name}"] = 0.1 * params[f"{l}{name}"] + jnp.asarray(identity)
    causal = np.tril(np.ones((length, length), bool))

    def forward(p32, tokens):
        p = jax.tree.map(lambda w: w.astype(bf16), p32)
        b, n = tokens.shape
        x = p["embed"][tokens] + p["pos"][:n]

        def project(h, name):
            y = _conv(h @ p[name], p[name[:-1] + "d" + name[-1]], padding=((kernel - 1, 0),),
                      groups=width)
            return y.reshape(b, n, heads, size)

        for l in range(layers):
            h = _normalize(x, p[f"{l}n1_g"], p[f"{l}n1_b"])
            q, k, v = project(h, f"{l}q"), project(h, f"{l}k"), project(h, f"{l}v")
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(f32) / math.sqrt(size)
            att = jax.nn.softmax(jnp.where(causal[:n, :n], scores, -1e9), -1).astype(bf16)
            mixed = jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, n, width)
            x = x + mixed @ p[f"{l}o"]
            h = _normalize(x, p[f"{l}n2_g"], p[f"{l}n2_b"])
            x = x + jnp.square(jax.nn.relu(h @ p[f"{l}up"] + p[f"{l}up_b"])) @ p[f"{l}down"] \
                + p[f"{l}down_b"]
        return (_normalize(x, p["nf_g"], p["nf_b"]) @ p["out"]).astype(f32)

    def loss_fn(p, tokens):
        return jnp.mean(_xent(forward(p, tokens[:, :-1]), tokens[:, 1:]))

    def step(p, opt, tokens):
        m, v, t = opt
        loss, g = jax.value_and_grad(loss_fn)(p, tokens)
        norm = _global_norm(g)
        g = jax.tree.map(lambda d: d * jnp.minimum(1.0, clip / (norm + 1e-6)), g)
        t = t + 1
        tf = t.astype(f32)
        lr = rate * jnp.minimum(1.0, tf / warmup) * jax.lax.rsqrt(jnp.maximum(tf / warmup, 1.0))
        p, m, v = _adam(p, g, m, v, t, lr, b2=0.98, decay=decay)
        return p, (m, v, t), loss, norm

    rng = np.random.default_rng(110)
    tokens = _copying_tokens(rng, batch, length + 1, vocab)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(step_count, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(tokens))


def _syllable_text(rng: Any, count: int, length: int) -> Any:
    """numpy int32 byte sequences (count, length) of pseudo-English prose, as printable
    ASCII codes minus 32: words of one to three syllables from a fixed inventory of 600,
    chosen by a Zipf law, in sentences of five to fourteen words with a capital, now and
    then a comma, and a full stop."""
    import numpy as np

    table = np.random.default_rng(8400)
    onsets = ["", "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "w",
              "st", "tr", "pl", "ch", "sh", "th"]
    nuclei = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "y"]
    codas = ["", "", "", "n", "r", "s", "t", "l", "nd", "st", "ck", "m"]
    words = []
    for _ in range(600):
        syllables = int(table.integers(1, 4))
        words.append("".join(onsets[int(table.integers(len(onsets)))]
                             + nuclei[int(table.integers(len(nuclei)))]
                             + codas[int(table.integers(len(codas)))]
                             for _ in range(syllables)))
    share = 1.0 / np.arange(1, len(words) + 1) ** 1.1
    share /= share.sum()
    out = np.zeros((count, length), np.int32)
    for i in range(count):
        text = ""
        while len(text) < length:
            sentence = [words[j] for j in rng.choice(len(words), int(rng.integers(5, 15)),
                                                       p=share)]
            if rng.random() < 0.4:
                at = int(rng.integers(0, len(sentence) - 1))
                sentence[at] += ","
            sentence[0] = sentence[0].capitalize()
            text += " ".join(sentence) + ". "
        out[i] = np.frombuffer(text[:length].encode("ascii"), np.uint8).astype(np.int32) - 32
    return out


def qrnn_ntasgd(batch: int = 8, length: int = 192, vocab: int = 96, embed: int = 64,
                hidden: int = 192, layers: int = 2, rate: float = 0.5, clip: float = 0.25,
                zoneout: float = 0.1, interval: int = 5, window: int = 16,
                step_count: int = 60) -> Any:
    """A quasi-recurrent neural network (Bradbury, Merity, Xiong and Socher) models
    pseudo-English bytes: an embedding of 64, two QRNN layers of 192 whose candidate,
    forget and output gates come from one matrix over each position and its predecessor
    (a causal convolution of width 2) and whose fo-pooling c = f c + (1 - f) z is a
    `lax.scan` over the 192 positions, zoneout on the forget gates (a gate set to one at
    random), and a softmax over 96 byte values. NT-ASGD (Merity, Keskar and Socher): SGD
    with global-norm clipping at 0.25; after every step the loss of a held-out batch is
    checked, and averaging is triggered once it exceeds the best loss recorded more than
    five checks ago (a ring of the last sixteen checks with their step numbers); from
    then on a running average of the iterates is kept beside them."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab, embed)}
    width = embed
    for l in range(layers):
        shapes.update({f"w{l}": (2 * width, 3 * hidden), f"w{l}_b": (3 * hidden,)})
        width = hidden
    shapes.update({"out": (hidden, vocab), "out_b": (vocab,)})
    params = _weights(shapes, seed=111)

    def forward(p, tokens, key):
        x = p["embed"][tokens]
        b = tokens.shape[0]
        for l in range(layers):
            before = jnp.pad(x, ((0, 0), (1, 0), (0, 0)))[:, :-1]
            gates = jnp.concatenate([before, x], -1) @ p[f"w{l}"] + p[f"w{l}_b"]
            z, f, o = jnp.split(gates, 3, -1)
            z, f, o = jnp.tanh(z), jax.nn.sigmoid(f), jax.nn.sigmoid(o)
            if key is not None:
                keep = jax.random.bernoulli(jax.random.fold_in(key, l), 1 - zoneout, f.shape)
                f = jnp.where(keep, f, 1.0)

            def pool(c, fz):
                f_t, z_t = fz
                c = f_t * c + (1 - f_t) * z_t
                return c, c

            _, cells = lax.scan(pool, jnp.zeros((b, hidden)),
                                (jnp.moveaxis(f, 1, 0), jnp.moveaxis(z, 1, 0)))
            x = o * jnp.moveaxis(cells, 0, 1)
        return x @ p["out"] + p["out_b"]

    def loss_fn(p, tokens, key):
        return jnp.mean(_xent(forward(p, tokens[:, :-1], key), tokens[:, 1:])) / math.log(2)

    def step(p, state, tokens, held_out, key):
        average, count, trigger, history, stamps, t = state
        loss, g = jax.value_and_grad(loss_fn)(p, tokens, jax.random.fold_in(key, t))
        norm = _global_norm(g)
        p = jax.tree.map(lambda w, d: w - rate * d * jnp.minimum(1.0, clip / (norm + 1e-6)),
                         p, g)
        checked = loss_fn(p, held_out, None)
        older = (stamps >= 0) & (t - stamps > interval)
        best_old = jnp.min(jnp.where(older, history, jnp.inf))
        trigger = jnp.where((trigger < 0) & (checked > best_old), t, trigger)
        history = history.at[t % window].set(checked)
        stamps = stamps.at[t % window].set(t)
        averaging = trigger >= 0
        count = jnp.where(averaging, count + 1, 0)
        share = 1.0 / jnp.maximum(count, 1).astype(jnp.float32)
        average = jax.tree.map(lambda a, w: jnp.where(averaging, a + share * (w - a), w),
                               average, p)
        return p, (average, count, trigger, history, stamps, t + 1), loss, checked

    rng = np.random.default_rng(111)
    text = _syllable_text(rng, 2 * batch, length + 1)
    state = (jax.tree.map(jnp.copy, params), jnp.asarray(0, jnp.int32),
             jnp.asarray(-1, jnp.int32), jnp.zeros(window, jnp.float32),
             jnp.full(window, -1, jnp.int32), jnp.asarray(step_count, jnp.int32))
    return jax.jit(step).lower(params, state, jnp.asarray(text[:batch]),
                               jnp.asarray(text[batch:]), jax.random.PRNGKey(111))


def _block_model_graph(rng: Any, nodes: int, classes: int, features: int, degree: int,
                       inside: float = 0.8) -> tuple[Any, ...]:
    """A stochastic block model on the host: int32 class labels (nodes,), float32 node
    features (nodes, features) (a class mean plus noise), and the directed edges of an
    undirected graph without self-loops (int32 senders and receivers, each undirected
    edge both ways, about degree per node, 80% of them inside a class) with the float32
    weights of the scaled normalized Laplacian's off-diagonal, -1 / sqrt(d_s d_r)."""
    import numpy as np

    labels = rng.integers(0, classes, nodes)
    draws = nodes * degree // 2
    src = rng.integers(0, nodes, draws)
    dst = rng.integers(0, nodes, draws)
    same = rng.random(draws) < inside
    for c in range(classes):
        members = np.flatnonzero(labels == c)
        pick = same & (labels[src] == c)
        dst[pick] = rng.choice(members, int(pick.sum()))
    keep = src != dst
    src, dst = src[keep], dst[keep]
    code = np.unique(np.concatenate([src * nodes + dst, dst * nodes + src]))
    senders, receivers = code // nodes, code % nodes
    deg = np.bincount(receivers, minlength=nodes).astype(np.float64)
    weight = -1.0 / np.sqrt(deg[senders] * deg[receivers])
    means = rng.standard_normal((classes, features))
    x = means[labels] + 1.5 * rng.standard_normal((nodes, features))
    return (labels.astype(np.int32), x.astype(np.float32), senders.astype(np.int32),
            receivers.astype(np.int32), weight.astype(np.float32))


def chebnet_agem(nodes: int = 2048, classes: int = 8, features: int = 32, degree: int = 10,
                 hidden: int = 64, order: int = 3, memory: int = 128, rate: float = 0.01,
                 dropout: float = 0.5, step_count: int = 50) -> Any:
    """ChebNet (Defferrard, Bresson and Vandergheynst) classifies the nodes of a
    2048-node stochastic block model in two tasks learned in turn (classes 0-3, then
    classes 4-7, one four-way head each), now in the second: two layers of Chebyshev
    polynomial filters of order three (T0 = x, T1 = L x, T2 = 2 L T1 - T0 through the
    scaled normalized Laplacian, each product a gather over 20 000 directed edges and a
    scatter-add), ReLU and dropout. A-GEM (Chaudhry, Ranzato, Rohrbach and Elhoseiny):
    the gradient of the current task on its training nodes is compared with the gradient
    of the first task on an episodic memory of 128 of its nodes and, when they conflict,
    projected to be orthogonal to it; Adam steps along the result. Returned with the
    losses, whether the projection acted, and the test accuracies of both tasks."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    half = classes // 2
    shapes = {"c1": (order, features, hidden), "c1_b": (hidden,),
              "c2": (order, hidden, classes), "c2_b": (classes,)}
    params = _weights(shapes, seed=112)

    def propagate(x, graph):
        senders, receivers, weight = graph
        return jnp.zeros_like(x).at[receivers].add(weight[:, None] * x[senders])

    def cheb(x, w, b, graph):
        terms = [x, propagate(x, graph)]
        for _ in range(2, order):
            terms.append(2 * propagate(terms[-1], graph) - terms[-2])
        return sum(t @ w[k] for k, t in enumerate(terms)) + b

    def drop(x, key):
        if key is None:
            return x
        return jnp.where(jax.random.bernoulli(key, 1 - dropout, x.shape), x / (1 - dropout), 0)

    def forward(p, x, graph, key):
        keys = (None, None) if key is None else jax.random.split(key)
        h = jax.nn.relu(cheb(drop(x, keys[0]), p["c1"], p["c1_b"], graph))
        return cheb(drop(h, keys[1]), p["c2"], p["c2_b"], graph)

    def task_loss(p, x, graph, key, index, labels, offset):
        logits = forward(p, x, graph, key)[index][:, offset:offset + half]
        return jnp.mean(_xent(logits, labels))

    def step(p, opt, x, graph, key, current, current_y, memory_nodes, memory_y,
             test_a, test_a_y, test_b, test_b_y):
        m, v, t = opt
        key = jax.random.fold_in(key, t)
        loss, g = jax.value_and_grad(task_loss)(p, x, graph, key, current, current_y, half)
        loss_ref, g_ref = jax.value_and_grad(task_loss)(p, x, graph, key, memory_nodes,
                                                        memory_y, 0)
        dot = _tree_dot(g, g_ref)
        conflict = dot < 0
        share = jnp.where(conflict, dot / (_tree_dot(g_ref, g_ref) + 1e-12), 0.0)
        g = jax.tree.map(lambda d, r: d - share * r, g, g_ref)
        p, m, v = _adam(p, g, m, v, t + 1, rate, decay=5e-4)
        logits = forward(p, x, graph, None)
        acc_a = jnp.mean(jnp.argmax(logits[test_a][:, :half], -1) == test_a_y)
        acc_b = jnp.mean(jnp.argmax(logits[test_b][:, half:], -1) == test_b_y)
        return p, (m, v, t + 1), loss, loss_ref, conflict, acc_a, acc_b

    rng = np.random.default_rng(112)
    labels, x, senders, receivers, weight = _block_model_graph(rng, nodes, classes, features,
                                                               degree)
    train = rng.random(nodes) < 0.4
    first = labels < half
    pool_a = np.flatnonzero(train & first)
    memory_nodes = rng.choice(pool_a, memory, replace=False)
    current = np.flatnonzero(train & ~first)
    test_a, test_b = np.flatnonzero(~train & first), np.flatnonzero(~train & ~first)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(step_count, jnp.int32))
    graph = (jnp.asarray(senders), jnp.asarray(receivers), jnp.asarray(weight))
    arrays = [current, labels[current] - half, memory_nodes, labels[memory_nodes],
              test_a, labels[test_a], test_b, labels[test_b] - half]
    return jax.jit(step).lower(params, opt, jnp.asarray(x), graph, jax.random.PRNGKey(112),
                               *(jnp.asarray(a.astype(np.int32)) for a in arrays))


def _click_table(rng: Any, count: int, vocabs: tuple[int, ...], numeric: int
                 ) -> tuple[Any, Any, Any]:
    """numpy click data: int32 categories (count, fields), each field Zipf-distributed
    over its vocabulary; float32 numbers (count, numeric); float32 labels (count,) drawn
    from a hidden logistic model with per-category effects, three crossed pairs of
    fields and a nonlinear function of the numbers."""
    import numpy as np

    hidden = np.random.default_rng(8500)
    cats = np.zeros((count, len(vocabs)), np.int64)
    logit = np.full(count, -1.0)
    for f, size in enumerate(vocabs):
        share = 1.0 / np.arange(1, size + 1)
        cats[:, f] = rng.choice(size, count, p=share / share.sum())
        logit += hidden.normal(0, 0.5, size)[cats[:, f]]
    for a, b in ((0, 2), (1, 5), (3, 7)):
        logit += hidden.normal(0, 1.0, (vocabs[a], vocabs[b]))[cats[:, a], cats[:, b]]
    nums = rng.standard_normal((count, numeric))
    logit += 0.8 * np.sin(2 * nums[:, 0]) + 0.5 * nums[:, 1] * nums[:, 2] - 0.3 * nums[:, 3] ** 2
    labels = rng.random(count) < 1 / (1 + np.exp(-logit))
    return cats.astype(np.int32), nums.astype(np.float32), labels.astype(np.float32)


def wide_deep_ekf(batch: int = 64, vocabs: tuple[int, ...] = (12, 7, 24, 31, 5, 48, 16, 64),
                  numeric: int = 6, embed: int = 4, hidden: tuple[int, int] = (12, 6),
                  buckets: int = 1024, rate: float = 0.05, noise: float = 0.25,
                  drift: float = 1e-4, prior: float = 1.0) -> Any:
    """Wide & Deep (Cheng et al.) predicts clicks from eight categorical fields and six
    numbers. The wide part sums per-category weights and the weights of all 28 pairwise
    field crosses, hashed into 1024 buckets in the step (uint32 multiplies, XORs and
    shifts); the deep tower embeds every field in four dimensions, appends the numbers
    and applies a 38-12-6-1 ReLU MLP; the probability is the sigmoid of the sum. The wide
    weights and the embeddings take an AdaGrad step on the log loss. The tower's 553
    weights are the state of a global extended Kalman filter (Singhal and Wu) whose
    measurements are the labels: the per-example Jacobians of the predicted
    probabilities (a `vmap` of gradients of the flattened weights), the innovation
    covariance H P H^T + R solved against H P by Gauss-Jordan elimination without
    pivoting (a `fori_loop` over the 64 pivots), the weights moved by the gain times the
    innovations, and the 553x553 covariance updated, given a little process noise and
    symmetrized."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.flatten_util import ravel_pytree

    u32 = jnp.uint32
    fields = len(vocabs)
    offsets = jnp.asarray(np.cumsum((0,) + vocabs[:-1]), jnp.int32)
    total = sum(vocabs)
    pairs = [(a, b) for a in range(fields) for b in range(a + 1, fields)]
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    salt = jnp.asarray(((np.arange(len(pairs), dtype=np.uint64) * 0x27D4EB2F) % (1 << 32))
                       .astype(np.uint32))
    wide = _weights({"wide_z": (total,), "cross_z": (buckets,), "bias_z": (1,),
                     "embed": (total, embed)}, seed=113, scale=math.sqrt(total) * 0.05)
    deep = _weights({"h1": (fields * embed + numeric, hidden[0]), "h1_b": (hidden[0],),
                     "h2": (hidden[0], hidden[1]), "h2_b": (hidden[1],),
                     "h3": (hidden[1], 1), "h3_b": (1,)}, seed=114, scale=math.sqrt(2.0))
    theta, unravel = ravel_pytree(deep)
    n = theta.shape[0]

    def crosses(cats):
        a = cats[:, first].astype(u32)
        b = cats[:, second].astype(u32)
        h = (a * u32(0x9E3779B1)) ^ ((b + salt) * u32(0x85EBCA77))
        h = h ^ (h >> 15)
        h = h * u32(0x2C1B3C6D)
        h = h ^ (h >> 12)
        return (h & u32(buckets - 1)).astype(jnp.int32)

    def wide_logit(w, cats, crossed):
        return (jnp.sum(w["wide_z"][cats + offsets], -1) + jnp.sum(w["cross_z"][crossed], -1)
                + w["bias_z"][0])

    def deep_input(w, cats, nums):
        e = w["embed"][cats + offsets].reshape(cats.shape[0], -1)
        return jnp.concatenate([e, nums], -1)

    def tower(theta, x):
        d = unravel(theta)
        h = jax.nn.relu(x @ d["h1"] + d["h1_b"])
        h = jax.nn.relu(h @ d["h2"] + d["h2_b"])
        return (h @ d["h3"] + d["h3_b"])[..., 0]

    def pivot(i, a):
        row = lax.dynamic_index_in_dim(a, i, 0, keepdims=False)
        row = row / lax.dynamic_index_in_dim(row, i, 0, keepdims=False)
        column = lax.dynamic_index_in_dim(a, i, 1, keepdims=False)
        a = a - column[:, None] * row[None, :]
        return lax.dynamic_update_index_in_dim(a, row, i, 0)

    def step(w, acc, theta, cov, cats, nums, labels):
        crossed = crosses(cats)

        def loss_fn(w):
            logit = wide_logit(w, cats, crossed) + tower(theta, deep_input(w, cats, nums))
            return jnp.mean(jax.nn.softplus(logit) - labels * logit), logit

        (loss, logit), g = jax.value_and_grad(loss_fn, has_aux=True)(w)
        acc = jax.tree.map(lambda a, d: a + d * d, acc, g)
        x = deep_input(w, cats, nums)
        other = wide_logit(w, cats, crossed)
        w = jax.tree.map(lambda p, d, a: p - rate * d / (jnp.sqrt(a) + 1e-6), w, g, acc)

        def probability(theta, x_i, o_i):
            return jax.nn.sigmoid(o_i + tower(theta, x_i))

        predicted = jax.vmap(probability, (None, 0, 0))(theta, x, other)
        jac = jax.vmap(jax.grad(probability), (None, 0, 0))(theta, x, other)      # (B, n)
        ph = cov @ jac.T                                                           # (n, B)
        innovation_cov = jac @ ph + noise * jnp.eye(batch)
        solved = lax.fori_loop(0, batch, pivot, jnp.concatenate([innovation_cov, ph.T], 1))
        gain_t = solved[:, batch:]                                                 # (B, n)
        theta = theta + gain_t.T @ (labels - predicted)
        cov = cov - ph @ gain_t + drift * jnp.eye(n)
        cov = 0.5 * (cov + cov.T)
        accuracy = jnp.mean((logit > 0) == (labels > 0.5))
        return w, acc, theta, cov, loss, accuracy, jnp.trace(cov)

    rng = np.random.default_rng(113)
    cats, nums, labels = _click_table(rng, batch, vocabs, numeric)
    acc = jax.tree.map(lambda p: jnp.full(p.shape, 0.1, jnp.float32), wide)
    return jax.jit(step).lower(wide, acc, theta, prior * jnp.eye(n, dtype=jnp.float32),
                               jnp.asarray(cats), jnp.asarray(nums), jnp.asarray(labels))


def _stroke_glyphs(rng: Any, count: int, side: int) -> Any:
    """numpy float32 binary glyphs (count, side * side): a polyline through three to five
    random points, every pixel within 0.9 of a segment set."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    out = np.zeros((count, side, side), bool)
    for i in range(count):
        points = rng.uniform(1.5, side - 1.5, (int(rng.integers(3, 6)), 2))
        for (ax, ay), (bx, by) in zip(points[:-1], points[1:]):
            dx, dy = bx - ax, by - ay
            t = np.clip(((xx - ax) * dx + (yy - ay) * dy) / (dx * dx + dy * dy + 1e-9), 0, 1)
            out[i] |= (xx - ax - t * dx) ** 2 + (yy - ay - t * dy) ** 2 < 0.81
    return out.reshape(count, -1).astype(np.float32)


def nade_glyphs(batch: int = 32, side: int = 12, hidden: int = 32, samples: int = 16,
                rate: float = 3e-3, total: int = 2000, step_count: int = 100) -> Any:
    """A NADE (Larochelle and Murray) learns 12x12 binary stroke glyphs: the hidden
    pre-activation of pixel d is c + W v_<d, for all pixels at once an exclusive `cumsum`
    over the pixel axis of the products of the pixels with their columns of W (a
    batch x 144 x 32 tensor), then a sigmoid, and each pixel's logit a dot product with
    its own row of V. The loss is the negative log-likelihood in bits per pixel; Adam
    under a cosine decay. Sixteen glyphs are drawn by ancestral sampling, a `fori_loop`
    over the 144 pixels that updates the running pre-activation with every drawn pixel."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    dims = side * side
    params = _weights({"w": (dims, hidden), "c_b": (hidden,), "v": (hidden, dims),
                       "b_b": (dims,)}, seed=115, scale=math.sqrt(dims / 16))

    def log_likelihood(p, x):
        contrib = x[:, :, None] * p["w"][None]
        a = p["c_b"] + jnp.cumsum(contrib, 1) - contrib
        logits = jnp.einsum("bdh,hd->bd", jax.nn.sigmoid(a), p["v"]) + p["b_b"]
        return jnp.sum(x * logits - jax.nn.softplus(logits), -1)

    def loss_fn(p, x):
        return -jnp.mean(log_likelihood(p, x)) / (dims * math.log(2))

    def sample(p, key):
        uniform = jax.random.uniform(key, (samples, dims))

        def pixel(d, carry):
            a, drawn = carry
            column = lax.dynamic_index_in_dim(p["v"], d, 1, keepdims=False)
            logit = jax.nn.sigmoid(a) @ column + lax.dynamic_index_in_dim(p["b_b"], d, 0,
                                                                          keepdims=False)
            bit = (lax.dynamic_index_in_dim(uniform, d, 1, keepdims=False)
                   < jax.nn.sigmoid(logit)).astype(jnp.float32)
            drawn = lax.dynamic_update_index_in_dim(drawn, bit, d, 1)
            a = a + bit[:, None] * lax.dynamic_index_in_dim(p["w"], d, 0, keepdims=False)
            return a, drawn

        start = (jnp.broadcast_to(p["c_b"], (samples, hidden)), jnp.zeros((samples, dims)))
        return lax.fori_loop(0, dims, pixel, start)[1]

    def step(p, opt, x, key):
        m, v, t = opt
        loss, g = jax.value_and_grad(loss_fn)(p, x)
        t = t + 1
        lr = rate * 0.5 * (1 + jnp.cos(jnp.pi * jnp.minimum(t.astype(jnp.float32) / total, 1.0)))
        p, m, v = _adam(p, g, m, v, t, lr)
        drawn = sample(p, jax.random.fold_in(key, t))
        return p, (m, v, t), loss, drawn.reshape(samples, side, side), jnp.mean(drawn)

    rng = np.random.default_rng(115)
    glyphs = _stroke_glyphs(rng, batch, side)
    opt = (_zeros_like(params), _zeros_like(params), jnp.asarray(step_count, jnp.int32))
    return jax.jit(step).lower(params, opt, jnp.asarray(glyphs), jax.random.PRNGKey(115))


def prng_test_battery(lanes: int = 16384, draws: int = 4, day_bits: int = 22,
                      birthdays: int = 1024, cell_bits: int = 6) -> Any:
    """A battery of statistical tests of two uint32 random number generators, no
    gradient: xoshiro128** (Blackman and Vigna; rotations, shifts and XORs) and the
    32-bit linear congruential generator of Numerical Recipes (a multiply and an add that
    wrap), each run in 16384 lanes seeded by splitmix32 and drawing four numbers per lane
    in a `fori_loop` (65536 draws). Tests: Kolmogorov-Smirnov and Anderson-Darling
    statistics of the top 24 bits as uniforms, from one `sort` of all 65536 draws;
    Marsaglia's birthday spacings (the top 22 bits as days, 64 rows of 1024 birthdays,
    each row sorted, its spacings sorted, repeated spacings counted against the Poisson
    mean m^3 / 4n = 64, with a scatter-add histogram of the counts); the frequency of
    every bit position and the total `population_count`; runs of the lowest bit; and
    serial tests of pairs of consecutive draws in 4096 cells (six low bits and six high
    bits, scatter-add histograms and chi-squared statistics)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32 = jnp.uint32
    count = lanes * draws
    rows = count // birthdays
    days = 1 << day_bits
    expected = birthdays ** 3 / (4.0 * days)
    cells = 1 << (2 * cell_bits)

    def splitmix(z):
        z = z + u32(0x9E3779B9)
        z = (z ^ (z >> 16)) * u32(0x85EBCA6B)
        z = (z ^ (z >> 13)) * u32(0xC2B2AE35)
        return z ^ (z >> 16)

    def rotl(x, r):
        return (x << r) | (x >> (32 - r))

    def xoshiro(seed):
        s0 = splitmix(jnp.arange(lanes, dtype=u32) * u32(4) + seed)
        s1 = splitmix(s0)
        s2 = splitmix(s1)
        s3 = splitmix(s2)

        def draw(i, carry):
            s0, s1, s2, s3, out = carry
            result = rotl(s1 * u32(5), 7) * u32(9)
            t = s1 << 9
            s2 = s2 ^ s0
            s3 = s3 ^ s1
            s1 = s1 ^ s2
            s0 = s0 ^ s3
            s2 = s2 ^ t
            s3 = rotl(s3, 11)
            return s0, s1, s2, s3, lax.dynamic_update_index_in_dim(out, result, i, 0)

        start = (s0, s1, s2, s3, jnp.zeros((draws, lanes), u32))
        return lax.fori_loop(0, draws, draw, start)[-1].reshape(-1)

    def lcg(seed):
        x = splitmix(jnp.arange(lanes, dtype=u32) + seed)

        def draw(i, carry):
            x, out = carry
            x = x * u32(1664525) + u32(1013904223)
            return x, lax.dynamic_update_index_in_dim(out, x, i, 0)

        return lax.fori_loop(0, draws, draw, (x, jnp.zeros((draws, lanes), u32)))[1].reshape(-1)

    def serial(values):
        pairs = (values[:, 0::2] << cell_bits) | values[:, 1::2]
        which = jnp.arange(2, dtype=jnp.int32)[:, None]
        table = jnp.zeros((2, cells), jnp.float32).at[which, pairs.astype(jnp.int32)].add(1.0)
        mean = (count // 2) / cells
        return jnp.sum(jnp.square(table - mean) / mean, -1)

    def run(seeds):
        x = jnp.stack([xoshiro(seeds[0]), lcg(seeds[1])])                       # (2, count)
        u = ((x >> 8).astype(jnp.float32) + 0.5) * (1.0 / (1 << 24))
        ordered = jnp.sort(u, -1)
        rank = jnp.arange(1, count + 1, dtype=jnp.float32) / count
        ks = jnp.maximum(jnp.max(rank - ordered, -1), jnp.max(ordered - (rank - 1.0 / count), -1))
        weight = 2 * jnp.arange(1, count + 1, dtype=jnp.float32) - 1
        ad = -count - jnp.mean(weight * (jnp.log(ordered) + jnp.log1p(-ordered[:, ::-1])), -1)
        day = (x >> (32 - day_bits)).astype(jnp.int32).reshape(2, rows, birthdays)
        day = jnp.sort(day, -1)
        gaps = jnp.sort(jnp.concatenate([day[..., :1], day[..., 1:] - day[..., :-1]], -1), -1)
        repeats = jnp.sum(gaps[..., 1:] == gaps[..., :-1], -1)                  # (2, rows)
        spread = jnp.zeros((2, 4 * int(expected)), jnp.int32).at[
            jnp.arange(2)[:, None], jnp.minimum(repeats, 4 * int(expected) - 1)].add(1)
        birthday_z = (jnp.mean(repeats.astype(jnp.float32), -1) - expected) / math.sqrt(
            expected / rows)
        bits = (x[..., None] >> jnp.arange(32, dtype=u32)) & u32(1)
        ones = jnp.sum(bits.astype(jnp.int32), 1)                               # (2, 32)
        frequency_z = (ones - count / 2) / math.sqrt(count / 4)
        popcount = jnp.sum(lax.population_count(x).astype(jnp.int32), -1)
        low = x & u32(1)
        runs = 1 + jnp.sum((low[:, 1:] ^ low[:, :-1]).astype(jnp.int32), -1)
        runs_z = (runs - (count + 1) / 2) / math.sqrt((count - 1) / 4)
        low_chi2 = serial(x & u32((1 << cell_bits) - 1))
        high_chi2 = serial(x >> (32 - cell_bits))
        return (ks * math.sqrt(count), ad, birthday_z, spread, frequency_z, popcount, runs_z,
                low_chi2, high_chi2)

    seeds = jnp.asarray(np.array([0x2545F491, 0x9E3779B9], np.uint32))
    return jax.jit(run).lower(seeds)


def _sensor_series(rng: Any, count: int, length: int) -> Any:
    """numpy float32 series (count, length): an AR(1) process (coefficient 0.3 to 0.95)
    driven by Student-t shocks of three degrees of freedom, a seasonal sine, rare level
    shifts and ten spikes of 8 to 15 shock scales."""
    import numpy as np

    t = np.arange(length)
    out = np.zeros((count, length))
    for s in range(count):
        phi, scale = rng.uniform(0.3, 0.95), rng.uniform(0.5, 2.0)
        shocks = scale * rng.standard_t(3, length)
        ar = np.zeros(length)
        for i in range(1, length):
            ar[i] = phi * ar[i - 1] + shocks[i]
        season = rng.uniform(0, 3) * np.sin(2 * np.pi * t / rng.uniform(24, 200)
                                            + rng.uniform(0, 2 * np.pi))
        level = np.cumsum(np.where(rng.random(length) < 0.002, rng.normal(0, 5, length), 0.0))
        where = rng.choice(length, 10, replace=False)
        ar[where] += rng.choice([-1.0, 1.0], 10) * rng.uniform(8, 15, 10) * scale
        out[s] = ar + season + level
    return out.astype(np.float32)


def l_moments_rolling(series: int = 32, length: int = 1024, window: int = 16, trim: int = 2,
                      worst: int = 8, threshold: float = 5.0) -> Any:
    """Rolling L-moments (Hosking) of 32 sensor series in sliding windows of 16 samples,
    no gradient: the 1009 windows of every series stacked from shifted slices and each
    sorted (`sort` over a last axis of 16, 32 288 short segments); the probability-weighted
    moments b0..b3 of every window by one matrix product with fixed order-statistic
    weights, giving the L-location, L-scale, L-skewness and L-kurtosis; the median, and
    the median absolute deviation from a second sort of the absolute deviations; a
    robust score of each window's newest sample, flags above five, a trimmed mean, the
    three largest deviations of every window (`top_k` over 16) and the eight worst
    scores of every series (`top_k` over 1009)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = window
    weights = np.zeros((n, 4))
    for r in range(4):
        for j in range(n):
            weights[j, r] = math.comb(j, r) / math.comb(n - 1, r) / n
    weights = jnp.asarray(weights, jnp.float32)
    span = length - window + 1

    def run(x):
        windows = jnp.stack([x[:, j:j + span] for j in range(window)], -1)
        ordered = jnp.sort(windows, -1)
        b = ordered @ weights
        b0, b1, b2, b3 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        l2 = 2 * b1 - b0
        l3 = 6 * b2 - 6 * b1 + b0
        l4 = 20 * b3 - 30 * b2 + 12 * b1 - b0
        scale = jnp.maximum(l2, 1e-6)
        median = 0.5 * (ordered[..., n // 2 - 1] + ordered[..., n // 2])
        deviation = jnp.abs(windows - median[..., None])
        spread = jnp.sort(deviation, -1)
        mad = 0.5 * (spread[..., n // 2 - 1] + spread[..., n // 2])
        score = (windows[..., -1] - median) / (1.4826 * mad + 1e-6)
        flags = jnp.abs(score) > threshold
        trimmed = jnp.mean(ordered[..., trim:n - trim], -1)
        largest, _ = lax.top_k(deviation, 3)
        worst_scores, worst_at = lax.top_k(jnp.abs(score), worst)
        return (b0, l2, l3 / scale, l4 / scale, median, mad, trimmed, jnp.sum(flags, -1),
                largest, worst_scores, worst_at)

    rng = np.random.default_rng(116)
    return jax.jit(run).lower(jnp.asarray(_sensor_series(rng, series, length)))


def kepler_ephemeris(bodies: int = 4096, epochs: int = 64, iterations: int = 8,
                     closest: int = 16, mu: float = 2.9591221e-4) -> Any:
    """Ephemerides of 4096 asteroid-like orbits (semi-major axes 0.6 to 5 AU,
    eccentricities up to 0.97, inclinations, nodes, perihelia and mean anomalies) at 64
    epochs over four years, no gradient: mean anomalies wrapped to [-pi, pi], Kepler's
    equation M = E - e sin E solved from Danby's start by eight Newton iterations in a
    `fori_loop`, then true anomalies (`atan2`), radii, perifocal positions and
    velocities rotated to the ecliptic frame by each orbit's three angles. Returned:
    positions, the largest residual of Kepler's equation, the vis-viva and
    angular-momentum residuals, and each body's closest approach to a circular Earth with
    its epoch, the sixteen closest bodies by `top_k`."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(elements, times):
        a, e, inc, node, peri, m0 = (elements[:, i] for i in range(6))
        motion = jnp.sqrt(mu / a ** 3)
        mean = m0[:, None] + motion[:, None] * times[None, :]
        mean = mean - 2 * jnp.pi * jnp.round(mean / (2 * jnp.pi))
        ecc = e[:, None]
        start = mean + 0.85 * ecc * jnp.sign(jnp.sin(mean))

        def newton(_, big_e):
            return big_e - (big_e - ecc * jnp.sin(big_e) - mean) / (1 - ecc * jnp.cos(big_e))

        big_e = lax.fori_loop(0, iterations, newton, start)
        residual = jnp.max(jnp.abs(big_e - ecc * jnp.sin(big_e) - mean))
        nu = 2 * jnp.arctan2(jnp.sqrt(1 + ecc) * jnp.sin(big_e / 2),
                             jnp.sqrt(1 - ecc) * jnp.cos(big_e / 2))
        r = a[:, None] * (1 - ecc * jnp.cos(big_e))
        semi_latus = a * (1 - e * e)
        speed = jnp.sqrt(mu / semi_latus)[:, None]
        xp, yp = r * jnp.cos(nu), r * jnp.sin(nu)
        vxp, vyp = -speed * jnp.sin(nu), speed * (ecc + jnp.cos(nu))
        cn, sn, cw, sw, ci, si = (jnp.cos(node), jnp.sin(node), jnp.cos(peri), jnp.sin(peri),
                                  jnp.cos(inc), jnp.sin(inc))
        axis_p = jnp.stack([cn * cw - sn * sw * ci, sn * cw + cn * sw * ci, sw * si], -1)
        axis_q = jnp.stack([-cn * sw - sn * cw * ci, -sn * sw + cn * cw * ci, cw * si], -1)
        pos = xp[..., None] * axis_p[:, None] + yp[..., None] * axis_q[:, None]
        vel = vxp[..., None] * axis_p[:, None] + vyp[..., None] * axis_q[:, None]
        distance = jnp.linalg.norm(pos, axis=-1)
        energy = 0.5 * jnp.sum(vel * vel, -1) - mu / distance
        vis_viva = jnp.max(jnp.abs(energy / (-mu / (2 * a[:, None])) - 1))
        momentum = jnp.linalg.norm(jnp.cross(pos, vel), axis=-1)
        momentum_error = jnp.max(jnp.abs(momentum / jnp.sqrt(mu * semi_latus)[:, None] - 1))
        earth_angle = 1.75 + math.sqrt(mu) * times
        earth = jnp.stack([jnp.cos(earth_angle), jnp.sin(earth_angle),
                           jnp.zeros_like(earth_angle)], -1)
        apart = jnp.linalg.norm(pos - earth[None], axis=-1)
        nearest, when = jnp.min(apart, -1), jnp.argmin(apart, -1)
        top, who = lax.top_k(-nearest, closest)
        return pos, residual, vis_viva, momentum_error, nearest, when, -top, who

    rng = np.random.default_rng(117)
    a = np.exp(rng.uniform(np.log(0.6), np.log(5.0), bodies))
    e = np.clip(1.2 * rng.beta(1.2, 4.0, bodies), 0, 0.97)
    inc = np.abs(rng.normal(0, 0.25, bodies))
    node, peri, m0 = rng.uniform(0, 2 * np.pi, (3, bodies))
    elements = np.stack([a, e, inc, node, peri, m0], 1).astype(np.float32)
    times = np.linspace(0, 1461, epochs).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(elements), jnp.asarray(times))


def fput_lyapunov(chains: int = 16, particles: int = 32, vectors: int = 6, rounds: int = 40,
                  substeps: int = 10, dt: float = 0.05, beta: float = 1.0) -> Any:
    """The six largest Lyapunov exponents (Benettin et al.) of sixteen
    Fermi-Pasta-Ulam-Tsingou beta chains of 32 particles with fixed ends, no gradient,
    started in the lowest normal mode at energies from 0.05 to 8: velocity Verlet steps of
    0.05 carry the state, and `jax.jvp` of the same step under `vmap` carries six tangent
    vectors; an inner `fori_loop` of ten steps alternates with modified Gram-Schmidt
    renormalization of the tangent vectors (their log-stretches summed), forty times in
    an outer `fori_loop`. Returned: the exponents, the relative energy drift, and the
    energies of the 32 normal modes (a matrix product with the sine transform)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = particles
    index = np.arange(1, n + 1)
    modes = np.sqrt(2.0 / (n + 1)) * np.sin(np.pi * np.outer(index, index) / (n + 1))
    omega = 2 * np.sin(np.pi * index / (2 * (n + 1)))

    def stretch(q):
        padded = jnp.pad(q, [(0, 0)] * (q.ndim - 1) + [(1, 1)])
        return padded[..., 1:] - padded[..., :-1]

    def force(q):
        s = stretch(q)
        tension = s + beta * s ** 3
        return tension[..., 1:] - tension[..., :-1]

    def energy(q, p):
        s = stretch(q)
        return 0.5 * jnp.sum(p * p, -1) + jnp.sum(0.5 * s * s + 0.25 * beta * s ** 4, -1)

    def verlet(state):
        q, p = state
        p = p + 0.5 * dt * force(q)
        q = q + dt * p
        p = p + 0.5 * dt * force(q)
        return q, p

    def run(q, p, tangent_q, tangent_p, mode_matrix, frequency):
        start_energy = energy(q, p)

        def substep(_, carry):
            q, p, tq, tp = carry
            tq, tp = jax.vmap(lambda a, b: jax.jvp(verlet, ((q, p),), ((a, b),))[1],
                              in_axes=1, out_axes=1)(tq, tp)
            q, p = verlet((q, p))
            return q, p, tq, tp

        def renormalize(_, carry):
            q, p, tq, tp, logs = carry
            q, p, tq, tp = lax.fori_loop(0, substeps, substep, (q, p, tq, tp))
            stacked = jnp.concatenate([tq, tp], -1)
            basis, stretches = [], []
            for j in range(vectors):
                v = stacked[:, j]
                for b in basis:
                    v = v - jnp.sum(v * b, -1, keepdims=True) * b
                norm = jnp.sqrt(jnp.sum(v * v, -1))
                basis.append(v / norm[:, None])
                stretches.append(jnp.log(norm))
            stacked = jnp.stack(basis, 1)
            return q, p, stacked[..., :n], stacked[..., n:], logs + jnp.stack(stretches, -1)

        q, p, _, _, logs = lax.fori_loop(0, rounds, renormalize,
                                         (q, p, tangent_q, tangent_p,
                                          jnp.zeros((q.shape[0], vectors))))
        exponents = logs / (rounds * substeps * dt)
        drift = (energy(q, p) - start_energy) / start_energy
        mode_q, mode_p = q @ mode_matrix, p @ mode_matrix
        mode_energy = 0.5 * (mode_p ** 2 + (frequency * mode_q) ** 2)
        return exponents, drift, mode_energy

    rng = np.random.default_rng(118)
    energies = np.geomspace(0.05, 8.0, chains)
    q0 = (np.sqrt(2 * energies) / omega[0])[:, None] * modes[:, 0][None]
    p0 = 1e-4 * rng.standard_normal((chains, n))
    tangents = np.stack([np.linalg.qr(rng.standard_normal((2 * n, vectors)))[0].T
                         for _ in range(chains)])
    arrays = (q0, p0, tangents[..., :n], tangents[..., n:], modes, omega)
    return jax.jit(run).lower(*(jnp.asarray(a, jnp.float32) for a in arrays))


def _sensor_samples(rng: Any, blocks: int, block: int) -> Any:
    """numpy int32 16-bit sensor samples (blocks, block): three sinusoids of random
    periods and amplitudes, a random walk and white noise of a per-block level, rounded
    and clipped to the int16 range."""
    import numpy as np

    t = np.arange(block)
    out = np.zeros((blocks, block))
    for b in range(blocks):
        signal = sum(rng.uniform(500, 6000) * np.sin(2 * np.pi * t / rng.uniform(40, 2000)
                                                     + rng.uniform(0, 2 * np.pi))
                     for _ in range(3))
        signal = signal + np.cumsum(rng.normal(0, rng.uniform(1, 20), block))
        out[b] = signal + rng.normal(0, rng.uniform(2, 60), block)
    return np.clip(np.round(out), -32768, 32767).astype(np.int32)


def golomb_rice_coding(blocks: int = 64, block: int = 4096, words: int = 131072,
                       parameters: int = 16) -> Any:
    """Rice coding (Golomb codes with power-of-two divisors) of 64 blocks of 4096 int16
    sensor samples, no gradient: second-order prediction residuals, zigzag-mapped to
    unsigned (shifts and an XOR); the parameter k of every block chosen among 0..15 by the
    exact coded length of each; every code a unary quotient of zeros then a one and k
    remainder bits, placed at bit positions from an exclusive `cumsum` of the code lengths
    after per-block headers (an Elias-gamma code of k + 1, its length by count-leading-
    zeros, and a 32-bit length); the one and the remainder written into a bit stream of
    131072 uint32 words, most significant bit first, by two scatter-adds (the part in the
    first word and the part spilling into the next; the bits never overlap, so adding is
    OR). Then read back by gathers of the two words at every code and shifts, checked
    against the values written, and every unary prefix checked by count-leading-zeros.
    Returned with the parameters, the coded size and ratio, and the exponential-Golomb
    size for comparison."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    u32, i32 = jnp.uint32, jnp.int32

    def exclusive(x):
        return jnp.cumsum(x, -1) - x

    def window_at(stream, position):
        """The 32 bits of the stream starting at each bit position."""
        word = position >> 5
        offset = (position & 31).astype(u32)
        head = stream[jnp.minimum(word, words - 1)]
        tail = stream[jnp.minimum(word + 1, words - 1)]
        return (head << offset) | jnp.where(offset > 0, tail >> (32 - jnp.maximum(offset, 1)),
                                            u32(0))

    def run(samples):
        before = jnp.pad(samples, ((0, 0), (1, 0)))[:, :-1]
        before2 = jnp.pad(samples, ((0, 0), (2, 0)))[:, :-2]
        residual = samples - 2 * before + before2
        zig = ((residual << 1) ^ (residual >> 31)).astype(u32)
        ks = jnp.arange(parameters, dtype=u32)
        sizes = jnp.sum(((zig[..., None] >> ks) + 1 + ks).astype(i32), 1)      # (blocks, 16)
        k = jnp.argmin(sizes, -1).astype(u32)
        kk = k[:, None]
        quotient = zig >> kk
        value = (u32(1) << kk) | (zig & ((u32(1) << kk) - 1))                    # k + 1 bits
        length = (quotient + 1 + kk).astype(i32)
        gamma = 2 * (32 - lax.clz((k + 1).astype(i32))) - 1
        header = gamma + 32
        block_bits = header + jnp.sum(length, -1)
        start = (exclusive(block_bits) + header)[:, None] + exclusive(length)
        position = start + quotient.astype(i32)
        nbits = kk + 1
        word = position >> 5
        room = 32 - (position & 31).astype(u32)
        fits = nbits <= room
        spill = jnp.where(fits, u32(1), nbits - room)
        head = jnp.where(fits, value << jnp.where(fits, room - nbits, u32(0)), value >> spill)
        tail = jnp.where(fits, u32(0), value << (32 - spill))
        stream = (jnp.zeros(words, u32).at[word.reshape(-1)].add(head.reshape(-1), mode="drop")
                  .at[(word + 1).reshape(-1)].add(tail.reshape(-1), mode="drop"))
        total = jnp.sum(block_bits)
        read = window_at(stream, position) >> (32 - nbits)
        codes_ok = jnp.all((read == value) | (position + nbits.astype(i32) > 32 * words))
        prefix = lax.clz(window_at(stream, start))
        prefix_ok = jnp.all((quotient >= 32) | (prefix == quotient)
                            | (position + 1 > 32 * words))
        exp_golomb = jnp.sum(2 * (32 - lax.clz((zig + 1).astype(i32))) - 1)
        raw = 16 * blocks * block
        return (k, stream, total, raw / total, exp_golomb, codes_ok, prefix_ok,
                total > 32 * words)

    rng = np.random.default_rng(119)
    return jax.jit(run).lower(jnp.asarray(_sensor_samples(rng, blocks, block)))


def _geometric_graph(rng: Any, nodes: int, degree: float, extra: int, cap: int
                     ) -> tuple[Any, Any]:
    """A random geometric graph on the host: nodes uniform in the unit square joined
    within the radius that gives the mean degree, plus random long-range edges, taken in
    random order while both ends have fewer than `cap` neighbours. Returned: int32 sorted
    neighbour lists (nodes, cap) padded with `nodes`, and the int32 edges (u, v), u < v."""
    import numpy as np

    points = rng.uniform(0, 1, (nodes, 2))
    radius = math.sqrt(degree / (math.pi * nodes))
    found = []
    for begin in range(0, nodes, 512):
        d2 = np.sum((points[begin:begin + 512, None, :] - points[None, :, :]) ** 2, -1)
        i, j = np.nonzero(d2 < radius * radius)
        i = i + begin
        found.append(np.stack([i[i < j], j[i < j]], 1))
    far = np.sort(rng.integers(0, nodes, (extra, 2)), 1)
    far = far[far[:, 0] != far[:, 1]]
    pairs = np.unique(np.concatenate(found + [far]), axis=0)
    pairs = pairs[rng.permutation(len(pairs))]
    neighbours: list[list[int]] = [[] for _ in range(nodes)]
    kept = []
    for u, v in pairs:
        if len(neighbours[u]) < cap and len(neighbours[v]) < cap:
            neighbours[u].append(int(v))
            neighbours[v].append(int(u))
            kept.append((u, v))
    table = np.full((nodes, cap), nodes, np.int32)
    for u, near in enumerate(neighbours):
        table[u, :len(near)] = sorted(near)
    edges = np.array(sorted(kept), np.int32)
    return table, edges


def triangle_counting(nodes: int = 4096, degree: float = 12.0, extra: int = 1024,
                      cap: int = 32, top: int = 16) -> Any:
    """Exact triangle counting in a 4096-node random geometric graph with 1024 long-range
    edges, no gradient: for every edge (u, v) the sorted neighbour lists of both ends are
    gathered (padded to 32), every neighbour w of u looked up in v's list by a batched
    `searchsorted` and confirmed by a gather; the matches give each edge's support
    (triangles through it), and those with w > v each triangle once, added to its three
    corners by scatter-adds. Returned: the triangle count, triangles and clustering
    coefficients per node, global transitivity, the number of edges in at least two
    triangles, the mean clustering per degree (a scatter-add) and the sixteen nodes in
    most triangles (`top_k`)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    def run(table, edges):
        u, v = edges[:, 0], edges[:, 1]
        around_u, around_v = table[u], table[v]
        where = jax.vmap(jnp.searchsorted)(around_v, around_u)
        found = jnp.take_along_axis(around_v, jnp.minimum(where, cap - 1), 1)
        hit = (found == around_u) & (around_u < nodes)
        support = jnp.sum(hit, 1)
        closing = hit & (around_u > v[:, None])
        per_edge = jnp.sum(closing, 1).astype(jnp.float32)
        corner = jnp.where(closing, around_u, 0)
        per_node = (jnp.zeros(nodes).at[u].add(per_edge).at[v].add(per_edge)
                    .at[corner.reshape(-1)].add(closing.reshape(-1).astype(jnp.float32)))
        triangles = jnp.sum(per_edge)
        deg = jnp.sum(table < nodes, 1)
        wedges = (deg * (deg - 1) // 2).astype(jnp.float32)
        clustering = per_node / jnp.maximum(wedges, 1.0)
        transitivity = 3 * triangles / jnp.maximum(jnp.sum(wedges), 1.0)
        by_degree = jnp.zeros(cap + 1).at[deg].add(clustering) / jnp.maximum(
            jnp.zeros(cap + 1).at[deg].add(1.0), 1.0)
        most, who = lax.top_k(per_node, top)
        return (triangles, per_node, clustering, transitivity, jnp.sum(support >= 2),
                by_degree, most, who)

    rng = np.random.default_rng(120)
    table, edges = _geometric_graph(rng, nodes, degree, extra, cap)
    return jax.jit(run).lower(jnp.asarray(table), jnp.asarray(edges))


def knapsack_dp(instances: int = 64, items: int = 96, capacity: int = 1023) -> Any:
    """0/1 knapsack by dynamic programming for 64 instances of 96 strongly correlated
    items (values the weights plus up to 40) and a capacity of 1023, in int32, no
    gradient: a `fori_loop` over the items replaces the table of best values per
    capacity by the better of leaving the item and taking it (a gather of the table
    shifted by the item's weight per instance), and packs the take decisions 32 to a
    uint32 word (shifts and a sum of disjoint bits); a second `fori_loop` backtracks from
    the full capacity through the packed bits. Returned: the optimal values, the chosen
    items, checks of their weights and values, and the gap to Dantzig's bound, from an
    `argsort` of each instance's 96 value-to-weight ratios, a `cumsum` of the sorted
    weights and the critical item."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    cells = capacity + 1
    packs = cells // 32
    i32, u32 = jnp.int32, jnp.uint32

    def run(weights, values):
        room = jnp.arange(cells, dtype=i32)
        shifts = jnp.arange(32, dtype=u32)

        def add_item(i, carry):
            best, keep = carry
            w = lax.dynamic_index_in_dim(weights, i, 1, keepdims=False)
            v = lax.dynamic_index_in_dim(values, i, 1, keepdims=False)
            source = room[None, :] - w[:, None]
            taken = jnp.where(source >= 0,
                              jnp.take_along_axis(best, jnp.maximum(source, 0), 1) + v[:, None],
                              -1)
            better = taken > best
            best = jnp.maximum(best, taken)
            bits = better.reshape(instances, packs, 32).astype(u32) << shifts
            return best, lax.dynamic_update_index_in_dim(keep, jnp.sum(bits, -1, dtype=u32),
                                                         i, 0)

        best, keep = lax.fori_loop(0, items, add_item,
                                   (jnp.zeros((instances, cells), i32),
                                    jnp.zeros((items, instances, packs), u32)))

        def backtrack(j, carry):
            left, chosen = carry
            i = items - 1 - j
            row = lax.dynamic_index_in_dim(keep, i, 0, keepdims=False)
            word = jnp.take_along_axis(row, (left >> 5)[:, None], 1)[:, 0]
            take = ((word >> (left & 31).astype(u32)) & u32(1)) == 1
            w = lax.dynamic_index_in_dim(weights, i, 1, keepdims=False)
            left = jnp.where(take, left - w, left)
            return left, lax.dynamic_update_index_in_dim(chosen, take, i, 1)

        _, chosen = lax.fori_loop(0, items, backtrack,
                                  (jnp.full(instances, capacity, i32),
                                   jnp.zeros((instances, items), bool)))
        optimum = best[:, capacity]
        used = jnp.sum(jnp.where(chosen, weights, 0), -1)
        gained = jnp.sum(jnp.where(chosen, values, 0), -1)
        ratio = values.astype(jnp.float32) / weights.astype(jnp.float32)
        order = jnp.argsort(-ratio, -1)
        w_sorted = jnp.take_along_axis(weights, order, 1)
        v_sorted = jnp.take_along_axis(values, order, 1)
        filled = jnp.cumsum(w_sorted, -1)
        fits = filled <= capacity
        greedy = jnp.sum(jnp.where(fits, v_sorted, 0), -1)
        critical = jnp.minimum(jnp.sum(fits, -1), items - 1)
        spare = capacity - jnp.sum(jnp.where(fits, w_sorted, 0), -1)
        bound = greedy + spare * jnp.take_along_axis(ratio, order, 1)[
            jnp.arange(instances), critical]
        gap = (bound - optimum) / optimum
        return (optimum, chosen, jnp.all(used <= capacity), jnp.all(gained == optimum), greedy,
                gap)

    rng = np.random.default_rng(121)
    weights = rng.integers(8, 120, (instances, items))
    values = weights + rng.integers(0, 41, (instances, items))
    return jax.jit(run).lower(jnp.asarray(weights, jnp.int32), jnp.asarray(values, jnp.int32))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "replknet_reparam/4x48px-24-48-k13-9": replknet_reparam,
    "csrnet_counting/4x96px-16-32-48-dilated2": csrnet_counting,
    "deep_image_prior/2x96px-24-48-96-inpaint": deep_image_prior,
    "primer_mdha_lm/4x256-d128-l2-dconv3-bf16": primer_mdha_lm,
    "qrnn_ntasgd/8x192-e64-h192-l2": qrnn_ntasgd,
    "chebnet_agem/2048-nodes-k3-h64-2-tasks": chebnet_agem,
    "wide_deep_ekf/64x8-fields-1024-crosses-553-weights": wide_deep_ekf,
    "nade_glyphs/32x144-h32-16-samples": nade_glyphs,
    "prng_test_battery/2x65536-draws-64x1024-birthdays": prng_test_battery,
    "l_moments_rolling/32x1024-window-16": l_moments_rolling,
    "kepler_ephemeris/4096x64-epochs-8-newton": kepler_ephemeris,
    "fput_lyapunov/16x32-particles-6-vectors-40x10-steps": fput_lyapunov,
    "golomb_rice_coding/64x4096-samples-k0-15": golomb_rice_coding,
    "triangle_counting/4096-nodes-geometric-cap32": triangle_counting,
    "knapsack_dp/64x96-items-1024-capacity": knapsack_dp,
}
