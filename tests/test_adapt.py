"""Adapting the bundled learned model to this machine: the correction's fit (hand-worked
MAPE-optimal factors), its file (checked on load), its use by predict, and the command's errors."""

import dataclasses
import json
import math

import numpy as np
import pytest

import stablecost
from stablecost.errors import ModelError
from stablecost.models.adaptation import (
    Adaptation,
    adaptation_path,
    apply,
    find_adaptation,
    local_fingerprint_id,
    read_adaptation,
)
from stablecost.models.learned import LearnedKernels, load_models
from stablecost.serve.api import ProgramCache
from stablecost.serve.cli import main
from stablecost.train.adapt import SHRINK, Residual, check_errors, fit_factors, residual_of


def _residual(kind, key, ratio, group="g"):
    return Residual(kind, key, group, math.log(ratio))


def test_factors_minimize_mape_and_are_shrunk_toward_the_overall_one():
    residuals = ([_residual("kernel", "matmul", 2.0)] * 10 +       # 10 samples at 2x
                 [_residual("kernel", "loop", 0.5)] * 10 +         # 10 at 0.5x
                 [_residual("kernel", "reduction", 1.0)] * 30 +    # 30 on the mark
                 [_residual("step", "step", 1.25)] * 3)
    fitted = fit_factors(residuals)
    # over all kernel samples x1 has the least MAPE: the ratio-1 samples weigh most
    assert fitted["default"] == pytest.approx(1.0)
    # matmul: (10 log 2 + SHRINK x 0) / (10 + SHRINK) = log 2 / 2 with SHRINK = 10
    assert SHRINK == 10
    assert fitted["matmul"] == pytest.approx(math.sqrt(2.0))
    assert fitted["loop"] == pytest.approx(math.sqrt(0.5))
    assert fitted["step"] == pytest.approx(1.25)


def test_the_factor_is_the_mape_optimum_not_the_log_median():
    from stablecost.train.adapt import mape_log_factor

    # ten samples at 2x and ten at 0.5x: the log median is x1 (MAPE 75 %), x0.5 errs
    # by 75 % on half the samples and 0 on the other half (MAPE 37.5 %)
    logs = [math.log(2.0)] * 10 + [math.log(0.5)] * 10
    assert math.exp(mape_log_factor(logs)) == pytest.approx(0.5)
    ratios = np.exp(np.linspace(-1.0, 1.5, 41))
    best = math.exp(mape_log_factor(list(np.log(ratios))))
    def error(c):
        return float(np.mean(np.abs(c / ratios - 1)))
    grid = np.exp(np.linspace(-1.5, 2.0, 2001))
    assert error(best) <= min(error(c) for c in grid) + 1e-9
    assert best < float(np.exp(np.median(np.log(ratios))))


def test_factors_are_clamped_and_default_to_one_without_samples():
    fitted = fit_factors([_residual("kernel", "matmul", 1e6)] * 3)
    assert fitted["default"] == 20.0 and fitted["step"] == 1.0


def test_the_check_reports_groups_the_fit_did_not_see():
    residuals = [_residual("step", "step", 2.0, group=f"g{i}") for i in range(40)]
    check = check_errors(residuals)["step"]
    assert 0 < check["rows"] < 40
    # every program runs 2x the prediction: |1/2 - 1| before, 0 after
    assert check["mape_before"] == pytest.approx(0.5)
    assert check["mape_after"] == pytest.approx(0.0, abs=1e-12)
    assert "mape_current" not in check
    # beside what predict applied until now: a step factor of 1.5, |1.5/2 - 1|
    current = Adaptation(hardware="host-cpu", fingerprint_id="abc", bundle_digest="d",
                         featurizer_version="7", step_factor=1.5, default_kernel_factor=1.0)
    assert check_errors(residuals, current=current)["step"]["mape_current"] == \
        pytest.approx(0.25)


