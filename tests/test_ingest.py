"""Ingestion: every input form, regions, calls, loops, and the errors users see."""

import jax
import jax.numpy as jnp
import pytest

import stablecost
from stablecost.errors import InvalidArgumentError, ProgramParseError, UnsupportedProgramError
from stablecost.featurize.mlir import context

ADD = """
func.func @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.add %a, %b : tensor<4x8xf32>
  %1 = stablehlo.tanh %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
"""


def test_pretty_text_ops_types_and_edges():
    p = stablecost.load_program(ADD)
    assert [op.opcode for op in p.ops] == ["add", "tanh"]
    add, tanh = p.ops
    assert add.operands[0].shape == (4, 8) and add.operands[0].dtype == "f32"
    assert add.results[0].nbytes == 4 * 8 * 4
    assert p.edges() == [(0, 1)]
    assert tanh.outputs[0] in p.escaping


def test_generic_form_and_bytecode_give_the_same_program(tmp_path):
    ir = stablecost.featurize.mlir.bindings()[0]
    with context():
        module = ir.Module.parse(ADD)
        generic = module.operation.get_asm(print_generic_op_form=True)
        path = tmp_path / "p.mlirbc"
        with open(path, "wb") as f:
            module.operation.write_bytecode(f)
    assert '"stablehlo.add"' in generic
    for source in (generic, path, path.read_bytes()):
        p = stablecost.load_program(source)
        assert [op.opcode for op in p.ops] == ["add", "tanh"]
        assert stablecost.analyze(p).flops == 32


def test_locations_and_loc_aliases():
    text = """
#loc1 = loc("model.py":12:3)
#loc2 = loc("jit(f)/add"(#loc1))
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32> loc(#loc2)
  return %0 : tensor<2xf32>
}
"""
    p = stablecost.load_program(text)
    assert p.ops[0].location == "jit(f)/add @ model.py:12:3"


def test_elided_constants_load():
    text = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
  %0 = stablehlo.multiply %a, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    p = stablecost.load_program(text)
    assert p.ops[0].opcode == "constant" and p.ops[0].attributes["value"] is None
    assert stablecost.analyze(p).flops == 4


def test_function_called_twice_costs_twice():
    text = """
func.func private @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
func.func @main(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = func.call @f(%a) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = func.call @f(%0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
"""
    p = stablecost.load_program(text)
    assert [op.opcode for op in p.ops] == ["dot_general", "dot_general"]
    # 2 calls x 2*8*8*8 = 2048
    assert stablecost.analyze(p).flops == 2048
    # the second call consumes the first call's result through the call boundary
    # (one edge per operand: %x is used twice)
    assert p.edges() == [(0, 1), (0, 1)]


def _lowered_text(fn, *args):
    return jax.jit(fn).lower(*args).as_text()


def test_fori_loop_trip_count_is_derived():
    def f(x, w):
        return jax.lax.fori_loop(3, 10, lambda i, c: jnp.tanh(c @ w), x)

    x, w = jnp.ones((4, 16)), jnp.ones((16, 16))
    p = stablecost.load_program(_lowered_text(f, x, w))
    assert [(l.trip_count, l.derived) for l in p.loops] == [(7, True)]
    dot = next(op for op in p.ops if op.opcode == "dot_general")
    assert dot.count == 7
    # 7 iterations x 2*4*16*16 (=2048) = 14336 dot FLOPs
    assert stablecost.analyze(p).per_opcode["dot_general"].flops == 14336


def test_scan_trip_count_and_nested_loops():
    def f(x):
        def outer(c, _):
            c = jax.lax.fori_loop(0, 5, lambda i, v: v * 2.0, c)
            return c, None
        return jax.lax.scan(outer, x, None, length=4)[0]

    p = stablecost.load_program(_lowered_text(f, jnp.ones((8,))))
    assert sorted(l.trip_count for l in p.loops) == [4, 5]
    mul = next(op for op in p.ops if op.opcode == "multiply")
    assert mul.count == 20


def test_values_carried_by_a_loop_are_not_their_initial_constants():
    """`acc + xs[i]` with acc starting at zeros is real work in every iteration: the
    body's acc is the previous iteration's sum, not the constant it started from."""
    def f(xs):
        return jax.lax.fori_loop(0, 10, lambda i, acc: acc + xs[i], jnp.zeros(1000))

    a = stablecost.analyze(stablecost.load_program(_lowered_text(f, jnp.ones((10, 1000)))))
    big_add = next(c for op, c in zip(a.program.ops, a.costs)
                   if op.opcode == "add" and op.results[0].shape == (1000,))
    assert big_add.flops == 1000 and a.per_opcode["add"].flops >= 10 * 1000


