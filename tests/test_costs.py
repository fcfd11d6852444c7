"""Per-op cost rules against hand-worked values.

(Over 400 lines: independent tests of one package area, each with its inputs inline;
they share fixtures, and a reader looks for the tests of that area in one place.)
"""

import pytest

import stablecost


def _cost(text):
    p = stablecost.load_program(text)
    a = stablecost.analyze(p)
    return p, a


def _one_op(body, args, result):
    return f"func.func @main({args}) -> {result} {{\n{body}\n}}"


def test_dot_general_batch_and_transposed():
    # batch 2, M=3 (lhs free), N=5 (rhs free), K=4, lhs contracted on dim 1 (transposed)
    text = _one_op("""
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [2] : (tensor<2x4x3xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>""", "%a: tensor<2x4x3xf32>, %b: tensor<2x5x4xf32>", "tensor<2x3x5xf32>")
    _, a = _cost(text)
    assert a.flops == 2 * 2 * 3 * 5 * 4  # 240
    # reads 2*4*3*4 + 2*5*4*4 = 96 + 160 bytes, writes 2*3*5*4 = 120
    assert a.bytes_accessed == 96 + 160 + 120


CONV = """
func.func @main(%x: tensor<{x}>, %w: tensor<{w}>) -> tensor<{y}> {{
  %0 = stablehlo.convolution(%x, %w) dim_numbers = {dn}, window = {{stride = {stride}, pad = {pad}, lhs_dilate = {lhs}, rhs_dilate = {rhs}}} {{batch_group_count = {bgc} : i64, feature_group_count = {fgc} : i64}} : (tensor<{x}>, tensor<{w}>) -> tensor<{y}>
  return %0 : tensor<{y}>
}}
"""


def conv_flops(**kw):
    defaults = dict(stride="[1, 1]", pad="[[0, 0], [0, 0]]", lhs="[1, 1]", rhs="[1, 1]",
                    bgc=1, fgc=1)
    defaults.update(kw)
    return _cost(CONV.format(**defaults))[1].flops


def test_conv_nhwc_valid():
    # N=2, 8x8x3 -> 6x6x16 with a 3x3 kernel: 2*3*16*2*(6*3)^2... per dim valid pairs = 6*3
    flops = conv_flops(x="2x8x8x3xf32", w="3x3x3x16xf32", y="2x6x6x16xf32",
                       dn="[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]")
    assert flops == 2 * 3 * 16 * 2 * (6 * 3) * (6 * 3)


def test_conv_nchw_same_padding_excludes_padding_taps():
    # 1D-like check per dim: input 4, kernel 3, pad 1/1, output 4 -> valid pairs:
    # k=0 reads o-1 (o=1..3: 3), k=1 reads o (4), k=2 reads o+1 (o=0..2: 3) = 10
    flops = conv_flops(x="1x2x4x4xf32", w="5x2x3x3xf32", y="1x5x4x4xf32",
                       dn="[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
                       pad="[[1, 1], [1, 1]]")
    assert flops == 2 * 2 * 5 * 1 * 10 * 10


def test_grouped_and_depthwise_conv():
    # 8 input features in 4 groups: each output feature sees 8/4 = 2 inputs
    flops = conv_flops(x="1x6x6x8xf32", w="3x3x2x8xf32", y="1x4x4x8xf32",
                       dn="[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", fgc=4)
    assert flops == 2 * 2 * 8 * 1 * (4 * 3) * (4 * 3)


