"""MLflow plumbing shared by the trainers: where runs go, and the `champion` alias.

Runs go to `sqlite:///mlflow.db` in the working directory unless a tracking URI is
given (`--tracking-uri`, or `MLFLOW_TRACKING_URI`). `mlflow ui --backend-store-uri
sqlite:///mlflow.db` shows them side by side. A new experiment in a SQLite store keeps
its artifacts in `mlruns/` beside the database file (MLflow's default is `./mlruns` in
whatever directory the run started from).

The alias `champion` of a registered model moves to a new version only when that
version's validation score beats the current champion's (lower is better).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_TRACKING_URI = "sqlite:///mlflow.db"
CHAMPION = "champion"


def configure(tracking_uri: str | None, experiment: str) -> str:
    import logging
    import warnings

    import mlflow

    uri = tracking_uri or os.environ.get("MLFLOW_TRACKING_URI") or DEFAULT_TRACKING_URI
    mlflow.set_tracking_uri(uri)
    mlflow.set_registry_uri(uri)
    if mlflow.get_experiment_by_name(experiment) is None:
        mlflow.create_experiment(experiment, artifact_location=_artifact_location(uri))
    mlflow.set_experiment(experiment)
    logging.getLogger("mlflow").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", module="mlflow")
    return uri


def _artifact_location(uri: str) -> str | None:
    """`mlruns/` beside a SQLite store's file; None (MLflow's default) for other stores."""
    prefix = "sqlite:///"
    if not uri.startswith(prefix):
        return None
    return (Path(uri[len(prefix):]).resolve().parent / "mlruns").as_uri()


@dataclass
class Registration:
    name: str
    version: str
    champion: bool             # whether the alias moved to this version
    previous_score: float | None


def promote_if_better(name: str, version: str, score: float, score_key: str) -> Registration:
    """Point `champion` at `version` if its `score_key` metric (lower is better) beats
    the current champion's, or if there is none."""
    from mlflow import MlflowClient
    from mlflow.exceptions import MlflowException

    client = MlflowClient()
    previous = None
    try:
        current = client.get_model_version_by_alias(name, CHAMPION)
        # champions are only ever versions the trainers logged from a run
        assert current.run_id is not None, f"{name} v{current.version} has no run"
        run = client.get_run(current.run_id)
        previous = run.data.metrics.get(score_key)
    except MlflowException:
        current = None
    better = current is None or previous is None or score < previous
    if better:
        client.set_registered_model_alias(name, CHAMPION, version)
    return Registration(name, str(version), better, previous)


def pip_requirements() -> list[str]:
    """Exact requirements for logged models: the CPU xgboost wheel, pinned torch."""
    from importlib import metadata

    reqs = []
    for dist in ("xgboost-cpu", "xgboost", "torch", "torch-geometric", "numpy"):
        try:
            reqs.append(f"{dist}=={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            continue
    if any(r.startswith("xgboost-cpu==") for r in reqs):
        reqs = [r for r in reqs if not r.startswith("xgboost==")]
    return reqs


def log_dict_metrics(metrics: dict[str, Any]) -> None:
    import math

    import mlflow

    clean = {k: float(v) for k, v in metrics.items()
             if isinstance(v, (int, float)) and not math.isnan(float(v))}
    if clean:
        mlflow.log_metrics(clean)


def configure_checked(uri: str | None, experiment: str) -> str:
    """`configure`, with a store MLflow cannot use reported as one line naming the URI."""
    from ..errors import InvalidArgumentError

    try:
        return configure(uri, experiment)
    except Exception as exc:   # MLflow raises its own types, and ValueError for bad URIs
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise InvalidArgumentError(
            f"--tracking-uri {uri or DEFAULT_TRACKING_URI!r}: MLflow cannot use it "
            f"({first}); give e.g. sqlite:///mlflow.db or http://HOST:PORT"
        ) from None
