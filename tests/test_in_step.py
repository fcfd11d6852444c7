"""The in-step corrector (models/in_step.py, train/in_step.py): its inputs, where
predict uses it, its bundle directory's checks, and what it is fitted on."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import stablecost
from stablecost.errors import ModelError
from stablecost.models import learned
from stablecost.models.features import FEATURES
from stablecost.models.in_step import (
    BASES,
    INPUTS,
    LARGE_KERNEL_BYTES,
    OFFSET_CLASSES,
    OFFSET_SHRINK,
    InStepCorrector,
    class_offsets,
    corrector_inputs,
    fit_corrector,
    in_step_base,
    offset_classes,
)
from stablecost.models.step_calibration import StepCalibration
from stablecost.train.in_step import Profiled, training_arrays
from stablecost.train.step_calibration import PricedRows, ProgramSums, fit_on

BYTES_READ = FEATURES.index("bytes_read")


def _rows(programs: int = 3, kernels: int = 4, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 4, size=(programs * kernels, len(FEATURES)))
    return X


def test_the_step_context_is_summed_over_each_program():
    X = np.zeros((4, len(FEATURES)))
    X[:, BYTES_READ] = np.log2(np.array([1024, 3072, 2048, 2048]) + 1.0)
    counts = np.array([1.0, 1.0, 2.0, 1.0])
    sample = np.array([0, 0, 1, 1])
    inputs = corrector_inputs(X, np.full(4, 1e-5), counts, sample)
    assert inputs.shape == (4, len(INPUTS))
    step_bytes = np.exp2(inputs[:, -3]) - 1.0
    np.testing.assert_allclose(step_bytes, [4096, 4096, 6144, 6144])
    launches = np.exp2(inputs[:, -2]) - 1.0
    np.testing.assert_allclose(launches, [2, 2, 3, 3])
    # a kernel's share of its step's bytes, executions counted
    share = np.exp2(inputs[:, -1])
    np.testing.assert_allclose(share, [1025 / 4097, 3073 / 4097, 4097 / 6145, 2049 / 6145])
    np.testing.assert_allclose(inputs[:, len(FEATURES)], np.log2(10.0))   # 10 µs
    with pytest.raises(ModelError, match="kernel features"):
        corrector_inputs(np.zeros((2, 3)), np.ones(2), np.ones(2))


def test_the_machines_own_numbers_are_blanked_unless_asked_for():
    from stablecost.models.features import CHIP_FEATURES

    chip = [FEATURES.index(name) for name in CHIP_FEATURES]
    X = _rows()
    counts = np.ones(len(X))
    blanked = corrector_inputs(X, np.full(len(X), 1e-5), counts)
    assert not np.any(blanked[:, chip])
    kept = corrector_inputs(X, np.full(len(X), 1e-5), counts, machine_inputs=True)
    np.testing.assert_array_equal(kept[:, chip], X[:, chip])
    others = [i for i in range(len(FEATURES)) if i not in chip]
    np.testing.assert_array_equal(blanked[:, others], kept[:, others])


def test_a_corrector_fitted_without_machine_inputs_answers_any_machine_alike():
    """Trees fitted on rows whose correction depends on the machine's bandwidth: the
    corrector as fitted now records that it did not see it, and two machines that differ
    only in their own numbers get the same correction; one whose meta says it saw them
    (an older bundle's) reads them."""
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 4, size=(600, len(FEATURES)))
    bandwidth = FEATURES.index("hw_bandwidth")
    X[:, bandwidth] = np.where(np.arange(600) % 2, 1.0, 3.0)
    ratio = np.where(X[:, bandwidth] > 2.0, 1.0, -1.0)
    counts = np.ones(600)
    fitted = fit_corrector(corrector_inputs(X, np.full(600, 1e-5), counts,
                                            np.arange(600)),
                           ratio, np.ones(600), rounds=40, threads=1)
    assert fitted.meta["machine_inputs"] is False
    low, high = X[:4].copy(), X[:4].copy()
    low[:, bandwidth], high[:, bandwidth] = 1.0, 3.0
    predicted, ones = np.full(4, 1e-5), np.ones(4)
    np.testing.assert_allclose(fitted.correct(low, predicted, ones),
                               fitted.correct(high, predicted, ones))
    seeing = fit_corrector(corrector_inputs(X, np.full(600, 1e-5), counts, np.arange(600),
                                            machine_inputs=True),
                           ratio, np.ones(600), rounds=40, threads=1, machine_inputs=True)
    assert seeing.meta["machine_inputs"] is True
    older = InStepCorrector(seeing.booster, {k: v for k, v in seeing.meta.items()
                                             if k != "machine_inputs"})
    assert np.all(older.correct(high, predicted, ones) > 2 * older.correct(low, predicted, ones))


