"""Multi-output fusion (featurize.multi_output): hand-worked kernels and boundary bytes
of XLA:GPU-style sibling and producer-into-consumer merges, and which chips get them."""

import pytest
from specs import SOFTMAX

import stablecost
from stablecost.featurize.analysis import for_chip_kind
from stablecost.featurize.fusion import fuse


def _kernels(text, multi_output):
    a = stablecost.analyze(text)
    kernels = fuse(a.program, a.costs, multi_output=multi_output, xla_gpu=multi_output)
    ops = a.program.ops
    return [(k.kind, sorted(ops[i].opcode for i in k.ops), k.bytes_read, k.bytes_written)
            for k in kernels]


def _total(kernels):
    return sum(r + w for _, _, r, w in kernels)


# Batch-norm forward over the 16 rows of x (f32[16,32], 2048 B): mean and mean of squares
# are two reductions of x over the same dimension; the normalisation needs both.
BATCH_NORM = """
func.func @main(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %k = stablehlo.constant dense<0.0625> : tensor<32xf32>
  %e = stablehlo.constant dense<1.0e-5> : tensor<32xf32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
  %sq = stablehlo.multiply %x, %x : tensor<16x32xf32>
  %ss = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
  %m = stablehlo.multiply %s, %k : tensor<32xf32>
  %m2 = stablehlo.multiply %ss, %k : tensor<32xf32>
  %mm = stablehlo.multiply %m, %m : tensor<32xf32>
  %v = stablehlo.subtract %m2, %mm : tensor<32xf32>
  %ve = stablehlo.add %v, %e : tensor<32xf32>
  %r = stablehlo.rsqrt %ve : tensor<32xf32>
  %bm = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<32xf32>) -> tensor<16x32xf32>
  %br = stablehlo.broadcast_in_dim %r, dims = [1] : (tensor<32xf32>) -> tensor<16x32xf32>
  %c = stablehlo.subtract %x, %bm : tensor<16x32xf32>
  %y = stablehlo.multiply %c, %br : tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
"""


def test_batch_norm_sibling_reductions_read_their_input_once():
    # Without multi-output fusion, 3 kernels:
    #   reduce(x):      reads x 2048 + init 4, writes s 128            = 2180
    #   reduce(x * x):  reads x 2048 + init 4, writes ss 128           = 2180
    #   normalise (the f32[32] statistics math fused in): reads x 2048, s 128, ss 128,
    #     constants k 128 and eps 128 = 2560, writes y 2048            = 4608
    #   total 8968.
    # With it the two reductions (both over dim 0 of f32[16,32], neither needing the
    # other) are one kernel: reads x 2048 + init 4, writes s + ss 256 = 2308; the
    # normalisation needs both, so it stays apart: 2308 + 4608 = 6916 (x read once less).
    before = _kernels(BATCH_NORM, multi_output=False)
    assert sorted(k[0] for k in before) == ["loop", "reduction", "reduction"]
    assert _total(before) == 8968
    after = _kernels(BATCH_NORM, multi_output=True)
    reduction = [k for k in after if k[0] == "reduction"]
    assert len(after) == 2 and len(reduction) == 1
    assert reduction[0][1] == ["multiply", "reduce", "reduce"]
    assert reduction[0][2:] == (2052, 256)
    assert _total(after) == 6916


def test_reductions_over_different_dimensions_stay_apart():
    # x: f32[64,128] = 32768 B. Column sums (dim 0 -> f32[128], 512 B) and row sums
    # (dim 1 -> f32[64], 256 B) are tiled differently: XLA does not merge them.
    # (32768 + 4 + 512) + (32768 + 4 + 256) = 66312 either way.
    text = """
func.func @main(%x: tensor<64x128xf32>) -> (tensor<128xf32>, tensor<64xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %a = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<64x128xf32>, tensor<f32>) -> tensor<128xf32>
  %b = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x128xf32>, tensor<f32>) -> tensor<64xf32>
  return %a, %b : tensor<128xf32>, tensor<64xf32>
}
"""
    for multi_output in (False, True):
        kernels = _kernels(text, multi_output)
        assert [k[0] for k in kernels] == ["reduction", "reduction"]
        assert _total(kernels) == 66312


