"""Cost models over Programs and kernels: the roofline, the learned per-kernel and
per-step models at inference time, and collectives on topologies."""