def _corrector(tmp_path=None, log_ratio: float = np.log(2.0)) -> InStepCorrector:
    """A corrector whose trees answer (about) `log_ratio` everywhere."""
    rng = np.random.default_rng(1)
    inputs = rng.uniform(0, 4, size=(400, len(INPUTS)))
    corrector = fit_corrector(inputs, np.full(400, log_ratio), np.ones(400), rounds=60,
                              threads=1)
    corrector.calibration = StepCalibration(floor_s=0.0, scale=(1.0, 1.0),
                                            per_launch_s=(0.0, 0.0),
                                            interval_log_ratio=(-0.5, 0.5))
    return corrector


def test_a_corrector_round_trips_and_a_damaged_one_is_refused(tmp_path):
    corrector = _corrector()
    X = _rows()
    predicted = np.full(len(X), 1e-4)
    corrected = corrector.correct(X, predicted, np.ones(len(X)))
    assert np.all(corrected > 1.5e-4) and np.all(corrected < 2.5e-4)
    path = corrector.save(tmp_path / "in_step")
    back = InStepCorrector.load(path)
    np.testing.assert_allclose(back.correct(X, predicted, np.ones(len(X))), corrected)
    assert back.digest == corrector.digest
    assert back.calibration.interval_log_ratio == (-0.5, 0.5)

    meta = json.loads((path / "meta.json").read_text())
    from stablecost.models.manifest import write_manifest

    for broken, match in (({**meta, "inputs": meta["inputs"][:-1]}, "inputs differ"),
                          ({**meta, "calibration": None}, "calibration must be an object"),
                          ({**meta, "calibration": {**meta["calibration"], "scale": [1.0]}},
                           "2 scales"),
                          ({**meta, "calibration": {**meta["calibration"],
                                                    "floor_s": "fast"}}, "damaged"),
                          ({**meta, "class_offsets": {"loop:gather": float("nan")}},
                           "class_offsets must map"),
                          ({**meta, "class_offsets": {"loop:warp": 0.1}},
                           "class_offsets must map")):
        (path / "meta.json").write_text(json.dumps(broken))
        write_manifest(path)
        with pytest.raises(ModelError, match=match):
            InStepCorrector.load(path)
    # a file changed after its manifest was written
    (path / "meta.json").write_text(json.dumps(meta))
    write_manifest(path)
    (path / "in_step_xgb.ubj").write_bytes(b"not a model")
    with pytest.raises(ModelError):
        InStepCorrector.load(path)
    with pytest.raises(ModelError, match="saved with the step calibration"):
        dataclasses.replace(corrector, calibration=None).save(tmp_path / "bare")