def test_a_reduction_that_needs_the_other_is_not_its_sibling():
    # Variance as mean((x - mean)^2), as jnp.var computes it: both reductions read x
    # (f32[16,32]) over dim 0, but the second needs the first's result, so merging
    # them would be a cycle. reduce(x): 2048 + 4 read, 128 written = 2180;
    # reduce((x - s*k)^2) with s*k fused in: reads x 2048, s 128, k 128, init 4 = 2308,
    # writes 128 = 2436. Total 4616 either way.
    text = """
func.func @main(%x: tensor<16x32xf32>) -> tensor<32xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %k = stablehlo.constant dense<0.0625> : tensor<32xf32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
  %m = stablehlo.multiply %s, %k : tensor<32xf32>
  %bm = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<32xf32>) -> tensor<16x32xf32>
  %c = stablehlo.subtract %x, %bm : tensor<16x32xf32>
  %c2 = stablehlo.multiply %c, %c : tensor<16x32xf32>
  %v = stablehlo.reduce(%c2 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>
  return %v : tensor<32xf32>
}
"""
    for multi_output in (False, True):
        kernels = _kernels(text, multi_output)
        assert [k[0] for k in kernels] == ["reduction", "reduction"]
        assert _total(kernels) == 4616




def test_producer_shared_by_a_reduction_and_an_elementwise_consumer():
    # The zero constant has one user, so it sits in the sum's kernel: a scalar constant
    # inside a kernel is not read from memory.
    # Without multi-output fusion: exp (reads x 4096, writes e 4096), the row sum (reads
    # e 4096, writes s 32), the division (reads e 4096 + s 32, writes 4096):
    # 8192 + 4128 + 8224 = 20544.
    # With XLA:GPU's rules exp reads no more than it writes, so the row sum and the
    # division each compute it from x (XLA's optimized HLO of a LLaMA prefill on an H100
    # recomputes the softmax's exp in both rather than store it): the sum reads x 4096
    # and writes s 32 = 4128; the division (it needs the sum: no sibling of it) reads
    # x 4096 + s 32 and writes 4096 = 8224. Total 12352: e is never stored.
    before = _kernels(SOFTMAX, multi_output=False)
    assert sorted(k[0] for k in before) == ["loop", "loop", "reduction"]
    assert _total(before) == 20544
    after = _kernels(SOFTMAX, multi_output=True)
    assert [k[0] for k in after] == ["reduction", "loop"]
    assert after[0][1] == ["constant", "exponential", "reduce"]
    assert after[0][2:] == (4096, 32)
    assert after[1][1] == ["broadcast_in_dim", "divide", "exponential"]
    assert after[1][2:] == (4128, 4096)
    assert _total(after) == 12352


def test_at_most_eight_reductions_per_kernel():
    # Ten sums of x (f32[16,32]) over dim 0: XLA caps a multi-output kernel at 8
    # reductions, so 8 + 2. Reads x 2048 + init 4 in each kernel; writes 8 x 128 and
    # 2 x 128: 2052 + 1024 + 2052 + 256 = 5384 (10 x 2180 = 21800 unmerged).
    sums = "\n".join(
        f"  %s{i} = stablehlo.reduce(%x init: %z) applies stablehlo.add across "
        "dimensions = [0] : (tensor<16x32xf32>, tensor<f32>) -> tensor<32xf32>"
        for i in range(10))
    results = ", ".join(f"%s{i}" for i in range(10))
    types = ", ".join(["tensor<32xf32>"] * 10)
    text = f"""
func.func @main(%x: tensor<16x32xf32>) -> ({types}) {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
{sums}
  return {results} : {types}
}}
"""
    assert _total(_kernels(text, multi_output=False)) == 21800
    after = _kernels(text, multi_output=True)
    assert sorted(k[1].count("reduce") for k in after) == [2, 8]
    assert _total(after) == 5384


@pytest.mark.parametrize("chip, kernels, nbytes", [
    ("A100-SXM-80GB", 2, 6916), ("TPU-v5e", 2, 6916), ("host-cpu", 3, 8968)])
def test_gpu_and_tpu_predictions_price_multi_output_kernels(chip, kernels, nbytes):
    # XLA:CPU keeps the two batch-norm reductions apart (jax 0.10.2's compile of a batch
    # norm shows two reduce fusions), so CPU kernels, and the features the bundled CPU
    # models were trained on, are unchanged
    if chip == "host-cpu":   # the spec the bundled CPU models were trained with
        from stablecost.models.learned import bundled_hardware

        chip = bundled_hardware(chip)
    p = stablecost.predict(BATCH_NORM, chip, fidelity="roofline")
    assert len(p.kernels) == kernels
    assert p.fused_bytes_accessed == nbytes
    assert sum(r.bytes_accessed for r in p.kernels) == nbytes


