"""The HTTP service over real HTTP on loopback: a uvicorn server in a thread (and one
`stablecost serve` process), plain urllib / http.client clients.

(Over 400 lines: independent tests of one package area, each with its inputs inline;
they share fixtures, and a reader looks for the tests of that area in one place.)
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from stablecost.errors import ProgramParseError
from stablecost.serve.api.lru import LRUCache, content_key
from stablecost.serve.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "programs"
LIMIT_BYTES = 1024 * 1024  # the test server's request limit
MLP = EXAMPLES / "mlp_train_step.mlir"


@pytest.fixture(scope="module")
def server():
    from stablecost.serve.http import create_app

    with serving(create_app(max_request_bytes=LIMIT_BYTES, threads=2)) as url:
        yield url


@contextlib.contextmanager
def serving(app, **timeouts):
    """The app under uvicorn in a thread, with the service's request timeouts."""
    import uvicorn

    from stablecost.serve.http.timeouts import uvicorn_options

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(256)
    config = uvicorn.Config(app, log_level="warning", access_log=False,
                            **uvicorn_options(**timeouts))
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield "http://127.0.0.1:%d" % sock.getsockname()[1]
    finally:
        srv.should_exit = True
        thread.join(10)
        sock.close()


def request(url: str, method: str = "GET", body=None, headers=None, timeout=60):
    """(status, parsed JSON body) for any status."""
    data = body
    headers = dict(headers or {})
    if body is not None and not isinstance(body, (bytes, bytearray)):
        data = json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.loads(err.read())


def predict(url: str, **body):
    return request(url + "/v1/predict", "POST", body)


def cli_json(capsys, *argv: str):
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def assert_error(status_body, status: int, error_type: str, match: str = ""):
    status_code, body = status_body
    assert status_code == status, body
    assert set(body) == {"error"}
    assert body["error"]["type"] == error_type, body
    if match:
        assert re.search(match, body["error"]["message"]), body["error"]["message"]
    return body["error"]


# ---------------------------------------------------------------------- happy paths


def test_healthz(server):
    status, body = request(server + "/healthz")
    assert status == 200
    assert body["status"] == "ok"
    assert body["max_request_bytes"] == LIMIT_BYTES
    assert set(body["cache"]) == {"entries", "max_entries", "hits", "misses"}
    # parsing happens in worker processes: at least two, so one crash is no outage
    assert body["workers"]["analysis"]["workers"] >= 2
    assert body["workers"]["analysis"]["alive"] == body["workers"]["analysis"]["workers"]
    assert body["workers"]["mesh"]["workers"] == 1


@pytest.mark.parametrize("example", ["mlp_train_step", "transformer_block_train_step"])
def test_predict_equals_cli_json(server, capsys, example):
    path = str(EXAMPLES / f"{example}.mlir")
    expected = cli_json(capsys, "predict", path, "--hardware", "H100-SXM", "--json")
    status, got = predict(server, program=Path(path).read_text(), hardware="H100-SXM",
                          name=path)
    assert status == 200, got
    assert got.keys() == expected.keys()
    assert got["step_time_s"] == expected["step_time_s"]
    assert got == expected


def test_a_measured_step_is_carried_like_the_cli(server, capsys):
    path = str(EXAMPLES / "mlp_train_step.mlir")
    expected = cli_json(capsys, "predict", path, "--hardware", "H200-SXM", "--json",
                        "--measured-on", "H100-SXM=0.00019")
    status, got = predict(server, program=Path(path).read_text(), hardware="H200-SXM",
                          name=path, measured_on={"hardware": "H100-SXM",
                                                  "step_time_s": 190e-6})
    assert status == 200, got
    assert got == expected and "carried from a step measured on H100-SXM" in got["notes"][-1]


def test_several_hardware_is_a_list_like_the_cli(server, capsys):
    expected = cli_json(capsys, "predict", str(MLP), "--hardware", "H100-SXM,TPU-v5p",
                        "--json")
    text = MLP.read_text()
    status, by_list = predict(server, program=text, hardware=["H100-SXM", "TPU-v5p"],
                              name=str(MLP))
    assert status == 200
    assert [p["hardware"] for p in by_list] == ["H100-SXM", "TPU-v5p"]
    assert by_list == expected
    status, by_commas = predict(server, program=text, hardware="H100-SXM, TPU-v5p",
                                name=str(MLP))
    assert status == 200 and by_commas == expected
    status, one = predict(server, program=text, hardware=["tpu-v5p"], name=str(MLP))
    assert status == 200 and one == [expected[1]]  # a list in, a list out; aliases work


