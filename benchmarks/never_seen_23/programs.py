"""The twenty-third never-seen set: programs written on 2026-11-28, after the twenty-second
set (benchmarks/never_seen_22/), which had not judged a model yet, and never used to
choose anything: not for a feature, a default, a fallback threshold or a model. They exist
to judge a trained model once. The file's SHA-256 is committed beside it (`SHA256`);
`fresh_programs.py --set never-seen-23` refuses to run when the file no longer matches
it, since an edited set is no longer unseen.

Fifteen programs of kinds that neither the program zoo, fresh_programs.py nor the first
twenty-two never-seen sets has. As before, a few training steps are large (a few
gigaflops each) and the rest mid-sized. Three of the ten training steps learn without
a backward pass of their loss (direct feedback alignment, evolution strategies and
zeroth-order fine-tuning), one differentiates through a look-ahead SGD step (a gradient
through a gradient), and two take gradients at weights other than the current ones
(the previous weights, and weights drawn from a posterior). PSPNet segments four
96x96 Voronoi scenes of patterned regions by a dilated residual backbone of output
stride eight, a pyramid pooling module (averages over 1, 2, 3 and 6 bins brought back by
bilinear `jax.image.resize`) and an auxiliary head on the third stage. SwAV pretrains a
small ResNet on two large and four small crops of every picture, cut inside the step:
the large crops' scores against 128 prototypes become soft codes by three Sinkhorn-Knopp
iterations, and every other crop predicts them. CLIP in bfloat16 aligns a ViT over 8x8
patches of pattern pictures with a causal text transformer over templated captions,
read at the end-of-text token found by an `argmax`, under the symmetric contrastive
loss with a learned temperature clamped at 100. Direct feedback alignment trains a tanh
MLP of three layers of 1024 on stroke glyphs by sending the output error to every layer
through its own fixed random matrix, with no `jax.grad` at all. Interval bound
propagation trains a small CNN to be certifiably robust: the input box's centre runs
through the layers and its radius through their absolute weights, and the last layer is
folded into lower bounds of the margins. Learning to reweight examples differentiates
the clean meta loss after a look-ahead SGD step with respect to the per-example weights
of glyphs with 40% flipped labels, and takes the real step under the weights it
implies. Evolution strategies rolls out 256 perturbed tanh policies (antithetic pairs)
on four cart-pole swing-up episodes of 150 steps, all in one `lax.scan` whose body
multiplies every member's own weights under `vmap`, and steps along the perturbations
weighted by centred ranks (a double `argsort`). MeZO fine-tunes a transformer
classifier in bfloat16 on Markov-chain token sequences by two forward passes, one on
each side of a random direction that is regenerated from its key at every use. The
Point Transformer classifies clouds of eight kinds of surfaces by vector self-attention
over 16 nearest neighbours (`top_k` over all-pair distances, gathers under `vmap`),
with two transition-down stages. FixMatch trains a small wide ResNet on a few labelled
and twice as many unlabelled pictures, weak and strong augmentations drawn inside the
step, the weak views' confident predictions taught to the strong views.

Five are scientific or algorithmic steps without a gradient: the Nagel-Schreckenberg
traffic automaton with slow-to-start drivers on 32 rings of 1024 cars for 256 steps in
nested `lax.scan`s (gaps by a `roll`, two random draws split from one 32-bit word per
car, space-time lattices by scatters); Reed-Solomon RS(255, 223) coding of 1024 words
over GF(256) in integer arithmetic on log and antilog table gathers (a shift-register
encoder in a `fori_loop`, syndromes by xor-reductions, Berlekamp-Massey in another
`fori_loop`, a Chien search and Forney's formula); marching squares contours of four
512x512 terrains at four levels (a `lax.map` over the levels, a case-table gather with
the saddles resolved by the cell centre, contour lengths, coarse length maps and case
histograms by `segment_sum`); Ewald summation for four periodic systems of 1024 charges
(an all-pair erfc sum under the minimum image, a structure factor over 709 wave vectors
by matrix products of cosines and sines, forces and potentials, the systems in a
`lax.map`); and Jones-Plassmann colouring of eight torus graphs with random chords in a
`while_loop` of rounds under `vmap`, a node taking the smallest colour its neighbours
lack once its priority beats theirs. The updates are new to these sets: Quickprop (a
secant step per weight to the minimum of the parabola through its last two slopes,
bounded by 1.75 times its last step), SARAH (a recursive direction from the gradients
at the current and the previous weights on the same views, restarted every eighth
step), AdamW with layer-wise learning-rate decay, PowerSign and AddSign (the gradient
scaled by e^(sign(g) sign(m)) or by 1 + sign(g) sign(m)), momentum SGD under the
one-cycle policy, Adam ascending an evolution-strategies estimate, MeZO's zeroth-order
SGD, Vadam (the gradient at weights drawn from a Gaussian posterior whose precision is
Adam's second moment) and AdamW under a warmup-stable-decay schedule; two training steps
(CLIP and MeZO) run in bfloat16.
"""

from __future__ import annotations

import math
from typing import Any, Callable

_NHWC = ("NHWC", "HWIO", "NHWC")


def _weights(shapes: dict[str, tuple[int, ...]], seed: int = 0, dtype: Any = None,
             gain: float = 1.0) -> dict[str, Any]:
    """Initial weights for the named shapes from one numpy RandomState, drawn in the order
    given: a name ending in `_b` is zero (a bias or a shift), one ending in `_g` is one (a
    gain), and every other tensor is Gaussian with standard deviation gain / sqrt(fan-in),
    the fan-in being the product of every axis but the last (one for a vector)."""
    import jax.numpy as jnp
    import numpy as np

    dtype = dtype or jnp.float32
    rng = np.random.RandomState(seed)
    out: dict[str, Any] = {}
    for name, shape in shapes.items():
        if name.endswith("_b"):
            value = np.zeros(shape, np.float32)
        elif name.endswith("_g"):
            value = np.ones(shape, np.float32)
        else:
            fan_in = math.prod(shape[:-1]) if len(shape) > 1 else 1
            value = rng.standard_normal(shape).astype(np.float32) * (gain / math.sqrt(fan_in))
        out[name] = jnp.asarray(value, dtype)
    return out


def _rule(name: str, **options: Any) -> tuple[Callable[[Any], Any], Callable[..., Any]]:
    """The named update as (init, update): init(params) -> state and update(params, grads,
    state, loss) -> (params, state). States are float32 (step counters apart); every
    parameter keeps its dtype."""
    import jax
    import jax.numpy as jnp

    f32 = jnp.float32
    tm = jax.tree.map

    def zeros(tree: Any) -> Any:
        return tm(lambda p: jnp.zeros(p.shape, f32), tree)

    def counter() -> Any:
        return jnp.zeros((), jnp.int32)

    if name == "quickprop":
        # Quickprop (Fahlman): each weight jumps to the minimum of the parabola through its
        # last two slopes, step * g / (g_prev - g), the jump held within 1.75 times the
        # last step; a plain gradient step is added where the slope kept its sign or the
        # weight has not moved yet; weight decay enters the slope
        rate, growth, decay = options.get("rate", 0.01), 1.75, options.get("decay", 1e-4)

        def quickprop_init(params):
            return zeros(params), zeros(params)

        def quickprop(params, grads, state, loss):
            leaves, tree = jax.tree.flatten(params)
            moved, steps, slopes = [], [], []
            for w, g, last, slope in zip(leaves, tree.flatten_up_to(grads),
                                         tree.flatten_up_to(state[0]),
                                         tree.flatten_up_to(state[1])):
                w32 = w.astype(f32)
                g = g.astype(f32) + decay * w32
                gap = slope - g
                gap = jnp.where(gap >= 0, jnp.maximum(gap, 1e-12), jnp.minimum(gap, -1e-12))
                reach = growth * jnp.abs(last)
                jump = jnp.clip(last * g / gap, -reach, reach)
                still = last == 0
                plain = jnp.where(still | (g * slope > 0), -rate * g, 0.0)
                step = jnp.where(still, 0.0, jump) + plain
                moved.append((w32 + step).astype(w.dtype))
                steps.append(step)
                slopes.append(g)
            return tree.unflatten(moved), (tree.unflatten(steps), tree.unflatten(slopes))
        return quickprop_init, quickprop

    if name in ("addsign", "powersign"):
        # AddSign and PowerSign (Bello, Zoph, Vasudevan and Le): the gradient scaled up
        # where its sign agrees with the sign of its moving average and down where it does
        # not, by 1 + sign(g) sign(m) (AddSign) or e^(sign(g) sign(m)) (PowerSign)
        rate, beta = options.get("rate", 1e-3), 0.9

        def sign_update(params, grads, state, loss):
            g = tm(lambda g_: g_.astype(f32), grads)
            m = tm(lambda m_, g_: beta * m_ + (1.0 - beta) * g_, state, g)

            def one(w, g_, m_):
                agree = jnp.sign(g_) * jnp.sign(m_)
                scale = 1.0 + agree if name == "addsign" else jnp.exp(agree)
                return (w.astype(f32) - rate * scale * g_).astype(w.dtype)
            return tm(one, params, g, m), m
        return zeros, sign_update

    if name == "one_cycle_sgd":
        # SGD with heavy-ball momentum under the one-cycle policy (Smith): over the first
        # 30% of a 2000-step run the rate climbs linearly from a 25th of its peak and the
        # momentum falls from 0.95 to 0.85, then both return on a half cosine, the rate to
        # a 10^4th of its start; L2 weight decay in the gradient
        peak, total, warm, decay = options.get("rate", 0.05), 2000.0, 0.3, 5e-4
        low = peak / 25.0

        def cycle_init(params):
            return zeros(params), counter()

        def one_cycle(params, grads, state, loss):
            buffer, t = state
            frac = jnp.minimum(t.astype(f32) / total, 1.0)
            rising = frac < warm
            up = frac / warm
            down = 0.5 * (1.0 + jnp.cos(math.pi * (frac - warm) / (1.0 - warm)))
            rate = jnp.where(rising, low + (peak - low) * up, low * 1e-4 + (peak - low * 1e-4)
                             * down)
            momentum = jnp.where(rising, 0.95 - 0.1 * up, 0.85 + 0.1 * (1.0 - down))
            buffer = tm(lambda b, g, w: momentum * b + g.astype(f32) + decay * w.astype(f32),
                        buffer, grads, params)
            moved = tm(lambda w, b: (w.astype(f32) - rate * b).astype(w.dtype), params, buffer)
            return moved, (buffer, t + 1)
        return cycle_init, one_cycle

    if name in ("wsd_adamw", "llrd_adamw"):
        # AdamW under a warmup-stable-decay schedule (a linear warmup over 100 steps, the
        # peak held to 80% of a 3000-step run, a linear decay to zero over the rest), or
        # AdamW with layer-wise learning-rate decay (each tensor's rate the base rate times
        # its entry in `scales`, smaller the nearer the input its layer sits)
        peak, b1, b2, eps = options.get("rate", 1e-3), 0.9, 0.98, 1e-8
        decay = options.get("decay", 0.05)
        scales = options.get("scales")

        def adamw_init(params):
            return zeros(params), zeros(params), counter()

        def adamw(params, grads, state, loss):
            m, v, t = state
            t = t + 1
            n = t.astype(f32)
            if name == "wsd_adamw":
                frac = n / 3000.0
                rate = peak * jnp.minimum(n / 100.0, 1.0) * jnp.clip((1.0 - frac) / 0.2, 0.0, 1.0)
                rates = tm(lambda w: rate, params)
            else:
                rates = {k: peak * scales[k] for k in params}
            g = tm(lambda g_: g_.astype(f32), grads)
            m = tm(lambda m_, g_: b1 * m_ + (1.0 - b1) * g_, m, g)
            v = tm(lambda v_, g_: b2 * v_ + (1.0 - b2) * g_ * g_, v, g)

            def one(w, m_, v_, r):
                w32 = w.astype(f32)
                step = (m_ / (1.0 - b1 ** n)) / (jnp.sqrt(v_ / (1.0 - b2 ** n)) + eps)
                return (w32 - r * (step + decay * w32)).astype(w.dtype)
            return tm(one, params, m, v, rates), (m, v, t)
        return adamw_init, adamw

    raise ValueError(name)


