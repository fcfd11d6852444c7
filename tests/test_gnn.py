"""The per-step GNN: kernel graphs, batching, big graphs, determinism, persistence and a
tiny end-to-end `train_gnn` run tracked in a throwaway MLflow store.

(Over 400 lines: independent tests of one package area, each with its inputs inline;
they share fixtures, and a reader looks for the tests of that area in one place.)
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import numpy as np
import pytest

from stablecost.errors import ModelError, NotFittedError
from stablecost.featurize.analysis import analyze
from stablecost.featurize.ingest import load_program
from stablecost.hardware import get_hardware
from stablecost.models import gnn
from stablecost.models.features import N_FEATURES
from stablecost.models.gnn import estimator
from stablecost.models.manifest import write_manifest


class RooflineTimesTwo:
    """A stand-in per-kernel model: twice the roofline time."""

    def predict(self, X, roofline_s):
        return 2.0 * np.asarray(roofline_s)


@pytest.fixture(scope="module")
def hw():
    return get_hardware("h100")


@pytest.fixture(scope="module")
def mlp_graph(hw):
    analysis = analyze(load_program(str(gnn_examples() / "mlp_train_step.mlir")))
    return analysis, gnn.program_graph(analysis, hw, RooflineTimesTwo(), 5e-6)


def gnn_examples():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "examples" / "programs"


def synthetic_graph(nodes: int, seed: int, floor_s: float = 5e-6):
    """A chain plus random forward skip edges, random kernel features."""
    rng = np.random.default_rng(seed)
    X = rng.random((nodes, N_FEATURES)).astype(np.float32)
    chain = np.stack([np.arange(nodes - 1), np.arange(1, nodes)])
    skips = np.sort(rng.integers(0, nodes, size=(2, nodes // 2)), axis=0)
    edges = np.concatenate([chain, skips[:, skips[0] != skips[1]]], axis=1)
    roofline = rng.random(nodes) * 1e-5 + 1e-6
    return gnn.graph_from_parts(X, roofline, np.ones(nodes), 1.5 * roofline, edges, floor_s)


@pytest.fixture(scope="module")
def small_set():
    graphs = [synthetic_graph(n, i) for i, n in enumerate([3, 8, 20, 40, 5, 60, 12, 30])]
    times = np.array([float(g.baseline_s[0]) * (1.2 + 0.1 * i) for i, g in enumerate(graphs)])
    return graphs, times


def quick_model(**over) -> gnn.StepGNN:
    # one thread: on a busy 2-core machine two torch threads wait on each other
    settings = {"epochs": 4, "hidden": 16, "layers": 2, "batch_size": 4, "threads": 1}
    return gnn.StepGNN(**(settings | over))


# --------------------------------------------------------------------------- graphs
def test_graph_of_a_real_program_follows_data_flow(mlp_graph, hw):
    analysis, g = mlp_graph
    kernels = gnn.step_kernels(analysis.kernels)
    assert g.num_nodes == len(kernels) == 35
    assert g.x.shape == (35, len(gnn.NODE_FEATURES))
    edges = set(map(tuple, g.edge_index.T.tolist()))
    # mlp_train_step.mlir: kernel 0 = dot+bias (%0..%3); kernel 1 = relu max(%3, 0) -> %4;
    # kernel 2 = compare GT %3 (relu mask); kernel 3 = dot(%4, w2)+bias -> %10;
    # kernel 4 = relu(%10) -> %11; kernel 23 = dot(%28, %11), the weight gradient of w3.
    for edge in [(0, 1), (0, 2), (1, 3), (3, 4), (4, 23)]:
        assert edge in edges
    assert (1, 0) not in edges and all(a != b for a, b in edges)
    assert not any(b == 0 for _, b in edges)  # kernel 0 reads only arguments
    # every edge is a real def-use: some op of b reads a value some op of a produced
    ops, prod = analysis.program.ops, analysis.program.producers
    for a, b in edges:
        made = {v for i in kernels[a].ops for v in ops[i].outputs}
        read = {v for i in kernels[b].ops for v in ops[i].inputs}
        free_between = {v for v in read if prod[v] >= 0 and ops[prod[v]].opcode == "reshape"}
        assert made & read or free_between
    # node features end with log2(predicted us) and log2(count); the stand-in model
    # predicts 2 x roofline, so baseline = floor + 2 x roofline sum (every count is 1)
    from stablecost.models.roofline import kernel_times

    roofline = np.array([t.time_s for t in kernel_times(kernels, analysis.program, hw)])
    np.testing.assert_allclose(g.x[:, -2].numpy(), np.log2(2e6 * roofline), rtol=1e-5)
    assert np.all(g.x[:, -1].numpy() == 0.0)
    assert g.baseline_s.item() == pytest.approx(5e-6 + 2 * roofline.sum())
    assert g.roofline_s.item() == pytest.approx(roofline.sum())


def test_edges_look_through_free_ops_in_no_kernel(hw):
    # The reshape %1 feeds two reductions, so it joins neither kernel; exp (kernel 0)
    # must still reach both reductions (kernels 1 and 2) through it.
    text = """
    func.func @main(%a: tensor<8x16xf32>) -> (tensor<f32>, tensor<f32>) {
      %0 = stablehlo.exponential %a : tensor<8x16xf32>
      %1 = stablehlo.reshape %0 : (tensor<8x16xf32>) -> tensor<128xf32>
      %c0 = stablehlo.constant dense<0.0> : tensor<f32>
      %c1 = stablehlo.constant dense<0.0> : tensor<f32>
      %2 = stablehlo.reduce(%1 init: %c0) applies stablehlo.add across dimensions = [0] : (tensor<128xf32>, tensor<f32>) -> tensor<f32>
      %3 = stablehlo.reduce(%1 init: %c1) applies stablehlo.maximum across dimensions = [0] : (tensor<128xf32>, tensor<f32>) -> tensor<f32>
      return %2, %3 : tensor<f32>, tensor<f32>
    }"""
    analysis = analyze(load_program(text))
    kinds = [k.kind for k in gnn.step_kernels(analysis.kernels)]
    assert kinds == ["loop", "reduction", "reduction"]
    g = gnn.program_graph(analysis, hw, RooflineTimesTwo(), 0.0)
    assert sorted(map(tuple, g.edge_index.T.tolist())) == [(0, 1), (0, 2)]


def test_program_without_priced_kernel_is_refused(hw):
    analysis = analyze(load_program(
        "func.func @main(%a: tensor<4xf32>) -> tensor<2x2xf32> {\n"
        "  %0 = stablehlo.reshape %a : (tensor<4xf32>) -> tensor<2x2xf32>\n"
        "  return %0 : tensor<2x2xf32>\n}"))
    with pytest.raises(ModelError, match="no priced compute kernel"):
        gnn.program_graph(analysis, hw, RooflineTimesTwo(), 0.0)


# --------------------------------------------------------------------------- network
def test_batches_of_different_sizes_match_one_by_one(mlp_graph, small_set, monkeypatch):
    graphs, times = small_set
    model = quick_model().fit(graphs, times)
    mixed = [mlp_graph[1], graphs[0], synthetic_graph(200, 7), graphs[5]]
    together = model.predict(mixed)
    alone = np.array([model.predict([g])[0] for g in mixed])
    assert together.shape == (4,) and np.all(together > 0)
    np.testing.assert_allclose(together, alone, rtol=1e-5)
    monkeypatch.setattr(estimator, "PREDICT_NODES", 100)  # 35+3 | 200 | 60 nodes per pass
    assert [len(c) for c in estimator.chunk_graphs(mixed, 100)] == [2, 1, 1]
    np.testing.assert_allclose(model.predict(mixed), together, rtol=1e-5)


def test_forward_pass_on_a_12k_node_graph(small_set):
    graphs, times = small_set
    model = quick_model(hidden=64, layers=3).fit(graphs, times)
    big = synthetic_graph(12_000, 99)
    assert big.num_nodes == 12_000 and big.edge_index.shape[1] > 12_000
    [seconds] = model.predict([big])
    assert np.isfinite(seconds) and seconds > 0


def test_same_seed_same_predictions(small_set):
    graphs, times = small_set
    a = quick_model(seed=3).fit(graphs, times).predict(graphs)
    b = quick_model(seed=3).fit(graphs, times).predict(graphs)
    c = quick_model(seed=4).fit(graphs, times).predict(graphs)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_targets_decode_to_seconds(small_set):
    graphs, times = small_set
    for target in gnn.TARGETS:
        model = quick_model(target=target, epochs=1)
        model.fit(graphs, times)
        assert model.target == target and model.get_params()["target"] == target
        assert np.all(model.predict(graphs) > 0)
    with pytest.raises(ModelError, match="target 'log'; allowed: direct, residual"):
        quick_model(target="log").fit(graphs, times)


def test_predict_before_fit_is_an_error(small_set):
    with pytest.raises(NotFittedError, match="not fitted"):
        gnn.StepGNN().predict(small_set[0])
    with pytest.raises(NotFittedError, match="not fitted"):
        gnn.StepGNN().save("unused")


def test_hyperparameters_are_stored_verbatim():
    model = gnn.StepGNN(hidden=32, layers=4, lr=1e-3, target="direct")
    assert model.get_params() == {"target": "direct", "hidden": 32, "layers": 4, "epochs": 200,
                                  "lr": 1e-3, "weight_decay": 1e-4, "batch_size": 16,
                                  "dropout": 0.0, "seed": 0, "members": 1,
                                  "warm_start": False, "threads": None}
    with pytest.raises(TypeError):
        gnn.StepGNN(32)  # keyword-only


# --------------------------------------------------------------------------- persistence
def test_save_load_round_trip_and_mismatches(tmp_path, small_set):
    graphs, times = small_set
    model = quick_model().fit(graphs, times)
    model.save(tmp_path / "b", floor_s=5e-6, data_digest="abc")
    loaded, meta = gnn.StepGNN.load(tmp_path / "b")
    np.testing.assert_array_equal(loaded.predict(graphs), model.predict(graphs))
    assert meta["floor_s"] == 5e-6 and meta["data_digest"] == "abc"
    assert model.min_kernels_ == loaded.min_kernels_ == meta["min_kernels"] == 3
    assert meta["target"] == "residual" and meta["node_features"] == list(gnn.NODE_FEATURES)
    assert len(meta["normalization"]["node_mean"]) == len(gnn.NODE_FEATURES)
    import torch

    state = torch.load(tmp_path / "b" / gnn.WEIGHTS_FILE, weights_only=True)
    assert all(isinstance(v, torch.Tensor) for v in state.values())

    meta_path = tmp_path / "b" / "meta.json"
    original = meta_path.read_text()
    for key, value, message in [
            ("featurizer_version", "0", "featurizer version '0'"),
            ("node_features", ["x"], "step GNN schema"),
            ("model", "kernel_xgb", "holds a 'kernel_xgb' model, expected 'step_gnn'")]:
        meta_path.write_text(json.dumps(json.loads(original) | {key: value}))
        write_manifest(tmp_path / "b")   # as saved by another stablecost
        with pytest.raises(ModelError, match=message):
            gnn.StepGNN.load(tmp_path / "b")
    bad = json.loads(original)
    bad["params"]["hidden"] = 8
    meta_path.write_text(json.dumps(bad))
    with pytest.raises(ModelError, match=r"meta\.json: .*manifest\.json records"):
        gnn.StepGNN.load(tmp_path / "b")
    write_manifest(tmp_path / "b")
    with pytest.raises(ModelError, match="weights do not fit"):
        gnn.StepGNN.load(tmp_path / "b")
    with pytest.raises(ModelError, match="no model bundle here"):
        gnn.StepGNN.load(tmp_path / "nothing")


# --------------------------------------------------------------------------- training
PROGRAMS = {
    # family: (builder, sizes); every (size, batch) is one program, a size is one group
    # (sizes picked so that seed 0's grouped split has train, val and test groups)
    "mlp": (lambda d, b: _mlp(d, b), (8, 16, 24, 40)),
    "norm": (lambda d, b: _norm(d, b), (8, 32, 48, 64)),
    "attn": (lambda d, b: _attn(d, b), (8, 32, 40, 64)),
}
BATCHES = (4, 16)


def _mlp(d, b):
    import jax
    import jax.numpy as jnp

    def f(x, w1, w2):
        return jnp.sum(jax.nn.relu(x @ w1) @ w2)
    return f, [(b, d), (d, 2 * d), (2 * d, d)]


def _norm(d, b):
    import jax.numpy as jnp

    def f(x):
        m = jnp.mean(x, axis=-1, keepdims=True)
        return (x - m) / jnp.sqrt(jnp.mean((x - m) ** 2, axis=-1, keepdims=True) + 1e-5)
    return f, [(b, d)]


def _attn(d, b):
    import jax

    def f(q, k, v):
        return jax.nn.softmax(q @ k.T / 4.0, axis=-1) @ v
    return f, [(b * 4, d), (b * 4, d), (b * 4, d)]


def _write_dataset(root):
    import jax
    import jax.numpy as jnp

    from stablecost.datasets import store

    fp = {"backend": "gpu", "device_name": "synthetic H100 for tests"}
    texts = []
    with store.DatasetWriter(root, hardware="H100-SXM", fingerprint=fp) as writer:
        for family, (build, sizes) in PROGRAMS.items():
            for size in sizes:
                for batch in BATCHES:
                    fn, shapes = build(size, batch)
                    args = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]
                    text = jax.jit(fn).lower(*args).as_text()
                    texts.append(text)
                    # synthetic "measurement": grows with size and batch, family-specific
                    median = 2e-6 * {"mlp": 3, "norm": 1, "attn": 2}[family] * \
                        (size * batch) ** 0.5 + 5e-6
                    writer.add({
                        "sample_id": f"{family}-{size}-{batch}", "group_id": f"{family}/{size}",
                        "kind": "program", "family": family, "variant": f"d{size}",
                        "dtype": "f32", "params": "{}", "stablehlo": text,
                        "median_s": median, "p10_s": median * 0.95, "p90_s": median * 1.05,
                        "min_s": median * 0.9, "mean_s": median, "cv": 0.02, "repeats": 10,
                        "warmup": 2, "hardware": "H100-SXM", "device_name": "synthetic",
                        "backend": "gpu", "collector_version": "1",
                        "timestamp": datetime.now(timezone.utc), "source": "collected"})
    return writer.path, texts


def _tiny_kernel_model(directory):
    from stablecost.models.kernel_model import KernelCostModel

    rng = np.random.default_rng(0)
    X = rng.random((200, N_FEATURES)).astype(np.float32)
    roofline = rng.random(200) * 1e-5 + 1e-6
    model = KernelCostModel(n_estimators=5, max_depth=3, early_stopping_rounds=0, n_jobs=1)
    model.fit(X, roofline * (1.5 + X[:, 0]), roofline)
    model.save(directory, floor_s=4e-6, data_digest="tiny")
    return directory


@pytest.mark.slow
def test_train_gnn_end_to_end(tmp_path):
    import mlflow
    from mlflow import MlflowClient

    from stablecost.train.gnn_train import REGISTERED_NAME, train_gnn

    dataset, texts = _write_dataset(tmp_path / "data")
    kdir = _tiny_kernel_model(tmp_path / "kernel_xgb")
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    messages = []
    kwargs = dict(kernel_model_dir=kdir, epochs=3, hidden=16, layers=2, batch_size=8,
                  threads=1, tracking_uri=uri, experiment="gnn-test", members=1)
    result = train_gnn(dataset, save=tmp_path / "bundle", progress=messages.append, **kwargs)
    assert result.model == "step_gnn" and result.choice in gnn.TARGETS
    assert result.data["samples"] == 24 and result.data["failures"] == 0
    assert set(result.data["by_split"]) == {"train", "val", "test"}
    assert any("val MAPE" in m for m in messages)

    run = MlflowClient(uri).get_run(result.run_id)
    m = run.data.metrics
    for key in ("val_mape", "test_mape", "val_kendall_tau", "test_median_ape",
                "kernelsum_val_mape", "kernelsum_test_mape", "roofline_val_mape",
                "roofline_test_mape", "val_mape_target_direct", "val_mape_target_residual",
                "test_ranking_tau", "fit_s"):
        assert key in m, key
    assert m["val_mape"] == pytest.approx(min(m["val_mape_target_direct"],
                                              m["val_mape_target_residual"]))
    assert any(k.startswith("test_family_") for k in m)
    params = run.data.params
    assert params["target_choice"] == result.choice and params["featurizer_version"]
    assert params["dataset_digest"] == result.data["digest"]
    artifacts = {a.path for a in MlflowClient(uri).list_artifacts(result.run_id, "report")}
    assert {"report/test_scatter.png", "report/test_error_cdf.png"} <= artifacts

    name = REGISTERED_NAME.format(hardware="h100-sxm")
    champion = MlflowClient(uri).get_model_version_by_alias(name, "champion")
    assert result.champion and str(champion.version) == result.registered_version

    loaded, meta = gnn.StepGNN.load(tmp_path / "bundle")
    assert meta["kernel_model"]["data_digest"] == "tiny" and meta["floor_s"] == 4e-6
    assert meta["data_digest"] == result.data["digest"] and meta["target"] == result.choice

    # the registered pyfunc prices StableHLO text like the bundle does
    mlflow.set_tracking_uri(uri)
    pyfunc = mlflow.pyfunc.load_model(f"models:/{name}@champion")
    import pandas as pd

    out = pyfunc.predict(pd.DataFrame({"stablehlo": texts[:2]}))
    from stablecost.models.kernel_model import KernelCostModel

    kmodel, _ = KernelCostModel.load(kdir)
    graphs = [gnn.program_graph(analyze(load_program(t)), get_hardware("h100"), kmodel, 4e-6)
              for t in texts[:2]]
    np.testing.assert_allclose(out["step_s"].to_numpy(), loaded.predict(graphs), rtol=1e-6)

    # same data, same seed: the same score, so the champion does not move
    again = train_gnn(dataset, **kwargs)
    assert again.metrics["val_mape"] == result.metrics["val_mape"]
    assert not again.champion
    assert int(again.registered_version) == int(result.registered_version) + 1

    # an ensemble: each target is fitted and judged as the whole ensemble
    ensemble = train_gnn(dataset, save=tmp_path / "ensemble", **(kwargs | {"members": 2}))
    loaded, meta = gnn.StepGNN.load(tmp_path / "ensemble")
    assert meta["params"]["members"] == 2 and len(loaded.networks_) == 2
    chosen = meta["params"]["target"]
    assert ensemble.metrics[f"val_mape_target_{chosen}"] == pytest.approx(
        ensemble.metrics["val_mape"])
    assert not meta["params"]["warm_start"]
    assert MlflowClient(uri).get_run(ensemble.run_id).data.params["members"] == "2"


def test_ensemble_members_round_trip_and_average_in_log_space(tmp_path, small_set):
    graphs, times = small_set
    model = quick_model(members=3).fit(graphs, times, eval_set=(graphs, times))
    assert len(model.networks_) == 3 and len(model.best_epochs_) == 3
    # member 0 is the single network of the same seed: an ensemble only adds members
    single = quick_model().fit(graphs, times, eval_set=(graphs, times))
    np.testing.assert_allclose(model._predict(graphs, model.networks_[:1]),
                               single.predict(graphs))
    each = np.stack([model._predict(graphs, [net]) for net in model.networks_])
    assert not np.allclose(each[0], each[1])   # other seeds, other networks
    np.testing.assert_allclose(model.predict(graphs), np.exp2(np.log2(each).mean(0)),
                               rtol=1e-9)
    # warm start: a fitted single network grows into the same ensemble
    grown = quick_model(warm_start=True).fit(graphs, times, eval_set=(graphs, times))
    first = grown.networks_[0]
    grown.members = 3
    grown.fit(graphs, times, eval_set=(graphs, times))
    assert grown.networks_[0] is first and len(grown.networks_) == 3
    np.testing.assert_allclose(grown.predict(graphs), model.predict(graphs))
    model.save(tmp_path / "e")
    loaded, meta = gnn.StepGNN.load(tmp_path / "e")
    assert meta["params"]["members"] == 3 and len(meta["best_epochs"]) == 3
    np.testing.assert_array_equal(loaded.predict(graphs), model.predict(graphs))
    with pytest.raises(ModelError, match="members=0"):
        quick_model(members=0).fit(graphs, times)


def test_absent_opcodes_are_recorded_and_flagged_on_new_programs(tmp_path):
    from stablecost.models.features import FEATURES

    xor = FEATURES.index("op_xor")
    graphs = []
    for i, n in enumerate([6, 9, 14, 20]):
        g = synthetic_graph(n, i)
        g.x[:, xor] = 0.0          # no training kernel has an xor
        graphs.append(g)
    times = np.array([float(g.baseline_s[0]) * 1.3 for g in graphs])
    model = quick_model().fit(graphs, times)
    assert "op_xor" in model.absent_features_
    assert all(name.startswith("op_") for name in model.absent_features_)
    X = np.zeros((3, N_FEATURES), dtype=np.float32)
    names, rows = model.unseen_features(X)
    assert names == [] and not rows.any()
    X[1, xor] = 1.0
    names, rows = model.unseen_features(X)
    assert names == ["op_xor"] and rows.tolist() == [False, True, False]
    model.save(tmp_path / "g")
    loaded, meta = gnn.StepGNN.load(tmp_path / "g")
    assert "op_xor" in meta["absent_node_features"]
    assert loaded.unseen_features(X)[0] == ["op_xor"]