def test_strided_and_dilated_conv():
    # input 7, kernel 3 with rhs dilation 2 (span 5), stride 2 -> output 2; each pair valid
    flops = conv_flops(x="1x7x7x1xf32", w="3x3x1x1xf32", y="1x2x2x1xf32",
                       dn="[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                       stride="[2, 2]", rhs="[2, 2]")
    assert flops == 2 * 1 * 1 * 1 * (2 * 3) * (2 * 3)


def test_backward_data_conv_counts_only_real_inputs():
    # transposed conv: input 3 dilated by 2 (-> 5 positions, 3 real), pad 2/2, kernel 3,
    # output 7. Pairs (o, k) with u = o + k - 2 in [0, 4] and u even:
    # k=0: o in 2..6 with o even -> 2,4,6 = 3; k=1: o in 1..5, o odd -> 1,3,5 = 3;
    # k=2: o in 0..4, o even -> 0,2,4 = 3. 9 per dim.
    flops = conv_flops(x="1x3x3x4xf32", w="3x3x4x2xf32", y="1x7x7x2xf32",
                       dn="[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                       pad="[[2, 2], [2, 2]]", lhs="[2, 2]")
    assert flops == 2 * 4 * 2 * 1 * 9 * 9


def test_backward_filter_depthwise_conv():
    # JAX's weight gradient of an 8-channel depthwise 3x3 conv (SAME) on 4x8x16x16:
    # lhs [f, b, 0, 1] = 4 images as features, 8 channels as batch, batch_group_count 8.
    # Each of the 8x3x3 weight grads sums 4 images x the 16x16 taps that land inside
    # the padded input: per dim 15 + 16 + 15 = 46 -> 2 * 4 * 8 * 46 * 46 = 135424.
    flops = conv_flops(x="4x8x16x16xf32", w="4x8x16x16xf32", y="8x1x3x3xf32",
                       dn="[f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1]",
                       pad="[[1, 1], [1, 1]]", bgc=8)
    assert flops == 2 * 4 * 8 * 46 * 46


def test_reduce_counts_reducer_applications():
    text = """
func.func @main(%a: tensor<8x16xf32>) -> tensor<8xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
"""
    _, a = _cost(text)
    assert a.flops == 8 * 16 - 8  # 120 additions


def _xla_unoptimized(fn, *args):
    """XLA's own cost analysis of the program before its passes run."""
    import jax
    return jax.jit(fn).lower(*args).cost_analysis()


def test_max_pool_gradient_selects_over_the_window_then_scatters_once():
    """select_and_scatter: per source element, window - 1 selects and one scatter
    add (XLA's HloCostAnalysis count), not window x (select + scatter)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    pool = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                                       ((0, 0), (1, 1), (1, 1), (0, 0)))
    grad = jax.grad(lambda x: pool(x).sum())
    x = jnp.ones((2, 10, 10, 3))
    a = stablecost.analyze(jax.jit(grad).lower(x))
    (cost,) = [c for op, c in zip(a.program.ops, a.costs) if op.opcode == "select_and_scatter"]
    assert cost.flops == 2 * 5 * 5 * 3 * (8 + 1)
    assert a.per_opcode["select_and_scatter"].flops == 1350


def test_scatter_with_two_operands_applies_its_body_once_per_update_position():
    text = """
func.func @main(%a: tensor<100x8xf32>, %b: tensor<100x8xf32>, %i: tensor<20x1xi32>, %u: tensor<20x8xf32>, %v: tensor<20x8xf32>) -> (tensor<100x8xf32>, tensor<100x8xf32>) {
  %0:2 = "stablehlo.scatter"(%a, %b, %i, %u, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %z: tensor<f32>, %w: tensor<f32>):
    %s = stablehlo.add %x, %z : tensor<f32>
    %t = stablehlo.add %y, %w : tensor<f32>
    stablehlo.return %s, %t : tensor<f32>, tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<100x8xf32>, tensor<100x8xf32>, tensor<20x1xi32>, tensor<20x8xf32>, tensor<20x8xf32>) -> (tensor<100x8xf32>, tensor<100x8xf32>)
  return %0#0, %0#1 : tensor<100x8xf32>, tensor<100x8xf32>
}
"""
    _, a = _cost(text)
    assert a.flops == 20 * 8 * 2   # 160 positions, two adds each (XLA: 320)


def test_transcendentals_inside_window_bodies_are_counted():
    """cumlogsumexp lowers to a reduce_window whose body is logaddexp (an exp and a
    log1p): XLA counts 448 transcendentals on a 4x8 input, and so do we."""
    import jax.numpy as jnp
    from jax import lax

    fn = lambda x: lax.cumlogsumexp(x, axis=1)
    x = jnp.ones((4, 8))
    a = stablecost.analyze(__import__("jax").jit(fn).lower(x))
    xla = _xla_unoptimized(fn, x)
    assert a.transcendentals == xla["transcendentals"] == 4 * 8 * 7 * 2
    assert a.flops == xla["flops"]


def test_complex_dots_and_reductions_count_real_flops_like_elementwise_ops():
    """One convention for complex values: a complex multiply-add is 8 real FLOPs in a
    dot, a complex add 2 in a reduction (as in test_complex_arithmetic_counts_real_flops)."""
    import jax
    import jax.numpy as jnp

    c = jnp.ones((4, 8), jnp.complex64)
    dot = stablecost.analyze(jax.jit(lambda a, b: a @ b).lower(c, jnp.ones((8, 3), jnp.complex64)))
    assert dot.per_opcode["dot_general"].flops == 8 * 4 * 3 * 8
    total = stablecost.analyze(jax.jit(lambda a: a.sum()).lower(jnp.ones(16, jnp.complex64)))
    assert total.per_opcode["reduce"].flops == 15 * 2


def test_cumulative_reduce_window_is_priced_as_xlas_tiled_scan():
    """jnp.cumsum lowers to a reduce_window as wide as the axis (quadratic as written);
    XLA rewrites it into a scan over tiles of 16, so that is what is priced."""
    import jax
    import jax.numpy as jnp

    from stablecost.featurize.costs import SCAN_BASE_LENGTH

    a = stablecost.analyze(jax.jit(lambda x: jnp.cumsum(x, axis=1)).lower(
        jnp.ones((4, 4096, 8))))
    [op] = [o for o in a.program.ops if o.opcode == "reduce_window"]
    assert op.attributes["window_dimensions"] == [1, 4096, 1]
    assert a.flops == 4 * 4096 * 8 * (SCAN_BASE_LENGTH + 2 - 1)
    # an ordinary pooling window keeps its size
    pool = stablecost.analyze(jax.jit(lambda x: jax.lax.reduce_window(
        x, 0.0, jax.lax.add, (1, 3, 1), (1, 1, 1), "VALID")).lower(jnp.ones((4, 4096, 8))))
    assert pool.flops == 4 * 4094 * 8 * 2



@pytest.mark.parametrize("fft_type, operand, result, expected", [
    # 8 complex transforms of 64 points: 5 * 64 * log2(64) = 1920 each
    ("FFT", "tensor<8x64xcomplex<f32>>", "tensor<8x64xcomplex<f32>>", 8 * 1920),
    # real input: half the work; 8 transforms
    ("RFFT", "tensor<8x64xf32>", "tensor<8x33xcomplex<f32>>", 8 * 960),
    # real output: the operand holds 33 points, the transforms are counted on the result
    ("IRFFT", "tensor<8x33xcomplex<f32>>", "tensor<8x64xf32>", 8 * 960),
])
def test_fft_flops_per_transform(fft_type, operand, result, expected):
    text = _one_op(f"  %0 = stablehlo.fft %a, type = {fft_type}, length = [64] : "
                   f"({operand}) -> {result}\n  return %0 : {result}",
                   f"%a: {operand}", result)
    _, a = _cost(text)
    assert a.flops == expected


@pytest.mark.parametrize("opcode, flops_each", [("multiply", 6), ("add", 2), ("divide", 11)])
def test_complex_arithmetic_counts_real_flops(opcode, flops_each):
    # (a+bi)(c+di) = (ac-bd) + (ad+bc)i: 4 multiplies and 2 adds per element
    t = "tensor<16x8xcomplex<f32>>"
    text = _one_op(f"  %0 = stablehlo.{opcode} %a, %b : {t}\n  return %0 : {t}",
                   f"%a: {t}, %b: {t}", t)
    _, a = _cost(text)
    assert a.flops == 16 * 8 * flops_each


def test_2d_fft_counts_the_product_of_lengths():
    # 4 transforms of 32x32 = 1024 points: 5 * 1024 * log2(1024) = 51,200 each
    t = "tensor<4x32x32xcomplex<f32>>"
    text = _one_op(f"  %0 = stablehlo.fft %a, type = FFT, length = [32, 32] : ({t}) -> {t}\n"
                   f"  return %0 : {t}", f"%a: {t}", t)
    _, a = _cost(text)
    assert a.flops == 4 * 51_200

def test_gather_reads_only_gathered_rows_and_indices():
    text = """
func.func @main(%t: tensor<1000x64xf32>, %i: tensor<5x1xi32>) -> tensor<5x64xf32> {
  %0 = "stablehlo.gather"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 64>} : (tensor<1000x64xf32>, tensor<5x1xi32>) -> tensor<5x64xf32>
  return %0 : tensor<5x64xf32>
}
"""
    p, a = _cost(text)
    # reads 5*64*4 gathered + 5*4 indices, writes 5*64*4
    assert a.bytes_accessed == 1280 + 20 + 1280
    assert p.ops[0].attributes["dimension_numbers"]["start_index_map"] == [0]


@pytest.mark.parametrize("kind,body,expected", [
    # 4-way all_reduce of 1 KiB: ring sends 2*(4-1)/4*1024 = 1536 bytes
    ("all_reduce", "ar", 1536.0),
    # all_gather to 4 KiB over 4 devices: (4-1)/4*4096 = 3072
    ("all_gather", "ag", 3072.0),
    # reduce_scatter of 4 KiB over 4 devices: 3072
    ("reduce_scatter", "rs", 3072.0),
    # all_to_all of 1 KiB over 4: 768
    ("all_to_all", "a2a", 768.0),
    # collective_permute sends its whole buffer: 1024
    ("collective_permute", "cp", 1024.0),
])
def test_collective_bytes_per_device(kind, body, expected):
    red = """({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  })"""
    groups = "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"
    ops = {
        "ar": f'%0 = "stablehlo.all_reduce"(%a) {red} {{{groups}}} : (tensor<256xf32>) -> tensor<256xf32>',
        "ag": f'%0 = "stablehlo.all_gather"(%a) {{all_gather_dim = 0 : i64, {groups}}} : (tensor<256xf32>) -> tensor<1024xf32>',
        "rs": f'%0 = "stablehlo.reduce_scatter"(%b) {red} {{scatter_dimension = 0 : i64, {groups}}} : (tensor<1024xf32>) -> tensor<256xf32>',
        "a2a": f'%0 = "stablehlo.all_to_all"(%a) {{split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, {groups}}} : (tensor<256xf32>) -> tensor<256xf32>',
        "cp": '%0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<256xf32>) -> tensor<256xf32>',
    }
    out = "tensor<1024xf32>" if body == "ag" else "tensor<256xf32>"
    text = (f"func.func @main(%a: tensor<256xf32>, %b: tensor<1024xf32>) -> {out} {{\n"
            f"  {ops[body]}\n  return %0 : {out}\n}}")
    p, a = _cost(text)
    assert p.ops[0].opcode == kind
    assert a.communication_bytes == expected


def test_metadata_ops_cost_nothing():
    text = """
