"""The step graph of a program: its fused kernels as nodes with features, def-use edges
between them, and a few whole-program numbers.

One node per priced, non-collective fused kernel (the kernels the per-kernel
model prices, in program order). A node's features are the kernel's feature vector
(`features.FEATURES`), log2 of the per-kernel model's predicted microseconds for one
execution and log2 of its executions per step. An edge A -> B means an op of B reads a
value produced by an op of A; metadata/free ops that belong to no kernel (and kernels
that are not nodes) are looked through, so `reshape`s between two kernels do not cut
the data flow. Each graph also carries a few whole-program numbers (`GRAPH_FEATURES`):
the kernel-model sum, the roofline sum, the kernel count and the launches per step.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from ...errors import ModelError
from ...featurize.fusion import COLLECTIVE, Kernel
from ...featurize.program import Program
from ...hardware import Hardware
from ..features import FEATURES, N_FEATURES

NODE_FEATURES: tuple[str, ...] = (*FEATURES, "kernel_pred_log2_us", "count_log2")
GRAPH_FEATURES: tuple[str, ...] = ("kernel_sum_log2_s", "roofline_sum_log2_s",
                                   "kernels_log2", "launches_log2")
TINY_S = 1e-9   # the floor under logs of seconds


class KernelPredictor(Protocol):
    """What the graph builder needs from a per-kernel model (`KernelCostModel` is one)."""

    def predict(self, X: np.ndarray, roofline_s: np.ndarray) -> np.ndarray: ...


def step_kernels(kernels: Sequence[Kernel]) -> list[Kernel]:
    """The kernels that become nodes: priced and not collectives (the ones the
    per-kernel model prices; the same filter as `train.data.featurize_rows`)."""
    return [k for k in kernels if k.kind != COLLECTIVE and k.priced]


def kernel_edges(program: Program, kernels: Sequence[Kernel]) -> np.ndarray:
    """Def-use edges between `kernels` as a (2, edges) int64 array of positions in
    `kernels`: (a, b) when an op of kernel b reads a value produced by an op of kernel a,
    looking through ops that belong to none of `kernels`. No self loops, no duplicates."""
    ops = program.ops
    producers = program.producers
    owner: dict[int, list[int]] = {}
    for position, kernel in enumerate(kernels):
        for op_index in kernel.ops:
            owner.setdefault(op_index, []).append(position)
    through: dict[int, frozenset[int]] = {}   # non-member op -> kernels feeding it

    def feeding(op_index: int) -> frozenset[int]:
        if op_index in through:
            return through[op_index]
        # iterative DFS over chains of non-member ops (they can be long)
        stack = [op_index]
        while stack:
            top = stack[-1]
            pending = []
            for v in ops[top].inputs:
                p = producers[v]
                if p >= 0 and p not in owner and p not in through:
                    pending.append(p)
            if pending:
                through.setdefault(top, frozenset())  # breaks cycles, none expected
                stack.extend(pending)
                continue
            stack.pop()
            found: set[int] = set()
            for v in ops[top].inputs:
                p = producers[v]
                if p < 0:
                    continue
                found.update(owner[p] if p in owner else through.get(p, ()))
            through[top] = frozenset(found)
        return through[op_index]

    edges: set[tuple[int, int]] = set()
    for b, kernel in enumerate(kernels):
        members = set(kernel.ops)
        for op_index in kernel.ops:
            for v in ops[op_index].inputs:
                p = producers[v]
                if p < 0 or p in members:
                    continue
                sources = owner[p] if p in owner else feeding(p)
                for a in sources:
                    if a != b:
                        edges.add((a, b))
    if not edges:
        return np.zeros((2, 0), dtype=np.int64)
    return np.array(sorted(edges), dtype=np.int64).T.copy()


def graph_from_parts(X: np.ndarray, roofline_s: np.ndarray, count: np.ndarray,
                     kernel_pred_s: np.ndarray, edge_index: np.ndarray, floor_s: float):
    """A `torch_geometric.data.Data` from per-kernel arrays (kernel features, roofline
    and predicted seconds of one execution, executions per step) and edges.

    Graph attributes: `graph_x` (1, GRAPH_FEATURES), `baseline_s` = floor + sum of
    count x prediction, `roofline_s` = sum of count x roofline (float64, shape (1,))."""
    import torch
    from torch_geometric.data import Data

    X = np.asarray(X, dtype=np.float32)
    n = len(X)
    if n == 0:
        raise ModelError("a program with no priced kernel has no step graph")
    if X.ndim != 2 or X.shape[1] != N_FEATURES:
        raise ModelError(f"kernel features have shape {X.shape}; expected ({n}, {N_FEATURES})")
    pred = np.asarray(kernel_pred_s, dtype=np.float64)
    if not np.all(np.isfinite(pred)) or np.any(pred < 0):
        bad = int(np.sum(~np.isfinite(pred) | (pred < 0)))
        raise ModelError(f"the kernel model returned {bad} non-finite or negative kernel "
                         "time(s); cannot build the step graph")
    count = np.asarray(count, dtype=np.float64)
    rl = np.asarray(roofline_s, dtype=np.float64)
    extra = np.stack([np.log2(np.maximum(pred * 1e6, 1e-6)),
                      np.log2(np.maximum(count, 1e-6))], axis=1).astype(np.float32)
    baseline_s = float(floor_s) + float(np.sum(count * pred))
    roofline_sum_s = float(np.sum(count * rl))
    graph_x = np.array([[math.log2(max(baseline_s, TINY_S)),
                         math.log2(max(roofline_sum_s, TINY_S)),
                         math.log2(n), math.log2(max(float(np.sum(count)), 1.0))]],
                       dtype=np.float32)
    edge_index = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    return Data(x=torch.from_numpy(np.concatenate([X, extra], axis=1)),
                edge_index=torch.from_numpy(edge_index),
                graph_x=torch.from_numpy(graph_x),
                baseline_s=torch.tensor([baseline_s], dtype=torch.float64),
                roofline_s=torch.tensor([roofline_sum_s], dtype=torch.float64),
                num_nodes=n)


def program_graph(analysis: Any, hw: Hardware, kernel_model: KernelPredictor,
                  floor_s: float, kernel_meta: Mapping[str, Any] | None = None):
    """The step graph of an analyzed program (`featurize.analysis.analyze(...)`) on `hw`,
    with node features from `kernel_model` (whose bundle's `floor_s` goes in `floor_s`,
    and its `meta.json` in `kernel_meta`: the kernels it does not cover on `hw` take
    their roofline time, `models.coverage.with_roofline_fallback`).

    Kernels without a cost rule or collectives are not nodes (the caller reports the
    program's unpriced ops; `analysis.unpriced`)."""
    from ..coverage import cpu_kernel_kinds, with_roofline_fallback
    from ..features import program_features
    from ..roofline import kernel_times

    kernels = step_kernels(analysis.kernels)
    if not kernels:
        raise ModelError(f"{analysis.program.source}: no priced compute kernel, so the step "
                         "GNN cannot price it")
    X = program_features(kernels, analysis.program, hw)
    rl = np.array([t.time_s for t in kernel_times(kernels, analysis.program, hw)])
    count = np.array([k.count for k in kernels], dtype=np.float64)
    pred = np.asarray(kernel_model.predict(X, rl), dtype=np.float64)
    if kernel_meta is not None:
        pred = with_roofline_fallback(pred, rl, cpu_kernel_kinds(kernels, analysis.program),
                                      hw, kernel_meta)
    return graph_from_parts(X, rl, count, pred, kernel_edges(analysis.program, kernels),
                            floor_s)
