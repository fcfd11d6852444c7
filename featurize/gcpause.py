"""Pause Python's cyclic garbage collector while a program's IR is built.

Loading and analyzing a 10k-op program allocates a few hundred thousand small objects
(ops, tensor types, tuples) that are freed by reference counting; none form cycles.
Each allocation burst still triggers the collector, whose older generations then scan
everything alive. `benchmarks/gc_pause.py` measures what the pause buys on the ~10k-op
step of benchmarks/speed.py: the cold path (load, analyze, one prediction) runs 1.3x
longer without it, while a prediction of an analyzed program does not change
(benchmarks/RESULTS.md).

So the pause covers only the building of a program (`load_program`, `analyze`, and so
the cold path of `predict` that calls them); predicting a cached program never touches
the collector. It is process-wide while it lasts (CPython has no other switch): the
collector is re-enabled when the outermost pause ends, and only if it was enabled
before; nested and concurrent pauses are counted under a lock.
"""

from __future__ import annotations

import functools
import gc
import threading
from typing import Any, Callable, TypeVar

_lock = threading.Lock()
_depth = 0
_was_enabled = False

F = TypeVar("F", bound=Callable[..., Any])


def _enter() -> None:
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1


def _exit() -> None:
    global _depth
    with _lock:
        _depth -= 1
        if _depth == 0 and _was_enabled:
            gc.enable()


def gc_paused(fn: F) -> F:
    """Decorator: run `fn` with the cyclic collector paused (see module docstring)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _enter()
        try:
            return fn(*args, **kwargs)
        finally:
            _exit()
    return wrapper  # type: ignore[return-value]