func.func @main(%a: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = stablehlo.reshape %a : (tensor<4x8xf32>) -> tensor<32xf32>
  %1 = stablehlo.bitcast_convert %0 : (tensor<32xf32>) -> tensor<32xi32>
  %2 = stablehlo.bitcast_convert %1 : (tensor<32xi32>) -> tensor<32xf32>
  return %2 : tensor<32xf32>
}
"""
    _, a = _cost(text)
    assert a.flops == 0 and a.bytes_accessed == 0 and not a.unpriced
    assert len(a.kernels) == 0


def test_unknown_op_is_reported_not_priced_zero():
    text = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @my_kernel(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    _, a = _cost(text)
    assert [u.opcode for u in a.unpriced] == ["custom_call"]
    assert "no cost rule" in " ".join(a.notes) and "custom_call @my_kernel" in " ".join(a.notes)
    pred = stablecost.predict(a, "H100-SXM")
    assert any("custom_call" in n for n in pred.notes)
    assert pred.kernels[0].bound == "unpriced"


_IDENTITY_CASES = [
    # (expression over %x and the splat %c, constant value, whether it does arithmetic)
    ("stablehlo.multiply %x, %c", "1.0", False),
    ("stablehlo.multiply %c, %x", "1.0", False),
    ("stablehlo.divide %x, %c", "1.0", False),
    ("stablehlo.add %c, %x", "0.0", False),
    ("stablehlo.subtract %x, %c", "0.0", False),
    ("stablehlo.divide %c, %x", "1.0", True),      # 1 / x is a reciprocal
    ("stablehlo.subtract %c, %x", "0.0", True),    # 0 - x is a negation
    ("stablehlo.multiply %x, %c", "2.0", True),
]


@pytest.mark.parametrize("expr, value, does_work", _IDENTITY_CASES)
def test_multiplying_by_one_or_adding_zero_costs_no_flops(expr, value, does_work):
    # XLA's algebraic simplifier deletes x*1, x/1, x+0, x-0 (jax's gradient seed of a
    # sum is `broadcast(1.0) * g`), so they do no arithmetic; a reshape or convert of
    # the broadcast constant does not hide it
    t = "tensor<16x8xf32>"
    text = _one_op(f"""
  %s = stablehlo.constant dense<{value}> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<128xf32>
  %c = stablehlo.reshape %b : (tensor<128xf32>) -> {t}
  %0 = {expr} : {t}
  return %0 : {t}""", f"%x: {t}", t)
    _, a = _cost(text)
    assert a.flops == (16 * 8 if does_work else 0)


@pytest.mark.parametrize("lhs, rhs, dims, out", [
    ("8x16", "8x12", "batching_dims = [0] x [0], contracting_dims = [] x []", "8x16x12"),
    ("64x1", "1x32", "contracting_dims = [1] x [0]", "64x32"),
])
def test_a_dot_that_contracts_nothing_is_one_multiply_per_output(lhs, rhs, dims, out):
    # an outer product (or a contracted size of 1) has no additions; XLA rewrites it as
    # a broadcast multiply
    text = _one_op(f"""
  %0 = stablehlo.dot_general %a, %b, {dims} : (tensor<{lhs}xf32>, tensor<{rhs}xf32>) -> tensor<{out}xf32>
  return %0 : tensor<{out}xf32>""", f"%a: tensor<{lhs}xf32>, %b: tensor<{rhs}xf32>",
                   f"tensor<{out}xf32>")
    _, a = _cost(text)
    outputs = 1
    for d in out.split("x"):
        outputs *= int(d)
    assert a.flops == outputs


CUSTOM_CALLS = __import__("pathlib").Path(__file__).resolve().parent / "custom_calls"


def _custom_calls(name):
    a = stablecost.analyze(CUSTOM_CALLS / name)
    return a, [(op, cost) for op, cost in zip(a.program.ops, a.costs) if op.opcode == "custom_call"]


def test_cudnn_flash_attention_is_priced_from_its_score_shape_and_mask():
    """jax's cuDNN attention (exported by tests/custom_calls/export.py): per computed
    (query, key) pair, the forward does Q.K and P.V (2 x (64 + 64) FLOPs) plus 4 for the
    softmax and one exp; the backward recomputes the scores and does four more products
    (2 x (3 x 64 + 2 x 64)). A causal mask computes the lower triangle only."""
    a, calls = _custom_calls("cudnn_attention_causal_train.mlir")
    assert not a.unpriced
    (fwd_op, fwd), (bwd_op, bwd) = calls
    assert fwd_op.attributes["call_target_name"] == "__cudnn$fmhaSoftmax"
    pairs = 2 * 8 * (128 * 129 // 2)           # batch 2, 8 heads, causal 128 x 128
    assert fwd.transcendentals == bwd.transcendentals == pairs
    assert fwd.flops == pairs * (2 * (64 + 64) + 4)
    assert bwd.flops == pairs * (2 * (3 * 64 + 2 * 64) + 4)
    assert fwd.unit == bwd.unit == "matmul"
    # the score matrix never reaches memory: q, k, v in; the output and the softmax
    # statistics (f32, one per query and head) out
    qkv = 2 * 128 * 8 * 64 * 2
    assert sum(fwd.read_bytes) == 3 * qkv
    assert sum(fwd.write_bytes) == qkv + 2 * 8 * 128 * 4
    assert "backend_config" in fwd_op.attributes and "body" not in str(fwd_op.attributes)

    _, [(_, cross)] = _custom_calls("cudnn_attention_cross_fwd.mlir")
    assert cross.transcendentals == 2 * 4 * 64 * 256    # no mask: every pair
    _, [(_, window)] = _custom_calls("cudnn_attention_window_fwd.mlir")
    # causal with a 32-key window: queries 0..31 see t + 1 keys, the other 96 see 32
    assert window.transcendentals == 2 * 8 * (32 * 33 // 2 + 96 * 32)


def test_cudnn_attention_matmul_flops_match_the_unfused_xla_program():
    """The flash kernel's products are the two dots of the same attention written out."""
    import jax
    import jax.numpy as jnp

    q = jnp.ones((2, 64, 4, 64), jnp.bfloat16)
    kv = jnp.ones((2, 256, 4, 64), jnp.bfloat16)
    unfused = stablecost.analyze(jax.jit(lambda q, k, v: jax.nn.dot_product_attention(
        q, k, v, implementation="xla")).lower(q, kv, kv))
    dots = sum(c.flops for op, c in zip(unfused.program.ops, unfused.costs)
               if op.opcode == "dot_general")
    _, [(_, flash)] = _custom_calls("cudnn_attention_cross_fwd.mlir")
    assert flash.flops - 4 * flash.transcendentals == dots


