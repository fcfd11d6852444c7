"""Tampered model bundles are refused with one-line `ModelError`s (issue 19).

Each test copies the shipped host-cpu bundle into tmp_path, damages it and loads it
with `load_models("host-cpu", root=tmp_path)`. Damage to a file under an intact
manifest must be caught by the manifest before xgboost or torch reads the file; damage
followed by a recomputed manifest (`remanifest`) must be caught by the value checks.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

from stablecost.errors import ModelError
from stablecost.models import learned
from stablecost.models.manifest import MANIFEST_FILE, refresh_manifest, write_manifest
from stablecost.models.manifest import main as manifest_main

SHIPPED = learned.BUNDLE_ROOT / "host-cpu"
FILES = {"kernel_xgb": ["meta.json", "kernel_xgb.ubj", "kernel_xgb_quantiles.ubj",
                        "hardware.toml", "step_interval.json"],
         "step_gnn": ["meta.json", "step_gnn.pt"]}
CASES = [(d, f) for d, names in FILES.items() for f in names]


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    """A private copy of the shipped bundle, with empty load caches."""
    shutil.copytree(SHIPPED, tmp_path / "host-cpu")
    monkeypatch.setattr(learned, "_loaded", {})
    learned._bundled_hardware.cache_clear()
    yield tmp_path
    learned._bundled_hardware.cache_clear()


def load(root: Path) -> Any:
    return learned.load_models("host-cpu", root=root)


def refused(root: Path, match: str) -> str:
    """The one-line message `load` refuses the bundle with."""
    with pytest.raises(ModelError, match=match) as info:
        load(root)
    message = str(info.value)
    assert "\n" not in message and str(root) in message
    return message


def edit_meta(root: Path, model: str, change: Callable[[dict], None]) -> None:
    """Change a meta.json and re-record the manifest (only the value checks can tell)."""
    path = root / "host-cpu" / model / "meta.json"
    meta = json.loads(path.read_text())
    change(meta)
    path.write_text(json.dumps(meta))
    write_manifest(path.parent)


def test_the_shipped_bundle_has_a_manifest_and_loads(root):
    for model, names in FILES.items():
        listed = json.loads((SHIPPED / model / MANIFEST_FILE).read_text())["files"]
        assert sorted(listed) == sorted(names)
    models = load(root)
    assert models.step is not None and models.step_interval and models.spec is not None


# ------------------------------------------------------------------- the manifest's catch
def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))


DAMAGE = {"empty": lambda p: p.write_bytes(b""), "truncated": _truncate, "flipped": _flip,
          "deleted": Path.unlink}
EXPECTED = {"empty": "0 bytes, manifest.json records", "truncated": "bytes, manifest.json",
            "flipped": "SHA-256 differs", "deleted": "missing, but manifest.json lists it"}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("model,name", CASES)
def test_a_damaged_file_is_refused_by_the_manifest(root, model, name, damage):
    DAMAGE[damage](root / "host-cpu" / model / name)
    message = refused(root, EXPECTED[damage])
    assert f"{model}/{name}:" in message


@pytest.mark.parametrize("model", sorted(FILES))
def test_a_missing_or_damaged_manifest_is_refused(root, model):
    directory = root / "host-cpu" / model
    (directory / MANIFEST_FILE).write_text("{not json")
    refused(root, "manifest.json: unreadable manifest")
    (directory / MANIFEST_FILE).unlink()
    message = refused(root, "no manifest.json")
    assert f"python -m stablecost.models.manifest --write {directory}" in message


def test_an_unlisted_file_is_refused(root):
    directory = root / "host-cpu" / "kernel_xgb"
    listed = json.loads((directory / MANIFEST_FILE).read_text())
    del listed["files"]["step_interval.json"]
    (directory / MANIFEST_FILE).write_text(json.dumps(listed))
    refused(root, "step_interval.json: not listed in manifest.json")


def test_a_manifest_naming_a_path_outside_its_directory_is_refused(root):
    directory = root / "host-cpu" / "kernel_xgb"
    listed = json.loads((directory / MANIFEST_FILE).read_text())
    listed["files"]["../step_gnn/meta.json"] = listed["files"]["meta.json"]
    (directory / MANIFEST_FILE).write_text(json.dumps(listed))
    refused(root, "lists '../step_gnn/meta.json', which is not a model file name")


def test_the_manifest_command_rewrites_and_checks(root, capsys):
    _flip(root / "host-cpu" / "step_gnn" / "step_gnn.pt")
    assert manifest_main(["--check", str(root / "host-cpu")]) == 2
    assert "step_gnn.pt: SHA-256 differs" in capsys.readouterr().out
    assert manifest_main(["--write", str(root / "host-cpu")]) == 0
    assert manifest_main(["--check", str(root / "host-cpu")]) == 0
    assert manifest_main(["--check", str(root / "nothing")]) == 2


def test_refreshing_one_file_keeps_the_others_checked(root):
    """What train/intervals.py does after writing step_interval.json."""
    directory = root / "host-cpu" / "kernel_xgb"
    table = json.loads((directory / "step_interval.json").read_text())
    table["coverage"] = 0.5
    (directory / "step_interval.json").write_text(json.dumps(table))
    refresh_manifest(directory, ["step_interval.json"])
    assert load(root) is not None
    learned._loaded.clear()
    _flip(directory / "kernel_xgb.ubj")
    (directory / "step_interval.json").write_text(json.dumps(table | {"coverage": 0.8}))
    with pytest.raises(ModelError, match="kernel_xgb.ubj: SHA-256 differs"):
        refresh_manifest(directory, ["step_interval.json"])   # no blessing of damage


# --------------------------------------------------------------- re-manifested native files
def test_an_empty_or_garbled_xgboost_model_never_reaches_xgboost(root):
    """An empty buffer aborts the process inside xgboost (exit 134)."""
    path = root / "host-cpu" / "kernel_xgb" / "kernel_xgb.ubj"
    _replace(path, b"")
    refused(root, r"kernel_xgb\.ubj: not an XGBoost model \(0 bytes")
    _replace(path, b'{"learner": 1')
    refused(root, r"kernel_xgb\.ubj: unreadable XGBoost model \(\w")


def _replace(path: Path, data: bytes) -> None:
    """Write `data` to `path` and re-record its directory's manifest."""
    path.write_bytes(data)
    write_manifest(path.parent)


