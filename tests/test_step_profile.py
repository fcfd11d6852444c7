"""Per-kernel times inside a step from XLA:CPU's profiler (featurize/step_profile.py)."""
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from stablecost.featurize.program import FEATURIZER_VERSION
from stablecost.featurize.step_profile import (
    SPLIT,
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


def test_a_thunk_is_split_by_the_work_of_the_ops_it_holds_not_whole_kernels():
    from types import SimpleNamespace as NS

    from stablecost.featurize.costs import OpCost
    from stablecost.featurize.step_profile import SPLIT, _attribute

    n = 1 << 20
    f32 = 4.0 * n
    # kernel 0: a dot (a GFLOP) and its bias add; kernel 1: a sine of the sum
    ops = [NS(opcode="dot_general", location="sc0"), NS(opcode="add", location="sc1"),
           NS(opcode="sine", location="sc2")]
    costs = [OpCost(1e9, 0, (f32, f32), (f32,), "matmul"),
             OpCost(n, 0, (f32, f32), (f32,), "vector"),
             OpCost(0, n, (f32,), (f32,), "vector")]
    kernels = [NS(index=0, kind="matmul", priced=True, ops=[0, 1]),
               NS(index=1, kind="loop", priced=True, ops=[2])]
    analysis = NS(kernels=kernels, costs=costs, program=NS(ops=ops))
    # XLA ran the dot alone (1 ms) and the add with the sine (3 ms)
    labels = {"dot.1": {"sc0"}, "add_sine_fusion": {"sc1", "sc2"}}
    prof = _attribute(analysis, labels, {"dot.1": 1e6, "add_sine_fusion": 3e6}, 4e6, [0.004])
    # the add's share of the fused thunk is its own work, not the dot's GFLOP
    add = 1 + 20 * 3 * f32 + n
    sine = 1 + 20 * 2 * f32 + 1800 * n
    assert prof.kernel_s[0] == pytest.approx(1e-3 + 3e-3 * add / (add + sine))
    assert prof.kernel_s[1] == pytest.approx(3e-3 * sine / (add + sine))
    assert prof.kernel_s[1] > 2e-3          # most of the fused thunk is the sine
    assert prof.thunk_s["add_sine_fusion"] == (pytest.approx(3e-3), (0, 1))
    assert prof.as_json()["split"] == SPLIT


def test_an_unnamed_convolution_thunk_goes_to_the_kernel_of_its_size_no_conv_thunk_ran():
    from types import SimpleNamespace as NS

    from stablecost.featurize.step_profile import _matched_labels

    def conv(location, elements):
        return NS(opcode="convolution", location=location,
                  results=(NS(num_elements=elements),))

    ops = [conv("sc0", 2048), conv("sc1", 16384), conv("sc2", 2048), conv("sc3", 2048)]
    kernels = [NS(ops=[0]), NS(ops=[1]), NS(ops=[2]), NS(ops=[3])]
    labels = {"conv.named": {"sc1"}, "copy.1": {"sc0"}, "conv.done": {"sc3"},
              "conv-rewritten": set()}
    exclusive = {"conv.named": 1.0, "copy.1": 1.0, "conv.done": 1.0, "conv-rewritten": 5.0}
    matched = _matched_labels(kernels, ops, labels, exclusive,
                              {"conv-rewritten": ("convolution", 2048)},
                              computing={"conv.named", "conv.done", "conv-rewritten"})
    # sc0's label is held only by a layout copy, so its convolution still counts as not
    # run; sc3 ran in a named convolution thunk; sc1 has another size; sc0 and sc2 tie
    assert matched == {"conv-rewritten": {"sc0", "sc2"}}


def test_a_transposed_convolutions_filter_gradient_is_profiled_to_its_kernel():
    import stablecost

    nhwc = ("NHWC", "HWIO", "NHWC")

    def loss(w, x):
        y = jax.lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=nhwc)
        return jnp.sum(y * y)

    text = jax.jit(jax.grad(loss)).lower(jnp.ones((4, 4, 16, 8)) * 0.01,
                                          jnp.ones((8, 8, 8, 16))).as_text()
    prof = profile_step(text, "t", steps=2, warmup=1)
    analysis = stablecost.analyze(stablecost.load_program(text))
    convs = {k.index for k in analysis.kernels
             if any(analysis.program.ops[i].opcode == "convolution" for i in k.ops)}
    assert len(convs) == 2 and all(prof.kernel_s[i] > 0 for i in convs)
    # XLA rewrites the filter gradient into a convolution that names no op of ours;
    # it is found by its size, so almost all of the step maps to a kernel
    assert prof.unmapped_s < 0.2 * prof.busy_s
    conv_thunks = [held for name, (_, held) in prof.thunk_s.items()
                   if name.startswith("convolution")]
    assert conv_thunks and all(set(held) <= convs and held for held in conv_thunks)


