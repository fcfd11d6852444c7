"""Importers of public GPU measurements (datasets/importers/, datasets/templates/).

(Over 400 lines: independent tests of one package area, each with its inputs inline;
they share fixtures, and a reader looks for the tests of that area in one place.)

Template tests check every StableHLO builder against `analyze` with hand-worked
FLOPs/bytes. Import tests run on small slices of the real files in
../shared/data (copied into tmp_path in the upstream layout) and skip when that
folder is absent."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import stablecost
from stablecost.datasets import importers, store
from stablecost.datasets import templates as T
from stablecost.errors import DatasetError

DATA = Path(os.environ.get("STABLECOST_SHARED_DATA",
                           Path(__file__).resolve().parents[2] / "shared" / "data"))
AIC = DATA / "aiconfigurator"
NEUSIGHT = DATA / "neusight"
needs_aic = pytest.mark.skipif(not AIC.is_dir(), reason=f"no aiconfigurator data at {AIC}")
needs_neusight = pytest.mark.skipif(not NEUSIGHT.is_dir(), reason=f"no NeuSight data at {NEUSIGHT}")


def _analyze(text: str):
    a = stablecost.analyze(stablecost.load_program(text))
    assert not a.unpriced, [u.opcode for u in a.unpriced]
    return a


def _op_flops(a, opcode: str) -> float:
    return a.per_opcode[opcode].flops


# -- templates ------------------------------------------------------------------------------
def test_gemm_bf16_flops_and_bytes():
    a = _analyze(T.gemm(3, 4, 5))
    assert a.flops == 120             # 2*m*n*k = 2*3*4*5
    assert a.bytes_accessed == 94     # A 3*5*2 + B 5*4*2 + C 3*4*2 = 30 + 40 + 24
    assert T.gemm_work(3, 4, 5) == (120, 94)


def test_gemm_fp8_and_nvfp4_take_narrow_inputs_and_return_bf16():
    a = _analyze(T.gemm(4, 6, 8, lhs="f8E4M3FN", rhs="f8E4M3FN"))
    assert a.flops == 384             # 2*4*6*8
    assert a.bytes_accessed == 128    # A 32*1 + B 48*1 + C 24*2
    a = _analyze(T.gemm(4, 6, 8, lhs="f4E2M1FN", rhs="f4E2M1FN"))
    assert a.flops == 384
    assert a.bytes_accessed == 88     # A 32*0.5 + B 48*0.5 + C 24*2 = 16 + 24 + 48
    assert T.gemm_work(4, 6, 8, lhs="f4E2M1FN", rhs="f4E2M1FN").bytes == 88


def test_gemm_weight_only_and_smoothquant():
    a = _analyze(T.gemm(4, 6, 8, rhs="i8", dequant_rhs=True))
    assert _op_flops(a, "dot_general") == 384
    assert _op_flops(a, "convert") == 48     # the weight, k*n = 8*6 elements
    assert T.gemm_work(4, 6, 8, rhs="i8").bytes == 64 + 48 + 48   # A bf16, B i8, C bf16
    a = _analyze(T.gemm(4, 6, 8, rhs="i4", dequant_rhs=True))
    assert a.per_opcode["dot_general"].flops == 384
    a = _analyze(T.gemm(4, 6, 8, lhs="i8", rhs="i8", result="i32", out="bf16"))
    assert _op_flops(a, "dot_general") == 384
    assert _op_flops(a, "convert") == 24     # the i32 result, m*n


def test_attention_prefill_gqa_causal():
    # b=2, h=4 query heads sharing hkv=2 kv heads (group 2), s=4, d=8
    text = T.attention(2, 4, 2, 4, 4, 8, causal=True)
    a = _analyze(text)
    # two dots, each 2 * (b*h*s*s) * d = 2 * (2*4*4*4) * 8 = 2048
    assert _op_flops(a, "dot_general") == 4096
    assert a.transcendentals == 128          # exp of the 2*4*4*4 scores
    assert "select" in a.per_opcode          # the causal mask
    # visible pairs per head: 1+2+3+4 = 10 -> 4*b*h*d*10 = 4*2*4*8*10
    work = T.attention_work(2, 4, 2, 4, 4, 8, causal=True)
    assert work.flops == 2560
    # q and o bf16 2*4*4*8*2 bytes each; k, v 2*2*4*8*2 bytes each
    assert work.bytes == 512 + 256 + 256 + 512


def test_attention_window_and_fp8():
    a = _analyze(T.attention(2, 4, 2, 4, 4, 8, causal=True, window=2))
    assert "and" in a.per_opcode             # causal AND within-window
    assert T.visible_pairs(4, 4, causal=True, window=2) == 7     # 1 + 2 + 2 + 2
    a = _analyze(T.attention(2, 4, 2, 4, 4, 8, causal=True, compute="f8E4M3FN",
                             kv_store="f8E4M3FN"))
    assert _op_flops(a, "dot_general") == 4096
    # prefill into an fp8 cache: k and v also come back as f8
    text = T.attention(2, 4, 2, 4, 4, 8, causal=True, kv_store="f8E4M3FN", cache_write=True)
    _analyze(text)
    assert ("-> (tensor<2x2x2x4x8xbf16>, tensor<2x2x4x8xf8E4M3FN>, tensor<2x2x4x8xf8E4M3FN>)"
            in text)
    assert T.attention_work(2, 4, 2, 4, 4, 8, causal=True, kv_store="f8E4M3FN",
                            cache_write=True).bytes == 512 + 256 + 256 + 512 + 128 + 128


def test_attention_decode_reads_the_fp8_cache():
    # b=2, h=4, one kv head (MQA), 1 query, 9 cached keys, d=8
    a = _analyze(T.attention(2, 4, 1, 1, 9, 8, kv_store="f8E4M3FN"))
    assert _op_flops(a, "dot_general") == 2304     # 2 dots * 2*(2*4*1*9)*8
    # converts: k and v 2*(2*1*9*8) + probabilities 2*4*1*9 + output 2*4*1*8
    assert _op_flops(a, "convert") == 288 + 72 + 64
    assert "select" not in a.per_opcode             # one query sees every cached key


@pytest.mark.parametrize("q_len,kv_len,window", [(1, 1, 0), (5, 5, 0), (7, 7, 3), (1, 9, 4),
                                                 (3, 10, 0), (100, 100, 17), (64, 64, 128)])
def test_visible_pairs_matches_brute_force(q_len, kv_len, window):
    offset = kv_len - q_len
    brute = sum(1 for i in range(q_len) for j in range(kv_len)
                if j <= offset + i and (window <= 0 or offset + i - j < window))
    assert T.visible_pairs(q_len, kv_len, causal=True, window=window) == brute


@pytest.mark.parametrize("op,operand,result,comm", [
    # 64 f16 elements (128 bytes) = the larger per-device buffer, 4 devices
    ("all_reduce", 64, 64, 192),      # 2*(n-1)/n * 128
    ("all_gather", 16, 64, 96),       # (n-1)/n * output 128
    ("reduce_scatter", 64, 16, 96),   # (n-1)/n * input 128
    ("all_to_all", 64, 64, 96),       # (n-1)/n * 128
])
def test_collectives_match_nccl_tests_sizes(op, operand, result, comm):
    text = T.collective(op, 64, "f16", 4)
    assert "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>" in text
    assert "mhlo.num_partitions = 4" in text
    assert f"({T.tensor_type((operand,), 'f16')}) -> {T.tensor_type((result,), 'f16')}" in text
    a = _analyze(text)
    assert a.communication_bytes == comm
    assert T.collective_bus_bytes(op, 64, "f16", 4) == comm


def test_collective_rejects_indivisible_messages():
    with pytest.raises(ValueError, match="does not split"):
        T.collective("all_gather", 10, "f16", 4)


def test_neusight_matmul_and_conv_templates():
    assert _analyze(T.bmm(2, 3, 4, 5)).flops == 240        # 2*b*m*n*k = 2*2*3*4*5
    assert "precision = [HIGHEST, HIGHEST]" in T.bmm(2, 3, 4, 5)
    assert _analyze(T.linear(1, 3, 4, 5)).flops == 120     # x[1,3,5] . w[4,5]^T
    # 2 -> 4 channels from 3, 3x3 kernel, 5x5 input, stride 1, pad 1: output 5x5;
    # (output, kernel) pairs on real input per dim: 2 + 3*3 + 2 = 13 -> 13*13 = 169;
    # 2 * batch 2 * cin 3 * cout 4 * 169 = 8112
    assert _analyze(T.conv2d(2, 3, 4, 3, 5, 1, 1)).flops == 8112
    assert T.conv2d_flops(2, 3, 4, 3, 5, 1, 1) == 8112
    assert _analyze(T.conv2d(1, 2, 2, 3, 7, 2, 0)).flops == T.conv2d_flops(1, 2, 2, 3, 7, 2, 0)


@pytest.mark.parametrize("op,flops,transcendentals", [
    ("add", 15, 0), ("mul", 15, 0), ("div", 15, 0), ("pow", 0, 15),        # 3x5 elements
    ("addu", 15, 0), ("mulu", 15, 0), ("divu", 15, 0), ("powu", 0, 15),
    ("relu", 15, 0), ("tanh", 0, 15),
    ("gelu", 60, 15),       # x*r, erf, +1, x*0.5, * -> 4 elementwise + 1 erf per element
    ("softmax", 54, 15),    # reduce max 3*4 + sub 15 + reduce add 3*4 + div 15; exp 15
    ("ln", 108, 3),         # 2 reduces 24, mean/var divides 6, sub 15, square 15, +eps 3,
                            # *rstd, *gamma, +beta 45; rsqrt 3
])
def test_neusight_vector_templates(op, flops, transcendentals):
    a = _analyze(T.elementwise(op, 3, 5))
    assert a.flops == flops
    assert a.transcendentals == transcendentals


def test_elementwise_work_counts_each_tensor_once():
    assert T.elementwise_work("add", 3, 5).bytes == 3 * 60     # x, y, out
    assert T.elementwise_work("addu", 3, 5).bytes == 2 * 60


# -- slices of the real data ------------------------------------------------------------------
def _slice(src: Path, dst: Path, *, rows: int = 40, where=None, edit=None,
           per: str | None = None) -> pa.Table:
    """The first `rows` rows of `src` (matching `where`; of each value of `per`)."""
    table = pq.read_table(src)
    if where is not None:
        table = table.filter(where(table))
    if per is not None:
        values = table.column(per).to_pylist()
        keep, seen = [], {}
        for i, v in enumerate(values):
            seen[v] = seen.get(v, 0) + 1
            if seen[v] <= rows:
                keep.append(i)
        table = table.take(keep)
    else:
        table = table.slice(0, rows)
    if edit is not None:
        table = edit(table)
    dst.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, dst)
    return table


def _set(table: pa.Table, column: str, row: int, value) -> pa.Table:
    values = table.column(column).to_pylist()
    values[row] = value
    i = table.column_names.index(column)
    return table.set_column(i, column, pa.array(values, type=table.schema.field(column).type))


def _append_row(table: pa.Table, row: int, **changes) -> pa.Table:
    one = table.slice(row, 1)
    for column, value in changes.items():
        one = _set(one, column, 0, value)
    return pa.concat_tables([table, one])


@pytest.fixture(scope="module")
def aic_root(tmp_path_factory) -> Path:
    """An aiconfigurator systems dir with a few rows of every table kind for H100, plus
    B200 nvfp4 rows and crafted duplicates, bad dtypes and implausible latencies."""
    if not AIC.is_dir():
        pytest.skip(f"no aiconfigurator data at {AIC}")
    root = tmp_path_factory.mktemp("aic") / "systems"
    h100, src = root / "h100_sxm", AIC / "h100_sxm"
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(AIC / "h100_sxm.yaml", root / "h100_sxm.yaml")
    shutil.copy(AIC / "b200_sxm.yaml", root / "b200_sxm.yaml")

    def gemm_edit(t: pa.Table) -> pa.Table:
        t = _append_row(t, 0, latency=t.column("latency")[0].as_py() * 1.1)   # a repeat
        t = _append_row(t, 1, gemm_dtype="w4a8_awq")                          # unmapped
        t = _append_row(t, 2, m=0)                                            # empty
        # 8192^3 bf16 in 1 us: 1.1e18 FLOP/s, far above any peak
        return _append_row(t, 3, m=8192, n=8192, k=8192, latency=1e-3)

    rel = "gemm/trtllm/1.3.0rc10/gemm_perf.parquet"
    _slice(src / rel, h100 / rel, rows=30, edit=gemm_edit)
    _slice(src / "gemm/sglang/0.5.10/gemm_perf.parquet",
           h100 / "gemm/sglang/0.5.10/gemm_perf.parquet", rows=20,
           where=lambda t: pc.is_in(t["gemm_dtype"], pa.array(["fp8_block", "int8_wo"])))
    for name in ("context_attention_perf", "generation_attention_perf"):
        rel = f"attention/trtllm/1.3.0rc10/{name}.parquet"
        _slice(src / rel, h100 / rel, rows=15,
               where=lambda t: pc.less_equal(t["batch_size"], 4))
        _slice(src / rel, h100 / rel.replace("1.3.0rc10", "windowed"), rows=10,
               where=lambda t: pc.and_(pc.equal(t["window_size"], 128),
                                       pc.less_equal(t["batch_size"], 4)))
    (h100 / "attention/trtllm/1.3.0rc15").mkdir(parents=True)
    shutil.copy(src / "attention/trtllm/1.3.0rc15/reuse.yaml",
                h100 / "attention/trtllm/1.3.0rc15/reuse.yaml")
    for rel in ("comm/nccl/2.29.2/nccl_perf.parquet", "comm/nccl/2.23/nccl_perf.parquet",
                "comm/trtllm/1.3.0rc10/custom_allreduce_perf.parquet",
                "comm/sglang/0.5.6.post2/wideep_deepep_ll_perf.parquet"):
        if "deepep" in rel:
            _slice(src / rel, h100 / rel, rows=12)
        else:
            _slice(src / rel, h100 / rel, rows=3, per="op_name",
                   where=lambda t: pc.equal(t["num_gpus"], 8))
    b200 = root / "b200_sxm"
    rel = "gemm/trtllm/1.3.0rc10/gemm_perf.parquet"

    def fp4_edit(t: pa.Table) -> pa.Table:
        # 2*8192^3 = 1.1e12 FLOP: 0.183 ms = 6.0e15 FLOP/s (between the 4.5e15 FP8 and
        # 9e15 FP4 peaks: fine); 0.12 ms = 9.2e15 FLOP/s (above FP4: an outlier)
        t = _append_row(t, 0, m=8192, n=8192, k=8192, latency=0.183)
        return _append_row(t, 0, m=4096, n=8192, k=16384, latency=0.1195)  # 9.2e15

    _slice(AIC / "b200_sxm" / rel, b200 / rel, rows=5,
           where=lambda t: pc.equal(t["gemm_dtype"], "nvfp4"), edit=fp4_edit)
    return root


@pytest.fixture(scope="module")
def aic_import(aic_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("aic_out")
    calls = []
    summary = importers.import_aiconfigurator(aic_root, out, jobs=1,
                                              progress=lambda d, t, l: calls.append((d, t, l)))
    return summary, out, calls


@needs_aic
def test_aiconfigurator_import_writes_valid_datasets(aic_import):
    summary, out, calls = aic_import
    reports = store.validate(out, parse=True)
    assert reports and all(r.ok for r in reports), [r.problems[:3] for r in reports]
    assert {d.hardware for d in summary.datasets.values()} == {"H100-SXM", "B200"}
    assert all(d.in_catalog for d in summary.datasets.values())
    counts = summary.counts()
    for family in ("dot_general", "attention", "all_gather", "all_reduce", "reduce_scatter",
                   "all_to_all"):
        assert counts.get(("H100-SXM", family), 0) > 0, (family, counts)
    skipped = sum(summary.skipped.values())
    merged = sum(d.merged_repeats for d in summary.datasets.values())
    assert summary.rows_read == summary.written + summary.already_present + merged + skipped
    assert calls[-1][0] == calls[-1][1] == summary.rows_read      # progress reached the end
    assert summary.skipped_files["reuse.yaml folder (reuses another version's tables)"] == 1
    text = summary.format()
    assert "H100-SXM" in text and "DeepEP" in text


@needs_aic
def test_aiconfigurator_rows_carry_interpretation(aic_import):
    summary, out, _ = aic_import
    frame = store.read_frame(out)
    assert (frame["backend"] == "gpu").all() and (frame["cache_flush"] == "unknown").all()
    source = "imported:aiconfigurator/h100_sxm/gemm/trtllm/1.3.0rc10/gemm_perf.parquet"
    gemm = frame[(frame["source"] == source) & (frame["repeats"] == 2)].iloc[0]
    params = json.loads(gemm["params"])
    row = params["row"]
    src = pq.read_table(AIC / "h100_sxm/gemm/trtllm/1.3.0rc10/gemm_perf.parquet")
    first = src.slice(0, 1).to_pylist()[0]
    assert (row["m"], row["n"], row["k"]) == (first["m"], first["n"], first["k"])
    assert gemm["repeats"] == 2                      # the crafted repeat was merged
    assert gemm["min_s"] == pytest.approx(first["latency"] * 1e-3)
    assert gemm["p10_s"] <= gemm["median_s"] <= gemm["p90_s"]
    a = stablecost.analyze(stablecost.load_program(gemm["stablehlo"]))
    assert a.flops == 2 * row["m"] * row["n"] * row["k"]
    assert gemm["group_id"].startswith(f"dot_general/gemm/{row['gemm_dtype']}/m")
    decode = frame[frame["variant"] == "generation"].iloc[0]
    p = json.loads(decode["params"])
    assert p["program"]["q_len"] == 1
    assert p["program"]["kv_len"] == min(p["row"]["step"] + 1, p["row"]["window_size"] or 1 << 40)
    coll = frame[frame["kind"] == "collective"]
    assert set(coll["variant"]) >= {"NCCL", "TRTLLM"}
    ag = coll[coll["family"] == "all_gather"].iloc[0]
    p = json.loads(ag["params"])
    assert p["program"]["elements"] == p["row"]["message_size"]
    assert f"tensor<{p['row']['message_size']}x" in ag["stablehlo"].split("->")[-1]


@needs_aic
def test_aiconfigurator_skips_are_counted_never_silent(aic_import):
    summary, _, _ = aic_import
    skipped = summary.skipped
    assert skipped["gemm: gemm_dtype 'w4a8_awq' has no StableHLO mapping"] == 1
    assert skipped["gemm: zero-size dimension (m, n or k = 0)"] >= 1
    deepep = [n for reason, n in skipped.items() if reason.startswith("wideep_deepep_ll_perf")]
    assert deepep == [12]


@needs_aic
def test_aiconfigurator_outliers_are_flagged_not_dropped(aic_import):
    summary, out, _ = aic_import
    frame = store.read_frame(out)
    big = frame[frame["params"].str.contains('"m":8192,"n":8192,"k":8192')
                & (frame["hardware"] == "H100-SXM")]
    assert len(big) == 1 and big.iloc[0]["outlier"]
    assert "bf16 matmul peak" in big.iloc[0]["outlier_reason"]
    # B200 nvfp4 is checked against the FP4 rate (9e15 from b200_sxm.yaml, the catalog has
    # none), not the FP8 one: 6.0e15 FLOP/s passes, 9.2e15 is flagged
    b200 = frame[(frame["hardware"] == "B200") & (frame["variant"] == "nvfp4")]
    fine = b200[b200["params"].str.contains('"m":8192,"n":8192,"k":8192')]
    hot = b200[b200["params"].str.contains('"m":4096,"n":8192,"k":16384')]
    assert not fine.iloc[0]["outlier"]
    assert hot.iloc[0]["outlier"] and "f4E2M1FN matmul peak 9e+15" in hot.iloc[0]["outlier_reason"]
    assert summary.outliers == int(frame["outlier"].sum())


@needs_aic
def test_aiconfigurator_reimport_adds_nothing(aic_root, aic_import):
    first, out, _ = aic_import
    before = {p: len(store.shard_paths(Path(p))) for p in first.datasets}
    again = importers.import_aiconfigurator(aic_root, out, jobs=1)
    assert again.written == 0 and again.outliers == 0
    assert not any(d.outlier_reasons for d in again.datasets.values())
    assert again.already_present == first.written + sum(
        d.merged_repeats for d in first.datasets.values())
    assert {p: len(store.shard_paths(Path(p))) for p in again.datasets} == before


@needs_aic
def test_one_system_folder_is_accepted(aic_root, tmp_path):
    summary = importers.import_aiconfigurator(aic_root / "b200_sxm", tmp_path, jobs=1)
    assert [d.hardware for d in summary.datasets.values()] == ["B200"]
    assert summary.written == 7


@needs_aic
def test_upstream_layout_with_data_folder(aic_root, tmp_path):
    """aic-core/src/aiconfigurator_core/systems/: <system>.yaml beside data/<system>/;
    tables without an importer and misplaced files are counted, not dropped."""
    systems = tmp_path / "systems"
    shutil.copytree(aic_root / "h100_sxm" / "comm", systems / "data" / "h100_sxm" / "comm")
    shutil.copy(aic_root / "h100_sxm.yaml", systems / "h100_sxm.yaml")
    moe = pa.table({"device": ["NVIDIA H100 80GB HBM3"] * 3, "latency": [0.1, 0.2, 0.3]})
    for rel in ("moe/trtllm/1.0/moe_perf.parquet", "trtllm/1.0/gemm_perf.parquet"):
        (systems / "data/h100_sxm" / rel).parent.mkdir(parents=True)
        pq.write_table(moe, systems / "data/h100_sxm" / rel)
    summary = importers.import_aiconfigurator(systems, tmp_path / "out", jobs=1)
    assert [d.hardware for d in summary.datasets.values()] == ["H100-SXM"]
    assert summary.skipped["moe_perf: no importer for this table"] == 3
    assert any("outside <op>/<framework>/<version>/" in r for r in summary.skipped_files)
    assert summary.written > 0 and all(r.ok for r in store.validate(tmp_path / "out"))


@needs_neusight
def test_neusight_import(tmp_path):
    root = tmp_path / "neusight"
    for op_dir in sorted((NEUSIGHT / "train").iterdir()):
        for f in sorted(op_dir.glob("*.parquet")):
            if "T4" in f.name or "A100" in f.name:
                _slice(f, root / "train" / op_dir.name / f.name, rows=8)
    shutil.copytree(NEUSIGHT / "device_configs", root / "device_configs")
    out = tmp_path / "out"
    summary = importers.import_neusight(root, out, jobs=1)
    assert all(r.ok for r in store.validate(out, parse=True))
    hardware = {d.hardware: d.in_catalog for d in summary.datasets.values()}
    # NeuSight's cards are catalog chips (priced through their own spec files)
    assert hardware.get("T4") is True
    assert hardware.get("A100-PCIe-40GB") is True and hardware.get("A100-PCIe-80GB") is True
    assert not any("not in the hardware catalog" in n for n in summary.notes)
    families = {f for (_, f) in summary.counts()}
    assert families == {"dot_general", "convolution", "elementwise", "softmax", "layer_norm"}
    frame = store.read_frame(out)
    assert set(frame["source"].str.split("/").str[0]) == {"imported:neusight"}
    conv = frame[frame["family"] == "convolution"].iloc[0]
    p = json.loads(conv["params"])
    assert stablecost.analyze(stablecost.load_program(conv["stablehlo"])).flops == \
        T.conv2d_flops(**{k: p["program"][k] for k in ("batch", "c_in", "c_out", "kernel",
                                                       "size", "stride", "padding")})
    again = importers.import_neusight(root, out, jobs=1)
    assert again.written == 0 and again.already_present == summary.written + sum(
        d.merged_repeats for d in summary.datasets.values())


@needs_neusight
def test_worker_processes_give_the_same_result(tmp_path):
    root = tmp_path / "train"
    for f in sorted((NEUSIGHT / "train" / "relu").glob("*.parquet"))[:2]:
        _slice(f, root / "relu" / f.name, rows=5)
    one = importers.import_neusight(root, tmp_path / "a", jobs=1)
    calls = []
    two = importers.import_neusight(root, tmp_path / "b", jobs=2,
                                    progress=lambda d, t, l: calls.append(d))
    assert one.counts() == two.counts() and two.written == 10
    assert calls[-1] == 10
    ids = lambda p: sorted(store.read_frame(p, columns=["sample_id"])["sample_id"])  # noqa: E731
    assert ids(tmp_path / "a") == ids(tmp_path / "b")


# -- bad input -------------------------------------------------------------------------------------
def test_missing_path_is_a_dataset_error(tmp_path):
    with pytest.raises(DatasetError, match=r"nope: no such directory \(expected an "
                                           r"aiconfigurator systems directory"):
        importers.import_aiconfigurator(tmp_path / "nope", tmp_path / "out")
    with pytest.raises(DatasetError, match="nope: no such directory"):
        importers.import_neusight(tmp_path / "nope", tmp_path / "out")


def test_wrong_layout_is_a_dataset_error(tmp_path):
    (tmp_path / "h100_sxm" / "stuff").mkdir(parents=True)
    with pytest.raises(DatasetError, match="not an aiconfigurator systems directory "
                                           r"\(expected .*gemm_perf.parquet\)"):
        importers.import_aiconfigurator(tmp_path, tmp_path / "out")
    with pytest.raises(DatasetError, match="not a NeuSight data folder"):
        importers.import_neusight(tmp_path, tmp_path / "out")


def test_unreadable_parquet_is_a_dataset_error(tmp_path):
    bad = tmp_path / "h100_sxm" / "gemm" / "trtllm" / "1.0" / "gemm_perf.parquet"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not parquet")
    with pytest.raises(DatasetError, match="gemm_perf.parquet: unreadable Parquet file"):
        importers.import_aiconfigurator(tmp_path, tmp_path / "out")
