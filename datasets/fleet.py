"""`stablecost collect kernels|programs --ray [ADDRESS]`: one sweep spread over the hosts
of a Ray cluster, merged into the datasets under `out`.

One collector actor per node, pinned there (`NodeAffinitySchedulingStrategy`) and
holding all of the node's CPUs and GPUs, so a host times one sample at a time. Each
measures the chunks of the sweep the driver hands it with the local collector's loop
(`collect.measure_into`) into a dataset of its own on that host's disk,
``<hosts>/<hostname>-<node>/<hardware>-<fingerprint>/`` (``<hosts>`` is ``<out>.hosts``
unless given), and returns the chunk's rows. The driver adds them to the dataset of
that host's fingerprint under `out` with the store's writer: measurements of machines
with different fingerprints are never mixed, and a sample id is stored once.

Resuming: a killed actor is restarted by Ray on its node (`max_restarts`) and its chunk
run again (`max_task_retries`); what it had measured is in its host dataset's journal
and is returned, not measured again. A chunk whose host is gone for good goes to
another host. Running the same command again skips every sample `out` holds for the
fleet's fingerprints.

    collect_fleet("kernel", "data", max_samples=64)                 # a local Ray cluster
    collect_fleet("program", "data", address="10.0.0.1:6379")      # an existing cluster
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import os
import socket
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from ..errors import ClusterError, InvalidArgumentError
from ..hardware.fingerprint import Machine, fingerprint_id, local_machine
from ..hardware.timing import CacheEvictor
from .collect import (
    CollectSummary,
    Measure,
    Progress,
    Sample,
    check_sweep,
    measure_into,
    measure_sample,
    open_dataset,
    sweep,
)
from .store.layout import one_line, slug
from .store.reader import read_table
from .store.writer import DatasetWriter

RAY_EXTRA = "install stablecost[ray] (pip install 'stablecost[ray]')"
RESTARTS = 3              # per collector: Ray restarts it and re-runs its chunk this often
START_TIMEOUT_S = 300.0   # for every node's collector to start (workers, jax, fingerprint)
PROBE_TIMEOUT_S = 5.0
CHUNK_SAMPLES = {"kernel": 8, "program": 2}


@dataclass(frozen=True)
class HostInfo:
    """What a collector reports when it has started."""

    name: str                   # <hostname>-<node id prefix>
    machine: Machine
    dataset: Path               # the host's own dataset
    host_spec: bytes | None     # its hardware.toml (host-cpu calibration), if any
    warnings: tuple[str, ...]   # what its writer found damaged on opening


@dataclass
class ChunkResult:
    machine: Machine
    rows: list[dict[str, Any]]
    failures: dict[str, list[str]] = field(default_factory=dict)


class HostCollector:
    """The collector of one host: a Ray actor (`collect_fleet` wraps it with
    `ray.remote`) that keeps its host dataset open between chunks."""

    def __init__(self, hosts_root: str, flush_caches: bool, measure: Measure) -> None:
        import ray

        self.machine = local_machine()
        node = ray.get_runtime_context().get_node_id()
        self.name = f"{slug(socket.gethostname())}-{node[:8]}"
        self.writer = open_dataset(Path(hosts_root) / self.name, self.machine)
        self.flush = CacheEvictor() if flush_caches and self.machine.backend == "cpu" else None
        self.measure = measure

    def info(self) -> HostInfo:
        spec = self.writer.path / "hardware.toml"
        return HostInfo(self.name, self.machine, self.writer.path,
                        spec.read_bytes() if spec.is_file() else None,
                        tuple(self.writer.warnings))

    def run(self, chunk: list[Sample], seed: int, budget_s: float | None) -> ChunkResult:
        """Measure the samples of `chunk` this host has not measured yet; return the rows
        of every sample of the chunk it holds."""
        summary = CollectSummary(dataset=self.writer.path, kind=chunk[0].kind)
        rows: list[dict[str, Any]] = []
        rng = np.random.default_rng([seed, int(chunk[0].sample_id[:12], 16)])
        measure_into(self.writer, self.machine, chunk, summary, budget_s=budget_s, rng=rng,
                     flush=self.flush, measure=self.measure, on_row=rows.append)
        fresh = {row["sample_id"] for row in rows}
        earlier = {s.sample_id for s in chunk if s.sample_id not in fresh
                   and self.writer.has(s.sample_id)}   # before a restart, or a rerun
        if earlier:
            rows += stored_rows(self.writer.path, earlier)
        return ChunkResult(self.machine, rows, dict(summary.failures))

    def close(self) -> None:
        self.writer.close()


def stored_rows(dataset: Path, ids: set[str]) -> list[dict[str, Any]]:
    """The rows of `dataset` (shards and journal) with these sample ids."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = read_table(dataset)
    keep = pc.is_in(table.column("sample_id"), value_set=pa.array(sorted(ids)))
    return table.filter(keep).to_pylist()