def _depthwise_gradient_text() -> str:
    nhwc = ("NHWC", "HWIO", "NHWC")

    def loss(w, x):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=nhwc,
                                         feature_group_count=32)
        return jnp.sum(y * y)

    return jax.jit(jax.grad(loss)).lower(jnp.ones((3, 3, 1, 32)) * 0.1,
                                         jnp.ones((4, 16, 16, 32))).as_text()


def test_a_depthwise_filter_gradient_is_profiled_to_its_kernel():
    import stablecost
    from stablecost.datasets.profiles import densely_rewritten

    text = _depthwise_gradient_text()
    prof = profile_step(text, "t", steps=2, warmup=1)
    analysis = stablecost.analyze(stablecost.load_program(text))
    dense = densely_rewritten(analysis)
    # XLA:CPU runs it as a dense convolution over every pair of channels, in a fusion
    # thunk naming no op of ours, with 32 times its output: matched by that size
    assert len(dense) == 1 and prof.kernel_s[dense[0]] > 0.05 * prof.busy_s
    fusions = [seconds for name, (seconds, held) in prof.thunk_s.items()
               if held == (dense[0],) and name.startswith("ynn_fusion")]
    assert fusions and max(fusions) > 0.5 * prof.kernel_s[dense[0]]
    # the layout copies XLA put before it stay unmapped
    assert prof.unmapped_s < 0.5 * prof.busy_s


def test_an_older_split_is_read_without_the_kernels_it_could_not_time():
    import stablecost
    from stablecost.datasets.profiles import densely_rewritten, kernel_seconds

    text = _depthwise_gradient_text()
    analysis = stablecost.analyze(stablecost.load_program(text))
    priced = [k.index for k in analysis.kernels if k.priced and k.kind != "collective"]
    stored = {"featurizer_version": FEATURIZER_VERSION, "split": "held-ops-2",
              "kernel_s": {str(i): 1e-3 for i in priced}}
    seconds = kernel_seconds(json.dumps(stored), analysis=analysis)
    dense = set(densely_rewritten(analysis))
    assert dense and set(seconds) == set(priced) - dense
    # it needs the program's analysis to know which those are; the current rule does not
    assert kernel_seconds(json.dumps(stored)) is None
    assert set(kernel_seconds(json.dumps(stored | {"split": SPLIT}))) == set(priced)
    assert kernel_seconds(json.dumps(stored | {"split": "held-ops"}), analysis=analysis) is None


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
    # busy_s is a mean over the profiled steps (wall_s their median, which one slow step
    # on a busy machine leaves below the mean): compare like with like
    assert 0 < prof.busy_s <= float(np.mean(prof.walls_s)) * 1.05
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
    # kernel times of another featurizer's kernels, or split by another rule, are not read
    stored = json.loads(frame["kernel_times"].iloc[0])
    other = stored | {"featurizer_version": "0"}
    assert kernel_seconds(json.dumps(other)) is None and kernel_seconds(None) is None
    old_split = {k: v for k, v in stored.items() if k != "split"}
    assert kernel_seconds(json.dumps(old_split)) is None
    assert all(json.loads(p)["split"] == SPLIT for p in frame["params"])


def test_collect_profiles_needs_stored_programs(tmp_path, capsys):
    from stablecost.serve.cli import main

    assert main(["collect", "profiles", "--out", str(tmp_path)]) == 2
    assert "give --from-programs PATH" in capsys.readouterr().err


def test_command_buffer_kernels_resolve_to_their_instructions():
    from stablecost.featurize.step_profile import _KERNEL_NAME, resolve_kernel_names

    events = [(0, 5, _KERNEL_NAME + "gemm_fusion_dot_3"), (5, 2, "cudnn-conv.20"),
              (7, 1, _KERNEL_NAME + "nvjet_sm90_tst_128x128"), (8, 1, _KERNEL_NAME + "fusion_7")]
    resolved = resolve_kernel_names(events, ["gemm_fusion_dot.3", "cudnn-conv.20", "fusion.7"])
    assert [name for _, _, name in resolved] == [
        "gemm_fusion_dot.3", "cudnn-conv.20", "nvjet_sm90_tst_128x128", "fusion.7"]


def test_an_h100_trace_names_the_instructions_of_its_module():
    """A real XLA:GPU trace (H100, jax 0.11.2, command buffers off): every kernel event
    names an instruction of the optimized module it ran."""
    import gzip
    import re
    from pathlib import Path

    from stablecost.featurize.step_profile import _device_events, resolve_kernel_names

    steps = Path(__file__).parents[1] / "benchmarks/timings/h100-sxm-69c6a60d/steps"
    with gzip.open(steps / "mlp_train_step.optimized.hlo.gz", "rt") as f:
        names = set(re.findall(r"^\s*(?:ROOT )?%?([\w.\-]+) = ", f.read(), re.M))
    events = resolve_kernel_names(_device_events(str(steps / "mlp_train_step.xplane.pb")),
                                  names)
    assert len(events) >= 5 * 10    # five profiled steps of at least ten kernels
    assert {name for _, _, name in events} <= names


