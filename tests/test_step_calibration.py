"""The step calibration: its fit, its file, and how the learned fidelity routes a step
between the step GNN, the calibration and the kernel sum."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

import stablecost
from stablecost.errors import ModelError
from stablecost.models import learned
from stablecost.models.features import FEATURES
from stablecost.models.manifest import write_manifest
from stablecost.models.step_calibration import (
    BLEND_LOG2,
    CACHE_SPEEDUP,
    GROUPS,
    MIN_GROUP_SHARE,
    StepCalibration,
    gnn_weight,
    kernel_groups,
    physical_floor_s,
)
from stablecost.train.step_calibration import (
    ProgramSums,
    calibration_from,
    fit_terms,
    held_out_log_ratios,
    predict_sums,
)

ROOT = Path(__file__).resolve().parents[1]


def _sums(n: int = 60, seed: int = 0) -> tuple[ProgramSums, np.ndarray]:
    """Programs whose measured time follows known terms exactly."""
    rng = np.random.default_rng(seed)
    seconds = rng.uniform(5e-3, 5e-2, (n, len(GROUPS)))
    launches = rng.integers(1, 50, (n, len(GROUPS))).astype(float)
    terms = np.array([1e-4, 0.7, -4e-5, 0.4, -2e-6])
    sums = ProgramSums(seconds, launches, np.full(n, 20), np.zeros(n), np.zeros(n),
                       np.array([f"f{i % 4}" for i in range(n)]), np.array(["train"] * n))
    measured = sums.design() @ terms
    return dataclasses.replace(sums, measured_s=measured), terms


def test_no_group_falls_below_what_the_chip_can_physically_do():
    """Per-launch terms fitted to strip standalone overhead must not take a loop of
    mid-sized kernels below their roofline compute time, or their memory time at
    CACHE_SPEEDUP times the calibrated bandwidth."""
    calibration = StepCalibration(floor_s=0.0, scale=(0.5, 0.5), per_launch_s=(-5e-6, -5e-6))
    groups = np.array([1, 1])
    kernel_s = np.array([6e-6, 6e-6])            # 0.5 x 6 us - 5 us < 0: clamped
    counts = np.array([100, 100])
    assert calibration.step_s(groups, kernel_s, counts) == pytest.approx(
        MIN_GROUP_SHARE * 1.2e-3)
    physical = np.array([2e-6, 1e-6])
    assert calibration.step_s(groups, kernel_s, counts, physical) == pytest.approx(3e-4)
    # the floor of a feature row: max(compute, memory / CACHE_SPEEDUP), from log2(1 + us)
    X = np.zeros((2, len(FEATURES)))
    compute, memory = FEATURES.index("rl_compute_us"), FEATURES.index("rl_memory_us")
    X[0, compute], X[0, memory] = np.log2(1 + 3.0), np.log2(1 + 100.0)
    X[1, compute], X[1, memory] = np.log2(1 + 3.0), np.log2(1 + 20.0)
    assert physical_floor_s(X) == pytest.approx([100e-6 / CACHE_SPEEDUP, 3e-6])
    # predict_sums prices the group sums the same way
    sums = ProgramSums(np.array([[0.0, 1.2e-3]]), np.array([[0.0, 200.0]]), np.array([2]),
                       np.array([1e-3]), np.zeros(1), np.array(["f"]), np.array(["test"]),
                       physical=np.array([[0.0, 3e-4]]))
    assert predict_sums(calibration, sums) == pytest.approx([3e-4])


def test_the_fit_recovers_known_terms_and_prices_as_step_s_does():
    sums, terms = _sums()
    fitted = fit_terms(sums.design(), sums.measured_s)
    assert fitted == pytest.approx(terms, rel=1e-6, abs=1e-12)
    calibration = calibration_from(fitted)
    assert predict_sums(calibration, sums) == pytest.approx(sums.measured_s, rel=1e-9)
    # step_s over kernels gives what predict_sums gives over their group sums
    groups = np.array([0, 0, 1, 1, 1])
    kernel_s = np.array([1e-3, 2e-3, 1e-4, 3e-4, 5e-5])
    counts = np.array([1, 10, 1, 10, 100])
    one = dataclasses.replace(
        sums, seconds=np.bincount(groups, counts * kernel_s, minlength=2)[None, :],
        launches=np.bincount(groups, counts, minlength=2)[None, :].astype(float))
    assert calibration.step_s(groups, kernel_s, counts) == pytest.approx(
        float(predict_sums(calibration, one)[0]))


def test_pinned_scales_stay_at_one_and_the_overheads_are_fitted():
    sums, terms = _sums()
    # the same steps less what scales other than 1 added: only the floor and the
    # per-launch terms are left to find
    measured = sums.measured_s - sum((terms[1 + 2 * g] - 1.0) * sums.seconds[:, g]
                                     for g in range(len(GROUPS)))
    fitted = fit_terms(sums.design(), measured, pin_scales=True)
    assert fitted[1::2] == pytest.approx([1.0] * len(GROUPS))
    assert fitted[0::2] == pytest.approx(terms[0::2], rel=1e-6, abs=1e-12)


def test_gpu_program_sums_price_uncovered_kernels_by_the_roofline_as_predict_does():
    """The shared GPU bundle prices kernels outside its data (a TF32 dot, say) at their
    roofline time; the calibration's sums must see the step `predict` gives."""
    from stablecost.hardware import get_hardware
    from stablecost.models.learned import GPU_BUNDLE, load_kernel_model
    from stablecost.train.data import load_frame, pick_dataset
    from stablecost.train.step_calibration import program_sums

    dataset = pick_dataset(ROOT / "data" / "h100-sxm-69c6a60d", None)
    frame = load_frame(dataset, "program", seed=0).head(3)
    models = load_kernel_model(GPU_BUNDLE)
    sums = program_sums(frame, get_hardware("H100-SXM"), models, progress=False)
    assert (sums.fixed_s > 0).all()
    for i, text in enumerate(frame["stablehlo"]):
        learned_s = stablecost.predict(text, "H100-SXM", fidelity="learned").step_time_s
        assert models.floor_s + sums.seconds[i].sum() + sums.fixed_s[i] == \
            pytest.approx(learned_s, rel=1e-4)


