"""The offline branch's first half: measurements into Parquet datasets (collect on the
local JAX backend, import public GPU tables, split, noise floors)."""
