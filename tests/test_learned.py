"""The per-kernel model, its training run in MLflow, bundles, and the learned fidelity.

(Over 400 lines: independent tests of one package area, each with its inputs inline;
they share fixtures, and a reader looks for the tests of that area in one place.)
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from datetime import datetime, timezone

import numpy as np
import pytest

import stablecost
from stablecost.datasets import collect, kernels, store
from stablecost.errors import InvalidArgumentError, ModelError, NotFittedError
from stablecost.featurize.program import FEATURIZER_VERSION
from stablecost.hardware import get_hardware
from stablecost.models import learned
from stablecost.models.features import CHIP_FEATURES, FEATURES, N_FEATURES, program_features
from stablecost.models.kernel_model import KernelCostModel
from stablecost.models.manifest import write_manifest
from stablecost.models.roofline import kernel_times

FP = {"backend": "cpu", "cpu_model": "synthetic", "cpu_cores": 2}
FAMILIES = ("dot_general", "elementwise", "reduce", "fused", "data_movement")


def _synthetic_time(text: str, hw) -> float:
    """A made-up but learnable truth: 3x the roofline plus a 5 us floor."""
    a = stablecost.analyze(text)
    return 5e-6 + 3.0 * sum(t.time_s for t in kernel_times(a.kernels, a.program, hw))


def _write_synthetic_dataset(root, hardware: str = "H100-SXM", samples: int = 90,
                            families: tuple[str, ...] = FAMILIES, fingerprint=FP) -> None:
    hw = get_hardware(hardware)
    rows = []
    for i in range(samples):
        spec = kernels.kernel_spec(i, seed=3, families=families)
        fn, specs = kernels.build(spec.family, spec.variant, spec.params)
        text = collect.lower(fn, specs).as_text()
        t = _synthetic_time(text, hw)
        rows.append({
            "sample_id": store.sample_id(i), "group_id": f"g{i % 30}", "kind": "kernel",
            "family": spec.family, "variant": spec.variant, "dtype": spec.dtype,
            "params": json.dumps(spec.params), "stablehlo": text, "median_s": t,
            "p10_s": t * 0.95, "p90_s": t * 1.05, "min_s": t * 0.9, "mean_s": t, "cv": 0.02,
            "repeats": 10, "warmup": 2, "cache_flush": "none", "hardware": hardware,
            "device_name": "synthetic", "backend": hw.kind, "jax_version": None,
            "jaxlib_version": None, "collector_version": "test",
            "timestamp": datetime.now(timezone.utc), "source": "collected",
        })
    with store.DatasetWriter(root, hardware=hardware, fingerprint=fingerprint) as writer:
        writer.add_many(rows)


@pytest.fixture(scope="module")
def dataset_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("data")
    _write_synthetic_dataset(root)
    return root


def _xy(n: int = 400, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, size=(n, N_FEATURES)).astype(np.float32)
    roofline = 2.0 ** X[:, FEATURES.index("rl_busy_us")] * 1e-6
    time_s = roofline * (1.5 + 0.1 * X[:, FEATURES.index("n_ops")])
    return X, time_s, roofline


# --------------------------------------------------------------------------- model contract
def test_kernel_model_contract_and_round_trip(tmp_path):
    model = KernelCostModel(n_estimators=60, max_depth=4)
    assert model.get_params()["n_estimators"] == 60 and model.get_params()["target"] == "log_time"
    X, t, rl = _xy()
    with pytest.raises(NotFittedError, match="not fitted"):
        model.predict(X, rl)
    with pytest.raises(TypeError):
        KernelCostModel(60)  # hyperparameters are keyword-only
    model.fit(X[:300], t[:300], rl[:300], eval_set=(X[300:], t[300:], rl[300:]))
    pred = model.predict(X[300:], rl[300:])
    assert np.median(np.abs(pred - t[300:]) / t[300:]) < 0.25
    interval = model.predict_interval(X[300:], rl[300:])
    assert np.all(interval.low_s <= interval.high_s)
    model.save(tmp_path / "m", floor_s=1e-6)
    loaded, meta = KernelCostModel.load(tmp_path / "m")
    assert meta["floor_s"] == 1e-6
    np.testing.assert_allclose(loaded.predict(X[300:], rl[300:]), pred, rtol=1e-6)


def test_ignored_features_are_never_split_on_and_survive_a_round_trip(tmp_path):
    """Time depends on n_ops alone; with n_ops ignored the trees cannot see it, so the
    model answers the same whatever n_ops is (the roofline part is the same)."""
    X, t, rl = _xy()
    model = KernelCostModel(target="log_ratio", n_estimators=30, max_depth=3,
                            ignored_features=("n_ops",)).fit(X, t, rl)
    varied = X.copy()
    varied[:, FEATURES.index("n_ops")] = 0.0
    np.testing.assert_array_equal(model.predict(varied, rl), model.predict(X, rl))
    plain = KernelCostModel(target="log_ratio", n_estimators=30, max_depth=3).fit(X, t, rl)
    assert not np.array_equal(plain.predict(varied, rl), plain.predict(X, rl))
    model.save(tmp_path / "m")
    loaded, meta = KernelCostModel.load(tmp_path / "m")
    assert meta["params"]["ignored_features"] == ["n_ops"]
    assert loaded.ignored_features == ("n_ops",)
    with pytest.raises(ModelError, match="ignored_features n_opz: not features"):
        KernelCostModel(ignored_features=("n_opz",)).fit(X, t, rl)


def test_ratio_target_and_bad_inputs():
    X, t, rl = _xy()
    model = KernelCostModel(target="log_ratio", n_estimators=40).fit(X, t, rl)
    assert np.median(np.abs(model.predict(X, rl) - t) / t) < 0.2
    with pytest.raises(ModelError, match="target 'log_speed'"):
        KernelCostModel(target="log_speed").fit(X, t, rl)
    with pytest.raises(ModelError, match="expected \\(rows, "):
        KernelCostModel().fit(X[:, :5], t, rl)


def test_large_fits_subsample_the_interval_and_the_target_choice(tmp_path):
    """Past `quantile_rows` the quantile model sees a subsample; past `select_rows`
    the targets are compared on a subsample and only the winner is refitted on all
    rows (what keeps training on 1M rows within minutes)."""
    from stablecost.train.xgboost_train import fit_kernel_model

    X, t, rl = _xy(600)
    model = KernelCostModel(n_estimators=30, max_depth=4, quantile_rows=200).fit(X, t, rl)
    interval = model.predict_interval(X, rl)
    assert np.all(interval.low_s <= interval.high_s)
    compared = KernelCostModel(n_estimators=10, max_depth=3).fit(X, t, rl, interval=False)
    with pytest.raises(NotFittedError, match="interval=False"):
        compared.predict_interval(X, rl)
    with pytest.raises(NotFittedError, match="interval=False"):
        compared.save(tmp_path / "no-interval")

    train = np.arange(600) < 500
    messages: list[str] = []
    model, choice, scores, _ = fit_kernel_model(
        X, t, rl, np.ones(600), train, ~train, ("log_time", "log_ratio"),
        {"n_estimators": 40, "max_depth": 4, "seed": 0},
        score=lambda m: float(np.mean(np.abs(m.predict(X[~train], rl[~train]) / t[~train] - 1))),
        select_rows=200, say=messages.append)
    assert set(scores) == {"log_time", "log_ratio"} and choice == min(scores, key=scores.get)
    assert model.target == choice and model.quantile_booster_ is not None
    assert any("comparing targets on 200 of 500" in m for m in messages)
    assert any(f"fitting target {choice} on all 500" in m for m in messages)


def test_early_stopping_reads_at_most_eval_rows_validation_rows(monkeypatch):
    import xgboost as xgb

    built: list[int] = []

    class Recording(xgb.QuantileDMatrix):
        def __init__(self, data, *args, **kwargs):
            built.append(len(data))
            super().__init__(data, *args, **kwargs)

    monkeypatch.setattr(xgb, "QuantileDMatrix", Recording)
    X, t, rl = _xy(600)
    model = KernelCostModel(n_estimators=20, max_depth=3, eval_rows=100, early_stopping_rounds=5)
    model.fit(X[:300], t[:300], rl[:300], eval_set=(X[300:], t[300:], rl[300:]), interval=False)
    assert built == [300, 100]
    built.clear()
    KernelCostModel(n_estimators=20, max_depth=3, eval_rows=0, early_stopping_rounds=5).fit(
        X[:300], t[:300], rl[:300], eval_set=(X[300:], t[300:], rl[300:]), interval=False)
    assert built == [300, 300]


def test_training_rows_can_be_limited_to_one_source_and_variant(tmp_path):
    """Imported tables time one program through several libraries: `--source` and
    `--variant` keep one, and a dataset that mixes them is reported."""
    from stablecost.train.data import load_frame, mixed_sources

    text = "func.func @main() { return }"
    rows = []
    for i, (library, variant) in enumerate(
            [(lib, var) for lib in ("trtllm/1.3", "vllm/0.24") for var in ("bf16", "fp8")] * 5):
        rows.append({
            "sample_id": store.sample_id(i), "group_id": f"g{i % 3}", "kind": "kernel",
            "family": "dot_general", "variant": variant, "dtype": "bf16", "params": "{}",
            "stablehlo": text, "median_s": 1e-5, "p10_s": 1e-5, "p90_s": 1e-5,
            "min_s": 1e-5, "mean_s": 1e-5, "cv": 0.0, "repeats": 1, "warmup": 0,
            "cache_flush": "unknown", "hardware": "H100-SXM", "device_name": "synthetic",
            "backend": "gpu", "jax_version": None, "jaxlib_version": None,
            "collector_version": "test", "timestamp": datetime.now(timezone.utc),
            "source": f"imported:aic/h100/gemm/{library}/gemm_perf.parquet"})
    with store.DatasetWriter(tmp_path, hardware="H100-SXM", fingerprint=FP) as writer:
        writer.add_many(rows)
    (dataset,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    everything = load_frame(dataset, "kernel")
    assert len(everything) == 20
    assert "100% of the shape groups are timed by several sources (2:" in mixed_sources(everything)

    one = load_frame(dataset, "kernel", source="*/trtllm/*", variants=("bf16",))
    assert len(one) == 5 and set(one["variant"]) == {"bf16"}
    assert set(one["source"]) == {"imported:aic/h100/gemm/trtllm/1.3/gemm_perf.parquet"}
    assert mixed_sources(one) is None
    assert len(load_frame(dataset, "kernel", variants=("bf16", "fp8"))) == 20
    with pytest.raises(InvalidArgumentError, match=r"--source '\*/sglang/\*' matches no "
                                                   r"kernel rows.*its sources: imported:aic"):
        load_frame(dataset, "kernel", source="*/sglang/*")
    with pytest.raises(InvalidArgumentError, match="--variant int8 matches no kernel rows.*"
                                                   "its variants: bf16, fp8"):
        load_frame(dataset, "kernel", variants=("int8",))


def test_mismatched_bundle_is_refused(tmp_path):
    X, t, rl = _xy(100)
    KernelCostModel(n_estimators=5).fit(X, t, rl).save(tmp_path)
    meta = json.loads((tmp_path / "meta.json").read_text())
    meta["featurizer_version"] = "0"
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"meta\.json: .*manifest\.json records"):
        KernelCostModel.load(tmp_path)   # edited after its manifest was written
    write_manifest(tmp_path)   # a bundle saved by another stablecost
    with pytest.raises(ModelError, match="featurizer version '0'"):
        KernelCostModel.load(tmp_path)
    meta["featurizer_version"] = FEATURIZER_VERSION
    meta["features"] = meta["features"][:-1]
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    write_manifest(tmp_path)
    with pytest.raises(ModelError, match="feature schema"):
        KernelCostModel.load(tmp_path)
    with pytest.raises(ModelError, match="no model bundle"):
        KernelCostModel.load(tmp_path / "missing")


def test_repeated_kernels_share_features(examples_dir):
    a = stablecost.analyze(examples_dir / "transformer_block_train_step.mlir")
    hw = get_hardware("H100-SXM")
    X = program_features(a.kernels, a.program, hw)
    from stablecost.models.features import kernel_features

    one_by_one = np.stack([kernel_features(k, a.program, hw) for k in a.kernels])
    np.testing.assert_array_equal(X, one_by_one)
    assert X.shape == (len(a.kernels), N_FEATURES)


# --------------------------------------------------------------------------- training + serving
@pytest.fixture(scope="module")
def trained(dataset_root, tmp_path_factory):
    from stablecost.train.xgboost_train import train_xgboost

    tmp = tmp_path_factory.mktemp("run")
    uri = f"sqlite:///{tmp}/mlflow.db"
    bundle_root = tmp / "bundled"
    result = train_xgboost(dataset_root, tracking_uri=uri, n_estimators=120,
                           save=bundle_root / "h100-sxm" / "kernel_xgb")
    return result, uri, bundle_root


def test_training_run_is_tracked_registered_and_beats_roofline(trained, dataset_root):
    result, uri, _ = trained
    m = result.metrics
    assert result.choice in ("log_time", "log_ratio")
    for key in ("val_mape", "test_mape", "roofline_val_mape", "val_within_10pct",
                "val_kendall_tau", "val_mape_target_log_time", "val_mape_target_log_ratio"):
        assert key in m
    # the truth is 3x roofline + 5 us: the roofline is off by ~2/3, the model is not
    assert m["roofline_val_mape"] > 0.5 and m["val_mape"] < 0.3
    import mlflow
    from mlflow import MlflowClient

    mlflow.set_tracking_uri(uri)
    client = MlflowClient(tracking_uri=uri, registry_uri=uri)
    run = client.get_run(result.run_id)
    assert run.data.params["dataset_digest"] == result.data["digest"]
    assert run.data.params["featurizer_version"] == FEATURIZER_VERSION
    artifacts = {a.path for a in client.list_artifacts(result.run_id, "report")}
    assert {"report/test_scatter.png", "report/test_error_cdf.png",
            "report/feature_importance.png"} <= artifacts
    champion = client.get_model_version_by_alias("stablecost-kernel-xgb-h100-sxm", "champion")
    assert str(champion.version) == result.registered_version and result.champion

    from stablecost.train.xgboost_train import train_xgboost

    worse = train_xgboost(dataset_root, tracking_uri=uri, n_estimators=1, target="log_time")
    assert not worse.champion
    again = client.get_model_version_by_alias("stablecost-kernel-xgb-h100-sxm", "champion")
    assert str(again.version) == result.registered_version


def test_another_machines_kernels_of_chosen_families_join_the_fit(dataset_root, tmp_path):
    """`--also`: another machine's rows of the named families are fitted (each on its own
    machine's spec); the reported figures stay the primary dataset's, and a dataset of
    another chip kind or a family it lacks is refused."""
    from stablecost.train.xgboost_train import other_machine_rows, train_xgboost

    other_root = tmp_path / "other"
    _write_synthetic_dataset(other_root, "H200-SXM", samples=24,
                             families=("dot_general", "reduce"),
                             fingerprint={**FP, "cpu_model": "other"})
    from stablecost.train.data import load_frame, pick_dataset

    frame = load_frame(pick_dataset(other_root, None), "kernel")
    dots = int((frame["family"] == "dot_general").sum())
    assert 0 < dots < len(frame)
    rows = other_machine_rows(other_root, ("dot_general",), "gpu")
    assert rows.samples == dots and set(rows.split) <= {"train", "val", "test"}
    assert len(rows.X) == len(rows.target_s) == len(rows.weight) == len(rows.split)
    h200 = get_hardware("H200-SXM")
    assert rows.X[:, FEATURES.index("hw_bandwidth")] == pytest.approx(
        math.log2(1 + h200.memory_bandwidth_bytes_per_s / 1e9))

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    alone = train_xgboost(dataset_root, tracking_uri=uri, n_estimators=5, register=False)
    both = train_xgboost(dataset_root, tracking_uri=uri, n_estimators=5, register=False,
                         also=other_root, also_families=("dot_general",),
                         save=tmp_path / "bundle")
    assert both.metrics["test_n"] == alone.metrics["test_n"]
    meta = json.loads((tmp_path / "bundle" / "meta.json").read_text())
    assert meta["also"]["also_samples"] == dots
    # two machines' rows: the chip features would only tell the machines apart
    assert set(meta["params"]["ignored_features"]) == set(CHIP_FEATURES)
    # another model: what is keyed by the kernel model's digest must not take it for this
    assert both.data["digest"] != alone.data["digest"] == meta["also"]["primary_digest"]
    assert meta["also"]["also_families"] == "dot_general"
    import mlflow

    params = mlflow.get_run(both.run_id).data.params
    assert params["also_dataset"] == meta["also"]["also_dataset"]

    with pytest.raises(InvalidArgumentError, match="--also-families sort: not in"):
        other_machine_rows(other_root, ("sort",), "gpu")
    with pytest.raises(InvalidArgumentError, match="is a gpu, not a cpu"):
        other_machine_rows(other_root, None, "cpu")


@pytest.fixture
def bundled(trained, monkeypatch):
    _, _, bundle_root = trained
    monkeypatch.setattr(learned, "BUNDLE_ROOT", bundle_root)
    monkeypatch.setattr(learned, "_loaded", {})
    return bundle_root


def test_predict_uses_learned_fidelity_where_a_model_exists(bundled, examples_dir):
    program = examples_dir / "mlp_train_step.mlir"
    auto = stablecost.predict(program, "H100-SXM")
    assert auto.fidelity == "learned"
    roof = stablecost.predict(program, "H100-SXM", fidelity="roofline")
    assert roof.fidelity == "roofline" and roof.step_time_s != auto.step_time_s
    rows = [k for k in auto.kernels if k.time_low_s is not None]
    assert rows and all(k.time_low_s <= k.time_s <= k.time_high_s for k in rows)
    both = stablecost.predict(program, "H100-SXM", fidelity="all")
    assert set(both.by_fidelity) == {"roofline", "learned"}
    assert both.by_fidelity["learned"].step_time_s == pytest.approx(auto.step_time_s)
    assert stablecost.predict(program, "A100-SXM-80GB").fidelity == "roofline"
    with pytest.raises(InvalidArgumentError, match="no learned model for A100-SXM-80GB; "
                                                   "learned models exist for: h100-sxm"):
        stablecost.predict(program, "A100-SXM-80GB", fidelity="learned")


def test_a_memoized_prediction_follows_the_bundle_that_prices_it(trained, examples_dir,
                                                                  monkeypatch):
    """The process's prediction cache keeps answers per program; a bundle swapped in (or
    out) within the process must not be answered from the memo of another."""
    program = examples_dir / "mlp_train_step.mlir"
    shipped = stablecost.predict(program, "H100-SXM")
    with monkeypatch.context() as patch:
        patch.setattr(learned, "BUNDLE_ROOT", trained[2])
        patch.setattr(learned, "_loaded", {})
        swapped = stablecost.predict(program, "H100-SXM")
        assert swapped.model != shipped.model
        assert swapped.step_time_s != pytest.approx(shipped.step_time_s)
    again = stablecost.predict(program, "H100-SXM")
    assert again.model == shipped.model
    assert again.step_time_s == pytest.approx(shipped.step_time_s)


def test_evaluate_writes_a_fidelity_report(bundled, dataset_root, tmp_path):
    from stablecost.train.evaluate import evaluate

    result = evaluate(dataset_root, out=tmp_path / "r", models_root=bundled)
    text = result.report.read_text()
    assert result.kernels["xgboost"]["n"] == result.kernels["roofline"]["n"] > 0
    assert "## Kernel samples (test split)" in text and "| all |" in text
    # every row of every table has as many cells as its header
    for table in text.split("\n\n"):
        rows = [line for line in table.splitlines() if line.startswith("|")]
        if rows:
            assert {line.count("|") for line in rows} == {rows[0].count("|")}, table
    assert (tmp_path / "r" / "kernels_scatter.png").is_file()


def test_fft_top_k_scan_and_3d_conv_kernels_get_their_own_features():
    """Kinds of kernel the data covers are told apart by features, not lumped into
    `op_other`: the transform size of an FFT, k of a top-k, a cumulative window, the
    spatial rank of a convolution."""
    import jax
    import jax.numpy as jnp

    hw = get_hardware("H100-SXM")

    def row(fn, *args):
        a = stablecost.analyze(jax.jit(fn).lower(*args))
        X = program_features(a.kernels, a.program, hw)
        col = {name: X[:, i] for i, name in enumerate(FEATURES)}
        assert col["op_other"].max() == 0.0
        return col

    fft = row(lambda x: jnp.fft.rfft(x, axis=-1), jnp.ones((8, 1024)))
    assert fft["op_fft"].max() > 0 and fft["fft_points"].max() == pytest.approx(np.log2(1025))
    assert fft["fft_real"].max() == 1.0 and fft["fft_pow2"].max() == 1.0
    top = row(lambda x: jax.lax.top_k(x, 7), jnp.ones((4, 300)))
    assert top["topk_k"].max() == pytest.approx(3.0) and top["sort_length"].max() > 8
    scan = row(lambda x: jnp.cumsum(x, axis=1), jnp.ones((4, 4096)))
    assert scan["window_cumulative"].max() == 1.0
    conv = row(lambda x, w: jax.lax.conv_general_dilated(
        x, w, (1, 1, 1), "SAME", dimension_numbers=("NDHWC", "DHWIO", "NDHWC")),
        jnp.ones((1, 8, 8, 8, 4)), jnp.ones((3, 3, 3, 4, 8)))
    assert conv["conv_spatial_rank"].max() == 3.0
    bits = row(lambda x, y: (x << jnp.uint32(3)) ^ jax.lax.shift_right_logical(y, jnp.uint32(2)),
               jnp.ones((64,), jnp.uint32), jnp.ones((64,), jnp.uint32))
    assert bits["op_xor"].max() > 0 and bits["op_shift_right_logical"].max() > 0
    assert bits["dtype_int"].max() == 1.0
    cplx = row(lambda a, b: jax.lax.complex(a, b) * jax.lax.complex(b, a),
               jnp.ones((64,)), jnp.ones((64,)))
    assert cplx["op_complex"].max() > 0
    pool_grad = row(jax.grad(lambda x: jax.lax.reduce_window(
        x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").sum()),
        jnp.ones((2, 8, 8, 4)))
    assert pool_grad["op_select_and_scatter"].max() > 0


class _StubStep:
    """A step model that answers 1 s and reports `names` as never seen in training."""

    def __init__(self, names):
        self.names = names
        self.calls = 0

    def unseen_features(self, X):
        rows = (X[:, [FEATURES.index(n) for n in self.names]] != 0).any(1)
        return (list(self.names) if rows.any() else []), rows

    def predict(self, graphs):
        self.calls += 1
        return np.ones(len(graphs))


def test_step_gnn_is_set_aside_when_unseen_opcodes_carry_much_of_the_time(
        bundled, examples_dir, monkeypatch):
    import dataclasses

    analysis = stablecost.analyze(examples_dir / "mlp_train_step.mlir")
    hw = get_hardware("H100-SXM")
    base = learned.load_models("H100-SXM")
    # the MLP's matmuls are most of its time: a GNN that never saw one is not used
    stub = _StubStep(["op_dot_general"])
    models = dataclasses.replace(base, step=stub)
    out = learned.predict_kernels(models, analysis, hw)
    assert out.step_source == "kernel_sum" and stub.calls == 0
    assert "op_dot_general" in out.note and "step GNN's training programs never had" in out.note
    counts = np.array([k.count for k in analysis.kernels])
    assert out.step_s == pytest.approx(models.floor_s + float(np.dot(counts, out.time_s)))
    # below the share, the GNN still prices the step and the note says what it lacked
    monkeypatch.setattr(learned, "UNSEEN_SHARE", 1.01)
    out = learned.predict_kernels(models, analysis, hw)
    assert out.step_source == "step_gnn" and out.step_s == 1.0 and stub.calls == 1
    assert "the GNN still took part in the step" in out.note
    # nothing unseen: no note
    out = learned.predict_kernels(dataclasses.replace(base, step=_StubStep(["op_fft"])),
                                  analysis, hw)
    assert out.step_source == "step_gnn" and out.note == ""


def test_step_gnn_prices_programs_as_small_as_its_smallest_training_program(
        bundled, examples_dir):
    """The GNN is used down to the size of the smallest step it was trained on, and a
    smaller program gets the kernel sum with a note saying why."""
    import dataclasses

    analysis = stablecost.analyze(examples_dir / "mlp_train_step.mlir")
    hw = get_hardware("H100-SXM")
    base = learned.load_models("H100-SXM")
    size = sum(1 for k in analysis.kernels if k.kind != "collective" and k.priced)
    stub = _StubStep([])
    stub.min_kernels_ = size
    out = learned.predict_kernels(dataclasses.replace(base, step=stub), analysis, hw)
    assert out.step_source == "step_gnn" and out.step_s == 1.0 and out.note == ""
    stub.min_kernels_ = size + 1
    out = learned.predict_kernels(dataclasses.replace(base, step=stub), analysis, hw)
    assert out.step_source == "kernel_sum" and stub.calls == 1
    assert f"{size} kernel(s), fewer than the step GNN's smallest training program " \
           f"({size + 1})" in out.note


def test_learned_models_price_with_the_spec_they_were_trained_on(bundled, examples_dir):
    """A re-calibration (noisy on a shared VM) must not move the learned answer; only
    a CPU model used on another CPU reads the local spec, and says so."""
    import dataclasses

    analysis = stablecost.analyze(examples_dir / "mlp_train_step.mlir")
    base = learned.load_models("H100-SXM")
    spec = get_hardware("H100-SXM")
    slower = dataclasses.replace(spec, memory_bandwidth_bytes_per_s=spec.memory_bandwidth_bytes_per_s / 2)
    reference = learned.predict_kernels(dataclasses.replace(base, spec=spec), analysis, spec)
    # without a bundled spec the chip as given is used: half the bandwidth shows
    assert not np.allclose(learned.predict_kernels(base, analysis, slower).time_s,
                           reference.time_s)
    kept = learned.predict_kernels(dataclasses.replace(base, spec=spec), analysis, slower)
    np.testing.assert_allclose(kept.time_s, reference.time_s)
    assert kept.step_s == pytest.approx(reference.step_s) and kept.note == reference.note

    cpu_spec = dataclasses.replace(spec, kind="cpu")
    cpu_slower = dataclasses.replace(slower, kind="cpu")
    here = {**learned.this_cpu(), "backend": "cpu"}
    trained_here = dataclasses.replace(base, spec=cpu_spec,
                                       kernel_meta={**base.kernel_meta, "fingerprint": here})
    np.testing.assert_allclose(learned.predict_kernels(trained_here, analysis, cpu_slower).time_s,
                               learned.predict_kernels(trained_here, analysis, cpu_spec).time_s)
    elsewhere = dataclasses.replace(trained_here, kernel_meta={
        **base.kernel_meta, "fingerprint": {"cpu_model": "Other CPU", "cpu_cores": 64}})
    out = learned.predict_kernels(elsewhere, analysis, cpu_slower)
    assert "may come from another CPU (cpu_vendor: not recorded; cpu_family: not recorded" \
        in out.note and "applied to this machine's calibration" in out.note
    np.testing.assert_allclose(out.time_s,
                               learned.predict_kernels(base, analysis, cpu_slower).time_s)


def test_a_program_without_compute_kernels_reports_no_overhead():
    """The learned per-call floor sits on the first compute kernel: with none, the
    overhead must not exceed the (zero) compute time."""
    identity = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}"
    p = stablecost.predict(identity, "host-cpu", fidelity="learned")
    assert p.compute_s == 0 and p.overhead_s == 0


def test_learned_kernel_rows_add_up_to_the_step_the_gnn_priced(examples_dir):
    from stablecost.models.cost_model import get
    from stablecost.models.roofline import kernel_times
    from stablecost.serve.api import resolve_hardware

    program = examples_dir / "transformer_block_train_step.mlir"
    analysis = stablecost.analyze(program)
    hw = resolve_hardware("host-cpu", "learned")
    estimate = get("learned").estimate(analysis, hw,
                                       kernel_times(analysis.kernels, analysis.program, hw))
    assert estimate.step_s is not None   # the step GNN priced it: rows are rescaled to it
    p = stablecost.predict(analysis, "host-cpu", fidelity="learned")
    total = sum(k.total_time_s for k in p.kernels) + p.overhead_s
    assert total == pytest.approx(p.compute_s, rel=1e-9)
    assert all(k.time_low_s <= k.time_s <= k.time_high_s for k in p.kernels
               if k.time_low_s is not None)


def test_all_says_when_its_roofline_uses_the_bundled_spec(examples_dir, tmp_path, monkeypatch):
    """An uncalibrated host-cpu: `roofline` alone refuses it, `all` shows a roofline from
    the bundled model's spec and says so."""
    monkeypatch.setenv("STABLECOST_CONFIG_DIR", str(tmp_path))
    program = examples_dir / "mlp_train_step.mlir"
    with pytest.raises(stablecost.errors.UnknownHardwareError, match="not calibrated"):
        stablecost.predict(program, "host-cpu", fidelity="roofline")
    p = stablecost.predict(program, "host-cpu", fidelity="all")
    assert "roofline" in p.by_fidelity
    assert any("not calibrated on this machine" in n for n in p.notes)


