"""Portable forms of StableHLO: `jax.export` artifacts and VHLO portable artifacts of
every version this jaxlib reads, as bytes, files and through the CLI."""

import dataclasses
import json

import jax
import jax.numpy as jnp
import pytest
from jax import export
from jax.sharding import AbstractMesh, AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

import stablecost
from stablecost.errors import ProgramParseError
from stablecost.featurize.mlir import bindings
from stablecost.featurize.portable import vhlo_version
from stablecost.serve.cli import main


def f(x, w):
    return jnp.tanh(x @ w).sum()


ARGS = (jnp.ones((8, 16), jnp.float32), jnp.ones((16, 4), jnp.float32))
# dot 8x16 @ 16x4: 2*8*16*4 = 1024 FLOPs; the reduce over 32 elements: 31 adds


@pytest.fixture(scope="module")
def exported():
    return export.export(jax.jit(f))(*ARGS)


@pytest.fixture(scope="module")
def lowered_flops():
    return stablecost.analyze(jax.jit(f).lower(*ARGS)).flops


def _at_version(exp, version):
    """The same Exported with its module re-serialized for StableHLO `version`."""
    stablehlo = bindings()[1]
    module = stablehlo.serialize_portable_artifact_str(exp.mlir_module(), version)
    return dataclasses.replace(exp, mlir_module_serialized=module)


@pytest.mark.parametrize("version", [None, "0.9.0", "1.0.0", "1.17.0"])
def test_jax_export_bytes_analyze_like_the_lowered_function(exported, lowered_flops, version):
    exp = exported if version is None else _at_version(exported, version)
    data = bytes(exp.serialize())
    if version:
        assert vhlo_version(exp.mlir_module_serialized) == version
    a = stablecost.analyze(data)
    assert a.flops == lowered_flops >= 1024
    p = stablecost.load_program(data)
    assert p.notes[0].startswith("jax.export artifact of function 'f' for platforms cpu "
                                 "on 1 device(s)")
    assert isinstance(p.stablehlo, str) and "stablehlo.dot_general" in p.stablehlo


def test_older_calling_convention(lowered_flops):
    jax.config.update("jax_export_calling_convention_version", 9)
    try:
        exp = export.export(jax.jit(f))(*ARGS)
    finally:
        jax.config.update("jax_export_calling_convention_version", 10)
    assert stablecost.analyze(bytes(exp.serialize())).flops == lowered_flops


def test_cli_analyzes_a_jax_export_file(exported, lowered_flops, tmp_path, capsys):
    path = tmp_path / "f.jexp"
    path.write_bytes(exported.serialize())
    assert main(["analyze", "--json", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["flops"] == lowered_flops
    assert any("jax.export artifact of function 'f'" in n for n in out["notes"])


@pytest.mark.parametrize("version", ["0.9.0", "1.0.0", "1.17.0"])
def test_vhlo_portable_artifact_file(exported, lowered_flops, tmp_path, version,
                                     monkeypatch):
    stablehlo = bindings()[1]
    path = tmp_path / "f.mlirbc"
    path.write_bytes(stablehlo.serialize_portable_artifact_str(exported.mlir_module(), version))
    assert stablecost.analyze(path).flops == lowered_flops
    # read in this process too (a disposable worker does): kept as StableHLO text
    monkeypatch.setenv("STABLECOST_BYTECODE_IN_CHILD", "0")
    p = stablecost.load_program(path)
    assert isinstance(p.stablehlo, str) and "stablehlo.tanh" in p.stablehlo
    assert stablecost.analyze(p).flops == lowered_flops


@pytest.mark.parametrize("in_child", ["1", "0"])
def test_truncated_artifacts_are_one_line_errors(exported, monkeypatch, in_child):
    monkeypatch.setenv("STABLECOST_BYTECODE_IN_CHILD", in_child)
    data = bytes(exported.serialize())
    vhlo = exported.mlir_module_serialized
    version = vhlo_version(vhlo)
    cases = [(data[: len(data) // 2], r"corrupt jax\.export artifact .*schema version 3"),
             (data[:-40], r"corrupt jax\.export artifact"),
             (data[:20], r"corrupt jax\.export artifact .*root offset points past the end"),
             (vhlo[: len(vhlo) - 60], r"corrupt StableHLO portable artifact \(VHLO bytecode, "
                                      rf"StableHLO_v{version}\)")]
    for broken, match in cases:
        with pytest.raises(ProgramParseError, match=match) as info:
            stablecost.load_program(broken, name="broken")
        assert "\n" not in str(info.value) and str(info.value).startswith("broken")


def test_unsupported_vhlo_version_names_it(exported):
    vhlo = exported.mlir_module_serialized
    old = vhlo_version(vhlo).encode()   # "1.15.0": a version of the same length
    future = vhlo.replace(b"StableHLO_v" + old, b"StableHLO_v" + b"9.99.99"[:len(old)], 1)
    with pytest.raises(ProgramParseError, match=r"unsupported StableHLO portable artifact "
                       r"\(VHLO bytecode, StableHLO_v9\.9.*this jaxlib reads"):
        stablecost.load_program(future, name="future")


def test_multi_device_export_notes_its_shardings_and_partitions_on_a_mesh():
    """Exported for a 4x2 mesh without devices (an abstract mesh). Global: 2*64*32*16 =
    65,536 dot FLOPs; per device of data=4,model=2: 16x32 @ 32x8, 2*16*32*8 = 8,192."""
    mesh = AbstractMesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)

    def g(x, w):
        return x @ w

    args = (jax.ShapeDtypeStruct((64, 32), jnp.float32,
                                 sharding=NamedSharding(mesh, P("data", None))),
            jax.ShapeDtypeStruct((32, 16), jnp.float32,
                                 sharding=NamedSharding(mesh, P(None, "model"))))
    with jax.sharding.use_abstract_mesh(mesh):
        data = bytes(export.export(jax.jit(g))(*args).serialize())
    p = stablecost.load_program(data)
    assert "on 8 device(s)" in p.notes[0]
    assert p.notes[1].startswith("exported shardings: in {devices=[4,1,2]")
    assert stablecost.analyze(p).flops == 65536
    per_device = stablecost.load_program(data, mesh="data=4,model=2")
    assert stablecost.analyze(per_device).flops == 8192
