"""Programs with dynamic dimensions (jax.export shape polymorphism) priced at the
shapes the user gives: `shapes=` / `dims=` (CLI `--shape` / `--dim`) refine them with
StableHLO's shape refinement, and the costs equal those of the same function lowered
at the concrete shapes."""

from __future__ import annotations

import subprocess
import sys

import jax
import jax.numpy as jnp
import pytest
from jax import export

import stablecost
from stablecost.errors import InvalidArgumentError, UnsupportedProgramError
from stablecost.featurize.analysis import analyze


def _dense(x, w):
    return jnp.tanh(x @ w) + 1.0


def _conv(x, k):
    y = jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.nn.relu(y)


def _reduce(x, w):
    return jnp.max(x, axis=1) + jnp.sum(x * x, axis=1) @ w


def _scan(x, w):
    def body(carry, _):
        return jnp.tanh(carry @ w) * 2.0, None
    out, _ = jax.lax.scan(body, x, None, length=5)
    return out.mean(axis=0)


# (function, symbolic specs, concrete shapes, dims): one family of ops each
CASES = {
    "dot+elementwise": (_dense, ("b, 64", "64, 32"), ((8, 64), (64, 32)), {"b": 8}),
    "convolution": (_conv, ("b, h, h, 4", "3, 3, 4, 8"), ((2, 16, 16, 4), (3, 3, 4, 8)),
                    {"b": 2, "h": 16}),
    "reduce": (_reduce, ("b, 32", "b"), ((6, 32), (6,)), {"b": 6}),
    "scan/while": (_scan, ("b, 16", "16, 16"), ((4, 16), (16, 16)), {"b": 4}),
}


def _exported(fn, specs):
    scope = export.SymbolicScope()
    args = [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), jnp.float32)
            for s in specs]
    return export.export(jax.jit(fn))(*args)


def _concrete(fn, shapes):
    args = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]
    return analyze(stablecost.load_program(fn, *args))


def _scalar_converts_of_constants(analysis) -> int:
    program = analysis.program
    return sum(1 for op in program.ops if op.opcode == "convert" and not op.results[0].shape
               and program.producers[op.inputs[0]] >= 0
               and program.ops[program.producers[op.inputs[0]]].opcode == "constant")


@pytest.mark.parametrize("case", sorted(CASES))
def test_refined_costs_equal_the_concrete_lowering(case):
    fn, specs, shapes, dims = CASES[case]
    exp = _exported(fn, specs)
    expected = _concrete(fn, shapes)
    data = bytes(exp.serialize())
    by_dims = analyze(stablecost.load_program(data, dims=dims))
    by_shapes = analyze(stablecost.load_program(
        exp.mlir_module(), shapes={f"arg{i}": s for i, s in enumerate(shapes)}))
    for got in (by_dims, by_shapes):
        # a symbolic size used as a value (jnp.mean divides by b) is converted to float
        # at run time in the refined module: one scalar convert of a constant, where
        # the concrete lowering has the constant 4.0 itself
        folded = _scalar_converts_of_constants(got)
        assert got.flops == expected.flops + folded > 0
        assert got.transcendentals == expected.transcendentals
        assert got.bytes_accessed == expected.bytes_accessed + folded * (4 + 4)
    assert any(n.startswith("dynamic shapes refined to arg0 = ") for n in by_dims.notes)


def test_hand_worked_refinement():
    # f(x: ?x128, w: 128x64) = x @ w at b = 8: 2 x 8 x 64 x 128 = 131072 FLOPs
    exp = _exported(lambda x, w: x @ w, ("b, 128", "128, 64"))
    a = analyze(stablecost.load_program(bytes(exp.serialize()), dims={"b": 8}))
    assert a.flops == 2 * 8 * 64 * 128
    # bytes: x 8*128*4 + w 128*64*4 + out 8*64*4
    assert a.bytes_accessed == 4 * (8 * 128 + 128 * 64 + 8 * 64)


def test_without_shapes_the_error_names_arguments_and_dims():
    exp = _exported(_dense, ("b, 64", "64, 32"))
    with pytest.raises(UnsupportedProgramError,
                       match=r"dynamic shapes: give static shapes for arg0 "
                             r"\(tensor<\?x64xf32>; dims b\).*--shape arg0=8x128.*"
                             r"dims=\{'b': \.\.\.\} \(--dim b=N\)"):
        stablecost.load_program(bytes(exp.serialize()))


