"""Peak device memory (`models.memory`, `Prediction.peak_memory_bytes` / `fits`):
hand-worked programs, donation, a loop, and agreement with XLA's memory analysis."""

import dataclasses

import jax
import jax.numpy as jnp
import pytest

import stablecost
from stablecost.models.memory import peak_memory
from stablecost.models.schedule import kernel_graph


def memory(text):
    a = stablecost.analyze(text)
    _, order = kernel_graph(a.program, a.kernels)
    return a, peak_memory(a.program, a.kernels, order)


CHAIN = """
func.func @main(%a: tensor<1024xf32>{ATTR}) -> tensor<1024xf32> {
  %0 = stablehlo.exponential %a : tensor<1024xf32>
  %1 = stablehlo.tanh %0 : tensor<1024xf32>
  %2 = stablehlo.add %1, %a : tensor<1024xf32>
  return %2 : tensor<1024xf32>
}
"""


def test_a_chain_of_elementwise_ops_holds_its_argument_and_result():
    # one loop kernel: argument 4 KiB + result 4 KiB, the fused intermediates none
    a, m = memory(CHAIN.replace("{ATTR}", ""))
    assert len(a.kernels) == 1
    assert (m.peak_bytes, m.argument_bytes, m.output_bytes, m.temporary_bytes) == \
        (8192, 4096, 4096, 0)


def test_an_argument_aliased_to_the_result_holds_it():
    # tf.aliasing_output: the result is written into the argument's 4 KiB
    _, m = memory(CHAIN.replace("{ATTR}", " {tf.aliasing_output = 0 : i32}"))
    assert (m.peak_bytes, m.argument_bytes, m.output_bytes) == (4096, 4096, 0)


DOTS = """
func.func @main(%a: tensor<256x512xf32>{DONOR}, %b: tensor<512x256xf32>,
                %c: tensor<256x2048xf32>) -> tensor<256x2048xf32> {
  %x = stablehlo.exponential %a : tensor<256x512xf32>
  %y = stablehlo.exponential %b : tensor<512x256xf32>
  %d = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<256x512xf32>, tensor<512x256xf32>) -> tensor<256x256xf32>
  %f = stablehlo.exponential %c : tensor<256x2048xf32>
  %e = stablehlo.dot_general %d, %f, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x2048xf32>) -> tensor<256x2048xf32>
  return %e : tensor<256x2048xf32>
}
"""
# arguments a 512 KiB + b 512 KiB + c 2 MiB = 3,145,728, plus the result e 2,097,152
# (its buffer is allocated before the step runs): 5,242,880 all along. Kernels in order:
#   k0 exp(a) -> x 524,288; k1 exp(b) -> y 524,288; k2 dot(x, y) -> d 262,144;
#   k3 exp(c) -> f 2,097,152; k4 dot(d, f) -> e (the result)
# live at k2: 5,242,880 + x + y + d = 6,553,600
# live at k3: 5,242,880 + d + f = 7,602,176 (x and y died at k2; alive they would
#   make it 8,650,752); at k4 the same 7,602,176


def test_a_dots_inputs_die_after_it():
    a, m = memory(DOTS.replace("{DONOR}", ""))
    assert [k.kind for k in a.kernels] == ["loop", "loop", "matmul", "loop", "matmul"]
    assert m.peak_bytes == 7_602_176
    assert m.peak_kernel == 3
    assert m.argument_bytes == 3_145_728 and m.output_bytes == 2_097_152
    assert m.temporary_bytes == 262_144 + 2_097_152   # d and f at k3


def test_a_donated_argument_is_free_after_its_last_reader():
    # jax.buffer_donor on a: its 512 KiB are free after k0, so k3 holds
    # 7,602,176 - 524,288 = 7,077,888
    _, m = memory(DOTS.replace("{DONOR}", " {jax.buffer_donor = true}"))
    assert m.peak_bytes == 7_077_888


LOOP = """
func.func @main(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<10> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<128x128xf32>
    cond {
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %e = stablehlo.exponential %v : tensor<128x128xf32>
      %d = stablehlo.dot_general %e, %w, contracting_dims = [1] x [0] : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
      %j = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %j, %d : tensor<i32>, tensor<128x128xf32>
    }
  return %r#1 : tensor<128x128xf32>
}
"""


def test_a_loop_counts_its_bodys_peak_plus_its_state_once():
    # arguments x, w: 2 x 65,536. The loop state (x is not donated, so it is a copy)
    # is one 65,536-byte buffer for every iteration, holding the result at the end;
    # the counter 4 bytes. In the body, exp(v) -> e (65,536) is a kernel of its own
    # (its reader is a dot); the dot writes the next state.
    # Peak at the dot: 131,072 + 65,536 + e 65,536 + counter 4 = 262,148, whatever
    # the trip count (10).
    a, m = memory(LOOP)
    assert a.program.loops[0].trip_count == 10
    assert m.peak_bytes == 262_148
    assert m.argument_bytes == 131_072 and m.output_bytes == 65_536


EARLY = """
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %big = stablehlo.exponential %a : tensor<1024x1024xf32>
  %d1 = stablehlo.dot_general %b, %b, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %d2 = stablehlo.dot_general %d1, %b, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = stablehlo.dot_general %big, %d2, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
"""


def test_a_kernel_made_early_and_read_late_runs_just_before_its_reader():
    # every buffer 4 MiB (4,194,304): arguments a, b and the result r are 3 all along.
    # In program order exp(a) -> big (k0) is live through k1 and k2: at k2 big, d1, d2
    # make 6 x 4 MiB = 25,165,824. Moved to just before its reader k3 (it frees nothing
    # and grows memory), the most live is 5 x 4 MiB = 20,971,520 (at k2: d1, d2; at
    # big and k3: big, d2).
    a = stablecost.analyze(EARLY)
    deps, order = kernel_graph(a.program, a.kernels)
    assert peak_memory(a.program, a.kernels, order).peak_bytes == 25_165_824
    m = peak_memory(a.program, a.kernels, order, deps)
    assert m.peak_bytes == 20_971_520


