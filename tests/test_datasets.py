"""The measurement store, splits, sample generators, timing and the collector.

(Over 400 lines: independent tests of one package area, each with its inputs inline;
they share fixtures, and a reader looks for the tests of that area in one place.)
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

import stablecost
from stablecost.datasets import collect, kernels, splits, store, zoo
from stablecost.errors import DatasetError, InvalidArgumentError
from stablecost.hardware import timing
from stablecost.serve.cli import main

ROOT = Path(__file__).resolve().parent.parent
FP = {"backend": "cpu", "cpu_model": "test", "cpu_cores": 2}
OTHER_FP = {"backend": "gpu", "device_name": "elsewhere"}


def _row(i: int, group: str = "g0", **over) -> dict:
    row = {
        "sample_id": f"s{i}", "group_id": group, "kind": "kernel", "family": "elementwise",
        "variant": "unary", "dtype": "f32", "params": "{}",
        "stablehlo": "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %0 = stablehlo.exponential %a : tensor<4xf32>\n"
                     "  return %0 : tensor<4xf32>\n}",
        "median_s": 1e-5, "p10_s": 9e-6, "p90_s": 2e-5, "min_s": 8e-6, "mean_s": 1.2e-5,
        "cv": 0.1, "repeats": 10, "warmup": 2, "cache_flush": "none", "hardware": "host-cpu",
        "device_name": "test", "backend": "cpu", "jax_version": "0", "jaxlib_version": "0",
        "collector_version": "1", "timestamp": datetime.now(timezone.utc), "source": "collected",
    }
    row.update(over)
    return row


# --------------------------------------------------------------------------- store
def test_writer_journal_becomes_shard_and_reads_back(tmp_path):
    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP, shard_rows=3) as w:
        for i in range(5):
            w.add(_row(i))
        w.add(_row(0))  # already there: ignored
        assert len(store.shard_paths(w.path)) == 1  # 3 rows flushed, 2 still in the journal
        assert len(store.read_table(w.path)) == 5     # readers see the journal too
    assert len(store.shard_paths(w.path)) == 2
    assert (w.path / store.JOURNAL).read_text() == ""
    table = store.read_table(tmp_path)
    assert sorted(table.column("sample_id").to_pylist()) == [f"s{i}" for i in range(5)]
    assert set(table.column("fingerprint").to_pylist()) == {store.fingerprint_id(FP)}
    [report] = store.validate(tmp_path)
    assert report.ok and report.rows == 5 and report.shards == 2


def test_an_interrupt_after_a_shard_is_written_stores_each_row_once(tmp_path, monkeypatch):
    """Ctrl-C right after a flush renamed its shard into place: close() (run by the
    `with`) must not write the same rows into a second shard."""
    real = store.writer.fsync_dir
    calls = {"n": 0}

    def interrupted_once(path):
        if path.name == store.SHARD_DIR:      # right after a shard's rename
            calls["n"] += 1
            if calls["n"] == 1:
                raise KeyboardInterrupt
        real(path)

    monkeypatch.setattr(store.writer, "fsync_dir", interrupted_once)   # where it is called
    with pytest.raises(KeyboardInterrupt):
        with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP,
                                 shard_rows=3) as w:
            for i in range(5):
                w.add(_row(i))
    [report] = store.validate(tmp_path)
    assert report.ok, report.problems
    assert report.rows == 3 and len(store.read_table(tmp_path)) == 3


def test_close_keeps_every_row_the_journal_file_holds(tmp_path):
    """A journal line that is on disk counts, even if this process never got to note it
    (an interrupt between the fsync and the bookkeeping)."""
    w = store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP)
    w.add(_row(0))
    line = json.dumps(store.normalize_row({**_row(1), "fingerprint": store.fingerprint_id(FP)}),
                      default=store.json_default)
    w._journal.write(line.encode() + b"\n")   # a line of before checksums: still read
    w._journal.flush()
    w.close()
    assert sorted(store.read_table(tmp_path).column("sample_id").to_pylist()) == ["s0", "s1"]


def test_rows_stored_twice_are_counted_once_and_stale_temp_shards_go(tmp_path, capsys):
    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP) as w:
        w._write_shard([store.normalize_row({**_row(0), "fingerprint": w.fingerprint_id})])
        w._write_shard([store.normalize_row({**_row(0), "fingerprint": w.fingerprint_id})])
    assert len(store.read_table(tmp_path, columns=["kind"])) == 1
    assert main(["dataset", "info", str(w.path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 1
    stale = w.path / store.SHARD_DIR / ".part-x.parquet.tmp"
    stale.write_bytes(b"half a shard")
    store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP).close()
    assert not stale.exists()


def test_a_bad_journal_row_is_reported_by_validate_and_set_aside_by_the_writer(tmp_path):
    w = store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP)
    w.add(_row(0))
    w.add(_row(1))
    w._journal.close()
    w._journal = None     # as if killed: the journal stays
    w._lock.close()
    journal = w.path / store.JOURNAL
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text(lines[0].replace('"kind":"kernel"', '"kind":"kernels"') + lines[1])
    [report] = store.validate(tmp_path)
    assert not report.ok and report.problems == [
        f"{journal} line 1: checksum does not match the line (its bytes changed after writing)"]
    # a line of before checksums is checked against the schema alone
    old = json.loads(lines[0])
    del old["line_sha256"]
    old["kind"] = "kernels"
    journal.write_text(json.dumps(old) + "\n" + lines[1])
    [report] = store.validate(tmp_path)
    assert report.problems == [f"{journal} line 1: row s0: kind 'kernels', allowed: "
                               "('kernel', 'program', 'collective', 'profile')"]
    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP) as again:
        assert again.has("s1") and not again.has("s0")     # s0 is measured again
    assert any("line 1: row s0: kind 'kernels'" in m and "set aside" in m
               for m in again.warnings)
    assert (w.path / store.JOURNAL_SET_ASIDE).read_text() == json.dumps(old) + "\n"
    assert store.read_table(tmp_path).column("sample_id").to_pylist() == ["s1"]


def test_a_full_disk_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    import errno

    with store.DatasetWriter(tmp_path / "d", hardware="host-cpu", fingerprint=FP) as w:
        w.add(_row(0))

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    from stablecost import atomicio

    monkeypatch.setattr(atomicio, "atomic_write_bytes", full)
    out = tmp_path / "split.csv"
    assert main(["dataset", "split", str(tmp_path / "d"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "No space left on device writing" in err and err.count("\n") == 1


def test_import_workers_end_when_the_importer_is_killed(tmp_path):
    """A worker whose parent is gone exits (SIGKILL of the importer never reaches the
    pool; an orphan kept the dataset lock and the re-run failed)."""
    worker = ("import time\ntry:\n    from stablecost.datasets.importers.pool import "
              "exit_with_parent\n    exit_with_parent(0.05)\nexcept ImportError:\n    pass\n"
              "time.sleep(60)")
    parent = ("import os, subprocess, sys; p = subprocess.Popen([sys.executable, '-c', "
              f"{worker!r}]); print(p.pid, flush=True); time_ = __import__('time'); "
              "time_.sleep(3); os._exit(0)")
    out = subprocess.run([sys.executable, "-c", parent], capture_output=True, timeout=60)
    pid = int(out.stdout.split()[0])
    deadline = time.time() + 10
    while time.time() < deadline:
        status = Path(f"/proc/{pid}/status")
        if not status.exists() or "State:\tZ" in status.read_text():
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the orphaned worker kept running")


def test_torn_journal_line_and_replayed_rows_are_recovered(tmp_path):
    w = store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP)
    w.add(_row(0))
    w.add(_row(1))
    path = w.path
    # Simulate SIGKILL: no close(); the lock dies with the process, the journal stays.
    w._journal.close()
    w._lock.close()
    with open(path / store.JOURNAL, "a") as fh:
        fh.write('{"sample_id": "s2", "group_')  # the sample in flight, half written
    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP) as w2:
        assert w2.has("s0") and w2.has("s1") and not w2.has("s2")
    assert len(store.read_table(tmp_path)) == 2
    assert all(r.ok for r in store.validate(tmp_path))


def test_other_machine_and_second_writer_are_refused(tmp_path):
    with store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP) as w:
        w.add(_row(0))
        with pytest.raises(DatasetError, match="being written by another"):
            store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP)
    meta = json.loads((w.path / store.DATASET_FILE).read_text())
    meta["fingerprint"] = OTHER_FP
    (w.path / store.DATASET_FILE).write_text(json.dumps(meta))
    with pytest.raises(DatasetError, match="another machine"):
        store.DatasetWriter(tmp_path, hardware="host-cpu", fingerprint=FP)


def test_bad_rows_are_refused():
    with pytest.raises(DatasetError, match="median_s"):
        store.normalize_row(_row(0, median_s=0.0, fingerprint="f"))
    with pytest.raises(DatasetError, match="kind 'op'"):
        store.normalize_row(_row(0, kind="op", fingerprint="f"))


def test_validate_names_truncated_and_foreign_shards(tmp_path):
    with store.DatasetWriter(tmp_path / "a", hardware="host-cpu", fingerprint=FP) as w:
        w.add(_row(0))
        w.add(_row(1))
    with store.DatasetWriter(tmp_path / "b", hardware="x", fingerprint=OTHER_FP) as other:
        other.add(_row(9))
    foreign = store.shard_paths(other.path)[0]
    stolen = w.path / "shards" / ("part-99999999T000000-" + "f" * 8 + ".parquet")
    shutil.copy(foreign, stolen)
    good = store.shard_paths(w.path)[0]
    truncated = w.path / "shards" / ("part-99999999T000001-" + "e" * 8 + ".parquet")
    data = good.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    [report] = store.validate(tmp_path / "a")
    text = "\n".join(report.problems)
    assert not report.ok
    assert f"{stolen}: foreign shard" in text
    assert f"{truncated}: unreadable" in text
    assert main(["dataset", "validate", str(tmp_path / "a")]) == 1
    assert main(["dataset", "validate", str(tmp_path / "b")]) == 0


def test_missing_dataset_is_a_one_line_error(tmp_path, capsys):
    assert main(["dataset", "info", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "holds no stablecost dataset" in err and err.count("\n") == 1


# --------------------------------------------------------------------------- splits
def test_splits_are_grouped_deterministic_and_roughly_proportional():
    groups = [f"g{i % 400}" for i in range(4000)]
    a = splits.assign_splits(groups, seed=3)
    assert a == splits.assign_splits(list(reversed(groups)), seed=3)[::-1]
    by_group: dict[str, set] = {}
    for g, s in zip(groups, a):
        by_group.setdefault(g, set()).add(s)
    assert all(len(s) == 1 for s in by_group.values())
    share = {s: a.count(s) / len(a) for s in splits.SPLITS}
    assert share["train"] == pytest.approx(0.7, abs=0.07)
    assert share["test"] == pytest.approx(0.15, abs=0.05)
    assert splits.assign_splits(groups, seed=4) != a
    with pytest.raises(InvalidArgumentError, match="summing to 1"):
        splits.assign_splits(groups, fractions=(0.5, 0.1, 0.1))


# --------------------------------------------------------------------------- generators
@pytest.mark.parametrize("family", kernels.FAMILIES)
def test_every_kernel_family_lowers_loads_and_prices(family):
    for index in range(3):
        spec = kernels.kernel_spec(index, seed=11, families=(family,))
        assert spec.family == family and spec.group_id.startswith(f"{family}/")
        sample = collect.Sample("kernel", spec.family, spec.variant, spec.dtype, spec.group_id,
                                spec.params)
        fn, specs = sample.build()
        text = collect.lower(fn, specs).as_text()
        analysis = stablecost.analyze(stablecost.load_program(text))
        assert not analysis.unpriced, (spec, analysis.unpriced)
        assert analysis.bytes_accessed > 0


def test_kernel_sweep_is_deterministic_and_covers_families_early():
    a = [kernels.kernel_spec(i, 0, kernels.FAMILIES) for i in range(len(kernels.FAMILIES))]
    b = [kernels.kernel_spec(i, 0, kernels.FAMILIES) for i in range(len(kernels.FAMILIES))]
    assert a == b
    assert {s.family for s in a} == set(kernels.FAMILIES)


def test_transposed_convolution_samples_price_the_dilated_input():
    """Half the strided draws are stride-2 transposed convolutions (the decoder op):
    XLA lowers them to a convolution over an input dilated by 2, twice the side out."""
    spec = next(s for s in (kernels.kernel_spec(i, 0, ("convolution",)) for i in range(400))
                if s.variant == "transposed")
    p = spec.params
    fn, specs = kernels.build("convolution", "transposed", p)
    analysis = stablecost.analyze(stablecost.load_program(collect.lower(fn, specs).as_text()))
    [conv] = [op for op in analysis.program.ops if op.opcode == "convolution"]
    assert conv.results[0].shape == (p["n"], 2 * p["hw"], 2 * p["hw"], p["cout"])
    assert conv.attributes["lhs_dilation"] == [2, 2]


def test_argsort_samples_sort_their_keys_with_i32_positions():
    """The argsort variant is the sort programs run most: f32 or i32 keys carrying their
    i32 positions, one stable sort along the last axis."""
    spec = next(s for s in (kernels.kernel_spec(i, 0, ("sort",)) for i in range(200))
                if s.variant == "argsort")
    p = spec.params
    fn, specs = kernels.build("sort", "argsort", p)
    analysis = stablecost.analyze(stablecost.load_program(collect.lower(fn, specs).as_text()))
    [sort] = [op for op in analysis.program.ops if op.opcode == "sort"]
    assert [t.dtype for t in sort.operands] == [p["dtype"], "i32"]
    assert sort.operands[0].shape == (p["rows"], p["length"])
    assert sort.attributes["dimension"] == 1 and sort.attributes["is_stable"]


def test_dot_sample_flops_match_its_parameters():
    spec = next(s for s in (kernels.kernel_spec(i, 5, ("dot_general",)) for i in range(50))
                if s.variant == "batched")
    p = spec.params
    fn, specs = kernels.build("dot_general", "batched", p)
    analysis = stablecost.analyze(stablecost.load_program(collect.lower(fn, specs).as_text()))
    assert analysis.flops == 2 * p["batch"] * p["m"] * p["n"] * p["k"]


@pytest.mark.parametrize("family", zoo.PROGRAM_FAMILIES)
def test_every_program_family_lowers_and_loads(family):
    spec = min((s for s in zoo.program_specs(0, (family,), ("f32",))),
               key=lambda s: json.dumps(s.params, sort_keys=True))
    fn, specs = zoo.build_program(spec.params)
    program = stablecost.load_program(collect.lower(fn, specs).as_text())
    assert stablecost.analyze(program).flops > 0


def test_program_sweep_covers_every_family_first():
    specs = zoo.program_specs(0)
    assert {s.family for s in specs[: len(zoo.PROGRAM_FAMILIES)]} == set(zoo.PROGRAM_FAMILIES)
    assert len({s.group_id for s in specs}) < len(specs)  # batches share a group


def test_the_large_tier_is_new_sizes_of_every_family_and_leaves_the_zoo_as_it_was():
    zoo_specs, large = zoo.program_specs(0), zoo.program_specs(0, tier="large")
    assert zoo_specs == zoo.program_specs(0, tier="zoo")       # the default sweep unchanged
    assert {s.family for s in large[: len(zoo.PROGRAM_FAMILIES)]} == set(zoo.PROGRAM_FAMILIES)
    assert not {s.group_id for s in large} & {s.group_id for s in zoo_specs}
    assert all(s.params["tier"] == "large" for s in large)
    assert all("tier" not in s.params for s in zoo_specs)      # zoo sample ids unchanged
    ids = {collect.Sample("program", s.family, s.variant, s.dtype, s.group_id, s.params).sample_id
           for s in large}
    assert len(ids) == len(large)
    with pytest.raises(InvalidArgumentError, match="allowed: zoo, large"):
        zoo.program_specs(0, tier="huge")


@pytest.mark.parametrize("family", zoo.PROGRAM_FAMILIES)
def test_each_large_size_outgrows_the_zoo_in_some_dimension(family):
    def sizes(tier):
        return [{k: v for k, v in s.params.items() if isinstance(v, int) and k != "batch"}
                for s in zoo.program_specs(0, (family,), ("f32",), tier=tier)]

    zoo_sizes = sizes("zoo")
    for size in sizes("large"):
        assert any(v > max(z.get(k, 0) for z in zoo_sizes) for k, v in size.items()), size


# --------------------------------------------------------------------------- timing
def test_measure_stops_when_median_settles_and_orders_quantiles():
    calls = []

    def call():
        calls.append(1)
        time.sleep(0.001)

    stats = timing.measure(call, warmup=2, min_repeats=10, max_repeats=50, max_time_s=5)
    assert 10 <= stats.repeats <= 50 and len(calls) == stats.repeats + 2
    assert stats.min_s <= stats.p10_s <= stats.median_s <= stats.p90_s
    assert stats.median_s >= 0.001 and stats.cache_flush == "none"
    capped = timing.measure(call, warmup=0, min_repeats=1000, max_repeats=20, max_time_s=5)
    assert capped.repeats == 20


def test_cache_evictor_is_bigger_than_the_last_level_cache():
    evict = timing.CacheEvictor()
    assert evict._buffer.nbytes >= timing.last_level_cache_bytes()
    stats = timing.measure(lambda: None, warmup=0, max_repeats=5, flush=evict)
    assert stats.cache_flush == "evict-llc"


# --------------------------------------------------------------------------- collector
CHEAP = "elementwise,convert,iota,select_compare"


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "stablecost.serve.cli", *args]


def _env() -> dict:
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)  # time on the plain host backend
    return env


def test_collect_resumes_after_sigkill_without_loss_or_duplicates(tmp_path):
    out = tmp_path / "d"
    args = _cli("collect", "kernels", "--out", str(out), "--max-samples", "24",
                "--families", CHEAP, "--seed", "7")
    proc = subprocess.Popen(args, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    journal_rows = 0
    while time.monotonic() < deadline and proc.poll() is None:
        journals = list(out.glob(f"*/{store.JOURNAL}"))
        if journals:
            journal_rows = journals[0].read_text().count("\n")
            if journal_rows >= 6:
                break
        time.sleep(0.05)
    assert proc.poll() is None, f"collector ended before it could be killed: {proc.stderr.read()}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert all(r.ok for r in store.validate(out))  # readable right after the kill
    first = len(store.read_table(out))
    assert 6 <= first < 24

    done = subprocess.run(args, env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{first} already measured were skipped" in done.stdout.replace("\n", " ")
    table = store.read_table(out)
    ids = table.column("sample_id").to_pylist()
    assert len(ids) == len(set(ids)) == 24
    [report] = store.validate(out)
    assert report.ok and report.rows == 24
    assert set(table.column("family").to_pylist()) == set(CHEAP.split(","))


def test_collect_programs_and_noise_on_the_same_machine(tmp_path, capsys):
    out = tmp_path / "d"
    summary = collect.collect("program", out, max_samples=1, families=["mlp"])
    assert summary.samples == 1 and not summary.failures
    row = store.read_frame(out).iloc[0]
    assert row.kind == "program" and row.source == "collected" and row.repeats >= 5
    assert stablecost.analyze(stablecost.load_program(row.stablehlo)).flops > 0

    assert main(["dataset", "noise", str(out), "--samples", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["overall"]["rows"] == 1 and report["by_kind"]["program"]["rows"] == 1
    assert set(report["by_statistic"]) == {"median_s", "p10_s", "min_s"}
    assert report["by_statistic"]["median_s"] == report["overall"]
    assert (summary.dataset / "noise.json").is_file()


def test_noise_refuses_other_machines_data(tmp_path):
    with store.DatasetWriter(tmp_path, hardware="x", fingerprint=OTHER_FP) as w:
        w.add(_row(0))
    with pytest.raises(DatasetError, match="no dataset was measured on this machine"):
        from stablecost.datasets.noise import noise

        noise(tmp_path, samples=1)


def test_collect_rejects_bad_arguments(capsys, tmp_path):
    assert main(["collect", "kernels", "--families", "dot,conv"]) == 2
    assert "unknown kernel families dot, conv; allowed: dot_general" in capsys.readouterr().err
    assert main(["collect", "kernels", "--budget-minutes", "0"]) == 2
    assert main(["dataset", "split", "x", "--fractions", "a,b"]) == 2
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    for argv, match in [
        (["collect", "kernels", "--budget-minutes", "nan", "--out", str(tmp_path / "o")],
         "must be a finite number > 0"),
        (["collect", "programs", "--families", ",", "--out", str(tmp_path / "o")],
         "names no family"),
        (["collect", "kernels", "--max-samples", "1", "--out", str(a_file)], "is a file"),
        (["dataset", "split", "x", "--fractions", "nan,0.5,0.5"], "need three numbers"),
        (["collect", "kernels", "--tier", "large", "--out", str(tmp_path / "o")],
         "use it with `collect programs`"),
        (["collect", "profiles", "--tier", "large", "--from-programs", str(tmp_path),
          "--out", str(tmp_path / "o")], "use it with `collect programs`"),
    ]:
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert match in err and err.count("\n") == 1, (argv, err)


@pytest.mark.parametrize("argv, match", [
    (["train", "xgboost", "--learning-rate", "nan"], "--learning-rate nan: must be a finite"),
    (["train", "gnn", "--lr", "inf"], "--lr inf: must be a finite"),
    (["train", "gnn", "--threads", "0"], "--threads 0: must be a finite number > 0"),
    (["train", "xgboost", "--save", "{file}"], "--save '{file}' is a file"),
    (["train", "xgboost", "--tracking-uri", "bogus://x"], "--tracking-uri 'bogus://x': MLflow "
                                                         "cannot use it"),
    (["train", "xgboost", "--also-families", "convolution"], "--also-families needs --also"),
    (["evaluate", "--out", "{file}"], "--out '{file}' is a file"),
])
def test_training_commands_check_their_arguments_before_any_work(argv, match, tmp_path, capsys):
    """--data does not even exist: the checks come first, not after minutes of training
    (the MLflow URI is checked after the data, so that a missing dataset never leaves a
    store behind: that case gets the shipped dataset)."""
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    argv = [a.replace("{file}", str(a_file)) for a in argv]
    data = (ROOT / "data" / "cpu" if {"--tracking-uri", "--also-families"} & set(argv)
            else tmp_path / "none")
    assert main([*argv[:2], "--data", str(data), *argv[2:]]
                if argv[0] == "train" else [argv[0], "--data", str(data), *argv[1:]]
                ) == 2
    err = capsys.readouterr().err
    assert match.replace("{file}", str(a_file)) in err and err.count("\n") == 1


def test_dataset_json_that_is_not_an_object_is_reported(tmp_path, capsys):
    with store.DatasetWriter(tmp_path / "d", hardware="host-cpu", fingerprint=FP) as w:
        w.add(_row(0))
    (tmp_path / "d" / store.DATASET_FILE).write_text("[]")
    assert main(["dataset", "info", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert "holds a JSON list" in err and err.count("\n") == 1
    assert main(["dataset", "validate", str(tmp_path / "d")]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_split_out_is_checked_first_and_a_failed_write_leaves_no_temp_file(tmp_path, capsys):
    with store.DatasetWriter(tmp_path / "d", hardware="host-cpu", fingerprint=FP) as w:
        w.add(_row(0))
    assert main(["dataset", "split", str(tmp_path / "d"), "--out", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert "is a directory" in err and out == ""
    assert main(["dataset", "split", str(tmp_path / "d"), "--out",
                 str(tmp_path / "no" / "such.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    target = tmp_path / "taken"
    target.mkdir()
    with pytest.raises(OSError):
        stablecost.atomicio.atomic_write_bytes(target, b"data")   # rename onto a directory fails
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "taken"]


def test_split_cli_writes_assignment(tmp_path, capsys):
    with store.DatasetWriter(tmp_path / "d", hardware="host-cpu", fingerprint=FP) as w:
        for i in range(20):
            w.add(_row(i, group=f"g{i % 5}"))
    out = tmp_path / "split.csv"
    assert main(["dataset", "split", str(tmp_path / "d"), "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "sample_id,split" and len(lines) == 21
    assert "train" in capsys.readouterr().out


# --------------------------------------------------------------------------- shipped data
SHIPPED = Path(__file__).resolve().parent.parent / "data" / "cpu"


def test_shipped_cpu_dataset_validates_and_covers_every_family():
    [report] = store.validate(SHIPPED)
    assert report.ok, report.problems[:5]
    assert report.checksums and not report.notes     # every shard listed in manifest.json
    frame = store.read_frame(SHIPPED, columns=["kind", "family", "source"])
    assert set(frame[frame["kind"] == "kernel"]["family"]) == set(kernels.FAMILIES)
    assert set(frame[frame["kind"] == "program"]["family"]) == set(zoo.PROGRAM_FAMILIES)
    assert (frame["kind"] == "kernel").sum() >= 3000 and (frame["kind"] == "program").sum() >= 300
    assert set(frame["source"]) == {"collected"}
    size = sum(f.stat().st_size for f in SHIPPED.rglob("*") if f.is_file())
    assert size <= 20e6
    [dataset] = store.find_datasets(SHIPPED)
    assert (dataset / "hardware.toml").is_file() and (dataset / "noise.json").is_file()


def test_shipped_machines_each_in_their_own_root():
    """data/ keeps every machine's measurements: the reference machine's under data/cpu
    (which training names) and the second machine's beside it, each intact."""
    from stablecost.datasets.store.validation import validate
    from stablecost.featurize.step_profile import READABLE_SPLITS
    from stablecost.train.data import pick_dataset

    reference = pick_dataset(ROOT / "data" / "cpu", "host-cpu")
    second = pick_dataset(ROOT / "data" / "cpu-3076d9df", "host-cpu")
    ids = {store.DatasetInfo.read(d).fingerprint_id for d in (reference, second)}
    assert len(ids) == 2
    fingerprint = store.DatasetInfo.read(second).fingerprint
    assert fingerprint["cpu_family"] == 25 and "avx512_bf16" in fingerprint["cpu_isa"]
    (report,) = validate(second)
    assert not report.problems and report.checksums and report.rows == 19425
    frame = store.read_frame(second, columns=["kind", "params"])
    kinds = frame["kind"].value_counts().to_dict()
    assert set(kinds) == {"kernel", "program", "profile"}
    # every program profiled once with a split rule still read (collect profiles
    # --from-programs; this machine's cannot be profiled again); the profiles split by
    # an older rule stay, unread
    splits = [json.loads(p).get("split") for p in frame.loc[frame["kind"] == "profile", "params"]]
    assert sum(splits.count(rule) for rule in READABLE_SPLITS) == kinds["program"] == 770


def test_collection_needs_neither_mlflow_nor_xgboost_nor_torch(tmp_path):
    # A GPU machine's own Python (3.12, jax + CUDA, numpy, pandas, pyarrow, rich) has no
    # MLflow or XGBoost: collecting there runs from the checkout, so the collector's
    # import graph must not reach them (README, "Collecting on a GPU machine").
    probe = ("import sys; from stablecost.serve.cli import main; "
             "code = main(sys.argv[1:]); "
             "print(sorted(m for m in ('mlflow', 'xgboost', 'torch', 'torch_geometric', "
             "'fastapi', 'sklearn') if m in sys.modules)); sys.exit(code)")
    for kind, limit in (("kernels", "3"), ("programs", "1")):
        done = subprocess.run([sys.executable, "-c", probe, "collect", kind, "--out",
                               str(tmp_path / "d"), "--max-samples", limit],
                              env=_env(), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip().splitlines()[-1] == "[]", kind