@pytest.mark.parametrize("kwargs, message", [
    ({"dims": {"c": 3}}, r"dims c are not symbolic dimensions of the program \(it has b\)"),
    ({"shapes": {"arg0": (8, 32)}}, r"shape 8x32 for arg0 does not fit its type "
                                    r"tensor<\?x64xf32>"),
    ({"shapes": {"arg5": (8, 64)}}, r"shapes for arg5, but the entry function has 2"),
    ({"shapes": {"x": (8, 64)}}, r"shapes key 'x': name an argument .* 'arg0'"),
    ({"shapes": {"arg0": "8xq"}}, r"shape of arg0 '8xq': give sizes joined by 'x'"),
    ({"dims": {"b": -1}}, r"dims must map symbolic dimension names to sizes >= 0"),
    ({"dims": {"b": 0}}, r"shape refinement at arg0 = 0x64 failed: .*Expected value >= 1 "
                         r"for dimension variable 'b'"),
])
def test_bad_shapes_and_dims_are_one_line_errors(kwargs, message):
    exp = _exported(_dense, ("b, 64", "64, 32"))
    with pytest.raises(InvalidArgumentError, match=message) as info:
        stablecost.load_program(bytes(exp.serialize()), **kwargs)
    assert "\n" not in str(info.value)


def test_hand_written_dynamic_module_takes_shapes():
    text = """
func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.abs %a : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
"""
    a = analyze(stablecost.load_program(text, shapes={"arg0": "3x4"}))
    assert a.flops == 12   # one abs per element, 3 x 4
    assert [str(t) for t in a.program.ops[0].results] == ["3x4xf32"]


def test_predict_and_cli_take_shapes(tmp_path):
    exp = _exported(_dense, ("b, 64", "64, 32"))
    path = tmp_path / "dense.jexp"
    path.write_bytes(bytes(exp.serialize()))
    p8 = stablecost.predict(str(path), "H100-SXM", fidelity="roofline", dims={"b": 8})
    p64 = stablecost.predict(str(path), "H100-SXM", fidelity="roofline", dims={"b": 64})
    assert p64.step_time_s > p8.step_time_s   # the cache keys by the shapes too
    cli = [sys.executable, "-m", "stablecost.serve.cli", "analyze", str(path), "--json"]
    done = subprocess.run(cli + ["--dim", "b=8"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"flops": %d' % (2 * 8 * 32 * 64 + 8 * 32) in done.stdout
    done = subprocess.run(cli + ["--shape", "arg0=8x64"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    failed = subprocess.run(cli, capture_output=True, text=True, timeout=120)
    assert failed.returncode != 0
    assert "Traceback" not in failed.stderr
    assert "--dim b=N" in failed.stderr


def test_predict_many_candidates_take_dims():
    exp = _exported(_dense, ("b, 64", "64, 32"))
    data = bytes(exp.serialize())
    out = stablecost.predict_many([{"program": data, "dims": {"b": b}} for b in (8, 512)],
                                  hardware="H100-SXM", fidelity="roofline")
    assert out[0].flops == 2 * 8 * 32 * 64 + 8 * 32
    assert out[1].flops == 2 * 512 * 32 * 64 + 512 * 32


def test_dimensions_derived_by_shape_assertions():
    # y's first dimension is 2*b: jax's shape assertion in @main says so, and with b = 3
    # it is 6. concatenate is data movement; the add is 6 x 4 = 24 FLOPs
    exp = _exported(lambda x, y: jnp.concatenate([x, x], axis=0) + y, ("b, 4", "2*b, 4"))
    data = bytes(exp.serialize())
    a = analyze(stablecost.load_program(data, dims={"b": 3}))
    assert a.flops == 6 * 4
    assert "dynamic shapes refined to arg0 = 3x4, arg1 = 6x4 (b=3)" in a.notes
    with pytest.raises(UnsupportedProgramError,
                       match=r"arg0 \(tensor<\?x4xf32>; dims b\), arg1 \(tensor<\?x4xf32>; "
                             r"dims b\)"):
        stablecost.load_program(data)
    with pytest.raises(InvalidArgumentError, match=r"shape refinement at arg0 = 3x4, "
                                                   r"arg1 = 8x4 failed"):
        stablecost.load_program(data, dims={"b": 3}, shapes={"arg1": (8, 4)})