def test_the_cpu_analysis_is_left_alone():
    a = stablecost.analyze(BATCH_NORM)
    assert for_chip_kind(a, "cpu") is a
    gpu = for_chip_kind(a, "gpu")
    assert len(a.kernels) == 3 and a.fused_bytes_accessed == 8968
    assert len(gpu.kernels) == 2 and gpu.fused_bytes_accessed == 6916
    assert gpu.flops == a.flops and gpu.program is a.program


def test_batch_norm_as_jax_lowers_it_forward_and_backward():
    import jax
    import jax.numpy as jnp

    def batch_norm(x, g, b):
        mean = jnp.mean(x, axis=(0, 1, 2))
        var = jnp.mean(x * x, axis=(0, 1, 2)) - mean * mean
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g + b

    def loss(x, g, b):
        return jnp.sum(jnp.tanh(batch_norm(x, g, b)))

    args = (jnp.ones((8, 16, 16, 32)), jnp.ones((32,)), jnp.ones((32,)))
    # forward: x is f32[8,16,16,32] = 262144 B; its mean and mean of squares become one
    # kernel, which reads x once instead of twice and writes both f32[32] statistics
    a = stablecost.analyze(stablecost.load_program(jax.jit(batch_norm).lower(*args)))
    gpu = for_chip_kind(a, "gpu")
    ops = a.program.ops
    assert [sum(ops[i].opcode == "reduce" for i in k.ops) for k in a.kernels
            if k.kind == "reduction"] == [1, 1]
    assert [sum(ops[i].opcode == "reduce" for i in k.ops) for k in gpu.kernels
            if k.kind == "reduction"] == [2]
    assert a.fused_bytes_accessed - gpu.fused_bytes_accessed == 262144
    # backward (the forward again, then the gradients): the forward's statistics are
    # one kernel as above; the four sums over the batch the gradients need (of the
    # incoming gradient, times x-hat, and the two the statistics' gradients add) read
    # values XLA:GPU recomputes from x in each consumer (x - mean, the tanh's
    # derivative), so they are siblings of x and one kernel that reads x once
    grad = jax.jit(jax.grad(loss, argnums=(0, 1, 2))).lower(*args)
    a = stablecost.analyze(stablecost.load_program(grad))
    gpu = for_chip_kind(a, "gpu")
    ops = a.program.ops
    assert len(gpu.kernels) < len(a.kernels)
    merged = [(sum(ops[i].opcode == "reduce" for i in k.ops), k.bytes_read)
              for k in gpu.kernels if k.kind == "reduction"]
    assert (2, 262144) in merged
    # the four read x (262144 B) once, the statistics' f32[32] vectors and the inits
    assert any(n == 4 and 262144 < read < 262144 + 1024 for n, read in merged)
    assert gpu.fused_bytes_accessed < a.fused_bytes_accessed / 4


# A batch norm's centring as XLA:GPU runs it: c = f32(x) - mean feeds two reductions
# and the step's bf16 output. x: bf16[1024,64] = 131072 B; c would be f32, 262144 B.
CENTRED = """
func.func @main(%x: tensor<1024x64xbf16>, %m: tensor<64xf32>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<1024x64xbf16>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %xf = stablehlo.convert %x : (tensor<1024x64xbf16>) -> tensor<1024x64xf32>
  %bm = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<64xf32>) -> tensor<1024x64xf32>
  %c = stablehlo.subtract %xf, %bm : tensor<1024x64xf32>
  %s1 = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0] : (tensor<1024x64xf32>, tensor<f32>) -> tensor<64xf32>
  %sq = stablehlo.multiply %c, %c : tensor<1024x64xf32>
  %s2 = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [0] : (tensor<1024x64xf32>, tensor<f32>) -> tensor<64xf32>
  %y = stablehlo.convert %c : (tensor<1024x64xf32>) -> tensor<1024x64xbf16>
  return %s1, %s2, %y : tensor<64xf32>, tensor<64xf32>, tensor<1024x64xbf16>
}
"""