@pytest.mark.parametrize("name", ["kernel_xgb.ubj", "kernel_xgb_quantiles.ubj"])
def test_an_xgboost_model_answering_nan_is_refused(root, name):
    import xgboost as xgb

    path = root / "host-cpu" / "kernel_xgb" / name
    booster = xgb.Booster()
    booster.load_model(bytearray(path.read_bytes()))
    model = json.loads(booster.save_raw("json"))
    model["learner"]["learner_model_param"]["base_score"] = "[NaN]"
    booster = xgb.Booster()
    booster.load_model(bytearray(json.dumps(model).encode()))
    _replace(path, bytes(booster.save_raw("ubj")))
    refused(root, rf"{name}: answers \[nan.* on a probe")


def _state(root: Path) -> tuple[Path, dict[str, Any]]:
    import torch

    path = root / "host-cpu" / "step_gnn" / "step_gnn.pt"
    return path, torch.load(path, weights_only=True)


def _save_state(path: Path, state: Any) -> None:
    import torch

    torch.save(state, path)
    write_manifest(path.parent)


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_non_finite_gnn_weights_are_refused(root, value):
    path, state = _state(root)
    state["member1.head.4.weight"][0, 3] = value
    _save_state(path, state)
    refused(root, r"step_gnn\.pt: member1\.head\.4\.weight holds NaN or infinite values")


def test_gnn_weights_of_another_shape_or_kind_are_refused(root):
    import torch

    path, state = _state(root)
    good = dict(state)
    state["member0.encode.0.weight"] = torch.zeros(3, 3)
    _save_state(path, state)
    refused(root, r"weights do not fit .*member0\.encode\.0\.weight is \(3, 3\)")
    _save_state(path, {k: v for k, v in good.items() if not k.startswith("member2.")})
    refused(root, "weights do not fit .*missing member2")
    _save_state(path, good | {"member0.node_std": torch.zeros_like(good["member0.node_std"])})
    refused(root, "member0.node_std must be positive")
    _save_state(path, list(good.values()))
    refused(root, "not a state_dict of tensors")
    _replace(path, b"PK\x03\x04 not a zip")
    refused(root, r"step_gnn\.pt: unreadable weights")


# ------------------------------------------------------------------------ meta.json values
def _set(*keys: str, value: Any) -> Callable[[dict], None]:
    def change(meta: dict) -> None:
        for key in keys[:-1]:
            meta = meta[key]
        meta[keys[-1]] = value
    return change


KERNEL_META = [
    (("params", "target"), "log_weird", r"params\.target = \"log_weird\"; allowed: log_time"),
    (("params", "n_estimators"), "400", "params.n_estimators = \"400\"; must be an integer"),
    (("params", "max_depth"), math.nan, "params.max_depth = nan; must be an integer"),
    (("params", "learning_rate"), math.nan, "params.learning_rate = nan; must be finite"),
    (("params", "subsample"), 0, r"params\.subsample = 0; allowed: \(0, 1\]"),
    (("params", "quantiles"), [0.9, 0.1], "params.quantiles .* two increasing numbers"),
    (("params", "booster"), "dart", "params.booster is not a hyperparameter"),
    (("params",), [1, 2], "params must be an object"),
    (("floor_s",), math.nan, "floor_s = nan; must be finite"),
    (("floor_s",), -1e-6, r"floor_s = -1e-06; allowed: \[0, 1\]"),
    (("floor_s",), "12us", "floor_s = \"12us\"; must be a number"),
    (("best_iteration",), 10**6, r"best_iteration = 1000000; allowed: \[1, 400\]"),
    (("best_iteration",), None, "best_iteration = null; must not be null"),
    (("data_digest",), 37, "data_digest = 37; must be a string"),
    (("fingerprint",), "AMD", "fingerprint must be an object"),
    (("features",), ["hw_matmul_peak"], "feature schema"),
]