def test_bytecode_and_text_via_base64(server):
    from stablecost.featurize.mlir import parse_module

    text = MLP.read_text()
    buf = io.BytesIO()
    parse_module(text).operation.write_bytecode(buf)
    bytecode = buf.getvalue()
    assert bytecode.startswith(b"ML\xefR")
    status, from_text = predict(server, program=text, hardware="H100-SXM", name="mlp")
    assert status == 200
    for payload in (bytecode, text.encode()):
        status, got = predict(server, program_base64=base64.b64encode(payload).decode(),
                              hardware="H100-SXM", name="mlp")
        assert status == 200, got
        assert got["step_time_s"] == pytest.approx(from_text["step_time_s"], rel=1e-12)
        assert len(got["kernels"]) == len(from_text["kernels"])


def test_hardware_list_and_show_equal_the_cli(server, capsys):
    expected = cli_json(capsys, "hardware", "list", "--json")
    status, got = request(server + "/v1/hardware")
    assert status == 200 and got == expected
    assert "H100-SXM" in [hw["name"] for hw in got]
    status, one = request(server + "/v1/hardware/h100")  # alias, any case
    assert status == 200 and one == cli_json(capsys, "hardware", "show", "H100-SXM", "--json")
    assert_error(request(server + "/v1/hardware/no-such-chip"), 404, "UnknownHardwareError",
                 "valid names: .*H100-SXM")


def test_openapi_docs(server):
    status, spec = request(server + "/openapi.json")
    assert status == 200
    assert {"/v1/predict", "/v1/hardware", "/healthz"} <= set(spec["paths"])
    with urllib.request.urlopen(server + "/docs", timeout=30) as resp:
        assert resp.status == 200 and b"swagger" in resp.read().lower()


def test_fifty_concurrent_clients(server, capsys):
    programs = sorted(EXAMPLES.glob("*.mlir"))
    chips = ["H100-SXM", "TPU-v5e", "A100-SXM-80GB", "MI300X", "L4"]
    expected = {}
    for path in programs:
        for chip in chips:
            d = cli_json(capsys, "predict", str(path), "--hardware", chip, "--json")
            expected[path.name, chip] = d["step_time_s"]
    texts = {path.name: path.read_text() for path in programs}
    misses_before = request(server + "/healthz")[1]["cache"]["misses"]
    clients = 50
    start = threading.Barrier(clients)

    def client(i: int):
        name = programs[i % len(programs)].name
        chip = chips[i % len(chips)]
        start.wait(timeout=60)
        status, body = predict(server, program=texts[name], hardware=chip,
                               name=f"concurrent/{name}")
        return name, chip, status, body

    with ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(client, range(clients)))
    assert [r[2] for r in results] == [200] * clients, [r[3] for r in results if r[2] != 200]
    for name, chip, _, body in results:
        assert body["hardware"] == chip
        assert body["step_time_s"] == expected[name, chip]
        assert body["program"] == f"concurrent/{name}"
    # each new program was parsed once, whatever the concurrency (single flight)
    cache = request(server + "/healthz")[1]["cache"]
    assert cache["misses"] - misses_before == len(programs)


