"""Accuracy measures shared by training, evaluation and benchmarks.

All take measured and predicted seconds. APE = |predicted - measured| / measured.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np


def ape(measured_s: np.ndarray, predicted_s: np.ndarray) -> np.ndarray:
    measured_s = np.asarray(measured_s, dtype=np.float64)
    return np.abs(np.asarray(predicted_s, dtype=np.float64) - measured_s) / measured_s


def kendall_tau(measured_s: np.ndarray, predicted_s: np.ndarray) -> float:
    if len(measured_s) < 2:
        return float("nan")
    from scipy.stats import kendalltau

    return float(kendalltau(measured_s, predicted_s).statistic)


def summary(measured_s: np.ndarray, predicted_s: np.ndarray) -> dict[str, float]:
    """MAPE, median APE, share within +-10 % and +-25 %, Kendall tau, count."""
    errors = ape(measured_s, predicted_s)
    if len(errors) == 0:
        return {"n": 0}
    return {
        "n": int(len(errors)),
        "mape": float(np.mean(errors)),
        "median_ape": float(np.median(errors)),
        "within_10pct": float(np.mean(errors <= 0.10)),
        "within_25pct": float(np.mean(errors <= 0.25)),
        "kendall_tau": kendall_tau(measured_s, predicted_s),
    }


def grouped(measured_s: np.ndarray, predicted_s: np.ndarray,
            groups: Iterable[str]) -> dict[str, dict[str, float]]:
    """`summary` per group label (op family, program family, ...)."""
    labels = np.asarray(list(groups))
    out = {}
    for label in sorted(set(labels.tolist())):
        mask = labels == label
        out[label] = summary(np.asarray(measured_s)[mask], np.asarray(predicted_s)[mask])
    return out


def ranking_tau(measured_s: np.ndarray, predicted_s: np.ndarray,
                families: Iterable[str]) -> float:
    """Mean Kendall tau over families with at least 3 configurations: how well the
    configurations of one family are ranked."""
    labels = np.asarray(list(families))
    taus = []
    for label in set(labels.tolist()):
        mask = labels == label
        if mask.sum() >= 3:
            taus.append(kendall_tau(np.asarray(measured_s)[mask], np.asarray(predicted_s)[mask]))
    taus = [t for t in taus if not np.isnan(t)]
    return float(np.mean(taus)) if taus else float("nan")


def flat(prefix: str, stats: dict[str, float]) -> dict[str, float]:
    """`{"mape": x}` -> `{"val_mape": x}`, dropping NaNs (MLflow refuses them)."""
    return {f"{prefix}_{k}": float(v) for k, v in stats.items()
            if v is not None and not (isinstance(v, float) and np.isnan(v))}
