"""Every example script runs (writing only to a temporary directory), and what the
export scripts write is a program stablecost can predict."""

import subprocess
import sys
from pathlib import Path

import pytest

import stablecost

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))


def _run(*argv: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_every_example_script_has_a_smoke_test():
    assert SCRIPTS == ["export_distributed.py", "export_programs.py",
                       "transformer_parallel.py", "tuner.py"]


@pytest.mark.slow
@pytest.mark.parametrize("script", ["export_programs.py", "export_distributed.py"])
def test_export_scripts_write_predictable_programs(script, tmp_path):
    _run(str(EXAMPLES / script), "--out", str(tmp_path), cwd=tmp_path)
    written = sorted(tmp_path.glob("*.mlir"))
    assert written
    for path in written:
        assert stablecost.predict(path, "H100-SXM", fidelity="roofline").step_time_s > 0


@pytest.mark.slow
def test_tuner_ranks_a_small_sweep(tmp_path):
    out = _run(str(EXAMPLES / "tuner.py"), "--batches", "8,16", "--seq", "64",
               "--d-model", "256", "--heads", "8", "--ffn", "512", cwd=tmp_path)
    assert "H100" in out and "TPU" in out


def test_transformer_parallel_builds_both_steps():
    sys.path.insert(0, str(EXAMPLES))
    try:
        from transformer_parallel import annotated_step, shard_map_step
    finally:
        sys.path.remove(str(EXAMPLES))
    for build in (annotated_step, shard_map_step):
        step, args = build(batch=8)
        assert callable(step) and args
