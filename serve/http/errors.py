"""Errors as JSON: `{"error": {"type": "<ErrorClass>", "message": "..."}}`, the status
each error class maps to, and the handlers that make FastAPI answer that way."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...errors import (
    HardwareSpecError,
    ModelError,
    RequestTooLargeError,
    StablecostError,
)
from .schema import MAX_HARDWARE_PER_REQUEST

logger = logging.getLogger("stablecost.serve")


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
    if isinstance(exc, (HardwareSpecError, ModelError)):
        return 500  # the server's catalog or model bundle is broken, not the request
    return 400


def _validation_message(errors: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    details: list[dict[str, Any]] = []
    parts: list[str] = []
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


def install_error_handlers(app: FastAPI) -> None:
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
        cause = exc.__cause__
        if exc.status_code == 400 and isinstance(cause, UnicodeDecodeError):
            # FastAPI answers a body that is not UTF-8 with a bare 400 ("There was an
            # error parsing the body"); it is JSON that does not decode, like "{not json"
            msg = (f"not UTF-8 (byte 0x{cause.object[cause.start]:02x} at {cause.start}), "
                   "so not JSON: the body must be a JSON object sent with Content-Type: "
                   "application/json")
            return error_response(422, "RequestValidationError",
                                  f"invalid request: body: {msg}",
                                  [{"loc": [], "msg": msg, "type": "json_invalid"}])
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
        return internal_error()


def internal_error() -> JSONResponse:
    return error_response(500, "InternalServerError",
                          "internal error while handling the request; see the server log")


# --------------------------------------------------------------------------- size limit


