"""The per-step GNN: a message-passing network over a program's fused kernels that
predicts the whole step time.

- `graph`: a program's kernels as a step graph (node features, def-use edges);
- `network`: the torch network over such graphs;
- `estimator`: `StepGNN`, which fits, predicts, saves and loads the networks.

The names below are the package's API (`stablecost.models.gnn.StepGNN` is what the
MLflow pyfunc that `train.gnn_train` logs imports).
"""

from .estimator import GNN_SCHEMA_VERSION, MODEL_NAME, TARGETS, WEIGHTS_FILE, StepGNN
from .graph import (
    GRAPH_FEATURES,
    NODE_FEATURES,
    KernelPredictor,
    graph_from_parts,
    kernel_edges,
    program_graph,
    step_kernels,
)

__all__ = [
    "GNN_SCHEMA_VERSION", "GRAPH_FEATURES", "KernelPredictor", "MODEL_NAME", "NODE_FEATURES",
    "StepGNN", "TARGETS", "WEIGHTS_FILE", "graph_from_parts", "kernel_edges", "program_graph",
    "step_kernels",
]
