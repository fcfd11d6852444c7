"""stablecost: predict the step time of a distributed ML program from its StableHLO.

    import stablecost
    program = stablecost.load_program("examples/programs/mlp_train_step.mlir")
    stablecost.analyze(program).flops
    stablecost.predict(program, hardware="H100-SXM").step_time_s

The top level holds the verbs and what they return. The program IR lives in
`stablecost.featurize.program` (Program, Op, TensorType), the prediction cache in
`stablecost.serve.api` (ProgramCache, cached_analysis), the fidelities in
`stablecost.models.cost_model`, and every error class in `stablecost.errors`.

The names below are imported on first use (PEP 562), so `import stablecost` and the
command line's start cost no numpy, MLIR or model imports until a verb needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import errors
from .errors import StablecostError

__version__ = "0.1.0"

# public name -> the module that defines it
_LAZY = {
    "Analysis": ".featurize.analysis", "analyze": ".featurize.analysis",
    "load_program": ".featurize.ingest",
    "Hardware": ".hardware", "get_hardware": ".hardware", "list_hardware": ".hardware",
    "CollectiveRow": ".models.comm.pricing",
    "Candidate": ".serve.api", "FidelityTotals": ".serve.api", "KernelRow": ".serve.api",
    "Prediction": ".serve.api", "carry_over": ".serve.api", "predict": ".serve.api",
    "predict_many": ".serve.api", "rank": ".serve.api",
}

__all__ = [
    "Analysis", "Candidate", "CollectiveRow", "FidelityTotals", "Hardware", "KernelRow",
    "Prediction", "StablecostError", "analyze", "carry_over", "errors", "get_hardware",
    "list_hardware", "load_program", "predict", "predict_many", "rank",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'stablecost' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


if TYPE_CHECKING:
    from .featurize.analysis import Analysis, analyze
    from .featurize.ingest import load_program
    from .hardware import Hardware, get_hardware, list_hardware
    from .models.comm.pricing import CollectiveRow
    from .serve.api import (
        Candidate,
        FidelityTotals,
        KernelRow,
        Prediction,
        carry_over,
        predict,
        predict_many,
        rank,
    )
