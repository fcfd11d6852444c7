"""The per-kernel XGBoost cost model.

It predicts the time of one fused kernel from `features.FEATURES`. Two targets are
supported and compared at training time:

- ``log_time``: log2 of the kernel's time in seconds;
- ``log_ratio``: log2 of measured over roofline time (the model learns how far the chip
  falls short of its roofline for this kind of kernel).

Besides the point model (squared error on the log target) a quantile model gives the
10th and 90th percentiles, i.e. an 80 % prediction interval for every kernel.

Saved as XGBoost's native UBJSON files plus `meta.json` (featurizer and feature-schema
versions, feature names, target, training-data digest, the per-call floor) and the
directory's `manifest.json`; `load` refuses a damaged bundle (`manifest.py`) and one
whose metadata does not match this stablecost or holds unusable values
(`bundle_checks.py`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..errors import ModelError, NotFittedError
from ..featurize.program import FEATURIZER_VERSION
from .bundle_checks import KERNEL_PARAMS, Rule, check_params, check_value, read_bundle
from .features import FEATURE_SCHEMA_VERSION, FEATURES
from .manifest import write_manifest

TARGETS = KERNEL_PARAMS["target"].choices   # ("log_time", "log_ratio")
_TINY_S = 1e-9


@dataclass(frozen=True)
class Interval:
    low_s: np.ndarray
    high_s: np.ndarray


class KernelCostModel:
    """XGBoost regressor of per-kernel time, scikit-learn style.

    Hyperparameters are keyword-only and stored verbatim; learned state ends in `_`.
    On big training sets two costs are bounded by subsamples: the feature bins (`max_bin`
    quantiles per feature) are sketched from at most `sketch_rows` seeded rows and every
    row is then binned against them (on 1M rows of unique values the sketch alone took
    17 s of a 2-core budget of 120 s, binning against ready cuts about 7 s), and the
    quantile model sees at most `quantile_rows` rows, and early stopping reads the
    validation RMSE of at most `eval_rows` seeded validation rows (scoring the whole of a
    214k-row validation set added about a quarter to every round).

    `ignored_features` names features the trees may not split on: they are held constant
    while fitting, so the fitted model answers the same whatever their value (the GPU
    bundle ignores the chips' absolute peak rates, see `train/gpu_kernels.py`).

    `max_bin` is 64, not XGBoost's 256: a round on 1M rows x 134 features costs 215 ms
    instead of 386 ms on 2 cores (the histograms fit in cache), and on the shipped CPU
    data the coarser bins were no worse (validation MAPE over seeds 0-2: 42.3 % at 64,
    43.2 % at 256).
    """

    # the GPU bundle's efficiency prior (`models.power_prior`), set by
    # `train.gpu_corpus.fit`; the roofline the log ratio is taken against is divided by it
    power_prior_: Any = None

    def __init__(self, *, target: str = "log_time", n_estimators: int = 400,
                 max_depth: int = 6, learning_rate: float = 0.1, subsample: float = 0.8,
                 colsample_bytree: float = 0.8, min_child_weight: float = 2.0,
                 reg_lambda: float = 1.0, quantiles: tuple[float, float] = (0.1, 0.9),
                 early_stopping_rounds: int = 50, early_stopping_delta: float = 1e-3,
                 max_bin: int = 64, sketch_rows: int = 200_000,
                 quantile_rows: int = 50_000, eval_rows: int = 50_000,
                 n_jobs: int = 2, seed: int = 0,
                 ignored_features: tuple[str, ...] = ()) -> None:
        self.target = target
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.min_child_weight = min_child_weight
        self.reg_lambda = reg_lambda
        self.quantiles = quantiles
        self.early_stopping_rounds = early_stopping_rounds
        self.early_stopping_delta = early_stopping_delta
        self.max_bin = max_bin
        self.sketch_rows = sketch_rows
        self.quantile_rows = quantile_rows
        self.eval_rows = eval_rows
        self.n_jobs = n_jobs
        self.seed = seed
        self.ignored_features = ignored_features

    def get_params(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if not k.endswith("_")}

    # -- targets ---------------------------------------------------------------------
    def _encode(self, time_s: np.ndarray, roofline_s: np.ndarray) -> np.ndarray:
        time_s = np.maximum(np.asarray(time_s, dtype=np.float64), _TINY_S)
        if self.target == "log_ratio":
            return np.log2(time_s / np.maximum(roofline_s, _TINY_S))
        return np.log2(time_s)

    def _decode(self, value: np.ndarray, roofline_s: np.ndarray) -> np.ndarray:
        if self.target == "log_ratio":
            return np.exp2(value) * np.maximum(roofline_s, _TINY_S)
        return np.exp2(value)

    # -- fitting ---------------------------------------------------------------------
    def _booster_params(self, objective: str) -> dict[str, Any]:
        return {
            "objective": objective, "max_depth": self.max_depth, "eta": self.learning_rate,
            "subsample": self.subsample, "colsample_bytree": self.colsample_bytree,
            "min_child_weight": self.min_child_weight, "lambda": self.reg_lambda,
            "tree_method": "hist", "max_bin": self.max_bin, "nthread": self.n_jobs,
            "seed": self.seed,
        }

    def fit(self, X: np.ndarray, time_s: np.ndarray, roofline_s: np.ndarray, *,
            weight: np.ndarray | None = None,
            eval_set: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
            interval: bool = True) -> "KernelCostModel":
        """Fit the point model (early stopping on `eval_set`: no gain of more than
        `early_stopping_delta` in validation RMSE of the log2 target over
        `early_stopping_rounds` rounds) and, unless `interval=False` (a model only
        being compared, never used), the quantile model."""
        import xgboost as xgb

        if self.target not in TARGETS:
            raise ModelError(f"target {self.target!r}; allowed: {', '.join(TARGETS)}")
        X = np.asarray(X, dtype=np.float32)
        if X.ndim != 2 or X.shape[1] != len(FEATURES):
            raise ModelError(f"features have shape {X.shape}; expected (rows, {len(FEATURES)})")
        unknown = sorted(set(self.ignored_features) - set(FEATURES))
        if unknown:
            raise ModelError(f"ignored_features {', '.join(unknown)}: not features; allowed: "
                             "the names in models.features.FEATURES")
        X = self._without_ignored(X)
        y = self._encode(time_s, roofline_s)
        # The feature bins are sketched once, for every booster below
        train = self._binned(X, y, weight)
        evals = []   # only what early stopping reads: a training metric costs each round
        if eval_set is not None:
            Xv, tv, rv = eval_set
            if len(Xv) > self.eval_rows > 0:
                pick = self._subsample(len(Xv), self.eval_rows)
                Xv, tv, rv = (np.asarray(a)[pick] for a in (Xv, tv, rv))
            Xv = self._without_ignored(np.asarray(Xv, np.float32))
            evals.append((xgb.QuantileDMatrix(Xv, ref=train,
                                              label=self._encode(tv, rv), nthread=self.n_jobs,
                                              max_bin=self.max_bin,
                                              feature_names=list(FEATURES)), "val"))
        stop = self.early_stopping_rounds if eval_set is not None else None
        callbacks = [xgb.callback.EarlyStopping(
            rounds=stop, min_delta=self.early_stopping_delta, data_name="val")] if stop else None
        self.booster_ = xgb.train(self._booster_params("reg:squarederror"), train,
                                  num_boost_round=self.n_estimators, evals=evals,
                                  callbacks=callbacks, verbose_eval=False)
        rounds = (self.booster_.best_iteration + 1) if stop else self.n_estimators
        self.best_iteration_ = rounds
        if not interval:
            self.quantile_booster_ = None
            return self
        # The interval needs far fewer rows than the point estimate: past
        # `quantile_rows` the quantile model sees a seeded subsample (same bins).
        quantile_set = train
        if len(X) > self.quantile_rows > 0:
            pick = self._subsample(len(X), self.quantile_rows)
            quantile_set = xgb.QuantileDMatrix(
                X[pick], ref=train, label=y[pick],
                weight=None if weight is None else np.asarray(weight)[pick],
                nthread=self.n_jobs, max_bin=self.max_bin, feature_names=list(FEATURES))
        params = self._booster_params("reg:quantileerror")
        params["quantile_alpha"] = list(self.quantiles)
        self.quantile_booster_ = xgb.train(params, quantile_set, num_boost_round=rounds,
                                           verbose_eval=False)
        return self

    def _without_ignored(self, X: np.ndarray) -> np.ndarray:
        """`X` with the ignored features' columns set to 0 (a copy when there are any)."""
        if not self.ignored_features:
            return X
        X = X.copy()
        X[:, [FEATURES.index(name) for name in self.ignored_features]] = 0.0
        return X

    def _binned(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray | None):
        """The training matrix; past `sketch_rows` rows its bins come from a seeded
        subsample of that size."""
        import xgboost as xgb

        ref = None
        if len(X) > self.sketch_rows > 0:
            pick = self._subsample(len(X), self.sketch_rows)
            ref = xgb.QuantileDMatrix(X[pick], max_bin=self.max_bin, nthread=self.n_jobs,
                                      feature_names=list(FEATURES))
        return xgb.QuantileDMatrix(X, ref=ref, label=y, weight=weight, max_bin=self.max_bin,
                                   nthread=self.n_jobs, feature_names=list(FEATURES))

    def _subsample(self, rows: int, size: int) -> np.ndarray:
        """`size` of `rows` row indices, seeded, in order."""
        return np.sort(np.random.default_rng(self.seed).choice(rows, size, replace=False))

    def _check_fitted(self) -> None:
        if not hasattr(self, "booster_"):
            raise NotFittedError("this KernelCostModel is not fitted yet: call fit() or load()")

    # -- predicting ------------------------------------------------------------------
    def _dmatrix(self, X: np.ndarray):
        import xgboost as xgb

        return xgb.DMatrix(np.asarray(X, dtype=np.float32), feature_names=list(FEATURES))

    def predict(self, X: np.ndarray, roofline_s: np.ndarray) -> np.ndarray:
        """Predicted seconds per kernel."""
        self._check_fitted()
        if len(X) == 0:
            return np.zeros(0)
        raw = self.booster_.inplace_predict(np.asarray(X, dtype=np.float32),
                                            iteration_range=(0, self.best_iteration_))
        return self._decode(raw, roofline_s)

    def predict_interval(self, X: np.ndarray, roofline_s: np.ndarray) -> Interval:
        """The quantile model's interval (default 10th-90th percentile), seconds."""
        self._check_fitted()
        if self.quantile_booster_ is None:
            raise NotFittedError("this KernelCostModel was fitted with interval=False")
        if len(X) == 0:
            return Interval(np.zeros(0), np.zeros(0))
        raw = self.quantile_booster_.inplace_predict(np.asarray(X, dtype=np.float32))
        raw = np.sort(np.atleast_2d(raw).reshape(len(X), -1), axis=1)
        return Interval(self._decode(raw[:, 0], roofline_s), self._decode(raw[:, -1], roofline_s))

    def feature_importance(self) -> dict[str, float]:
        self._check_fitted()
        # one number per feature: xgboost gives lists only for multi-output gblinear
        # models, and this is a single-output tree booster
        return cast(dict[str, float], self.booster_.get_score(importance_type="gain"))

    # -- persistence -----------------------------------------------------------------
    def save(self, directory: str | Path, **metadata: Any) -> Path:
        """Write `kernel_xgb.ubj`, `kernel_xgb_quantiles.ubj`, `meta.json` and, last, the
        manifest of the directory (`manifest.py`)."""
        from ..atomicio import atomic_write_bytes

        self._check_fitted()
        if self.quantile_booster_ is None:
            raise NotFittedError("this KernelCostModel was fitted with interval=False: a "
                                 "bundle needs the quantile model too")
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for name, booster in (("kernel_xgb.ubj", self.booster_),
                              ("kernel_xgb_quantiles.ubj", self.quantile_booster_)):
            atomic_write_bytes(directory / name, bytes(booster.save_raw("ubj")))
        meta = {"model": "kernel_xgb", "featurizer_version": FEATURIZER_VERSION,
                "feature_schema_version": FEATURE_SCHEMA_VERSION, "features": list(FEATURES),
                "params": self.get_params() | {"quantiles": list(self.quantiles),
                                               "ignored_features": list(self.ignored_features)},
                "best_iteration": self.best_iteration_, **metadata}
        atomic_write_bytes(directory / "meta.json", json.dumps(meta, indent=1).encode() + b"\n")
        write_manifest(directory)
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> tuple["KernelCostModel", dict[str, Any]]:
        """A fitted model and its metadata. The manifest is checked before any file
        reaches xgboost, then every value (`bundle_checks`) and the boosters' answers on
        a probe; a damaged or mismatched bundle is a one-line `ModelError`."""
        directory = Path(directory)
        meta, files = read_bundle(directory, "kernel_xgb", MODEL_FILES, OPTIONAL_FILES)
        path = directory / "meta.json"
        params = meta.get("params")
        check_params(path, params, KERNEL_PARAMS)
        assert isinstance(params, dict)
        params = dict(params)
        params["quantiles"] = tuple(params.get("quantiles", (0.1, 0.9)))
        params["ignored_features"] = tuple(params.get("ignored_features", ()))
        check_value(path, "best_iteration", meta.get("best_iteration"),
                    Rule(int, 1, params.get("n_estimators", 100_000)))
        model = cls(**params)
        model.booster_ = _booster(directory / "kernel_xgb.ubj", files["kernel_xgb.ubj"])
        quantile_booster = _booster(directory / "kernel_xgb_quantiles.ubj",
                                    files["kernel_xgb_quantiles.ubj"])
        model.quantile_booster_ = quantile_booster
        model.best_iteration_ = int(meta["best_iteration"])
        rounds = model.booster_.num_boosted_rounds()
        if model.best_iteration_ > rounds:
            raise ModelError(f"{path}: best_iteration = {model.best_iteration_}, but "
                             f"kernel_xgb.ubj holds {rounds} rounds")
        _probe(model, quantile_booster, directory)
        return model, meta


# the files `save` writes and `load` reads; the optional ones are written beside them
# (the bundle's training spec, train/intervals.py's step interval table)
MODEL_FILES = ("kernel_xgb.ubj", "kernel_xgb_quantiles.ubj")
OPTIONAL_FILES = ("hardware.toml", "step_interval.json")


def _booster(path: Path, data: bytes) -> Any:
    """An XGBoost booster from verified bytes; an unreadable model is a `ModelError`."""
    import xgboost as xgb

    # XGBoost aborts the process on an empty buffer; a UBJSON or JSON model starts
    # with an object
    if not data.startswith(b"{"):
        raise ModelError(f"{path}: not an XGBoost model ({len(data)} bytes, no UBJSON "
                         "object)")
    booster = xgb.Booster()
    try:
        booster.load_model(bytearray(data))
    except Exception as exc:  # noqa: BLE001 - XGBoostError, and whatever a bad file raises
        # xgboost's first line, less its "[08:10:38] /workspace/src/...cc:409: " prefix
        why = re.sub(r"^\[[\d:]+\] \S+: ", "", (str(exc).splitlines() or [""])[0])
        raise ModelError(f"{path}: unreadable XGBoost model ({why[:200]})") from None
    if booster.num_features() != len(FEATURES) or \
            booster.feature_names not in (None, list(FEATURES)):
        raise ModelError(f"{path}: a model of {booster.num_features()} features; this "
                         f"stablecost has {len(FEATURES)}")
    booster.set_param({"nthread": 1})
    return booster


def _probe(model: KernelCostModel, quantile_booster: Any, directory: Path) -> None:
    """Both boosters answer finite numbers (and two quantiles) on two probe kernels: NaN
    or infinite leaves would otherwise surface as NaN step times."""
    probe = np.stack([np.zeros(len(FEATURES)), np.ones(len(FEATURES))]).astype(np.float32)
    point = model.booster_.inplace_predict(probe, iteration_range=(0, model.best_iteration_))
    bounds = quantile_booster.inplace_predict(probe)
    for name, raw, width in (("kernel_xgb.ubj", point, 1),
                             ("kernel_xgb_quantiles.ubj", bounds, 2)):
        raw = np.asarray(raw, dtype=np.float64)
        if raw.size != len(probe) * width or not np.all(np.isfinite(raw)):
            raise ModelError(f"{directory / name}: answers {raw.ravel()[:4].tolist()} on a "
                             f"probe; expected {width} finite number(s) per kernel")
