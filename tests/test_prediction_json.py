"""The JSON of a prediction (CLI `--json`, HTTP body) is a contract: its keys are pinned
here, old names included, so a rename is a decision and not an accident."""

import pytest

import stablecost

TOP_KEYS = [
    "program_name", "hardware", "fidelity", "step_time_s", "step_time_low_s",
    "step_time_high_s", "compute_s", "communication_s",
    "exposed_communication_s", "overhead_s", "flops", "fused_bytes_accessed",
    "peak_memory_bytes", "memory_capacity_bytes", "fits", "memory", "mesh",
    "num_devices", "topology", "overlap", "kernels", "collectives", "critical_path",
    "by_fidelity", "notes", "model", "featurizer_version",
    # aliases of program_name and fused_bytes_accessed, kept until 0.2.0
    "program", "bytes_accessed",
]
KERNEL_KEYS = ["index", "kind", "ops", "location", "count", "flops", "bytes_accessed",
               "time_s", "total_time_s", "compute_s", "memory_s", "bound", "time_low_s",
               "time_high_s"]
FIDELITY_KEYS = ["step_time_s", "compute_s", "communication_s", "exposed_communication_s"]


def test_prediction_keys_are_pinned(examples_dir):
    p = stablecost.predict(examples_dir / "mlp_train_step.mlir", "H100-SXM", fidelity="all")
    d = p.to_dict()
    assert list(d) == TOP_KEYS
    assert list(d["kernels"][0]) == KERNEL_KEYS
    assert all(list(v) == FIDELITY_KEYS for v in d["by_fidelity"].values())
    assert d["program"] == d["program_name"] == p.program_name
    assert d["bytes_accessed"] == d["fused_bytes_accessed"]
    assert d["featurizer_version"] == stablecost.featurize.program.FEATURIZER_VERSION


def test_a_learned_prediction_names_its_model(examples_dir):
    p = stablecost.predict(examples_dir / "mlp_train_step.mlir", "host-cpu",
                           fidelity="learned")
    assert p.model.startswith("host-cpu") and "kernel data" in p.model
    roofline = stablecost.predict(examples_dir / "mlp_train_step.mlir", "H100-SXM",
                                  fidelity="roofline")
    assert roofline.model == ""


def test_an_unknown_fidelity_lists_the_registered_ones(examples_dir):
    with pytest.raises(stablecost.errors.InvalidArgumentError,
                       match="allowed: auto, roofline, learned, measured, all, all\\+measured"):
        stablecost.predict(examples_dir / "mlp_train_step.mlir", "H100-SXM", fidelity="x")


def test_a_registered_cost_model_is_a_fidelity(examples_dir, monkeypatch):
    """A new fidelity is a class with name/covers/estimate: predict prices the step with
    it, lists it among the allowed names, and `all` shows it beside the others."""
    from stablecost.models import cost_model

    class Doubled:
        name = "doubled"

        def covers(self, hw):
            return True

        def estimate(self, analysis, hw, roofline):
            return cost_model.KernelEstimate(time_s=[2 * t.time_s for t in roofline])

    monkeypatch.setattr(cost_model, "_REGISTRY", dict(cost_model._REGISTRY))
    cost_model.register(Doubled())
    program = examples_dir / "mlp_train_step.mlir"
    base = stablecost.predict(program, "H100-SXM", fidelity="roofline")
    doubled = stablecost.predict(program, "H100-SXM", fidelity="doubled")
    assert doubled.fidelity == "doubled"
    assert doubled.compute_s == pytest.approx(2 * base.compute_s, rel=1e-9)
    assert "doubled" in stablecost.predict(program, "H100-SXM", fidelity="all").by_fidelity
    with pytest.raises(stablecost.errors.InvalidArgumentError, match="not a cost model"):
        cost_model.register(object())
