"""Bounded load test of the HTTP service on loopback.

    .venv/bin/python benchmarks/http_load.py [--clients 50] [--duration 10] [--requests N]
        [--program examples/programs/transformer_block_train_step.mlir]
        [--hardware H100-SXM,TPU-v5e,...] [--threads N] [--no-cache] [--url URL] [--json]
    .venv/bin/python benchmarks/http_load.py --mix adversarial --invalid-share 0.45 ...

Starts `stablecost serve` on a free loopback port (unless --url points at a running
server), sends one warm-up request (parses the program once: the cold latency), then
runs `--clients` concurrent clients, each with its own keep-alive connection, for
`--duration` seconds or `--requests` requests in all, whichever comes first. Every
request predicts the same program on the next chip of `--hardware` (the tuner pattern:
a cached program re-predicted on different systems; `--no-cache` starts the server
with the analysis cache off, so every request parses). Prints requests, errors,
throughput and latency percentiles; exits 1 if any request failed.

The clients run in this process and share the machine with the server: on a 2-core
machine they take a good part of it. Run on an idle machine and read the numbers as a
lower bound on what the server alone could do.

`--mix adversarial` sends valid predictions of every example program mixed with the
hostile classes of `adversarial_corpus.py` and checks each answer's status against
its class's expected set (see `http_mix.py`); it prints a table per class and exits 1
on any unexpected status, any request without an answer, or /healthz failing after.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PROGRAM = ROOT / "examples" / "programs" / "transformer_block_train_step.mlir"
DEFAULT_HARDWARE = "H100-SXM,H200-SXM,A100-SXM-80GB,B200,MI300X,TPU-v5e,TPU-v5p,L4"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=10.0,
                        help="seconds of load (default 10)")
    parser.add_argument("--requests", type=int, default=None,
                        help="stop after this many requests in all (default: duration only)")
    parser.add_argument("--program", type=Path, default=DEFAULT_PROGRAM)
    parser.add_argument("--hardware", default=DEFAULT_HARDWARE,
                        help="chips the requests cycle through (comma-separated)")
    parser.add_argument("--threads", type=int, default=None,
                        help="server prediction threads (default: the server's)")
    parser.add_argument("--no-cache", action="store_true",
                        help="server without the analysis cache: every request parses")
    parser.add_argument("--url", default=None,
                        help="load an already running server instead of starting one")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--mix", choices=("adversarial",), default=None,
                        help="valid and hostile requests mixed (see http_mix.py)")
    parser.add_argument("--invalid-share", type=float, default=0.45,
                        help="--mix: the share of invalid requests (default 0.45)")
    parser.add_argument("--seed", type=int, default=0, help="--mix: the seed")
    parser.add_argument("--pool", type=int, default=16,
                        help="--mix: bodies per worker class, each with its own name")
    parser.add_argument("--classes", default=None,
                        help="--mix: the invalid classes (comma-separated; default all "
                             "but the slow ones)")
    parser.add_argument("--unique-names", action="store_true",
                        help="--mix: every hostile program new content (a worker call "
                             "each; default: repeats of a fixed pool, some coalesce)")
    parser.add_argument("--max-request-mb", type=float, default=2.0,
                        help="--mix: the server's body limit (passed to the server it "
                             "starts; the oversized bodies are just over it)")
    args = parser.parse_args(argv)
    if args.clients < 1 or args.duration <= 0 or (args.requests is not None
                                                   and args.requests < 1):
        parser.error("--clients, --duration and --requests must be positive")

    if args.mix:
        if not 0 <= args.invalid_share <= 1 or args.pool < 1:
            parser.error("--invalid-share must be in [0, 1] and --pool positive")
        return run_mix_mode(args, parser)

    chips = [c.strip() for c in args.hardware.split(",") if c.strip()]
    text = args.program.read_text()
    bodies = [json.dumps({"program": text, "hardware": chip,
                          "name": args.program.name}).encode() for chip in chips]

    server = None
    url = args.url
    if url is None:
        server, url = start_server(args.threads, args.no_cache)
    try:
        target = urlsplit(url)
        host, port = target.hostname or "127.0.0.1", target.port or 80
        wait_healthy(url, server)
        t0 = time.perf_counter()
        status, _ = post(host, port, bodies[0])
        cold_s = time.perf_counter() - t0
        if status != 200:
            sys.stderr.write(f"warm-up request failed with HTTP {status}\n")
            return 1
        result = run_load(host, port, bodies, args.clients, args.duration, args.requests)
    finally:
        if server is not None:
            stop_server(server)
    result.update(program=args.program.name, hardware=chips, clients=args.clients,
                  cache=not args.no_cache, first_request_s=cold_s, url=url)
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_table(result)
    return 1 if result["errors"] else 0


def run_mix_mode(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import http_mix

    classes = (list(http_mix.DEFAULT_CLASSES) if args.classes is None else
               [c.strip() for c in args.classes.split(",") if c.strip()])
    known = (*http_mix.DEFAULT_CLASSES, *http_mix.OPT_IN_CLASSES)
    if any(c not in known for c in classes):
        parser.error(f"--classes: one of {', '.join(known)}")
    max_bytes = int(args.max_request_mb * 1024 * 1024)
    pools = http_mix.build_pools(classes, args.pool, args.seed, max_bytes)
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    server = None
    url = args.url
    if url is None:
        extra = ("--max-request-mb", f"{args.max_request_mb:g}")
        server, url = start_server(args.threads, args.no_cache, extra)
    try:
        target = urlsplit(url)
        host, port = target.hostname or "127.0.0.1", target.port or 80
        wait_healthy(url, server)
        seen = set()
        for req in pools[http_mix.VALID]:   # each example analyzed once, off the clock
            program = req.label.split(" on ")[0]
            if program not in seen:
                seen.add(program)
                status, payload = post(host, port, req.body)
                if status != 200:
                    sys.stderr.write(f"warm-up {req.label}: HTTP {status}: "
                                     f"{payload[:300]!r}\n")
                    return 1
        before = health(url)
        result = http_mix.run_mix(host, port, pools, args.invalid_share, args.clients,
                                  args.duration, args.requests, args.seed,
                                  args.unique_names)
        after = health(url)
    finally:
        if server is not None:
            stop_server(server)
    calls = [http_mix.worker_calls(h) for h in (before, after)]
    worker_classes = [c for c in pools if c in http_mix.WORKER_CLASSES]
    result.update(
        invalid_share=args.invalid_share, clients=args.clients, url=url, seed=args.seed,
        unique_names=args.unique_names,
        invalid_classes=classes, load_before=load_before,
        load_after=" ".join(f"{x:.2f}" for x in os.getloadavg()),
        worker_calls=None if None in calls else calls[1] - calls[0],  # type: ignore[operator]
        worker_requests=sum(result["classes"][c]["sent"] for c in worker_classes),
        healthy_after=after is not None, health_after=after)
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        http_mix.print_mix(result)
    total = result["classes"]["all"]
    return 1 if total["unexpected"] or total["failures"] or after is None else 0


def health(url: str) -> dict | None:
    """/healthz as JSON, or None when it does not answer 200."""
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=30) as resp:
            return json.loads(resp.read()) if resp.status == 200 else None
    except (OSError, ValueError):
        return None


def start_server(threads: int | None, no_cache: bool,
                 extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str]:
    cmd = [sys.executable, "-m", "stablecost.serve.cli", "serve", "--host", "127.0.0.1",
           "--port", "0", "--no-access-log", "--log-level", "warning", *extra]
    if threads:
        cmd += ["--threads", str(threads)]
    if no_cache:
        cmd += ["--cache-entries", "0"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = proc.stderr.readline()
    found = re.search(r"serving on (http://\S+?:\d+)", line)
    if not found:
        proc.kill()
        raise SystemExit(f"the server did not start: {line.strip() or proc.stderr.read()}")
    # keep draining stderr so a chatty server never blocks on a full pipe
    threading.Thread(target=lambda: [sys.stderr.write(l) for l in proc.stderr],
                     daemon=True).start()
    return proc, found.group(1)


def stop_server(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_healthy(url: str, proc: subprocess.Popen | None, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=5) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"the server exited with code {proc.returncode}")
        if time.monotonic() > deadline:
            raise SystemExit(f"{url} not healthy after {timeout_s:g} s")
        time.sleep(0.1)


def post(host: str, port: int, body: bytes,
         conn: http.client.HTTPConnection | None = None) -> tuple[int, bytes]:
    own = conn is None
    conn = conn or http.client.HTTPConnection(host, port, timeout=120)
    try:
        conn.request("POST", "/v1/predict", body=body,
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        if own:
            conn.close()


def run_load(host: str, port: int, bodies: list[bytes], clients: int, duration_s: float,
             max_requests: int | None) -> dict:
    lock = threading.Lock()
    issued = 0
    latencies: list[float] = []
    errors: list[str] = []
    start = threading.Barrier(clients + 1)
    deadline = [0.0]

    def take() -> int | None:
        nonlocal issued
        with lock:
            if max_requests is not None and issued >= max_requests:
                return None
            issued += 1
            return issued

    def client(index: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=120)
        mine: list[float] = []
        failures: list[str] = []
        start.wait()
        try:
            while time.perf_counter() < deadline[0]:
                n = take()
                if n is None:
                    break
                body = bodies[(index + n) % len(bodies)]
                t0 = time.perf_counter()
                try:
                    status, payload = post(host, port, body, conn)
                except (OSError, http.client.HTTPException) as exc:
                    failures.append(f"{type(exc).__name__}: {exc}")
                    conn.close()
                    conn = http.client.HTTPConnection(host, port, timeout=120)
                    continue
                mine.append(time.perf_counter() - t0)
                if status != 200:
                    failures.append(f"HTTP {status}: {payload[:200]!r}")
        finally:
            conn.close()
            with lock:
                latencies.extend(mine)
                errors.extend(failures)

    from http_mix import run_clients

    elapsed = run_clients(client, clients, duration_s, deadline, start)
    latencies.sort()
    done = len(latencies) + sum(1 for e in errors if not e.startswith("HTTP"))
    return {
        "requests": done,
        "errors": len(errors),
        "error_samples": errors[:5],
        "elapsed_s": elapsed,
        "throughput_per_s": done / elapsed if elapsed else 0.0,
        "latency_s": {
            "p50": percentile(latencies, 50), "p90": percentile(latencies, 90),
            "p99": percentile(latencies, 99),
            "max": latencies[-1] if latencies else math.nan,
            "mean": sum(latencies) / len(latencies) if latencies else math.nan,
        },
    }


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def print_table(r: dict) -> None:
    lat = r["latency_s"]
    print(f"POST /v1/predict, {r['program']} on {len(r['hardware'])} chips in rotation, "
          f"analysis cache {'on' if r['cache'] else 'off'}, {r['clients']} clients, "
          f"{r['url']} (machine: {os.cpu_count()} CPUs)")
    print(f"first request (parse + predict): {r['first_request_s'] * 1e3:.1f} ms")
    rows = [
        ("requests", f"{r['requests']}"),
        ("errors", f"{r['errors']}"),
        ("elapsed", f"{r['elapsed_s']:.2f} s"),
        ("throughput", f"{r['throughput_per_s']:.1f} req/s"),
        ("latency p50", f"{lat['p50'] * 1e3:.1f} ms"),
        ("latency p90", f"{lat['p90'] * 1e3:.1f} ms"),
        ("latency p99", f"{lat['p99'] * 1e3:.1f} ms"),
        ("latency max", f"{lat['max'] * 1e3:.1f} ms"),
    ]
    width = max(len(k) for k, _ in rows)
    print("-" * (width + 18))
    for key, value in rows:
        print(f"{key:<{width}}  {value:>14}")
    print("-" * (width + 18))
    for sample in r["error_samples"]:
        print(f"error: {sample}")


if __name__ == "__main__":
    sys.exit(main())
