"""The `stablecost` command line: `main` is the console script's entry point."""

from .main import main

__all__ = ["main"]
