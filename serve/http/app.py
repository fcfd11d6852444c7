"""The stablecost HTTP service (FastAPI): `stablecost serve`, or

    uvicorn --factory stablecost.serve.http:create_app

Endpoints:

    POST /v1/predict          a program + hardware -> the JSON of `stablecost predict --json`
    GET  /v1/hardware         the catalog, as `stablecost hardware list --json`
    GET  /v1/hardware/{name}  one chip, as `stablecost hardware show NAME --json`
    GET  /healthz             liveness, version, cache statistics
    GET  /docs, /openapi.json the OpenAPI description (FastAPI's defaults)

Errors are JSON `{"error": {"type": "<ErrorClass>", "message": "..."}}`: a
`StablecostError` caused by the request is 400 (404 for an unknown chip in the path),
a body over the size limit 413, a body that is not JSON (UTF-8) or does not match the
schema 422, and anything else 500 with a generic message (the traceback goes to the
server log).

Parsing is the expensive part of a prediction, so analyzed programs are kept in a
bounded LRU keyed by the sha256 of the program bytes (plus its name and mesh):
re-predicting a program on other chips skips it, in this process, on a small thread
pool off the event loop. A program not seen before is parsed and analyzed in a worker
process (`service.py`, `pool.py`): one that crashes the MLIR bindings is a 400 and the
worker is replaced; one that runs past `analysis_timeout_s` is a 400 and its worker is
killed; when every worker is busy and the queue is full, 503 with Retry-After.
Programs with a mesh have their own workers (XLA's partitioner is slow).

Under uvicorn, `serve.http.timeouts` bounds how long a client may take to send a
request's headers and its body (uvicorn itself bounds neither); `stablecost serve`
uses it.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from typing import Any, Literal

from fastapi import FastAPI
from fastapi.responses import Response

from ...errors import InvalidArgumentError, StablecostError, UnknownHardwareError
from .errors import error_response, install_error_handlers, internal_error
from .limits import BodyLimitMiddleware
from .schema import DEFAULT_CACHE_ENTRIES, DEFAULT_MAX_REQUEST_BYTES, PredictRequest
from .service import (
    DEFAULT_ANALYSIS_TIMEOUT_S,
    DEFAULT_MESH_WORKERS,
    Service,
    ServiceBusy,
)

logger = logging.getLogger("stablecost.serve")


def create_app(*, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
               cache_entries: int = DEFAULT_CACHE_ENTRIES,
               threads: int | None = None, workers: int | None = None,
               mesh_workers: int = DEFAULT_MESH_WORKERS,
               analysis_timeout_s: float = DEFAULT_ANALYSIS_TIMEOUT_S,
               worker_memory_bytes: int | Literal["auto"] | None = "auto") -> FastAPI:
    """The ASGI app. `max_request_bytes` bounds request bodies (413 above it),
    `cache_entries` the analyzed programs kept, `threads` the in-process pool (default
    min(4, CPUs)), `workers` the analysis processes (default 2 to 4 by CPUs),
    `mesh_workers` those for programs with a mesh, `analysis_timeout_s` one program's
    analysis, `worker_memory_bytes` a worker's address space ("auto": the machine's
    memory shared by the workers, 4 to 16 GiB; None: unlimited)."""
    from ... import __version__

    if max_request_bytes <= 0:
        raise InvalidArgumentError(f"max_request_bytes must be > 0, got {max_request_bytes}")
    if cache_entries < 0:
        raise InvalidArgumentError(f"cache_entries must be >= 0, got {cache_entries}")
    for label, value in (("threads", threads), ("workers", workers),
                         ("mesh_workers", mesh_workers)):
        if value is not None and value < 1:
            raise InvalidArgumentError(f"{label} must be >= 1, got {value}")
    if not analysis_timeout_s > 0:
        raise InvalidArgumentError(f"analysis_timeout_s must be > 0, got {analysis_timeout_s}")
    service = Service(cache_entries=cache_entries, threads=threads, workers=workers,
                      mesh_workers=mesh_workers, analysis_timeout_s=analysis_timeout_s,
                      worker_memory_bytes=worker_memory_bytes)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        try:
            await service.start()
            logger.info("stablecost service ready: %d thread(s), %d analysis worker(s), "
                        "%d mesh worker(s), cache of %d programs, request limit %d bytes",
                        service.threads, service.workers.size, service.mesh_workers.size,
                        cache_entries, max_request_bytes)
            yield
        finally:
            service.stop()

    app = FastAPI(
        title="stablecost",
        version=__version__,
        description="Predict the step time of ML programs (StableHLO) on a chip. "
                    "Errors are JSON: {\"error\": {\"type\": ..., \"message\": ...}}.",
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.max_request_bytes = max_request_bytes
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_request_bytes)
    install_error_handlers(app)

    error_responses: dict[int | str, dict[str, Any]] = {
        code: {"description": text, "content": {"application/json": {"example": {
            "error": {"type": kind, "message": "..."}}}}}
        for code, text, kind in (
            (400, "bad input: unknown hardware, unparsable or unsupported program, "
                  "invalid argument", "UnknownHardwareError"),
            (413, "request body over the size limit", "RequestTooLargeError"),
            (422, "the body does not match the schema", "RequestValidationError"),
            (500, "internal error (details in the server log)", "InternalServerError"),
            (503, "every analysis worker is busy; retry after Retry-After seconds",
             "ServiceUnavailable"),
        )
    }

    @app.post("/v1/predict", tags=["predict"], responses={
        200: {"description": "`Prediction.to_dict()` (as `stablecost predict --json`): an "
                             "object for one chip, a list for several",
              "content": {"application/json": {"schema": {
                  "anyOf": [{"type": "object"},
                            {"type": "array", "items": {"type": "object"}}]}}}},
        **error_responses})
    async def predict(req: PredictRequest) -> Response:
        """Predict one step of the program on each requested chip."""
        try:
            body = await service.predict(req)
        except StablecostError:
            raise
        except ServiceBusy as exc:
            return error_response(503, "ServiceUnavailable", str(exc),
                                  headers={"Retry-After": "1"})
        except Exception:
            logger.exception("POST /v1/predict failed")
            return internal_error()
        return Response(body, media_type="application/json")

    @app.get("/v1/hardware", tags=["hardware"])
    async def hardware_list() -> list[dict[str, Any]]:
        """Every chip in the catalog (plus host-cpu when calibrated on the server)."""
        from ...hardware import list_hardware

        return [hw.to_dict() for hw in list_hardware()]

    # response_model given here, as the return annotation would be without the error
    # branch: the JSON error response bypasses it
    @app.get("/v1/hardware/{name}", tags=["hardware"], response_model=dict[str, Any],
             responses={404: error_responses[400] | {"description": "unknown chip"}})
    async def hardware_show(name: str) -> dict[str, Any] | Response:
        """One chip's data and sources, by name or alias."""
        from ...hardware import get_hardware

        try:
            return get_hardware(name).to_dict()
        except UnknownHardwareError as exc:
            return error_response(404, type(exc).__name__, str(exc))

    @app.get("/healthz", tags=["service"])
    async def healthz() -> dict[str, Any]:
        """Liveness: version, threads, worker processes, analysis-cache statistics."""
        return {"status": "ok", "version": __version__, "threads": service.threads,
                "max_request_bytes": max_request_bytes, "cache": service.cache.stats(),
                "workers": service.health()}

    return app
