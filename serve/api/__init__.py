"""The Python API: `predict` and `predict_many`, their result types, and the program
cache they share."""

from .cache import ProgramCache, cached_analysis, default_cache
from .carry import carry_over
from .fidelity import fidelities, resolve_hardware
from .predicting import predict, predict_many, rank
from .results import Candidate, FidelityTotals, KernelRow, Prediction

__all__ = ["Candidate", "FidelityTotals", "KernelRow", "Prediction", "ProgramCache",
           "cached_analysis", "carry_over", "default_cache", "fidelities", "predict",
           "predict_many", "rank", "resolve_hardware"]