# --------------------------------------------------------------------------- the driver
def collect_fleet(kind: str, out: str | Path, *, address: str | None = None,
                  budget_minutes: float | None = None, max_samples: int | None = None,
                  families: list[str] | None = None, seed: int = 0,
                  flush_caches: bool = False, hosts_dir: str | Path | None = None,
                  chunk_samples: int | None = None, measure: Measure = measure_sample,
                  progress: Progress | None = None, tier: str = "zoo") -> CollectSummary:
    """`collect.collect` over the nodes of the Ray cluster at `address` (None: start a
    local one, or use the one this process is connected to). `measure` times one sample
    on a host (`collect.measure_sample`); `summary.hosts` names each host's dataset."""
    chosen = check_sweep(kind, budget_minutes, families, tier)
    if chunk_samples is not None and chunk_samples < 1:
        raise InvalidArgumentError(f"chunk_samples={chunk_samples}: must be >= 1")
    out = Path(out).absolute()
    hosts = Path(hosts_dir).absolute() if hosts_dir else out.with_name(f"{out.name}.hosts")
    ray = import_ray()
    budget_s = budget_minutes * 60.0 if budget_minutes is not None else None
    progress = progress or Progress(budget_s=budget_s, max_samples=max_samples)
    summary = CollectSummary(dataset=out, kind=kind)
    start = time.perf_counter()
    writers: dict[str, DatasetWriter] = {}
    try:
        with connected(ray, address):
            actors, infos = start_collectors(ray, hosts, flush_caches, measure)
            try:
                for info in infos:
                    summary.hosts[info.name] = info.dataset
                    summary.warnings += [f"{info.name}: {w}" for w in info.warnings]
                    merged_writer(writers, out, info.machine, info.host_spec)
                done = set().union(*(w.done_ids for w in writers.values()))
                todo = (s for s in itertools.islice(sweep(kind, seed, chosen, tier), max_samples)
                        if not _skip(s, done, summary))
                size = chunk_samples or _chunk_size(kind, max_samples, len(actors))
                _dispatch(ray, actors, infos, _chunks(todo, size), seed=seed,
                          budget_s=budget_s, start=start, writers=writers, out=out,
                          summary=summary, progress=progress)
            except KeyboardInterrupt:
                summary.interrupted = True
            finally:
                _close(ray, actors, summary)
    finally:
        for writer in writers.values():
            writer.close()
            summary.warnings += writer.warnings
        summary.elapsed_s = time.perf_counter() - start
        progress.close()
    summary.total_rows = sum(len(w.done_ids) for w in writers.values())
    if len(writers) == 1:
        summary.dataset = next(iter(writers.values())).path
    return summary


def _skip(sample: Sample, done: set[str], summary: CollectSummary) -> bool:
    if sample.sample_id in done:
        summary.skipped_done += 1
        return True
    return False


