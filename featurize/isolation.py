"""MLIR bytecode from outside is read in a child process.

jaxlib's bytecode reader trusts its input. Of 2,000 random 3-byte corruptions of five
example modules that the structural check of `featurize/bytecode.py` let through, 2
crashed it with SIGSEGV (one byte in an attribute's custom encoding, one in the IR
section, which that check does not decode); of 3,000 more, 3 ran without end, one
of them growing by 9 GB in 26 s. (Before that check, 7 of 400 aborted it on strings that
are not UTF-8.) A crash inside the bindings takes the whole process with it, so the
bytes go to a child process that checks them, parses them and prints the module as
MLIR text with its locations; this process parses that text, through the checks
(`featurize/limits.py`) and the parser every text program goes through. A child that
dies, overruns its memory (`RLIMIT_AS`: 2 GiB plus 24 bytes per input byte) or its time
(STABLECOST_MAX_PARSE_SECONDS) is a one-line ProgramParseError, and the next bytecode
program gets a new child.

Cost: the child starts once per process, on the first bytecode program, and then
serves the next ones (about 0.5 s to start on the build machine: an interpreter and
jaxlib; then a few ms per program, the parse and the print). It is replaced after
`_PROGRAMS_PER_CHILD` programs (its MLIR context keeps every attribute it ever saw)
and exits with this process. Bytecode is the rare input form: text, JAX functions and
`Lowered` objects do not come here, nor the module a partitioned program keeps (bytecode
this process wrote itself). A process that is itself a disposable worker (the HTTP
service's) sets STABLECOST_BYTECODE_IN_CHILD=0 and parses in place.
"""

from __future__ import annotations

import json
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from typing import Any

from ..errors import ProgramParseError, StablecostError
from .limits import budget

_CHILD = ("import sys, json; sys.path[:0] = json.loads(sys.argv[1]); "
          "from stablecost.featurize.isolation import child_main; child_main()")
_MEMORY_BASE_BYTES = 2 * 1024 ** 3   # jaxlib mapped and a context: ~0.6 GB of address space
_MEMORY_PER_INPUT_BYTE = 24          # the module, its text, and copies of both
_PROGRAMS_PER_CHILD = 100
_HEADER = struct.Struct("<BQ")       # status (0 text, 2 error) or 0, then a length

_lock = threading.Lock()
_child: dict[str, Any] = {}          # "proc", "pid" (the process that started it), "served"


def in_child() -> bool:
    """Whether bytecode is parsed in a child process (STABLECOST_BYTECODE_IN_CHILD, 1
    by default; 0 parses in this process)."""
    return os.environ.get("STABLECOST_BYTECODE_IN_CHILD", "1").strip() != "0"


def bytecode_as_text(data: bytes, label: str) -> str:
    """The module held by untrusted bytecode, as MLIR text parsed and printed by the
    child process (see the module docstring)."""
    limit_s = budget("STABLECOST_MAX_PARSE_SECONDS")
    memory_bytes = _MEMORY_BASE_BYTES + _MEMORY_PER_INPUT_BYTE * len(data)
    with _lock:
        proc = _running_child()
        label_bytes = label.encode("utf-8", "replace")
        try:
            proc.stdin.write(_HEADER.pack(0, memory_bytes) + _HEADER.pack(0, len(label_bytes))
                             + label_bytes + _HEADER.pack(0, len(data)) + data)
            proc.stdin.flush()
            status, payload = _reply(proc, time.monotonic() + limit_s)
        except TimeoutError:
            _stop_child()
            raise ProgramParseError(
                f"{label}: reading the MLIR bytecode took over {limit_s} s (budget "
                "STABLECOST_MAX_PARSE_SECONDS); is it corrupt?") from None
        except (OSError, EOFError):
            how = _stop_child()
            raise ProgramParseError(
                f"{label}: corrupt MLIR bytecode: the MLIR reader crashed on it ({how}) or "
                f"ran out of its {memory_bytes / 1024 ** 3:.1f} GiB of memory") from None
        _child["served"] += 1
        if _child["served"] >= _PROGRAMS_PER_CHILD:
            _stop_child()
    if status == 2:
        raise _typed(payload, label)
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        raise ProgramParseError(f"{label}: corrupt MLIR bytecode: its text form is "
                                "not UTF-8") from None