def test_the_corrector_composes_steps_only_on_machines_other_than_the_bundles(examples_dir):
    base = learned.load_models("host-cpu")
    analysis = stablecost.analyze(examples_dir / "mlp_train_step.mlir")
    corrector = _corrector()
    here = {**learned.this_cpu(), "backend": "cpu"}
    elsewhere = {"cpu_vendor": "OtherVendor", "cpu_model": "Other CPU", "cpu_cores": 64}
    own = dataclasses.replace(base, step=None, corrector=corrector,
                              kernel_meta={**base.kernel_meta, "fingerprint": here})
    other = dataclasses.replace(own, kernel_meta={**base.kernel_meta, "fingerprint": elsewhere})
    assert learned.step_composition(own) == (None, base.calibration)
    assert learned.step_composition(other) == (corrector, corrector.calibration)

    at_home = learned.predict_kernels(own, analysis, base.spec)
    away = learned.predict_kernels(other, analysis, base.spec)
    assert at_home.calibration is base.calibration and away.calibration is corrector.calibration
    assert "in-step corrector" in away.note and "in-step corrector" not in at_home.note
    # the corrector's trees double every kernel, its calibration adds nothing to them:
    # the step is about twice the kernel sum of the covered kernels
    counts = np.array([k.count for k in analysis.kernels])
    covered = sum(c * t for c, t, out in zip(counts, away.time_s, away.fallback if
                                             away.fallback is not None else [False] * len(counts))
                  if not out)
    assert away.step_s == pytest.approx(2.0 * covered, rel=0.25)
    # per-kernel answers stay the kernel model's
    np.testing.assert_allclose(away.time_s, at_home.time_s)
    # the step GNN learned the bundle's machine's steps: elsewhere it takes no part
    with_gnn = learned.predict_kernels(dataclasses.replace(other, step=base.step), analysis,
                                       base.spec)
    assert with_gnn.step_source == "step_calibration" and with_gnn.gnn_s is None
    assert "takes no part on another one" in with_gnn.note
    assert learned.predict_kernels(dataclasses.replace(own, step=base.step), analysis,
                                   base.spec).step_source == "step_blend"


def _profiled(split: list[str], family: list[str], outside: list[bool]) -> Profiled:
    kernels = len(split)
    X = _rows(programs=kernels, kernels=1)
    samples = pd.DataFrame({"family": family, "split": split, "median_s": np.ones(kernels),
                            "sample_id": [f"p{i}" for i in range(kernels)]})
    rows = PricedRows(X, np.full(kernels, 1e-5), np.ones(kernels), np.arange(kernels),
                      np.full(kernels, 1e-5), np.array(outside), samples)
    in_step = np.full(kernels, 2e-5)
    in_step[0] = np.nan
    return Profiled("d", rows, in_step)


def test_the_corrector_learns_from_timed_covered_kernels_outside_the_test_split():
    part = _profiled(split=["train", "train", "test", "val", "train", "train"],
                     family=["a", "a", "a", "b", "b", "c"],
                     outside=[False, False, False, False, True, False])
    inputs, ratio, weight, family = training_arrays([part])
    # row 0 has no in-step time, row 2 is a test program, row 4 the roofline prices
    assert list(family) == ["a", "b", "c"]
    np.testing.assert_allclose(ratio, np.log(2.0))
    assert inputs.shape == (3, len(INPUTS)) and np.all(weight > 0)
    _, _, _, family = training_arrays([part], exclude_families=["a"])
    assert list(family) == ["b", "c"]


def test_each_kernel_weighs_its_share_of_its_step_by_in_step_and_priced_time(monkeypatch):
    import stablecost.train.in_step as train_in_step

    # one program of two kernels, priced 1:3 and taking 3:1 inside the step
    X = _rows(programs=1, kernels=2)
    samples = pd.DataFrame({"family": ["a"], "split": ["train"], "median_s": [1.0],
                            "sample_id": ["p0"]})
    priced = np.array([1e-5, 3e-5])
    rows = PricedRows(X, priced, np.ones(2), np.zeros(2, dtype=int), priced,
                      np.zeros(2, dtype=bool), samples)
    part = Profiled("d", rows, np.array([3e-5, 1e-5]))
    for share, expected in ((1.0, [0.75, 0.25]), (0.0, [0.25, 0.75]), (0.5, [0.5, 0.5])):
        monkeypatch.setattr(train_in_step, "IN_STEP_SHARE", share)
        _, _, weight, _ = training_arrays([part])
        np.testing.assert_allclose(weight, expected)