def test_a_group_never_goes_below_its_share_of_the_kernel_sum():
    calibration = StepCalibration(floor_s=0.0, scale=(1.0, 1.0), per_launch_s=(-1e-3, 0.0))
    # 100 launches of a 10 µs matmul kernel: 1 ms of predictions, -100 ms of launches
    step = calibration.step_s(np.array([0]), np.array([1e-5]), np.array([100]))
    assert step == pytest.approx(MIN_GROUP_SHARE * 1e-3)


def test_held_out_residuals_come_from_fits_without_the_family():
    sums, _ = _sums()
    # one family runs 3x slower than the terms say: held out, it is priced by a fit
    # that never saw it, exactly at the terms
    slow = sums.family == "f2"
    measured = np.where(slow, 3 * sums.measured_s, sums.measured_s)
    sums = dataclasses.replace(sums, measured_s=measured)
    residuals = held_out_log_ratios(sums, np.arange(len(measured)))
    assert np.allclose(residuals[slow], math.log(3), atol=1e-6)
    # the others' fits include the slow family, so they are off, but far less
    assert abs(np.median(residuals[~slow])) < 0.35


def test_too_few_programs_and_bad_terms_are_refused(tmp_path):
    sums, _ = _sums(n=8)
    with pytest.raises(ModelError, match="too few"):
        fit_terms(sums.design(), sums.measured_s)
    with pytest.raises(ModelError, match="finite"):
        StepCalibration(floor_s=float("nan"), scale=(1.0, 1.0), per_launch_s=(0.0, 0.0))
    with pytest.raises(ModelError, match="out of range"):
        StepCalibration(floor_s=0.0, scale=(-1.0, 1.0), per_launch_s=(0.0, 0.0))


