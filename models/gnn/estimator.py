"""The step GNN estimator (`StepGNN`): fit, predict, save and load, scikit-learn style.

(Over 400 lines: one class whose fitting, prediction and persistence share the member
networks and normalization it holds; splitting it would spread that state over modules.)

Targets. ``direct``: log2 of the measured step seconds. ``residual``: log2 of measured
over `floor + sum(count x kernel-model prediction)` (the network learns what the
per-kernel sum misses: overlap, cache reuse across kernels, per-call overheads). The
target is standardized with the training mean and std; the last layer starts at zero,
so an untrained network predicts the mean.

Coverage. `fit` records the opcode features that no training node has
(`absent_features_`); `unseen_features(X)` says which kernels of a new program have
one, and the learned fidelity prices a program whose such kernels carry a sizeable
share of its time by the kernel sum instead (the network was never shown a kernel like
that, e.g. the integer ops of a dropout mask).

Saved as a torch `state_dict` (`step_gnn.pt`, tensors only, loaded with
`weights_only=True`) plus `meta.json` (featurizer and feature-schema versions, feature
names, hyperparameters, normalization, target, training-data digest, the per-call floor,
the kernel model it was trained over and the absent features) and the directory's
`manifest.json`, all checked on load (`manifest.py`, `bundle_checks.py`).
"""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ...errors import ModelError, NotFittedError
from ...featurize.program import FEATURIZER_VERSION
from ..bundle_checks import GNN_PARAMS, check_gnn_meta, check_state, read_bundle
from ..features import FEATURE_SCHEMA_VERSION, FEATURES, N_FEATURES
from ..manifest import write_manifest
from .graph import GRAPH_FEATURES, NODE_FEATURES, TINY_S
from .network import step_network

MODEL_NAME = "step_gnn"
WEIGHTS_FILE = "step_gnn.pt"
GNN_SCHEMA_VERSION = "1"
TARGETS = GNN_PARAMS["target"].choices   # ("direct", "residual")
PREDICT_NODES = 50_000   # nodes per forward pass when predicting (bounds memory)


@contextlib.contextmanager
def _deterministic(seed: int, threads: int | None) -> Iterator[None]:
    """Seed torch's RNG and switch on deterministic algorithms inside the block, leaving
    the caller's RNG state, determinism flags and thread count as they were."""
    import torch

    was_on = torch.are_deterministic_algorithms_enabled()
    was_warn = torch.is_deterministic_algorithms_warn_only_enabled()
    old_threads = torch.get_num_threads()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        torch.use_deterministic_algorithms(True, warn_only=True)
        if threads:
            torch.set_num_threads(threads)
        try:
            yield
        finally:
            torch.use_deterministic_algorithms(was_on, warn_only=was_warn)
            torch.set_num_threads(old_threads)


def _member_progress(progress: Callable[[int, int, float], None], member: int,
                     members: int) -> Callable[[int, int, float], None]:
    """`progress` of one member's fit, reported as progress of the whole ensemble."""
    return lambda done, total, score: progress(member * total + done, members * total, score)


