"""Measurements on the local backend: today the host-cpu calibration. The profiling
dataset (kernel and step sweeps, Parquet store, importers) lands with its own issue."""
