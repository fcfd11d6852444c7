"""The adversarial request mix of `http_load.py --mix adversarial`: valid predictions
of the bundled examples mixed with the hostile classes of `adversarial_corpus.py`,
every response's status checked against what its class must get.

    .venv/bin/python benchmarks/http_load.py --mix adversarial --invalid-share 0.45 \\
        [--clients 50] [--duration 30] [--requests N] [--seed 0] [--pool 16] \\
        [--classes a,b,...] [--json]

Bodies are built before the clock starts: a fixed pool per class (seeded), from which
each client draws (its own seeded generator): a valid request with probability
1 - invalid share, else an invalid class (uniformly) and an entry of its pool.

Classes and the statuses they must get (anything else, a 503 included, is unexpected):

| class | requests | expected | where it is refused |
|---|---|---|---|
| valid | the 5 example programs on 8 chips | 200 | cached analysis, in process |
| non-utf8-names | `\\FF` escapes, raw 0xFF bytes (corpus) | 400 | worker |
| deep-nesting | 3,500 nested whiles (940 kB) | 400 | worker |
| nested-calls | 500 nested calls | 400 | worker |
| trip-count-product | 40 nested loops of 1e9 trips | 400 | worker |
| bytecode-flips | 3 bytes flipped in mlp bytecode, seeds 0-39 | 400 | worker |
| worker-crash | a flip that kills the reader (SIGSEGV); one over memory | 400 | worker |
| malformed-mlir | truncated examples, no func.func, dynamic shapes | 400 | worker |
| bad-argument | unknown chip/fidelity, bad base64, lone surrogate, 65 chips | 400 | thread |
| schema | missing/extra/wrong-typed fields, a 100,000-char name | 422 | FastAPI |
| bad-json | not JSON, raw 0xFF bytes, truncated, an array, no Content-Type, empty | 422 | FastAPI |
| huge-input | a body over the limit: sent whole, chunked, announced only | 413 | middleware |

503 is not expected: with 50 clients at most 50 requests wait for a worker, under the
queue bound (64), and the wait bound (60 s) is reached only if the workers stall.

What it measures. The analysis cache keeps successes only, so a hostile program is
sent to a worker process every time it arrives, unless the same body is in flight
already: requests for one program key (its bytes, name and mesh) that arrive while it
is being analyzed, or waits for a worker, share that one analysis (the service's
single flight). Each pool entry of the worker classes carries its own `name` (part of
the key), but with 16 per class and requests waiting for a worker for hundreds of ms
under 50 clients, a good share of the repeats still coalesce: /healthz's worker
counters, before and after, give the worker calls made. `--unique-names` writes the
request's number into each worker-class body's name as it is sent (off the clock):
then every hostile request is new content and costs a worker call, the worst case.
The valid requests hit programs analyzed in the warm-up (one
request per example before the clock): they measure the cached path while the
workers chew on the hostile ones, on the same cores.

Left out by default (name it in --classes to add it): `slow-flips` (a flip that hangs
the reader until the 60 s analysis timeout, and one that takes ~4 s to crash).
`call-fan-out` (40 functions calling the next twice) was left out too while the walk
refused it only after inlining the 1,000,000 ops of STABLECOST_MAX_OPS (~19 s of a
worker each); since `95aa449` the call graph is sized before the walk and it is
refused in milliseconds, so it is in the default mix.
"""

from __future__ import annotations

import base64
import http.client
import json
import math
import os
import random
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adversarial_corpus import (  # noqa: E402
    _ONE_OP,
    EXAMPLES,
    bytecode,
    call_chain,
    flip,
    nested_counted_loops,
    nested_whiles,
)

VALID = "valid"
DEFAULT_CLASSES = ("non-utf8-names", "deep-nesting", "nested-calls", "trip-count-product",
                   "bytecode-flips", "worker-crash", "malformed-mlir", "bad-argument",
                   "schema", "bad-json", "huge-input", "call-fan-out")