def _train(rule: str, loss_fn: Callable[..., Any], params: Any, *batch: Any,
           **options: Any) -> Any:
    """One training step (loss, gradients, the named update) lowered for `batch`; the
    update's state enters by its shapes alone (`eval_shape` of its init)."""
    import jax

    init, update = _rule(rule, **options)

    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        params, state = update(params, grads, state, loss)
        return params, state, loss

    return jax.jit(step).lower(params, jax.eval_shape(init, params), *batch)


def _normalize(x: Any, gain: Any, shift: Any, axes: tuple[int, ...] = (-1,)) -> Any:
    """x normalized over `axes` by float32 statistics, scaled and shifted, in x's dtype:
    a layer norm by default, a batch norm over every axis but the channels."""
    import jax.numpy as jnp
    from jax import lax

    wide = x.astype(jnp.float32)
    mean = jnp.mean(wide, axes, keepdims=True)
    var = jnp.mean(jnp.square(wide - mean), axes, keepdims=True)
    out = (wide - mean) * lax.rsqrt(var + 1e-5) * gain.astype(jnp.float32)
    return (out + shift.astype(jnp.float32)).astype(x.dtype)


def _bn(x: Any, gain: Any, shift: Any) -> Any:
    """Batch norm by the batch's own statistics."""
    return _normalize(x, gain, shift, tuple(range(x.ndim - 1)))


def _xent(logits: Any, labels: Any) -> Any:
    """Per-example softmax cross-entropy of integer labels, float32."""
    import jax
    import jax.numpy as jnp

    logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
    return -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]


def _conv2d(x: Any, w: Any, stride: int = 1, dilation: int = 1) -> Any:
    """A 2-D NHWC convolution with SAME padding, optionally dilated."""
    from jax import lax

    return lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                    rhs_dilation=(dilation, dilation), dimension_numbers=_NHWC)


_COLOURS = ((0.9, 0.2, 0.2), (0.2, 0.7, 0.25), (0.2, 0.35, 0.9), (0.95, 0.85, 0.2),
            (0.75, 0.3, 0.85), (0.2, 0.8, 0.85), (0.95, 0.55, 0.15), (0.95, 0.95, 0.95))


def _pattern(rng: Any, kind: int, colour: int, cycles: float, side: int) -> Any:
    """numpy float32 (side, side, 3): one of six binary patterns (0 stripes, 1 checks, 2
    dots, 3 rings, 4 waves, 5 a grid) of about `cycles` periods per picture at a random
    angle and phase, in one of the eight colours over a dark random background, with
    shading and noise."""
    import numpy as np

    yy, xx = np.mgrid[0:side, 0:side] / float(side)
    angle = rng.uniform(0, np.pi)
    f = cycles * rng.uniform(0.85, 1.15)
    u = np.cos(angle) * xx + np.sin(angle) * yy + rng.uniform(0, 1)
    v = -np.sin(angle) * xx + np.cos(angle) * yy + rng.uniform(0, 1)
    su, sv = np.sin(2 * np.pi * f * u), np.sin(2 * np.pi * f * v)
    if kind == 0:
        mark = su > 0
    elif kind == 1:
        mark = su * sv > 0
    elif kind == 2:
        mark = np.cos(2 * np.pi * f * u) + np.cos(2 * np.pi * f * v) > 1.0
    elif kind == 3:
        cx, cy = rng.uniform(0.2, 0.8, 2)
        mark = np.sin(2 * np.pi * f * np.hypot(xx - cx, yy - cy)) > 0
    elif kind == 4:
        mark = np.sin(2 * np.pi * f * (u + 0.12 * np.sin(2 * np.pi * 2.0 * v))) > 0
    else:
        mark = (np.abs(su) < 0.35) | (np.abs(sv) < 0.35)
    ground = rng.uniform(0.05, 0.3, 3)
    shade = 0.8 + 0.2 * np.sin(2 * np.pi * (rng.uniform() + xx * rng.uniform(-1, 1)))
    picture = np.where(mark[..., None], np.asarray(_COLOURS[colour]), ground) * shade[..., None]
    return (picture + 0.05 * rng.standard_normal(picture.shape)).astype(np.float32)


def _glyphs(rng: Any, count: int, side: int, classes: int, strokes: int = 3) -> Any:
    """numpy: `count` glyphs (NHWC float32 in [0, 1], one channel) of `classes` kinds and
    their labels; each kind is a fixed set of pen strokes (line segments), each glyph its
    kind's strokes with jittered ends, a random shift and thickness, plus noise."""
    import numpy as np

    shapes = rng.uniform(0.15, 0.85, (classes, strokes, 2, 2))
    labels = rng.randint(0, classes, count)
    yy, xx = np.mgrid[0:side, 0:side] / float(side - 1)
    grid = np.stack([xx, yy], -1)
    out = np.zeros((count, side, side, 1), np.float32)
    for i, k in enumerate(labels):
        ends = shapes[k] + rng.normal(0, 0.04, (strokes, 2, 2)) + rng.normal(0, 0.05, 2)
        width = rng.uniform(0.035, 0.06)
        ink = np.zeros((side, side))
        for a, b in ends:
            ab = b - a
            t = np.clip(((grid - a) @ ab) / (ab @ ab + 1e-9), 0.0, 1.0)
            dist = np.linalg.norm(grid - (a + t[..., None] * ab), axis=-1)
            ink = np.maximum(ink, np.exp(-np.square(dist / width)))
        out[i, ..., 0] = np.clip(ink + 0.05 * rng.standard_normal(ink.shape), 0.0, 1.0)
    return out, labels


