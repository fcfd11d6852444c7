"""stablecost: predict the step time of a distributed ML program from its StableHLO.

    import stablecost
    program = stablecost.load_program("examples/programs/mlp_train_step.mlir")
    stablecost.analyze(program).flops
    stablecost.predict(program, hardware="H100-SXM").step_time_s
"""

from .errors import (DatasetError, HardwareSpecError, InvalidArgumentError, ProgramParseError,
                     StablecostError, UnknownHardwareError, UnsupportedProgramError)
from .featurize.analysis import Analysis, analyze
from .featurize.ingest import load_program
from .featurize.program import FEATURIZER_VERSION, Op, Program, TensorType
from .hardware import Hardware, get_hardware, list_hardware
from .serve.predict import KernelRow, Prediction, predict

__version__ = "0.1.0"

__all__ = [
    "Analysis", "DatasetError", "FEATURIZER_VERSION", "Hardware", "HardwareSpecError", "InvalidArgumentError",
    "KernelRow", "Op", "Prediction", "Program", "ProgramParseError", "StablecostError",
    "TensorType", "UnknownHardwareError", "UnsupportedProgramError", "analyze",
    "get_hardware", "list_hardware", "load_program", "predict",
]