@pytest.mark.parametrize("inner, runs, mean", [
    (lambda i, body, c: jax.lax.fori_loop(0, i, body, c), 0 + 1 + 2 + 3 + 4, 2),
    (lambda i, body, c: jax.lax.fori_loop(i, 5, body, c), 5 + 4 + 3 + 2 + 1, 3),
    (lambda i, body, c: jax.lax.fori_loop(0, i + 1, body, c), 1 + 2 + 3 + 4 + 5, 3),
    (lambda i, body, c: jax.lax.fori_loop(0, 4 - i, body, c), 4 + 3 + 2 + 1 + 0, 2),
])
def test_loop_bounded_by_the_enclosing_loops_counter_runs_the_exact_total(inner, runs, mean):
    """A triangular loop nest: the inner trip count is the mean over the outer
    iterations (a derived count, explained in the notes), so the matmul's count is
    the exact number of times it runs."""
    def f(c):
        return jax.lax.fori_loop(0, 5, lambda i, c: inner(i, lambda j, v: v @ v, c), c)

    p = stablecost.load_program(_lowered_text(f, jnp.ones((8, 8))))
    assert [(l.trip_count, l.derived) for l in p.loops] == [(5, True), (mean, True)]
    assert next(op for op in p.ops if op.opcode == "dot_general").count == runs
    assert any("enclosing loop's counter" in n for n in p.notes)


def test_while_with_data_dependent_trip_count_is_flagged():
    def f(x):
        return jax.lax.while_loop(lambda c: c.sum() < 100.0, lambda c: c * 2.0, x)

    p = stablecost.load_program(_lowered_text(f, jnp.ones((8,))))
    assert len(p.loops) == 1 and not p.loops[0].derived and p.loops[0].trip_count == 1
    assert any("assumed to run once" in n for n in p.notes)
    assert any("assumed" in n for n in stablecost.analyze(p).to_dict()["notes"])


def test_a_loop_that_stops_early_is_priced_at_its_counter_bound():
    """`while i < 24 and not converged`: at most 24 iterations, priced at 24 and said
    so; an AND whose compares hold no counter bound stays assumed to run once."""
    def solve(x):
        def cond(state):
            i, v, residual = state
            return (i < 24) & (residual > 1e-3)

        def body(state):
            i, v, _ = state
            new = jnp.tanh(v @ v)
            return i + 1, new, jnp.abs(new - v).max()
        return jax.lax.while_loop(cond, body, (0, x, jnp.float32(1.0)))[1]

    p = stablecost.load_program(_lowered_text(solve, jnp.ones((8, 8))))
    assert [(l.trip_count, l.derived, l.exits_early) for l in p.loops] == [(24, True, True)]
    dot = next(op for op in p.ops if op.opcode == "dot_general")
    assert dot.count == 24
    first, last = p.loops[0].blocks
    assert first <= dot.block <= last
    assert all(not first <= op.block <= last for op in p.ops if op.count == 1)
    assert any("at most 24 iterations" in n for n in p.notes)

    def data_only(x):
        return jax.lax.while_loop(lambda c: (c.sum() < 100.0) & (c.max() < 50.0),
                                  lambda c: c * 2.0, x)

    p = stablecost.load_program(_lowered_text(data_only, jnp.ones((8,))))
    assert [(l.trip_count, l.derived) for l in p.loops] == [(1, False)]
    assert any("none a counter against a constant bound" in n for n in p.notes)


def test_jax_function_and_lowered_inputs():
    f = lambda x: jnp.sin(x) @ x.T
    x = jnp.ones((4, 4))
    a = stablecost.load_program(jax.jit(f), x)
    b = stablecost.load_program(jax.jit(f).lower(x))
    c = stablecost.load_program(f, x)
    assert [op.opcode for op in a.ops] == [op.opcode for op in b.ops] == \
        [op.opcode for op in c.ops]


def test_cond_branches_are_weighted():
    def f(p, x):
        return jax.lax.cond(p, lambda v: v @ v, lambda v: v, x)

    p = stablecost.load_program(_lowered_text(f, True, jnp.ones((8, 8))))
    dot = next(op for op in p.ops if op.opcode == "dot_general")
    assert dot.count == 0.5
    assert any("branches" in n for n in p.notes)


def test_malformed_mlir_names_line_and_column(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  %0 = stablehlo.add %a, %b : tensor<4xf32>\n"
                   "  return %0 : tensor<4xf32>\n}\n")
    with pytest.raises(ProgramParseError, match=r"bad\.mlir:2:\d+: .*undeclared SSA value"):
        stablecost.load_program(bad)


def test_dynamic_shapes_without_shapes_name_the_arguments():
    text = """
func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.abs %a : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
"""
    with pytest.raises(UnsupportedProgramError,
                       match=r"dynamic shapes: give static shapes for arg0 \(tensor<\?x4xf32>\) "
                             r"with shapes=.*--shape arg0=8x128"):
        stablecost.load_program(text)
    # a dynamic type inside a static program is still refused with the op named
    inner = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.abs %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
    assert len(stablecost.load_program(inner).ops) == 1


