"""The HTTP service against programs and clients that would take a single process
down or hold it: a worker that dies fails only its request, a program past the time
budget is stopped, programs with a mesh have workers of their own, a slow client is
cut off, a full queue is a 503; the service answers throughout."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_http import MLP, assert_error, predict, request, serving

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from adversarial_corpus import call_chain  # noqa: E402

# 2^18 inlined calls: 262,143 ops, under the 1,000,000-op budget (a deeper chain is
# refused before the walk), so the walk and the analysis run for several seconds
SLOW = call_chain(18, 2)
TIMEOUT_S = 3


@pytest.fixture(scope="module")
def hostile():
    from stablecost.serve.http import create_app

    app = create_app(max_request_bytes=1 << 20, threads=2, workers=2,
                     analysis_timeout_s=TIMEOUT_S)
    with serving(app, header_timeout_s=1, body_timeout_s=1) as url:
        yield url, app.state.service


def _wait(condition, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def _health(url: str) -> dict:
    status, body = request(url + "/healthz")
    assert status == 200
    return body["workers"]


def test_a_worker_that_dies_fails_only_its_request(hostile):
    url, service = hostile
    before = _health(url)["analysis"]
    with ThreadPoolExecutor(2) as pool:
        slow = pool.submit(predict, url, program=SLOW, hardware="H100-SXM", name="dies")
        _wait(lambda: service.workers.busy_pids())
        [pid] = service.workers.busy_pids()
        # meanwhile the other worker serves a new program
        status, body = predict(url, program=MLP.read_text(), hardware="H100-SXM",
                               name="while-one-dies")
        assert status == 200, body
        os.kill(pid, signal.SIGSEGV)   # what a crash in the MLIR bindings looks like
        error = assert_error(slow.result(60), 400, "ProgramParseError",
                             r"^dies: the worker analyzing this program died \(SIGSEGV\)")
    assert "\n" not in error["message"]
    _wait(lambda: _health(url)["analysis"]["alive"] == 2)
    after = _health(url)["analysis"]
    assert after["crashed"] == before["crashed"] + 1
    status, _ = predict(url, program=MLP.read_text(), hardware="TPU-v5e", name="after-crash")
    assert status == 200


def test_a_program_past_the_time_budget_is_stopped(hostile):
    url, service = hostile
    before = _health(url)["analysis"]
    started = time.monotonic()
    assert_error(predict(url, program=SLOW, hardware="H100-SXM", name="slow"), 400,
                 "UnsupportedProgramError",
                 rf"^slow: analyzing the program took over {TIMEOUT_S} s, the service's "
                 r"budget per program \(stablecost serve --analysis-timeout-s\)")
    assert time.monotonic() - started < TIMEOUT_S + 5
    assert _health(url)["analysis"]["timed_out"] == before["timed_out"] + 1
    _wait(lambda: _health(url)["analysis"]["alive"] == 2)


def test_light_requests_do_not_queue_behind_programs_with_a_mesh(hostile):
    url, service = hostile
    with ThreadPoolExecutor(1) as pool:
        meshed = pool.submit(predict, url, program=SLOW, hardware="H100-SXM",
                             name="meshed", mesh={"data": 2})
        _wait(lambda: service.mesh_workers.busy_pids())
        for i in range(3):   # new programs: each needs an analysis worker
            started = time.monotonic()
            status, _ = predict(url, program=MLP.read_text(), hardware="H100-SXM",
                                name=f"light-{i}")
            assert status == 200 and time.monotonic() - started < TIMEOUT_S
        assert not meshed.done()
        assert_error(meshed.result(60), 400, "UnsupportedProgramError", "took over")


def _read_all(sock: socket.socket, timeout_s: float) -> bytes:
    sock.settimeout(timeout_s)
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def test_slow_clients_are_cut_off_and_the_service_answers_meanwhile(hostile):
    url, _ = hostile
    port = int(url.rsplit(":", 1)[1])
    socks = []
    for _ in range(40):   # a slowloris: half a request each, never finished
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /v1/predict HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    body = socket.create_connection(("127.0.0.1", port))   # the body never finishes
    body.sendall(b"POST /v1/predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 100\r\n\r\n{\"program\"")
    started = time.monotonic()
    assert request(url + "/healthz")[0] == 200
    answers = [_read_all(s, 10) for s in [*socks, body]]
    assert time.monotonic() - started < 5   # 1 s deadlines, not uvicorn's forever
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b'"type": "RequestTimeout"' in answer
    assert b"headers did not arrive within 1 s" in answers[0]
    assert b"body did not arrive within 1 s" in answers[-1]
    for s in [*socks, body]:
        s.close()
    assert predict(url, program=MLP.read_text(), hardware="H100-SXM")[0] == 200


def test_a_full_queue_is_busy_not_a_wait_without_end():
    from stablecost.serve.http.pool import PoolBusy, WorkerPool
    from stablecost.serve.http.schema import WARM_PROGRAM
    from stablecost.serve.http.worker import WorkerDied, WorkerSettings

    async def scenario():
        pool = WorkerPool("test", 1, timeout_s=30, wait_s=0.5, max_waiting=1,
                          settings=WorkerSettings(None, WARM_PROGRAM))
        await pool.start(wait=True)
        try:
            holder = asyncio.ensure_future(pool.run((SLOW.encode(), "slow", None, {})))
            while not pool.busy_pids():
                await asyncio.sleep(0.05)
            waiter = asyncio.ensure_future(pool.run((b"", "w", None, {})))
            await asyncio.sleep(0.1)
            with pytest.raises(PoolBusy, match="1 requests already wait"):
                await pool.run((b"", "x", None, {}))
            with pytest.raises(PoolBusy, match="no test worker became free within 0.5 s"):
                await waiter
            assert pool.stats()["busy"] == 1
        finally:
            pool.stop()
        with pytest.raises(WorkerDied):
            await holder

    asyncio.run(scenario())
