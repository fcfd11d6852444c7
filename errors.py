"""Every error a user can cause, in one place.

Each message names what was given and what is allowed, fits on one line, and the CLI
turns any `StablecostError` into that line on stderr with exit code 2.
"""

from __future__ import annotations


class StablecostError(Exception):
    """Base class of every error caused by the user's input or environment."""


class ProgramParseError(StablecostError):
    """The program text or bytecode is not valid MLIR."""


class UnsupportedProgramError(StablecostError):
    """The program parsed but uses something stablecost cannot price (dynamic shapes,
    quantized types, recursion)."""


class UnknownHardwareError(StablecostError):
    """A hardware name that is not in the catalog."""


class HardwareSpecError(StablecostError):
    """A hardware data file is malformed."""


class InvalidArgumentError(StablecostError):
    """An argument outside the allowed values."""


class DatasetError(StablecostError):
    """A measurement dataset is missing, unreadable, foreign or in use."""


class RequestTooLargeError(StablecostError):
    """An HTTP request body over the service's size limit."""


class ModelError(StablecostError):
    """A saved model is missing, unreadable or does not match this stablecost."""


class NotFittedError(StablecostError):
    """A learned model was used before it was fitted or loaded."""


class PartitionError(StablecostError):
    """XLA's SPMD partitioner could not split a program over the requested mesh."""


class ClusterError(StablecostError):
    """`collect --ray` cannot use a Ray cluster: Ray is not installed, the address does
    not answer, or no node can host a collector."""


class MeasurementError(StablecostError):
    """The measured fidelity cannot time a program here: it needs more devices than the
    local backend has, or it does not compile or run on that backend."""


class MissingExtraError(StablecostError):
    """The input needs an optional extra that is not installed (a PyTorch program needs
    torch-mlir: `pip install 'stablecost[torch]'`)."""