def test_pallas_kernel_is_priced_by_its_authors_estimate_or_reported():
    a, [(op, cost)] = _custom_calls("pallas_tpu_estimate.mlir")
    assert not a.unpriced
    assert cost.flops == a.flops == 2 * 256 * 512 and cost.transcendentals == 0
    assert sum(cost.read_bytes) + sum(cost.write_bytes) == 3 * 256 * 512 * 4
    assert cost.unit == "vector"              # 1/6 FLOP per byte: not a matmul kernel
    assert len(str(op.attributes)) < 400      # the kernel body is not kept
    prediction = stablecost.predict(a, "TPU-v5p", fidelity="roofline")
    assert prediction.step_time_s > 0

    # a kernel that also sends data (a collective matmul) says so
    text = (CUSTOM_CALLS / "pallas_tpu_estimate.mlir").read_text()
    sending = text.replace("remote_bytes_transferred\\22:0", "remote_bytes_transferred\\22:4096")
    assert sending != text
    a = stablecost.analyze(sending)
    assert a.communication_bytes == 4096
    assert any("tpu_custom_call send data to other chips" in note for note in a.notes)

    a, _ = _custom_calls("pallas_tpu_no_estimate.mlir")
    assert [u.opcode for u in a.unpriced] == ["custom_call"]
    assert any("no cost rule" in note and "custom_call @tpu_custom_call" in note
               for note in a.notes)


