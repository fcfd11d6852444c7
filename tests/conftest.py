import os
from pathlib import Path

# 8 fake CPU devices for shard_map programs; must be set before jax initializes.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "programs"


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path, monkeypatch):
    """Never read or write the user's real config dir (host-cpu calibration)."""
    monkeypatch.setenv("STABLECOST_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES
