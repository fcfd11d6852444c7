"""Cost models over Programs and kernels: the roofline, the learned per-kernel and
per-step models at inference time (`learned`, `kernel_model`, `gnn/`), collectives on
topologies (`comm/`), and the compute/communication overlap of a step (`schedule`)."""
