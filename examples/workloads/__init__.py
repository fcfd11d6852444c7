"""The workloads users ask about, as JAX programs stablecost predicts on a mesh.

    import sys; sys.path.insert(0, "examples")
    import stablecost, workloads
    w = workloads.WORKLOADS["llama3-1b-train"]
    text = workloads.lower(w, devices=4)                 # StableHLO, sharded by annotations
    p = stablecost.predict(text, "H100-SXM", fidelity="all", mesh=w.mesh(4))

- `llama3-{100m,200m,500m,1b,2b,3b}-train`: a LLaMA-3-style decoder (llama.py), sequence
  4,096, batch 1 per device: forward, causal-LM loss, backward, AdamW. FSDP over "fsdp".
- `resnet{18,34,50,101,200}-train`: ResNet v1.5 (resnet.py), 256 images of 224x224 per
  device, SGD with momentum. Data parallel over "data" (shard_map).
- `llama3-{1b,3b}-prefill`: a 4,096-token prompt, batch 8: the KV cache and the next
  token's logits. Tensor parallel over "model".
- `llama3-{1b,3b}-decode`: one token per sequence, batch 8, against a 4,608-position KV
  cache. Tensor parallel over "model".

Every builder takes the device count (the mesh has one axis of that size) and lowers
without devices or weights (`jax.ShapeDtypeStruct` arguments): the 3B model's training
step lowers in a few hundred MB. `llama.CONFIGS` / `resnet.DEPTHS` document each model's
shape, `Workload.params` its exact parameter count.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from . import llama, resnet


@dataclass(frozen=True)
class Workload:
    """One step to predict. `build(devices)` returns (step, example args)."""

    name: str
    kind: str            # train | prefill | decode
    axis: str            # the mesh's one axis
    params: int          # exact parameter count of the model
    description: str
    build: Callable[[int], tuple[Callable, tuple]]

    def mesh(self, devices: int) -> dict[str, int]:
        return {self.axis: devices}


def _llama(cfg: llama.LlamaConfig) -> list[Workload]:
    shape = (f"d_model {cfg.d_model}, {cfg.layers} layers, {cfg.heads} heads "
             f"({cfg.kv_heads} KV) of {cfg.head_dim}, MLP {cfg.mlp}")
    return [
        Workload(f"llama3-{cfg.name}-train", "train", llama.FSDP, cfg.param_count,
                 f"LLaMA-3 {cfg.name} ({shape}) training step, seq 4096, batch 1/device",
                 functools.partial(llama.train_step, cfg)),
        Workload(f"llama3-{cfg.name}-prefill", "prefill", llama.MODEL, cfg.param_count,
                 f"LLaMA-3 {cfg.name} prefill, 4096-token prompt, batch 8",
                 functools.partial(llama.prefill_step, cfg)),
        Workload(f"llama3-{cfg.name}-decode", "decode", llama.MODEL, cfg.param_count,
                 f"LLaMA-3 {cfg.name} decode step, KV cache 4608, batch 8",
                 functools.partial(llama.decode_step, cfg)),
    ]


def _resnet(depth: int) -> Workload:
    return Workload(f"resnet{depth}-train", "train", resnet.DATA, resnet.param_count(depth),
                    f"ResNet-{depth} training step, 256 images 224x224/device",
                    functools.partial(resnet.train_step, depth))


INFERENCE_SIZES = ("1b", "3b")


def _registry() -> dict[str, Workload]:
    out: dict[str, Workload] = {}
    for cfg in llama.CONFIGS.values():
        for w in _llama(cfg):
            if w.kind == "train" or cfg.name in INFERENCE_SIZES:
                out[w.name] = w
    for depth in resnet.DEPTHS:
        w = _resnet(depth)
        out[w.name] = w
    return out


WORKLOADS = _registry()


def lower(workload: Workload, devices: int) -> str:
    """The workload's step for `devices` devices as StableHLO text (sharded by annotations,
    or per-device with explicit collectives for shard_map steps)."""
    from stablecost.featurize.partition import abstract_lowering, parse_mesh

    step, args = workload.build(devices)
    return str(abstract_lowering(step, args, {}, parse_mesh(workload.mesh(devices))).as_text())


__all__ = ["INFERENCE_SIZES", "WORKLOADS", "Workload", "llama", "lower", "resnet"]

