"""What a model bundle's values must be, checked on load after its manifest.

The manifest (`manifest.py`) says the files are the ones saved; these checks say the
values in them are usable, so a bundle that was edited and re-manifested, or saved by a
broken run, is refused with a one-line `ModelError` naming the file and the value
instead of failing deep inside xgboost or torch, allocating gigabytes, or pricing with
NaN. Every hyperparameter has a type and a range (the network sizes are capped so that
building the network cannot allocate more than a bundle plausibly holds), every number
the loaders use must be finite, every feature list must match this stablecost's.

    meta, files = read_bundle(directory, "kernel_xgb", ["kernel_xgb.ubj"])
    check_params(directory / "meta.json", meta["params"], KERNEL_PARAMS)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import ModelError
from ..featurize.program import FEATURIZER_VERSION
from .features import FEATURE_SCHEMA_VERSION, FEATURES
from .manifest import MANIFEST_FILE, verified_files

_SEED_MAX = 2**63 - 1
MAX_FLOOR_S = 1.0     # a per-call floor is microseconds; a second is a damaged number


@dataclass(frozen=True)
class Rule:
    """One value's type (`int`, `float`, `bool`, `str`, `list`: an increasing pair, or
    `tuple`: a list of names from `choices`) and its allowed range or choices."""
    kind: type
    low: float = -math.inf
    high: float = math.inf
    open_low: bool = False          # low itself excluded
    choices: tuple[str, ...] = ()
    nullable: bool = False

    def problem(self, value: Any) -> str:
        """"" when `value` obeys the rule, else what is wrong with it."""
        if value is None:
            return "" if self.nullable else "must not be null"
        if self.kind is bool:
            return "" if isinstance(value, bool) else "must be true or false"
        if self.kind is str:
            if not isinstance(value, str):
                return "must be a string"
            if self.choices and value not in self.choices:
                return f"allowed: {', '.join(self.choices)}"
            return ""
        if self.kind is tuple:   # names, each one of `choices`: features left out
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                return "must be a list of names"
            unknown = [v for v in value if v not in self.choices]
            return f"unknown name(s) {', '.join(unknown)}" if unknown else ""
        if self.kind is list:   # an increasing pair inside (low, high): quantiles
            inside = Rule(float, self.low, self.high, open_low=True)
            if not (isinstance(value, list) and len(value) == 2
                    and not any(inside.problem(v) for v in value)
                    and value[0] < value[1] < self.high):
                return f"allowed: two increasing numbers in ({self.low:g}, {self.high:g})"
            return ""
        allowed = f"{'(' if self.open_low else '['}{self.low:g}, {self.high:g}]"
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                (self.kind is int and not isinstance(value, int)):
            return f"must be {'an integer' if self.kind is int else 'a number'} in {allowed}"
        if not math.isfinite(value):
            return f"must be finite, in {allowed}"
        below = value <= self.low if self.open_low else value < self.low
        return f"allowed: {allowed}" if below or value > self.high else ""


def _int(low: float, high: float, nullable: bool = False) -> Rule:
    return Rule(int, low, high, nullable=nullable)


def _fraction(open_low: bool = True) -> Rule:
    return Rule(float, 0.0, 1.0, open_low=open_low)


# KernelCostModel's hyperparameters (models/kernel_model.py)
KERNEL_PARAMS: Mapping[str, Rule] = {
    "target": Rule(str, choices=("log_time", "log_ratio")),
    "n_estimators": _int(1, 100_000), "max_depth": _int(0, 64),
    "learning_rate": _fraction(), "subsample": _fraction(), "colsample_bytree": _fraction(),
    "min_child_weight": Rule(float, 0, 1e6), "reg_lambda": Rule(float, 0, 1e6),
    "early_stopping_rounds": _int(0, 100_000), "early_stopping_delta": Rule(float, 0, 1e3),
    "max_bin": _int(2, 65_536), "sketch_rows": _int(0, 1e9), "quantile_rows": _int(0, 1e9),
    "eval_rows": _int(0, 1e9), "n_jobs": _int(-1, 4096), "seed": _int(0, _SEED_MAX),
    "quantiles": Rule(list, 0.0, 1.0),
    "ignored_features": Rule(tuple, choices=tuple(FEATURES)),
}
# StepGNN's hyperparameters (models/gnn/estimator.py). hidden, layers and members size
# the networks built before the weights are read: the shipped bundle has 32, 2 and 3.
GNN_PARAMS: Mapping[str, Rule] = {
    "target": Rule(str, choices=("direct", "residual")),
    "hidden": _int(1, 4096), "layers": _int(1, 8), "members": _int(1, 32),
    "epochs": _int(1, 1_000_000), "lr": Rule(float, 0, 10, open_low=True),
    "weight_decay": Rule(float, 0, 10), "batch_size": _int(1, 1_000_000),
    "dropout": Rule(float, 0, 0.99), "seed": _int(0, _SEED_MAX), "warm_start": Rule(bool),
    "threads": _int(1, 4096, nullable=True),
}
# meta.json fields both loaders use, besides the schema (checked by read_bundle)
_COMMON: Mapping[str, Rule] = {
    "floor_s": Rule(float, 0, MAX_FLOOR_S), "data_digest": Rule(str), "hardware": Rule(str),
    "dataset": Rule(str), "run_id": Rule(str),
}


def check_value(path: Path, name: str, value: Any, rule: Rule) -> None:
    why = rule.problem(value)
    if why:
        raise ModelError(f"{path}: {name} = {_shown(value)}; {why}")


def check_params(path: Path, params: Any, rules: Mapping[str, Rule]) -> None:
    """Every hyperparameter known and in range (a missing one takes its default)."""
    if not isinstance(params, dict):
        raise ModelError(f"{path}: params must be an object of hyperparameters")
    for name, value in params.items():
        if name not in rules:
            raise ModelError(f"{path}: params.{name} is not a hyperparameter of this model; "
                             f"allowed: {', '.join(rules)}")
        check_value(path, f"params.{name}", value, rules[name])


def check_numbers(path: Path, name: str, values: Any, length: int,
                  positive: bool = False) -> None:
    """`values`: a list of `length` finite numbers (positive ones with `positive`)."""
    if not isinstance(values, list) or len(values) != length:
        raise ModelError(f"{path}: {name} must be a list of {length} numbers")
    rule = Rule(float, 0.0, open_low=True) if positive else Rule(float)
    for i, value in enumerate(values):
        check_value(path, f"{name}[{i}]", value, rule)


def read_bundle(directory: str | Path, model: str, required: Sequence[str],
                optional: Sequence[str] = ()) -> tuple[dict[str, Any], dict[str, bytes]]:
    """(meta.json's content, the verified bytes of every file named): the manifest
    checked, the metadata parsed and its schema and common fields checked."""
    directory = Path(directory)
    path = directory / "meta.json"
    if not path.exists() and not (directory / MANIFEST_FILE).exists():
        raise ModelError(f"{directory}: no model bundle here (no meta.json)")
    files = verified_files(directory, ["meta.json", *required], optional)
    try:
        meta = json.loads(files["meta.json"])
    except ValueError as exc:
        raise ModelError(f"{path}: unreadable metadata ({exc})") from None
    if not isinstance(meta, dict):
        raise ModelError(f"{path}: metadata must be a JSON object")
    if meta.get("model") != model:
        raise ModelError(f"{path}: holds a {meta.get('model')!r} model, expected {model!r}")
    if meta.get("featurizer_version") != FEATURIZER_VERSION:
        raise ModelError(f"{path}: trained with featurizer version "
                         f"{meta.get('featurizer_version')!r}, this stablecost has "
                         f"{FEATURIZER_VERSION!r}; retrain it")
    if meta.get("feature_schema_version") != FEATURE_SCHEMA_VERSION or \
            meta.get("features") != list(FEATURES):
        raise ModelError(f"{path}: feature schema {meta.get('feature_schema_version')!r} does "
                         f"not match this stablecost's {FEATURE_SCHEMA_VERSION!r}; retrain it")
    for name, rule in _COMMON.items():
        if name in meta:
            check_value(path, name, meta[name], rule)
    for name in ("fingerprint", "hardware_spec", "metrics", "kernel_model"):
        if meta.get(name) is not None and not isinstance(meta[name], dict):
            raise ModelError(f"{path}: {name} must be an object")
    return meta, files


def check_gnn_meta(path: Path, meta: Mapping[str, Any], node: int, graph: int) -> None:
    """The step GNN's fields beyond the schema: `node` and `graph` features per input."""
    params = meta.get("params")
    check_params(path, params, GNN_PARAMS)
    assert isinstance(params, dict)
    target = params.get("target", "residual")
    if meta.get("target", target) != target:
        raise ModelError(f"{path}: target {meta.get('target')!r} differs from params.target "
                         f"{target!r}")
    check_value(path, "min_kernels", meta.get("min_kernels"), _int(1, 1e9, nullable=True))
    check_value(path, "best_epoch", meta.get("best_epoch", -1), _int(-1, 1e9))
    epochs = meta.get("best_epochs", [])
    if not isinstance(epochs, list):
        raise ModelError(f"{path}: best_epochs must be a list of epochs")
    for i, epoch in enumerate(epochs):
        check_value(path, f"best_epochs[{i}]", epoch, _int(-1, 1e9))
    absent = meta.get("absent_node_features", [])
    if not isinstance(absent, list) or not all(isinstance(n, str) and n in FEATURES
                                               for n in absent):
        raise ModelError(f"{path}: absent_node_features must list names of kernel features")
    digest = (meta.get("kernel_model") or {}).get("data_digest")
    check_value(path, "kernel_model.data_digest", digest, Rule(str, nullable=True))
    norm = meta.get("normalization")
    if norm is None:
        return
    if not isinstance(norm, dict):
        raise ModelError(f"{path}: normalization must be an object")
    for name, length in (("node_mean", node), ("node_std", node), ("graph_mean", graph),
                         ("graph_std", graph)):
        check_numbers(path, f"normalization.{name}", norm.get(name), length,
                      positive=name.endswith("std"))
    check_value(path, "normalization.y_mean", norm.get("y_mean"), Rule(float))
    check_value(path, "normalization.y_std", norm.get("y_std"),
                Rule(float, 0.0, open_low=True))


def check_state(path: Path, state: Any, expected: Mapping[str, tuple[int, ...]]) -> None:
    """`state` (a loaded state_dict) has exactly the `expected` tensor names and shapes,
    floating point and finite, with positive standard deviations."""
    import torch

    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor)
                                              for v in state.values()):
        raise ModelError(f"{path}: not a state_dict of tensors")
    missing = sorted(set(expected) - set(state))
    extra = sorted(set(state) - set(expected))
    if missing or extra:
        what = (f"missing {', '.join(missing[:3])}" if missing else
                f"unexpected {', '.join(map(str, extra[:3]))}")
        raise ModelError(f"{path}: weights do not fit the network described by meta.json "
                         f"({what})")
    for name, shape in expected.items():
        tensor = state[name]
        if tuple(tensor.shape) != tuple(shape):
            raise ModelError(f"{path}: weights do not fit the network described by meta.json "
                             f"({name} is {tuple(tensor.shape)}, expected {tuple(shape)})")
        if not tensor.is_floating_point():
            raise ModelError(f"{path}: {name} holds {tensor.dtype}, not floating point")
        if not bool(torch.isfinite(tensor).all()):
            raise ModelError(f"{path}: {name} holds NaN or infinite values")
        if name.endswith("_std") and not bool((tensor > 0).all()):
            raise ModelError(f"{path}: {name} must be positive")


def _shown(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
