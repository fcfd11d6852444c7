"""Outlining: each fused kernel of a program as a module of its own, and collecting them."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import pytest

import stablecost
from stablecost.datasets import store
from stablecost.featurize.outline import outline
from stablecost.serve.cli import main


def _text(fn, *args) -> str:
    return jax.jit(fn).lower(*args).as_text()


def _priced(text: str) -> list:
    analysis = stablecost.analyze(stablecost.load_program(text))
    return [k for k in analysis.kernels if k.kind != "collective" and k.priced]


def _check_every_kernel(text: str) -> list:
    """Every priced kernel is outlined, parses, and carries the kernel's own FLOPs."""
    kernels = {k.index: k for k in _priced(text)}
    result = outline(text)
    assert not result.skipped
    assert sorted(k.index for k in result.kernels) == sorted(kernels)
    for outlined in result.kernels:
        alone = stablecost.analyze(stablecost.load_program(outlined.text))
        kernel = kernels[outlined.index]
        assert alone.flops == pytest.approx(kernel.flops, rel=1e-9, abs=1.0), outlined.text
        assert outlined.count == kernel.count and outlined.kind == kernel.kind
        assert "func.func @main(" in outlined.text
    return result.kernels


def test_a_layer_is_cut_into_its_kernels_each_with_its_own_flops():
    def layer(x, w, b):
        h = jax.nn.relu(x @ w + b)
        return (h * h).sum(axis=1)

    text = _text(layer, jnp.ones((8, 64)), jnp.ones((64, 32)), jnp.ones((32,)))
    kernels = _check_every_kernel(text)
    dots = [k for k in kernels if k.kind == "matmul"]
    assert len(dots) == 1 and "dot_general" in dots[0].text
    # on CPU the dot is a kernel of its own (XLA:CPU fuses no epilogue): it reads x and w
    assert "%arg1: tensor<64x32xf32>" in dots[0].text and "%arg2" not in dots[0].text


def test_kernels_across_inlined_calls_and_inside_loops_keep_their_wiring():
    @jax.jit
    def cell(h, w):          # a private function, called from the loop body
        return jnp.tanh(h @ w)

    def rnn(h, w):
        return jax.lax.fori_loop(0, 16, lambda i, h: cell(h, w), h).sum()

    text = _text(rnn, jnp.ones((4, 32)), jnp.ones((32, 32)))
    kernels = _check_every_kernel(text)
    assert any(k.count == 16 and k.kind == "matmul" for k in kernels)


def test_a_training_step_outlines_every_kernel_and_layers_share_digests():
    def loss(ws, x):
        for w in ws:
            x = jax.nn.gelu(x @ w)
        return jnp.mean(x ** 2)

    step = jax.grad(loss)
    ws = [jnp.ones((64, 64)) for _ in range(3)]
    kernels = _check_every_kernel(_text(step, ws, jnp.ones((16, 64))))
    digests = [k.digest for k in kernels]
    assert len(set(digests)) < len(digests)      # the repeated layers repeat kernels


def test_collectives_are_skipped_and_named():
    text = """
    module @m attributes {mhlo.num_partitions = 2 : i32} {
      func.func public @main(%x: tensor<8xf32>) -> tensor<8xf32> {
        %y = stablehlo.multiply %x, %x : tensor<8xf32>
        %z = "stablehlo.all_reduce"(%y) ({
          ^bb0(%a: tensor<f32>, %b: tensor<f32>):
            %s = stablehlo.add %a, %b : tensor<f32>
            stablehlo.return %s : tensor<f32>
        }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
            channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
            use_global_device_ids} : (tensor<8xf32>) -> tensor<8xf32>
        return %z : tensor<8xf32>
      }
    }"""
    result = outline(text)
    assert result.skipped == {"collective": 1}
    assert len(result.kernels) == 1 and "multiply" in result.kernels[0].text


def test_collect_from_programs_times_each_distinct_kernel_once_and_resumes(tmp_path, capsys):
    from stablecost.datasets import collect

    programs = tmp_path / "programs"
    summary = collect.collect("program", programs, max_samples=1, families=["mlp"])
    assert summary.samples == 1
    out = tmp_path / "kernels"
    argv = ["collect", "kernels", "--from-programs", str(programs), "--out", str(out)]
    assert main([*argv, "--max-samples", "3"]) == 0
    assert main(argv) == 0                   # completes the sweep, skipping the first 3
    frame = store.read_frame(out)
    [program] = store.read_frame(programs).itertuples()
    assert set(frame["family"]) == {"outlined"} and set(frame["variant"]) == {"mlp"}
    assert len(frame) == len({k.digest for k in outline(program.stablehlo).kernels})
    assert frame["sample_id"].is_unique and (frame["median_s"] > 0).all()
    assert all(g.startswith("outlined/mlp/") for g in frame["group_id"])
    capsys.readouterr()
    assert main(argv) == 0 and "0 new samples" in capsys.readouterr().out
    # a second program: only its new kernels are timed, none of the stored ones again,
    # even where the new program now comes first in the sweep's order
    collect.collect("program", programs, max_samples=2, families=["mlp"])
    assert main(argv) == 0
    frame = store.read_frame(out)
    digests = [json.loads(p)["digest"] for p in frame["params"]]
    every = {k.digest for row in store.read_frame(programs).itertuples()
             for k in outline(row.stablehlo).kernels}
    assert len(digests) == len(set(digests)) == len(every)
    # what decides it: the sweep leaves out every digest the output dataset holds
    from stablecost.datasets.outlined import outlined_samples, stored_digests

    [dataset] = store.find_datasets(out)
    assert stored_digests(dataset) == every and stored_digests(tmp_path / "none") == set()
    skip = set(sorted(every)[:3])
    left = [s.params["digest"] for s in outlined_samples(programs, (), stored=lambda: skip)]
    assert set(left) == every - skip and len(left) == len(set(left))


def test_collect_from_programs_refuses_bad_arguments(tmp_path, capsys):
    assert main(["collect", "programs", "--from-programs", str(tmp_path)]) == 2
    assert "use it with `collect kernels`" in capsys.readouterr().err
    assert main(["collect", "kernels", "--from-programs", str(tmp_path / "none")]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert main(["collect", "kernels", "--from-programs", str(tmp_path), "--ray"]) == 2
    assert "leave out --ray" in capsys.readouterr().err