def pspnet_segmentation(batch: int = 4, side: int = 96, classes: int = 8,
                        widths: tuple[int, ...] = (32, 32, 64, 128, 128),
                        bins: tuple[int, ...] = (1, 2, 3, 6), branch: int = 32,
                        aux_weight: float = 0.4) -> Any:
    """Semantic segmentation by a pyramid scene parsing network (PSPNet; Zhao, Shi, Qi,
    Wang and Jia) of four 96x96 scenes of eight kinds of patterned regions (random Voronoi
    layouts of seven to eleven cells, every pixel labelled). A dilated residual backbone
    keeps an output stride of eight: a stride-2 3x3 stem and a 3x3 max pooling, a basic
    block of 32 channels, a strided block of 64, two blocks of 128 whose 3x3 convolutions
    are dilated by two and one of 128 dilated by four, batch norm throughout. The pyramid
    pooling module averages the 12x12 map over 1x1, 2x2, 3x3 and 6x6 bins, reduces each to
    32 channels by a 1x1 convolution with batch norm, upsamples it bilinearly
    (`jax.image.resize`) and concatenates it with the map; a 3x3 convolution and a 1x1
    classifier give logits that are upsampled bilinearly to the full resolution under
    per-pixel cross-entropy, plus 0.4 times that of an auxiliary head on the third stage.
    Quickprop."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    stem, w1, w2, w3, w4 = widths
    # blocks: (name, in, out, stride, dilation)
    blocks = (("a", stem, w1, 1, 1), ("b", w1, w2, 2, 1), ("c", w2, w3, 1, 2),
              ("d", w3, w3, 1, 2), ("e", w3, w4, 1, 4))
    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, stem), "stem_g": (stem,),
                                          "stem_b": (stem,)}
    for name, cin, cout, stride, _ in blocks:
        shapes.update({f"{name}1": (3, 3, cin, cout), f"{name}1_g": (cout,),
                       f"{name}1_b": (cout,), f"{name}2": (3, 3, cout, cout),
                       f"{name}2_g": (cout,), f"{name}2_b": (cout,)})
        if stride > 1 or cin != cout:
            shapes.update({f"{name}s": (1, 1, cin, cout), f"{name}s_g": (cout,),
                           f"{name}s_b": (cout,)})
    for k in bins:
        shapes.update({f"pool{k}": (1, 1, w4, branch), f"pool{k}_g": (branch,),
                       f"pool{k}_b": (branch,)})
    fused = w4 + branch * len(bins)
    shapes.update({"fuse": (3, 3, fused, 64), "fuse_g": (64,), "fuse_b": (64,),
                   "cls": (1, 1, 64, classes), "cls_b": (classes,),
                   "aux": (3, 3, w3, 32), "aux_g": (32,), "aux_b": (32,),
                   "aux_cls": (1, 1, 32, classes), "aux_cls_b": (classes,)})
    p = _weights(shapes, seed=1, gain=1.4)
    relu = jax.nn.relu

    def bn(p, k, x):
        return _bn(x, p[f"{k}_g"], p[f"{k}_b"])

    def upsample(x, size):
        return jax.image.resize(x, (x.shape[0], size, size, x.shape[-1]), "bilinear")

    def loss_fn(p, pictures, labels):
        x = relu(bn(p, "stem", _conv2d(pictures, p["stem"], 2)))
        x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        third = x
        for name, _, _, stride, dilation in blocks:
            y = relu(bn(p, f"{name}1", _conv2d(x, p[f"{name}1"], stride, dilation)))
            y = bn(p, f"{name}2", _conv2d(y, p[f"{name}2"], 1, dilation))
            skip = bn(p, f"{name}s", _conv2d(x, p[f"{name}s"], stride)) if f"{name}s" in p else x
            x = relu(y + skip)
            if name == "d":
                third = x
        b, grid = x.shape[0], x.shape[1]
        branches = [x]
        for k in bins:
            pooled = x.reshape(b, k, grid // k, k, grid // k, w4).mean((2, 4))
            pooled = relu(bn(p, f"pool{k}", _conv2d(pooled, p[f"pool{k}"])))
            branches.append(upsample(pooled, grid))
        y = relu(bn(p, "fuse", _conv2d(jnp.concatenate(branches, -1), p["fuse"])))
        logits = upsample(_conv2d(y, p["cls"]) + p["cls_b"], side)
        aux = relu(bn(p, "aux", _conv2d(third, p["aux"])))
        aux = upsample(_conv2d(aux, p["aux_cls"]) + p["aux_cls_b"], side)
        return jnp.mean(_xent(logits, labels)) + aux_weight * jnp.mean(_xent(aux, labels))

    rng = np.random.RandomState(1)
    pictures = np.zeros((batch, side, side, 3), np.float32)
    labels = np.zeros((batch, side, side), np.int32)
    yy, xx = np.mgrid[0:side, 0:side]
    for i in range(batch):
        seeds = rng.uniform(0, side, (rng.randint(7, 12), 2))
        owner = np.argmin((yy[..., None] - seeds[:, 0]) ** 2 + (xx[..., None] - seeds[:, 1]) ** 2,
                          -1)
        kinds = rng.randint(0, classes, len(seeds))
        for cell, k in enumerate(kinds):
            texture = _pattern(rng, int(k % 6), int(k), 8.0 + 4.0 * (k // 6), side)
            pictures[i][owner == cell] = texture[owner == cell]
            labels[i][owner == cell] = k
    return _train("quickprop", loss_fn, p, jnp.asarray(pictures), jnp.asarray(labels),
                  rate=0.01)


def swav_prototypes(batch: int = 16, source: int = 40, big: int = 32, small: int = 16,
                    smalls: int = 4, widths: tuple[int, ...] = (16, 32, 64), hidden: int = 256,
                    embed: int = 64, prototypes: int = 128, epsilon: float = 0.05,
                    temperature: float = 0.1, iterations: int = 3, rate: float = 0.05,
                    restart: int = 8) -> Any:
    """Self-supervised pretraining by swapping assignments between views (SwAV; Caron,
    Misra, Mairal, Goyal, Bojanowski and Joulin) on 16 unlabelled 40x40 pictures of
    patterns. Each step cuts two 32x32 and four 16x16 views of every picture inside the
    step (`dynamic_slice` under `vmap` at offsets from `jax.random`, random mirroring and
    brightness and saturation jitter). A small residual network (a 3x3 stem, three stages
    of 16, 32 and 64 channels, the last two strided, batch norm over each resolution's
    views together, global pooling) and an MLP projection head (256, batch norm, ReLU, 64)
    embed every view on the unit sphere; the scores against 128 prototypes (normalized to
    unit length at every use) of each large view become soft codes by three Sinkhorn-Knopp
    iterations at epsilon 0.05 (equal shares of prototypes over the batch, no gradient),
    and every other view predicts those codes by a softmax at temperature 0.1 under
    cross-entropy. SARAH (Nguyen, Liu, Scheinberg and Takac): the direction is the last
    direction plus the gradient at the current weights minus the gradient at the previous
    weights on the same views, restarted from the plain gradient every eighth step; both
    gradients are taken every step."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0]), "stem_g": (widths[0],),
                                          "stem_b": (widths[0],)}
    cin = widths[0]
    for s, c in enumerate(widths):
        shapes.update({f"s{s}a": (3, 3, cin, c), f"s{s}a_g": (c,), f"s{s}a_b": (c,),
                       f"s{s}b": (3, 3, c, c), f"s{s}b_g": (c,), f"s{s}b_b": (c,)})
        if cin != c:
            shapes.update({f"s{s}skip": (1, 1, cin, c), f"s{s}skip_g": (c,), f"s{s}skip_b": (c,)})
        cin = c
    shapes.update({"head1": (cin, hidden), "head1_g": (hidden,), "head1_b": (hidden,),
                   "head2": (hidden, embed), "head2_b": (embed,),
                   "protos": (embed, prototypes)})
    p = _weights(shapes, seed=2, gain=1.4)
    relu = jax.nn.relu
    tm = jax.tree.map

    def bn(p, k, x):
        return _bn(x, p[f"{k}_g"], p[f"{k}_b"])

    def encode(p, x):
        x = relu(bn(p, "stem", _conv2d(x, p["stem"])))
        for s in range(len(widths)):
            stride = 2 if s else 1
            y = relu(bn(p, f"s{s}a", _conv2d(x, p[f"s{s}a"], stride)))
            y = bn(p, f"s{s}b", _conv2d(y, p[f"s{s}b"]))
            skip = bn(p, f"s{s}skip", _conv2d(x, p[f"s{s}skip"], stride)) \
                if f"s{s}skip" in p else x
            x = relu(y + skip)
        h = relu(bn(p, "head1", jnp.mean(x, (1, 2)) @ p["head1"]))
        z = h @ p["head2"] + p["head2_b"]
        z = z / (jnp.sqrt(jnp.sum(z * z, -1, keepdims=True)) + 1e-6)
        protos = p["protos"] / jnp.sqrt(jnp.sum(p["protos"] ** 2, 0, keepdims=True))
        return z @ protos

    def crops(key, pictures, size):
        b = pictures.shape[0]
        k_at, k_flip, k_jit = jax.random.split(key, 3)
        at = jax.random.randint(k_at, (b, 2), 0, source - size + 1)
        out = jax.vmap(lambda im, a: lax.dynamic_slice(im, (a[0], a[1], 0), (size, size, 3)))(
            pictures, at)
        out = jnp.where(jax.random.bernoulli(k_flip, 0.5, (b, 1, 1, 1)), out[:, :, ::-1], out)
        jitter = jax.random.uniform(k_jit, (b, 1, 1, 2), minval=0.6, maxval=1.4)
        grey = jnp.mean(out, -1, keepdims=True)
        return (grey + (out - grey) * jitter[..., 1:]) * jitter[..., :1]

    def sinkhorn(scores):
        q = jnp.exp((scores - jnp.max(scores)) / epsilon).T
        q = q / jnp.sum(q)
        k, b = q.shape
        for _ in range(iterations):
            q = q / jnp.sum(q, 1, keepdims=True) / k
            q = q / jnp.sum(q, 0, keepdims=True) / b
        return lax.stop_gradient((q * b).T)

    def loss_fn(p, large, little):
        b = large.shape[1]
        big_scores = encode(p, large.reshape((-1,) + large.shape[2:])).reshape(2, b, -1)
        small_scores = encode(p, little.reshape((-1,) + little.shape[2:])).reshape(smalls, b, -1)
        scores = jnp.concatenate([big_scores, small_scores], 0)
        logp = jax.nn.log_softmax(scores / temperature, -1)
        total = 0.0
        for s in range(2):
            codes = sinkhorn(big_scores[s])
            others = [v for v in range(2 + smalls) if v != s]
            total = total + sum(-jnp.mean(jnp.sum(codes * logp[v], -1)) for v in others) \
                / len(others)
        return total / 2.0

    def step(params, previous, direction, t, pictures, key):
        keys = jax.random.split(key, 2 + smalls)
        large = jnp.stack([crops(keys[i], pictures, big) for i in range(2)])
        little = jnp.stack([crops(keys[2 + i], pictures, small) for i in range(smalls)])
        loss, now = jax.value_and_grad(loss_fn)(params, large, little)
        then = jax.grad(loss_fn)(previous, large, little)
        fresh = t % restart == 0
        direction = tm(lambda d, a, c: jnp.where(fresh, a, d + a - c), direction, now, then)
        return tm(lambda w, d: w - rate * d, params, direction), params, direction, t + 1, loss

    rng = np.random.RandomState(2)
    pictures = np.stack([_pattern(rng, rng.randint(6), rng.randint(8), rng.uniform(4, 9), source)
                         for _ in range(batch)])
    return jax.jit(step).lower(p, p, tm(jnp.zeros_like, p), jnp.int32(0), jnp.asarray(pictures),
                               jax.random.PRNGKey(2))


def clip_pairs(batch: int = 32, side: int = 32, patch: int = 8, width: int = 96, heads: int = 4,
               image_layers: int = 4, text_layers: int = 3, length: int = 16, embed: int = 64,
               layer_decay: float = 0.8) -> Any:
    """Contrastive language-image pretraining (CLIP; Radford et al.) in bfloat16 on 32 pairs of
    32x32 pattern pictures and their captions ("a fine blue striped pattern", "a photo of a
    dotted texture in red , coarse" and so on: a kind, a colour and a scale in one of four
    templates, tokenized by a word list). The image tower is a ViT (8x8 patches, a class
    token, learned positions, four pre-norm layers of width 96 with four heads and GELU MLPs
    of 384), the text tower a causal transformer of three such layers over 16 tokens, read
    at the end-of-text token (found by an `argmax` over the token ids, as CLIP does). Both
    are projected to 64 dimensions and L2-normalized; their cosine similarities times a
    learned temperature (clamped at 100) are scored by the symmetric cross-entropy of
    matching images to texts and texts to images, in float32. AdamW with layer-wise
    learning-rate decay: each layer's rate is 0.8 times that of the layer above it, the
    embeddings' lowest and the projections' the base rate."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    grid = side // patch
    tokens_in = grid * grid + 1
    kinds = ("striped", "checked", "dotted", "ringed", "wavy", "gridded")
    colours = ("red", "green", "blue", "yellow", "purple", "cyan", "orange", "white")
    scales = ("coarse", "fine")
    words = ["<pad>", "<sot>", "a", "an", "of", "in", "pattern", "picture", "texture", ",",
             "photo", "with"]
    words += list(kinds) + list(colours) + list(scales)
    words.append("<eot>")
    vocab = len(words)
    index = {w: i for i, w in enumerate(words)}
    shapes: dict[str, tuple[int, ...]] = {"v_patch": (patch * patch * 3, width),
                                          "v_patch_b": (width,), "v_cls": (1, width),
                                          "v_pos": (tokens_in, width),
                                          "t_embed": (vocab, width), "t_pos": (length, width)}
    for tower, layers in (("v", image_layers), ("t", text_layers)):
        for l in range(layers):
            k = f"{tower}{l}"
            shapes.update({f"{k}n1_g": (width,), f"{k}n1_b": (width,),
                           f"{k}qkv": (width, 3 * width), f"{k}qkv_b": (3 * width,),
                           f"{k}o": (width, width), f"{k}o_b": (width,), f"{k}n2_g": (width,),
                           f"{k}n2_b": (width,), f"{k}f1": (width, 4 * width),
                           f"{k}f1_b": (4 * width,), f"{k}f2": (4 * width, width),
                           f"{k}f2_b": (width,)})
        shapes.update({f"{tower}norm_g": (width,), f"{tower}norm_b": (width,),
                       f"{tower}proj": (width, embed)})
    p = _weights(shapes, seed=3, dtype=bf16)
    for name in ("v_pos", "t_pos", "v_cls"):
        p[name] = p[name] * jnp.asarray(0.02, bf16)
    p["scale_b"] = jnp.full((), math.log(1 / 0.07), bf16)
    scales_of: dict[str, float] = {}
    for name in p:
        tower = name[0]
        layers = image_layers if tower == "v" else text_layers
        if name[1:2].isdigit():
            depth = layers - int(name[1])
        elif name[1] == "_":
            depth = layers + 1
        else:
            depth = 0
        scales_of[name] = layer_decay ** depth
    dh = width // heads

    def block(p, k, x, causal):
        b, t, _ = x.shape
        h = _normalize(x, p[f"{k}n1_g"], p[f"{k}n1_b"])
        q, kk, v = jnp.split((h @ p[f"{k}qkv"] + p[f"{k}qkv_b"]).reshape(b, t, 3 * heads, dh),
                             3, 2)
        logits = jnp.einsum("bihd,bjhd->bhij", q, kk).astype(f32) / math.sqrt(dh)
        if causal:
            logits = jnp.where(jnp.tril(jnp.ones((t, t), bool)), logits, -1e9)
        weights = jax.nn.softmax(logits, -1).astype(bf16)
        att = jnp.einsum("bhij,bjhd->bihd", weights, v).reshape(b, t, width)
        x = x + att @ p[f"{k}o"] + p[f"{k}o_b"]
        h = _normalize(x, p[f"{k}n2_g"], p[f"{k}n2_b"])
        return x + jax.nn.gelu(h @ p[f"{k}f1"] + p[f"{k}f1_b"]) @ p[f"{k}f2"] + p[f"{k}f2_b"]

    def unit(z):
        z = z.astype(f32)
        return z / (jnp.sqrt(jnp.sum(z * z, -1, keepdims=True)) + 1e-6)

    def loss_fn(p, pictures, tokens):
        b = pictures.shape[0]
        pieces = pictures.reshape(b, grid, patch, grid, patch, 3).transpose(0, 1, 3, 2, 4, 5)
        x = pieces.reshape(b, grid * grid, -1).astype(bf16) @ p["v_patch"] + p["v_patch_b"]
        x = jnp.concatenate([jnp.broadcast_to(p["v_cls"], (b, 1, width)), x], 1) + p["v_pos"]
        for l in range(image_layers):
            x = block(p, f"v{l}", x, False)
        image = unit(_normalize(x[:, 0], p["vnorm_g"], p["vnorm_b"]) @ p["vproj"])
        y = p["t_embed"][tokens] + p["t_pos"]
        for l in range(text_layers):
            y = block(p, f"t{l}", y, True)
        last = jnp.argmax(tokens, -1)
        y = _normalize(jnp.take_along_axis(y, last[:, None, None], 1)[:, 0], p["tnorm_g"],
                       p["tnorm_b"])
        text = unit(y @ p["tproj"])
        logits = jnp.minimum(jnp.exp(p["scale_b"].astype(f32)), 100.0) * image @ text.T
        labels = jnp.arange(b)
        return 0.5 * (jnp.mean(_xent(logits, labels)) + jnp.mean(_xent(logits.T, labels)))

    rng = np.random.RandomState(3)
    pictures = np.zeros((batch, side, side, 3), np.float32)
    tokens = np.zeros((batch, length), np.int32)
    templates = ("a {s} {c} {k} pattern", "a photo of a {k} texture in {c} , {s}",
                 "{k} {c} picture", "an {s} pattern with {c} {k}")
    for i in range(batch):
        k, c, s = rng.randint(6), rng.randint(8), rng.randint(2)
        pictures[i] = _pattern(rng, k, c, (3.0, 7.0)[s], side)
        text = templates[rng.randint(4)].format(k=kinds[k], c=colours[c], s=scales[s])
        ids = [index["<sot>"]] + [index[w] for w in text.split()] + [index["<eot>"]]
        tokens[i, :len(ids)] = ids
    return _train("llrd_adamw", loss_fn, p, jnp.asarray(pictures), jnp.asarray(tokens),
                  rate=5e-4, decay=0.1, scales=scales_of)


def dfa_mlp(batch: int = 256, side: int = 28, classes: int = 10, hidden: int = 1024,
            depth: int = 3) -> Any:
    """Training without backpropagation by direct feedback alignment (DFA; Nokland): a
    tanh MLP of three hidden layers of 1024 classifies 28x28 glyphs of ten stroke kinds,
    256 at a time. The output error (softmax minus one-hot) is sent to every hidden layer
    by its own fixed random 10x1024 feedback matrix (an argument of the step, never
    trained) and gated by the derivative of that layer's tanh; each layer's update is the
    outer product of its input with that signal, and the last layer's that of its input
    with the error itself. No `jax.grad` anywhere: the step is two chains of matrix
    products. PowerSign (Bello, Zoph, Vasudevan and Le): each update coordinate scaled by
    e^(sign(g) sign(m)), m its moving average."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    sizes = [side * side] + [hidden] * depth + [classes]
    shapes: dict[str, tuple[int, ...]] = {}
    for l in range(depth + 1):
        shapes.update({f"w{l}": (sizes[l], sizes[l + 1]), f"w{l}_b": (sizes[l + 1],)})
    p = _weights(shapes, seed=4)
    init, update = _rule("powersign", rate=1e-3)

    def step(params, state, feedback, pictures, labels):
        x = pictures.reshape(pictures.shape[0], -1)
        inputs, outputs = [], []
        h = x
        for l in range(depth):
            inputs.append(h)
            h = jnp.tanh(h @ params[f"w{l}"] + params[f"w{l}_b"])
            outputs.append(h)
        logits = h @ params[f"w{depth}"] + params[f"w{depth}_b"]
        error = jax.nn.softmax(logits, -1) - jax.nn.one_hot(labels, classes)
        n = x.shape[0]
        grads = {f"w{depth}": h.T @ error / n, f"w{depth}_b": jnp.mean(error, 0)}
        for l in range(depth):
            signal = (error @ feedback[l]) * (1.0 - outputs[l] ** 2)
            grads[f"w{l}"] = inputs[l].T @ signal / n
            grads[f"w{l}_b"] = jnp.mean(signal, 0)
        loss = jnp.mean(_xent(logits, labels))
        accuracy = jnp.mean((jnp.argmax(logits, -1) == labels).astype(jnp.float32))
        params, state = update(params, grads, state, loss)
        return params, state, loss, accuracy

    rng = np.random.RandomState(4)
    pictures, labels = _glyphs(rng, batch, side, classes)
    feedback = rng.standard_normal((depth, classes, hidden)).astype(np.float32) \
        / math.sqrt(classes)
    return jax.jit(step).lower(p, jax.eval_shape(init, p), jnp.asarray(feedback),
                               jnp.asarray(pictures), jnp.asarray(labels, jnp.int32))