def test_every_prediction_says_whether_it_fits(examples_dir):
    p = stablecost.predict(examples_dir / "mlp_train_step.mlir", "H100-SXM",
                           fidelity="roofline")
    assert 0 < p.peak_memory_bytes < p.memory_capacity_bytes == 80e9 and p.fits
    d = p.to_dict()
    assert d["peak_memory_bytes"] == p.peak_memory_bytes and d["fits"] is True
    assert set(d["memory"]) == {"argument_bytes", "output_bytes", "temporary_bytes"}
    tiny = dataclasses.replace(stablecost.get_hardware("H100-SXM"), name="tiny",
                               memory_capacity_bytes=p.peak_memory_bytes / 2)
    q = stablecost.predict(examples_dir / "mlp_train_step.mlir", tiny, fidelity="roofline")
    assert not q.fits and q.peak_memory_bytes == p.peak_memory_bytes
    assert any(n.startswith("does not fit") for n in q.notes)


def test_rank_drops_what_does_not_fit_before_ranking(examples_dir):
    h100 = stablecost.get_hardware("H100-SXM")
    program = examples_dir / "mlp_train_step.mlir"
    peak = stablecost.predict(program, h100, fidelity="roofline").peak_memory_bytes
    # the fastest chip is too small: a tuner must not pick it
    fast_small = dataclasses.replace(
        h100, name="fast-small", memory_capacity_bytes=peak / 2,
        memory_bandwidth_bytes_per_s=h100.memory_bandwidth_bytes_per_s * 10)
    slow = dataclasses.replace(h100, name="slow",
                               memory_bandwidth_bytes_per_s=h100.memory_bandwidth_bytes_per_s / 10)
    preds = stablecost.predict_many([(program, slow), (program, fast_small), (program, h100)],
                                    fidelity="roofline")
    assert preds[1].step_time_s < preds[2].step_time_s < preds[0].step_time_s
    assert stablecost.rank(preds) == [2, 0]
    assert stablecost.rank(preds, fits_only=False) == [1, 2, 0]


def _xla_bytes(lowered):
    """What XLA allocates for the step: arguments + outputs - aliased + temporaries (its
    `peak_memory_in_bytes` on CPU leaves the temporaries out)."""
    s = lowered.compile().memory_analysis()
    return (s.argument_size_in_bytes + s.output_size_in_bytes - s.alias_size_in_bytes
            + s.temp_size_in_bytes)


def test_the_peak_agrees_with_xlas_memory_analysis():
    # A two-layer MLP's forward and backward on CPU: our peak within 15 % of what
    # XLA:CPU's buffer assignment allocates (7,208,976 bytes; ours 7,733,248: 1.07)
    def loss(params, x):
        (w1, w2) = params
        h = jnp.tanh(x @ w1)
        return jnp.mean((h @ w2) ** 2)

    def step(params, x):
        grads = jax.grad(loss)(params, x)
        return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

    params = (jnp.ones((512, 1024)), jnp.ones((1024, 256)))
    lowered = jax.jit(step).lower(params, jnp.ones((128, 512)))
    p = stablecost.predict(lowered.as_text(), "H100-SXM", fidelity="roofline")  # any chip
    assert p.peak_memory_bytes == pytest.approx(_xla_bytes(lowered), rel=0.15)


SCATTER_AND_TRANSPOSE = """
func.func @main(%w: tensor<1024x256xf32>, %x: tensor<64x256xf32>, %i: tensor<64x2xi32>)
    -> (tensor<64x1024xf32>, tensor<64x1024xf32>) {
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<1024x256xf32>) -> tensor<256x1024xf32>
  %l = stablehlo.dot_general %x, %t, contracting_dims = [1] x [0] : (tensor<64x256xf32>, tensor<256x1024xf32>) -> tensor<64x1024xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zeros = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<64x1024xf32>
  %e = stablehlo.exponential %zeros : tensor<64x1024xf32>
  %one = stablehlo.constant dense<1.0> : tensor<64xf32>
  %s = "stablehlo.scatter"(%e, %i, %one) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %r = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %r : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [],
      inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1],
      index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false}
    : (tensor<64x1024xf32>, tensor<64x2xi32>, tensor<64xf32>) -> tensor<64x1024xf32>
  %n = stablehlo.negate %s : tensor<64x1024xf32>
  return %l, %n : tensor<64x1024xf32>, tensor<64x1024xf32>
}
"""


def test_a_transpose_into_a_dot_and_a_scatter_take_no_buffer_of_their_own():
    # arguments w 1 MiB + x 64 KiB + i 512 B = 1,114,624; results l and n 256 KiB each
    # = 524,288: 1,638,912 all along. XLA folds the transpose of w into the dot (a
    # buffer of its own would add 1 MiB at the dot); the scatter updates exp's
    # 262,144-byte buffer in place (a buffer of its own: another 262,144), so the one
    # temporary is 262,144: the peak is 1,901,056 (1,638,912 + 262,144).
    a, m = memory(SCATTER_AND_TRANSPOSE)
    assert "transpose" in [a.program.ops[k.root].opcode for k in a.kernels]
    assert m.argument_bytes == 1_114_624 and m.output_bytes == 524_288
    assert m.temporary_bytes == 262_144
    assert m.peak_bytes == 1_901_056
