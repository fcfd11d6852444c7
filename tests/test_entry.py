"""`entry=` / `--entry`: which public function is the step when a module has several;
without it such a module is refused with the names, never guessed."""

from __future__ import annotations

import subprocess
import sys

import pytest

import stablecost
from stablecost.errors import InvalidArgumentError, UnsupportedProgramError
from stablecost.featurize.analysis import analyze

# @a: 2 adds on 4 elements (8 FLOPs); @b: one multiply (4 FLOPs), calls private @c (4 more)
TWO = """
func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = stablehlo.add %0, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4xf32>
  %1 = func.call @c(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @c(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.subtract %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_several_public_functions_need_entry():
    with pytest.raises(UnsupportedProgramError,
                       match=r"2 public functions \(@a, @b\) and none is @main.*entry=NAME "
                             r"\(CLI: --entry NAME\)"):
        stablecost.load_program(TWO)


def test_entry_chooses_the_step():
    a = analyze(stablecost.load_program(TWO, entry="a"))
    assert [op.opcode for op in a.program.ops] == ["add", "add"] and a.flops == 8
    b = analyze(stablecost.load_program(TWO, entry="@b"))
    assert [op.opcode for op in b.program.ops] == ["multiply", "subtract"] and b.flops == 8
    assert "entry function @b (chosen by entry=)" in b.notes
    assert analyze(TWO, entry="a").flops == 8


def test_entry_other_than_main():
    text = TWO.replace("func.func @a(", "func.func @main(")
    assert [op.opcode for op in stablecost.load_program(text).ops] == ["add", "add"]
    program = stablecost.load_program(text, entry="b")
    assert [op.opcode for op in program.ops] == ["multiply", "subtract"]
    # the measured fidelity compiles what was priced: @b as @main, the old @main kept
    assert "func.func @main(" in program.stablehlo and "@main_0" in program.stablehlo


def test_a_module_given_as_ir_is_not_changed():
    from stablecost.featurize.mlir import parse_module

    module = parse_module(TWO)
    stablecost.load_program(module, entry="b")
    assert "func.func @a(" in str(module) and "func.func @main" not in str(module)


@pytest.mark.parametrize("entry, message", [
    ("nope", r"entry 'nope' is no function of the module; its public functions are @a, @b"),
    ("c", r"entry 'c' is a private function of the module; its public functions are @a, @b"),
    ("", r"entry must be the name of a public function"),
    (3, r"entry must be the name of a public function"),
])
def test_bad_entry_is_a_one_line_error(entry, message):
    with pytest.raises(InvalidArgumentError, match=message):
        stablecost.load_program(TWO, entry=entry)


def test_predict_and_cli_take_entry(tmp_path):
    pa = stablecost.predict(TWO, "H100-SXM", fidelity="roofline", entry="a")
    pb = stablecost.predict(TWO, "H100-SXM", fidelity="roofline", entry="b")
    assert pa.flops == pb.flops == 8
    # the cache keys by entry: each prediction is of its own function
    assert [k.ops for k in pa.kernels] == [("add", "add")]
    assert [sorted(k.ops) for k in pb.kernels] == [["multiply", "subtract"]]
    path = tmp_path / "two.mlir"
    path.write_text(TWO)
    cli = [sys.executable, "-m", "stablecost.serve.cli", "analyze", str(path), "--json"]
    done = subprocess.run(cli + ["--entry", "b"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"multiply"' in done.stdout and '"add"' not in done.stdout
    for extra, message in (([], "--entry NAME"), (["--entry", "zz"], "@a, @b")):
        failed = subprocess.run(cli + extra, capture_output=True, text=True, timeout=120)
        assert failed.returncode != 0 and "Traceback" not in failed.stderr
        assert message in failed.stderr and failed.stderr.count("\n") == 1