def test_a_small_loop_program_is_priced_by_the_calibration_or_else_the_roofline(
        examples_dir):
    """A scan RNN too small for the step GNN: the kernel sum would charge standalone
    per-call costs on every iteration, so the step calibration (which takes them back
    out) prices it, or, in a bundle without one, the roofline, with a note."""
    import dataclasses

    import jax
    import jax.numpy as jnp

    from stablecost.models import learned as learned_module

    def step(w, xs):
        def cell(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h
        return jax.lax.scan(cell, jnp.zeros((8, 128)), xs)[1].sum()

    text = jax.jit(step).lower(jnp.ones((128, 128)), jnp.ones((64, 8, 128))).as_text()
    learned = stablecost.predict(text, "host-cpu", fidelity="learned")
    assert any("step time from the step calibration" in n for n in learned.notes)
    models = learned_module.load_models("host-cpu")
    analysis = stablecost.analyze(text)
    out = learned_module.predict_kernels(models, analysis, models.spec)
    assert out.step_source == "step_calibration"
    # its own 80 % interval (the in-step corrector's calibration on a machine other
    # than the bundle's: `step_composition`), widened for programs unlike its data
    from stablecost.models.cost_model import NOVEL_PROGRAM_WIDENING

    low, high = out.calibration.interval_log_ratio
    k = NOVEL_PROGRAM_WIDENING
    assert k > 1.0
    assert learned.step_time_low_s == pytest.approx(learned.step_time_s * np.exp(k * low))
    assert learned.step_time_high_s == pytest.approx(learned.step_time_s * np.exp(k * high))
    assert learned.step_time_s < models.floor_s + sum(
        k.count * t for k, t in zip(analysis.kernels, out.time_s))
    # without a calibration, the roofline
    from stablecost.models.cost_model import Learned

    roofline = kernel_times(analysis.kernels, analysis.program, models.spec)
    try:
        learned_module._loaded[models.path] = dataclasses.replace(models, calibration=None,
                                                                  corrector=None)
        estimate = Learned().estimate(analysis, models.spec, roofline)
    finally:
        learned_module._loaded[models.path] = models
    assert estimate.analytical and list(estimate.time_s) == [t.time_s for t in roofline]
    assert "priced by the roofline, not the learned model" in estimate.note
    # a training step the step GNN prices is not affected
    mlp = stablecost.predict(examples_dir / "mlp_train_step.mlir", "host-cpu",
                             fidelity="learned")
    assert not any("priced by the roofline" in n for n in mlp.notes)


def test_a_learned_step_has_the_bundles_80_percent_interval(examples_dir, tmp_path):
    import json

    from stablecost.errors import ModelError
    from stablecost.models.cost_model import step_interval
    from stablecost.models.learned import _read_step_interval

    p = stablecost.predict(examples_dir / "mlp_train_step.mlir", "host-cpu",
                           fidelity="learned")
    assert p.step_time_low_s < p.step_time_s < p.step_time_high_s
    table = json.loads((learned.bundle_path("host-cpu") / "kernel_xgb" /
                        learned.STEP_INTERVAL_FILE).read_text())
    low, high = (table["by_source"]["step_gnn"][k] for k in ("low_log_ratio", "high_log_ratio"))
    # composed as on the bundle's own machine, the GNN and the calibration price it: the
    # bounds are the hull of the GNN's answer times e^low and e^high and of the
    # calibration's times its own interval (models/cost_model.py)
    models = dataclasses.replace(learned.load_models("host-cpu"), corrector=None)
    out = learned.predict_kernels(models, stablecost.analyze(
        examples_dir / "mlp_train_step.mlir"), models.spec)
    assert out.step_source == "step_blend" and out.calibrated_s is not None
    scale = 1.3                                   # an adaptation's step factor
    c_low, c_high = models.calibration.interval_log_ratio
    lo_s, hi_s = step_interval(models, out, out.step_s * scale)
    assert lo_s == pytest.approx(min(out.gnn_s * scale * np.exp(low),
                                     out.calibrated_s * scale * np.exp(c_low)), rel=1e-9)
    assert hi_s == pytest.approx(max(out.gnn_s * scale * np.exp(high),
                                     out.calibrated_s * scale * np.exp(c_high)), rel=1e-9)
    roofline = stablecost.predict(examples_dir / "mlp_train_step.mlir", "H100-SXM",
                                  fidelity="roofline")
    assert roofline.step_time_low_s is None
    bad = tmp_path / "step_interval.json"
    bad.write_text(json.dumps({**table, "by_source": {"step_gnn": {"low_log_ratio": 1,
                                                                   "high_log_ratio": 0}}}))
    with pytest.raises(ModelError, match="low <= high"):
        _read_step_interval(bad, table["data_digest"])
    with pytest.raises(ModelError, match="fitted for kernel model"):
        _read_step_interval(bad, "another digest")


def test_the_early_exit_answer_and_its_inverse():
    """Hand worked: a step of 10 s at the cap, 90 % of it beyond one iteration of the
    loops: 1 s run once, the answer their harmonic mean, 2 x 1 x 10 / 11 s; the inverse
    gives the cap back."""
    from stablecost.models.cost_model import early_exit_cap, early_exit_step

    assert early_exit_step(10.0, 0.9) == pytest.approx(20.0 / 11.0)
    assert early_exit_cap(20.0 / 11.0, 0.9) == pytest.approx(10.0)
    assert early_exit_step(10.0, 0.0) == 10.0             # no such loop: the step itself
    assert early_exit_cap(10.0, 0.0) == 10.0
    # however early the loops stop, the answer is under twice the step run once
    for share in (0.5, 0.99, 0.9999):
        assert 10.0 * (1 - share) < early_exit_step(10.0, share) < 2 * 10.0 * (1 - share)


def test_an_early_exit_loop_is_priced_between_its_ends_inside_an_interval_to_both_ends():
    """A loop that also stops on its data can run from one iteration to its counter
    bound. The learned answer prices it at the harmonic mean of both ends; the
    interval's low end lets it stop after one iteration and its high end keeps the bound
    (hand worked: the share of kernel time beyond one iteration, `early_exit_share`)."""
    import jax
    import jax.numpy as jnp
    from programs import early_exit_solver

    from stablecost.models.cost_model import (
        EARLY_EXIT_RULE,
        early_exit_cap,
        early_exit_share,
        early_exit_step,
    )

    solve, fixed = early_exit_solver(40)

    x = jnp.ones((64, 64))
    early = stablecost.analyze(jax.jit(solve).lower(x))
    # one second per execution: the share is the loop's executions beyond one iteration
    ones = [1.0] * len(early.kernels)
    total = sum(k.count for k in early.kernels)
    first, last = early.program.loops[0].blocks
    in_loop = sum(k.count for k in early.kernels if first <= k.block <= last)
    assert in_loop > 0
    assert early_exit_share(early, ones) == pytest.approx(in_loop * (1 - 1 / 40) / total)
    plain = stablecost.analyze(jax.jit(fixed).lower(x))
    assert early_exit_share(plain, [1.0] * len(plain.kernels)) == 0.0

    p = stablecost.predict(early, "host-cpu", fidelity="learned")
    assert p.step_time_low_s is not None and p.step_time_low_s < p.step_time_s
    assert any(f"priced at {EARLY_EXIT_RULE}" in n for n in p.notes)
    # the note names the step's two ends: run once and at the cap (the step before the
    # rule: `early_exit_cap` of the answer)
    note = next(n for n in p.notes if "stop on their data" in n)
    ends = re.search(r"about ([\d.]+) (s|ms|µs) if they stop after one iteration and "
                     r"([\d.]+) (s|ms|µs) at the cap", note)
    assert ends is not None, note
    scale = {"s": 1.0, "ms": 1e-3, "µs": 1e-6}
    once_s, cap_s = (float(ends[1]) * scale[ends[2]], float(ends[3]) * scale[ends[4]])
    share_at = early_exit_share(early, [k.time_s for k in p.kernels])
    assert cap_s == pytest.approx(early_exit_cap(p.step_time_s, share_at), rel=0.01)
    assert once_s == pytest.approx(cap_s * (1 - share_at), rel=0.01)
    q = stablecost.predict(plain, "host-cpu", fidelity="learned")
    assert not any("stop on their data" in n for n in q.notes)
    # the answer drops most of the loop's time beyond one iteration; the
    # interval around it reaches lower, and higher, than the fixed loop's does
    assert p.step_time_s < q.step_time_s
    assert p.step_time_low_s / p.step_time_s < q.step_time_low_s / q.step_time_s
    assert p.step_time_high_s / p.step_time_s > q.step_time_high_s / q.step_time_s
    share = early_exit_share(early, [k.time_s for k in p.kernels])
    assert p.step_time_high_s / p.step_time_s == pytest.approx(
        q.step_time_high_s / q.step_time_s / early_exit_step(1.0, share), rel=0.05)