def test_the_calibration_fit_leaves_out_programs_the_roofline_prices_mostly():
    rng = np.random.default_rng(0)
    n = 40
    seconds = rng.uniform(1e-4, 1e-3, size=(n, 2))
    launches = rng.integers(1, 20, size=(n, 2)).astype(float)
    measured = 1.5 * seconds.sum(axis=1) + 1e-5
    fixed = np.zeros(n)
    fixed[:5] = 0.9 * measured[:5]          # mostly priced by the roofline
    measured[:5] *= 0.2                     # ... and measured far off the rest's rule
    sums = ProgramSums(seconds, launches, np.full(n, 4), measured, measured,
                       np.array(["f"] * n), np.array(["train"] * n), fixed)
    terms = fit_on(sums, np.arange(n))
    assert terms[1] == pytest.approx(1.5, rel=1e-3) and terms[3] == pytest.approx(1.5, rel=1e-3)


def test_train_in_step_with_a_missing_dataset_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "stablecost", "train", "in-step", "--data",
                           str(tmp_path / "nowhere"), "--tracking-uri",
                           f"sqlite:///{tmp_path}/m.db"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "nowhere" in done.stderr


def test_the_floors_under_the_kernel_models_answer():
    """Hand-worked rows: a dot kernel keeps the kernel model's answer; a loop kernel is
    raised to its roofline busy time, plus the launch overhead for the "roofline"
    floor; a kernel already above its floor keeps its answer. A corrector records the
    floor it corrects and refuses one it does not know."""
    X = np.zeros((3, len(FEATURES)))
    X[0, FEATURES.index("op_dot_general")] = 1.0
    for row in X:
        row[FEATURES.index("rl_busy_us")] = np.log2(1.0 + 30.0)        # 30 µs busy
        row[FEATURES.index("hw_launch_overhead_us")] = np.log2(1.0 + 5.0)
        row[FEATURES.index("rl_memory_us")] = np.log2(1.0 + 20.0)      # 20 µs of bytes
    predicted = np.array([10e-6, 10e-6, 50e-6])
    assert in_step_base(X, predicted, "") == pytest.approx(predicted)
    assert in_step_base(X, predicted, "busy") == pytest.approx([10e-6, 30e-6, 50e-6])
    assert in_step_base(X, predicted, "roofline") == pytest.approx([10e-6, 35e-6, 50e-6])
    assert in_step_base(X, predicted, "memory") == pytest.approx([10e-6, 20e-6, 50e-6])
    # the "large" floor raises only what moves LARGE_KERNEL_BYTES or more, to its memory
    # time, once per step: none of these
    once = np.ones(3)
    assert in_step_base(X, predicted, "large", once) == pytest.approx(predicted)
    big = X.copy()
    big[:, FEATURES.index("bytes_read")] = np.log2(1.0 + LARGE_KERNEL_BYTES / 2)
    big[:, FEATURES.index("bytes_written")] = np.log2(1.0 + LARGE_KERNEL_BYTES / 2)
    assert in_step_base(big, predicted, "large", once) == pytest.approx([10e-6, 20e-6, 50e-6])
    # ... and only what runs once per step: a loop body's kernel keeps its answer
    assert in_step_base(big, predicted, "large", np.array([1.0, 8.0, 1.0])) == \
        pytest.approx(predicted)
    with pytest.raises(ModelError, match="executions"):
        in_step_base(big, predicted, "large")
    big[1, FEATURES.index("bytes_written")] = np.log2(1.0 + LARGE_KERNEL_BYTES / 2 - 1024)
    assert in_step_base(big, predicted, "large", once) == pytest.approx(predicted)
    with pytest.raises(ModelError, match="in-step floor 'cold'"):
        in_step_base(X, predicted, "cold")
    corrector = InStepCorrector(booster=None, meta={"base": BASES["busy"]})
    assert corrector.floor == "busy"
    assert corrector.base(X, predicted) == pytest.approx([10e-6, 30e-6, 50e-6])
    assert InStepCorrector(booster=None, meta={}).floor == ""
    from stablecost.serve.cli.train import FLOOR_CHOICES, NO_FLOOR

    assert {"" if c == NO_FLOOR else c for c in FLOOR_CHOICES} == set(BASES)
    with pytest.raises(ModelError, match="does not know"):
        _ = InStepCorrector(booster=None, meta={"base": "something else"}).floor


