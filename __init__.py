"""stablecost: predict the step time of a distributed ML program from its StableHLO.

    import stablecost
    program = stablecost.load_program("examples/programs/mlp_train_step.mlir")
    stablecost.analyze(program).flops
    stablecost.predict(program, hardware="H100-SXM").step_time_s

The top level holds the verbs and what they return. The program IR lives in
`stablecost.featurize.program` (Program, Op, TensorType), the prediction cache in
`stablecost.serve.api` (ProgramCache, cached_analysis), the fidelities in
`stablecost.models.cost_model`, and every error class in `stablecost.errors`.
"""

from . import errors
from .errors import StablecostError
from .featurize.analysis import Analysis, analyze
from .featurize.ingest import load_program
from .hardware import Hardware, get_hardware, list_hardware
from .models.comm.pricing import CollectiveRow
from .serve.api import (
    Candidate,
    FidelityTotals,
    KernelRow,
    Prediction,
    predict,
    predict_many,
    rank,
)

__version__ = "0.1.0"

__all__ = [
    "Analysis", "Candidate", "CollectiveRow", "FidelityTotals", "Hardware", "KernelRow",
    "Prediction", "StablecostError", "analyze", "errors", "get_hardware", "list_hardware",
    "load_program", "predict", "predict_many", "rank",
]