def ibp_certified_cnn(batch: int = 64, side: int = 28, classes: int = 10,
                      widths: tuple[int, ...] = (16, 32, 32), hidden: int = 256,
                      epsilon: float = 0.1, kappa: float = 0.5) -> Any:
    """Certified robust training by interval bound propagation (IBP; Gowal et al.) of a
    small CNN on 64 glyphs of 28x28 against perturbations of 0.1 in the max norm. The
    network (a 4x4 stride-2 convolution of 16 channels, a 3x3 one of 32, a 4x4 stride-2
    one of 32, a dense layer of 256, ReLU between, ten logits) runs three times: on the
    clean glyphs, and on the centres and the radii of the input box clipped to [0, 1]
    (the centre through the layers, the radius through their absolute weights, both
    re-formed after each ReLU from its lower and upper bounds). The last layer is folded
    into the specification: the lower bound of every margin logit_y - logit_j from the
    differences of the output weights gives the worst-case logits. The loss mixes the
    clean cross-entropy and the worst-case one half and half. AddSign (Bello, Zoph,
    Vasudevan and Le): each gradient coordinate scaled by 1 + sign(g) sign(m), m its
    moving average."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    c1, c2, c3 = widths
    flat = (side // 4) * (side // 4) * c3
    shapes = {"c1": (4, 4, 1, c1), "c1_b": (c1,), "c2": (3, 3, c1, c2), "c2_b": (c2,),
              "c3": (4, 4, c2, c3), "c3_b": (c3,), "d": (flat, hidden), "d_b": (hidden,),
              "out": (hidden, classes), "out_b": (classes,)}
    p = _weights(shapes, seed=5)
    plan = (("c1", 2), ("c2", 1), ("c3", 2))

    def features(p, centre, radius):
        """The hidden layer's centre and radius (radius None: an ordinary forward pass)."""
        for name, stride in plan:
            c = _conv2d(centre, p[name], stride) + p[f"{name}_b"]
            if radius is None:
                centre = jax.nn.relu(c)
                continue
            r = _conv2d(radius, jnp.abs(p[name]), stride)
            low, high = jax.nn.relu(c - r), jax.nn.relu(c + r)
            centre, radius = (high + low) / 2, (high - low) / 2
        centre = centre.reshape(centre.shape[0], -1)
        c = centre @ p["d"] + p["d_b"]
        if radius is None:
            return jax.nn.relu(c), None
        r = radius.reshape(radius.shape[0], -1) @ jnp.abs(p["d"])
        low, high = jax.nn.relu(c - r), jax.nn.relu(c + r)
        return (high + low) / 2, (high - low) / 2

    def loss_fn(p, pictures, labels):
        clean, _ = features(p, pictures, None)
        clean_logits = clean @ p["out"] + p["out_b"]
        low = jnp.clip(pictures - epsilon, 0.0, 1.0)
        high = jnp.clip(pictures + epsilon, 0.0, 1.0)
        centre, radius = features(p, (high + low) / 2, (high - low) / 2)
        diff = p["out"].T[labels][:, None, :] - p["out"].T[None, :, :]
        bias = p["out_b"][labels][:, None] - p["out_b"][None, :]
        margin = jnp.einsum("bjh,bh->bj", diff, centre) + bias \
            - jnp.einsum("bjh,bh->bj", jnp.abs(diff), radius)
        worst = -margin
        return kappa * jnp.mean(_xent(clean_logits, labels)) \
            + (1.0 - kappa) * jnp.mean(_xent(worst, labels))

    rng = np.random.RandomState(5)
    pictures, labels = _glyphs(rng, batch, side, classes)
    return _train("addsign", loss_fn, p, jnp.asarray(pictures), jnp.asarray(labels, jnp.int32),
                  rate=1e-3)


def meta_reweighting(batch: int = 64, meta: int = 64, side: int = 28, classes: int = 10,
                     noise: float = 0.4, inner_rate: float = 0.1) -> Any:
    """Learning to reweight examples (Ren, Zeng, Yang and Urtasun) for 28x28 glyphs of ten
    stroke kinds whose training labels are 40% flipped to random classes, with 64 clean
    glyphs as a meta set. A LeNet-style CNN (two 5x5 convolutions of 16 and 32 channels
    with ReLU and 2x2 max pooling by `reduce_window`, a dense layer of 128, ten logits)
    takes a look-ahead SGD step on the training losses weighted by per-example weights at
    zero; the gradient of the clean meta loss after that step with respect to those
    weights (a gradient through a gradient) gives each example's weight, its negative
    part cut off and the rest normalized to sum to one; the real step descends the
    training loss under those weights. SGD with momentum under the one-cycle policy
    (Smith)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes = {"c1": (5, 5, 1, 16), "c1_b": (16,), "c2": (5, 5, 16, 32), "c2_b": (32,),
              "d": ((side // 4) ** 2 * 32, 128), "d_b": (128,), "out": (128, classes),
              "out_b": (classes,)}
    p = _weights(shapes, seed=6, gain=1.4)
    init, update = _rule("one_cycle_sgd", rate=0.05)
    tm = jax.tree.map

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def losses(p, pictures, labels):
        x = pool(jax.nn.relu(_conv2d(pictures, p["c1"]) + p["c1_b"]))
        x = pool(jax.nn.relu(_conv2d(x, p["c2"]) + p["c2_b"]))
        x = jax.nn.relu(x.reshape(x.shape[0], -1) @ p["d"] + p["d_b"])
        return _xent(x @ p["out"] + p["out_b"], labels)

    def step(params, state, pictures, labels, meta_pictures, meta_labels):
        def meta_loss(weights):
            inner = jax.grad(lambda w: jnp.sum(weights * losses(w, pictures, labels)))(params)
            ahead = tm(lambda w, g: w - inner_rate * g, params, inner)
            return jnp.mean(losses(ahead, meta_pictures, meta_labels))

        slope = jax.grad(meta_loss)(jnp.zeros(pictures.shape[0]))
        weights = jnp.maximum(-slope, 0.0)
        total = jnp.sum(weights)
        weights = jnp.where(total > 0, weights / jnp.maximum(total, 1e-12), 0.0)
        loss, grads = jax.value_and_grad(
            lambda w: jnp.sum(weights * losses(w, pictures, labels)))(params)
        params, state = update(params, grads, state, loss)
        return params, state, loss, weights

    rng = np.random.RandomState(6)
    pictures, labels = _glyphs(rng, batch + meta, side, classes)
    noisy = labels[:batch].copy()
    flip = rng.uniform(size=batch) < noise
    noisy[flip] = rng.randint(0, classes, int(flip.sum()))
    return jax.jit(step).lower(p, jax.eval_shape(init, p), jnp.asarray(pictures[:batch]),
                               jnp.asarray(noisy, jnp.int32), jnp.asarray(pictures[batch:]),
                               jnp.asarray(labels[batch:], jnp.int32))


def es_policy(pairs: int = 128, episodes: int = 4, horizon: int = 150, hidden: int = 64,
              sigma: float = 0.05, rate: float = 0.01, decay: float = 0.005,
              dt: float = 0.02) -> Any:
    """Policy search by evolution strategies (Salimans, Ho, Chen, Sidor and Sutskever) for
    swinging up and balancing a cart-pole with a continuous force, no backward pass. A
    population of 256 policies (128 antithetic pairs of Gaussian perturbations of scale
    0.05 of every weight, drawn by `jax.random`) of a tanh MLP (five observations: the
    cart's position and speed, the cosine and sine of the pole angle and its rate; two
    layers of 64; one force) each drives four episodes of 150 Euler steps of the
    cart-pole equations from the same four starts (the pole hanging near the bottom), all
    in one `lax.scan` over time with every member's own weights (batched matrix products
    under `vmap`). The return rewards an upright pole and penalizes the cart's distance
    and the force; returns become centred ranks (a double `argsort`), and the gradient
    estimate is the rank-weighted sum of the perturbations, with weight decay. Adam
    ascends it. The mean and best returns come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes = {"w0": (5, hidden), "w0_b": (hidden,), "w1": (hidden, hidden), "w1_b": (hidden,),
              "w2": (hidden, 1), "w2_b": (1,)}
    p = _weights(shapes, seed=7)
    gravity, cart, pole, half = 9.8, 1.0, 0.1, 0.5
    tm = jax.tree.map
    b1, b2, eps = 0.9, 0.999, 1e-8

    def act(w, s):
        obs = jnp.stack([s[..., 0], s[..., 1], jnp.cos(s[..., 2]), jnp.sin(s[..., 2]),
                         s[..., 3]], -1)
        h = jnp.tanh(obs @ w["w0"] + w["w0_b"])
        h = jnp.tanh(h @ w["w1"] + w["w1_b"])
        return jnp.tanh(h @ w["w2"] + w["w2_b"])[..., 0]

    def episode_returns(w, starts):
        def tick(s, _):
            force = act(w, s)
            x, speed, angle, spin = s[..., 0], s[..., 1], s[..., 2], s[..., 3]
            sin, cos = jnp.sin(angle), jnp.cos(angle)
            push = (10.0 * force + pole * half * spin ** 2 * sin) / (cart + pole)
            turn = (gravity * sin - cos * push) / (half * (4.0 / 3.0 - pole * cos ** 2
                                                          / (cart + pole)))
            accel = push - pole * half * turn * cos / (cart + pole)
            s = jnp.stack([jnp.clip(x + dt * speed, -3.0, 3.0), speed + dt * accel,
                           angle + dt * spin, jnp.clip(spin + dt * turn, -20.0, 20.0)], -1)
            reward = cos - 0.05 * x ** 2 - 0.01 * force ** 2
            return s, reward

        _, rewards = jax.lax.scan(tick, starts, None, length=horizon)
        return jnp.mean(jnp.sum(rewards, 0))

    def step(params, m, v, t, starts, key):
        leaves, tree = jax.tree.flatten(params)
        keys = jax.random.split(key, len(leaves))
        noise = tree.unflatten([jax.random.normal(k, (pairs,) + leaf.shape)
                                for k, leaf in zip(keys, leaves)])
        members = tm(lambda w, z: jnp.concatenate([w + sigma * z, w - sigma * z]), params,
                     noise)
        returns = jax.vmap(episode_returns, in_axes=(0, None))(members, starts)
        ranks = jnp.argsort(jnp.argsort(returns)).astype(jnp.float32)
        shaped = ranks / (2 * pairs - 1) - 0.5
        weight = shaped[:pairs] - shaped[pairs:]
        ascent = tm(lambda z, w: jnp.tensordot(weight, z, 1) / (2 * pairs * sigma) - decay * w,
                    noise, params)
        t = t + 1
        n = t.astype(jnp.float32)
        m = tm(lambda a, g: b1 * a + (1 - b1) * g, m, ascent)
        v = tm(lambda a, g: b2 * a + (1 - b2) * g * g, v, ascent)
        params = tm(lambda w, a, c: w + rate * (a / (1 - b1 ** n)) / (jnp.sqrt(c / (1 - b2 ** n))
                                                                    + eps), params, m, v)
        return params, m, v, t, jnp.mean(returns), jnp.max(returns)

    rng = np.random.RandomState(7)
    starts = np.stack([rng.uniform(-0.5, 0.5, episodes), rng.uniform(-0.2, 0.2, episodes),
                       np.pi + rng.uniform(-0.3, 0.3, episodes),
                       rng.uniform(-0.2, 0.2, episodes)], -1).astype(np.float32)
    zeros = tm(jnp.zeros_like, p)
    return jax.jit(step).lower(p, zeros, zeros, jnp.int32(0), jnp.asarray(starts),
                               jax.random.PRNGKey(7))


