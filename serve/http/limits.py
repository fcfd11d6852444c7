"""Request-body size limit as ASGI middleware: a body over the limit is a 413 before
it is read whole, whether or not it declares its length."""

from __future__ import annotations

from typing import Any

from ...errors import RequestTooLargeError
from .errors import error_response
from .schema import MIB


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