def _write(path, **changes):
    models = load_models("host-cpu")
    data = Adaptation(hardware="host-cpu", fingerprint_id=local_fingerprint_id(),
                      bundle_digest=models.adaptation_digest,
                      featurizer_version=stablecost.featurize.program.FEATURIZER_VERSION,
                      step_factor=2.0, default_kernel_factor=2.0,
                      kernel_factors={}, samples={"kernel": 1, "step": 1},
                      created="2026-11-24T00:00:00+00:00").to_dict()
    data.update(changes)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return data


NOT_A_DATA_MACHINE = "0123456789ab"


def test_the_bundles_default_applies_until_this_machine_has_its_own(examples_dir,
                                                                    monkeypatch):
    from stablecost.models import adaptation
    from stablecost.models.adaptation import OTHER_MACHINES_ID, bundled_adaptation

    # a machine none of the bundle's data comes from
    monkeypatch.setattr(adaptation, "local_fingerprint_id", lambda: NOT_A_DATA_MACHINE)
    models = load_models("host-cpu")
    default, why = bundled_adaptation(models.path, models.adaptation_digest)
    assert default is not None and not why and default.fingerprint_id == OTHER_MACHINES_ID
    assert default.origin == "bundle-default"
    # fitted factors (the step factor may be 1: `checked_step_factor` drops one that
    # made held-out machines worse)
    assert len(default.machines) >= 2 and default.default_kernel_factor != 1.0
    program = examples_dir / "transformer_block_train_step.mlir"
    # the test machine's fingerprint differs from the bundle's data (which predates
    # the fingerprint's CPU fields), so the default applies
    before = stablecost.predict(program, "host-cpu", fidelity="learned")
    assert any("the bundle's default for machines other than its own" in n
               for n in before.notes)
    assert "default for other machines" in before.model
    _write(adaptation_path("host-cpu", NOT_A_DATA_MACHINE))
    after = stablecost.predict(stablecost.analyze(program), "host-cpu", fidelity="learned")
    assert not any("default for machines other" in n for n in after.notes)
    assert any("adapted to this machine" in n for n in after.notes)


def test_a_machine_the_bundles_data_comes_from_gets_its_own_factors(examples_dir,
                                                                     monkeypatch):
    from stablecost.models import adaptation
    from stablecost.models.adaptation import MACHINES_FILE, OTHER_MACHINES, bundled_adaptation

    models = load_models("host-cpu")
    listed = json.loads((models.path / OTHER_MACHINES / MACHINES_FILE).read_text())
    # every machine of the default's data has its own factors, fitted on its data alone
    default_machines = json.loads(
        (models.path / OTHER_MACHINES / "adaptation.json").read_text())["machines"]
    assert sorted(listed) == sorted(default_machines)
    program = examples_dir / "transformer_block_train_step.mlir"
    monkeypatch.setattr(adaptation, "local_fingerprint_id", lambda: NOT_A_DATA_MACHINE)
    elsewhere = stablecost.predict(program, "host-cpu", fidelity="learned")
    steps = {}
    for machine, data in listed.items():
        monkeypatch.setattr(adaptation, "local_fingerprint_id", lambda m=machine: m)
        own, why = bundled_adaptation(models.path, models.adaptation_digest)
        assert not why and own.origin == "bundle-machine" and own.fingerprint_id == machine
        assert own.step_factor == data["step_factor"] and own.machines == (machine,)
        here = stablecost.predict(stablecost.analyze(program), "host-cpu", fidelity="learned")
        assert "adapted by the bundle's factors for this machine" in here.model
        assert any("the project's data comes from it" in n for n in here.notes)
        steps[machine] = here.compute_s
        # this machine's own adaptation still wins over the bundle's
        _write(adaptation_path("host-cpu", machine))
        adapted = stablecost.predict(stablecost.analyze(program), "host-cpu",
                                     fidelity="learned")
        assert "adapted on machine" in adapted.model
    # the machines' factors differ, and so do their answers
    assert len({round(s, 12) for s in (*steps.values(), elsewhere.compute_s)}) > 1


