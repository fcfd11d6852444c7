"""The step GNN's torch network (`step_network`): node encoder, message-passing layers
and readout head, with its input and target normalization as buffers.

Messages flow both ways along def-use edges with separate weights per
direction: each layer is `h + ReLU(LayerNorm(SAGE_fwd(h, producers) + SAGE_bwd(h,
consumers)))` with mean aggregation. Mean (not sum) aggregation keeps activations
bounded on high fan-in nodes of 10k+ node graphs; separate directions let a kernel
tell what feeds it (is its input still in cache, is it on the critical path) from what
it feeds; SAGE's separate root weight keeps the node's own cost distinct from its
neighbourhood. The readout concatenates sum, mean and max pooling (the sum through
`asinh`, which grows like a log, so a 12k-node graph does not saturate the head) with
the standardized graph features, and an MLP maps them to one number.
"""

from __future__ import annotations


def step_network(n_node: int, n_graph: int, hidden: int, layers: int, dropout: float):
    """A fresh `StepNet` (a `torch.nn.Module`): `n_node` node and `n_graph` graph features
    in, one standardized target out; the last layer starts at zero."""
    import torch
    from torch import nn
    from torch_geometric.nn import SAGEConv, global_add_pool, global_max_pool, global_mean_pool

    class StepNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            for name, size in (("node_mean", n_node), ("graph_mean", n_graph)):
                self.register_buffer(name, torch.zeros(size))
            for name, size in (("node_std", n_node), ("graph_std", n_graph)):
                self.register_buffer(name, torch.ones(size))
            self.register_buffer("y_mean", torch.zeros(()))
            self.register_buffer("y_std", torch.ones(()))
            self.encode = nn.Sequential(nn.Linear(n_node, hidden), nn.ReLU(),
                                        nn.Linear(hidden, hidden))
            self.forward_convs = nn.ModuleList(
                SAGEConv(hidden, hidden, aggr="mean") for _ in range(layers))
            self.backward_convs = nn.ModuleList(
                SAGEConv(hidden, hidden, aggr="mean", root_weight=False) for _ in range(layers))
            self.norms = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(layers))
            self.dropout = nn.Dropout(dropout)
            self.head = nn.Sequential(nn.Linear(3 * hidden + n_graph, hidden), nn.ReLU(),
                                      nn.Linear(hidden, hidden), nn.ReLU(),
                                      nn.Linear(hidden, 1))
            last = self.head[-1]
            assert isinstance(last, nn.Linear)
            nn.init.zeros_(last.weight)
            nn.init.zeros_(last.bias)

        def forward(self, x, edge_index, batch, graph_x, num_graphs: int):
            h = self.encode((x - self.node_mean) / self.node_std)
            reverse = edge_index.flip(0)
            for fwd, bwd, norm in zip(self.forward_convs, self.backward_convs, self.norms):
                h = h + self.dropout(torch.relu(norm(fwd(h, edge_index) + bwd(h, reverse))))
            pooled = torch.cat([torch.asinh(global_add_pool(h, batch, num_graphs)),
                                global_mean_pool(h, batch, num_graphs),
                                global_max_pool(h, batch, num_graphs),
                                (graph_x - self.graph_mean) / self.graph_std], dim=1)
            return self.head(pooled).squeeze(-1)   # standardized target

    return StepNet()