def _kernel_row(kind: str, *opcodes: str) -> np.ndarray:
    row = np.zeros(len(INPUTS))
    row[INPUTS.index(f"kind_{kind}")] = 1.0
    for opcode in opcodes:
        row[INPUTS.index(f"op_{opcode}")] = 1.0
    return row


def test_a_kernel_falls_in_the_class_of_its_kind_and_first_marker_opcode():
    rows = np.stack([_kernel_row("loop", "add", "concatenate", "gather"),  # gather first
                     _kernel_row("standalone", "sort"),
                     _kernel_row("matmul", "dot_general", "add"),          # no marker
                     _kernel_row("reduction", "reduce", "transpose")])
    names = [OFFSET_CLASSES[c] for c in offset_classes(rows)]
    assert names == ["loop:gather", "standalone:sort", "matmul:", "reduction:transpose"]


def test_class_offsets_are_weighted_mean_residuals_shrunk_toward_zero():
    rows = np.stack([_kernel_row("standalone", "sort")] * 2 + [_kernel_row("loop", "add")])
    residual = np.array([1.0, 0.5, -0.3])
    weight = np.array([1.0, 3.0, 2.0])
    offsets = class_offsets(rows, residual, weight)
    # standalone classes with rows only: fused loops get no offset
    assert set(offsets) == {"standalone:sort"}
    # sorts: (1 * 1.0 + 3 * 0.5) / (1 + 3 + OFFSET_SHRINK) = 2.5 / 6 with a shrink of 2
    assert offsets["standalone:sort"] == pytest.approx(2.5 / (4.0 + OFFSET_SHRINK))


def test_the_trees_residual_on_a_class_becomes_its_offset():
    """Trees fitted where sorts, a sliver of the weight, take e^1.5 their base and every
    other kernel e^0: the trees barely see the sorts, the offset moves them up."""
    rng = np.random.default_rng(3)
    others = np.tile(_kernel_row("loop", "add"), (2000, 1))
    others[:, len(FEATURES)] = rng.uniform(0, 8, 2000)        # predicted µs, log2
    sorts = np.tile(_kernel_row("standalone", "sort"), (40, 1))
    sorts[:, len(FEATURES)] = rng.uniform(0, 8, 40)
    inputs = np.concatenate([others, sorts])
    ratio = np.concatenate([np.zeros(2000), np.full(40, 1.5)])
    weight = np.concatenate([np.ones(2000), np.full(40, 0.2)])   # 8 programs' worth
    corrector = fit_corrector(inputs, ratio, weight, rounds=30, threads=1)
    trees = corrector.log_ratio(sorts, offsets=False)
    with_offsets = corrector.log_ratio(sorts)
    offset = corrector.meta["class_offsets"]["standalone:sort"]
    assert offset > 0.5
    np.testing.assert_allclose(with_offsets - trees, offset)
    assert abs(float(np.mean(with_offsets)) - 1.5) < abs(float(np.mean(trees)) - 1.5)
    # a corrector saved before the offsets existed answers with its trees alone
    bare = InStepCorrector(corrector.booster, {k: v for k, v in corrector.meta.items()
                                               if k != "class_offsets"})
    np.testing.assert_allclose(bare.log_ratio(sorts), trees)
    assert bare.digest != corrector.digest


def test_a_weighted_interval_gives_each_machine_the_same_say():
    from stablecost.train.in_step import interval_of

    # 95 programs of one machine on the mark, 5 of another all twice as slow
    residuals = np.concatenate([np.zeros(95), np.full(5, np.log(2.0))])
    assert interval_of(residuals) == pytest.approx((0.0, 0.0))
    weights = np.concatenate([np.full(95, 1 / 95), np.full(5, 1 / 5)])
    assert interval_of(residuals, weights) == pytest.approx((0.0, np.log(2.0)))


