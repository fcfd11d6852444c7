"""Hardware catalog, roofline arithmetic, the CLI's output and its errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import stablecost
from stablecost.errors import HardwareSpecError, UnknownHardwareError
from stablecost.hardware import catalog_names, get_hardware, list_hardware, parse_spec
from stablecost.hardware.spec import RATED_TRANSCENDENTALS
from stablecost.serve.cli import main

CHIPS = ["H100-SXM", "H200-SXM", "B200", "A100-SXM-40GB", "A100-SXM-80GB", "V100-SXM2",
         "L4", "T4", "MI300X", "TPU-v3", "TPU-v4", "TPU-v5e", "TPU-v5p"]


def test_catalog_has_every_chip_with_sources():
    chips = {hw.name: hw for hw in list_hardware()}
    assert set(CHIPS) <= set(chips)
    for name in CHIPS:
        hw = chips[name]
        assert hw.sources and all(s["url"].startswith("https://") for s in hw.sources)
        assert hw.matmul_flops_per_s["f16"] > hw.vector_flops_per_s["f32"]
    assert get_hardware("h100").name == "H100-SXM"


def test_f32_promotion_and_highest_precision():
    h100 = get_hardware("H100-SXM")
    assert h100.matmul_peak_flops_per_s("f32") == h100.matmul_flops_per_s["tf32"]
    assert h100.matmul_peak_flops_per_s("f32", "HIGHEST") == h100.matmul_flops_per_s["f32"]
    v100 = get_hardware("V100-SXM2")
    assert v100.matmul_peak_flops_per_s("f32") == v100.matmul_flops_per_s["f32"]
    # XLA on ROCm keeps f32 dots in f32 (its xf32 path is opt-in): 163 TF, not 654
    mi300x = get_hardware("MI300X")
    assert mi300x.matmul_peak_flops_per_s("f32") == mi300x.matmul_flops_per_s["f32"] == 1.634e14


def test_unknown_hardware_lists_valid_names():
    with pytest.raises(UnknownHardwareError, match="valid names: .*H100-SXM.*TPU-v5p"):
        get_hardware("H1000")
    with pytest.raises(UnknownHardwareError, match="not calibrated.*calibrate"):
        get_hardware("host-cpu")
    assert "host-cpu" in catalog_names()


def test_spec_validation_names_the_problem():
    with pytest.raises(HardwareSpecError, match="unknown keys \\['colour'\\]"):
        parse_spec({"colour": "red"}, "x.toml")


def test_roofline_hand_worked_on_h100():
    # 4096^3 bf16 matmul: 2*4096^3 = 1.374e11 FLOPs / 9.895e14 = 138.9 us compute;
    # bytes 3 * 32 MiB = 1.007e8 / 3.35e12 = 30.0 us memory -> compute bound,
    # plus the 4 us launch overhead.
    text = """
func.func @main(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}
"""
    # the arithmetic of the roofline itself (the default on H100 is the learned GPU model)
    p = stablecost.predict(text, hardware="H100-SXM", fidelity="roofline")
    hw = get_hardware("H100-SXM")
    compute = 2 * 4096 ** 3 / hw.matmul_flops_per_s["bf16"]
    assert p.kernels[0].bound == "compute"
    assert p.step_time_s == pytest.approx(compute + hw.launch_overhead_s, rel=1e-9)
    assert p.communication_s == 0.0
    d = p.to_dict()
    assert set(d) >= {"step_time_s", "compute_s", "communication_s", "kernels", "notes"}


def test_calibrate_quick_writes_host_cpu(tmp_path):
    from stablecost.hardware.calibrate import calibrate_host_cpu

    path, spec = calibrate_host_cpu(quick=True)
    assert Path(path).is_file() and str(path).startswith(str(tmp_path))
    hw = get_hardware("host-cpu")
    assert hw.kind == "cpu" and hw.matmul_flops_per_s["f32"] > 1e8
    assert hw.memory_bandwidth_bytes_per_s > 1e8
    assert hw.on_chip_cache_bytes and hw.on_chip_cache_bytes >= 1 << 20   # the LLC, from sysfs
    # a loop-nest convolution runs far below the library's matmul rate (2 FLOPs a MAC)
    assert 1e6 < hw.loop_convolution_macs_per_s < hw.matmul_flops_per_s["f32"] / 2
    # a depthwise 3x3 convolution: nine multiply-adds per unit, far below the matmul rate
    assert 1e5 < 9 * hw.grouped_convolution_units_per_s < hw.matmul_flops_per_s["f32"] / 2
    # a fresh page costs under a millisecond (next to nothing where the allocator reuses)
    assert 0 < hw.fresh_page_s < 1e-3
    # every probed transcendental has its own rate, and they are far apart
    by_op = hw.transcendentals_per_s_by_op
    assert set(by_op) == set(RATED_TRANSCENDENTALS)
    assert by_op["atan2"] < by_op["exponential"] / 2
    assert stablecost.predict("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                              "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n"
                              "  return %0 : tensor<4xf32>\n}", "host-cpu").step_time_s > 0


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "stablecost.serve.cli", *args],
                          input=stdin, capture_output=True, timeout=300)


def test_cli_predict_json_has_prediction_keys(examples_dir):
    prog = examples_dir / "mlp_train_step.mlir"
    r = _cli("predict", str(prog), "--hardware", "H100-SXM", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    expected = stablecost.predict(prog, "H100-SXM").to_dict()
    assert set(data) == set(expected)
    assert data["step_time_s"] == pytest.approx(expected["step_time_s"])


def test_cli_stdin_and_human_tables(examples_dir):
    text = (examples_dir / "mlp_train_step.mlir").read_bytes()
    r = _cli("predict", "-", "--hardware", "H100-SXM,TPU-v5p,MI300X", stdin=text)
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    for chip in ("H100-SXM", "TPU-v5p", "MI300X"):
        assert chip in out
    assert "top 10 kernels" in out and "dot_general" in out
    r = _cli("analyze", "-", stdin=text)
    assert r.returncode == 0 and b"per opcode" in r.stdout


@pytest.mark.parametrize("args,message", [
    (("predict", "missing.mlir", "--hardware", "H100-SXM"), b"program file not found"),
    (("predict", "{dir}", "--hardware", "H100-SXM"), b"is a directory (give a .mlir"),
    (("predict", "{prog}", "--hardware", "H1000"), b"unknown hardware 'H1000'; valid names"),
    (("predict", "{prog}", "--hardware", "H100-SXM", "--fidelity", "magic"),
     b"unknown fidelity 'magic'; allowed: auto, roofline, learned, measured, all, "
     b"all+measured"),
    (("hardware", "show", "nope"), b"unknown hardware 'nope'"),
    (("frobnicate",), b"invalid choice"),
])
def test_cli_user_errors_are_one_line_exit_2(args, message, examples_dir):
    prog = str(examples_dir / "mlp_train_step.mlir")
    r = _cli(*[a.replace("{prog}", prog).replace("{dir}", str(examples_dir)) for a in args])
    assert r.returncode == 2
    assert message in r.stderr
    assert b"Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_cli_malformed_program_from_stdin():
    r = _cli("analyze", "-", stdin=b"func.func @main( {\n")
    assert r.returncode == 2
    assert r.stderr.startswith(b"stablecost: error: <stdin>:1:")
    assert b"Traceback" not in r.stderr


def test_cli_empty_and_unreadable_programs_are_user_errors(tmp_path, monkeypatch):
    from stablecost.errors import InvalidArgumentError
    from stablecost.featurize.program_files import read_program_file

    r = _cli("predict", "-", "--hardware", "H100-SXM", stdin=b"  \n")
    assert r.returncode == 2 and b"the program on stdin is empty" in r.stderr
    empty = tmp_path / "empty.mlir"
    empty.write_text("")
    with pytest.raises(InvalidArgumentError, match="is empty"):
        stablecost.load_program(str(empty))
    locked = tmp_path / "locked.mlir"
    locked.write_text("x")

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(type(locked), "open", refuse)
    with pytest.raises(InvalidArgumentError, match="cannot read program file .*Permission denied"):
        read_program_file(locked, "a path")


def test_a_closed_pipe_ends_the_cli_quietly(monkeypatch):
    """`stablecost predict ... | head`: rich's default exits 1 when the reader goes."""
    from stablecost.serve.cli import console

    monkeypatch.setattr(console.os, "dup2", lambda *a: None)
    with pytest.raises(SystemExit) as exc:
        console.make_console().on_broken_pipe()
    assert exc.value.code == 0