def test_cheap_elementwise_values_are_recomputed_in_every_consumer_on_gpu():
    # CPU rules: c is a kernel of its own (reads x 131072 + m 256, writes c 262144) and
    # its three consumers read it back: sum (262144 + init 4, writes 256), sum of
    # squares (the same) and the bf16 copy (262144, writes 131072): 1,311,496 B.
    cpu = _kernels(CENTRED, multi_output=False)
    assert len(cpu) == 4 and _total(cpu) == 1311496
    # GPU rules: the subtract reads nothing from memory itself (its operands are a
    # convert and a broadcast, recomputed too), so each consumer recomputes c from x;
    # the three then read x alone and are siblings: one kernel reads x and m once and
    # writes both sums and y: 131072 + 256 + 4 + 256 + 256 + 131072 = 262916 B.
    gpu = _kernels(CENTRED, multi_output=True)
    assert len(gpu) == 1 and _total(gpu) == 262916
    assert gpu[0][1].count("reduce") == 2 and "subtract" in gpu[0][1]


def test_a_value_that_reads_more_than_it_writes_is_stored_once():
    # c = a + b reads two f32[1024,64] (524288 B) to write one (262144 B): recomputing
    # it in the two reductions (over different dimensions, so no siblings) would read
    # a and b twice. It is computed once, in the first sum's kernel (multi-output
    # fusion of a producer into a consumer), which writes c for the other: 524288 + 4
    # read, 262144 + 256 written; then 262144 + 4 read and 4096 written.
    text = """
func.func @main(%a: tensor<1024x64xf32>, %b: tensor<1024x64xf32>)
    -> (tensor<64xf32>, tensor<1024xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %c = stablehlo.add %a, %b : tensor<1024x64xf32>
  %s = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0] : (tensor<1024x64xf32>, tensor<f32>) -> tensor<64xf32>
  %r = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1024x64xf32>, tensor<f32>) -> tensor<1024xf32>
  return %s, %r : tensor<64xf32>, tensor<1024xf32>
}
"""
    gpu = _kernels(text, multi_output=True)
    assert sum(k[1].count("add") for k in gpu) == 1
    assert _total(gpu) == 524292 + 262400 + 262148 + 4096
    # the same when a and b are themselves cheap elementwise values: a residual add
    # of two is not recomputed, so a duplicated chain stops there (on a ResNet step,
    # chains through the residual adds made kernels of 500 ops and 217 operands)
    scaled = text.replace("%c = stablehlo.add %a, %b : tensor<1024x64xf32>", """\
%a2 = stablehlo.multiply %a, %a : tensor<1024x64xf32>
  %b2 = stablehlo.multiply %b, %b : tensor<1024x64xf32>
  %c = stablehlo.add %a2, %b2 : tensor<1024x64xf32>""")
    assert scaled != text
    assert sum(k[1].count("add") for k in _kernels(scaled, multi_output=True)) == 1


def test_convolutions_keep_no_epilogue_on_gpu():
    # conv + bias + ReLU: XLA:CPU and our CPU rules fuse the epilogue into the
    # convolution's kernel; XLA:GPU calls cuDNN for the bare convolution
    text = """
func.func @main(%x: tensor<8x32x32x16xf32>, %w: tensor<3x3x16x16xf32>, %b: tensor<16xf32>)
    -> tensor<8x32x32x16xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<8x32x32x16xf32>
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x32x32x16xf32>, tensor<3x3x16x16xf32>) -> tensor<8x32x32x16xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<16xf32>) -> tensor<8x32x32x16xf32>
  %s = stablehlo.add %y, %bb : tensor<8x32x32x16xf32>
  %r = stablehlo.maximum %s, %z : tensor<8x32x32x16xf32>
  return %r : tensor<8x32x32x16xf32>
}
"""
    assert [k[0] for k in _kernels(text, multi_output=False)] == ["matmul"]
    gpu = _kernels(text, multi_output=True)
    assert sorted(k[0] for k in gpu) == ["loop", "matmul"]
    assert [k[1] for k in gpu if k[0] == "matmul"] == [["convolution"]]
    # the XLA:GPU rules are for GPUs only: a TPU's kernels merge, nothing more
    a = stablecost.analyze(text)
    assert [k.kind for k in for_chip_kind(a, "tpu").kernels] == ["matmul"]
    assert sorted(k.kind for k in for_chip_kind(a, "gpu").kernels) == ["loop", "matmul"]
