"""How long a client may take to send a request, under uvicorn.

uvicorn (0.54, the h11 protocol) bounds only the idle time between two requests of a
keep-alive connection (`timeout_keep_alive`, 5 s) and the size of incomplete headers
(`h11_max_incomplete_event_size`, 16 KiB). A connection that sends half a request
line or half its headers, a byte now and then, is kept open for as long as the client
likes (a slowloris); one that announces a body and sends it slowly, too. So the
protocol class here adds two deadlines to uvicorn's: the headers of a request must be
complete within `header_timeout_s` of the connection opening or the previous response
ending, and its body within `body_timeout_s` of the headers. Past either, the server
answers 408 (when it has not started an answer) and closes the connection.

`stablecost serve` passes `uvicorn_options()` to uvicorn; an app run with plain
`uvicorn --factory stablecost.serve.http:create_app` has uvicorn's bounds only.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from typing import Any

logger = logging.getLogger("stablecost.serve")

DEFAULT_HEADER_TIMEOUT_S = 10.0
DEFAULT_BODY_TIMEOUT_S = 60.0       # 32 MiB, the default body limit, at ~0.5 MB/s
KEEP_ALIVE_S = 5                    # uvicorn's default, stated
MAX_HEADER_BYTES = 16 * 1024        # h11's default, stated


_ENV = "STABLECOST_SERVE_TIMEOUTS"   # [header_s, body_s] for uvicorn's worker processes


def uvicorn_options(header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S,
                    body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S, *,
                    by_name: bool = False) -> dict[str, Any]:
    """Keyword arguments for `uvicorn.Config` that bound the time and size of what a
    client sends. `by_name` names the protocol by import path (with the timeouts in
    the environment), for a config uvicorn pickles to its worker processes."""
    if by_name:
        os.environ[_ENV] = json.dumps([header_timeout_s, body_timeout_s])
        http: Any = f"{__name__}:protocol_from_env"
    else:
        http = timed_protocol(header_timeout_s, body_timeout_s)
    return {"http": http, "timeout_keep_alive": KEEP_ALIVE_S,
            "h11_max_incomplete_event_size": MAX_HEADER_BYTES}


def protocol_from_env(**kwargs: Any) -> Any:
    """A protocol instance with the timeouts `uvicorn_options(by_name=True)` set (uvicorn
    calls the "class" it is given with keyword arguments only)."""
    header_timeout_s, body_timeout_s = json.loads(
        os.environ.get(_ENV, json.dumps([DEFAULT_HEADER_TIMEOUT_S, DEFAULT_BODY_TIMEOUT_S])))
    return timed_protocol(float(header_timeout_s), float(body_timeout_s))(**kwargs)


def _timeout_response(what: str, limit_s: float) -> bytes:
    body = json.dumps({"error": {"type": "RequestTimeout", "message":
                                 f"the request's {what} did not arrive within "
                                 f"{limit_s:g} s"}}).encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(body)) + body


@functools.lru_cache(maxsize=8)
def timed_protocol(header_timeout_s: float, body_timeout_s: float) -> type:
    """uvicorn's h11 protocol with deadlines on the headers and the body."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedH11Protocol(H11Protocol):
        """H11Protocol with a deadline for what the client owes next (see above)."""

        def connection_made(self, transport: Any) -> None:
            self._phase: str | None = None
            self._deadline: Any = None
            super().connection_made(transport)
            self._watch()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel()
            super().connection_lost(exc)

        def _watch(self) -> None:
            """Arm the deadline of the phase the client is in, once per phase."""
            state = self.conn.their_state
            phase = ("headers" if state is h11.IDLE else
                     "body" if state is h11.SEND_BODY else None)
            if phase == self._phase:
                return
            self._cancel()
            self._phase = phase
            if phase is not None and not self.transport.is_closing():
                limit_s = header_timeout_s if phase == "headers" else body_timeout_s
                self._deadline = self.loop.call_later(limit_s, self._expired, phase, limit_s)

        def _cancel(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expired(self, phase: str, limit_s: float) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            answered = self.cycle is not None and self.cycle.response_started \
                and not self.cycle.response_complete
            if not answered:
                self.transport.write(_timeout_response(phase, limit_s))
            logger.info("closed the connection of %s: its request's %s did not arrive "
                        "within %g s", self.client, phase, limit_s)
            self.transport.close()

    return TimedH11Protocol
