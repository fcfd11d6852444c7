"""One analysis worker process: the program a request sent, parsed and analyzed where a
crash of jaxlib's MLIR bindings (or a runaway allocation, or a loop without end) takes
down only this process. `Worker` is the service's handle on it; `worker_main` runs in
it.

Protocol on a `multiprocessing` pipe, one request at a time:

    parent -> worker   (program bytes, name, mesh or None, load_program's entry/shapes/dims)
    worker -> parent   ("ready",) once warmed up, then per request
                       ("ok", Analysis) | ("error", "<StablecostError class>", message)
                       | ("bug", one line)

The Analysis is pickled by the pipe: our own objects, made by our code, between two
processes of this service (no user file is unpickled). Op locations are rendered to
text first: they point into the worker's MLIR context otherwise.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any

from ...errors import ProgramParseError, StablecostError


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker process is started with."""

    memory_bytes: int | None    # RLIMIT_AS of the worker; None: unlimited
    warm_program: str           # analyzed once at start (imports, MLIR context)


class WorkerDied(Exception):
    """The worker process ended while it held a request (a native crash, the memory
    limit, a kill)."""

    def __init__(self, how: str) -> None:
        super().__init__(how)
        self.how = how


class WorkerTimedOut(Exception):
    """The request ran past its time budget; the worker was killed."""


class Worker:
    """The parent's handle on one worker process."""

    def __init__(self, context: Any, settings: WorkerSettings, name: str) -> None:
        self._lock = threading.Lock()
        self.conn, child = context.Pipe()
        self.process = context.Process(target=worker_main, args=(child, settings),
                                       name=name, daemon=True)
        self.process.start()
        child.close()

    def wait_ready(self, timeout_s: float) -> bool:
        """Whether the worker came up (warm-up done) within `timeout_s`."""
        try:
            return self.conn.poll(timeout_s) and self.conn.recv() == ("ready",)
        except (EOFError, OSError):
            return False

    def alive(self) -> bool:
        return self.process.is_alive()

    def call(self, request: tuple, timeout_s: float) -> tuple:
        """Send one request, wait at most `timeout_s` for its reply. Raises WorkerDied
        or WorkerTimedOut (the worker is killed then); either way the worker is done."""
        try:
            self.conn.send(request)
            if not self.conn.poll(timeout_s):
                self.kill()
                raise WorkerTimedOut()
            return self.conn.recv()
        except (EOFError, OSError):
            pass
        self.process.join(2)
        code = self.process.exitcode
        if code is None:
            self.kill()
            raise WorkerDied("its pipe broke")
        raise WorkerDied(_how(code))

    def kill(self) -> None:
        """Stop the process and close the pipe (any thread, any number of times)."""
        with self._lock:
            if self.process.is_alive():
                self.process.kill()
            self.process.join(5)
            try:
                self.conn.close()
            except OSError:   # closed already
                pass


def _how(exit_code: int) -> str:
    from ...featurize.isolation import exit_description

    return exit_description(exit_code)


def worker_main(conn: Any, settings: WorkerSettings) -> None:  # pragma: no cover - child
    """The worker's loop (runs in the child process)."""
    # Ctrl-C reaches the whole process group: the parent stops the workers itself
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # this process is the isolation: bytecode needs no child of its own here
    os.environ["STABLECOST_BYTECODE_IN_CHILD"] = "0"
    if settings.memory_bytes:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (settings.memory_bytes, settings.memory_bytes))
    from ...featurize.analysis import analyze
    from ...featurize.ingest import load_program

    analyze(load_program(settings.warm_program, name="<warm-up>"))
    conn.send(("ready",))
    while True:
        try:
            data, name, mesh, options = conn.recv()
        except (EOFError, OSError):   # the service is gone
            return
        conn.send(_analyze(analyze, load_program, data, name, mesh, options))


def _analyze(analyze: Any, load_program: Any, data: bytes, name: str,
             mesh: Any, options: dict) -> tuple:  # pragma: no cover - child
    started = time.perf_counter()
    try:
        analysis = analyze(load_program(data, name=name, mesh=mesh, **options))
        for op in analysis.program.ops:
            op.location   # noqa: B018  (renders the MLIR location to text)
        return ("ok", analysis)
    except StablecostError as exc:
        return ("error", type(exc).__name__, str(exc))
    except MemoryError:
        return ("error", ProgramParseError.__name__,
                f"{name}: analyzing the program needs more memory than the service allows "
                "a worker")
    except RecursionError:
        return ("error", "UnsupportedProgramError",
                f"{name}: the program nests too deeply to analyze")
    except Exception as exc:   # a bug: the traceback goes to the server's stderr
        traceback.print_exc(file=sys.stderr)
        return ("bug", f"{type(exc).__name__} after {time.perf_counter() - started:.1f} s")
