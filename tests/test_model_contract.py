"""One contract over every learned model: keyword-only hyperparameters stored verbatim,
fit returns self, predict before fit is an error, a save/load round trip predicts the
same, and a program with an op no rule prices is reported, not silently priced 0."""

from __future__ import annotations

import numpy as np
import pytest

import stablecost
from stablecost.errors import NotFittedError
from stablecost.models.features import FEATURES, N_FEATURES
from stablecost.models.gnn import StepGNN, graph_from_parts
from stablecost.models.kernel_model import KernelCostModel


def _kernel_data(rng):
    X = rng.uniform(0, 8, size=(200, N_FEATURES)).astype(np.float32)
    rl = 2.0 ** X[:, FEATURES.index("rl_busy_us")] * 1e-6
    return (X, rl * 2.0, rl), (X, rl)


def _graph_data(rng):
    graphs, times = [], []
    for _ in range(12):
        n = int(rng.integers(3, 20))
        X = rng.uniform(0, 8, size=(n, N_FEATURES)).astype(np.float32)
        rl = rng.uniform(1e-6, 1e-4, size=n)
        edges = np.array([np.arange(n - 1), np.arange(1, n)], dtype=np.int64)
        graphs.append(graph_from_parts(X, rl, np.ones(n), rl * 2.0, edges, 1e-5))
        times.append(1e-5 + 2.5 * rl.sum())
    return (graphs, np.array(times)), (graphs,)


MODELS = {
    "kernel_xgb": (lambda: KernelCostModel(n_estimators=20, max_depth=3), _kernel_data,
                   {"n_estimators": 20, "max_depth": 3}),
    "step_gnn": (lambda: StepGNN(epochs=3, hidden=8, layers=2), _graph_data,
                 {"epochs": 3, "hidden": 8, "layers": 2}),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_learned_model_contract(name, tmp_path):
    make, data, params = MODELS[name]
    model = make()
    assert {k: model.get_params()[k] for k in params} == params
    assert not any(k.endswith("_") for k in model.get_params())
    with pytest.raises(TypeError):
        type(model)(1)                      # hyperparameters are keyword-only
    fit_args, predict_args = data(np.random.default_rng(0))
    with pytest.raises(NotFittedError):
        model.predict(*predict_args)
    assert model.fit(*fit_args) is model
    before = model.predict(*predict_args)
    assert np.all(np.isfinite(before)) and np.all(before > 0)
    model.save(tmp_path / name)
    loaded, meta = type(model).load(tmp_path / name)
    assert meta["model"] == name
    np.testing.assert_allclose(loaded.predict(*predict_args), before, rtol=1e-6)


def test_unknown_ops_are_reported_by_the_learned_fidelity():
    text = """
    func.func @main(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
      %0 = stablehlo.custom_call @mystery_kernel(%a) : (tensor<64x64xf32>) -> tensor<64x64xf32>
      %1 = stablehlo.exponential %0 : tensor<64x64xf32>
      return %1 : tensor<64x64xf32>
    }"""
    p = stablecost.predict(text, "host-cpu", fidelity="learned")
    assert p.fidelity == "learned"
    assert any("no cost rule" in note and "custom_call" in note for note in p.notes)
    assert [k.bound for k in p.kernels if "custom_call" in k.ops] == ["unpriced"]
