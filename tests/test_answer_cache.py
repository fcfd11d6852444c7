"""The command line's answers cached on disk (serve/cli/answers.py): a repeated question
is answered without importing jax or xgboost, with the same output; anything the answer
depends on changes its key; measured answers and --no-cache are never served from it."""

import json
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

from stablecost.serve.cli import answers

PROBE = """
import contextlib, io, json, sys
from stablecost.serve.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
heavy = sorted(m for m in ("jax", "jaxlib", "xgboost", "torch", "numpy") if m in sys.modules)
print(json.dumps({"code": code, "out": out.getvalue(), "heavy": heavy}))
"""


def _cli(*argv: str, env_cache) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True,
                          text=True, timeout=300, env=env_cache, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def env_cache(tmp_path, monkeypatch):
    import os

    monkeypatch.setenv("STABLECOST_CACHE_DIR", str(tmp_path / "cache"))
    return dict(os.environ)


@pytest.mark.parametrize("argv", [
    ("predict", "mlp_train_step.mlir", "--hardware", "host-cpu,H100-SXM", "--json"),
    ("analyze", "transformer_annotated_8dev.mlir", "--mesh", "data=4,model=2"),
])
def test_a_repeated_question_is_answered_from_the_cache_without_jax(argv, examples_dir,
                                                                    env_cache):
    argv = (argv[0], str(examples_dir / argv[1]), *argv[2:])
    first = _cli(*argv, env_cache=env_cache)
    again = _cli(*argv, env_cache=env_cache)
    assert first["code"] == again["code"] == 0
    assert again["out"] == first["out"]
    assert "jax" in first["heavy"]
    assert again["heavy"] == []
    # the text form renders from the same stored answer
    shown = _cli(*[a for a in argv if a != "--json"], env_cache=env_cache)
    assert shown["heavy"] == [] and Path(argv[1]).name in shown["out"]


def _args(**changes) -> Namespace:
    base = dict(command="predict", mesh=None, entry=None, shape=None, dim=None,
                hardware="H100-SXM", fidelity="auto", topology=None, no_overlap=False,
                measured_on=None, no_cache=False, top=10, json=False)
    return Namespace(**{**base, **changes})


def test_what_the_answer_depends_on_is_in_its_key(tmp_path, monkeypatch):
    monkeypatch.setenv("STABLECOST_CONFIG_DIR", str(tmp_path / "config"))
    key = answers.key(_args(), b"module", "a.mlir")
    assert key == answers.key(_args(top=3, json=True), b"module", "a.mlir")  # display only
    others = [answers.key(_args(), b"module2", "a.mlir"),
              answers.key(_args(), b"module", "b.mlir"),
              answers.key(_args(hardware="B200"), b"module", "a.mlir"),
              answers.key(_args(mesh="data=2"), b"module", "a.mlir"),
              answers.key(_args(no_overlap=True), b"module", "a.mlir"),
              answers.key(_args(measured_on="H200-SXM=1ms"), b"module", "a.mlir"),
              answers.key(_args(command="analyze"), b"module", "a.mlir")]
    assert key not in others and len(set(others)) == len(others)
    # a new calibration in the user's config, a budget in the environment
    (tmp_path / "config" / "adapted").mkdir(parents=True)
    (tmp_path / "config" / "adapted" / "host-cpu-0.json").write_text("{}")
    recalibrated = answers.key(_args(), b"module", "a.mlir")
    assert recalibrated != key
    monkeypatch.setenv("STABLECOST_MAX_OPS", "10")
    assert answers.key(_args(), b"module", "a.mlir") != recalibrated
    # never cached: measured fidelities, --no-cache
    assert answers.key(_args(fidelity="measured"), b"module", "a.mlir") is None
    assert answers.key(_args(fidelity="all+measured"), b"module", "a.mlir") is None
    assert answers.key(_args(no_cache=True), b"module", "a.mlir") is None


def test_a_damaged_or_missing_answer_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.setenv("STABLECOST_CACHE_DIR", str(tmp_path))
    key = answers.key(_args(), b"module", "a.mlir")
    assert answers.load(key) is None
    answers.store(key, '[{"step_time_s": 1.0}]\n')
    assert answers.load(key) == ('[{"step_time_s": 1.0}]\n', [{"step_time_s": 1.0}])
    (tmp_path / answers.KIND / key).write_bytes(b"[{truncated")
    assert answers.load(key) is None
    monkeypatch.setenv("STABLECOST_CACHE_DIR", "off")
    answers.store(key, "[1]")
    assert answers.load(key) is None


def test_the_cache_keeps_its_most_recently_used_entries(tmp_path, monkeypatch):
    import os

    from stablecost import diskcache

    monkeypatch.setenv("STABLECOST_CACHE_DIR", str(tmp_path))
    keys = [f"{i:032x}" for i in range(5)]
    for i, k in enumerate(keys[:3]):
        diskcache.put("things", k, b"x", max_entries=3)
        os.utime(tmp_path / "things" / k, ns=(i * 10**9, i * 10**9))   # 0 oldest
    assert diskcache.get("things", keys[0]) == b"x"                     # now the newest
    for k in keys[3:]:
        diskcache.put("things", k, b"y", max_entries=3)
    assert sorted(p.name for p in (tmp_path / "things").iterdir()) == \
        sorted([keys[0], keys[3], keys[4]])
    with pytest.raises(ValueError, match="hex digests"):
        diskcache.get("things", "../escape")