def mezo_finetune(batch: int = 16, length: int = 64, vocab: int = 1024, width: int = 128,
                  heads: int = 4, layers: int = 4, classes: int = 4, epsilon: float = 1e-3,
                  rate: float = 1e-4, decay: float = 0.01) -> Any:
    """Memory-efficient zeroth-order fine-tuning (MeZO; Malladi et al.) of a bidirectional
    transformer classifier in bfloat16 (float32 master weights): 16 sequences of 64 tokens
    from four synthetic sources (order-one Markov chains over 1024 tokens with sparse
    transition tables of their own) behind a class token: four pre-norm layers of width 128
    with four heads and GELU MLPs of 512, a layer norm of the class token and a linear
    classifier under cross-entropy in float32. No gradient and no backward pass: one random
    direction over all weights, regenerated from its key for every use rather than stored,
    is added at 1e-3 and subtracted at 1e-3 for two forward passes; the difference of the
    two losses over 2e-3 is the projected gradient, and the weights step along the direction
    by it with decoupled weight decay (ZO-SGD)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf16, f32 = jnp.bfloat16, jnp.float32
    dh = width // heads
    shapes: dict[str, tuple[int, ...]] = {"embed": (vocab + 1, width), "pos": (length + 1, width)}
    for l in range(layers):
        shapes.update({f"{l}n1_g": (width,), f"{l}n1_b": (width,), f"{l}qkv": (width, 3 * width),
                       f"{l}qkv_b": (3 * width,), f"{l}o": (width, width), f"{l}o_b": (width,),
                       f"{l}n2_g": (width,), f"{l}n2_b": (width,), f"{l}f1": (width, 4 * width),
                       f"{l}f1_b": (4 * width,), f"{l}f2": (4 * width, width),
                       f"{l}f2_b": (width,)})
    shapes.update({"norm_g": (width,), "norm_b": (width,), "head": (width, classes),
                   "head_b": (classes,)})
    p = _weights(shapes, seed=8)
    p["pos"] = p["pos"] * 0.02

    def loss_fn(master, tokens, labels):
        w = {k: v.astype(bf16) for k, v in master.items()}
        b = tokens.shape[0]
        x = w["embed"][tokens] + w["pos"]
        for l in range(layers):
            h = _normalize(x, w[f"{l}n1_g"], w[f"{l}n1_b"])
            q, k, v = jnp.split((h @ w[f"{l}qkv"] + w[f"{l}qkv_b"]).reshape(
                b, length + 1, 3 * heads, dh), 3, 2)
            att = jax.nn.softmax(jnp.einsum("bihd,bjhd->bhij", q, k).astype(f32)
                                 / math.sqrt(dh), -1).astype(bf16)
            x = x + jnp.einsum("bhij,bjhd->bihd", att, v).reshape(b, length + 1, width) \
                @ w[f"{l}o"] + w[f"{l}o_b"]
            h = _normalize(x, w[f"{l}n2_g"], w[f"{l}n2_b"])
            x = x + jax.nn.gelu(h @ w[f"{l}f1"] + w[f"{l}f1_b"]) @ w[f"{l}f2"] + w[f"{l}f2_b"]
        x = _normalize(x[:, 0], w["norm_g"], w["norm_b"])
        return jnp.mean(_xent(x @ w["head"] + w["head_b"], labels))

    def step(params, tokens, labels, key):
        names = sorted(params)
        keys = dict(zip(names, jax.random.split(key, len(names))))

        def shifted(scale):
            return {k: params[k] + scale * jax.random.normal(keys[k], params[k].shape)
                    for k in names}

        plus = loss_fn(shifted(epsilon), tokens, labels)
        minus = loss_fn(shifted(-epsilon), tokens, labels)
        projected = (plus - minus) / (2.0 * epsilon)
        moved = {k: params[k] - rate * (projected * jax.random.normal(keys[k], params[k].shape)
                                        + decay * params[k]) for k in names}
        return moved, projected, 0.5 * (plus + minus)

    rng = np.random.RandomState(8)
    tables = rng.randint(0, vocab, (classes, vocab, 12))
    labels = rng.randint(0, classes, batch)
    tokens = np.zeros((batch, length + 1), np.int32)
    tokens[:, 0] = vocab
    for i, c in enumerate(labels):
        t = rng.randint(vocab)
        for j in range(1, length + 1):
            t = tables[c, t, min(rng.geometric(0.35) - 1, 11)] if rng.uniform() > 0.1 \
                else rng.randint(vocab)
            tokens[i, j] = t
    return jax.jit(step).lower(p, jnp.asarray(tokens), jnp.asarray(labels, jnp.int32),
                               jax.random.PRNGKey(8))


def point_transformer(batch: int = 4, points: int = 512, classes: int = 8, neighbours: int = 16,
                      widths: tuple[int, ...] = (32, 64, 128), samples: int = 50000,
                      prior: float = 100.0) -> Any:
    """Point cloud classification by the Point Transformer (Zhao, Jiang, Jia, Torr and
    Koltun) of four clouds of 512 points sampled from eight kinds of surfaces (sphere,
    torus, cube, cylinder, cone, helix tube, dumbbell, bumped plane) under random
    rotations, stretches and noise. Every stage finds each point's 16 nearest neighbours
    (all-pair squared distances and `top_k`, features gathered under `vmap`) and runs a
    residual point transformer layer: vector self-attention whose per-channel weights are
    a softmax over the neighbours of an MLP of (query - key + position encoding), the
    position encoding an MLP of the relative coordinates added to the values too. Two
    transition-down stages keep a quarter of the points each (the first quarter, the
    points being drawn in random order) and max-pool a linear layer, batch norm and ReLU
    of their neighbours' features and offsets from the finer level, at widths 32, 64 and
    128; global average pooling and an MLP classify under cross-entropy. Vadam (Khan,
    Nielsen, Tangkaratt, Lin, Gal and Srivastava): the gradient is taken at weights drawn
    from the Gaussian posterior whose precision comes from Adam's second moment (a key per
    step), and the mean steps as in Adam with a prior of precision 100 over 50,000
    samples."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    shapes: dict[str, tuple[int, ...]] = {"embed": (3, widths[0]), "embed_b": (widths[0],)}
    for s, c in enumerate(widths):
        if s:
            shapes.update({f"down{s}": (widths[s - 1] + 3, c), f"down{s}_g": (c,),
                           f"down{s}_b": (c,)})
        shapes.update({f"in{s}": (c, c), f"q{s}": (c, c), f"k{s}": (c, c), f"v{s}": (c, c),
                       f"pos{s}a": (3, c), f"pos{s}a_b": (c,), f"pos{s}b": (c, c),
                       f"pos{s}b_b": (c,), f"mix{s}a": (c, c), f"mix{s}a_b": (c,),
                       f"mix{s}b": (c, c), f"mix{s}b_b": (c,), f"out{s}": (c, c),
                       f"out{s}_g": (c,), f"out{s}_b": (c,)})
    shapes.update({"fc": (widths[-1], 64), "fc_b": (64,), "head": (64, classes),
                   "head_b": (classes,)})
    p = _weights(shapes, seed=9)
    relu = jax.nn.relu
    tm = jax.tree.map
    b1, b2, rate = 0.9, 0.999, 1e-3
    shrink = prior / samples

    def nearest(queries, keys):
        d = jnp.sum(queries ** 2, -1)[..., :, None] + jnp.sum(keys ** 2, -1)[..., None, :] \
            - 2.0 * jnp.einsum("bic,bjc->bij", queries, keys)
        return jax.lax.top_k(-d, neighbours)[1]

    def gather(values, index):
        return jax.vmap(lambda v, i: v[i])(values, index)

    def attend(p, s, x, xyz, index):
        h = x @ p[f"in{s}"]
        q, k, v = h @ p[f"q{s}"], h @ p[f"k{s}"], h @ p[f"v{s}"]
        rel = xyz[:, :, None, :] - gather(xyz, index)
        pos = relu(rel @ p[f"pos{s}a"] + p[f"pos{s}a_b"]) @ p[f"pos{s}b"] + p[f"pos{s}b_b"]
        a = q[:, :, None, :] - gather(k, index) + pos
        a = relu(a @ p[f"mix{s}a"] + p[f"mix{s}a_b"]) @ p[f"mix{s}b"] + p[f"mix{s}b_b"]
        a = jax.nn.softmax(a, 2)
        y = jnp.sum(a * (gather(v, index) + pos), 2)
        return relu(x + _bn(y @ p[f"out{s}"], p[f"out{s}_g"], p[f"out{s}_b"]))

    def loss_fn(p, clouds, labels):
        xyz = clouds
        x = relu(xyz @ p["embed"] + p["embed_b"])
        for s in range(len(widths)):
            if s:
                centres = xyz[:, :xyz.shape[1] // 4]
                index = nearest(centres, xyz)
                rel = gather(xyz, index) - centres[:, :, None, :]
                grouped = jnp.concatenate([gather(x, index), rel], -1) @ p[f"down{s}"]
                x = jnp.max(relu(_bn(grouped, p[f"down{s}_g"], p[f"down{s}_b"])), 2)
                xyz = centres
            x = attend(p, s, x, xyz, nearest(xyz, xyz))
        x = relu(jnp.mean(x, 1) @ p["fc"] + p["fc_b"])
        return jnp.mean(_xent(x @ p["head"] + p["head_b"], labels))

    def step(mean, m, s, t, clouds, labels, key):
        leaves, tree = jax.tree.flatten(mean)
        keys = tree.unflatten(list(jax.random.split(key, len(leaves))))
        drawn = tm(lambda mu, s_, k: mu + jax.random.normal(k, mu.shape)
                   / jnp.sqrt(samples * jnp.maximum(s_, 0.0) + prior), mean, s, keys)
        loss, g = jax.value_and_grad(loss_fn)(drawn, clouds, labels)
        t = t + 1
        n = t.astype(jnp.float32)
        m = tm(lambda a, g_, mu: b1 * a + (1 - b1) * (g_ + shrink * mu), m, g, mean)
        s = tm(lambda a, g_: b2 * a + (1 - b2) * g_ * g_, s, g)
        mean = tm(lambda mu, a, c: mu - rate * (a / (1 - b1 ** n))
                  / (jnp.sqrt(jnp.maximum(c, 0.0) / (1 - b2 ** n)) + shrink), mean, m, s)
        return mean, m, s, t, loss

    rng = np.random.RandomState(9)
    labels = rng.randint(0, classes, batch)
    clouds = np.zeros((batch, points, 3), np.float32)
    for i, kind in enumerate(labels):
        u, w = rng.uniform(0, 2 * np.pi, points), rng.uniform(-1, 1, points)
        if kind == 0:
            c = np.sqrt(1 - w ** 2)
            xyz = np.stack([c * np.cos(u), c * np.sin(u), w], -1)
        elif kind == 1:
            a = np.pi * w
            xyz = np.stack([(1 + 0.35 * np.cos(a)) * np.cos(u), (1 + 0.35 * np.cos(a))
                            * np.sin(u), 0.35 * np.sin(a)], -1)
        elif kind == 2:
            xyz = rng.uniform(-1, 1, (points, 3))
            face = rng.randint(0, 3, points)
            xyz[np.arange(points), face] = np.sign(rng.uniform(-1, 1, points))
        elif kind == 3:
            xyz = np.stack([np.cos(u), np.sin(u), w], -1)
        elif kind == 4:
            r = (1 - w) / 2
            xyz = np.stack([r * np.cos(u), r * np.sin(u), w], -1)
        elif kind == 5:
            a = rng.uniform(0, 2 * np.pi, points)
            xyz = np.stack([np.cos(3 * u) + 0.2 * np.cos(a) * np.cos(3 * u),
                            np.sin(3 * u) + 0.2 * np.cos(a) * np.sin(3 * u),
                            u / np.pi - 1 + 0.2 * np.sin(a)], -1)
        elif kind == 6:
            c = np.sqrt(1 - w ** 2)
            side = np.where(rng.uniform(size=points) < 0.5, -1.2, 1.2)
            xyz = np.stack([0.6 * c * np.cos(u) + side, 0.6 * c * np.sin(u), 0.6 * w], -1)
        else:
            x, y = rng.uniform(-1, 1, (2, points))
            xyz = np.stack([x, y, 0.8 * np.exp(-4 * (x ** 2 + y ** 2))], -1)
        rotation, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        xyz = (xyz * rng.uniform(0.7, 1.3, 3)) @ rotation
        clouds[i] = xyz + 0.02 * rng.standard_normal(xyz.shape)
    zeros = tm(jnp.zeros_like, p)
    return jax.jit(step).lower(p, zeros, zeros, jnp.int32(0), jnp.asarray(clouds),
                               jnp.asarray(labels, jnp.int32), jax.random.PRNGKey(9))


def fixmatch_wrn(labelled: int = 8, ratio: int = 2, side: int = 32, classes: int = 6,
                 widths: tuple[int, ...] = (16, 32, 64), threshold: float = 0.95,
                 weight: float = 1.0, cut: int = 12) -> Any:
    """Semi-supervised classification by FixMatch (Sohn et al.) of 32x32 pictures of six
    pattern kinds: eight labelled pictures and sixteen unlabelled ones per step. Inside
    the step every picture is weakly augmented (a random mirror and a translation of up
    to four pixels: reflect padding and a `dynamic_slice` under `vmap`) and every
    unlabelled one also strongly (its weak view with random brightness, contrast and
    saturation, posterizing to four bits, solarizing one time in two and a 12x12 cutout),
    all drawn by `jax.random`. A small wide residual network (a 3x3 stem of 16 channels,
    three stages of pre-activation blocks of 16, 32 and 64 channels, the last two
    strided, batch norm over all 40 views together, global pooling, a linear head) scores
    them; the weak views of the unlabelled pictures give pseudo-labels (no gradient) where
    the top class's probability reaches 0.95, and the strong views learn them under
    cross-entropy, added to the labelled cross-entropy. AdamW under a
    warmup-stable-decay schedule."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    shapes: dict[str, tuple[int, ...]] = {"stem": (3, 3, 3, widths[0])}
    cin = widths[0]
    for s, c in enumerate(widths):
        shapes.update({f"s{s}n1_g": (cin,), f"s{s}n1_b": (cin,), f"s{s}a": (3, 3, cin, c),
                       f"s{s}n2_g": (c,), f"s{s}n2_b": (c,), f"s{s}b": (3, 3, c, c)})
        if s:
            shapes[f"s{s}skip"] = (1, 1, cin, c)
        cin = c
    shapes.update({"norm_g": (cin,), "norm_b": (cin,), "head": (cin, classes),
                   "head_b": (classes,)})
    p = _weights(shapes, seed=10, gain=1.4)
    relu = jax.nn.relu

    def network(p, x):
        x = _conv2d(x, p["stem"])
        for s in range(len(widths)):
            stride = 2 if s else 1
            h = relu(_bn(x, p[f"s{s}n1_g"], p[f"s{s}n1_b"]))
            y = _conv2d(h, p[f"s{s}a"], stride)
            y = _conv2d(relu(_bn(y, p[f"s{s}n2_g"], p[f"s{s}n2_b"])), p[f"s{s}b"])
            x = y + (_conv2d(h, p[f"s{s}skip"], stride) if s else x)
        x = relu(_bn(x, p["norm_g"], p["norm_b"]))
        return jnp.mean(x, (1, 2)) @ p["head"] + p["head_b"]

    def weak(key, pictures):
        b = pictures.shape[0]
        k_flip, k_at = jax.random.split(key)
        x = jnp.where(jax.random.bernoulli(k_flip, 0.5, (b, 1, 1, 1)), pictures[:, :, ::-1],
                      pictures)
        x = jnp.pad(x, ((0, 0), (4, 4), (4, 4), (0, 0)), mode="reflect")
        at = jax.random.randint(k_at, (b, 2), 0, 9)
        return jax.vmap(lambda im, a: lax.dynamic_slice(im, (a[0], a[1], 0), (side, side, 3)))(
            x, at)

    def strong(key, x):
        b = x.shape[0]
        k_colour, k_sol, k_cut = jax.random.split(key, 3)
        jitter = jax.random.uniform(k_colour, (b, 1, 1, 3), minval=0.5, maxval=1.5)
        grey = jnp.mean(x, -1, keepdims=True)
        x = grey + (x - grey) * jitter[..., 2:]
        mean = jnp.mean(x, (1, 2, 3), keepdims=True)
        x = jnp.clip((mean + (x - mean) * jitter[..., 1:2]) * jitter[..., :1], 0.0, 1.0)
        x = jnp.floor(x * 16.0) / 16.0
        x = jnp.where(jax.random.bernoulli(k_sol, 0.5, (b, 1, 1, 1)) & (x > 0.5), 1.0 - x, x)
        corner = jax.random.randint(k_cut, (b, 2), -cut // 2, side - cut // 2)
        rows = jnp.arange(side)[None, :, None]
        cols = jnp.arange(side)[None, None, :]
        inside = (rows >= corner[:, :1, None]) & (rows < corner[:, :1, None] + cut) \
            & (cols >= corner[:, None, 1:]) & (cols < corner[:, None, 1:] + cut)
        return jnp.where(inside[..., None], 0.5, x)

    def loss_fn(p, seen, labels, unseen, key):
        k_seen, k_weak, k_strong = jax.random.split(key, 3)
        soft = weak(k_weak, unseen)
        views = jnp.concatenate([weak(k_seen, seen), soft, strong(k_strong, soft)], 0)
        logits = network(p, views)
        n, m = seen.shape[0], unseen.shape[0]
        supervised = jnp.mean(_xent(logits[:n], labels))
        probs = jax.nn.softmax(lax.stop_gradient(logits[n:n + m]), -1)
        sure = (jnp.max(probs, -1) >= threshold).astype(jnp.float32)
        unsupervised = jnp.mean(sure * _xent(logits[n + m:], jnp.argmax(probs, -1)))
        return supervised + weight * unsupervised

    rng = np.random.RandomState(10)
    count = labelled * (1 + ratio)
    kinds = rng.randint(0, classes, count)
    pictures = np.stack([np.clip(_pattern(rng, int(k), rng.randint(8), rng.uniform(3, 8), side),
                                 0, 1) for k in kinds])
    return _train("wsd_adamw", loss_fn, p, jnp.asarray(pictures[:labelled]),
                  jnp.asarray(kinds[:labelled], jnp.int32), jnp.asarray(pictures[labelled:]),
                  jax.random.PRNGKey(10), rate=2e-3)


def nasch_traffic(rings: int = 32, cars: int = 1024, steps: int = 256, every: int = 16,
                  vmax: int = 5, longest: int = 8192) -> Any:
    """The Nagel-Schreckenberg cellular automaton of single-lane traffic, with the
    velocity-dependent randomization of slow-to-start drivers, on 32 rings of 1125 to
    8192 cells carrying 1024 cars each (densities from 0.91 down to 0.125, dawdling
    probabilities from 0.1 to 0.5, restart delays from 0.1 to 0.7 of their own), no
    gradient. Cars never pass, so each car's leader is the next one around the ring (a
    `roll`) and its gap the difference of positions modulo the ring; every step a car
    speeds up by one (a stopped car only if it wins its restart draw) to at most five, no
    further than its gap, and slows by one at random, the draws split from one 32-bit
    word per car per step (`jax.random.bits`). 256 steps run as 16 snapshots of 16 in
    nested `lax.scan`s; every snapshot scatters the speeds into a space-time lattice of
    the rings, and every step reports the flow through the ring's origin, the mean speed
    and the share of stopped cars, with the number of jams (runs of stopped cars) per
    snapshot."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    rng = np.random.RandomState(11)
    lengths_np = np.round(cars / np.linspace(0.91, 0.125, rings)).astype(np.int32)
    lengths_np = np.minimum(lengths_np, longest)
    lengths = jnp.asarray(lengths_np)[:, None]
    rows = jnp.arange(rings)[:, None]

    def tick(carry, key):
        pos, vel, dawdle, restart = carry
        bits = jax.random.bits(key, pos.shape, jnp.uint32)
        first = (bits & jnp.uint32(0xFFFF)).astype(jnp.float32) / 65536.0
        second = (bits >> 16).astype(jnp.float32) / 65536.0
        gap = jnp.mod(jnp.roll(pos, -1, 1) - pos - 1, lengths)
        held = (vel == 0) & (second < restart)
        v = jnp.minimum(vel + jnp.where(held, 0, 1), vmax)
        v = jnp.minimum(v, gap)
        v = jnp.where(first < dawdle, jnp.maximum(v - 1, 0), v)
        moved = pos + v
        flow = jnp.sum(moved >= lengths, 1)
        pos = jnp.mod(moved, lengths)
        stats = (flow, jnp.mean(v.astype(jnp.float32), 1),
                 jnp.mean((v == 0).astype(jnp.float32), 1))
        return (pos, v, dawdle, restart), stats

    def stretch(carry, keys):
        carry, stats = lax.scan(tick, carry, keys)
        pos, vel = carry[0], carry[1]
        lattice = jnp.zeros((rings, longest), jnp.int8).at[rows, pos].set(
            (vel + 1).astype(jnp.int8), mode="drop")
        stopped = vel == 0
        jams = jnp.sum(stopped & ~jnp.roll(stopped, 1, 1), 1)
        return carry, (lattice, jams, stats)

    def run(pos, vel, dawdle, restart, key):
        keys = jax.random.split(key, steps).reshape(steps // every, every, -1)
        carry = (pos, vel, dawdle[:, None], restart[:, None])
        carry, (lattices, jams, stats) = lax.scan(stretch, carry, keys)
        return carry[0], carry[1], lattices, jams, stats

    pos = np.zeros((rings, cars), np.int32)
    for r, length in enumerate(lengths_np):
        pos[r] = np.sort(rng.choice(length, cars, replace=False))
    vel = rng.randint(0, vmax + 1, (rings, cars)).astype(np.int32)
    gaps = np.mod(np.roll(pos, -1, 1) - pos - 1, lengths_np[:, None])
    vel = np.minimum(vel, gaps)
    dawdle = np.linspace(0.1, 0.5, rings).astype(np.float32)
    restart = rng.permutation(np.linspace(0.1, 0.7, rings)).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(pos), jnp.asarray(vel), jnp.asarray(dawdle),
                              jnp.asarray(restart), jax.random.PRNGKey(11))


def reed_solomon_codec(words: int = 1024, length: int = 255, message: int = 223) -> Any:
    """Reed-Solomon RS(255, 223) coding over GF(256) (the primitive polynomial 0x11d,
    consecutive roots from alpha^0) of 1024 random messages, in integer arithmetic, no
    gradient: field products and quotients by gathers from log and antilog tables. The
    encoder divides every message by the generator polynomial in a `fori_loop` over its
    223 symbols (a linear feedback shift register of 32 parity symbols, all words at
    once); the codewords are corrupted by the given error patterns (0 to 20 wrong symbols
    a word, so some words exceed the 16 the code corrects). The decoder takes the 32
    syndromes by xor-reductions (`lax.reduce` with `xor`) of all symbol-power products, finds
    the error locator by Berlekamp-Massey in a `fori_loop` of 32 iterations vectorized
    over the words, its roots by a Chien search at all 255 positions, the error values by
    Forney's formula from the evaluator polynomial and the locator's formal derivative,
    and checks the corrected words' syndromes again. The decoded messages, the locator
    degrees, the roots found, the success flags and the symbols still wrong come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    parity = length - message
    antilog = np.zeros(512, np.int32)
    log = np.zeros(256, np.int32)
    value = 1
    for i in range(255):
        antilog[i] = value
        log[value] = i
        value <<= 1
        if value & 0x100:
            value ^= 0x11D
    antilog[255:510] = antilog[:255]

    def host_mul(a: int, b: int) -> int:
        return 0 if a == 0 or b == 0 else int(antilog[log[a] + log[b]])

    generator = [1]
    for j in range(parity):
        root = int(antilog[j])
        product = generator + [0]
        for i in range(1, len(product)):
            product[i] ^= host_mul(generator[i - 1], root)
        generator = product
    exp_t, log_t = jnp.asarray(antilog), jnp.asarray(log)
    gen = jnp.asarray(np.asarray(generator[1:], np.int32))
    positions = np.arange(length)
    syndrome_powers = jnp.asarray((np.arange(parity)[:, None] * (length - 1 - positions)[None, :])
                                  % 255)
    inverse_powers = jnp.asarray((np.arange(parity + 1)[None, :] * (positions[:, None] + 1))
                                 % 255)
    x_log = jnp.asarray((length - 1 - positions) % 255)
    lag = np.arange(parity)[:, None] - np.arange(parity + 1)[None, :]
    lag_valid, lag_index = jnp.asarray(lag >= 0), jnp.asarray(np.clip(lag, 0, parity - 1))

    def mul(a, b):
        return jnp.where((a == 0) | (b == 0), 0, exp_t[log_t[a] + log_t[b]])

    def xor_all(x, axis):
        return lax.reduce(x, np.int32(0), lax.bitwise_xor, (axis,))

    def evaluate(poly, powers):
        """poly (words, terms) at the points whose exponent rows are `powers` (points,
        terms): (words, points)."""
        terms = exp_t[log_t[poly][:, None, :] + powers[None]]
        return xor_all(jnp.where(poly[:, None, :] == 0, 0, terms), 2)

    def syndromes(r):
        terms = exp_t[log_t[r][:, None, :] + syndrome_powers[None]]
        return xor_all(jnp.where(r[:, None, :] == 0, 0, terms), 2)

    def run(messages, errors):
        msg = messages.astype(jnp.int32)

        def shift(i, reg):
            feedback = lax.dynamic_index_in_dim(msg, i, 1, keepdims=False) ^ reg[:, 0]
            reg = jnp.concatenate([reg[:, 1:], jnp.zeros((words, 1), jnp.int32)], 1)
            return reg ^ mul(feedback[:, None], gen[None, :])

        parity_symbols = lax.fori_loop(0, message, shift, jnp.zeros((words, parity), jnp.int32))
        received = jnp.concatenate([msg, parity_symbols], 1) ^ errors.astype(jnp.int32)
        synd = syndromes(received)
        one = jnp.zeros((words, parity + 1), jnp.int32).at[:, 0].set(1)
        span = jnp.arange(parity + 1)

        def massey(r, state):
            locator, previous, degree, gap, last = state
            index = r - span
            s = jnp.where(index >= 0, jnp.take(synd, jnp.clip(index, 0, parity - 1), 1), 0)
            d = xor_all(mul(locator, s), 1)
            ratio = jnp.where(d == 0, 0, exp_t[log_t[d] + 255 - log_t[last]])
            source = span[None, :] - gap[:, None]
            moved = jnp.where(source >= 0, jnp.take_along_axis(previous, jnp.clip(source, 0),
                                                               1), 0)
            candidate = locator ^ mul(ratio[:, None], moved)
            grow = (d != 0) & (2 * degree <= r)
            return (jnp.where((d == 0)[:, None], locator, candidate),
                    jnp.where(grow[:, None], locator, previous),
                    jnp.where(grow, r + 1 - degree, degree), jnp.where(grow, 1, gap + 1),
                    jnp.where(grow, d, last))

        start = (one, one, jnp.zeros(words, jnp.int32), jnp.ones(words, jnp.int32),
                 jnp.ones(words, jnp.int32))
        locator, _, degree, _, _ = lax.fori_loop(0, parity, massey, start)
        roots = evaluate(locator, inverse_powers) == 0
        pairs = mul(locator[:, None, :], jnp.take(synd, lag_index, 1))
        evaluator = xor_all(jnp.where(lag_valid[None], pairs, 0), 2)
        derivative = jnp.where(jnp.arange(parity) % 2 == 0, locator[:, 1:], 0)
        top = evaluate(evaluator, inverse_powers[:, :parity])
        bottom = evaluate(derivative, inverse_powers[:, :parity])
        size = exp_t[(x_log[None, :] + log_t[top] + 255 - log_t[bottom]) % 255]
        size = jnp.where((top == 0) | (bottom == 0), 0, size)
        corrected = received ^ jnp.where(roots, size, 0)
        found = jnp.sum(roots, 1)
        fixed = (found == degree) & (degree <= parity // 2) \
            & jnp.all(syndromes(corrected) == 0, 1)
        decoded = jnp.where(fixed[:, None], corrected[:, :message], received[:, :message])
        wrong = jnp.sum(decoded != msg, 1)
        return decoded.astype(jnp.uint8), degree, found, fixed, wrong

    rng = np.random.RandomState(12)
    messages = rng.randint(0, 256, (words, message)).astype(np.uint8)
    errors = np.zeros((words, length), np.uint8)
    for w in range(words):
        count = rng.randint(0, 21)
        at = rng.choice(length, count, replace=False)
        errors[w, at] = rng.randint(1, 256, count)
    return jax.jit(run).lower(jnp.asarray(messages), jnp.asarray(errors))


def marching_squares(fields: int = 4, side: int = 512,
                     levels: tuple[float, ...] = (-1.0, -0.3, 0.3, 1.0), coarse: int = 8) -> Any:
    """Iso-contours by marching squares of four 512x512 scalar fields (smooth random
    terrain: low-pass filtered noise plus a few Gaussian hills and pits) at four levels,
    no gradient. Every cell of the grid gets its case from its four corners above the
    level (16 cases), the crossing points on its edges by linear interpolation, and its
    segments from a 32-row table of edge pairs by gathers; the two saddle cases are
    resolved by the cell's centre value (the mean of its corners). Per field and level,
    the levels one after another in a `lax.map`: the segment endpoints' total contour
    length, the number of segments, a 64x64 map of contour length (cells summed in 8x8
    blocks), the histogram of the 16 cases (`segment_sum`), the share of the area above
    the level (corners counted in quarters) and the number of saddle cells."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    # edges: 0 top, 1 right, 2 bottom, 3 left; corner bits: top-left 8, top-right 4,
    # bottom-right 2, bottom-left 1
    single = {1: (3, 2), 2: (2, 1), 3: (3, 1), 4: (0, 1), 6: (0, 2), 7: (3, 0), 8: (3, 0),
              9: (0, 2), 11: (0, 1), 12: (3, 1), 13: (2, 1), 14: (3, 2)}
    table = -np.ones((32, 2, 2), np.int32)
    for case, pair in single.items():
        table[case, 0] = table[case + 16, 0] = pair
    # saddles: (centre below, centre above)
    table[5] = ((3, 2), (0, 1))
    table[21] = ((3, 0), (2, 1))
    table[10] = ((3, 0), (2, 1))
    table[26] = ((3, 2), (0, 1))
    table_j = jnp.asarray(table.reshape(32, 4))
    blocks = side // coarse

    def cross(p, q, level):
        step = q - p
        return jnp.clip((level - p) / jnp.where(step == 0, 1e-12, step), 0.0, 1.0)

    def contour(f, level):
        a, b = f[:, :-1, :-1], f[:, :-1, 1:]
        c, d = f[:, 1:, 1:], f[:, 1:, :-1]
        above = [(x > level).astype(jnp.int32) for x in (a, b, c, d)]
        case = 8 * above[0] + 4 * above[1] + 2 * above[2] + above[3]
        centre = ((a + b + c + d) / 4 > level).astype(jnp.int32)
        ends = table_j[case + 16 * centre]
        ex = jnp.stack([cross(a, b, level), jnp.ones_like(a), cross(d, c, level),
                        jnp.zeros_like(a)], -1)
        ey = jnp.stack([jnp.zeros_like(a), cross(b, c, level), jnp.ones_like(a),
                        cross(a, d, level)], -1)
        pick = [ends[..., None] == e for e in range(4)]
        px = sum(jnp.where(hit, ex[..., None, e:e + 1], 0.0) for e, hit in enumerate(pick))
        py = sum(jnp.where(hit, ey[..., None, e:e + 1], 0.0) for e, hit in enumerate(pick))
        px = px.reshape(ends.shape[:-1] + (2, 2))
        py = py.reshape(ends.shape[:-1] + (2, 2))
        valid = ends.reshape(ends.shape[:-1] + (2, 2))[..., 0] >= 0
        length = jnp.where(valid, jnp.hypot(px[..., 1] - px[..., 0], py[..., 1] - py[..., 0]),
                           0.0)
        per_cell = jnp.sum(length, -1)
        padded = jnp.pad(per_cell, ((0, 0), (0, 1), (0, 1)))
        density = padded.reshape(fields, blocks, coarse, blocks, coarse).sum((2, 4))
        owner = jnp.arange(fields)[:, None, None] * 16 + case
        histogram = jax.ops.segment_sum(jnp.ones(case.size, jnp.int32), owner.reshape(-1),
                                        fields * 16).reshape(fields, 16)
        area = jnp.mean(sum(above).astype(jnp.float32), (1, 2)) / 4.0
        saddles = jnp.sum((case == 5) | (case == 10), (1, 2))
        return (jnp.sum(per_cell, (1, 2)), jnp.sum(valid, (1, 2, 3)), density, histogram, area,
                saddles)

    def run(f):
        return lax.map(lambda level: contour(f, level), jnp.asarray(levels, jnp.float32))

    rng = np.random.RandomState(13)
    k = np.fft.fftfreq(side) * side
    lowpass = np.exp(-(k[:, None] ** 2 + k[None, :] ** 2) / (2 * 6.0 ** 2))
    terrain = np.real(np.fft.ifft2(np.fft.fft2(rng.standard_normal((fields, side, side)))
                                   * lowpass))
    terrain /= terrain.std((1, 2), keepdims=True)
    yy, xx = np.mgrid[0:side, 0:side] / float(side)
    for i in range(fields):
        for _ in range(5):
            cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.03, 0.12)
            terrain[i] += rng.uniform(-2, 2) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / r ** 2)
    return jax.jit(run).lower(jnp.asarray(terrain, jnp.float32))