def test_it_round_trips_and_a_damaged_file_is_a_model_error(tmp_path):
    calibration = StepCalibration(floor_s=1e-4, scale=(0.7, 0.4), per_launch_s=(-4e-5, 0.0),
                                  min_kernels=12, interval_log_ratio=(-0.2, 0.8),
                                  meta={"dataset": "d"})
    path = calibration.save(tmp_path / "step_calibration")
    again = StepCalibration.load(path)
    assert again == calibration and again.meta["dataset"] == "d"
    meta = json.loads((path / "meta.json").read_text())
    for field, value, match in (("scale", [float("nan"), 1.0], "finite"),
                                ("scale", ["x", 1.0], "not a number"),
                                ("groups", ["a", "b"], "kernel groups"),
                                ("per_launch_s", [0.0], "needs 2"),
                                ("interval_log_ratio", [1.0, 0.0], "low must not")):
        (path / "meta.json").write_text(json.dumps({**meta, field: value}))
        write_manifest(path)      # past the checksum: the value check must catch it
        with pytest.raises(ModelError, match=match):
            StepCalibration.load(path)
    (path / "meta.json").write_text(json.dumps(meta) + " ")
    with pytest.raises(ModelError, match="SHA-256|bytes"):
        StepCalibration.load(path)


class _Gnn:
    """A step GNN stub that answers `seconds` for every program."""

    min_kernels_ = 1

    def __init__(self, seconds: float):
        self.seconds = seconds

    def unseen_features(self, X):
        return [], np.zeros(len(X), bool)

    def predict(self, graphs):
        return np.full(len(graphs), self.seconds)


def test_the_step_blends_the_gnn_and_the_calibration_by_their_agreement(examples_dir):
    analysis = stablecost.analyze(examples_dir / "mlp_train_step.mlir")
    base = learned.load_models("host-cpu")
    hw = base.spec
    calibration = StepCalibration(floor_s=0.0, scale=(1.0, 1.0), per_launch_s=(0.0, 0.0))
    # corrector=None: the bundle's own calibration composes the step on any machine
    base = dataclasses.replace(base, corrector=None)
    alone = learned.predict_kernels(dataclasses.replace(base, step=None,
                                                        calibration=calibration), analysis, hw)
    assert alone.step_source == "step_calibration"
    calibrated = alone.step_s
    assert calibrated == pytest.approx(sum(
        k.count * t for k, t in zip(analysis.kernels, alone.time_s)
        if k.kind != "collective" and k.priced))

    def priced(ratio):
        models = dataclasses.replace(base, step=_Gnn(calibrated * ratio),
                                     calibration=calibration)
        return learned.predict_kernels(models, analysis, hw)

    same = priced(1.0)
    assert same.step_source == "step_blend" and same.step_s == pytest.approx(calibrated)
    assert "unlike the GNN" not in same.note
    # 2x apart: the GNN weighs 1 - 1/BLEND_LOG2, the geometric blend lies between
    out = priced(2.0)
    w = 1 - 1 / BLEND_LOG2
    assert gnn_weight(2 * calibrated, calibrated) == pytest.approx(w)
    assert out.step_s == pytest.approx(calibrated * 2 ** w)
    assert out.gnn_s == pytest.approx(2 * calibrated) and out.calibrated_s == calibrated
    # as far apart as BLEND_LOG2 or more: the calibration alone, and the note says why
    for ratio in (2 ** BLEND_LOG2, 2 ** -(BLEND_LOG2 + 1)):
        out = priced(ratio)
        assert out.step_s == pytest.approx(calibrated)
        assert "looks unlike the GNN's training programs" in out.note
    # the blend moves monotonically with the GNN's answer up to where it lets go
    steps = [priced(r).step_s for r in (1.0, 1.2, 1.5, 1.8)]
    assert steps == sorted(steps)


def test_small_loop_free_programs_keep_the_kernel_sum_and_loops_take_the_calibration(
        examples_dir):
    import jax
    import jax.numpy as jnp

    base = learned.load_models("host-cpu")
    hw = base.spec
    calibration = StepCalibration(floor_s=0.0, scale=(0.5, 0.5), per_launch_s=(0.0, 0.0),
                                  min_kernels=50)
    models = dataclasses.replace(base, step=None, calibration=calibration, corrector=None)
    flat = stablecost.analyze(jax.jit(lambda x: jnp.tanh(x @ x)).lower(
        jnp.ones((64, 64))).as_text())
    assert learned.predict_kernels(models, flat, hw).step_source == "kernel_sum"

    def scan(x):
        return jax.lax.scan(lambda c, _: (jnp.tanh(c @ c), None), x, None, length=8)[0]

    looped = stablecost.analyze(jax.jit(scan).lower(jnp.ones((64, 64))).as_text())
    out = learned.predict_kernels(models, looped, hw)
    assert out.step_source == "step_calibration"


