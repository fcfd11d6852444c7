"""The workloads of examples/workloads/: tiny versions of each kind lower without devices and
predict on a mesh, and the named models have the parameter counts the README states."""

import re
import sys
from pathlib import Path

import pytest

import stablecost

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wl():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import workloads
    finally:
        sys.path.remove(str(ROOT / "examples"))
    return workloads


def _predict(step, args, mesh):
    from stablecost.featurize.partition import abstract_lowering, parse_mesh

    text = abstract_lowering(step, args, {}, parse_mesh(mesh)).as_text()
    return stablecost.predict(text, "H100-SXM", fidelity="roofline", mesh=mesh)


def test_a_tiny_llama_trains_fsdp_and_serves_tensor_parallel_on_4_devices(wl):
    cfg = wl.llama.tiny()
    train = _predict(*wl.llama.train_step(cfg, 4, seq=32), {"fsdp": 4})
    prefill = _predict(*wl.llama.prefill_step(cfg, 4, batch=2, prompt=32, cache_len=48),
                       {"model": 4})
    decode = _predict(*wl.llama.decode_step(cfg, 4, batch=2, cache_len=48), {"model": 4})
    for p in (train, prefill, decode):
        assert p.num_devices == 4 and p.step_time_s > 0 and p.flops > 0
    # FSDP: the weights are all-gathered, the gradients reduce-scattered (or all-reduced)
    kinds = {c.kind for c in train.collectives}
    assert "all_gather" in kinds and kinds & {"reduce_scatter", "all_reduce"}
    # tensor parallel: the row-parallel matmuls' partial sums are all-reduced
    assert any(c.kind == "all_reduce" for c in decode.collectives)


def test_a_tiny_resnet18_trains_data_parallel_on_4_devices(wl):
    step, args = wl.resnet.train_step(18, 4, batch_per_device=2, image=32, width=8,
                                      classes=10)
    p = _predict(step, args, {"data": 4})
    assert p.num_devices == 4 and p.step_time_s > 0
    assert p.collectives and {c.kind for c in p.collectives} == {"all_reduce"}


# exact counts: tied embedding + layers + final norm; torchvision's counts for ResNet-18..101
COUNTS = {
    "llama3-100m-train": 110_655_936, "llama3-200m-train": 199_479_552,
    "llama3-500m-train": 502_375_680, "llama3-1b-train": 1_235_814_400,
    "llama3-2b-train": 2_019_269_120, "llama3-3b-train": 3_212_749_824,
    "resnet18-train": 11_689_512, "resnet34-train": 21_797_672,
    "resnet50-train": 25_557_032, "resnet101-train": 44_549_160,
    "resnet200-train": 64_673_832,
}


def test_the_named_models_have_the_parameter_counts_the_readme_states(wl):
    assert {n: w.params for n, w in wl.WORKLOADS.items() if n in COUNTS} == COUNTS
    for name in ("1b", "3b"):        # the inference steps are the same models
        assert wl.WORKLOADS[f"llama3-{name}-prefill"].params == COUNTS[f"llama3-{name}-train"]
    # LLaMA 3.2 1B and 3B as published: 1.24B and 3.21B
    readme = (ROOT / "README.md").read_text()
    for name, count in COUNTS.items():
        model = name.removesuffix("-train")
        assert re.search(rf"`{model}`[^\n]*\b{count:,}\b", readme), (model, f"{count:,}")


@pytest.mark.slow
def test_the_benchmark_prints_both_tables_for_one_workload():
    import subprocess

    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "workloads.py"),
                           "--only", "resnet18-train"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    # four GPU systems at two fidelities (learned, roofline), TPU v3 at one; two meshes
    assert done.stdout.count("| resnet18-train | ") == 4 * 2 + 1 + 2
    assert done.stdout.count("| learned |") == 4
    assert "8 x TPU v3" in done.stdout and "(none needed)" in done.stdout


@pytest.mark.slow
def test_the_largest_workload_passes_the_default_budgets(wl, monkeypatch):
    """A 3B-parameter LLaMA-style train step, FSDP over 4 devices, loads, partitions and
    predicts under the default input, op, nesting and call budgets (featurize/limits.py)."""
    for name in ("STABLECOST_MAX_PROGRAM_BYTES", "STABLECOST_MAX_NESTING",
                 "STABLECOST_MAX_CALL_DEPTH", "STABLECOST_MAX_OPS"):
        monkeypatch.delenv(name, raising=False)
    workload = wl.WORKLOADS["llama3-3b-train"]
    text = wl.lower(workload, 4)
    p = stablecost.predict(text, "H100-SXM", fidelity="roofline", mesh=workload.mesh(4))
    assert p.num_devices == 4 and p.step_time_s > 0 and p.flops > 1e13