class StepGNN:
    """Whole-step time from the kernel graph, scikit-learn style.

    Hyperparameters are keyword-only and stored verbatim; learned state ends in `_`.
    `fit(graphs, time_s)` takes graphs from `program_graph`/`graph_from_parts` and
    measured step seconds; `predict(graphs)` returns seconds. `threads` sets torch's
    intra-op threads during `fit` only (1 is fastest on a busy 2-core machine).
    `members` > 1 trains that many networks from seeds `seed`, `seed + 1`, ... (each
    keeping its own best epoch) and predicts the geometric mean of their answers: the
    network's seed-to-seed variance is large on programs unlike the training data.
    With `warm_start=True` a fitted model's `fit` keeps the members it has and trains
    only the missing ones (raise `members` first), as scikit-learn's ensembles do.
    """

    # learned state, set by `fit` (absent before it: `hasattr` tells fitted models apart)
    networks_: list[Any]        # one StepNet (torch.nn.Module) per member
    best_epochs_: list[int]
    histories_: list[Any]

    def __init__(self, *, target: str = "residual", hidden: int = 32, layers: int = 2,
                 epochs: int = 200, lr: float = 3e-3, weight_decay: float = 1e-4,
                 batch_size: int = 16, dropout: float = 0.0, seed: int = 0,
                 members: int = 1, warm_start: bool = False,
                 threads: int | None = None) -> None:
        self.target = target
        self.hidden = hidden
        self.layers = layers
        self.epochs = epochs
        self.lr = lr
        self.weight_decay = weight_decay
        self.batch_size = batch_size
        self.dropout = dropout
        self.seed = seed
        self.members = members
        self.warm_start = warm_start
        self.threads = threads

    def get_params(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if not k.endswith("_")}

    def _check_params(self) -> None:
        if self.target not in TARGETS:
            raise ModelError(f"target {self.target!r}; allowed: {', '.join(TARGETS)}")
        if not 1 <= int(self.layers) <= 8:
            raise ModelError(f"layers={self.layers!r}; allowed: 1 to 8")
        for name in ("hidden", "epochs", "batch_size", "members"):
            if int(getattr(self, name)) < 1:
                raise ModelError(f"{name}={getattr(self, name)!r}; must be at least 1")

    # -- targets ---------------------------------------------------------------------
    def _encode(self, time_s: np.ndarray, baseline_s: np.ndarray) -> np.ndarray:
        time_s = np.maximum(np.asarray(time_s, dtype=np.float64), TINY_S)
        if self.target == "residual":
            return np.log2(time_s / np.maximum(baseline_s, TINY_S))
        return np.log2(time_s)

    def _decode(self, value: np.ndarray, baseline_s: np.ndarray) -> np.ndarray:
        if self.target == "residual":
            return np.exp2(value) * np.maximum(baseline_s, TINY_S)
        return np.exp2(value)

    # -- fitting ---------------------------------------------------------------------
    def _new_network(self):
        return step_network(len(NODE_FEATURES), len(GRAPH_FEATURES), int(self.hidden),
                        int(self.layers), float(self.dropout))

    @staticmethod
    def _check_graphs(graphs: Sequence[Any]) -> None:
        for i, g in enumerate(graphs):
            if g.x is None or g.x.dim() != 2 or g.x.shape[1] != len(NODE_FEATURES):
                shape = None if g.x is None else tuple(g.x.shape)
                raise ModelError(f"graph {i}: node features of shape {shape}; expected "
                                 f"(nodes, {len(NODE_FEATURES)}) from program_graph()")
            if not hasattr(g, "graph_x") or not hasattr(g, "baseline_s"):
                raise ModelError(f"graph {i} lacks graph_x/baseline_s: build it with "
                                 "program_graph() or graph_from_parts()")

    def fit(self, graphs: Sequence[Any], time_s: np.ndarray, *,
            eval_set: tuple[Sequence[Any], np.ndarray] | None = None,
            progress: Callable[[int, int, float], None] | None = None) -> "StepGNN":
        """Train on `graphs` and their measured step seconds. With `eval_set` the
        weights of the epoch with the lowest validation MAPE are kept (per member)."""
        self._check_params()
        graphs = list(graphs)
        time_s = np.asarray(time_s, dtype=np.float64)
        if len(graphs) != len(time_s) or not graphs:
            raise ModelError(f"{len(graphs)} graphs and {len(time_s)} times: need the same "
                             "positive number")
        if not np.all(np.isfinite(time_s)) or np.any(time_s <= 0):
            raise ModelError("measured step times must be positive and finite")
        self._check_graphs(graphs)
        networks, best_epochs, histories = [], [], []
        if self.warm_start and hasattr(self, "networks_"):
            keep = min(len(self.networks_), int(self.members))
            networks = list(self.networks_[:keep])
            best_epochs = list(self.best_epochs_[:keep])
            histories = list(self.histories_[:keep])
        for member in range(len(networks), int(self.members)):
            net, best_epoch, history = self._fit_network(
                graphs, time_s, eval_set, int(self.seed) + member,
                None if progress is None else
                _member_progress(progress, member, int(self.members)))
            networks.append(net)
            best_epochs.append(best_epoch)
            histories.append(history)
        self.networks_ = networks
        self.absent_features_ = _absent_features(graphs)
        # the smallest training step: below it a program is outside what the GNN saw
        self.min_kernels_ = int(min(g.num_nodes for g in graphs))
        self.best_epoch_ = best_epochs[0]
        self.best_epochs_ = best_epochs
        self.history_ = histories[0]
        self.histories_ = histories
        return self

    def _fit_network(self, graphs: list[Any], time_s: np.ndarray,
                     eval_set: tuple[Sequence[Any], np.ndarray] | None, seed: int,
                     progress: Callable[[int, int, float], None] | None):
        """One network trained from `seed`: (network, best epoch, history)."""
        import torch
        from torch_geometric.data import Batch
        from torch_geometric.loader import DataLoader

        with _deterministic(seed, self.threads):
            net = self._new_network()
            everything = Batch.from_data_list(graphs)
            x = everything.x.double()
            gx = everything.graph_x.double()
            baseline = everything.baseline_s.numpy()
            y = self._encode(time_s, baseline)
            with torch.no_grad():
                net.node_mean.copy_(x.mean(0).float())
                net.node_std.copy_(_safe_std(x.std(0, unbiased=False)).float())
                net.graph_mean.copy_(gx.mean(0).float())
                net.graph_std.copy_(_safe_std(gx.std(0, unbiased=False)).float())
                net.y_mean.fill_(float(np.mean(y)))
                net.y_std.fill_(float(max(np.std(y), 1e-3)))
            data = []
            for g, target in zip(graphs, (y - float(net.y_mean)) / float(net.y_std)):
                g = g.clone()
                g.y = torch.tensor([target], dtype=torch.float32)
                data.append(g)
            generator = torch.Generator().manual_seed(seed)
            loader = DataLoader(data, batch_size=int(self.batch_size), shuffle=True,
                                generator=generator)
            optimizer = torch.optim.AdamW(net.parameters(), lr=float(self.lr),
                                          weight_decay=float(self.weight_decay))
            epochs = int(self.epochs)
            schedule = torch.optim.lr_scheduler.CosineAnnealingLR(
                optimizer, T_max=epochs, eta_min=float(self.lr) * 0.05)
            loss_fn = torch.nn.SmoothL1Loss(beta=0.5)
            best, best_score, best_epoch, history = None, math.inf, epochs - 1, []
            for epoch in range(epochs):
                net.train()
                total = 0.0
                for batch in loader:
                    optimizer.zero_grad()
                    out = net(batch.x, batch.edge_index, batch.batch, batch.graph_x,
                              batch.num_graphs)
                    loss = loss_fn(out, batch.y)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
                    optimizer.step()
                    total += loss.detach().item() * batch.num_graphs
                schedule.step()
                record = {"epoch": epoch, "train_loss": total / len(data)}
                if eval_set is not None:
                    measured = np.asarray(eval_set[1], dtype=np.float64)
                    predicted = self._predict(eval_set[0], [net])
                    score = float(np.mean(np.abs(predicted - measured) / measured))
                    record["val_mape"] = score
                    if score < best_score:
                        best_score = score
                        best = {k: v.detach().clone() for k, v in net.state_dict().items()}
                        best_epoch = epoch
                history.append(record)
                if progress is not None:
                    progress(epoch + 1, epochs, record.get("val_mape", record["train_loss"]))
            if best is not None:
                net.load_state_dict(best)
            net.eval()
        return net, best_epoch, history

    def unseen_features(self, X: np.ndarray) -> tuple[list[str], np.ndarray]:
        """(names, rows): the kernel features (`features.FEATURES` columns of `X`) that
        are non-zero here but were zero in every node of the training graphs (opcodes
        the network never saw), and a boolean mask of the rows that have one."""
        self._check_fitted()
        X = np.asarray(X)
        rows = np.zeros(len(X), dtype=bool)
        names = []
        for name in self.absent_features_:
            column = _FEATURE_COLUMN.get(name)
            if column is None or not name.startswith(_GUARDED_PREFIXES):
                continue
            hit = X[:, column] != 0
            if hit.any():
                names.append(name)
                rows |= hit
        return names, rows

    def _check_fitted(self) -> None:
        if not hasattr(self, "networks_"):
            raise NotFittedError("this StepGNN is not fitted yet: call fit() or load()")

    # -- predicting ------------------------------------------------------------------
    def _predict(self, graphs: Sequence[Any], networks: Sequence[Any] | None = None
                 ) -> np.ndarray:
        """Seconds per graph: the geometric mean over `networks` (default: all members)."""
        import torch
        from torch_geometric.data import Batch

        networks = list(self.networks_ if networks is None else networks)
        was_training = [net.training for net in networks]
        for net in networks:
            net.eval()
        outputs, baselines = [], []
        try:
            with torch.no_grad():
                for chunk in chunk_graphs(graphs, PREDICT_NODES):
                    batch = Batch.from_data_list(chunk)
                    total = 0.0
                    for net in networks:
                        out = net(batch.x, batch.edge_index, batch.batch, batch.graph_x,
                                  batch.num_graphs)
                        total = total + (out.double() * net.y_std.double()
                                         + net.y_mean.double()).numpy()
                    outputs.append(total / len(networks))
                    baselines.append(batch.baseline_s.numpy())
        finally:
            for net, mode in zip(networks, was_training):
                net.train(mode)
        if not outputs:
            return np.zeros(0)
        return self._decode(np.concatenate(outputs), np.concatenate(baselines))

    def predict(self, graphs: Sequence[Any]) -> np.ndarray:
        """Predicted step seconds, one per graph. Touches no global torch state (thread
        count, RNG, determinism flags), so it is safe to call from several threads."""
        self._check_fitted()
        graphs = list(graphs)
        self._check_graphs(graphs)
        return self._predict(graphs)

    # -- persistence -----------------------------------------------------------------
    def normalization(self) -> dict[str, Any]:
        """The first member's input and target normalization (every member's is the
        same: they are computed from the training data, not learned)."""
        self._check_fitted()
        net = self.networks_[0]
        return {"node_mean": net.node_mean.tolist(), "node_std": net.node_std.tolist(),
                "graph_mean": net.graph_mean.tolist(), "graph_std": net.graph_std.tolist(),
                "y_mean": float(net.y_mean), "y_std": float(net.y_std)}

    def _state(self) -> dict[str, Any]:
        """Every member's tensors; a single network's keys stay unprefixed."""
        if len(self.networks_) == 1:
            return {k: v.detach().clone() for k, v in self.networks_[0].state_dict().items()}
        return {f"member{i}.{k}": v.detach().clone()
                for i, net in enumerate(self.networks_) for k, v in net.state_dict().items()}

    def save(self, directory: str | Path, **metadata: Any) -> Path:
        """Write `step_gnn.pt` (the state_dict: tensors only), `meta.json` and, last,
        the manifest of the directory (`manifest.py`)."""
        import io

        import torch

        from ...atomicio import atomic_write_bytes

        self._check_fitted()
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        torch.save(self._state(), buffer)
        atomic_write_bytes(directory / WEIGHTS_FILE, buffer.getvalue())
        meta = {"model": MODEL_NAME, "gnn_schema_version": GNN_SCHEMA_VERSION,
                "featurizer_version": FEATURIZER_VERSION,
                "feature_schema_version": FEATURE_SCHEMA_VERSION, "features": list(FEATURES),
                "node_features": list(NODE_FEATURES), "graph_features": list(GRAPH_FEATURES),
                "params": self.get_params(), "target": self.target,
                "best_epoch": int(getattr(self, "best_epoch_", -1)),
                "best_epochs": [int(e) for e in getattr(self, "best_epochs_", [])],
                "absent_node_features": list(self.absent_features_),
                "min_kernels": getattr(self, "min_kernels_", None),
                "normalization": self.normalization(), **metadata}
        atomic_write_bytes(directory / "meta.json", json.dumps(meta, indent=1).encode() + b"\n")
        write_manifest(directory)
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> tuple["StepGNN", dict[str, Any]]:
        """A fitted model and its metadata. The manifest is checked before any file
        reaches torch, then every value (`bundle_checks`): the hyperparameters before a
        network is built, the tensors' names, shapes and finiteness (against a network
        built on torch's meta device, which allocates nothing) before they are copied
        into one. A damaged or mismatched bundle is a one-line `ModelError`."""
        import io

        import torch

        directory = Path(directory)
        meta, files = read_bundle(directory, MODEL_NAME, [WEIGHTS_FILE])
        path, weights = directory / "meta.json", directory / WEIGHTS_FILE
        if meta.get("gnn_schema_version") != GNN_SCHEMA_VERSION or \
                meta.get("node_features") != list(NODE_FEATURES) or \
                meta.get("graph_features") != list(GRAPH_FEATURES):
            raise ModelError(f"{path}: step GNN schema {meta.get('gnn_schema_version')!r} "
                             f"does not match this stablecost's {GNN_SCHEMA_VERSION!r}; "
                             "retrain it")
        check_gnn_meta(path, meta, len(NODE_FEATURES), len(GRAPH_FEATURES))
        model = cls(**meta["params"])
        try:
            state = torch.load(io.BytesIO(files[WEIGHTS_FILE]), map_location="cpu",
                               weights_only=True)
        except Exception as exc:  # noqa: BLE001 - torch raises many kinds on bad files
            raise ModelError(f"{weights}: unreadable weights "
                             f"({(str(exc).splitlines() or [''])[0][:200]})") from None
        with torch.device("meta"):
            shapes = {k: tuple(v.shape) for k, v in model._new_network().state_dict().items()}
        members = int(model.members)
        prefixes = [f"member{i}." for i in range(members)] if members > 1 else [""]
        check_state(weights, state, {p + k: s for p in prefixes for k, s in shapes.items()})
        networks = []
        for prefix in prefixes:
            net = model._new_network()
            net.load_state_dict({k: state[prefix + k] for k in shapes}, strict=True)
            net.eval()
            networks.append(net)
        model.networks_ = networks
        model.absent_features_ = list(meta.get("absent_node_features", []))
        if meta.get("min_kernels") is not None:   # bundles before it was recorded lack it
            model.min_kernels_ = int(meta["min_kernels"])
        model.best_epoch_ = int(meta.get("best_epoch", -1))
        model.best_epochs_ = [int(e) for e in meta.get("best_epochs", [model.best_epoch_])]
        return model, meta


