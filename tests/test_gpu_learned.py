"""The bundled GPU kernel model (models/bundled/gpu/): which chips it prices, per-kernel
intervals, per-kernel roofline fallback outside its data, and f32 dots as the chip runs
them (TF32 at DEFAULT precision on Ampere and later, true fp32 at HIGHEST)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import stablecost
from stablecost.featurize.fusion import MATMUL
from stablecost.hardware import get_hardware, list_hardware
from stablecost.models import cost_model, learned
from stablecost.models.coverage import kernel_class
from stablecost.models.features import FEATURES, kernel_features

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _gemm(dtype: str, n: int = 1024, precision: str = "") -> str:
    t = f"tensor<{n}x{n}x{dtype}>"
    attr = f", precision = [{precision}, {precision}]" if precision else ""
    return f"""
func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]{attr} : ({t}, {t}) -> {t}
  return %0 : {t}
}}"""


# a bf16 GEMM (covered: aiconfigurator bf16) feeding a bf16 row sum (not covered:
# NeuSight's reductions are fp32)
GEMM_THEN_BF16_SUM = """
func.func @main(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024xbf16> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  %z = stablehlo.constant dense<0.0> : tensor<bf16>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1024x1024xbf16>, tensor<bf16>) -> tensor<1024xbf16>
  return %1 : tensor<1024xbf16>
}"""


def test_the_gpu_bundle_prices_every_catalog_nvidia_gpu_and_no_other_chip():
    bundle = learned.BUNDLE_ROOT / learned.GPU_BUNDLE / "kernel_xgb"
    assert sum(f.stat().st_size for f in bundle.iterdir()) < 6e6   # a few MB at most
    model = cost_model.get("learned")
    gpus = [hw for hw in list_hardware() if hw.kind == "gpu"]
    for hw in gpus:
        assert model.covers(hw) is (hw.vendor == "NVIDIA"), hw.name
        assert cost_model.auto(hw).name == ("learned" if hw.vendor == "NVIDIA" else "roofline")
    assert not model.covers(get_hardware("TPU-v5p"))
    models = learned.models_for(get_hardware("H100-SXM"))
    assert models is not None and models.path.name == "gpu" and models.is_gpu_bundle
    meta = models.kernel_meta
    assert meta["command"].startswith("python -m stablecost.train.gpu_kernels")
    assert {"H100-SXM", "T4", "A100-SXM-80GB"} <= set(meta["chips"])
    assert "matmul:dot_general:bf16" in meta["coverage"]
    # the absolute peaks are left out (train/gpu_corpus.py says why)
    assert models.kernel.ignored_features == ("hw_matmul_peak", "hw_vector_peak")


def test_predict_on_a_catalog_gpu_is_learned_with_per_kernel_intervals():
    p = stablecost.predict(_gemm("bf16"), "H100-SXM")
    roof = stablecost.predict(_gemm("bf16"), "H100-SXM", fidelity="roofline")
    assert p.fidelity == "learned" and "gpu" in p.model
    [row] = p.kernels
    assert row.time_low_s is not None and row.time_low_s <= row.time_s <= row.time_high_s
    assert row.time_s != roof.kernels[0].time_s
    assert not any("priced by the roofline" in n for n in p.notes)
    # the same kernel on another chip is priced through that chip's spec
    b200 = stablecost.predict(_gemm("bf16"), "B200")
    assert b200.fidelity == "learned" and b200.step_time_s < p.step_time_s


def test_a_short_gpu_step_says_how_far_either_fidelity_was_on_such_steps():
    from stablecost.models.cost_model import GPU_SHORT_STEP_S

    short = stablecost.predict(_gemm("bf16"), "H100-SXM")            # a few microseconds
    assert short.step_time_s < GPU_SHORT_STEP_S
    assert any("is mostly launches and dispatch" in n for n in short.notes)
    long = stablecost.predict(_gemm("bf16", n=16384), "H100-SXM")    # about 10 ms
    assert long.step_time_s > GPU_SHORT_STEP_S
    assert not any("is mostly launches and dispatch" in n for n in long.notes)
    # a CPU step of any length is not a GPU step
    cpu = stablecost.predict(_gemm("f32", n=64), "host-cpu", fidelity="learned")
    assert not any("is mostly launches and dispatch" in n for n in cpu.notes)


def test_a_kernel_outside_the_training_data_falls_back_to_the_roofline_with_a_note():
    p = stablecost.predict(GEMM_THEN_BF16_SUM, "H100-SXM")
    roof = stablecost.predict(GEMM_THEN_BF16_SUM, "H100-SXM", fidelity="roofline")
    assert p.fidelity == "learned"
    dot, total = p.kernels
    assert dot.kind == MATMUL and dot.time_low_s is not None
    assert total.kind == "reduction" and total.time_low_s is None
    assert total.time_s == pytest.approx(roof.kernels[1].time_s)   # launch overhead included
    # the fallback kernel's launch overhead is reported as overhead, as the roofline's is
    assert p.overhead_s == pytest.approx(roof.kernels[1].time_s - max(
        roof.kernels[1].compute_s, roof.kernels[1].memory_s))
    [note] = [n for n in p.notes if "priced by the roofline" in n]
    assert "reduction:bf16 (no such kernel in the training data): 1 kernel run(s)" in note


def test_a_gemm_outside_its_class_training_range_falls_back_with_a_note():
    """The GEMM tables' bf16 GEMMs are all unbatched: a batched bf16 GEMM (attention's
    heads) is priced by the roofline and the note says which feature is out of range."""
    t_in, t_out = "tensor<32x512x512xbf16>", "tensor<32x512x512xbf16>"
    batched = f"""