def _chunk_size(kind: str, max_samples: int | None, hosts: int) -> int:
    """Small enough that every host gets at least two chunks of a short sweep."""
    size = CHUNK_SAMPLES[kind]
    if max_samples is not None:
        size = min(size, math.ceil(max_samples / (2 * hosts)))
    return max(1, size)


def _chunks(samples: Iterable[Sample], size: int) -> Iterator[list[Sample]]:
    it = iter(samples)
    while batch := list(itertools.islice(it, size)):
        yield batch


def _dispatch(ray: Any, actors: list[Any], infos: list[HostInfo],
              chunks: Iterator[list[Sample]], *, seed: int, budget_s: float | None,
              start: float, writers: dict[str, DatasetWriter], out: Path,
              summary: CollectSummary, progress: Progress) -> None:
    """Keep one chunk in flight on every live host until the sweep or the budget ends;
    merge each finished chunk; send the chunk of a host lost for good elsewhere."""
    retry: deque[list[Sample]] = deque()
    idle = list(range(len(actors)))[::-1]
    in_flight: dict[Any, tuple[int, list[Sample]]] = {}
    lost = 0
    while True:
        while idle:
            elapsed = time.perf_counter() - start
            if budget_s is not None and elapsed >= budget_s:
                break
            chunk = retry.popleft() if retry else next(chunks, None)
            if chunk is None:
                break
            host = idle.pop()
            left = None if budget_s is None else budget_s - elapsed
            in_flight[actors[host].run.remote(chunk, seed, left)] = (host, chunk)
        if not in_flight:
            return
        [ref], _ = ray.wait(list(in_flight), num_returns=1)
        host, chunk = in_flight.pop(ref)
        try:
            result: ChunkResult = ray.get(ref)
        except ray.exceptions.RayActorError as exc:
            lost += 1
            summary.warnings.append(f"{infos[host].name}: collector lost after {RESTARTS} "
                                    f"restarts ({one_line(str(exc))[:200]}); its chunk goes "
                                    "to another host")
            if lost == len(actors):
                raise ClusterError(f"every host of the fleet was lost (see the warnings); what "
                                   f"they measured is kept in {out} and their host datasets: "
                                   "run the same command again") from None
            retry.append(chunk)
            continue
        writer = merged_writer(writers, out, result.machine, None)
        for row in result.rows:
            if not writer.has(row["sample_id"]):
                writer.add(row)
                summary.measured[row["family"]] += 1
        for family, messages in result.failures.items():
            summary.failures.setdefault(family, []).extend(messages)
        idle.append(host)
        progress.update(summary, time.perf_counter() - start, chunk[-1],
                        summary.skipped_done + summary.samples)


def merged_writer(writers: dict[str, DatasetWriter], out: Path, machine: Machine,
                  host_spec: bytes | None) -> DatasetWriter:
    """The writer of `machine`'s dataset under `out`, opened once, with the host's
    hardware.toml kept beside its rows."""
    key = fingerprint_id(machine.fingerprint)
    if key not in writers:
        writers[key] = DatasetWriter(out, hardware=machine.hardware,
                                     fingerprint=machine.fingerprint)
    writer = writers[key]
    if host_spec is not None and not (writer.path / "hardware.toml").exists():
        writer.keep_file("hardware.toml", host_spec)
    return writer


# --------------------------------------------------------------------------- Ray
def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ClusterError(f"--ray needs Ray, which is not installed here; {RAY_EXTRA}") \
            from None
    return ray


@contextlib.contextmanager
def connected(ray: Any, address: str | None) -> Iterator[None]:
    """Connected to the cluster at `address` for the block (None: a new local cluster,
    even where one runs already, stopped at the end); a connection this process already
    has is used as it is and left open."""
    if ray.is_initialized():
        yield
        return
    if address:
        probe(address)
    options: dict[str, Any] = {"logging_level": logging.WARNING}
    if not address:
        options["include_dashboard"] = False
    try:
        ray.init(address=address or "local", **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        hint = ("; a cluster with token authentication (Ray's default) needs RAY_AUTH_MODE=token "
                "and its token (~/.ray/auth_token or RAY_AUTH_TOKEN) when given an address"
                if address and address != "auto" else "")
        raise ClusterError(f"--ray {address or '(local)'}: cannot use a Ray cluster there "
                           f"({one_line(str(exc))[:200]}){hint}") from None
    try:
        yield
    finally:
        ray.shutdown()   # a local cluster started here stops; a remote one is left running


def probe(address: str) -> None:
    """A one-line error, in seconds rather than Ray's minute of retries, when nothing
    listens at `address` (HOST:PORT or ray://HOST:PORT; `auto` is left to Ray)."""
    if address == "auto":
        return
    where = address.split("://", 1)[-1]
    host, sep, port = where.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ClusterError(f"--ray {address!r}: give HOST:PORT (the head node's GCS, as "
                           "`ray start --head` prints it), ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as exc:
        raise ClusterError(f"--ray {address}: no Ray cluster answers there "
                           f"({exc.strerror or exc}); start one with `ray start --head`, or "
                           "give no address for a local cluster") from None


def worker_env() -> dict[str, Any] | None:
    """The runtime_env that lets Ray workers import this stablecost: the directory
    holding the package when it was imported from a path (a checkout on PYTHONPATH);
    None for an installed package, which the cluster's Python finds itself."""
    package = Path(__file__).absolute().parent.parent
    root = package.parent
    listed = {Path(p or ".").absolute() for p in sys.path}
    if package.name != "stablecost" or root not in listed \
            or {"site-packages", "dist-packages"} & set(root.parts):
        return None
    paths = [str(root), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    return {"env_vars": {"PYTHONPATH": os.pathsep.join(dict.fromkeys(p for p in paths if p))}}


def start_collectors(ray: Any, hosts: Path, flush_caches: bool,
                     measure: Measure) -> tuple[list[Any], list[HostInfo]]:
    """One collector per live node with CPUs, pinned to it and holding all of its CPUs
    and GPUs (a head node started with --num-cpus=0 is left out)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    remote = ray.remote(HostCollector)
    env = worker_env()
    actors = []
    for node in ray.nodes():
        resources = node.get("Resources", {})
        if not node.get("Alive") or resources.get("CPU", 0) <= 0:
            continue
        actors.append(remote.options(
            num_cpus=resources["CPU"], num_gpus=resources.get("GPU", 0),
            max_restarts=RESTARTS, max_task_retries=RESTARTS, runtime_env=env,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False),
        ).remote(str(hosts), flush_caches, measure))
    if not actors:
        raise ClusterError("the Ray cluster has no live node with CPUs to measure on")
    try:
        infos = ray.get([actor.info.remote() for actor in actors], timeout=START_TIMEOUT_S)
    except ray.exceptions.GetTimeoutError:
        _kill(ray, actors)
        raise ClusterError(f"the collectors did not all start within {START_TIMEOUT_S:.0f} s: "
                           "each needs all of its node's CPUs; is other work holding "
                           "them?") from None
    except ray.exceptions.RayError as exc:
        _kill(ray, actors)
        raise ClusterError("a collector failed to start: "
                           f"{one_line(str(exc)).rsplit(': ', 1)[-1][:200]}") from None
    return actors, infos


def _close(ray: Any, actors: list[Any], summary: CollectSummary) -> None:
    """Fold every host's journal into a shard, then end the collectors."""
    for actor in actors:
        try:
            ray.get(actor.close.remote(), timeout=60)
        except ray.exceptions.RayError as exc:   # a lost host: its journal is folded later
            summary.warnings.append(f"a host dataset was not closed ({one_line(str(exc))[:120]})")
    _kill(ray, actors)


def _kill(ray: Any, actors: list[Any]) -> None:
    for actor in actors:
        with contextlib.suppress(Exception):
            ray.kill(actor, no_restart=True)
