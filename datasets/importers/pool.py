"""Running an import's datasets, one task each, in this process or in spawned
worker processes that end with their parent, merging their summaries.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple

from .checks import Peaks
from .parquet import num_rows
from .rows import Mapper, import_file
from .sink import Sink
from .summary import DatasetSummary, ImportSummary

ProgressFn = Callable[[int, int, str], None]
"""`progress(done_rows, total_rows, label)`: called every ~20k source rows and after each
file; `label` is the file being read (relative to the import root)."""


class Source(NamedTuple):
    """How one project's files read (picklable: `mapper_for` is a module-level function)."""

    project: str
    mapper_for: Callable[[str], Mapper | str]   # table / op folder -> mapper or skip reason
    device_column: str
    latency_column: str


@dataclass
class Task:
    """Everything one dataset's import needs (picklable, for worker processes)."""

    source: Source
    hardware: str
    device: str
    in_catalog: bool
    peaks: Peaks | None
    files: list[tuple[str, str, str]]      # (path relative to the import root, path, table/op)
    rows: int                               # source rows in `files`


_worker_queue: Any = None


def _init_worker(queue: Any) -> None:
    global _worker_queue
    _worker_queue = queue
    exit_with_parent()


def exit_with_parent(poll_s: float = 0.5) -> None:
    """End this worker when the importer that started it is gone (killed: SIGKILL or
    SIGTERM do not reach the pool): an orphan would keep the dataset's lock and make
    the re-run fail. What it stored is kept; the re-run imports the rest."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="stablecost-parent-watch", daemon=True).start()


def _run_in_worker(task: Task, out_root: str) -> tuple[DatasetSummary, int, int]:
    return _run_task(task, out_root, lambda n, label: _worker_queue.put((n, label)))


def _run_task(task: Task, out_root: str,
              report: Callable[[int, str], None]) -> tuple[DatasetSummary, int, int]:
    """Import one dataset's files; returns (its summary, files read, rows read)."""
    source = task.source
    sink = Sink(Path(out_root), source.project, task.hardware, task.device, task.in_catalog,
                report)

    def same_device(p: dict[str, Any]) -> str | None:
        d = p.get(source.device_column)
        if d is not None and d != task.device:
            return f"device {d!r} differs from the dataset's GPU {task.device!r}"
        return None

    files = rows = 0
    try:
        for rel, path, name in task.files:
            mapper = source.mapper_for(name)
            if isinstance(mapper, str):
                n = num_rows(Path(path))
                sink.summary.skipped[mapper] += n
                sink.tick(n, rel, force=True)
                files, rows = files + 1, rows + n
                continue
            f, n = import_file(sink, rel=rel, path=Path(path),
                               latency_col=source.latency_column, mapper=mapper,
                               peaks=task.peaks, row_filter=same_device)
            files, rows = files + f, rows + n
    finally:
        sink.close()
    return sink.summary, files, rows


def _default_jobs(tasks: int) -> int:
    return max(1, min(os.cpu_count() or 1, tasks, 8))


def run_tasks(tasks: list[Task], summary: ImportSummary, *, progress: ProgressFn | None,
              jobs: int | None, done: int, total: int) -> None:
    """Run the tasks (largest first), merging their results into `summary`."""
    state = {"done": done}

    def report(n: int, label: str) -> None:
        state["done"] += n
        if progress is not None:
            progress(state["done"], total, label)

    def merge(result: tuple[DatasetSummary, int, int]) -> None:
        ds, files, rows = result
        summary.datasets[str(ds.path)] = ds
        summary.notes += ds.warnings     # damaged data found on resuming that dataset
        summary.files_read += files
        summary.rows_read += rows

    tasks = sorted(tasks, key=lambda t: -t.rows)
    jobs = _default_jobs(len(tasks)) if jobs is None else max(1, min(int(jobs), len(tasks) or 1))
    out_root = str(summary.out_root)
    if jobs <= 1:
        for task in tasks:
            merge(_run_task(task, out_root, report))
        return
    import multiprocessing
    import queue as queue_mod
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

    ctx = multiprocessing.get_context("spawn")   # fork is unsafe after pyarrow's threads start
    queue = ctx.Queue()

    def drain() -> None:
        while True:
            try:
                n, label = queue.get_nowait()
            except queue_mod.Empty:
                return
            report(n, label)

    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker,
                             initargs=(queue,)) as pool:
        futures = [pool.submit(_run_in_worker, task, out_root) for task in tasks]
        pending = set(futures)
        try:
            while pending:
                finished, pending = wait(pending, timeout=0.25, return_when=FIRST_EXCEPTION)
                drain()
                if any(f.exception() is not None for f in finished):
                    for f in pending:
                        f.cancel()
                    break
        except BaseException:
            for f in pending:
                f.cancel()
            raise
        results = [f.result() for f in futures if not f.cancelled()]   # raises a worker's error
    drain()
    for result in results:
        merge(result)


def file_rows(files: list[tuple[str, str, str]]) -> int:
    """Source rows in a task's files."""
    return sum(num_rows(Path(path)) for _, path, _ in files)