def test_kernel_groups_split_matmuls_from_the_rest():
    X = np.zeros((3, len(FEATURES)))
    X[0, FEATURES.index("op_dot_general")] = 1
    X[1, FEATURES.index("op_convolution")] = 1
    assert kernel_groups(X).tolist() == [0, 0, 1]
    with pytest.raises(ModelError, match="kernel features"):
        kernel_groups(np.zeros((2, 3)))


def test_the_bundled_calibration_loads_and_matches_its_kernel_model():
    models = learned.load_models("host-cpu")
    assert models is not None and models.calibration is not None
    assert models.calibration.meta["kernel_model"]["data_digest"] == \
        models.kernel_meta["data_digest"]
    low, high = models.calibration.interval_log_ratio
    assert low < 0 < high


def test_a_stale_step_model_is_refused_but_does_not_block_its_refit(tmp_path):
    """After the kernel model is retrained, the step models fitted over the old one are
    refused on load, and the calibration's refit reads the kernel model alone."""
    import shutil

    root = tmp_path / "bundled"
    shutil.copytree(learned.bundle_path("host-cpu"), root / "host-cpu")
    calibration = root / "host-cpu" / "step_calibration"
    meta = json.loads((calibration / "meta.json").read_text())
    meta["kernel_model"]["data_digest"] = "0" * 16
    (calibration / "meta.json").write_text(json.dumps(meta))
    write_manifest(calibration)
    with pytest.raises(ModelError, match="fitted over kernel model 0000000000000000"):
        learned.load_models("host-cpu", root)
    kernel_only = learned.load_kernel_model("host-cpu", root)
    assert kernel_only is not None
    assert kernel_only.calibration is None and kernel_only.step is None
    assert kernel_only.kernel_meta["data_digest"] == \
        learned.load_models("host-cpu").kernel_meta["data_digest"]
    assert learned.load_kernel_model("host-cpu", tmp_path / "none") is None


@pytest.mark.slow
def test_train_calibration_command_fits_logs_and_saves(tmp_path, capsys):
    """`stablecost train calibration` on the shipped data: an MLflow run, a bundle
    directory that loads, and a report with the test split beside the roofline."""
    from stablecost.serve.cli import main

    out = tmp_path / "step_calibration"
    code = main(["train", "calibration", "--data", "data/cpu", "--save", str(out),
                 "--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}"])
    assert code == 0
    report = json.loads(capsys.readouterr().out.split("\nsaved ")[0])
    assert report["test"]["calibration"] < report["test"]["roofline"]
    loaded = StepCalibration.load(out)
    shipped = learned.load_models("host-cpu").calibration
    assert loaded.scale == pytest.approx(shipped.scale)
    assert (tmp_path / "mlflow.db").is_file()


def test_fixed_seconds_are_added_outside_the_fitted_terms():
    plain, terms = _sums()   # programs whose time follows known terms exactly
    fixed = np.random.default_rng(3).uniform(0.0, 5e-3, len(plain.measured_s))
    measured = plain.measured_s + fixed
    sums = dataclasses.replace(plain, measured_s=measured, fixed_s=fixed)
    assert sums.fit_target_s() == pytest.approx(measured - fixed)
    fitted = fit_terms(sums.design(), sums.fit_target_s())
    assert fitted == pytest.approx(terms, rel=1e-6, abs=1e-12)
    calibration = calibration_from(fitted)
    assert predict_sums(calibration, sums) == pytest.approx(measured, rel=1e-6)
    assert predict_sums(calibration, sums.take(np.arange(5))) == pytest.approx(measured[:5],
                                                                             rel=1e-6)