def test_the_adversarial_mix_gets_only_the_expected_statuses(server, capsys):
    """`benchmarks/http_load.py --mix adversarial`, briefly: every hostile class and
    the valid programs, each answer's status checked by the benchmark itself."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import http_load

    code = http_load.main(["--url", server, "--mix", "adversarial", "--clients", "2",
                           "--requests", "40", "--duration", "60", "--pool", "2",
                           "--invalid-share", "0.6", "--seed", "3",
                           "--max-request-mb", str(LIMIT_BYTES / 1024 ** 2)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert re.search(r"^\| all \| 40 \| - \| .* \| 0 \|", out, re.M), out
    assert "/healthz afterwards: ok" in out


def test_a_program_with_a_mesh_is_partitioned_in_a_worker_like_in_process(server):
    import stablecost

    path = EXAMPLES / "transformer_annotated_8dev.mlir"
    mesh = {"data": 4, "model": 2}
    status, got = predict(server, program=path.read_text(), hardware="H100-SXM",
                          name="8dev", mesh=mesh)
    assert status == 200, got
    expected = stablecost.predict(stablecost.load_program(path.read_text(), name="8dev",
                                                          mesh=mesh), "H100-SXM")
    assert got == expected.to_dict()


def test_entry_and_shapes_reach_the_worker(server):
    text = ("func.func @a(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
            "  %0 = stablehlo.abs %x : tensor<?x4xf32>\n  return %0 : tensor<?x4xf32>\n}\n"
            "func.func @b(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }\n")
    for rows in (3, 5):   # the service caches by the shapes too
        status, got = predict(server, program=text, hardware="H100-SXM", fidelity="roofline",
                              entry="a", shapes={"arg0": [rows, 4]})
        assert status == 200, got
        assert got["flops"] == rows * 4


# ---------------------------------------------------------------------- errors


def test_malformed_mlir_is_400_with_the_parser_message(server):
    from stablecost.featurize.ingest import load_program

    bad = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, : tensor<4xf32>\n}"
    with pytest.raises(ProgramParseError) as parsed:
        load_program(bad.encode(), name="bad.mlir")
    error = assert_error(predict(server, program=bad, hardware="H100-SXM", name="bad.mlir"),
                         400, "ProgramParseError")
    assert error["message"] == str(parsed.value)
    assert error["message"].startswith("bad.mlir:2:")


@pytest.mark.parametrize("body, error_type, match", [
    ({"program": "module {}", "hardware": "H100-SXM"}, "ProgramParseError",
     "no func.func"),
    ({"program_base64": base64.b64encode(b"\x00\xffjunk").decode(), "hardware": "H100-SXM"},
     "ProgramParseError", "<request>"),
    ({"program": "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> "
                 "{ return %a : tensor<?xf32> }", "hardware": "H100-SXM"},
     "UnsupportedProgramError", r"dynamic shapes: give static shapes for arg0"),
    ({"program": "func.func @a(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }\n"
                 "func.func @b(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }",
      "hardware": "H100-SXM", "entry": "c"}, "InvalidArgumentError",
     r"entry 'c' is no function of the module; its public functions are @a, @b"),
    ({"program_base64": "not base64!", "hardware": "H100-SXM"}, "InvalidArgumentError",
     "program_base64 is not valid base64"),
    ({"program": "module {}", "hardware": "H100-SXM", "fidelity": "oracle"},
     "InvalidArgumentError", "unknown fidelity 'oracle'; allowed: auto, roofline, learned, all"),
    ({"program": "module {}", "hardware": " , "}, "InvalidArgumentError",
     "at least one name"),
    ({"program": "module {}", "hardware": "H200-SXM", "fidelity": "all",
      "measured_on": {"hardware": "H100-SXM", "step_time_s": 1e-3}}, "InvalidArgumentError",
     "measured_on goes with fidelity auto, learned, roofline; got 'all'"),
    ({"program": "module {}", "hardware": "H200-SXM",
      "measured_on": {"hardware": "H900", "step_time_s": 1e-3}}, "UnknownHardwareError",
     "unknown hardware 'H900'"),
    ({"program": "module {}", "hardware": "H100-SXM,warp-drive"}, "UnknownHardwareError",
     r"unknown hardware 'warp-drive'; valid names: .*H100-SXM.*TPU-v5p"),
    ({"program": "\ud800", "hardware": "H100-SXM"}, "InvalidArgumentError",
     "program is not valid Unicode text"),
    ({"program": "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : "
                 "tensor<4xf32> }", "hardware": "H100-SXM", "topology": "torus2d:\u00b2x4"},
     "InvalidArgumentError", "are not integers"),
])
def test_bad_input_is_a_typed_400(server, body, error_type, match):
    assert_error(predict(server, **body), 400, error_type, match)


def test_unknown_hardware_is_checked_before_parsing(server):
    # the program is garbage too, but the hardware name is what the user hears about
    assert_error(predict(server, program="garbage", hardware="H900"), 400,
                 "UnknownHardwareError", "valid names: .*H100-SXM")


@pytest.mark.parametrize("body, match", [
    ({"program": "module {}"}, r"hardware: Field required"),
    ({"hardware": "H100-SXM"}, "exactly one of 'program'"),
    ({"program": "x", "program_base64": "eA==", "hardware": "H100-SXM"}, "exactly one of"),
    ({"program": "x", "hardware": 7}, "hardware: must be a name"),
    ({"program": "x", "hardware": []}, "hardware: must be a name"),
    ({"program": "x", "hardware": "H100-SXM", "mesh": {"data": 0}}, r"mesh\.data: .*greater than 0"),
    ({"program": "x", "hardware": "H100-SXM", "mesh": [4, 2]}, "mesh: "),
    ({"program": "x", "hardware": "H100-SXM", "mesh": {"data": True}}, r"mesh\.data: "),
    ({"program": "x", "hardware": "H100-SXM", "mesh": {"data": 2.0}}, r"mesh\.data: "),
    ({"program": "x", "hardware": "H100-SXM", "mesh": {"data": 1e23}}, r"mesh\.data: "),
    ({"program": "x", "hardware": "H100-SXM", "mesh": {"data": 1 << 21}},
     r"mesh\.data: .*less than or equal to 1048576"),
    ({"program": "x", "hardware": "H100-SXM", "overlap": "maybe"}, "overlap: "),
    ({"program": "x", "hardware": "H100-SXM", "hw": "typo"}, "hw: Extra inputs"),
    ({"program": "x", "hardware": "H100-SXM",
      "measured_on": {"hardware": "H200-SXM", "step_time_s": 0}},
     r"measured_on\.step_time_s: .*greater than 0"),
    ({"program": "x", "hardware": "H100-SXM", "measured_on": {"hardware": "H200-SXM"}},
     r"measured_on\.step_time_s: Field required"),
    ([1, 2], "body: "),
])
def test_schema_errors_are_422(server, body, match):
    error = assert_error(request(server + "/v1/predict", "POST", body),
                         422, "RequestValidationError", match)
    assert error["details"] and all({"loc", "msg", "type"} == set(d) for d in error["details"])


def test_invalid_json_and_missing_content_type_are_422(server):
    assert_error(request(server + "/v1/predict", "POST", b"{not json",
                         {"Content-Type": "application/json"}),
                 422, "RequestValidationError", "JSON")
    assert_error(request(server + "/v1/predict", "POST",
                         json.dumps({"program": "x", "hardware": "H100-SXM"}).encode()),
                 422, "RequestValidationError", "Content-Type: application/json")
    # bytes that are not UTF-8 are not JSON either (FastAPI alone: a bare 400)
    error = assert_error(request(server + "/v1/predict", "POST",
                                 b'{"program": "\xff\xfe", "hardware": "L4"}',
                                 {"Content-Type": "application/json"}),
                         422, "RequestValidationError", r"not UTF-8 \(byte 0xff at 13\)")
    assert error["details"] == [{"loc": [], "msg": error["message"].split("body: ", 1)[1],
                                 "type": "json_invalid"}]


def test_oversized_request_is_413(server):
    port = int(server.rsplit(":", 1)[1])
    # 1. announced by Content-Length: answered before the body is sent
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.putrequest("POST", "/v1/predict")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(10 * 1024 ** 3))
    conn.endheaders()
    resp = conn.getresponse()
    body = json.loads(resp.read())
    conn.close()
    assert resp.status == 413
    assert body["error"]["type"] == "RequestTooLargeError"
    assert f"the limit is {LIMIT_BYTES} bytes" in body["error"]["message"]
    # 2. a client that sends the whole oversized body first still gets the 413
    big = {"program": "x" * (LIMIT_BYTES + 100), "hardware": "H100-SXM"}
    assert_error(predict(server, **big), 413, "RequestTooLargeError", "limit is")
    # 3. chunked, no Content-Length: counted as it arrives
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    chunks = (b" " * 65536 for _ in range(LIMIT_BYTES // 65536 + 2))
    conn.request("POST", "/v1/predict", body=chunks, encode_chunked=True,
                 headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    body = json.loads(resp.read())
    conn.close()
    assert resp.status == 413
    assert body["error"]["type"] == "RequestTooLargeError"
    assert "exceeds the limit" in body["error"]["message"]
    # and a request just under the limit is served
    status, _ = predict(server, program=MLP.read_text(), hardware="H100-SXM")
    assert status == 200


def test_unknown_route_and_method(server):
    assert_error(request(server + "/v2/predict"), 404, "NotFound", "no such endpoint")
    assert_error(request(server + "/v1/predict"), 405, "MethodNotAllowed", "allowed: POST")


def test_a_bug_is_a_generic_500(server, monkeypatch):
    from stablecost.serve.api import predicting as predict_module

    def broken(*args, **kwargs):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(predict_module, "predict", broken)
    error = assert_error(predict(server, program=MLP.read_text(), hardware="H100-SXM"),
                         500, "InternalServerError", "internal error")
    assert "secret" not in error["message"]


def test_options_are_passed_only_when_given(server, monkeypatch):
    from stablecost.serve.api import predicting as predict_module

    seen = []
    real = predict_module.predict

    def spy(program, hardware, fidelity="roofline", cache=None, **kwargs):
        # the mesh went to the worker: the analysis is of one device's program
        seen.append((program.program.mesh, kwargs))
        return real(program, hardware, fidelity=fidelity, cache=cache)

    monkeypatch.setattr(predict_module, "predict", spy)
    text = MLP.read_text()
    assert predict(server, program=text, hardware="H100-SXM")[0] == 200
    assert predict(server, program=text, hardware="H100-SXM", mesh={"data": 4, "model": 2},
                   topology="torus2d", overlap=False)[0] == 200
    assert seen == [((), {}), ((("data", 4), ("model", 2)),
                               {"topology": "torus2d", "overlap": False})]


# ---------------------------------------------------------------------- cache


def test_lru_cache_evicts_and_does_not_cache_failures():
    cache = LRUCache(2)
    assert cache.get_or_compute("a", lambda: 1) == 1
    assert cache.get_or_compute("b", lambda: 2) == 2
    assert cache.get_or_compute("a", lambda: 0) == 1        # hit, a is now recent
    assert cache.get_or_compute("c", lambda: 3) == 3        # evicts b
    assert cache.get_or_compute("b", lambda: 22) == 22
    assert cache.stats() == {"entries": 2, "max_entries": 2, "hits": 1, "misses": 4}
    with pytest.raises(ZeroDivisionError):
        cache.get_or_compute("d", lambda: 1 / 0)
    assert cache.get_or_compute("d", lambda: 4) == 4
    assert content_key(b"x", "n") != content_key(b"x", "m") != content_key(b"y", "m")


def test_lru_cache_computes_once_under_concurrency():
    cache = LRUCache(4)
    calls = []
    gate = threading.Event()

    def slow():
        calls.append(1)
        gate.wait(5)
        return "value"

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(cache.get_or_compute, "k", slow) for _ in range(8)]
        time.sleep(0.1)
        gate.set()
        assert [f.result() for f in futures] == ["value"] * 8
    assert len(calls) == 1


# ---------------------------------------------------------------------- the command


@pytest.mark.parametrize("argv, match", [
    (["--port", "70000"], "--port must be in 0..65535, got 70000"),
    (["--max-request-mb", "0"], "--max-request-mb must be a size in MiB from 1 byte"),
    (["--max-request-mb", "0.0000001"], "--max-request-mb must be a size in MiB from 1 byte"),
    (["--max-request-mb", "nan"], "--max-request-mb must be a size in MiB from 1 byte"),
    (["--workers", "0"], "--workers must be >= 1"),
    (["--analysis-workers", "0"], "--analysis-workers must be >= 1, got 0"),
    (["--analysis-timeout-s", "0"], "--analysis-timeout-s must be seconds in (0, 86400)"),
    (["--header-timeout-s", "nan"], "--header-timeout-s must be seconds in (0, 86400)"),
    (["--host", "no-such-host.invalid"], "--host 'no-such-host.invalid' does not resolve"),
])
def test_serve_bad_arguments_exit_2(capsys, argv, match):
    assert main(["serve", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and match in err


def test_serve_port_not_a_number_and_port_taken(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--port", "eighty"])
    assert exc.value.code == 2
    assert "invalid int value: 'eighty'" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in err


def test_stablecost_serve_process(tmp_path):
    env = dict(os.environ, STABLECOST_CONFIG_DIR=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "stablecost.serve.cli", "serve", "--port", "0",
         "--max-request-mb", "0.5", "--no-access-log", "--log-level", "warning"],
        stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()
        found = re.search(r"serving on (http://127\.0\.0\.1:\d+)", line)
        assert found, line
        url = found.group(1)
        deadline = time.monotonic() + 60
        while True:
            try:
                status, health = request(url + "/healthz", timeout=5)
                break
            # the socket is bound before the warm-up (imports, the first chip's model):
            # a request may wait in its backlog until the app is up
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
        assert status == 200 and health["max_request_bytes"] == 512 * 1024
        status, body = predict(url, program=MLP.read_text(), hardware="TPU-v5e")
        assert status == 200 and body["hardware"] == "TPU-v5e"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
        proc.stderr.close()
    assert code == 0


def test_server_side_damage_is_a_500_and_user_errors_are_400():
    """A broken model bundle or catalog is the server's fault, not the request's."""
    from stablecost.errors import HardwareSpecError, InvalidArgumentError, ModelError
    from stablecost.serve.http.errors import status_of

    assert status_of(ModelError("bundle damaged")) == 500
    assert status_of(HardwareSpecError("catalog damaged")) == 500
    assert status_of(InvalidArgumentError("bad mesh")) == 400
