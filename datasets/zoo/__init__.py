"""The model zoo for `stablecost collect programs`: parameterized JAX training steps and
forward passes whose whole-step time is measured.

Eighteen families (MLP, ResNet-style CNN, transformer decoder forward and training
step, MLP-mixer, scan-based RNN, embedding + softmax cross-entropy, pre-norm residual
MLP, SwiGLU MLP, depthwise-separable CNN, multi-head attention, dilated 1-D
convolutions, dense autoencoder, transposed-convolution decoder, LSTM/GRU unrolled by a
Python loop, top-1 mixture of experts, graph network over edge lists, 3-D
convolutions), each swept over model size, batch and dtype. Training steps are plain
SGD on the gradient, so the program is forward + backward + update with no optimizer
library. Like kernel samples, a program is rebuilt from its parameters alone.

`blocks` holds what the families share, `mlps`, `convnets`, `sequence` and `sparse`
the families, `sweep` their sizes and the order they are measured in.

Group ids are family/size/dtype: the batch sizes of one model form one group, so a
held-out group is a model size the learner never saw.
"""

from .sweep import (
    PROGRAM_DTYPES,
    PROGRAM_FAMILIES,
    TIERS,
    ProgramSpec,
    build_program,
    program_specs,
)

__all__ = ["PROGRAM_DTYPES", "PROGRAM_FAMILIES", "ProgramSpec", "build_program",
           "program_specs", "TIERS"]
