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
a body over the size limit 413, a body that does not match the schema 422, and
anything else 500 with a generic message (the traceback goes to the server log).

Parsing is the expensive part of a prediction, so analyzed programs are kept in a
bounded LRU keyed by the sha256 of the program bytes (plus its name): re-predicting
a program on other chips skips it. The CPU-bound work runs on a small thread pool,
off the event loop; every pool thread gets its MLIR context (thread-local, see
`featurize/mlir.py`) and the hardware catalog is loaded when the app starts, not on
the first request.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import inspect
import json
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import lru_cache
from http import HTTPStatus
from typing import Annotated, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, model_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    HardwareSpecError,
    InvalidArgumentError,
    RequestTooLargeError,
    StablecostError,
    UnknownHardwareError,
)
from ..featurize.partition import MAX_MESH_DEVICES
from .cache import LRUCache, content_key

logger = logging.getLogger("stablecost.serve")

MIB = 1024 * 1024
DEFAULT_MAX_REQUEST_BYTES = 32 * MIB
DEFAULT_CACHE_ENTRIES = 32
MAX_HARDWARE_PER_REQUEST = 64
DEFAULT_PROGRAM_NAME = "<request>"

# A program small enough to parse in a millisecond; predicting it at start-up imports
# and initializes everything a real request touches.
_WARM_PROGRAM = """
func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = stablehlo.add %0, %a : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
"""


# --------------------------------------------------------------------------- schema


# strict: true and 2.0 are not sizes (parse_mesh rejects them too)
Mesh = dict[Annotated[str, Field(min_length=1)],
            Annotated[int, Field(gt=0, le=MAX_MESH_DEVICES, strict=True)]]


