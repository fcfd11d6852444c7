"""The work behind `POST /v1/predict`.

A request is checked, decoded and keyed (sha256 of the program bytes, its name, the
mesh) on a thread of a small pool, off the event loop. A program analyzed before is
predicted right there, in this process: the analyses are kept in an LRU, and what
predictions derive from one (kernel rows per chip, schedules) in a
`serve.api.cache.ProgramCache`. A new program is parsed and analyzed in a worker
process (`pool.py`, `worker.py`): a program that crashes jaxlib's MLIR bindings, eats
memory or never finishes takes down, or is killed with, that worker only. Programs with
a mesh go to a pool of their own (XLA's partitioner is slow), so the light requests
never queue behind them. Concurrent requests for one new program analyze it once.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
import os
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal

from ... import errors
from ...errors import InvalidArgumentError, ProgramParseError, UnsupportedProgramError
from ...featurize.options import LoadOptions, load_options, options_kwargs
from ...featurize.partition import Mesh, parse_mesh
from ..api.cache import ProgramCache
from .pool import PoolBusy, WorkerPool
from .schema import (
    DEFAULT_CACHE_ENTRIES,
    DEFAULT_PROGRAM_NAME,
    MAX_HARDWARE_PER_REQUEST,
    WARM_PROGRAM,
    PredictRequest,
)
from .worker import WorkerDied, WorkerSettings, WorkerTimedOut

DEFAULT_ANALYSIS_TIMEOUT_S = 60.0
GIB = 1024 ** 3
DEFAULT_MESH_WORKERS = 1
MAX_WAITING = 64        # requests waiting for a light worker
MAX_WAITING_MESH = 8    # ... for a mesh worker


def default_workers() -> int:
    """Analysis workers: 2 to 4 (CPUs), so that one crash is never an outage."""
    return max(2, min(4, os.cpu_count() or 1))


def default_worker_memory_bytes(processes: int) -> int:
    """A worker's address-space limit: the machine's memory shared by the worker
    processes and this one, between 4 and 16 GiB (jaxlib maps ~0.6 GiB, XLA's
    partitioner ~1.6 GiB)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):   # not a POSIX sysconf
        return 8 * GIB
    return int(min(16 * GIB, max(4 * GIB, total / (processes + 1))))


class ServiceBusy(Exception):
    """Every worker is busy and the queue is full or too slow: 503, try again."""


