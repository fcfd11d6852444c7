"""A small bounded, thread-safe LRU cache with single-flight loading.

Used by the HTTP service to keep analyzed programs keyed by the sha256 of their
bytes, so that repeated requests for the same program skip parsing, featurizing and
fusion. Concurrent misses on one key compute the value once: the other callers wait
for the first one's result (or its exception). Failures are not cached.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from concurrent.futures import Future
from typing import Callable, Generic, Hashable, TypeVar

V = TypeVar("V")


def content_key(data: bytes, *extra: str) -> str:
    """sha256 of `data`, with `extra` labels (e.g. the program name) appended."""
    digest = hashlib.sha256(data).hexdigest()
    return "\x00".join((digest, *extra)) if extra else digest


class LRUCache(Generic[V]):
    """At most `max_entries` values, least recently used evicted first."""

    def __init__(self, max_entries: int = 32) -> None:
        if max_entries < 0:
            raise ValueError(f"max_entries must be >= 0, got {max_entries}")
        self.max_entries = max_entries
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._pending: dict[Hashable, Future] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> V:
        """The cached value of `key`, computing (once) and storing it on a miss."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                self.hits += 1
                return self._data[key]
            pending = self._pending.get(key)
            if pending is None:
                self.misses += 1
                future: Future = Future()
                self._pending[key] = future
            else:
                self.hits += 1
        if pending is not None:
            return pending.result()
        try:
            value = compute()
        except BaseException as exc:
            with self._lock:
                del self._pending[key]
            future.set_exception(exc)
            raise
        with self._lock:
            del self._pending[key]
            if self.max_entries:
                self._data[key] = value
                self._data.move_to_end(key)
                while len(self._data) > self.max_entries:
                    self._data.popitem(last=False)
        future.set_result(value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.hits = self.misses = 0

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"entries": len(self._data), "max_entries": self.max_entries,
                    "hits": self.hits, "misses": self.misses}
