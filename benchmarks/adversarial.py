"""The adversarial corpus (adversarial_corpus.py) against the CLI and, with --http,
against a local `stablecost serve`: counts by class of what each input came to.

    .venv/bin/python benchmarks/adversarial.py [--flips 40] [--http] [--json]

Outcomes: "typed error" (CLI: exit 2 and one line; HTTP: a 4xx JSON error), "ok",
"death" (CLI: killed by a signal; HTTP: no answer), "traceback" (CLI: any other exit;
HTTP: a 500). With --http the server runs with its defaults; the HTTP-only classes
are a body over the size limit, a chunked stream of zeros, a 100,000-character
program name, and a slowloris (40 connections that send half a request, which must
be closed within the header timeout, 10 s). Afterwards the server must still answer
/healthz and a prediction; its worker counters are printed. Exits 1 on any death or
traceback, or if the server stopped answering.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import socket
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adversarial_corpus import EXAMPLES, Case, corpus, outcome, run_cli  # noqa: E402
from http_load import start_server, stop_server, wait_healthy  # noqa: E402

OUTCOMES = ("typed error", "ok", "death", "traceback")
SLOWLORIS_CONNECTIONS = 40


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flips", type=int, default=40, help="seeded bytecode flips")
    parser.add_argument("--http", action="store_true", help="also against stablecost serve")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cases = corpus(flips=args.flips)
    report = {"cli": tally((c, outcome(run_cli(c, timeout_s=300))) for c in cases)}
    if args.http:
        report["http"] = run_http(cases)
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for target, result in report.items():
            print_table(target, result)
    failed = any(row["death"] or row["traceback"] for result in report.values()
                 for row in result["classes"].values())
    return 1 if failed or not report.get("http", {}).get("still_answers", True) else 0


def tally(results) -> dict:
    classes: dict[str, Counter] = defaultdict(Counter)
    for case, got in results:
        classes[case.kind]["tried"] += 1
        classes[case.kind][got] += 1
    return {"classes": {k: {o: c[o] for o in ("tried", *OUTCOMES)} for k, c in classes.items()}}


def run_http(cases: list[Case]) -> dict:
    server, url = start_server(None, False)
    host, port = "127.0.0.1", int(url.rsplit(":", 1)[1])
    try:
        wait_healthy(url, server)
        results = [(c, post(host, port, {"program_base64": base64.b64encode(c.data).decode(),
                                         "hardware": "H100-SXM", "name": c.name}))
                   for c in cases if c.data is not None]
        results += [
            (Case("oversized-names", "300-character chip name", b""),
             post(host, port, {"program": "x", "hardware": "x" * 300})),
            (Case("oversized-names", "100,000-character program name", b""),
             post(host, port, {"program": "x", "hardware": "H100-SXM", "name": "n" * 100_000})),
            (Case("huge-input", "40 MiB body", b""),
             post(host, port, {"program": " " * (40 << 20), "hardware": "H100-SXM"})),
            (Case("huge-input", "chunked zeros", b""), chunked_zeros(host, port, 64 << 20)),
        ]
        slow = slowloris(host, port)
        results.append((Case("slowloris", f"{SLOWLORIS_CONNECTIONS} half-sent requests", b""),
                        "typed error" if slow["closed"] == SLOWLORIS_CONNECTIONS else "death"))
        mlp = (EXAMPLES / "mlp_train_step.mlir").read_text()
        still = post(host, port, {"program": mlp, "hardware": "TPU-v5e"}) == "ok"
        health = health_of(host, port)
    finally:
        stop_server(server)
    return {**tally(results), "slowloris": slow, "still_answers": still, "health": health}


def post(host: str, port: int, body: dict, timeout_s: float = 300) -> str:
    return _send(host, port, json.dumps(body).encode(), timeout_s)


def chunked_zeros(host: str, port: int, size: int) -> str:
    return _send(host, port, (b"\0" * 65536 for _ in range(size // 65536)), 60,
                 encode_chunked=True)


def _send(host: str, port: int, body: Any, timeout_s: float, **kwargs: Any) -> str:
    """POST `body` to /v1/predict and classify the answer ("death": no answer)."""
    conn = http.client.HTTPConnection(host, port, timeout=timeout_s)
    try:
        conn.request("POST", "/v1/predict", body=body,
                     headers={"Content-Type": "application/json"}, **kwargs)
        resp = conn.getresponse()
        return classify(resp.status, resp.read())
    except (OSError, http.client.HTTPException):
        return "death"
    finally:
        conn.close()


def classify(status: int, payload: bytes) -> str:
    if status == 200:
        return "ok"
    try:
        error = json.loads(payload)["error"]
        one_line = "\n" not in error["message"] and bool(error["type"])
    except (ValueError, KeyError, TypeError):
        one_line = False
    if 400 <= status < 500 and one_line:
        return "typed error"
    return "traceback"


def slowloris(host: str, port: int, wait_s: float = 30.0) -> dict:
    """Open connections that send half a request; how many the server closed, and when."""
    socks = []
    for _ in range(SLOWLORIS_CONNECTIONS):
        s = socket.create_connection((host, port), timeout=wait_s)
        s.sendall(b"POST /v1/predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
        socks.append(s)
    t0 = time.monotonic()
    health_ok = health_of(host, port) is not None   # the server answers meanwhile
    closed_after = []
    for s in socks:
        try:
            while True:
                s.settimeout(max(0.1, t0 + wait_s - time.monotonic()))
                if not s.recv(65536):
                    break
            closed_after.append(time.monotonic() - t0)
        except OSError:
            pass
        finally:
            s.close()
    return {"connections": SLOWLORIS_CONNECTIONS, "closed": len(closed_after),
            "max_open_s": max(closed_after, default=float("nan")),
            "answered_meanwhile": health_ok}


def health_of(host: str, port: int) -> dict | None:
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.request("GET", "/healthz")
        resp = conn.getresponse()
        return json.loads(resp.read()) if resp.status == 200 else None
    except (OSError, http.client.HTTPException, ValueError):
        return None
    finally:
        conn.close()


def print_table(target: str, result: dict) -> None:
    print(f"\n{target}")
    print(f"{'class':<20}{'tried':>7}" + "".join(f"{o:>13}" for o in OUTCOMES))
    for kind, row in sorted(result["classes"].items()):
        print(f"{kind:<20}{row['tried']:>7}" + "".join(f"{row[o]:>13}" for o in OUTCOMES))
    if "slowloris" in result:
        slow = result["slowloris"]
        print(f"slowloris: {slow['closed']}/{slow['connections']} closed by the server, the "
              f"last after {slow['max_open_s']:.1f} s; /healthz answered meanwhile: "
              f"{slow['answered_meanwhile']}")
        print(f"still answers afterwards: {result['still_answers']}")
        workers = (result["health"] or {}).get("workers")
        print(f"workers: {json.dumps(workers)}")


if __name__ == "__main__":
    sys.exit(main())
