"""Quantized programs (`!quant.uniform` element types): priced as their integer
arithmetic. A quantized value is typed as its integer storage, so a quantized dot or
convolution runs at the chip's integer (i8) matrix rate; uniform_quantize and
uniform_dequantize are elementwise passes of 5 and 4 FLOPs per element."""

from __future__ import annotations

import pytest

import stablecost
from stablecost.dtypes import quantized_storage
from stablecost.featurize.analysis import analyze
from stablecost.hardware import get_hardware
from stablecost.models.roofline import kernel_time

QDOT = """
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x16xf32> {
  %0 = stablehlo.uniform_quantize %x : (tensor<4x8xf32>) -> tensor<4x8x!quant.uniform<i8:f32, 0.1:3>>
  %1 = stablehlo.dot_general %0, %w, contracting_dims = [1] x [0] : (tensor<4x8x!quant.uniform<i8:f32, 0.1:3>>, tensor<8x16x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x16x!quant.uniform<i32:f32, 0.05>>
  %2 = stablehlo.uniform_dequantize %1 : (tensor<4x16x!quant.uniform<i32:f32, 0.05>>) -> tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}
"""

QCONV = """
func.func @main(%x: tensor<1x8x8x4x!quant.uniform<i8:f32, 0.1>>, %k: tensor<3x3x4x8x!quant.uniform<i8:f32:3, {0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2}>>) -> tensor<1x6x6x8x!quant.uniform<i32:f32:3, {0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02}>> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4x!quant.uniform<i8:f32, 0.1>>, tensor<3x3x4x8x!quant.uniform<i8:f32:3, {0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2}>>) -> tensor<1x6x6x8x!quant.uniform<i32:f32:3, {0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02}>>
  return %0 : tensor<1x6x6x8x!quant.uniform<i32:f32:3, {0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02}>>
}
"""


def test_quantized_dot_hand_worked():
    a = analyze(stablecost.load_program(QDOT))
    ops = a.program.ops
    assert [op.opcode for op in ops] == ["uniform_quantize", "dot_general",
                                         "uniform_dequantize"]
    assert [str(t) for t in ops[1].operands] == ["4x8xi8", "8x16xi8"]
    assert str(ops[1].results[0]) == "4x16xi32"
    # quantize 4*8 elements x 5 = 160; dot 2*4*16*8 = 1024; dequantize 4*16 x 4 = 256
    assert a.flops == 160 + 1024 + 256
    # quantize reads 128 B (f32) writes 32 B (i8); dot reads 32 + 128 writes 256 (i32);
    # dequantize reads 256 writes 256 (f32)
    assert a.bytes_accessed == (128 + 32) + (32 + 128 + 256) + (256 + 256)
    assert any("priced as their integer storage types" in n for n in a.notes)


def test_quantized_convolution_per_axis_hand_worked():
    a = analyze(stablecost.load_program(QCONV))
    (conv,) = a.program.ops
    assert [t.dtype for t in conv.operands] == ["i8", "i8"]
    # 2 x 4 in features x 8 out features x 1 batch x 6*6 outputs x 3*3 taps
    assert a.flops == 2 * 4 * 8 * 36 * 9
    # input 1*8*8*4 B, kernel 3*3*4*8 B, output 1*6*6*8 i32
    assert a.bytes_accessed == 256 + 288 + 288 * 4


def test_quantized_matmul_runs_at_the_int8_rate():
    a = analyze(stablecost.load_program(QDOT))
    hw = get_hardware("H100-SXM")
    kernel = next(k for k in a.kernels if k.kind == "matmul")
    t = kernel_time(kernel, a.program, hw)
    assert kernel.matmul_flops == 1024
    assert t.compute_s == pytest.approx(
        1024 / hw.matmul_flops_per_s["i8"]
        + (kernel.flops - kernel.matmul_flops) / hw.vector_peak_flops_per_s("f32"))


def test_requantize_is_dequantize_and_quantize():
    text = """
func.func @main(%x: tensor<10x!quant.uniform<i8:f32, 0.1>>) -> tensor<10x!quant.uniform<i8:f32, 0.2:1>> {
  %0 = stablehlo.uniform_quantize %x : (tensor<10x!quant.uniform<i8:f32, 0.1>>) -> tensor<10x!quant.uniform<i8:f32, 0.2:1>>
  return %0 : tensor<10x!quant.uniform<i8:f32, 0.2:1>>
}
"""
    a = analyze(stablecost.load_program(text))
    assert a.flops == 10 * (4 + 5)
    assert a.bytes_accessed == 10 + 10


@pytest.mark.parametrize("dtype, storage", [
    ("!quant.uniform<i8:f32, 0.1:3>", "i8"),
    ("!quant.uniform<u8:f32, 0.1>", "ui8"),
    ("!quant.uniform<i8<-127:127>:f32:1, {0.1, 0.2}>", "i8"),
    ("!quant.uniform<i32:f32, 0.05>", "i32"),
    ("!quant.uniform<i4:f32, 2.0:1>", "i4"),
    ("f32", None),
    ("!quant.uniform<f8E4M3FN:f32, 0.1>", None),
])
def test_quantized_storage(dtype, storage):
    assert quantized_storage(dtype) == storage


def test_quantized_bytecode_is_read_too(tmp_path):
    from stablecost.featurize.mlir import context, parse_module

    module = parse_module(QDOT)
    with context():
        data = module.operation.get_asm(binary=True)
    path = tmp_path / "qdot.mlirbc"
    path.write_bytes(data)
    assert analyze(stablecost.load_program(path)).flops == 160 + 1024 + 256
