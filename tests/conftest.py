import os
from pathlib import Path

# 8 fake CPU devices for shard_map programs; must be set before jax initializes.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "programs"


@pytest.fixture(autouse=True, scope="session")
def _session_cache(tmp_path_factory):
    """Partitions and CLI answers are cached in a directory of this session's own, never
    in the user's cache (child processes inherit it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STABLECOST_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path, monkeypatch):
    """Never read or write the user's real config dir (host-cpu calibration)."""
    monkeypatch.setenv("STABLECOST_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES
