"""Cost models over Programs and kernels: the roofline now; learned models later."""