# Node features whose absence from training puts a kernel out of the GNN's reach: the
# opcode mix. Sizes, the chip's rates and dtypes extrapolate well enough (f16 programs,
# which no training program had, come out within 8-19 % by the GNN and 27-94 % off by
# the kernel sum); a never-seen opcode does not.
_GUARDED_PREFIXES = ("op_",)
_FEATURE_COLUMN = {name: i for i, name in enumerate(FEATURES)}


def _absent_features(graphs: Sequence[Any]) -> list[str]:
    """The guarded kernel features that are zero in every node of `graphs`."""
    seen = np.zeros(N_FEATURES, dtype=bool)
    for g in graphs:
        seen |= (g.x[:, :N_FEATURES] != 0).any(0).numpy()
    return [name for i, name in enumerate(FEATURES)
            if name.startswith(_GUARDED_PREFIXES) and not seen[i]]


def chunk_graphs(graphs: Sequence[Any], max_nodes: int) -> Iterator[list[Any]]:
    """Consecutive groups of graphs with at most `max_nodes` nodes (or one graph)."""
    chunk: list[Any] = []
    nodes = 0
    for g in graphs:
        if chunk and nodes + g.num_nodes > max_nodes:
            yield chunk
            chunk, nodes = [], 0
        chunk.append(g)
        nodes += g.num_nodes
    if chunk:
        yield chunk


def _safe_std(std):
    return std.clamp_min(1e-6).where(std > 1e-6, std.new_ones(()))