def test_quantized_programs_load_as_their_integer_storage():
    text = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.uniform_quantize %a : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""
    assert [op.opcode for op in stablecost.load_program(text).ops] == [
        "uniform_quantize", "uniform_dequantize"]


def test_missing_file_and_bad_types():
    with pytest.raises(InvalidArgumentError, match="program file not found: 'nope.mlir'"):
        stablecost.load_program("nope.mlir")
    with pytest.raises(InvalidArgumentError, match="cannot load a program from int"):
        stablecost.load_program(42)
    with pytest.raises(ProgramParseError, match="neither MLIR bytecode"):
        stablecost.load_program(b"\xff\xfe\x00garbage")


def test_attributes_are_decoded():
    text = """
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = "stablehlo.all_reduce"(%0) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %1 : tensor<2x3x5xf32>
}
"""
    p = stablecost.load_program(text)
    dot, ar = p.ops
    assert dot.attributes["dot_dimension_numbers"] == {
        "lhs_batching_dimensions": [0], "rhs_batching_dimensions": [0],
        "lhs_contracting_dimensions": [2], "rhs_contracting_dimensions": [1]}
    assert dot.attributes["precision_config"] == ["DEFAULT", "HIGHEST"]
    assert ar.attributes["replica_groups"] == [[0, 1], [2, 3]]
    assert ar.attributes["channel_handle"] == {"handle": 1, "type": 1}
    assert ar.attributes["body_flops"] == 1


def test_pipeline_leaves_no_cyclic_garbage_and_restores_the_collector(examples_dir):
    """load/analyze pause the cyclic GC for speed: they must not build
    reference cycles (nothing would free them until the next collection) and must
    leave the collector as they found it."""
    import gc

    source = (examples_dir / "transformer_block_train_step.mlir").read_text()

    def pipeline():
        return stablecost.predict(stablecost.analyze(stablecost.load_program(source)),
                                  "H100-SXM", fidelity="roofline",
                                  cache=stablecost.serve.api.ProgramCache())

    import types
    from pathlib import Path

    package = str(Path(stablecost.__file__).resolve().parent)

    def ours(obj) -> bool:
        """An object the pipeline made: an instance of a stablecost type, or a function,
        frame or code object of stablecost's source. Threads that earlier tests left
        running (HTTP servers, MLflow) may drop cycles of their own meanwhile."""
        if isinstance(obj, types.FrameType):
            obj = obj.f_code
        if isinstance(obj, types.FunctionType):
            obj = obj.__code__
        if isinstance(obj, types.CodeType):
            return str(Path(obj.co_filename).resolve()).startswith(package)
        return type(obj).__module__.startswith("stablecost")

    assert gc.isenabled()
    pipeline()
    assert gc.isenabled()
    gc.collect()
    gc.disable()          # a caller's choice is kept, and no collection hides cycles
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        pipeline()
        assert not gc.isenabled()
        gc.collect()
        leaked = [obj for obj in gc.garbage if ours(obj)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert leaked == [], [type(obj).__name__ for obj in leaked[:10]]


def test_an_hlo_converted_module_parses_in_a_fresh_process(tmp_path):
    """Modules converted back from XLA's HLO hold mhlo ops; the mhlo dialect is
    registered on demand, whatever the parser's message for the unknown op is."""
    import subprocess
    import sys

    path = tmp_path / "converted.mlir"
    path.write_text('module @m {\n  func.func @main(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {\n'
                    '    %0 = "mhlo.copy"(%a) : (tensor<8x8xf32>) -> tensor<8x8xf32>\n'
                    '    %1 = stablehlo.add %0, %0 : tensor<8x8xf32>\n'
                    '    return %1 : tensor<8x8xf32>\n  }\n}\n')
    done = subprocess.run([sys.executable, "-m", "stablecost.serve.cli", "analyze", str(path),
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"mhlo.copy"' in done.stdout


def test_several_public_functions_without_main_are_refused():
    text = ("func.func @a(%x: tensor<f32>) -> tensor<f32> {\n"
            "  %y = stablehlo.add %x, %x : tensor<f32>\n  return %y : tensor<f32>\n}\n"
            "func.func @b(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}\n")
    with pytest.raises(UnsupportedProgramError, match=r"2 public functions \(@a, @b\) and "
                                                      "none is @main.*entry=NAME.*--entry"):
        stablecost.load_program(text)
    private = text.replace("func.func @b", "func.func private @b")
    assert [op.opcode for op in stablecost.load_program(private).ops] == ["add"]   # @a runs
