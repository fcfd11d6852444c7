"""`stablecost serve`: the HTTP service (serve/http.py) under uvicorn.

    stablecost serve [--host 127.0.0.1] [--port 8000] [--max-request-mb 32]
                     [--workers 1] [--threads N] [--cache-entries 32]
                     [--analysis-workers N] [--mesh-workers 1] [--analysis-timeout-s 60]
                     [--header-timeout-s 10] [--body-timeout-s 60]
                     [--log-level info] [--no-access-log]
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import Any

from ...errors import InvalidArgumentError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_REQUEST_MB = 32.0
_ENV = "STABLECOST_SERVE_OPTIONS"  # create_app kwargs for worker processes (--workers > 1)


def add_parsers(sub: Any, parser_class: type) -> None:
    serve = sub.add_parser("serve", help="run the HTTP service (POST /v1/predict, docs at /docs)")
    serve.add_argument("--host", default=DEFAULT_HOST,
                       help=f"interface to listen on (default {DEFAULT_HOST}; 0.0.0.0 for all)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT,
                       help=f"TCP port (default {DEFAULT_PORT}; 0 picks a free one)")
    serve.add_argument("--max-request-mb", type=float, default=DEFAULT_MAX_REQUEST_MB,
                       help=f"largest request body in MiB (default {DEFAULT_MAX_REQUEST_MB:g}); "
                            "larger ones get 413")
    serve.add_argument("--workers", type=int, default=1,
                       help="server processes (default 1); each keeps its own cache")
    serve.add_argument("--threads", type=int, default=None,
                       help="prediction threads per process (default min(4, CPUs))")
    serve.add_argument("--cache-entries", type=int, default=32,
                       help="analyzed programs kept per process (default 32; 0 = no cache)")
    serve.add_argument("--analysis-workers", type=int, default=None,
                       help="processes that parse and analyze new programs, per server "
                            "process (default 2 to 4 by CPUs; a crash costs one)")
    serve.add_argument("--mesh-workers", type=int, default=1,
                       help="processes for programs with a mesh (default 1)")
    serve.add_argument("--analysis-timeout-s", type=float, default=60.0,
                       help="seconds one program's analysis may take; past it the "
                            "worker is killed and the request is a 400 (default 60)")
    serve.add_argument("--header-timeout-s", type=float, default=10.0,
                       help="seconds a client may take to send a request's headers "
                            "(default 10; then 408 and the connection is closed)")
    serve.add_argument("--body-timeout-s", type=float, default=60.0,
                       help="seconds a client may take to send a request's body "
                            "(default 60)")
    serve.add_argument("--log-level", default="info",
                       choices=("critical", "error", "warning", "info", "debug"))
    serve.add_argument("--no-access-log", action="store_true",
                       help="do not log every request")


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise InvalidArgumentError(f"--port must be in 0..65535, got {args.port}")
    # also refuses nan and inf, and sizes below one byte
    if not 1 <= args.max_request_mb * 1024 * 1024 < 1024 ** 4:
        raise InvalidArgumentError(
            f"--max-request-mb must be a size in MiB from 1 byte (1e-6) to 1 TiB, got "
            f"{args.max_request_mb:g}")
    if args.workers < 1:
        raise InvalidArgumentError(f"--workers must be >= 1, got {args.workers}")
    if args.threads is not None and args.threads < 1:
        raise InvalidArgumentError(f"--threads must be >= 1, got {args.threads}")
    if args.cache_entries < 0:
        raise InvalidArgumentError(f"--cache-entries must be >= 0, got {args.cache_entries}")
    for flag in ("analysis_workers", "mesh_workers"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise InvalidArgumentError(f"--{flag.replace('_', '-')} must be >= 1, got {value}")
    for flag in ("analysis_timeout_s", "header_timeout_s", "body_timeout_s"):
        value = getattr(args, flag)
        if not 0 < value < 86400:
            raise InvalidArgumentError(
                f"--{flag.replace('_', '-')} must be seconds in (0, 86400), got {value:g}")
    options = {"max_request_bytes": int(args.max_request_mb * 1024 * 1024),
               "cache_entries": args.cache_entries, "threads": args.threads,
               "workers": args.analysis_workers, "mesh_workers": args.mesh_workers,
               "analysis_timeout_s": args.analysis_timeout_s}

    import uvicorn

    sock = _bind(args.host, args.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(f"stablecost: serving on http://{shown}:{port} "
                     f"(docs at http://{shown}:{port}/docs; Ctrl-C stops)\n")
    from ..http.timeouts import uvicorn_options

    common = dict(log_level=args.log_level, access_log=not args.no_access_log,
                  timeout_graceful_shutdown=5,
                  **uvicorn_options(args.header_timeout_s, args.body_timeout_s))
    if args.workers == 1:
        from ..http import create_app

        config = uvicorn.Config(create_app(**options), **common)
        try:
            uvicorn.Server(config).run(sockets=[sock])
        except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after a clean shutdown
            pass
        return 0
    # Several processes share the listening socket; each builds its app from the env.
    import json

    from uvicorn.supervisors import Multiprocess

    os.environ[_ENV] = json.dumps(options)
    common.update(uvicorn_options(args.header_timeout_s, args.body_timeout_s, by_name=True))
    config = uvicorn.Config("stablecost.serve.cli.serve:app_from_env", factory=True,
                            workers=args.workers, **common)
    try:
        Multiprocess(config, sockets=[sock]).run()
    except KeyboardInterrupt:
        pass
    return 0


def app_from_env():
    """uvicorn factory for worker processes: create_app with the options `run` set."""
    import json

    from ..http import create_app

    return create_app(**json.loads(os.environ.get(_ENV, "{}")))


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so a taken port or a bad host is a one-line
    user error instead of a uvicorn traceback."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise InvalidArgumentError(f"--host {host!r} does not resolve: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise InvalidArgumentError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock
