"""The zoo's sweep: each family's sizes and batches, the seeded order they are
measured in (`program_specs`) and the flat program of one spec
(`build_program`).

Two tiers share the families and their builders. `zoo` is the sweep every dataset
started from: steps of a fraction of a millisecond to about a second on a 2-core CPU
(median 14 ms). `large` holds bigger sizes of the same families, whose weights and
activations no longer fit in a CPU's caches (0.06-7.1 s there, median 0.51 s): the
steps where kernels timed alone and kernels inside a step part most.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ...errors import InvalidArgumentError
from ..kernels import ArgSpec
from .convnets import cnn, conv1d, conv3d, decoder_cnn, sepconv
from .mlps import autoencoder, gated_mlp, mlp, resmlp
from .sequence import attention, mixer, rnn, transformer_fwd, transformer_train, unrolled_rnn
from .sparse import embed_xent, graph_net, moe


@dataclass(frozen=True)
class ProgramSpec:
    family: str
    size: str                      # the size name within the family
    dtype: str
    params: dict[str, Any]

    @property
    def variant(self) -> str:
        return self.size

    @property
    def group_id(self) -> str:
        return f"{self.family}/{self.size}/{self.dtype}"


_FAMILIES: dict[str, tuple[Callable[..., Any], list[tuple[str, dict[str, Any]]], list[int]]] = {
    # family: (builder, [(size name, size params)], batches)
    "mlp": (mlp, [(f"w{w}-l{l}", {"width": w, "layers": l})
                  for w, l in itertools.product((256, 512, 1024, 2048), (2, 4, 8))],
            [8, 32, 128]),
    "cnn": (cnn, [(f"c{c}-s{s}-i{i}", {"channels": c, "stages": s, "image": i})
                  for c, s, i in itertools.product((8, 16, 32), (2, 3), (32, 64))],
            [2, 8, 16]),
    "transformer_fwd": (transformer_fwd,
                        [(f"d{d}-l{l}-t{t}", {"d_model": d, "layers": l, "seq": t,
                                              "heads": max(2, d // 64), "vocab": 2048})
                         for d, l, t in itertools.product((128, 256, 512), (1, 2), (64, 256))],
                        [1, 4, 8]),
    "transformer_train": (transformer_train,
                          [(f"d{d}-l{l}-t{t}", {"d_model": d, "layers": l, "seq": t,
                                                "heads": max(2, d // 64), "vocab": 2048})
                           for d, l, t in itertools.product((128, 256, 512), (1, 2), (64, 256))],
                          [1, 4, 8]),
    "mixer": (mixer, [(f"p{pt}-h{h}-l{l}", {"patches": pt, "hidden": h, "layers": l})
                      for pt, h, l in itertools.product((16, 64), (128, 256, 512), (2, 4))],
              [4, 16, 32]),
    "rnn_scan": (rnn, [(f"h{h}-t{t}", {"hidden": h, "steps": t})
                       for h, t in itertools.product((128, 256, 512, 1024), (16, 64))],
                 [8, 32, 64]),
    "embed_xent": (embed_xent, [(f"v{v}-d{d}", {"vocab": v, "d_model": d})
                                for v, d in itertools.product((1024, 4096, 16384), (64, 256, 512))],
                   [256, 1024, 4096]),
    "resmlp": (resmlp, [(f"w{w}-l{l}", {"width": w, "layers": l})
                        for w, l in itertools.product((128, 256, 512), (2, 6, 12))],
               [16, 64]),
    "gated_mlp": (gated_mlp, [(f"w{w}-l{l}", {"width": w, "layers": l})
                              for w, l in itertools.product((256, 512, 1024), (2, 4))],
                  [8, 64]),
    "sepconv": (sepconv, [(f"c{c}-b{n}-i{i}", {"channels": c, "blocks": n, "image": i})
                          for c, n, i in itertools.product((16, 32, 64), (2, 4), (16, 32))],
                [4, 16]),
    "attention": (attention, [(f"d{d}-t{t}", {"d_model": d, "heads": d // 64, "seq": t})
                              for d, t in itertools.product((128, 256), (64, 256, 1024))],
                  [1, 4]),
    "conv1d": (conv1d, [(f"c{c}-l{l}", {"channels": c, "layers": l, "length": 512})
                        for c, l in itertools.product((32, 64, 128), (3, 6))],
               [4, 16]),
    "autoencoder": (autoencoder, [(f"w{w}-c{c}", {"width": w, "code": c})
                                  for w, c in itertools.product((256, 1024, 2048), (16, 64))],
                    [16, 128]),
    "decoder_cnn": (decoder_cnn, [(f"c{c}-s{n}-b{base}", {"channels": c, "stages": n,
                                                          "base": base})
                                  for c, n, base in itertools.product((32, 128), (2, 3), (4, 8))],
                    [2, 8]),
    "unrolled_rnn": (unrolled_rnn, [(f"{cell}-h{h}-t{t}", {"cell": cell, "hidden": h,
                                                           "steps": t})
                                    for cell, h, t in itertools.product(("lstm", "gru"),
                                                                        (128, 512), (4, 16))],
                     [8, 32]),
    "moe": (moe, [(f"d{d}-e{e}", {"d_model": d, "experts": e})
                  for d, e in itertools.product((128, 512), (4, 16))],
            [256, 1024]),
    "graph_net": (graph_net, [(f"n{n}-k{k}-w{w}", {"nodes": n, "degree": k, "width": w,
                                                   "layers": 2})
                              for n, k, w in itertools.product((1024, 8192), (4, 16), (64, 256))],
                  [1]),
    "conv3d": (conv3d, [(f"c{c}-f{f}-s{s}", {"channels": c, "frames": f, "side": s})
                        for c, f, s in itertools.product((8, 32), (4, 16), (16, 32))],
               [1, 2]),
}
# The `large` tier: (sizes, batches) per family, each size bigger than any of the zoo's
# in at least one dimension that moves the data (widths, sequence, image, nodes)
_LARGE: dict[str, tuple[list[tuple[str, dict[str, Any]]], list[int]]] = {
    "mlp": ([("w4096-l2", {"width": 4096, "layers": 2}),
             ("w3072-l4", {"width": 3072, "layers": 4})], [64, 256]),
    "cnn": ([("c64-s3-i64", {"channels": 64, "stages": 3, "image": 64}),
             ("c48-s2-i96", {"channels": 48, "stages": 2, "image": 96})], [4, 8]),
    "transformer_fwd": ([("d768-l2-t512", {"d_model": 768, "layers": 2, "seq": 512,
                                           "heads": 12, "vocab": 8192}),
                         ("d512-l4-t1024", {"d_model": 512, "layers": 4, "seq": 1024,
                                            "heads": 8, "vocab": 8192})], [1, 2]),
    "transformer_train": ([("d768-l2-t512", {"d_model": 768, "layers": 2, "seq": 512,
                                             "heads": 12, "vocab": 8192}),
                           ("d512-l2-t1024", {"d_model": 512, "layers": 2, "seq": 1024,
                                              "heads": 8, "vocab": 8192})], [1, 2]),
    "mixer": ([("p64-h1024-l2", {"patches": 64, "hidden": 1024, "layers": 2}),
               ("p256-h512-l2", {"patches": 256, "hidden": 512, "layers": 2})], [4, 8]),
    "rnn_scan": ([("h2048-t64", {"hidden": 2048, "steps": 64}),
                  ("h1536-t128", {"hidden": 1536, "steps": 128})], [8, 16]),
    "embed_xent": ([("v32768-d256", {"vocab": 32768, "d_model": 256}),
                    ("v65536-d128", {"vocab": 65536, "d_model": 128})], [512, 2048]),
    "resmlp": ([("w1024-l12", {"width": 1024, "layers": 12}),
                ("w2048-l6", {"width": 2048, "layers": 6})], [32, 128]),
    "gated_mlp": ([("w2048-l4", {"width": 2048, "layers": 4}),
                   ("w3072-l2", {"width": 3072, "layers": 2})], [16, 64]),
    "sepconv": ([("c128-b4-i32", {"channels": 128, "blocks": 4, "image": 32}),
                 ("c64-b4-i64", {"channels": 64, "blocks": 4, "image": 64})], [8, 16]),
    "attention": ([("d512-t1024", {"d_model": 512, "heads": 8, "seq": 1024}),
                   ("d256-t2048", {"d_model": 256, "heads": 4, "seq": 2048})], [1, 2]),
    "conv1d": ([("c256-l6", {"channels": 256, "layers": 6, "length": 512}),
                ("c128-l6-n2048", {"channels": 128, "layers": 6, "length": 2048})], [4, 8]),
    "autoencoder": ([("w4096-c64", {"width": 4096, "code": 64}),
                     ("w8192-c128", {"width": 8192, "code": 128})], [32, 128]),
    "decoder_cnn": ([("c256-s3-b8", {"channels": 256, "stages": 3, "base": 8}),
                     ("c128-s4-b8", {"channels": 128, "stages": 4, "base": 8})], [8, 16]),
    "unrolled_rnn": ([("lstm-h1024-t16", {"cell": "lstm", "hidden": 1024, "steps": 16}),
                      ("gru-h1536-t16", {"cell": "gru", "hidden": 1536, "steps": 16})],
                     [16, 32]),
    "moe": ([("d1024-e16", {"d_model": 1024, "experts": 16}),
             ("d768-e32", {"d_model": 768, "experts": 32})], [512, 1024]),
    "graph_net": ([("n32768-k16-w256", {"nodes": 32768, "degree": 16, "width": 256,
                                        "layers": 2}),
                   ("n16384-k8-w512", {"nodes": 16384, "degree": 8, "width": 512,
                                       "layers": 2})], [1]),
    "conv3d": ([("c64-f16-s32", {"channels": 64, "frames": 16, "side": 32}),
                ("c32-f32-s48", {"channels": 32, "frames": 32, "side": 48})], [1, 2]),
}
PROGRAM_FAMILIES = tuple(_FAMILIES)
PROGRAM_DTYPES = ("f32", "bf16")
TIERS = ("zoo", "large")


def _tier_sizes(family: str, tier: str) -> tuple[list[tuple[str, dict[str, Any]]], list[int]]:
    if tier == "zoo":
        _, sizes, batches = _FAMILIES[family]
        return sizes, batches
    if tier == "large":
        return _LARGE[family]
    raise InvalidArgumentError(f"unknown zoo tier {tier!r}; allowed: {', '.join(TIERS)}")


def program_specs(seed: int, families: tuple[str, ...] = PROGRAM_FAMILIES,
                  dtypes: tuple[str, ...] = PROGRAM_DTYPES, tier: str = "zoo"
                  ) -> list[ProgramSpec]:
    """The whole sweep of `tier` (`TIERS`), interleaved across families and shuffled
    within each family by `seed`, so any prefix of it (a short budget) covers every
    family. A `large` spec's params say `"tier": "large"`."""
    rng = np.random.default_rng(seed)
    per_family = []
    for family in families:
        sizes, batches = _tier_sizes(family, tier)
        extra = {} if tier == "zoo" else {"tier": tier}
        specs = [ProgramSpec(family, name, dtype, {**size, "batch": batch, "dtype": dtype,
                                                   "family": family, "size": name, **extra})
                 for (name, size), batch, dtype in itertools.product(sizes, batches, dtypes)]
        per_family.append([specs[i] for i in rng.permutation(len(specs))])
    out: list[ProgramSpec] = []
    for i in range(max(len(s) for s in per_family)):
        out.extend(s[i] for s in per_family if i < len(s))
    return out


def build_program(params: dict[str, Any]) -> tuple[Callable[..., Any], list[Any]]:
    """The flat function and its flat argument specs (ShapeDtypeStruct or ArgSpec)."""
    import jax

    family = params["family"]
    if family not in _FAMILIES:
        raise InvalidArgumentError(f"unknown program family {family!r}; "
                                   f"allowed: {', '.join(PROGRAM_FAMILIES)}")
    fn, model_params, data = _FAMILIES[family][0](params)
    leaves, treedef = jax.tree_util.tree_flatten(model_params)
    n = len(leaves)

    def flat(*args):
        return fn(jax.tree_util.tree_unflatten(treedef, args[:n]), *args[n:])

    specs = [ArgSpec(tuple(leaf.shape), params["dtype"]) for leaf in leaves] + list(data)
    return flat, specs
