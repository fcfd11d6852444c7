"""A step measured on one chip, carried to another (`serve/api/carry.py`, `predict
--measured-on`)."""

from __future__ import annotations

import json

import pytest

import stablecost
from stablecost.errors import InvalidArgumentError
from stablecost.serve.cli import main

# 1024^3 x 2 = 2.1 GFLOP of f32 GEMM feeding a tanh: two kernels on any chip
GEMM_TANH = """
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = stablehlo.tanh %0 : tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}"""


def test_a_carried_step_is_the_measurement_times_the_ratio_of_predictions():
    analysis = stablecost.analyze(GEMM_TANH)
    here = stablecost.predict(analysis, "H200-SXM", "roofline")
    there = stablecost.predict(analysis, "A100-SXM-80GB", "roofline")
    carried = stablecost.carry_over(analysis, "H200-SXM", "A100-SXM-80GB", 2e-3,
                                    "roofline")
    factor = 2e-3 / there.step_time_s
    assert carried.step_time_s == pytest.approx(2e-3 * here.step_time_s / there.step_time_s)
    assert carried.hardware == "H200-SXM" and carried.fidelity == "roofline"
    # the breakdown is scaled with the step, so it still adds up
    assert carried.compute_s == pytest.approx(here.compute_s * factor)
    assert sum(k.total_time_s for k in carried.kernels) == pytest.approx(
        sum(k.total_time_s for k in here.kernels) * factor)
    assert [k.flops for k in carried.kernels] == [k.flops for k in here.kernels]
    assert "carried from a step measured on A100-SXM-80GB" in carried.notes[-1]
    # on the chip it was measured on, the carried step is the measurement itself
    same = stablecost.carry_over(analysis, "A100-SXM-80GB", "A100-SXM-80GB", 2e-3,
                                 "roofline")
    assert same.step_time_s == pytest.approx(2e-3)


@pytest.mark.parametrize("kwargs, match", [
    ({"measured_on": "TPU-v5p"}, r"TPU-v5p \(tpu\) cannot be carried to H200-SXM \(gpu\)"),
    ({"measured_s": -1.0}, "positive number of seconds, got -1.0"),
    ({"measured_s": float("nan")}, "positive number of seconds"),
    ({"fidelity": "all"}, "goes with fidelity auto, learned, roofline; got 'all'"),
])
def test_carrying_refuses_what_it_cannot_carry(kwargs, match):
    args = {"measured_on": "H100-SXM", "measured_s": 1e-3, "fidelity": "roofline", **kwargs}
    with pytest.raises(InvalidArgumentError, match=match):
        stablecost.carry_over(GEMM_TANH, "H200-SXM", **args)


def test_the_cli_carries_a_measured_step(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STABLECOST_CACHE_DIR", str(tmp_path / "cache"))
    program = tmp_path / "gemm.mlir"
    program.write_text(GEMM_TANH)
    assert main(["predict", str(program), "--hardware", "H200-SXM", "--fidelity", "roofline",
                 "--measured-on", "H100-SXM=250us", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = stablecost.carry_over(GEMM_TANH, "H200-SXM", "H100-SXM", 250e-6, "roofline")
    assert got["step_time_s"] == pytest.approx(want.step_time_s)
    # the answer cache keys on --measured-on: another time is another answer
    assert main(["predict", str(program), "--hardware", "H200-SXM", "--fidelity", "roofline",
                 "--measured-on", "H100-SXM=0.5ms", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["step_time_s"] == pytest.approx(2 * want.step_time_s)


@pytest.mark.parametrize("value", ["H100-SXM", "=3ms", "H100-SXM=3min", "H100-SXM=-1s",
                                   "H100-SXM=inf"])
def test_the_cli_names_a_bad_measured_step(tmp_path, capsys, value):
    program = tmp_path / "gemm.mlir"
    program.write_text(GEMM_TANH)
    code = main(["predict", str(program), "--hardware", "H200-SXM",
                 "--measured-on", value])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert f"--measured-on {value!r}: give CHIP=TIME" in err
