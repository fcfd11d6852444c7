"""Robustness: a corpus of 200+ varied programs (every op family, pretty and generic
syntax, bytecode, nested regions, shard_map collectives) loads, analyzes and
predicts with zero crashes."""

from __future__ import annotations

import io

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

import stablecost
from stablecost.featurize.mlir import bindings, context

x8 = jnp.ones((8, 16), jnp.float32)
img = jnp.ones((2, 8, 8, 4), jnp.float32)
idx = jnp.array([1, 3, 5], jnp.int32)


def _families():
    f = {}
    un = [jnp.exp, jnp.log1p, jnp.tanh, jnp.sin, jnp.cos, jnp.sqrt, jax.lax.rsqrt, jnp.abs,
          jnp.sign, jnp.floor, jnp.ceil, jnp.round, jax.nn.sigmoid, jax.scipy.special.erf,
          jnp.expm1, jnp.cbrt, jnp.tan, jax.lax.erf_inv, jax.lax.lgamma,
          jax.lax.digamma, jnp.arctan, jnp.sinh, jnp.isfinite, jnp.logical_not]
    for i, fn in enumerate(un):
        f[f"unary_{i}_{getattr(fn, '__name__', 'fn')}"] = (fn, (x8,))
    bins = [jnp.add, jnp.subtract, jnp.multiply, jnp.divide, jnp.maximum, jnp.minimum,
            jnp.power, jnp.arctan2, jnp.remainder, jnp.greater, jnp.equal, jnp.hypot]
    for i, fn in enumerate(bins):
        f[f"binary_{i}_{fn.__name__}"] = (fn, (x8, x8 + 1))
    ints = jnp.arange(128, dtype=jnp.int32).reshape(8, 16)
    f.update({
        "bitwise": (lambda a: (a & 3) | (a ^ 5) << 1 >> 2, (ints,)),
        "popcount": (jax.lax.population_count, (ints,)),
        "clz": (jax.lax.clz, (ints,)),
        "convert_bf16": (lambda a: a.astype(jnp.bfloat16) * 2, (x8,)),
        "convert_f16_i8": (lambda a: a.astype(jnp.float16).astype(jnp.int8), (x8,)),
        "bitcast": (lambda a: jax.lax.bitcast_convert_type(a, jnp.int32), (x8,)),
        "select": (lambda a: jnp.where(a > 0.5, a, -a), (x8,)),
        "clamp": (lambda a: jnp.clip(a, 0.1, 0.9), (x8,)),
        "iota": (lambda a: a + jnp.arange(16), (x8,)),
        "broadcast": (lambda a: jnp.broadcast_to(a[:, None, :], (8, 4, 16)), (x8,)),
        "reshape": (lambda a: a.reshape(16, 8).T, (x8,)),
        "transpose3d": (lambda a: jnp.transpose(a, (2, 0, 1)), (img[0],)),
        "slice": (lambda a: a[1:5, ::2], (x8,)),
        "pad": (lambda a: jnp.pad(a, ((1, 2), (0, 3))), (x8,)),
        "pad_interior": (lambda a: jax.lax.pad(a, 0.0, ((1, 1, 1), (0, 0, 2))), (x8,)),
        "concat": (lambda a: jnp.concatenate([a, a * 2], axis=1), (x8,)),
        "reverse": (lambda a: a[::-1], (x8,)),
        "reduce_sum": (lambda a: a.sum(1), (x8,)),
        "reduce_max": (lambda a: a.max(), (x8,)),
        "argmax": (lambda a: jnp.argmax(a, axis=1), (x8,)),
        "reduce_window_max": (lambda a: jax.lax.reduce_window(
            a, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"), (img,)),
        "avg_pool": (lambda a: jax.lax.reduce_window(
            a, 0.0, jax.lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9, (img,)),
        "maxpool_grad": (jax.grad(lambda a: jax.lax.reduce_window(
            a, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").sum()), (img,)),
        "gather": (lambda a, i: a[i], (x8, idx)),
        "take_along": (lambda a: jnp.take_along_axis(a, jnp.zeros((8, 1), jnp.int32), 1), (x8,)),
        "scatter_add": (lambda a, i: a.at[i].add(1.0), (x8, idx)),
        "scatter_set": (lambda a, i: a.at[i, 2].set(0.0), (x8, idx)),
        "dynamic_slice": (lambda a, i: jax.lax.dynamic_slice(a, (i[0], 0), (2, 16)), (x8, idx)),
        "dynamic_update_slice": (lambda a, i: jax.lax.dynamic_update_slice(
            a, jnp.zeros((2, 16)), (i[0], 0)), (x8, idx)),
        "sort": (lambda a: jnp.sort(a, axis=1), (x8,)),
        "argsort": (lambda a: jnp.argsort(a[0]), (x8,)),
        "top_k": (lambda a: jax.lax.top_k(a, 3), (x8,)),
        "cumsum": (lambda a: jnp.cumsum(a, axis=1), (x8,)),
        "matmul": (lambda a: a @ a.T, (x8,)),
        "matmul_bf16": (lambda a: (a.astype(jnp.bfloat16) @ a.T.astype(jnp.bfloat16)), (x8,)),
        "batched_einsum": (lambda a: jnp.einsum("bij,bkj->bik", a, a), (img[0],)),
        "matvec": (lambda a: a @ a[0], (x8,)),
        "conv_nhwc": (lambda a: jax.lax.conv_general_dilated(
            a, jnp.ones((3, 3, 4, 8)), (1, 1), "SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC")), (img,)),
        "conv_strided_dilated": (lambda a: jax.lax.conv_general_dilated(
            a, jnp.ones((3, 3, 4, 8)), (2, 2), "SAME", rhs_dilation=(2, 2),
            dimension_numbers=("NHWC", "HWIO", "NHWC")), (img,)),
        "conv_transpose": (lambda a: jax.lax.conv_transpose(
            a, jnp.ones((3, 3, 4, 4)), (2, 2), "SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC")), (img,)),
        "conv_grad": (jax.grad(lambda a: jax.lax.conv_general_dilated(
            a, jnp.ones((4, 1, 3, 3)), (1, 1), "SAME", feature_group_count=4,
            dimension_numbers=("NHWC", "OIHW", "NHWC")).sum()), (img,)),
        "conv1d": (lambda a: jax.lax.conv_general_dilated(
            a, jnp.ones((8, 8, 3)), (1,), "VALID"), (jnp.ones((2, 8, 32)),)),
        "softmax": (jax.nn.softmax, (x8,)),
        "layernorm": (lambda a: (a - a.mean(-1, keepdims=True)) /
                      jnp.sqrt(a.var(-1, keepdims=True) + 1e-5), (x8,)),
        "logsumexp": (jax.nn.logsumexp, (x8,)),
        "rng_bits": (lambda k: jax.random.normal(k, (4, 4)), (jax.random.key(0),)),
        "rng_uniform": (lambda k: jax.random.uniform(jax.random.wrap_key_data(k), (8,)),
                        (jax.random.key_data(jax.random.key(1)),)),
        "rng_bit_generator": (lambda k: jax.lax.rng_bit_generator(k, (8, 8))[1],
                              (jnp.zeros((4,), jnp.uint32),)),
        "fft": (lambda a: jnp.fft.rfft(a).real, (x8,)),
        "complex": (lambda a: jnp.abs(a + 1j * a), (x8,)),
        "lapack_cholesky": (lambda a: jnp.linalg.cholesky(a @ a.T + 16 * jnp.eye(8)), (x8,)),
        "lapack_triangular_solve": (lambda a: jax.scipy.linalg.solve_triangular(
            jnp.tril(a[:, :8]) + jnp.eye(8), a, lower=True), (x8,)),
        "fori_loop": (lambda a: jax.lax.fori_loop(0, 6, lambda i, v: jnp.tanh(v @ v.T @ v), a), (x8,)),
        "scan_rnn": (lambda a: jax.lax.scan(lambda c, r: (jnp.tanh(c @ jnp.ones((16, 16)) + r), c),
                                            a[0], a)[1], (x8,)),
        "while_dynamic": (lambda a: jax.lax.while_loop(lambda v: v.sum() < 1e3, lambda v: v * 2, a), (x8,)),
        "nested_loops": (lambda a: jax.lax.fori_loop(0, 3, lambda i, v: jax.lax.fori_loop(
            0, 4, lambda j, w: w * 1.5, v), a), (x8,)),
        "cond": (lambda p, a: jax.lax.cond(p, jnp.sin, jnp.cos, a), (True, x8)),
        "switch": (lambda i, a: jax.lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], a), (1, x8)),
        "remat": (jax.grad(lambda a: jax.checkpoint(lambda v: jnp.sin(v @ v.T).sum())(a)), (x8,)),
        "vmap_matmul": (jax.vmap(lambda a: a @ a.T), (img[..., 0],)),
        "map": (lambda a: jax.lax.map(lambda r: r * 2, a), (x8,)),
        "custom_jvp": (jax.grad(lambda a: jax.nn.gelu(a).sum()), (x8,)),
        "mlp_train": (jax.grad(lambda w, a: jnp.mean((jax.nn.relu(a @ w) @ w.T - a) ** 2)),
                      (jnp.ones((16, 32)), x8)),
        "optimization_barrier": (lambda a: jax.lax.optimization_barrier(a) * 2, (x8,)),
        "reduce_precision": (lambda a: jax.lax.reduce_precision(a, 5, 10), (x8,)),
        "int_matmul": (lambda a: jax.lax.dot(a, a.T, preferred_element_type=jnp.int32),
                       (jnp.ones((8, 16), jnp.int8),)),
        "f64_ops": (lambda a: a.astype(jnp.float16) * 3, (x8,)),
        "expand_dims_einsum": (lambda a: jnp.einsum("ij,jk->ik", a, a.T), (x8,)),
    }
    )
    return f


def _shard_map_programs():
    devices = np.array(jax.devices()[:8])
    if len(devices) < 8:
        return {}
    mesh = Mesh(devices.reshape(4, 2), ("data", "model"))
    from jax import shard_map

    def sm(fn, in_specs, out_specs):
        return shard_map(fn, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                         check_vma=False)

    a = jnp.ones((32, 16))
    progs = {
        "psum": (sm(lambda v: jax.lax.psum(v, "data"), P("data"), P()), (a,)),
        "psum_2d": (sm(lambda v: jax.lax.psum(v, ("data", "model")), P("data", "model"), P()), (a,)),
        "all_gather": (sm(lambda v: jax.lax.all_gather(v, "data", tiled=True), P("data"), P()), (a,)),
        "psum_scatter": (sm(lambda v: jax.lax.psum_scatter(v, "data", tiled=True), P(), P("data")), (a,)),
        "all_to_all": (sm(lambda v: jax.lax.all_to_all(v, "data", 0, 0, tiled=True), P("data"), P("data")), (a,)),
        "ppermute": (sm(lambda v: jax.lax.ppermute(v, "data", [(i, (i + 1) % 4) for i in range(4)]),
                        P("data"), P("data")), (a,)),
        "pmax": (sm(lambda v: jax.lax.pmax(v, "model"), P(None, "model"), P()), (a,)),
        "dp_matmul": (sm(lambda v, w: jax.lax.psum(v @ w, "model"), (P("data", "model"), P("model")),
                         P("data")), (a, jnp.ones((16, 8)))),
    }
    return progs


def _forms(name, fn, args):
    lowered = jax.jit(fn).lower(*args)
    text = lowered.as_text(debug_info=True)
    ir = bindings()[0]
    with context():
        module = ir.Module.parse(text)
        generic = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
        buf = io.BytesIO()
        module.operation.write_bytecode(buf)
    return {f"{name}/pretty": text, f"{name}/generic": generic,
            f"{name}/bytecode": buf.getvalue()}


# Ops JAX on CPU does not emit (it calls LAPACK instead), written by hand.
_HANDWRITTEN = {
    "cholesky": """
func.func @main(%a: tensor<3x8x8xf32>) -> tensor<3x8x8xf32> {
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x8x8xf32>) -> tensor<3x8x8xf32>
  return %0 : tensor<3x8x8xf32>
}""",
    "triangular_solve": """
func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}""",
    "batch_norm_training": """
func.func @main(%x: tensor<4x8x8x16xf32>, %s: tensor<16xf32>, %o: tensor<16xf32>) -> tensor<4x8x8x16xf32> {
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 3 : i64} : (tensor<4x8x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<4x8x8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return %0#0 : tensor<4x8x8x16xf32>
}""",
    "dot_legacy_and_tuple": """
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = stablehlo.tuple %0, %a : tuple<tensor<4x2xf32>, tensor<4x8xf32>>
  %2 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<4x2xf32>, tensor<4x8xf32>>) -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}""",
}


def _handwritten_forms():
    programs = {}
    ir = bindings()[0]
    for name, text in _HANDWRITTEN.items():
        with context():
            module = ir.Module.parse(text)
            generic = module.operation.get_asm(print_generic_op_form=True)
            buf = io.BytesIO()
            module.operation.write_bytecode(buf)
        programs.update({f"{name}/pretty": text, f"{name}/generic": generic,
                         f"{name}/bytecode": buf.getvalue()})
    return programs


@pytest.fixture(scope="module")
def corpus():
    programs = _handwritten_forms()
    for name, (fn, args) in {**_families(), **_shard_map_programs()}.items():
        programs.update(_forms(name, fn, args))
    return programs


def test_corpus_loads_analyzes_and_predicts(corpus):
    assert len(corpus) >= 200
    failures = []
    opcodes = set()
    for name, source in corpus.items():
        try:
            program = stablecost.load_program(source, name=name)
            analysis = stablecost.analyze(program)
            prediction = stablecost.predict(analysis, "TPU-v5e")
            assert prediction.step_time_s >= 0
            opcodes.update(op.opcode for op in program.ops)
            # only foreign kernels (LAPACK custom calls) may lack a cost rule
            assert {u.opcode for u in analysis.unpriced} <= {"custom_call"}, analysis.unpriced
        except Exception as exc:  # collect all failures, report them together
            failures.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures)
    # every op family is represented
    for family in ("dot_general", "convolution", "reduce", "reduce_window", "gather",
                   "scatter", "sort", "while", "all_reduce", "all_gather", "reduce_scatter",
                   "all_to_all", "collective_permute", "select_and_scatter", "fft",
                   "dynamic_slice", "dynamic_update_slice", "pad", "concatenate", "iota",
                   "rng_bit_generator", "cholesky", "triangular_solve"):
        if family == "while":
            continue  # loops are not ops; covered by the loop tests
        assert family in opcodes, family


def test_forms_agree(corpus):
    """Pretty, generic and bytecode forms of a program analyze identically."""
    names = sorted({n.split("/")[0] for n in corpus})
    for name in names:
        results = {form: stablecost.analyze(stablecost.load_program(corpus[f"{name}/{form}"]))
                   for form in ("pretty", "generic", "bytecode")}
        flops = {form: (a.flops, a.bytes_accessed, len(a.kernels)) for form, a in results.items()}
        assert len(set(flops.values())) == 1, (name, flops)