func.func @main(%a: {t_in}, %b: {t_in}) -> {t_out} {{
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : ({t_in}, {t_in}) -> {t_out}
  return %0 : {t_out}
}}"""
    p = stablecost.predict(batched, "H100-SXM")
    roof = stablecost.predict(batched, "H100-SXM", fidelity="roofline")
    assert p.fidelity == "learned"
    assert p.kernels[0].time_s == pytest.approx(roof.kernels[0].time_s)
    [note] = [n for n in p.notes if "priced by the roofline" in n]
    assert "matmul:dot_general:bf16 with dot_batch outside its training range" in note
    # an unbatched one of the same work stays learned
    assert not any("priced by the roofline" in n
                   for n in stablecost.predict(_gemm("bf16", 2048), "H100-SXM").notes)


def test_out_of_range_reads_the_bundled_ranges():
    from stablecost.models.coverage import RANGE_FEATURES, out_of_range

    ranges = {"matmul:dot_general:bf16": {name: [1.0, 10.0] for name in RANGE_FEATURES}}
    x = np.zeros(len(FEATURES))
    for name in RANGE_FEATURES:
        x[FEATURES.index(name)] = 5.0
    assert out_of_range("matmul:dot_general:bf16", x, ranges) == ""
    assert out_of_range("loop:f32", x, ranges) == ""          # no range recorded
    x[FEATURES.index("dot_k")] = 11.5                          # beyond the factor-2 margin
    assert "dot_k outside its training range" in out_of_range(
        "matmul:dot_general:bf16", x, ranges)
    meta = learned.load_models("gpu").kernel_meta
    assert set(meta["ranges"]) == set(meta["coverage"])


def test_f32_dots_run_as_tf32_at_default_precision_and_as_fp32_at_highest():
    h100, v100 = get_hardware("H100-SXM"), get_hardware("V100-SXM2")
    default, highest = (stablecost.analyze(_gemm("f32", precision=p)) for p in ("", "HIGHEST"))
    [k_default], [k_highest] = default.kernels, highest.kernels
    assert kernel_class(k_default, default.program, h100) == "matmul:dot_general:tf32"
    assert kernel_class(k_highest, highest.program, h100) == "matmul:dot_general:f32"
    assert kernel_class(k_default, default.program, v100) == "matmul:dot_general:f32"
    # the chip's peak the roofline features are computed from: TF32's 494.5 TF at
    # DEFAULT, fp32's 67 TF at HIGHEST
    col = FEATURES.index("hw_matmul_peak")
    peak = [kernel_features(k, a.program, h100)[col]
            for k, a in ((k_default, default), (k_highest, highest))]
    assert 2 ** np.array(peak) - 1 == pytest.approx([494_500, 67_000], rel=1e-4)
    # no TF32 GEMM was measured: the roofline prices it, at the TF32 rate, and says so;
    # true-fp32 GEMMs were (NeuSight): learned
    tf32 = stablecost.predict(_gemm("f32"), "H100-SXM")
    assert tf32.kernels[0].time_low_s is None
    assert any("matmul:dot_general:tf32" in n for n in tf32.notes)
    fp32 = stablecost.predict(_gemm("f32", precision="HIGHEST"), "H100-SXM")
    assert fp32.kernels[0].time_low_s is not None
    assert not any("priced by the roofline" in n for n in fp32.notes)
    # on Volta the DEFAULT f32 dot is a true fp32 GEMM: learned
    assert stablecost.predict(_gemm("f32"), "V100-SXM2").kernels[0].time_low_s is not None


def test_cli_predict_on_a_gpu_says_learned(tmp_path, capsys):
    from stablecost.serve.cli import main

    program = tmp_path / "gemm.mlir"
    program.write_text(_gemm("bf16"))
    assert main(["predict", str(program), "--hardware", "H100-SXM"]) == 0
    out = capsys.readouterr().out
    assert "learned" in out


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared GPU data at {DATA}")
def test_the_corpus_slices_chips_by_family_with_their_coverage_classes():
    from stablecost.train.gpu_corpus import load_parts

    parts = load_parts(DATA, rows=40, chips=["T4", "H100-SXM"])
    got = {(p.chip, p.family) for p in parts}
    assert ("H100-SXM", "gemm") in got and ("T4", "bmm") in got and ("T4", "softmax") in got
    assert ("H100-SXM", "attention") in got
    classes = {c for p in parts for c, _ in p.classes}
    # attention rows are the one fused kernel that ran, not three unfused kernels
    assert {c for p in parts if p.family == "attention" for c, _ in p.classes} == {
        "standalone:fmha:bf16"}
    assert {"matmul:dot_general:bf16", "matmul:dot_general:f8",
            "matmul:dot_general:f32", "loop:f32"} <= classes
    assert not any(c.endswith("tf32") for c in classes)   # NeuSight turned TF32 off


CUSTOM_CALLS = Path(__file__).resolve().parent / "custom_calls"


def test_the_fused_attention_template_is_one_flash_attention_kernel():
    from stablecost.datasets.templates import fused_attention

    a = stablecost.analyze(fused_attention(1, 1, 1, 2, 2, 4, causal=True))
    [k] = a.kernels
    # causal 2 x 2: 3 visible (query, key) pairs; per pair 2 x (4 + 4) + 4 = 20 FLOPs and
    # one exp; bytes: q, k, v and o, each 1 x 2 x 1 x 4 bf16 = 16 B
    assert (k.flops, k.matmul_flops, k.transcendentals, k.bytes_accessed) == (60, 60, 3, 64)
    assert kernel_class(k, a.program, get_hardware("H100-SXM")) == "standalone:fmha:bf16"
    # decode (one query) over 100 keys of 2 kv heads shared by 8 query heads: no mask
    [k] = stablecost.analyze(fused_attention(2, 8, 2, 1, 100, 128, causal=True)).kernels
    assert k.transcendentals == 2 * 8 * 100
    assert k.bytes_accessed == 2 * (2 * 8 * 128) * 2 + 2 * (2 * 100 * 2 * 128) * 2
    with pytest.raises(ValueError, match="q_len == kv_len"):
        fused_attention(1, 1, 1, 3, 5, 4, causal=True)


def test_a_cudnn_flash_attention_kernel_is_priced_from_the_fused_attention_data():
    """jax's cuDNN attention (forward and backward, causal): the forward kernel is
    learned (aiconfigurator's fused prefill/decode kernels), the backward is not in the
    data and keeps the roofline; both are priced at the bf16 matrix rate, not fp32's."""
    program = CUSTOM_CALLS / "cudnn_attention_causal_train.mlir"
    a = stablecost.analyze(program)
    h100 = get_hardware("H100-SXM")
    fused = [k for k in a.kernels if k.kind == "standalone"]
    assert [kernel_class(k, a.program, h100) for k in fused] == [
        "standalone:fmha:bf16", "standalone:fmha_backward:bf16"]
    col = FEATURES.index("hw_matmul_peak")
    assert 2 ** kernel_features(fused[0], a.program, h100)[col] - 1 == pytest.approx(989_500,
                                                                                   rel=1e-4)
    p = stablecost.predict(program, "H100-SXM")
    forward, backward = [r for r in p.kernels if r.kind == "standalone"]
    assert forward.time_low_s is not None and backward.time_low_s is None
    [note] = [n for n in p.notes if "priced by the roofline" in n]
    assert "standalone:fmha_backward:bf16 (no such kernel in the training data)" in note
    assert "standalone:fmha:bf16 " not in note
