"""Per-kernel times inside a step from XLA:CPU's profiler (featurize/step_profile.py)."""
import jax
import jax.numpy as jnp
import pytest

from stablecost.featurize.step_profile import (
    exclusive_seconds,
    label_ops,
    profile_step,
    thunk_intervals,
)


def test_exclusive_time_splits_overlap_evenly_and_adds_up_to_busy_time():
    # a: 0-10, b: 5-15 (overlap 5-10), c: 20-30 alone; a gap 15-20
    excl, busy = exclusive_seconds([(0, 10, "a"), (5, 15, "b"), (20, 30, "c")])
    assert excl == pytest.approx({"a": 7.5, "b": 7.5, "c": 10.0})
    assert busy == pytest.approx(25.0)
    assert sum(excl.values()) == pytest.approx(busy)


def test_exclusive_time_sums_repeated_thunks_and_ignores_empty_ones():
    excl, busy = exclusive_seconds([(0, 4, "a"), (4, 4, "z"), (10, 12, "a")])
    assert excl == {"a": pytest.approx(6.0)}
    assert busy == pytest.approx(6.0)


def test_async_thunks_end_at_their_end_event_and_containers_are_skipped():
    events = [(0, 100, "while.1"), (10, 2, "conv"), (12, 1, "ThreadpoolListener::Record"),
              (40, 1, "end: conv"), (50, 5, "add")]
    assert thunk_intervals(events, {"while.1"}) == [(10, 41, "conv"), (50, 55, "add")]


def _program():
    def step(x, w):
        h = jnp.tanh(x @ w)
        return jax.nn.softmax(h, axis=-1).sum(axis=0)

    return jax.jit(step).lower(jnp.ones((128, 256)), jnp.ones((256, 512))).as_text()


def test_label_ops_names_every_stablehlo_op():
    import stablecost
    from stablecost.featurize.mlir import parse_module

    module = parse_module(_program().encode(), "t")
    n = label_ops(module)
    program = stablecost.load_program(module.operation.get_asm(enable_debug_info=True))
    names = [op.location for op in program.ops]
    assert n > 5 and names
    # every op the analysis sees carries its own label (reducer bodies print compactly)
    assert all(name.startswith("sc") and name[2:].isdigit() for name in names)
    assert len(set(names)) == len(names)


def test_profile_of_a_small_program_gives_every_kernel_its_share_of_the_step():
    import stablecost

    prof = profile_step(_program(), "t", steps=3, warmup=1)
    analysis = stablecost.analyze(stablecost.load_program(_program()))
    priced = {k.index for k in analysis.kernels if k.priced and k.kind != "collective"}
    assert set(prof.kernel_s) == priced
    assert all(v >= 0 for v in prof.kernel_s.values())
    # the dot does most of the work and is found
    assert max(prof.kernel_s.values()) > 0
    total = sum(prof.kernel_s.values()) + prof.unmapped_s
    assert total == pytest.approx(prof.busy_s, rel=1e-6)
    assert prof.unmapped_s < 0.5 * prof.busy_s
    assert 0 < prof.busy_s <= prof.wall_s * 1.05
    assert prof.as_json()["steps"] == 3
    # thunk by thunk: the same seconds, each over the kernels it was split among
    assert sum(s for s, _ in prof.thunk_s.values()) == pytest.approx(prof.busy_s, rel=1e-6)
    assert {i for _, held in prof.thunk_s.values() for i in held} <= priced
    assert "thunk_s" not in prof.as_json()


def test_profile_refuses_nonsense_settings():
    from stablecost.errors import MeasurementError

    with pytest.raises(MeasurementError, match="at least one step"):
        profile_step(_program(), "t", steps=0)


def test_collect_profiles_stores_each_programs_kernel_times_and_resumes(tmp_path, capsys):
    import json

    import stablecost
    from stablecost.datasets import collect, store
    from stablecost.datasets.profiles import kernel_seconds
    from stablecost.serve.cli import main

    programs = tmp_path / "programs"
    collect.collect("program", programs, max_samples=2, families=["mlp"])
    out = tmp_path / "profiles"
    argv = ["collect", "profiles", "--from-programs", str(programs), "--out", str(out)]
    assert main([*argv, "--max-samples", "1"]) == 0
    assert main(argv) == 0                       # the second program only
    capsys.readouterr()
    assert main(argv) == 0 and "0 new samples" in capsys.readouterr().out
    frame = store.read_frame(out)
    stored = store.read_frame(programs)
    assert set(frame["kind"]) == {"profile"} and len(frame) == 2
    assert {json.loads(p)["program"] for p in frame["params"]} == set(stored["sample_id"])
    for row in frame.itertuples():
        seconds = kernel_seconds(row.kernel_times)
        analysis = stablecost.analyze(stablecost.load_program(row.stablehlo))
        assert set(seconds) == {k.index for k in analysis.kernels
                                if k.priced and k.kind != "collective"}
        assert sum(seconds.values()) <= json.loads(row.kernel_times)["busy_s"] * (1 + 1e-9)
        assert row.median_s > 0
    # kernel times of another featurizer's kernels are not read
    other = json.loads(frame["kernel_times"].iloc[0]) | {"featurizer_version": "0"}
    assert kernel_seconds(json.dumps(other)) is None and kernel_seconds(None) is None


def test_collect_profiles_needs_stored_programs(tmp_path, capsys):
    from stablecost.serve.cli import main

    assert main(["collect", "profiles", "--out", str(tmp_path)]) == 2
    assert "give --from-programs PATH" in capsys.readouterr().err