def test_predict_applies_this_machines_adaptation(examples_dir, monkeypatch):
    from stablecost.models import adaptation

    # without the bundle's default for other machines, to compare with the bare bundle
    monkeypatch.setattr(adaptation, "bundled_adaptation", lambda *a: (None, ""))
    program = examples_dir / "transformer_block_train_step.mlir"
    # one cache for both: it memoizes the first answer, and an adaptation written since
    # must not be answered from the memo
    cache = ProgramCache()
    before = stablecost.predict(program, "host-cpu", fidelity="learned", cache=cache)
    path = adaptation_path("host-cpu", local_fingerprint_id())
    _write(path)
    after = stablecost.predict(program, "host-cpu", fidelity="learned", cache=cache)
    # the step GNN priced it: (step - floor) x 2 + floor
    assert after.compute_s - after.overhead_s == pytest.approx(
        2 * (before.compute_s - before.overhead_s), rel=1e-6)
    assert any("adapted to this machine" in n for n in after.notes)
    assert "adapted on machine" in after.model


def _three_kernels():
    """An analysis of a few kernels (an exponential, a dot, a log), each run once."""
    text = """
func.func @main(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = stablehlo.exponential %a : tensor<8x8xf32>
  %1 = stablehlo.dot_general %0, %0, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = stablehlo.log %1 : tensor<8x8xf32>
  return %2 : tensor<8x8xf32>
}"""
    return stablecost.analyze(text)


def test_kernels_priced_by_the_roofline_are_not_adapted():
    analysis = _three_kernels()
    n = len(analysis.kernels)
    assert n >= 2 and all(k.count == 1 for k in analysis.kernels)
    adaptation = Adaptation(hardware="host-cpu", fingerprint_id="f", bundle_digest="d",
                            featurizer_version="6", step_factor=2.0,
                            default_kernel_factor=3.0)
    time_s = np.full(n, 1e-3)
    fallback = np.zeros(n, bool)
    fallback[0] = True
    # step: floor and the roofline-priced kernel as they are, the rest x2
    kernels, step = apply(adaptation, analysis, time_s, 10e-3, 1e-3, fallback)
    assert step == pytest.approx(1e-3 + 1e-3 + (10e-3 - 2e-3) * 2)
    assert kernels[0] == pytest.approx(1e-3) and kernels[1:] == pytest.approx(3e-3)
    # without a fallback mask every kernel and the whole step above the floor is scaled
    kernels, step = apply(adaptation, analysis, time_s, 10e-3, 1e-3)
    assert step == pytest.approx(1e-3 + 9e-3 * 2) and kernels == pytest.approx(3e-3)
    # adapt's residual sets the roofline-priced kernels apart the same way
    learned = LearnedKernels(time_s, time_s, time_s, 10e-3, "step_gnn", 1e-3,
                             fallback=fallback)
    r = residual_of(None, analysis, learned, "g", 17e-3)
    assert r is not None and r.kind == "step"
    assert r.log_ratio == pytest.approx(math.log((17e-3 - 1e-3) / (10e-3 - 1e-3)))
    # nothing left to fit when they alone take the measured time
    assert residual_of(None, analysis, learned, "g", 0.9e-3) is None


def test_an_adaptation_of_another_bundle_is_not_used_and_says_why():
    path = adaptation_path("host-cpu", local_fingerprint_id())
    _write(path, bundle_digest="other")
    models = load_models("host-cpu")
    found, why = find_adaptation("host-cpu", str(models.kernel_meta["data_digest"]))
    assert found is None and "fitted for another bundle" in why


@pytest.mark.parametrize("change, match", [
    ({"step_factor": "fast"}, "damaged adaptation"),
    ({"step_factor": 1e9}, "outside"),
    ({"version": 99}, "not a stablecost adaptation"),
    ({"origin": "guessed"}, "unknown origin 'guessed'; allowed: adapt, bundle-default"),
])
def test_a_damaged_adaptation_is_a_model_error(tmp_path, change, match):
    path = tmp_path / "a.json"
    _write(path, **change)
    with pytest.raises(ModelError, match=match):
        read_adaptation(path)
    path.write_text("{not json")
    with pytest.raises(ModelError, match="not JSON"):
        read_adaptation(path)


