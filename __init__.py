"""stablecost: predict the step time of a distributed ML program from its StableHLO.

    import stablecost
    program = stablecost.load_program("examples/programs/mlp_train_step.mlir")
    stablecost.analyze(program).flops
    stablecost.predict(program, hardware="H100-SXM").step_time_s
"""

from .errors import (
                     DatasetError,
                     HardwareSpecError,
                     InvalidArgumentError,
                     PartitionError,
                     ProgramParseError,
                     StablecostError,
                     UnknownHardwareError,
                     UnsupportedProgramError,
)
from .featurize.analysis import Analysis, analyze
from .featurize.ingest import load_program
from .featurize.program import FEATURIZER_VERSION, Op, Program, TensorType
from .hardware import Hardware, get_hardware, list_hardware
from .models.comm.pricing import CollectiveRow
from .serve.predict import (
                     Candidate,
                     KernelRow,
                     Prediction,
                     ProgramCache,
                     cached_analysis,
                     predict,
                     predict_many,
)

__version__ = "0.1.0"

__all__ = [
    "Analysis", "Candidate", "CollectiveRow", "DatasetError", "FEATURIZER_VERSION", "Hardware",
    "HardwareSpecError", "InvalidArgumentError", "KernelRow", "Op", "PartitionError",
    "Prediction", "Program", "ProgramCache", "ProgramParseError", "StablecostError",
    "TensorType", "UnknownHardwareError", "UnsupportedProgramError", "analyze",
    "cached_analysis", "get_hardware", "list_hardware", "load_program", "predict",
    "predict_many",
]