class PredictRequest(BaseModel):
    """One program, one or more chips. Give exactly one of `program` and
    `program_base64`."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{
        "program": "func.func @main(%a: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> "
                   "{ %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : "
                   "(tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>"
                   " return %0 : tensor<1024x1024xbf16> }",
        "hardware": "H100-SXM",
        "fidelity": "roofline",
    }]})

    program: str | None = Field(
        None, description="StableHLO as MLIR text (pretty or generic form)")
    program_base64: str | None = Field(
        None, description="MLIR bytecode (.mlirbc) or text, base64-encoded")
    name: str | None = Field(
        None, max_length=256,
        description="label for the program in the result and in error messages "
                    f"(default {DEFAULT_PROGRAM_NAME!r})")
    hardware: str | Annotated[list[str], Field(min_length=1,
                                               max_length=MAX_HARDWARE_PER_REQUEST)] = Field(
        ..., description="a catalog name or alias, comma-separated names, or a list of "
                         "names (see GET /v1/hardware). A list, or several comma-separated "
                         "names, returns a list of predictions in the same order")
    fidelity: str = Field("auto", description="auto (learned where a bundled model exists, else roofline), roofline, learned, all")
    mesh: Mesh | None = Field(
        None, description="device mesh, axis name -> size, e.g. {\"data\": 4, \"model\": 2}")
    topology: str | None = Field(None, description="interconnect topology override")
    overlap: bool | None = Field(
        None, description="overlap communication with compute (default: the predictor's)")

    @model_validator(mode="after")
    def _one_program(self) -> "PredictRequest":
        if (self.program is None) == (self.program_base64 is None):
            raise ValueError("give exactly one of 'program' (MLIR text) and "
                             "'program_base64' (base64 of .mlirbc bytecode or text)")
        return self


# --------------------------------------------------------------------------- errors


def error_response(status: int, error_type: str, message: str,
                   details: list[dict[str, Any]] | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    error: dict[str, Any] = {"type": error_type, "message": message}
    if details:
        error["details"] = details
    return JSONResponse({"error": error}, status_code=status, headers=headers)


def status_of(exc: StablecostError) -> int:
    if isinstance(exc, RequestTooLargeError):
        return 413
    if isinstance(exc, HardwareSpecError):
        return 500  # the server's catalog is broken, not the request
    return 400


def _validation_message(errors: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    details, parts = [], []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        msg = str(err.get("msg", "invalid"))
        kind = str(err.get("type", ""))
        if loc[:1] == ["hardware"] and loc[1:2] in (["str"], ["list[str]"]):
            # one message for the two branches of `str | list[str]`
            if any(d["loc"] == ["hardware"] for d in details):
                continue
            loc = ["hardware"]
            msg = ("must be a name, comma-separated names or a list of 1 to "
                   f"{MAX_HARDWARE_PER_REQUEST} names (see GET /v1/hardware)")
        elif not loc and kind != "value_error":
            msg = (f"{msg}: the body must be a JSON object sent with "
                   "Content-Type: application/json")
        details.append({"loc": loc, "msg": msg, "type": kind})
        parts.append(f"{'.'.join(loc) or 'body'}: {msg}")
    shown = "; ".join(parts[:5]) + (f"; and {len(parts) - 5} more" if len(parts) > 5 else "")
    return f"invalid request: {shown}", details


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(StablecostError)
    async def _stablecost_error(request: Request, exc: StablecostError) -> JSONResponse:
        status = status_of(exc)
        if status >= 500:
            logger.error("%s %s: %s: %s", request.method, request.url.path,
                         type(exc).__name__, exc)
        return error_response(status, type(exc).__name__, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        message, details = _validation_message(list(exc.errors()))
        return error_response(422, "RequestValidationError", message, details)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        try:
            phrase = HTTPStatus(exc.status_code).phrase
        except ValueError:
            phrase = "HTTP Error"
        error_type = "".join(w[:1].upper() + w[1:] for w in phrase.replace("-", " ").split())
        message = exc.detail if isinstance(exc.detail, str) else phrase
        if exc.status_code == 404 and message == phrase:
            message = f"no such endpoint: {request.method} {request.url.path} (see /docs)"
        elif exc.status_code == 405 and message == phrase:
            allowed = (getattr(exc, "headers", None) or {}).get("Allow", "")
            message = (f"{request.method} is not allowed on {request.url.path}"
                       + (f"; allowed: {allowed}" if allowed else ""))
        return error_response(exc.status_code, error_type, message,
                              headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        logger.error("%s %s failed", request.method, request.url.path,
                     exc_info=(type(exc), exc, exc.__traceback__))
        return _internal_error()


def _internal_error() -> JSONResponse:
    return error_response(500, "InternalServerError",
                          "internal error while handling the request; see the server log")


# --------------------------------------------------------------------------- size limit


class BodyLimitMiddleware:
    """Pure ASGI middleware: 413 when Content-Length, or the bytes actually received
    (chunked uploads), exceed `max_bytes`. The body is buffered (it is parsed whole
    anyway) and replayed to the app.

    An oversized body that is already on its way is read and dropped (up to
    `drain_bytes`) before the 413 goes out: closing a connection with unread data
    makes the kernel send a reset, and clients that send the whole body before
    reading the answer would see "connection reset" instead of the 413.
    """

    def __init__(self, app: Any, max_bytes: int, drain_bytes: int = 64 * MIB) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.drain_bytes = drain_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = None
        for key, value in scope.get("headers", ()):
            if key == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    length = None
                break
        if length is not None and length > self.max_bytes:
            if length <= self.drain_bytes:
                await self._drain(receive, 0)
            await self._too_large(scope, receive, send,
                                  f"request body is {length} bytes; the limit is "
                                  f"{self._limit()}")
            return
        chunks: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # client went away
                return
            body = message.get("body", b"")
            total += len(body)
            if total > self.max_bytes:
                if message.get("more_body", False):
                    await self._drain(receive, total)
                await self._too_large(scope, receive, send,
                                      f"request body exceeds the limit of {self._limit()}")
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _drain(self, receive: Any, seen: int) -> None:
        while seen <= self.drain_bytes:
            message = await receive()
            if message["type"] != "http.request":
                return
            seen += len(message.get("body", b""))
            if not message.get("more_body", False):
                return

    def _limit(self) -> str:
        return (f"{self.max_bytes} bytes ({self.max_bytes / MIB:g} MiB; "
                "`stablecost serve --max-request-mb N` changes it)")

    async def _too_large(self, scope: dict, receive: Any, send: Any, message: str) -> None:
        response = error_response(413, RequestTooLargeError.__name__, message,
                                  headers={"Connection": "close"})
        await response(scope, receive, send)


# --------------------------------------------------------------------------- work


@lru_cache(maxsize=1)
def _predict_parameters() -> frozenset[str]:
    from .predict import predict

    return frozenset(inspect.signature(predict).parameters)


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
        self.cache: LRUCache = LRUCache(cache_entries)
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
        from .. import hardware
        from ..featurize.analysis import analyze
        from ..featurize.ingest import load_program
        from .predict import predict

        try:
            barrier.wait(timeout=30)
        except threading.BrokenBarrierError:  # pragma: no cover - a slow start only
            pass
        chips = hardware.list_hardware()
        analysis = analyze(load_program(_WARM_PROGRAM, name="<warm-up>"))
        predict(analysis, chips[0])
        _predict_parameters()

    async def run(self, fn: Any, *args: Any) -> Any:
        if self.pool is None:  # used without the lifespan (e.g. a bare ASGI test client)
            self.start()
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    def analysis(self, data: bytes, name: str) -> Any:
        from ..featurize.analysis import analyze
        from ..featurize.ingest import load_program

        return self.cache.get_or_compute(
            content_key(data, name), lambda: analyze(load_program(data, name=name)))

    def predict_json(self, req: PredictRequest) -> bytes:
        """The whole request, on a pool thread: validate the cheap things first, then
        the (cached) analysis, then one prediction per chip, serialized."""
        from . import predict as predict_module

        fidelities = getattr(predict_module, "FIDELITIES", None)
        if fidelities is not None and req.fidelity not in fidelities:
            raise InvalidArgumentError(
                f"unknown fidelity {req.fidelity!r}; allowed: {', '.join(fidelities)}")
        names, as_list = _hardware_names(req.hardware)
        chips = [predict_module.resolve_hardware(n, req.fidelity) for n in names]
        extra: dict[str, Any] = {}
        for key in ("mesh", "topology", "overlap"):
            value = getattr(req, key)
            if value is None:
                continue
            if key not in _predict_parameters():
                raise InvalidArgumentError(
                    f"{key!r} is not supported by this stablecost version's predict(); "
                    "leave it out")
            extra[key] = value
        data = _decode_program(req)
        analysis = self.analysis(data, req.name or DEFAULT_PROGRAM_NAME)
        dicts = [predict_module.predict(analysis, hw, fidelity=req.fidelity, **extra).to_dict()
                 for hw in chips]
        return json.dumps(dicts if as_list else dicts[0]).encode("utf-8")


# --------------------------------------------------------------------------- the app


def create_app(*, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
               cache_entries: int = DEFAULT_CACHE_ENTRIES,
               threads: int | None = None) -> FastAPI:
    """The ASGI app. `max_request_bytes` bounds request bodies (413 above it),
    `cache_entries` the analyzed programs kept, `threads` the worker pool (default
    min(4, CPUs))."""
    from .. import __version__

    if max_request_bytes <= 0:
        raise InvalidArgumentError(f"max_request_bytes must be > 0, got {max_request_bytes}")
    if cache_entries < 0:
        raise InvalidArgumentError(f"cache_entries must be >= 0, got {cache_entries}")
    if threads is not None and threads < 1:
        raise InvalidArgumentError(f"threads must be >= 1, got {threads}")
    service = Service(cache_entries=cache_entries, threads=threads)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await asyncio.get_running_loop().run_in_executor(None, service.start)
        logger.info("stablecost service ready: %d worker thread(s), cache of %d programs, "
                    "request limit %d bytes", service.threads, cache_entries,
                    max_request_bytes)
        try:
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
    _install_error_handlers(app)

    error_responses = {
        code: {"description": text, "content": {"application/json": {"example": {
            "error": {"type": kind, "message": "..."}}}}}
        for code, text, kind in (
            (400, "bad input: unknown hardware, unparsable or unsupported program, "
                  "invalid argument", "UnknownHardwareError"),
            (413, "request body over the size limit", "RequestTooLargeError"),
            (422, "the body does not match the schema", "RequestValidationError"),
            (500, "internal error (details in the server log)", "InternalServerError"),
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
            body = await service.run(service.predict_json, req)
        except StablecostError:
            raise
        except Exception:
            logger.exception("POST /v1/predict failed")
            return _internal_error()
        return Response(body, media_type="application/json")

    @app.get("/v1/hardware", tags=["hardware"])
    async def hardware_list() -> list[dict[str, Any]]:
        """Every chip in the catalog (plus host-cpu when calibrated on the server)."""
        from ..hardware import list_hardware

        return [hw.to_dict() for hw in list_hardware()]

    @app.get("/v1/hardware/{name}", tags=["hardware"],
             responses={404: error_responses[400] | {"description": "unknown chip"}})
    async def hardware_show(name: str) -> dict[str, Any]:
        """One chip's data and sources, by name or alias."""
        from ..hardware import get_hardware

        try:
            return get_hardware(name).to_dict()
        except UnknownHardwareError as exc:
            return error_response(404, type(exc).__name__, str(exc))

    @app.get("/healthz", tags=["service"])
    async def healthz() -> dict[str, Any]:
        """Liveness: version, worker threads, analysis-cache statistics."""
        return {"status": "ok", "version": __version__, "threads": service.threads,
                "max_request_bytes": max_request_bytes, "cache": service.cache.stats()}

    return app