def _decode_program(req: PredictRequest) -> bytes:
    if req.program is not None:
        try:
            return req.program.encode("utf-8")
        except UnicodeEncodeError as exc:   # a lone surrogate (\ud800) in the JSON
            raise InvalidArgumentError(
                f"program is not valid Unicode text ({exc.reason} at character {exc.start}); "
                "give MLIR text, or its bytes in program_base64") from None
    try:
        return base64.b64decode(req.program_base64 or "", validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidArgumentError(
            f"program_base64 is not valid base64 ({exc}); give standard base64 "
            "(RFC 4648, with padding) of the .mlirbc or .mlir file") from None


def _hardware_names(hardware: str | list[str]) -> tuple[list[str], bool]:
    """The requested names, and whether the answer is a list."""
    if isinstance(hardware, str):
        names = [n.strip() for n in hardware.split(",") if n.strip()]
        as_list = len(names) > 1
    else:
        names = [n.strip() for n in hardware]
        as_list = True
        if any(not n for n in names):
            raise InvalidArgumentError("hardware names must not be empty")
    if not names:
        raise InvalidArgumentError("hardware needs at least one name "
                                   "(see GET /v1/hardware)")
    if len(names) > MAX_HARDWARE_PER_REQUEST:
        raise InvalidArgumentError(f"{len(names)} hardware names in one request; the limit "
                                   f"is {MAX_HARDWARE_PER_REQUEST}")
    return names, as_list


@dataclass(frozen=True)
class Job:
    """A checked request whose program is not analyzed yet."""

    key: tuple
    data: bytes
    name: str
    mesh: Mesh | None
    options: LoadOptions = (None, None, None)   # entry, shapes, dims


class AnalysisCache:
    """Program content key -> Analysis, the `max_entries` most recently used; a miss is
    loaded once however many requests want it (single flight, on the event loop)."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._loading: dict[tuple, asyncio.Future] = {}
        self.hits = self.misses = 0

    def get(self, key: tuple) -> Any:
        """The analysis of `key`, or None (any thread; a miss is counted by `load`)."""
        with self._lock:
            found = self._data.get(key)
            if found is not None:
                self._data.move_to_end(key)
                self.hits += 1
            return found

    async def load(self, key: tuple, compute: Callable[[], Awaitable[Any]]) -> Any:
        """The analysis of `key`, computed once by `compute` (on the event loop)."""
        found = self.get(key)
        if found is not None:
            return found
        loading = self._loading.get(key)
        if loading is not None:
            with self._lock:
                self.hits += 1
            return await asyncio.shield(loading)
        with self._lock:
            self.misses += 1
        future = asyncio.get_running_loop().create_future()
        self._loading[key] = future
        try:
            value = await compute()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()   # retrieved: no "never retrieved" warning without waiters
            raise
        else:
            future.set_result(value)
            with self._lock:
                if self.max_entries:
                    self._data[key] = value
                    while len(self._data) > self.max_entries:
                        self._data.popitem(last=False)
            return value
        finally:
            del self._loading[key]

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"entries": len(self._data), "max_entries": self.max_entries,
                    "hits": self.hits, "misses": self.misses}


class Service:
    """The state behind the endpoints: caches, the request threads, the worker pools."""

    def __init__(self, *, cache_entries: int = DEFAULT_CACHE_ENTRIES,
                 threads: int | None = None, workers: int | None = None,
                 mesh_workers: int = DEFAULT_MESH_WORKERS,
                 analysis_timeout_s: float = DEFAULT_ANALYSIS_TIMEOUT_S,
                 worker_memory_bytes: int | Literal["auto"] | None = "auto") -> None:
        self.cache = AnalysisCache(cache_entries)
        # what predictions derive from an analysis, kept while the analysis is cached
        self.derived = ProgramCache(0)
        self.threads = threads or max(1, min(4, os.cpu_count() or 1))
        self.analysis_timeout_s = analysis_timeout_s
        workers = workers or default_workers()
        if worker_memory_bytes == "auto":
            worker_memory_bytes = default_worker_memory_bytes(workers + mesh_workers)
        self.worker_memory_bytes = worker_memory_bytes
        settings = WorkerSettings(memory_bytes=worker_memory_bytes, warm_program=WARM_PROGRAM)
        self.workers = WorkerPool("analysis", workers,
                                  timeout_s=analysis_timeout_s, wait_s=analysis_timeout_s,
                                  max_waiting=MAX_WAITING, settings=settings)
        self.mesh_workers = WorkerPool("mesh", mesh_workers, timeout_s=analysis_timeout_s,
                                       wait_s=analysis_timeout_s,
                                       max_waiting=MAX_WAITING_MESH, settings=settings)
        self.pool: ThreadPoolExecutor | None = None
        self._started: asyncio.Future | None = None

    async def start(self) -> None:
        """Threads, warm-up of this process, workers (the light ones warm before this
        returns; the mesh ones in the background)."""
        if self._started is None:
            self._started = asyncio.get_running_loop().create_future()
            try:
                self.pool = ThreadPoolExecutor(self.threads,
                                               thread_name_prefix="stablecost-serve")
                await asyncio.gather(
                    asyncio.get_running_loop().run_in_executor(self.pool, self._warm),
                    self.workers.start(wait=True), self.mesh_workers.start(wait=False))
            except BaseException as exc:
                self._started.set_exception(exc)
                raise
            self._started.set_result(None)
        await asyncio.shield(self._started)

    def stop(self) -> None:
        self.workers.stop()
        self.mesh_workers.stop()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    def _warm(self) -> None:
        """Imports and models of the in-process predict path (the program is ours)."""
        from ... import hardware
        from ...featurize.analysis import analyze
        from ...featurize.ingest import load_program
        from ..api import predicting

        analysis = analyze(load_program(WARM_PROGRAM, name="<warm-up>"))
        predicting.predict(analysis, hardware.list_hardware()[0], cache=self.derived)

    async def run(self, fn: Any, *args: Any) -> Any:
        await self.start()   # a no-op after the lifespan started it
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def predict(self, req: PredictRequest) -> bytes:
        """The JSON answer to one request (raises StablecostError, ServiceBusy)."""
        answer = await self.run(self._checked, req)
        if isinstance(answer, bytes):   # the program was cached: predicted already
            return answer
        analysis = await self.cache.load(answer.key, lambda: self._analyze(answer))
        return await self.run(self._predict_json, req, analysis)

    def _checked(self, req: PredictRequest) -> bytes | Job:
        """On a request thread: the cheap checks first, then the answer if the program
        is cached, else the job of analyzing it."""
        from ..api.fidelity import check_fidelity, resolve_hardware

        check_fidelity(req.fidelity, run=False)   # never runs a client's program
        names, _ = _hardware_names(req.hardware)
        for name in names:
            resolve_hardware(name, req.fidelity)
        if req.measured_on is not None:
            from ..api.carry import check_carry_fidelity

            check_carry_fidelity(req.fidelity, "measured_on")
            resolve_hardware(req.measured_on.hardware, req.fidelity)
        mesh = None if req.mesh is None else parse_mesh(req.mesh)
        options = load_options(req.entry, req.shapes, req.dims)
        data = _decode_program(req)
        name = req.name or DEFAULT_PROGRAM_NAME
        key = (hashlib.sha256(data).hexdigest(), name, mesh, options)
        analysis = self.cache.get(key)
        if analysis is not None:
            return self._predict_json(req, analysis)
        return Job(key, data, name, mesh, options)

    def _predict_json(self, req: PredictRequest, analysis: Any) -> bytes:
        from ..api import predicting
        from ..api.fidelity import resolve_hardware

        names, as_list = _hardware_names(req.hardware)
        options = {key: getattr(req, key) for key in ("topology", "overlap")
                   if getattr(req, key) is not None}
        if req.measured_on is not None:
            from ..api.carry import carry_over

            there = req.measured_on
            dicts = [carry_over(analysis, resolve_hardware(name, req.fidelity),
                                resolve_hardware(there.hardware, req.fidelity),
                                there.step_time_s, req.fidelity, cache=self.derived,
                                **options).to_dict() for name in names]
        else:
            dicts = [predicting.predict(analysis, resolve_hardware(name, req.fidelity),
                                        fidelity=req.fidelity, cache=self.derived,
                                        **options).to_dict() for name in names]
        return json.dumps(dicts if as_list else dicts[0]).encode("utf-8")

    async def _analyze(self, job: Job) -> Any:
        pool = self.workers if job.mesh is None else self.mesh_workers
        mesh = None if job.mesh is None else dict(job.mesh)
        try:
            reply = await pool.run((job.data, job.name, mesh, options_kwargs(job.options)))
        except PoolBusy as exc:
            raise ServiceBusy(f"the service is busy ({exc}); try again shortly") from None
        except WorkerDied as exc:
            limit = (f"{self.worker_memory_bytes / GIB:.1f} GiB"
                     if self.worker_memory_bytes else "no")
            raise ProgramParseError(
                f"{job.name}: the worker analyzing this program died ({exc.how}): the "
                f"program crashes the MLIR parser or needs more than the worker's memory "
                f"({limit} limit); it cannot be analyzed here") from None
        except WorkerTimedOut:
            raise UnsupportedProgramError(
                f"{job.name}: analyzing the program took over {self.analysis_timeout_s:g} "
                "s, the service's budget per program (stablecost serve "
                "--analysis-timeout-s); it was stopped") from None
        if reply[0] == "ok":
            return reply[1]
        if reply[0] == "error":
            cls = getattr(errors, reply[1], None)
            if isinstance(cls, type) and issubclass(cls, errors.StablecostError):
                raise cls(reply[2])
        raise RuntimeError(f"analysis worker failed: {reply[1:]}")

    def health(self) -> dict[str, Any]:
        return {"analysis": self.workers.stats(), "mesh": self.mesh_workers.stats()}