def ewald_electrostatics(systems: int = 4, charges: int = 1024, kmax: int = 7,
                         alpha: float = 7.0) -> Any:
    """Electrostatic energies, forces and potentials of four periodic systems of 1024
    point charges in a unit cube by Ewald summation, no gradient, the systems one after
    another in a `lax.map`: a rock-salt crystal on a 12x12x12 lattice with vacancies (1024
    of its 1728 sites) and slight thermal jitter, the same with a jitter that melts it, a
    gas of unit charges and a gas of divalent cations among monovalent anions (one
    particle left neutral), every system neutral. The real-space part sums erfc(alpha
    r)/r (alpha = 7) over all pairs under the minimum-image convention within half the
    box, with its forces; the reciprocal part takes the structure factor (the
    charge-weighted cosines and sines of k.r, by matrix products) at the 709 wave vectors
    of a half-space with |n| <= 7, weights it by exp(-k^2 / 4 alpha^2) / k^2, and gives
    the energy, the force on every charge and its potential; the self-energy is
    subtracted. The three energies, the forces, the potentials and the largest force come
    back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    span = np.arange(-kmax, kmax + 1)
    grid = np.stack(np.meshgrid(span, span, span, indexing="ij"), -1).reshape(-1, 3)
    upper = (grid[:, 0] > 0) | ((grid[:, 0] == 0) & (grid[:, 1] > 0)) \
        | ((grid[:, 0] == 0) & (grid[:, 1] == 0) & (grid[:, 2] > 0))
    grid = grid[upper & (np.sum(grid ** 2, 1) <= kmax ** 2)]
    waves = jnp.asarray(2 * np.pi * grid, jnp.float32)
    k2 = np.sum((2 * np.pi * grid) ** 2, 1)
    weight = jnp.asarray(np.exp(-k2 / (4 * alpha ** 2)) / k2, jnp.float32)
    volume, cutoff = 1.0, 0.5
    root_pi = math.sqrt(math.pi)

    def one(system):
        r, q = system
        d = r[:, None, :] - r[None, :, :]
        d = d - jnp.round(d)
        dist2 = jnp.sum(d * d, -1)
        pair = (dist2 < cutoff ** 2) & ~jnp.eye(charges, dtype=bool)
        dist = jnp.sqrt(jnp.where(pair, dist2, 1.0))
        screened = jnp.where(pair, lax.erfc(alpha * dist) / dist, 0.0)
        qq = q[:, None] * q[None, :]
        real = 0.5 * jnp.sum(qq * screened)
        pull = jnp.where(pair, (screened + 2 * alpha / root_pi * jnp.exp(-(alpha * dist) ** 2))
                         / (dist * dist), 0.0)
        real_force = jnp.sum((qq * pull)[..., None] * d, 1)
        real_potential = screened @ q
        phase = r @ waves.T
        cos, sin = jnp.cos(phase), jnp.sin(phase)
        c, s = q @ cos, q @ sin
        recip = 4 * math.pi / volume * jnp.sum(weight * (c * c + s * s))
        recip_force = 8 * math.pi / volume * q[:, None] * (((sin * c - cos * s) * weight) @ waves)
        recip_potential = 8 * math.pi / volume * ((cos * c + sin * s) @ weight)
        self_energy = -alpha / root_pi * jnp.sum(q * q)
        force = real_force + recip_force
        potential = real_potential + recip_potential - 2 * alpha / root_pi * q
        return (jnp.stack([real, recip, self_energy]), force, potential,
                jnp.max(jnp.sqrt(jnp.sum(force * force, -1))))

    def run(positions, values):
        return lax.map(one, (positions, values))

    rng = np.random.RandomState(14)
    positions = np.zeros((systems, charges, 3), np.float32)
    values = np.zeros((systems, charges), np.float32)
    cells = 12
    lattice = np.stack(np.meshgrid(*[np.arange(cells)] * 3, indexing="ij"), -1).reshape(-1, 3)
    signs = np.where(lattice.sum(1) % 2 == 0, 1.0, -1.0)
    for s in range(systems):
        if s < 2:
            keep = rng.permutation(len(lattice))
            plus = keep[signs[keep] > 0][:charges // 2]
            minus = keep[signs[keep] < 0][:charges // 2]
            chosen = np.concatenate([plus, minus])
            jitter = (0.04, 0.2)[s] / cells
            positions[s] = (lattice[chosen] + 0.5) / cells \
                + jitter * rng.standard_normal((charges, 3))
            values[s] = signs[chosen]
        else:
            positions[s] = rng.uniform(0, 1, (charges, 3))
            third = charges // 3
            values[s] = np.where(np.arange(charges) % 2 == 0, 1.0, -1.0) if s == 2 else \
                np.where(np.arange(charges) < third, 2.0,
                         np.where(np.arange(charges) < 3 * third, -1.0, 0.0))
    positions %= 1.0
    return jax.jit(run).lower(jnp.asarray(positions), jnp.asarray(values))


def jones_plassmann_coloring(graphs: int = 8, side: int = 64, chords: int = 4,
                             palette: int = 16, cap: int = 64) -> Any:
    """Parallel graph colouring by the Jones-Plassmann algorithm of eight graphs of 4096
    nodes, no gradient: each graph is a 64x64 torus with king-move neighbours (eight)
    plus four random long-range chords per node, the chords four random perfect matchings
    drawn inside the step (a `jax.random.permutation` per matching, paired off by a
    scatter), so every node has twelve neighbours. Node priorities are the given weights
    (ties broken by index). In a `while_loop` (at most 64 rounds, until every node has a
    colour; the graphs batched by `vmap`), every uncoloured node whose priority beats all
    its uncoloured neighbours' (gathers) takes the smallest colour of a palette of 16 that
    none of its neighbours holds. The colours, the rounds taken, the number of colours
    used, the colour class sizes (`segment_sum`) and the count of conflicting edges (zero
    unless the palette ran out) come back."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    n = side * side
    rr, cc = np.divmod(np.arange(n), side)
    moves = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
    lattice = jnp.asarray(np.stack([((rr + dr) % side) * side + (cc + dc) % side
                                    for dr, dc in moves], 1).astype(np.int32))
    index = jnp.arange(n)

    def colour(weights, key):
        partners = []
        for k in jax.random.split(key, chords):
            order = jax.random.permutation(k, n)
            partner = jnp.zeros(n, jnp.int32).at[order[0::2]].set(order[1::2])
            partners.append(partner.at[order[1::2]].set(order[0::2]))
        nbrs = jnp.concatenate([lattice, jnp.stack(partners, 1)], 1)
        theirs = weights[nbrs]
        beats = (weights[:, None] > theirs) | ((weights[:, None] == theirs)
                                               & (index[:, None] > nbrs)) | (nbrs == index[:, None])

        def unfinished(state):
            colours, rounds = state
            return jnp.any(colours < 0) & (rounds < cap)

        def round_(state):
            colours, rounds = state
            waiting = colours < 0
            ready = waiting & jnp.all(beats | ~waiting[nbrs], 1)
            taken = jnp.any(colours[nbrs][..., None] == jnp.arange(palette), 1)
            choice = jnp.argmin(taken, 1)
            return jnp.where(ready, choice, colours), rounds + 1

        colours, rounds = lax.while_loop(unfinished, round_,
                                         (jnp.full(n, -1, jnp.int32), jnp.int32(0)))
        clash = (colours[nbrs] == colours[:, None]) & (nbrs != index[:, None]) \
            & (colours[:, None] >= 0)
        sizes = jax.ops.segment_sum(jnp.ones(n, jnp.int32), jnp.where(colours >= 0, colours,
                                                                       palette), palette + 1)
        return colours, rounds, jnp.max(colours) + 1, sizes[:palette], jnp.sum(clash) // 2

    def run(weights, key):
        return jax.vmap(colour)(weights, jax.random.split(key, graphs))

    rng = np.random.RandomState(15)
    weights = rng.uniform(0, 1, (graphs, n)).astype(np.float32)
    return jax.jit(run).lower(jnp.asarray(weights), jax.random.PRNGKey(15))


PROGRAMS: dict[str, Callable[[], Any]] = {
    "pspnet_segmentation/4x96px-32-128-bins1236": pspnet_segmentation,
    "swav_prototypes/16x2x32px+4x16px-k128": swav_prototypes,
    "clip_pairs/32x32px+16-tokens-d96-bf16": clip_pairs,
    "dfa_mlp/256x784-3x1024": dfa_mlp,
    "ibp_certified_cnn/64x28px-eps0.1": ibp_certified_cnn,
    "meta_reweighting/64+64x28px-40pct-noise": meta_reweighting,
    "es_policy/256-members-4x150-steps": es_policy,
    "mezo_finetune/16x64-d128-l4-bf16": mezo_finetune,
    "point_transformer/4x512-points-k16": point_transformer,
    "fixmatch_wrn/8+16x32px-16-32-64": fixmatch_wrn,
    "nasch_traffic/32x1024-cars-256-steps": nasch_traffic,
    "reed_solomon_codec/1024x255-t16": reed_solomon_codec,
    "marching_squares/4x512x512-4-levels": marching_squares,
    "ewald_electrostatics/4x1024-charges-k7": ewald_electrostatics,
    "jones_plassmann_coloring/8x4096-nodes-d12": jones_plassmann_coloring,
}
