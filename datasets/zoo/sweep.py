"""The zoo's sweep: each family's sizes and batches, the seeded order they are
measured in (`program_specs`) and the flat program of one spec
(`build_program`).
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
PROGRAM_FAMILIES = tuple(_FAMILIES)
PROGRAM_DTYPES = ("f32", "bf16")


def program_specs(seed: int, families: tuple[str, ...] = PROGRAM_FAMILIES,
                  dtypes: tuple[str, ...] = PROGRAM_DTYPES) -> list[ProgramSpec]:
    """The whole sweep, interleaved across families and shuffled within each family by
    `seed`, so any prefix of it (a short budget) covers every family."""
    rng = np.random.default_rng(seed)
    per_family = []
    for family in families:
        _, sizes, batches = _FAMILIES[family]
        specs = [ProgramSpec(family, name, dtype, {**size, "batch": batch, "dtype": dtype,
                                                   "family": family, "size": name})
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