def _machine(name: str, level: float, programs: int = 120, seed: int = 0) -> Profiled:
    """Programs of one to four kernels whose kernels take twice their price inside the
    step and whose steps take `level` times the sum of those in-step times."""
    rng = np.random.default_rng(seed)
    sample = np.repeat(np.arange(programs), rng.integers(1, 5, size=programs))
    X = _rows(programs=len(sample), kernels=1, seed=seed)
    priced = rng.uniform(1e-4, 1e-3, size=len(sample))
    measured = level * np.bincount(sample, 2.0 * priced)
    samples = pd.DataFrame({"family": [f"f{i % 6}" for i in range(programs)],
                            "split": ["train"] * programs, "median_s": measured,
                            "sample_id": [f"{name}{i}" for i in range(programs)]})
    rows = PricedRows(X, priced, np.ones(len(sample)), sample, priced,
                      np.zeros(len(sample), dtype=bool), samples)
    return Profiled(name, rows, 2.0 * priced, machine=name)


def test_held_out_one_at_a_time_each_machine_shows_its_own_level():
    from stablecost.train.in_step import (
        calibrate_over,
        fit_in_step,
        machine_held_out_log_ratios,
    )

    parts = [_machine("a", 1.0, seed=1), _machine("b", 2.0, seed=2)]
    by_machine = machine_held_out_log_ratios(parts)
    assert set(by_machine) == {"a", "b"}
    assert np.median(by_machine["a"]) == pytest.approx(-np.log(2.0), abs=0.15)
    assert np.median(by_machine["b"]) == pytest.approx(np.log(2.0), abs=0.15)
    # the interval of the calibration the corrector ships reaches both levels; fitted
    # on one machine it has no other machine's level to reach
    corrector = fit_in_step(parts)
    calibration, report = calibrate_over(parts, corrector)
    low, high = calibration.interval_log_ratio
    assert low < -0.5 and high > 0.5 and set(report["machines_held_out"]) == {"a", "b"}
    alone, report = calibrate_over(parts[:1], fit_in_step(parts[:1]))
    assert "machines_held_out" not in report
    assert alone.interval_log_ratio[1] - alone.interval_log_ratio[0] < 0.5


def test_programs_are_dropped_whole_and_the_rest_renumbered():
    X = _rows(programs=3, kernels=2)
    samples = pd.DataFrame({"family": ["a", "b", "c"], "split": ["train"] * 3,
                            "median_s": [1.0, 2.0, 3.0], "sample_id": ["p0", "p1", "p2"]})
    sample = np.array([0, 0, 1, 1, 2, 2])
    rows = PricedRows(X, np.arange(6.0), np.ones(6), sample, np.arange(6.0) * 2,
                      np.zeros(6, bool), samples, analyses=["A", "B", "C"])
    kept = rows.without_programs(np.array([False, True, False]))
    assert list(kept.sample) == [0, 0, 1, 1]
    assert list(kept.roofline_s) == [0.0, 1.0, 4.0, 5.0]
    assert list(kept.samples["family"]) == ["a", "c"] and kept.analyses == ["A", "C"]
    np.testing.assert_array_equal(kept.X, X[[0, 1, 4, 5]])


def test_a_loop_that_may_stop_on_its_data_keeps_its_program_out_of_the_fits():
    """Its kernels are counted at the loop's bound, so neither their profiled time per
    execution nor the measured step is what the counted kernels take."""
    import jax
    import jax.numpy as jnp
    from programs import early_exit_solver

    from stablecost.train.in_step import exits_early

    solve, fixed = early_exit_solver(40)
    x = jnp.ones((16, 16))
    assert exits_early(stablecost.analyze(jax.jit(solve).lower(x).as_text()))
    assert not exits_early(stablecost.analyze(jax.jit(fixed).lower(x).as_text()))