OPT_IN_CLASSES = ("slow-flips",)
WORKER_CLASSES = frozenset({"non-utf8-names", "deep-nesting", "nested-calls",
                            "trip-count-product", "bytecode-flips", "worker-crash",
                            "malformed-mlir", "call-fan-out", "slow-flips"})
CHIPS = ("H100-SXM", "H200-SXM", "A100-SXM-80GB", "B200", "MI300X", "TPU-v5e", "TPU-v5p",
         "L4")
JSON_HEADERS = {"Content-Type": "application/json"}


def run_clients(client: Any, clients: int, duration_s: float, deadline: list[float],
                start: Any) -> float:
    """Run `client(i)` on `clients` threads until they return; the clock starts once
    they are all up (`start`, a barrier they pass) and `deadline[0]` is set `duration_s`
    ahead. Returns the seconds from the deadline's setting to the last one's end."""
    threads = [threading.Thread(target=client, args=(i,), daemon=True)
               for i in range(clients)]
    for t in threads:
        t.start()
    deadline[0] = time.perf_counter() + duration_s
    t_start = time.perf_counter()
    start.wait()
    for t in threads:
        t.join()
    return time.perf_counter() - t_start


@dataclass(frozen=True)
class Req:
    """One prepared request: `body` POSTed to /v1/predict as `how` says ("plain",
    "chunked", or "announced": only headers that announce `announce` bytes)."""

    cls: str
    label: str
    body: bytes
    expected: frozenset[int]
    headers: tuple[tuple[str, str], ...] = tuple(JSON_HEADERS.items())
    how: str = "plain"
    announce: int = 0

    def renamed(self, n: int) -> bytes:
        """The body with "#n " before its program's name (a worker class's body starts
        with the name): new content for the analysis cache, the same program."""
        head = b'{"name": "'
        if self.cls not in WORKER_CLASSES or not self.body.startswith(head):
            return self.body
        return head + b"#%d " % n + self.body[len(head):]


def _json(body: object) -> bytes:
    return json.dumps(body).encode()


def _program(cls: str, label: str, data: bytes, expected: int = 400,
             name: str | None = None) -> Req:
    """A program request: text when it is UTF-8, else base64."""
    body: dict = {"name": name or label, "hardware": "H100-SXM"}   # the name first:
    # `renamed` makes the body new content by writing into it
    try:
        body["program"] = data.decode("utf-8")
    except UnicodeDecodeError:
        body["program_base64"] = base64.b64encode(data).decode()
    return Req(cls, label, _json(body), frozenset({expected}))


