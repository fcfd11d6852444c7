"""Pause Python's cyclic garbage collector while large acyclic structures are built.

Loading and analyzing a 10k-op program allocates a few hundred thousand small objects
(ops, tensor types, tuples) that are freed by reference counting; none form cycles.
Each allocation burst still triggers the collector, whose older generations then scan
everything alive: on a 10k-op training step that was ~35 % of load + analyze +
predict (benchmarks/speed.py). The pause is reentrant and thread-safe: the collector
is re-enabled when the outermost pause ends, and only if it was enabled before.
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
