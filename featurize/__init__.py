"""StableHLO -> Program IR, exact op costs, fused kernels."""