def test_a_bundles_machine_factors_that_are_not_a_mapping_are_a_model_error(tmp_path):
    import shutil

    from stablecost.models.adaptation import MACHINES_FILE, OTHER_MACHINES, _read_bundled
    from stablecost.models.manifest import write_manifest

    folder = tmp_path / OTHER_MACHINES
    shutil.copytree(load_models("host-cpu").path / OTHER_MACHINES, folder)
    (folder / MACHINES_FILE).write_text("[1, 2]")
    write_manifest(folder)
    with pytest.raises(ModelError, match="not a mapping of fingerprint ids to adaptations"):
        _read_bundled(folder)


@pytest.mark.parametrize("argv, match", [
    (["--minutes", "0"], "--minutes 0.0: must be a finite number > 0"),
    (["--minutes", "nan"], "must be a finite number > 0"),
    ([], "not calibrated on this machine"),
])
def test_adapt_refuses_bad_input_in_one_line(argv, match, capsys, tmp_path):
    code = main(["hardware", "adapt", "--no-track", "--data", str(tmp_path / "d"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and match in err and err.count("\n") == 1


def test_adapt_refuses_an_unusable_tracking_store_before_measuring(capsys, tmp_path):
    # MLflow's own file store is refused by MLflow itself: one line, nothing measured
    code = main(["hardware", "adapt", "--data", str(tmp_path / "d"),
                 "--tracking-uri", (tmp_path / "runs").as_uri()])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "--tracking-uri 'file://" in err and "sqlite:///mlflow.db" in err
    assert not (tmp_path / "d").exists()


@pytest.mark.slow
def test_adapt_end_to_end_measures_fits_and_resumes(tmp_path, capsys):
    assert main(["hardware", "calibrate", "--quick"]) == 0
    argv = ["hardware", "adapt", "--minutes", "0.1", "--data", str(tmp_path / "d"),
            "--tracking-uri", f"sqlite:///{tmp_path}/mlflow.db"]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert "adapted on machine" in out.out and "MLflow run" in out.out
    adaptation = read_adaptation(adaptation_path("host-cpu", local_fingerprint_id()))
    assert adaptation is not None and adaptation.samples["kernel"] > 0
    assert main(argv) == 0                       # a second run keeps what was measured
    assert "already measured" in capsys.readouterr().err


def test_the_default_step_factor_is_dropped_only_where_every_held_out_machine_got_worse():
    from stablecost.models.adaptation import OTHER_MACHINES_ID, Adaptation
    from stablecost.train.other_machines import checked_step_factor

    fitted = Adaptation(hardware="host-cpu", fingerprint_id=OTHER_MACHINES_ID,
                        bundle_digest="d", featurizer_version="6", step_factor=1.2,
                        default_kernel_factor=0.9, kernel_factors={"loop": 0.8})
    worse = {"a": {"steps": 10.0, "factor": 1.1, "mape_none": 0.20, "mape_default": 0.25},
             "b": {"steps": 10.0, "factor": 1.3, "mape_none": 0.30, "mape_default": 0.31}}
    kept, why = checked_step_factor(fitted, worse)
    assert kept.step_factor == 1.0 and "x1.200 not shipped" in why and "a 20.0% -> 25.0%" in why
    assert kept.default_kernel_factor == 0.9 and kept.kernel_factors == {"loop": 0.8}
    mixed = dict(worse, b={**worse["b"], "mape_default": 0.29})     # one machine better
    assert checked_step_factor(fitted, mixed) == (fitted, "")
    assert checked_step_factor(fitted, {}) == (fitted, "")           # nothing to check on


def test_a_data_machines_own_step_factor_is_kept_only_where_its_check_came_closer(
        monkeypatch):
    from types import SimpleNamespace

    from stablecost.train import other_machines
    from stablecost.train.other_machines import machine_adaptation

    models = SimpleNamespace(hardware="host-cpu", adaptation_digest="d")
    # every step measured at 0.8x its price: the MAPE-optimal step factor is 0.8
    level = [_residual("step", "step", 0.8, group=f"g{i}") for i in range(40)]
    closer = {"step": {"rows": 10.0, "mape_before": 0.25, "mape_after": 0.05}}
    monkeypatch.setattr(other_machines, "check_errors", lambda rows: closer)
    own, check = machine_adaptation(models, "abc", level)
    assert own.step_factor == pytest.approx(0.8) and own.origin == "bundle-machine"
    assert own.machines == ("abc",) and check == closer
    # the same factor, but adapt's held-out groups came no closer with it: not kept
    further = {"step": {"rows": 10.0, "mape_before": 0.25, "mape_after": 0.30}}
    monkeypatch.setattr(other_machines, "check_errors", lambda rows: further)
    assert machine_adaptation(models, "abc", level)[0].step_factor == 1.0
    # nothing held out to check it on: not kept either
    monkeypatch.setattr(other_machines, "check_errors", lambda rows: {})
    assert machine_adaptation(models, "abc", level)[0].step_factor == 1.0


def test_adapt_pools_its_factors_with_the_bundles_for_a_machine_it_knows():
    """Each factor is the sample-weighted geometric mean of adapt's own and the
    bundle's factor for this machine (hand worked)."""
    from stablecost.train.adapt import pooled_with

    prior = Adaptation(hardware="host-cpu", fingerprint_id="abc", bundle_digest="d",
                       featurizer_version="7", step_factor=0.5, default_kernel_factor=0.8,
                       kernel_factors={"loop": 0.4}, samples={"kernel": 30, "step": 30},
                       origin="bundle-machine")
    residuals = ([_residual("step", "step", 2.0, group=f"s{i}") for i in range(10)]
                 + [_residual("kernel", "matmul", 1.0, group=f"k{i}") for i in range(10)])
    fitted = {"step": 2.0, "default": 1.0, "matmul": 1.0}
    pooled = pooled_with(fitted, residuals, prior)
    # step: 10 samples at 2.0 against 30 at 0.5 -> 2^(1/4) x 0.5^(3/4)
    assert pooled["step"] == pytest.approx(2.0 ** 0.25 * 0.5 ** 0.75)
    assert pooled["default"] == pytest.approx(0.8 ** 0.75)
    assert pooled["matmul"] == pytest.approx(0.8 ** 0.75)   # the bundle's default for it
    # a kind adapt saw no sample of takes the bundle's factor whole
    assert pooled["loop"] == pytest.approx(0.4)
    # with no samples on the bundle's side adapt's own factors stand
    bare = dataclasses.replace(prior, samples={})
    assert pooled_with(fitted, residuals, bare) == pytest.approx(
        {"step": 2.0, "default": 1.0, "matmul": 1.0, "loop": 1.0})


def test_only_a_machine_the_bundles_data_comes_from_has_factors_to_pool_with(monkeypatch):
    from stablecost.models import adaptation
    from stablecost.models.adaptation import (
        MACHINES_FILE,
        OTHER_MACHINES,
        bundled_machine_factors,
    )

    models = load_models("host-cpu")
    machine = sorted(json.loads((models.path / OTHER_MACHINES / MACHINES_FILE).read_text()))[0]
    monkeypatch.setattr(adaptation, "local_fingerprint_id", lambda: machine)
    own = bundled_machine_factors(models.path, models.adaptation_digest)
    assert own is not None and own.fingerprint_id == machine and own.samples["step"] > 0
    assert bundled_machine_factors(models.path, "another bundle") is None
    monkeypatch.setattr(adaptation, "local_fingerprint_id", lambda: NOT_A_DATA_MACHINE)
    assert bundled_machine_factors(models.path, models.adaptation_digest) is None
