"""The measured fidelity: a program compiled and timed on the local backend (CPU here),
side by side with the others at fidelity="all+measured", refused where it cannot run,
cached per (content, machine), and `stablecost evaluate --programs`."""

from functools import partial

import jax
import jax.numpy as jnp
import pytest

import stablecost
from stablecost.errors import InvalidArgumentError, MeasurementError
from stablecost.hardware.timing import PROGRAM_TIMING, blocking, measure
from stablecost.models import measured
from stablecost.serve.api.fidelity import check_fidelity


def _tanh_matmul(a, b):
    return jnp.tanh(a @ b).sum()


A = B = jnp.ones((256, 256), jnp.float32)
# 16 devices: more than the 8 fake CPU devices of conftest's XLA_FLAGS
SIXTEEN_DEVICES = """
module attributes {mhlo.num_partitions = 16 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.add %a, %a : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
"""
UNKNOWN_CUSTOM_CALL = """
module {
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @no_such_target(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


@pytest.fixture(autouse=True)
def _fresh_measurements():
    measured.clear_cache()
    yield
    measured.clear_cache()


def test_measured_times_a_jitted_program_like_jax_does():
    text = jax.jit(_tanh_matmul).lower(A, B).as_text()
    p = stablecost.predict(text, "host-cpu", fidelity="measured")
    direct = measure(blocking(jax.jit(_tanh_matmul).lower(A, B).compile(), A, B),
                     **PROGRAM_TIMING)
    # a shared 2-core machine: the two timings agree within a loose factor only
    assert 1 / 4 < p.step_time_s / direct.median_s < 4
    assert p.fidelity == "measured"
    assert p.step_time_low_s <= p.step_time_s <= p.step_time_high_s
    assert p.compute_s == pytest.approx(p.step_time_s)
    assert sum(k.total_time_s for k in p.kernels) == pytest.approx(p.step_time_s)
    assert any("each kernel's time inside the step" in n for n in p.notes)
    assert "fingerprint" in p.model and "cpu" in p.model


def test_measured_kernel_rows_are_the_kernels_times_inside_the_step():
    """On one CPU device the measured step is split by a profile of the step: the rows
    follow what ran."""
    text = jax.jit(_tanh_matmul).lower(A, B).as_text()
    p = stablecost.predict(text, "host-cpu", fidelity="measured")
    assert sum(k.total_time_s for k in p.kernels) == pytest.approx(p.step_time_s)
    assert max(p.kernels, key=lambda k: k.total_time_s).kind == "matmul"
    assert all(k.total_time_s >= 0 for k in p.kernels)


def test_measured_kernel_rows_fall_back_to_roofline_shares_without_a_profile(monkeypatch):
    import stablecost.featurize.step_profile as step_profile

    def broken(*args, **kwargs):
        raise RuntimeError("no profiler here")

    monkeypatch.setattr(step_profile, "profile_step", broken)
    # a program no other test predicts (predictions of a program are cached)
    text = jax.jit(_tanh_matmul).lower(A[:128], B).as_text()
    p = stablecost.predict(text, "host-cpu", fidelity="measured")
    assert p.step_time_s > 0
    assert any("roofline's shares" in n and "no profiler here" in n for n in p.notes)


def test_the_note_says_when_much_of_the_profiled_step_ran_in_thunks_of_no_op(monkeypatch):
    import dataclasses

    import stablecost.featurize.step_profile as step_profile

    real = step_profile.profile_step

    def half_unmapped(*args, **kwargs):
        prof = real(*args, **kwargs)
        return dataclasses.replace(prof, unmapped_s=prof.busy_s * 0.4)

    monkeypatch.setattr(step_profile, "profile_step", half_unmapped)
    text = jax.jit(_tanh_matmul).lower(A[:64], B).as_text()
    p = stablecost.predict(text, "host-cpu", fidelity="measured")
    assert any("40% of the profiled step ran in XLA thunks that name none of the "
               "program's ops" in n for n in p.notes)
    assert sum(k.total_time_s for k in p.kernels) == pytest.approx(p.step_time_s)
    # a profile that maps (almost) everything says nothing of it
    assert measured.Measurement(stats=p_stats(), machine="m", fingerprint_id="f",
                                kernel_s={0: 1.0}, unmapped_share=0.02
                                ).describe().count("thunks") == 0


def p_stats():
    return measure(lambda: None, **PROGRAM_TIMING)


def test_donated_arguments_are_timed_without_donation():
    donating = jax.jit(lambda a, b: (a + b, b * 2), donate_argnums=(0,))
    x = jnp.ones((64,), jnp.float32)
    p = stablecost.predict(donating.lower(x, x).as_text(), "host-cpu", fidelity="measured")
    assert p.step_time_s > 0


def test_all_leaves_measured_out_and_all_plus_measured_shows_it_beside_the_others():
    analysis = stablecost.analyze(jax.jit(_tanh_matmul).lower(A, B).as_text())
    cheap = stablecost.predict(analysis, "host-cpu", fidelity="all")
    assert set(cheap.by_fidelity) == {"roofline", "learned"}
    assert measured.cache_size() == 0            # `all` never runs the program
    side = stablecost.predict(analysis, "host-cpu", fidelity="all+measured")
    assert set(side.by_fidelity) == {"roofline", "learned", "measured"}
    assert side.fidelity == cheap.fidelity == "learned"
    alone = stablecost.predict(analysis, "host-cpu", fidelity="measured")
    assert side.by_fidelity["measured"].step_time_s == alone.step_time_s
    # on another chip than this machine's: the others, and a note why measured is not
    other = stablecost.predict(analysis, "H100-SXM", fidelity="all+measured")
    assert "measured" not in other.by_fidelity
    assert any(n.startswith("measured: left out:") and "host-cpu" in n for n in other.notes)


def test_measured_covers_only_this_machine():
    with pytest.raises(MeasurementError, match="backend, which is host-cpu; it cannot "
                                               "measure H100-SXM"):
        stablecost.predict(SIXTEEN_DEVICES, "H100-SXM", fidelity="measured")


def test_a_program_on_more_devices_than_the_backend_has_is_refused():
    with pytest.raises(MeasurementError,
                       match=r"cannot measure it here: it runs on 16 devices, and the local "
                             r"cpu backend has 8$"):
        stablecost.predict(SIXTEEN_DEVICES, "host-cpu", fidelity="measured")
    p = stablecost.predict(SIXTEEN_DEVICES, "host-cpu", fidelity="all+measured")
    assert "measured" not in p.by_fidelity and "roofline" in p.by_fidelity
    assert any(n.startswith("measured: left out:") and "16 devices" in n for n in p.notes)


def test_a_program_that_does_not_compile_is_a_one_line_error(monkeypatch):
    with pytest.raises(MeasurementError, match="does not compile on the local cpu backend") \
            as info:
        stablecost.predict(UNKNOWN_CUSTOM_CALL, "host-cpu", fidelity="measured")
    assert "no_such_target" in str(info.value) and "\n" not in str(info.value)
    # the failure is remembered: asking again does not compile again
    monkeypatch.setattr(measured, "_time", lambda *a: pytest.fail("compiled twice"))
    with pytest.raises(MeasurementError, match="does not compile"):
        stablecost.predict(stablecost.analyze(UNKNOWN_CUSTOM_CALL), "host-cpu",
                           fidelity="measured")


def test_measurements_are_cached_per_content_and_machine(monkeypatch):
    calls = []
    real = measured.measure
    monkeypatch.setattr(measured, "measure",
                        lambda call, **kw: calls.append(1) or real(call, **kw))
    text = jax.jit(partial(jnp.multiply, 3.0)).lower(jnp.ones((32,))).as_text()
    first = stablecost.predict(stablecost.analyze(text), "host-cpu", fidelity="measured")
    again = stablecost.predict(stablecost.analyze(text), "host-cpu", fidelity="measured")
    assert len(calls) == 1 and again.step_time_s == first.step_time_s
    measured.clear_cache()
    stablecost.predict(stablecost.analyze(text), "host-cpu", fidelity="measured")
    assert len(calls) == 2


def test_the_collectors_timing_rule_is_the_one_mirrored_in_hardware():
    from stablecost.datasets import collect
    from stablecost.hardware import timing

    assert collect.PROGRAM_TIMING == timing.PROGRAM_TIMING
    assert collect.KERNEL_TIMING == timing.KERNEL_TIMING


def test_the_http_service_never_runs_programs():
    with pytest.raises(InvalidArgumentError, match="runs the program on this machine"):
        check_fidelity("measured", run=False)
    with pytest.raises(InvalidArgumentError, match="allowed: auto, roofline, learned, all$"):
        check_fidelity("all+measured", run=False)


def test_evaluate_scores_the_users_programs_against_measured(tmp_path, capsys):
    from stablecost.serve.cli.main import main

    (tmp_path / "small.mlir").write_text(jax.jit(_tanh_matmul).lower(A, B).as_text())
    (tmp_path / "broken.mlir").write_text(UNKNOWN_CUSTOM_CALL)
    (tmp_path / "notes.txt").write_text("not a program")
    assert main(["evaluate", "--programs", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "small.mlir" in out and "broken.mlir" in out and "notes.txt" not in out
    assert "learned: MAPE" in out and "roofline: MAPE" in out and "over 1 measured" in out
    assert "not measured:" in out and "does not compile" in out
    assert main(["evaluate", "--programs", str(tmp_path / "missing")]) == 2


def _mesh_4x2():
    import numpy as np

    return jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("data", "model"))


def test_a_shard_map_program_runs_on_the_local_devices_it_needs():
    """conftest gives 8 CPU devices: an 8-device program is partitioned and timed on them."""
    from jax.sharding import PartitionSpec as P

    step = jax.jit(jax.shard_map(lambda x: jax.lax.psum(jnp.tanh(x), "data"), mesh=_mesh_4x2(),
                                 in_specs=P("data"), out_specs=P()))
    p = stablecost.predict(step.lower(jnp.ones((64, 32))).as_text(), "host-cpu",
                           fidelity="measured")
    assert p.num_devices == 8 and p.step_time_s > 0 and "8 x " in p.model
    # the measured step holds its all-reduce: nothing is priced on top of it
    assert p.collectives == () and p.communication_s == 0
    assert p.step_time_s == pytest.approx(p.compute_s)
    assert sum(k.total_time_s for k in p.kernels) == pytest.approx(p.step_time_s)
    assert any("includes its communication" in n for n in p.notes)


def test_a_program_is_measured_on_the_mesh_it_was_exported_for_only():
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    sharded = NamedSharding(_mesh_4x2(), P("data", "model"))
    text = jax.jit(jnp.tanh, in_shardings=sharded).lower(jnp.ones((64, 32))).as_text()
    assert stablecost.predict(text, "host-cpu", fidelity="measured").num_devices == 8
    with pytest.raises(MeasurementError, match="exported for mesh data=4,model=2"):
        stablecost.predict(text, "host-cpu", fidelity="measured",
                           mesh={"data": 2, "model": 4})


def test_a_bytecode_program_is_measured_from_the_text_its_isolated_read_printed(tmp_path):
    from stablecost.featurize.mlir import parse_module
    from stablecost.featurize.partition import module_bytecode

    text = jax.jit(_tanh_matmul).lower(A, B).as_text()
    path = tmp_path / "step.mlirbc"
    path.write_bytes(module_bytecode(parse_module(text)))
    program = stablecost.load_program(path)
    assert isinstance(program.stablehlo, str) and "stablehlo.tanh" in program.stablehlo
    assert stablecost.predict(program, "host-cpu", fidelity="measured").step_time_s > 0


def test_64_bit_arguments_are_fed_as_64_bit_arrays():
    """jax makes f64/i64 arrays 32-bit unless x64 is on; XLA would refuse those."""
    text = """
module {
  func.func public @main(%a: tensor<8xf64>, %i: tensor<8xi64>, %m: tensor<8xi1>)
      -> tensor<8xf64> {
    %0 = stablehlo.add %a, %a : tensor<8xf64>
    return %0 : tensor<8xf64>
  }
}
"""
    assert stablecost.predict(text, "host-cpu", fidelity="measured").step_time_s > 0
    assert not jax.config.jax_enable_x64