CHLO_SCAN = """
func.func @main(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<8xf32>
  %0:2 = chlo.scan(%x) inits (%c) dimension=1 attributes {is_associative = true, is_reverse = false} {
  ^bb0(%in: tensor<8xf32>, %carry: tensor<8xf32>):
    %1 = stablehlo.add %in, %carry : tensor<8xf32>
    stablehlo.return %1, %1 : tensor<8xf32>, tensor<8xf32>
  } : (tensor<8x1024xf32>, tensor<8xf32>) -> (tensor<8x1024xf32>, tensor<8xf32>)
  return %0#0 : tensor<8x1024xf32>
}
"""


def test_chlo_scan_is_priced_as_the_cumulative_reduce_window_jax_0_10_lowered():
    """jax 0.11 lowers jnp.cumsum to chlo.scan; it is read as the reduce_window it was."""
    from stablecost.featurize.analysis import analyze

    analysis = analyze(CHLO_SCAN)
    (scan,) = [op for op in analysis.program.ops if op.opcode == "reduce_window"]
    assert scan.attributes["window_dimensions"] == [1, 1024]
    assert scan.attributes["padding"] == [[0, 0], [1023, 0]]
    cost = analysis.costs[scan.index]
    assert cost.flops == 8 * 1024 * 17          # XLA's tiled scan: 17 adds per element
    assert sum(cost.read_bytes) == 8 * 1024 * 4 + 8 * 4