def _worker_cases(cls: str) -> list[tuple[str, bytes]]:
    """(label, program bytes) of a class whose programs a worker refuses."""
    if cls == "non-utf8-names":
        return [("escaped op name", _ONE_OP.format(op='"stablehlo.ab\\FF\\FE"').encode()),
                ("escaped callee", _ONE_OP.format(op='func.call @"f\\FF"').encode()),
                ("raw byte in a name", _ONE_OP.format(op='"stablehlo.a\xff"').encode("latin-1")),
                ("raw byte after the program",
                 _ONE_OP.format(op='"stablehlo.negate"').encode() + b"\xff")]
    if cls == "deep-nesting":
        return [("3500 nested whiles", nested_whiles(3500).encode())]
    if cls == "nested-calls":
        return [("500 nested calls", call_chain(500, 1).encode())]
    if cls == "trip-count-product":
        return [("40 nested loops of 1e9 trips", nested_counted_loops(40, 10 ** 9).encode())]
    if cls == "call-fan-out":
        return [("40 functions calling the next twice", call_chain(40, 2).encode())]
    if cls == "bytecode-flips":
        mlp = bytecode("mlp_train_step")
        return [(f"mlp_train_step flip seed {s}", flip(mlp, s)) for s in range(40)]
    if cls == "worker-crash":
        return [("transformer_shard_map_8dev flip seed 1008 (SIGSEGV)",
                 flip(bytecode("transformer_shard_map_8dev"), 1008)),
                ("mlp_train_step flip seed 1399 (memory limit)",
                 flip(bytecode("mlp_train_step"), 1399))]
    if cls == "slow-flips":
        return [("transformer_block_train_step flip seed 798 (hangs)",
                 flip(bytecode("transformer_block_train_step"), 798)),
                ("resnet_cnn_train_step flip seed 870 (slow SIGSEGV)",
                 flip(bytecode("resnet_cnn_train_step"), 870))]
    if cls == "malformed-mlir":
        cases = []
        for path in sorted(EXAMPLES.glob("*.mlir")):
            text = path.read_text()
            cases.append((f"{path.stem} cut in half", text[: len(text) // 2].encode()))
        cases.append(("no func.func", b"module {}"))
        cases.append(("dynamic shapes", b"func.func @main(%a: tensor<?xf32>) -> tensor<?xf32>"
                                        b" { return %a : tensor<?xf32> }"))
        return cases
    raise KeyError(cls)


def _front_cases(cls: str, max_bytes: int) -> list[Req]:
    """Requests refused before any worker sees them."""
    ok = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }"
    if cls == "bad-argument":
        return [Req(cls, label, _json(body), frozenset({400})) for label, body in (
            ("unknown chip", {"program": ok, "hardware": "H900"}),
            ("300-character chip name", {"program": ok, "hardware": "x" * 300}),
            ("unknown fidelity", {"program": ok, "hardware": "H100-SXM", "fidelity": "oracle"}),
            ("not base64", {"program_base64": "not base64!", "hardware": "H100-SXM"}),
            ("lone surrogate", {"program": "\ud800", "hardware": "H100-SXM"}),
            ("no chip", {"program": ok, "hardware": " , "}),
            ("65 chips", {"program": ok, "hardware": ",".join(["H100-SXM"] * 65)}),
        )]
    if cls == "schema":
        return [Req(cls, label, _json(body), frozenset({422})) for label, body in (
            ("no hardware", {"program": ok}),
            ("no program", {"hardware": "H100-SXM"}),
            ("both programs", {"program": ok, "program_base64": "eA==", "hardware": "L4"}),
            ("hardware a number", {"program": ok, "hardware": 7}),
            ("mesh of zero", {"program": ok, "hardware": "L4", "mesh": {"data": 0}}),
            ("mesh of 1e23", {"program": ok, "hardware": "L4", "mesh": {"data": 1e23}}),
            ("extra field", {"program": ok, "hardware": "L4", "hw": "typo"}),
            ("100,000-character name", {"program": ok, "hardware": "L4", "name": "n" * 100_000}),
        )]
    if cls == "bad-json":
        whole = _json({"program": ok, "hardware": "H100-SXM"})
        return [
            Req(cls, "not JSON", b"{not json", frozenset({422})),
            Req(cls, "raw 0xFF bytes", b'{"program": "\xff\xfe", "hardware": "L4"}',
                frozenset({422})),
            Req(cls, "truncated", whole[: len(whole) // 2], frozenset({422})),
            Req(cls, "an array", b"[1, 2]", frozenset({422})),
            Req(cls, "empty body", b"", frozenset({422})),
            Req(cls, "no Content-Type", whole, frozenset({422}), headers=()),
        ]
    if cls == "huge-input":
        big = _json({"program": " " * (max_bytes + 1024), "hardware": "H100-SXM"})
        return [
            Req(cls, "body over the limit", big, frozenset({413})),
            Req(cls, "chunked over the limit", b" " * (max_bytes + 65536),
                frozenset({413}), how="chunked"),
            Req(cls, "10 GiB announced", b"", frozenset({413}), how="announced",
                announce=10 << 30),
        ]
    raise KeyError(cls)


def build_pools(classes: list[str], pool: int, seed: int,
                max_bytes: int) -> dict[str, list[Req]]:
    """The fixed request pool of each class (`pool` entries per worker class, each with
    its own name; the front classes' cases as they are)."""
    rng = random.Random(seed)
    pools: dict[str, list[Req]] = {VALID: []}
    for path in sorted(EXAMPLES.glob("*.mlir")):
        text = path.read_text()
        for chip in CHIPS:
            pools[VALID].append(Req(VALID, f"{path.stem} on {chip}", _json(
                {"program": text, "hardware": chip, "name": path.name}), frozenset({200})))
    for cls in classes:
        if cls not in WORKER_CLASSES:
            pools[cls] = _front_cases(cls, max_bytes)
            continue
        cases = _worker_cases(cls)
        order = list(range(max(pool, len(cases))))
        rng.shuffle(order)
        pools[cls] = [_program(cls, cases[k % len(cases)][0], cases[k % len(cases)][1],
                               name=f"{cls} #{k}: {cases[k % len(cases)][0]}")
                      for k in order]
    return pools


def send(conn: http.client.HTTPConnection, req: Req,
         body: bytes | None = None) -> tuple[int, bytes, str]:
    """(status, payload, Retry-After) of one request on `conn` (`body`: instead of
    the request's own)."""
    body = req.body if body is None else body
    if req.how == "announced":
        conn.putrequest("POST", "/v1/predict")
        for key, value in req.headers:
            conn.putheader(key, value)
        conn.putheader("Content-Length", str(req.announce))
        conn.endheaders()
    elif req.how == "chunked":
        chunks = (body[i:i + 65536] for i in range(0, len(body), 65536))
        conn.request("POST", "/v1/predict", body=chunks, encode_chunked=True,
                     headers=dict(req.headers))
    else:
        conn.request("POST", "/v1/predict", body=body, headers=dict(req.headers))
    resp = conn.getresponse()
    payload = resp.read()
    if req.how == "announced":   # the body it announced never follows: start afresh
        conn.close()
    return resp.status, payload, resp.getheader("Retry-After") or ""


class Tally:
    """Per class: statuses, latencies, unexpected answers, connection failures."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: dict[str, Counter] = {}
        self.latencies: dict[str, list[float]] = {}
        self.unexpected: dict[str, int] = {}
        self.failures: dict[str, int] = {}
        self.samples: list[str] = []

    def add(self, cls: str, statuses: Counter, latencies: list[float], unexpected: int,
            failures: int, samples: list[str]) -> None:
        with self.lock:
            self.statuses.setdefault(cls, Counter()).update(statuses)
            self.latencies.setdefault(cls, []).extend(latencies)
            self.unexpected[cls] = self.unexpected.get(cls, 0) + unexpected
            self.failures[cls] = self.failures.get(cls, 0) + failures
            if len(self.samples) < 10:
                self.samples.extend(samples[: 10 - len(self.samples)])


def run_mix(host: str, port: int, pools: dict[str, list[Req]], invalid_share: float,
            clients: int, duration_s: float, max_requests: int | None, seed: int,
            unique_names: bool = False) -> dict:
    """`clients` keep-alive clients drawing from `pools` until the duration or the
    request count is reached; every answer checked against its request's expected set.
    `unique_names`: each request of a worker class renamed, so new content."""
    invalid = sorted(c for c in pools if c != VALID)
    tally = Tally()
    issued = [0]
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)
    deadline = [0.0]

    def take() -> int:
        """The request's number from 1, or 0: no more."""
        with lock:
            if max_requests is not None and issued[0] >= max_requests:
                return 0
            issued[0] += 1
            return issued[0]

    def client(index: int) -> None:
        rng = random.Random(seed * 1_000_003 + index)
        conn = http.client.HTTPConnection(host, port, timeout=120)
        statuses: dict[str, Counter] = {c: Counter() for c in pools}
        latencies: dict[str, list[float]] = {c: [] for c in pools}
        unexpected = Counter()
        failures = Counter()
        samples: list[str] = []
        start.wait()
        try:
            while time.perf_counter() < deadline[0] and (n := take()):
                cls = VALID if not invalid or rng.random() >= invalid_share \
                    else rng.choice(invalid)
                req = rng.choice(pools[cls])
                body = req.renamed(n) if unique_names else req.body
                t0 = time.perf_counter()
                try:
                    status, payload, retry_after = send(conn, req, body)
                except (OSError, http.client.HTTPException) as exc:
                    failures[cls] += 1
                    samples.append(f"{cls} / {req.label}: {type(exc).__name__}: {exc}")
                    conn.close()
                    conn = http.client.HTTPConnection(host, port, timeout=120)
                    continue
                latencies[cls].append(time.perf_counter() - t0)
                statuses[cls][status] += 1
                if status not in req.expected:
                    unexpected[cls] += 1
                    extra = f" Retry-After: {retry_after}" if retry_after else ""
                    samples.append(f"{cls} / {req.label}: HTTP {status}{extra}: "
                                   f"{payload[:200]!r}")
        finally:
            conn.close()
            for cls in pools:
                tally.add(cls, statuses[cls], latencies[cls], unexpected[cls],
                          failures[cls], samples if cls == VALID else [])

    elapsed = run_clients(client, clients, duration_s, deadline, start)
    rows = {}
    everything: list[float] = []
    for cls in [VALID, *invalid]:
        lat = sorted(tally.latencies.get(cls, []))
        everything.extend(lat)
        rows[cls] = row(lat, tally.statuses.get(cls, Counter()),
                        tally.unexpected.get(cls, 0), tally.failures.get(cls, 0),
                        sorted({s for r in pools[cls] for s in r.expected}))
    everything.sort()
    rows["all"] = row(everything, sum((Counter(tally.statuses.get(c, {})) for c in rows),
                                      Counter()),
                      sum(tally.unexpected.values()), sum(tally.failures.values()), [])
    return {"classes": rows, "elapsed_s": elapsed, "samples": tally.samples,
            "throughput_per_s": rows["all"]["sent"] / elapsed if elapsed else 0.0}


def row(lat: list[float], statuses: Counter, unexpected: int, failures: int,
        expected: list[int]) -> dict:
    return {"sent": len(lat) + failures, "expected": expected,
            "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "unexpected": unexpected, "failures": failures,
            "p50_ms": percentile(lat, 50) * 1e3, "p95_ms": percentile(lat, 95) * 1e3,
            "p99_ms": percentile(lat, 99) * 1e3,
            "max_ms": (lat[-1] if lat else math.nan) * 1e3}


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def worker_calls(health: dict | None) -> int | None:
    """Requests the analysis workers have taken (served, crashed or timed out)."""
    if not health:
        return None
    counts = health.get("workers", {}).get("analysis", {})
    return sum(counts.get(k, 0) for k in ("served", "crashed", "timed_out"))


def print_mix(r: dict) -> None:
    names = "every hostile program new content" if r["unique_names"] else \
        "a fixed pool of bodies per class"
    print(f"POST /v1/predict, adversarial mix: {r['invalid_share']:.0%} invalid ({names}), "
          f"{r['clients']} clients, {r['elapsed_s']:.1f} s, {r['url']} "
          f"(machine: {os.cpu_count()} CPUs, load average before {r['load_before']}, "
          f"after {r['load_after']})")
    print("| class | sent | expected | statuses | unexpected | p50 ms | p95 ms | p99 ms "
          "| max ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cls, x in r["classes"].items():
        statuses = ", ".join(f"{k}: {v}" for k, v in x["statuses"].items())
        if x["failures"]:
            statuses += f", no answer: {x['failures']}"
        expected = "/".join(map(str, x["expected"])) or "-"
        print(f"| {cls} | {x['sent']} | {expected} | {statuses} | {x['unexpected']} | "
              f"{x['p50_ms']:.1f} | {x['p95_ms']:.1f} | {x['p99_ms']:.1f} | "
              f"{x['max_ms']:.1f} |")
    print(f"throughput {r['throughput_per_s']:.1f} req/s; worker calls during the load: "
          f"{r['worker_calls']} for {r['worker_requests']} requests of the worker classes; "
          f"/healthz afterwards: {'ok' if r['healthy_after'] else 'FAILED'}")
    for sample in r["samples"]:
        print(f"unexpected: {sample}")