def test_labels_read_from_an_optimized_hlo_text_are_the_modules():
    """`benchmarks/xla_gpu.py` keeps XLA's optimized HLO as text; read back, it names
    the same instructions, labels and containers as the compiled module does."""
    from stablecost.featurize.step_profile import compute_thunks, prepare_step, thunk_labels

    def step(x, w):
        def body(carry, _):
            return jnp.tanh(carry @ w), None

        return jax.lax.scan(body, x, None, length=3)[0].sum()

    text = jax.jit(step).lower(jnp.ones((16, 32)), jnp.ones((32, 32))).as_text()
    module = prepare_step(text, "t").executable.hlo_modules()[0]
    labels, containers = thunk_labels(module)
    assert thunk_labels(module.to_string()) == (labels, containers)
    assert containers and any(labels.values())
    assert compute_thunks(module.to_string(), labels) == compute_thunks(module, labels)


def test_a_profile_of_the_previous_featurizer_is_mapped_kernel_by_kernel():
    # Featurizer 6 fused each expert's weight-gradient dot with the pad into the stack
    # of experts' weights; its profiles index those kernels. Read with the program's
    # analysis, a kernel made of the same ops keeps its time; the dots and their
    # consumer, grouped otherwise now, have none. Without the analysis, or from a
    # version no rule reproduces, the profile is not read.
    import json
    import sys
    from pathlib import Path

    import stablecost
    from stablecost.datasets.profiles import kernel_seconds
    from stablecost.featurize.fusion import fuse

    sys.path.insert(0, str(Path(__file__).parent))
    from test_fusion import _stacked_expert_gradient

    a = stablecost.analyze(_stacked_expert_gradient().as_text())
    old = fuse(a.program, a.costs, widening_epilogue=True)
    stored = {"featurizer_version": "6", "split": SPLIT,
              "kernel_s": {str(k.index): 1e-3 * (k.index + 1) for k in old}}
    seconds = kernel_seconds(json.dumps(stored), analysis=a)
    old_by_ops = {frozenset(k.ops): k.index for k in old}
    same = [k for k in a.kernels if frozenset(k.ops) in old_by_ops]
    assert 0 < len(same) < len(a.kernels)
    assert seconds == {k.index: 1e-3 * (old_by_ops[frozenset(k.ops)] + 1) for k in same}
    assert kernel_seconds(json.dumps(stored)) is None
    assert kernel_seconds(json.dumps(stored | {"featurizer_version": "5"}), analysis=a) is None


def test_collect_profiles_profiles_again_what_an_older_featurizer_does_not_cover():
    # A stored profile of version 6 that covers every kernel of this version (its
    # kernels map one to one) keeps its sample: the program is skipped. One whose
    # kernels are grouped otherwise now gets a sample naming this version, a new
    # sample id, and is profiled again; readers then take the newer row first.
    import json
    import sys
    from pathlib import Path
    from types import SimpleNamespace

    import stablecost
    from stablecost.datasets.profiles import newest_first, profile_samples
    from stablecost.featurize.fusion import fuse
    from stablecost.featurize.program import FEATURIZER_VERSION

    sys.path.insert(0, str(Path(__file__).parent))
    from test_fusion import _stacked_expert_gradient

    experts = _stacked_expert_gradient().as_text()
    plain = jax.jit(lambda x: jnp.tanh(x @ x)).lower(jnp.ones((64, 64))).as_text()

    def v6_profile(text):
        a = stablecost.analyze(text)
        old = fuse(a.program, a.costs, widening_epilogue=True)
        return json.dumps({"featurizer_version": "6", "split": SPLIT,
                           "kernel_s": {str(k.index): 1e-3 for k in old}})

    rows = [SimpleNamespace(params="{}", sample_id=name, family="f", variant="v",
                            dtype="f32", group_id=name, stablehlo=text)
            for name, text in (("experts", experts), ("plain", plain), ("new", plain))]
    stored = {"experts": [v6_profile(experts)], "plain": [v6_profile(plain)]}
    samples = {s.params["program"]: s.params
               for s in profile_samples("unused", None, rows=rows, stored=lambda: stored)}
    assert samples["experts"].get("featurizer") == FEATURIZER_VERSION
    assert "featurizer" not in samples["plain"] and "featurizer" not in samples["new"]
    newer = json.dumps({"featurizer_version": FEATURIZER_VERSION, "split": SPLIT,
                        "kernel_s": {}})
    assert newest_first([stored["experts"][0], newer]) == [newer, stored["experts"][0]]
