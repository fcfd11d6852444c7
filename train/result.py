"""What a training run reports back to the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class TrainResult:
    model: str                              # "kernel_xgb" | "step_gnn"
    hardware: str
    run_id: str
    tracking_uri: str
    choice: str                             # the target / variant kept
    metrics: dict[str, float]               # flat: val_*, test_*, baseline_*
    per_family: dict[str, dict[str, float]] = field(default_factory=dict)   # test split
    registered_version: str | None = None
    champion: bool = False
    saved_to: Path | None = None
    data: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
