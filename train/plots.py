"""The figures of training runs and fidelity reports (matplotlib, written as PNG)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def scatter(series: Mapping[str, tuple[np.ndarray, np.ndarray]], path: Path, title: str) -> Path:
    """Predicted vs measured seconds on log axes, one colour per series."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    lo, hi = np.inf, 0.0
    for label, (measured, predicted) in series.items():
        if len(measured) == 0:
            continue
        ax.scatter(measured, predicted, s=6, alpha=0.5, label=label)
        lo = min(lo, float(np.min(measured)), float(np.min(predicted)))
        hi = max(hi, float(np.max(measured)), float(np.max(predicted)))
    if hi > 0:
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
        ax.plot([lo, hi], [lo * 1.1, hi * 1.1], "k:", lw=0.5)
        ax.plot([lo, hi], [lo / 1.1, hi / 1.1], "k:", lw=0.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured (s)")
    ax.set_ylabel("predicted (s)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def error_cdf(series: Mapping[str, np.ndarray], path: Path, title: str) -> Path:
    """Cumulative share of samples under each absolute percentage error."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for label, errors in series.items():
        if len(errors) == 0:
            continue
        x = np.sort(np.asarray(errors) * 100)
        ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=label)
    ax.axvline(10, color="k", ls=":", lw=0.6)
    ax.axvline(25, color="k", ls=":", lw=0.6)
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("absolute percentage error (%)")
    ax.set_ylabel("share of samples")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def importance(scores: Mapping[str, float], path: Path, title: str, top: int = 25) -> Path:
    plt = _plt()
    items = sorted(scores.items(), key=lambda kv: -kv[1])[:top][::-1]
    fig, ax = plt.subplots(figsize=(6, 0.25 * len(items) + 1))
    ax.barh([k for k, _ in items], [v for _, v in items])
    ax.set_xlabel("gain")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
