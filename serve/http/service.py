"""The work behind the endpoints: a thread pool (CPU-bound work off the event loop; each
pool thread has its MLIR context, see `featurize/mlir.py`) and the program cache
(`serve.api.cache.ProgramCache`, keyed by the sha256 of the program bytes and its
name), so re-predicting a program on other chips skips parsing."""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...errors import InvalidArgumentError
from ..api.cache import ProgramCache
from .schema import (
    DEFAULT_CACHE_ENTRIES,
    DEFAULT_PROGRAM_NAME,
    MAX_HARDWARE_PER_REQUEST,
    WARM_PROGRAM,
    PredictRequest,
)


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


class Service:
    """The state behind the endpoints: the analysis cache and the worker pool."""

    def __init__(self, *, cache_entries: int = DEFAULT_CACHE_ENTRIES,
                 threads: int | None = None) -> None:
        self.cache = ProgramCache(cache_entries)
        self.threads = threads or max(1, min(4, os.cpu_count() or 1))
        self.pool: ThreadPoolExecutor | None = None

    def start(self) -> None:
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="stablecost-serve")
        # One warm-up per pool thread (the barrier keeps each on its own thread): the
        # MLIR context is per thread, and the first predict imports the models.
        barrier = threading.Barrier(self.threads)
        futures = [self.pool.submit(self._warm, barrier) for _ in range(self.threads)]
        for future in futures:
            future.result()

    def stop(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    @staticmethod
    def _warm(barrier: threading.Barrier) -> None:
        from ... import hardware
        from ...featurize.analysis import analyze
        from ...featurize.ingest import load_program
        from ..api import predicting

        try:
            barrier.wait(timeout=30)
        except threading.BrokenBarrierError:  # pragma: no cover - a slow start only
            pass
        chips = hardware.list_hardware()
        analysis = analyze(load_program(WARM_PROGRAM, name="<warm-up>"))
        predicting.predict(analysis, chips[0])

    async def run(self, fn: Any, *args: Any) -> Any:
        if self.pool is None:  # used without the lifespan (e.g. a bare ASGI test client)
            self.start()
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    def predict_json(self, req: PredictRequest) -> bytes:
        """The whole request, on a pool thread: validate the cheap things first, then
        the (cached) analysis, then one prediction per chip, serialized."""
        from ..api import predicting
        from ..api.fidelity import check_fidelity, resolve_hardware

        check_fidelity(req.fidelity)
        names, as_list = _hardware_names(req.hardware)
        chips = [resolve_hardware(n, req.fidelity) for n in names]
        options = {key: getattr(req, key) for key in ("mesh", "topology", "overlap")
                   if getattr(req, key) is not None}
        data = _decode_program(req)
        analysis = self.cache.prepared(data, name=req.name or DEFAULT_PROGRAM_NAME).analysis
        dicts = [predicting.predict(analysis, hw, fidelity=req.fidelity, cache=self.cache,
                                    **options).to_dict() for hw in chips]
        return json.dumps(dicts if as_list else dicts[0]).encode("utf-8")
