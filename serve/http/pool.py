"""A supervised pool of analysis worker processes (`worker.py`) for the event loop.

Each worker holds one request at a time, so a worker that dies (a native crash in the
MLIR bindings, its memory limit) or overruns the time budget (it is killed: that is the
cancel) fails only the request it held; a replacement is started in the background and
the other workers go on serving. Requests wait for a free worker at most `wait_s`, and
at most `max_waiting` of them wait: past either, `PoolBusy` (503), so a flood of slow
programs cannot queue without bound.

Not a `concurrent.futures.ProcessPoolExecutor`: when one of its processes dies, every
pending future fails with BrokenProcessPool (the innocent requests with the hostile
one) and the executor must be rebuilt, and a task cannot be cancelled once it runs.
Here each request has its worker, which can be killed alone.

Workers are started by the forkserver (from a process that has imported stablecost, so
a replacement is up in a few hundred ms instead of a fresh interpreter's seconds), or
by spawn where there is no forkserver. Never by a plain fork of the multi-threaded
server.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .worker import Worker, WorkerDied, WorkerSettings, WorkerTimedOut

logger = logging.getLogger("stablecost.serve")

STARTUP_TIMEOUT_S = 120.0   # a worker's start and warm-up
_PRELOAD = ["stablecost.serve.http.worker", "stablecost.featurize.ingest",
            "stablecost.featurize.analysis"]


class PoolBusy(Exception):
    """No worker became free in time, or too many requests already wait for one."""


def start_context() -> Any:
    """The multiprocessing context workers start from (see the module docstring)."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


class WorkerPool:
    """`size` worker processes behind an asyncio queue of idle ones."""

    def __init__(self, name: str, size: int, *, timeout_s: float, wait_s: float,
                 max_waiting: int, settings: WorkerSettings) -> None:
        self.name, self.size = name, size
        self.timeout_s, self.wait_s, self.max_waiting = timeout_s, wait_s, max_waiting
        self.settings = settings
        self.counts = {"served": 0, "crashed": 0, "timed_out": 0, "refused": 0, "started": 0}
        self._context: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._idle: asyncio.Queue[Worker] | None = None
        self._waiting = 0
        self._all: set[Worker] = set()
        self._busy: set[Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._waiters = ThreadPoolExecutor(size, thread_name_prefix=f"stablecost-{name}")

    async def start(self, wait: bool) -> None:
        """Start the workers; `wait` until they are all warmed up."""
        self._loop = asyncio.get_running_loop()
        self._idle = asyncio.Queue()
        self._context = start_context()
        if wait:
            await self._loop.run_in_executor(None, self._start_all)
        else:
            threading.Thread(target=self._start_all, daemon=True,
                             name=f"stablecost-{self.name}-start").start()

    def _start_all(self) -> None:
        threads = [threading.Thread(target=self._start_one, daemon=True)
                   for _ in range(self.size)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _start_one(self) -> None:
        """Start a worker and hand it to the idle queue once it is warm; retried with a
        growing pause while starting fails (never more workers than `size`)."""
        pause_s = 0.5
        while not self._closed:
            try:
                worker = Worker(self._context, self.settings, f"stablecost-{self.name}")
            except Exception:   # a broken forkserver, no memory for a process
                logger.exception("could not start a %s worker", self.name)
            else:
                with self._lock:
                    self._all.add(worker)
                    self.counts["started"] += 1
                if worker.wait_ready(STARTUP_TIMEOUT_S) and not self._closed:
                    self._release(worker)
                    return
                logger.error("a %s worker did not start (exit code %s)", self.name,
                             worker.process.exitcode)
                self._discard(worker)
            time.sleep(pause_s)
            pause_s = min(pause_s * 2, 30.0)

    def _release(self, worker: Worker) -> None:
        loop, idle = self._loop, self._idle
        if loop is not None and idle is not None and not loop.is_closed():
            loop.call_soon_threadsafe(idle.put_nowait, worker)

    def _discard(self, worker: Worker) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)

    def _replace(self, worker: Worker) -> None:
        self._discard(worker)
        if not self._closed:
            threading.Thread(target=self._start_one, daemon=True,
                             name=f"stablecost-{self.name}-restart").start()

    async def run(self, request: tuple) -> tuple:
        """The worker's reply to `request`. Raises PoolBusy, WorkerDied, WorkerTimedOut."""
        assert self._idle is not None and self._loop is not None, "start() the pool first"
        if self._waiting >= self.max_waiting:
            self.counts["refused"] += 1
            raise PoolBusy(f"{self._waiting} requests already wait for a {self.name} worker")
        self._waiting += 1
        try:
            while True:
                worker = await asyncio.wait_for(self._idle.get(), self.wait_s)
                if worker.alive():
                    break
                self._replace(worker)   # died while idle: not this request's fault
        except asyncio.TimeoutError:
            self.counts["refused"] += 1
            raise PoolBusy(f"no {self.name} worker became free within {self.wait_s:g} s") \
                from None
        finally:
            self._waiting -= 1
        with self._lock:
            self._busy.add(worker)
        return await self._loop.run_in_executor(self._waiters, self._call, worker, request)

    def _call(self, worker: Worker, request: tuple) -> tuple:
        """On a waiter thread: the call, and the worker back to the queue or replaced,
        whether or not anyone still awaits the answer."""
        try:
            reply = worker.call(request, self.timeout_s)
        except BaseException as exc:
            with self._lock:
                self._busy.discard(worker)
            if isinstance(exc, (WorkerDied, WorkerTimedOut)):
                self.counts["crashed" if isinstance(exc, WorkerDied) else "timed_out"] += 1
            self._replace(worker)
            raise
        with self._lock:
            self._busy.discard(worker)
        self.counts["served"] += 1
        self._release(worker)
        return reply

    def busy_pids(self) -> list[int]:
        """Process ids of the workers holding a request now."""
        with self._lock:
            return [w.process.pid for w in self._busy]

    def stats(self) -> dict[str, int]:
        with self._lock:
            alive = sum(1 for w in self._all if w.alive())
            busy = len(self._busy)
        return {"workers": self.size, "alive": alive, "busy": busy, "waiting": self._waiting,
                **self.counts}

    def stop(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            worker.kill()
        self._waiters.shutdown(wait=False, cancel_futures=True)