@pytest.mark.parametrize("change, match", [
    ({"memory_bandwidth_bytes_per_s": 0}, "memory_bandwidth_bytes_per_s must be a positive"),
    ({"matmul_flops_per_s": {}}, "matmul_flops_per_s must map at least"),
    ({"transcendentals_per_s": "1e12"}, "transcendentals_per_s must be a positive"),
    ({"launch_overhead_s": -1.0}, "launch_overhead_s must be a number >= 0"),
    ({"vector_flops_per_s": {"f32": float("nan"), "bf16": 1.0, "f16": 1.0}}, "not positive"),
])
def test_a_hardware_built_in_python_is_checked_like_a_catalog_file(change, match):
    import dataclasses

    with pytest.raises(stablecost.errors.HardwareSpecError, match=match):
        dataclasses.replace(stablecost.get_hardware("H100-SXM"), **change)


def test_hardware_rates_are_read_only_and_replace_does_not_touch_the_catalog():
    import dataclasses
    import pickle

    h100 = stablecost.get_hardware("H100-SXM")
    copy = dataclasses.replace(h100)
    with pytest.raises(TypeError, match="read-only"):
        copy.matmul_flops_per_s["bf16"] = 1.0
    assert stablecost.get_hardware("H100-SXM").matmul_flops_per_s["bf16"] > 1e14
    assert pickle.loads(pickle.dumps(h100)) == h100


def test_the_checkout_runs_as_a_program_without_installing(tmp_path):
    """`python3 CHECKOUT collect ...` is how a GPU machine without the full install runs
    the collector: the directory itself is the package."""
    import subprocess
    import sys
    from pathlib import Path

    checkout = Path(stablecost.__file__).resolve().parent
    done = subprocess.run([sys.executable, str(checkout), "hardware", "show", "H100",
                           "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"name": "H100-SXM"' in done.stdout


def test_json_into_a_closed_pipe_ends_quietly(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(f"{sys.executable} -m stablecost hardware list --json | head -c 10",
                          shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == ""


def test_calibration_rounds_keep_medians_and_record_their_spread():
    from stablecost.hardware.calibrate import combine_rounds

    rates, spread = combine_rounds([{"bandwidth": 4.0, "dispatch": 1.0},
                                    {"bandwidth": 5.0, "dispatch": 1.0},
                                    {"bandwidth": 6.0, "dispatch": 1.0}])
    assert rates == {"bandwidth": 5.0, "dispatch": 1.0}
    assert spread == {"bandwidth": pytest.approx(0.4), "dispatch": 0.0}   # (6 - 4) / 5


def test_calibrate_records_rounds_spread_and_fingerprint(tmp_path):
    from stablecost.hardware.calibrate import calibrate_host_cpu

    _, spec = calibrate_host_cpu(quick=True, rounds=2)
    measured = get_hardware("host-cpu").measured
    assert measured["rounds"] == 2 and set(measured["spread"]) >= {"bandwidth", "matmul_f32"}
    assert measured["fingerprint"]["cpu_isa"] == spec["measured"]["fingerprint"]["cpu_isa"]


def test_calibrate_refuses_zero_rounds(capsys):
    assert main(["hardware", "calibrate", "--rounds", "0"]) == 2
    assert "--rounds 0: must be >= 1" in capsys.readouterr().err