def _running_child() -> Any:
    """The child of this process (a new one if there is none, it ended, or it belongs
    to the process this one was forked from)."""
    proc = _child.get("proc")
    if proc is not None and (_child["pid"] != os.getpid() or proc.poll() is not None):
        if _child["pid"] == os.getpid():
            _stop_child()
        proc = None
    if proc is None:
        argv = [sys.executable, "-c", _CHILD, json.dumps(sys.path)]
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise ProgramParseError(f"cannot start the process that reads MLIR bytecode: "
                                    f"{exc.strerror or exc}") from None
        _child.update(proc=proc, pid=os.getpid(), served=0)
    return proc


def _reply(proc: Any, deadline: float) -> tuple[int, bytes]:
    status, length = _HEADER.unpack(_read(proc, _HEADER.size, deadline))
    return status, _read(proc, length, deadline)


def _read(proc: Any, size: int, deadline: float) -> bytes:
    fd = proc.stdout.fileno()
    chunks: list[bytes] = []
    while size:
        left_s = deadline - time.monotonic()
        if left_s <= 0 or not select.select([fd], [], [], left_s)[0]:
            raise TimeoutError
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _stop_child() -> str:
    """End the child; how it ended ("SIGSEGV", "exit code 1", ...)."""
    proc = _child.pop("proc", None)
    if proc is None:
        return "not running"
    if proc.poll() is None:
        proc.kill()
    code = proc.wait()
    for stream in (proc.stdin, proc.stdout):
        try:
            stream.close()
        except OSError:
            pass
    return exit_description(code)


def exit_description(exit_code: int) -> str:
    """How a child process ended: `-11` -> "SIGSEGV", `1` -> "exit code 1"."""
    if exit_code >= 0:
        return f"exit code {exit_code}"
    try:
        return signal.Signals(-exit_code).name
    except ValueError:
        return f"signal {-exit_code}"


def _typed(payload: bytes, label: str) -> StablecostError:
    """The child's one-line error (`ClassName<TAB>message`) as that class."""
    from .. import errors

    kind, _, message = payload.decode("utf-8", "replace").strip().partition("\t")
    cls = getattr(errors, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, StablecostError)) or not message:
        return ProgramParseError(f"{label}: corrupt MLIR bytecode: the reader failed")
    return cls(message.splitlines()[0])


def parse_bytecode(data: bytes, label: str) -> Any:
    """Bytecode -> a module in this process (the child's parse, or that of a process
    that is itself disposable); a StableHLO portable artifact is deserialized from VHLO
    (`featurize/portable.py`). The reader's own failures on corrupt input, such as
    "SmallVector unable to grow" on a count of billions, are a one-line error too."""
    from .mlir import parse_module
    from .portable import deserialize_artifact, vhlo_version

    if vhlo_version(data) is not None:   # a portable artifact: VHLO, not StableHLO
        return deserialize_artifact(data, label)
    try:
        return parse_module(data, label)
    except (ValueError, RuntimeError, OverflowError) as exc:
        message = (str(exc).strip().splitlines() or [""])[0][:200]
        raise ProgramParseError(f"{label}: corrupt MLIR bytecode: {type(exc).__name__}: "
                                f"{message}") from None


def child_main() -> None:  # pragma: no cover - runs in the child
    """The child's loop: (memory limit, label, bytecode) in, (0, MLIR text) or (2,
    `ClassName<TAB>message`) out, until stdin closes."""
    import resource

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    while True:
        head = inp.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return
        memory_bytes = _HEADER.unpack(head)[1]
        label = inp.read(_HEADER.unpack(inp.read(_HEADER.size))[1]).decode("utf-8")
        data = inp.read(_HEADER.unpack(inp.read(_HEADER.size))[1])
        if hard == resource.RLIM_INFINITY or memory_bytes < hard:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, hard))
        try:
            status, payload = 0, _print_module(data, label)
        except StablecostError as exc:
            status, payload = 2, f"{type(exc).__name__}\t{exc}".encode("utf-8", "replace")
        except MemoryError:
            status, payload = 2, (f"ProgramParseError\t{label}: corrupt MLIR bytecode: "
                                  "reading it needs more memory than its size can "
                                  "explain").encode()
        out.write(_HEADER.pack(status, len(payload)) + payload)
        out.flush()


def _print_module(data: bytes, label: str) -> bytes:
    module = parse_bytecode(data, label)
    try:
        return module.operation.get_asm(binary=True, enable_debug_info=True,
                                        large_elements_limit=None)
    except Exception as exc:   # the printer's own failures (e.g. a name not UTF-8)
        raise ProgramParseError(f"{label}: corrupt MLIR bytecode: it parsed but cannot be "
                                f"printed ({type(exc).__name__})") from None