@pytest.mark.parametrize("keys,value,match", KERNEL_META,
                         ids=[".".join(k) + f"={v!r}" for k, v, _ in KERNEL_META])
def test_bad_kernel_metadata_is_refused(root, keys, value, match):
    edit_meta(root, "kernel_xgb", _set(*keys, value=value))
    assert "kernel_xgb/meta.json: " in refused(root, match)


GNN_META = [
    (("params", "hidden"), 1e7, "params.hidden = 10000000.0; must be an integer"),
    (("params", "hidden"), 10_000_000, r"params\.hidden = 10000000; allowed: \[1, 4096\]"),
    (("params", "hidden"), 64, "weights do not fit the network described by meta.json"),
    (("params", "layers"), 100, r"params\.layers = 100; allowed: \[1, 8\]"),
    (("params", "members"), 0, r"params\.members = 0; allowed: \[1, 32\]"),
    (("params", "target"), "weird", "params.target = \"weird\"; allowed: direct, residual"),
    (("params", "lr"), math.inf, "params.lr = inf; must be finite"),
    (("params", "warm_start"), 1, "params.warm_start = 1; must be true or false"),
    (("target",), "residual", "target 'residual' differs from params.target 'direct'"),
    (("min_kernels",), -3, r"min_kernels = -3; allowed: \[1, 1e\+09\]"),
    (("best_epochs",), "78", "best_epochs must be a list"),
    (("absent_node_features",), ["op_nope"], "absent_node_features must list names"),
    (("normalization", "y_std"), 0, r"normalization\.y_std = 0; allowed: \(0, inf\]"),
    (("normalization", "node_mean"), [0.0], "normalization.node_mean must be a list of 136"),
    (("normalization", "graph_std"), [1.0, math.nan, 1.0, 1.0],
     r"normalization\.graph_std\[1\] = nan; must be finite"),
    (("floor_s",), math.inf, "floor_s = inf; must be finite"),
    (("kernel_model",), ["x"], "kernel_model must be an object"),
    (("node_features",), ["x"], "step GNN schema"),
]


@pytest.mark.parametrize("keys,value,match", GNN_META,
                         ids=[".".join(k) + f"={v!r}"[:40] for k, v, _ in GNN_META])
def test_bad_gnn_metadata_is_refused(root, keys, value, match):
    edit_meta(root, "step_gnn", _set(*keys, value=value))
    assert "/step_gnn/" in refused(root, match)


@pytest.mark.parametrize("model", sorted(FILES))
def test_metadata_that_is_not_an_object_is_refused(root, model):
    path = root / "host-cpu" / model / "meta.json"
    _replace(path, b'{"model": "kernel_xgb",')
    refused(root, "meta.json: unreadable metadata")
    _replace(path, b"[1, 2]")
    refused(root, "meta.json: metadata must be a JSON object")


# ------------------------------------------------------------------- the bundle's other files
@pytest.mark.parametrize("text,match", [
    (b"name = [", r"hardware\.toml: unusable chip spec \(.*TOML|hardware\.toml: unusable"),
    (b"\xff\xfe", r"hardware\.toml: unusable chip spec"),
    (b'name = "host-cpu"\nvendor = "x"\nkind = "cpu"\ncompute = 3\nmemory = 1\n'
     b"kernel = 1\ninterconnect = 1\n", r"hardware\.toml: "),
])
def test_a_malformed_chip_spec_is_refused(root, text, match):
    _replace(root / "host-cpu" / "kernel_xgb" / "hardware.toml", text)
    refused(root, match)


@pytest.mark.parametrize("text", [b"{", b"[]", b'{"data_digest": "1435e9b99f998d74"}'])
def test_a_malformed_step_interval_table_is_refused(root, text):
    _replace(root / "host-cpu" / "kernel_xgb" / "step_interval.json", text)
    refused(root, r"step_interval\.json: damaged step interval table")


# ------------------------------------------------------------------------------ the CLI
@pytest.mark.parametrize("tamper", ["empty_ubj", "nan_weights", "unknown_target"])
def test_the_cli_reports_a_tampered_bundle_in_one_line(root, monkeypatch, capsys,
                                                       examples_dir, tamper):
    from stablecost.serve.cli.main import main

    if tamper == "empty_ubj":
        _replace(root / "host-cpu" / "kernel_xgb" / "kernel_xgb.ubj", b"")
    elif tamper == "nan_weights":
        path, state = _state(root)
        state["member0.y_mean"].fill_(math.nan)
        _save_state(path, state)
    else:
        edit_meta(root, "kernel_xgb", _set("params", "target", value="log_weird"))
    monkeypatch.setattr(learned, "BUNDLE_ROOT", root)
    code = main(["predict", str(examples_dir / "mlp_train_step.mlir"),
                 "--hardware", "host-cpu"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("stablecost: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and str(root / "host-cpu") in err
