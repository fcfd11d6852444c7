"""`predict` / `predict_many`: one step's time on a system (chips, mesh, topology), with
the per-kernel and per-collective breakdown behind it.

A step is the per-device program's kernels scheduled on a compute and a communication
stream (`models.schedule`): compute kernels are priced by the roofline, collectives by
the alpha-beta models of `models.collectives` on the topology, and async collectives
overlap with the compute that does not need their results.

Both functions are pure (same inputs, same prediction) and thread-safe. Parsed programs
and their analyses are memoized in a bounded LRU keyed by content (sha256 of the text or
bytes; of the StableHLO text for JAX objects; identity for `Program` / `Analysis`
objects) and mesh, together with what repeated predictions reuse: per hardware the
roofline rows of the compute kernels, per (hardware, topology, overlap) the schedule.
Re-predicting a cached program on another system therefore costs a lookup, the
collectives' alpha-beta prices and one list schedule.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ..errors import InvalidArgumentError, StablecostError
from ..featurize.analysis import Analysis, analyze
from ..featurize.fusion import COLLECTIVE
from ..featurize.partition import Mesh, parse_mesh
from ..featurize.program import FEATURIZER_VERSION, Program
from ..gcpause import gc_paused
from ..hardware import Hardware, get_hardware
from ..models.comm.groups import devices_used
from ..models.comm.pricing import CollectiveRow, price_collectives
from ..models.comm.topology import Topology
from ..models.comm.topology_spec import parse_topology
from ..models.roofline import kernel_times
from ..models.schedule import Schedule, kernel_graph, list_schedule

FIDELITIES = ("auto", "roofline", "learned", "all")
# auto: learned where a bundled model exists for the chip, else roofline.
# all: the auto prediction, with every available fidelity's totals in `by_fidelity`.


@dataclass(frozen=True, slots=True)
class KernelRow:
    index: int
    kind: str
    ops: tuple[str, ...]        # opcodes of the member ops, root first
    location: str               # source location of the root op
    count: float                # executions per step
    flops: float                # per execution
    bytes_accessed: float       # per execution, at kernel boundaries
    time_s: float               # per execution
    total_time_s: float         # time_s x count
    compute_s: float
    memory_s: float
    bound: str                  # compute | memory | overhead | communication | unpriced
    time_low_s: float | None = None    # learned fidelity: 80 % interval of time_s
    time_high_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__slots__}
        out["ops"] = list(self.ops)
        return out


@dataclass(slots=True)
class Prediction:
    """How long one step takes on a system, and why.

    step_time_s: the two-stream schedule's makespan (`compute_s + communication_s` when
        `overlap` is False). compute_s: every compute kernel back to back (launch
        overhead included, `overhead_s` of it). communication_s: every collective back
        to back. exposed_communication_s: `step_time_s - compute_s`, the communication
        no compute hides.
    collectives: one row per collective kernel (kind, bytes, group, algorithm, time).
    critical_path: kernel indices of the chain that sets the step time, in time order.
    mesh: {axis: size} the program runs on (None: single device or unknown);
    topology: the interconnect it is priced on (`Topology.describe()`), "" for none.
    """

    program: str
    hardware: str
    fidelity: str
    step_time_s: float
    compute_s: float
    communication_s: float
    overhead_s: float
    flops: float
    bytes_accessed: float
    kernels: list[KernelRow]
    notes: list[str] = field(default_factory=list)
    exposed_communication_s: float = 0.0
    collectives: list[CollectiveRow] = field(default_factory=list)
    critical_path: list[int] = field(default_factory=list)
    mesh: dict[str, int] | None = None
    topology: str = ""
    num_devices: int = 1
    overlap: bool = True
    by_fidelity: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "program": self.program,
            "hardware": self.hardware,
            "fidelity": self.fidelity,
            "step_time_s": self.step_time_s,
            "compute_s": self.compute_s,
            "communication_s": self.communication_s,
            "exposed_communication_s": self.exposed_communication_s,
            "overhead_s": self.overhead_s,
            "flops": self.flops,
            "bytes_accessed": self.bytes_accessed,
            "mesh": dict(self.mesh) if self.mesh is not None else None,
            "num_devices": self.num_devices,
            "topology": self.topology,
            "overlap": self.overlap,
            "kernels": [k.to_dict() for k in self.kernels],
            "collectives": [c.to_dict() for c in self.collectives],
            "critical_path": list(self.critical_path),
            "by_fidelity": {k: dict(v) for k, v in self.by_fidelity.items()},
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Candidate:
    """One system to predict a program on (see `predict_many`). `args` / `kwargs` are
    example arguments when `program` is a JAX function."""

    program: Any
    hardware: str | Hardware | None = None
    mesh: Any = None
    topology: str | Topology | None = None
    fidelity: str | None = None
    overlap: bool | None = None
    args: tuple = ()
    kwargs: Mapping[str, Any] | None = None


# --------------------------------------------------------------------------- the cache


class _Prepared:
    """One loaded program and what predictions of it reuse. Immutable once built, except
    the memo dicts (filled idempotently: a race computes a value twice, never wrongly)."""

    _MEMO_LIMIT = 512

    def __init__(self, analysis: Analysis, anchor: Any = None, *, weak: bool = False) -> None:
        self.anchor = anchor            # keeps an identity-keyed source alive
        # weak: the entry belongs to the caller's own Analysis (see ProgramCache) and
        # must not keep it alive
        self._analysis = weakref.ref(analysis) if weak else (lambda: analysis)
        program = analysis.program
        kernels = analysis.kernels
        self.dependencies, self.order = kernel_graph(program, kernels)
        self.is_collective = [k.kind == COLLECTIVE for k in kernels]
        self.has_collectives = any(self.is_collective)
        self.devices = devices_used(program)
        self.mesh = dict(program.mesh) if program.mesh else None
        self.by_hardware: dict[Any, tuple] = {}
        self.by_topology: dict[Any, tuple] = {}
        self.results: dict[Any, tuple] = {}

    @property
    def analysis(self) -> Analysis:
        return self._analysis()

    # rows of every kernel on one chip at one fidelity (collective rows: placeholders)
    def hardware_rows(self, hw: Hardware, hw_key: Any, fidelity: str) -> tuple:
        key = (hw_key, fidelity)
        cached = self.by_hardware.get(key)
        if cached is not None:
            return cached
        analysis = self.analysis
        prog = analysis.program
        times = kernel_times(analysis.kernels, prog, hw)
        learned = learned_kernels(analysis, hw, times) if fidelity == "learned" else None
        rows: list[KernelRow] = []
        durations: list[float] = []
        # the learned per-call floor sits on the first compute kernel (_scale_to_step)
        has_compute = not all(self.is_collective)
        overhead_s = learned.floor_s if learned is not None and has_compute else 0.0
        for i, (kernel, t) in enumerate(zip(analysis.kernels, times)):
            root = prog.ops[kernel.root]
            low = high = None
            if learned is not None and not self.is_collective[i]:
                time_s = float(learned.time_s[i])
                low, high = float(learned.low_s[i]), float(learned.high_s[i])
            else:
                time_s = t.time_s
                overhead_s += t.overhead_s * kernel.count
            total = time_s * kernel.count
            durations.append(total)
            rows.append(KernelRow(
                kernel.index, kernel.kind, tuple(prog.ops[i].opcode for i in kernel.ops),
                root.location, kernel.count, kernel.flops, kernel.bytes_accessed,
                time_s, total, t.compute_s, t.memory_s, t.bound, low, high))
        if learned is not None:
            durations, scale = _scale_to_step(durations, self.is_collective, learned)
            if scale != 1.0:   # the rows add up to the step the GNN priced
                rows = [r if self.is_collective[i] else _scaled(r, scale)
                        for i, r in enumerate(rows)]
        value = (hw, rows, durations, overhead_s, learned.note if learned is not None else "")
        _bounded_set(self.by_hardware, key, value, self._MEMO_LIMIT)
        return value

    def collective_rows(self, topology: Topology | None) -> tuple[list[CollectiveRow], list[str]]:
        cached = self.by_topology.get(topology)
        if cached is not None:
            return cached
        if topology is None:
            value: tuple = ([], [])
        else:
            value = price_collectives(self.analysis.kernels, self.analysis.program, topology)
        _bounded_set(self.by_topology, topology, value, self._MEMO_LIMIT)
        return value


def learned_kernels(analysis: Analysis, hw: Hardware, roofline: Sequence[Any] | None = None):
    from ..models.learned import load_models, predict_kernels

    models = load_models(hw.name)
    if models is None:
        raise InvalidArgumentError(f"no learned model for {hw.name}; learned models exist "
                                   f"for: {', '.join(learned_hardware()) or 'none'}")
    return predict_kernels(models, analysis, hw, roofline)


def learned_hardware() -> list[str]:
    from ..models.learned import available

    return available()


def _scale_to_step(durations: list[float], is_collective: list[bool], learned: Any
                   ) -> tuple[list[float], float]:
    """Put the per-call floor on the first compute kernel and, when a step model gave
    the step time, scale the compute kernels so that they add up to it. Returns the
    durations and the scale applied to the compute kernels."""
    compute = [i for i, c in enumerate(is_collective) if not c]
    if not compute:
        return durations, 1.0
    total = sum(durations[i] for i in compute)
    target = learned.step_s - learned.floor_s
    out = list(durations)
    scale = 1.0
    if learned.step_source == "step_gnn" and total > 0 and target > 0:
        scale = target / total
        for i in compute:
            out[i] *= scale
    out[compute[0]] += learned.floor_s
    return out, scale


def _scaled(row: KernelRow, scale: float) -> KernelRow:
    low = None if row.time_low_s is None else row.time_low_s * scale
    high = None if row.time_high_s is None else row.time_high_s * scale
    return dataclasses.replace(row, time_s=row.time_s * scale,
                               total_time_s=row.total_time_s * scale,
                               time_low_s=low, time_high_s=high)


def _bounded_set(memo: dict, key: Any, value: Any, limit: int) -> None:
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value


class ProgramCache:
    """A bounded, thread-safe LRU of prepared programs keyed by content and mesh.

    An `Analysis` the caller passes is the exception: what is prepared from it lives
    exactly as long as the caller keeps it (a weak-keyed map, outside the LRU), so a
    tuner's throwaway analyses are neither kept alive nor evicting anything.
    """

    def __init__(self, maxsize: int = 64) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise InvalidArgumentError(f"cache maxsize must be an integer >= 1, got {maxsize!r}")
        self.maxsize = maxsize
        self._entries: OrderedDict[Any, _Prepared] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        # id(str / bytes object) -> (object, digest): rehashing the same text object
        # on every prediction would cost more than the prediction itself
        self._digests: OrderedDict[int, tuple[Any, str]] = OrderedDict()
        # the caller's Analysis -> {mesh: prepared}; entries hold it weakly
        self._analyses: weakref.WeakKeyDictionary[Analysis, dict[Any, _Prepared]] = \
            weakref.WeakKeyDictionary()

    def info(self) -> dict[str, int]:
        with self._lock:
            return {"hits": self.hits, "misses": self.misses, "size": len(self._entries),
                    "maxsize": self.maxsize, "analyses": len(self._analyses)}

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._digests.clear()
            self._analyses.clear()
            self.hits = self.misses = 0

    def prepared(self, program: Any, mesh: Any = None, args: Sequence[Any] = (),
                 kwargs: Mapping[str, Any] | None = None) -> _Prepared:
        mesh_t = None if mesh is None else parse_mesh(mesh)
        if isinstance(program, Analysis):
            return self._prepared_analysis(program, mesh_t)
        key, load, anchor = self._key(program, mesh_t, tuple(args), dict(kwargs or {}))
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry
            self.misses += 1
        entry = _Prepared(load(), anchor)      # outside the lock: parsing takes a while
        with self._lock:
            existing = self._entries.get(key)
            if existing is not None:          # another thread got there first
                return existing
            self._entries[key] = entry
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        return entry

    def _prepared_analysis(self, analysis: Analysis, mesh: Mesh | None) -> _Prepared:
        with self._lock:
            entry = self._analyses.get(analysis, {}).get(mesh)
            if entry is not None:
                self.hits += 1
                return entry
            self.misses += 1
        base = analysis.program
        if mesh is None or (base.mesh == mesh and base.sharded_module is None):
            entry = _Prepared(analysis, weak=True)
        else:   # the program for another mesh: a new analysis, owned by the entry
            from ..featurize.ingest import load_program

            entry = _Prepared(analyze(load_program(base, mesh=mesh)))
        with self._lock:
            return self._analyses.setdefault(analysis, {}).setdefault(mesh, entry)

    def _digest(self, obj: str | bytes) -> str:
        with self._lock:
            found = self._digests.get(id(obj))
            if found is not None and found[0] is obj:
                return found[1]
        data = obj.encode("utf-8") if isinstance(obj, str) else bytes(obj)
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            self._digests[id(obj)] = (obj, digest)
            while len(self._digests) > 4 * self.maxsize:
                self._digests.popitem(last=False)
        return digest

    def _key(self, program: Any, mesh: Mesh | None, args: tuple,
             kwargs: dict) -> tuple[Any, Any, Any]:
        from ..featurize.ingest import (
            _looks_like_path,
            load_program,
            read_program_file,
            reject_empty_text,
        )

        reject_empty_text(program, _PROGRAM_FORMS)

        version = FEATURIZER_VERSION
        if isinstance(program, Program):
            return (("object", id(program), mesh, version),
                    lambda: analyze(load_program(program, mesh=mesh)), program)
        if isinstance(program, (str, os.PathLike)) and _looks_like_path(program):
            data = read_program_file(Path(program), _PROGRAM_FORMS)
            label = str(program)
            return (("file", label, hashlib.sha256(data).hexdigest(), mesh, version),
                    lambda: analyze(load_program(data, name=label, mesh=mesh)), None)
        if isinstance(program, (str, bytes)):
            # str and bytes load under different labels ("<string>", "<bytes>")
            return (("content", type(program).__name__, self._digest(program), mesh, version),
                    lambda: analyze(load_program(program, mesh=mesh)), None)
        if isinstance(program, (bytearray, memoryview)):
            data = bytes(program)
            return (("content", hashlib.sha256(data).hexdigest(), mesh, version),
                    lambda: analyze(load_program(data, mesh=mesh)), None)
        # JAX objects: key by their StableHLO text
        from ..featurize.ingest import _as_lowered

        lowered = _as_lowered(program, args, kwargs, mesh)
        if lowered is None:
            raise InvalidArgumentError(
                f"cannot predict a program from {type(program).__name__}: give a path, MLIR "
                "text, bytes, a Program or Analysis, a jax.stages.Lowered, or a JAX function "
                "with example arguments")
        text = lowered.as_text(debug_info=True)
        label = f"<jax {getattr(program, '__name__', type(program).__name__)}>"
        return (("content", hashlib.sha256(text.encode("utf-8")).hexdigest(), mesh, version),
                lambda: analyze(load_program(text, name=label, mesh=mesh)), None)


_PROGRAM_FORMS = ("a .mlir or .mlirbc path, MLIR text, bytes, a Program or Analysis, or a "
                  "JAX function")
_CACHE = ProgramCache()


def default_cache() -> ProgramCache:
    """The process-wide cache `predict` and `predict_many` use by default."""
    return _CACHE


def cached_analysis(program: Any, mesh: Any = None, *, cache: ProgramCache | None = None,
                    args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None
                    ) -> Analysis:
    """The (memoized) analysis of `program` on `mesh`: the same object for the same
    content while it stays in the cache."""
    return (cache or _CACHE).prepared(program, mesh, args, kwargs).analysis


# --------------------------------------------------------------------------- predicting

_hw_keys: dict[int, tuple[Hardware, Any]] = {}
_hw_lock = threading.Lock()


def _hardware_key(hw: Hardware) -> Any:
    """A hashable identity of a chip's data (Hardware holds dicts, so it is unhashable)."""
    found = _hw_keys.get(id(hw))
    if found is not None and found[0] is hw:
        return found[1]
    key = (hw.name, repr(sorted((k, repr(v)) for k, v in hw.to_dict().items())))
    with _hw_lock:
        if len(_hw_keys) > 256:
            _hw_keys.clear()
        _hw_keys[id(hw)] = (hw, key)
    return key


@gc_paused
def predict(program: Any, hardware: str | Hardware = "H100-SXM",
            fidelity: str = "auto", *, mesh: Any = None,
            topology: str | Topology | None = None, overlap: bool = True,
            cache: ProgramCache | None = None) -> Prediction:
    """Predict one step of `program` on `hardware`.

    program: anything `load_program` accepts (a JAX function needs `load_program` or
        `predict_many` for its example arguments), a `Program`, or an `Analysis`.
    hardware: a catalog name or alias, or a `Hardware`.
    fidelity: "auto" (learned where a bundled model exists for the chip, else the
        roofline; the result's `fidelity` says which), "roofline", "learned", or "all"
        (the auto prediction plus every available fidelity's totals in `by_fidelity`).
    mesh: {axis: size} ("data=4,model=2"): partition an annotated program for that mesh,
        or place a shard_map/pmap program on it (see `load_program`).
    topology: None (the chip's default fabric for the program's devices), a kind name
        with optional dims ("torus2d:2x4", see `models.communication.parse_topology`),
        or a `Topology`.
    overlap: False runs communication and compute back to back (no overlap).
    """
    if fidelity not in FIDELITIES:
        raise InvalidArgumentError(
            f"unknown fidelity {fidelity!r}; allowed: {', '.join(FIDELITIES)}")
    hw = resolve_hardware(hardware, fidelity)
    entry = _cache(cache).prepared(program, mesh)
    return _predict_fidelity(entry, hw, fidelity, topology, _overlap(overlap, True))


def _overlap(value: Any, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InvalidArgumentError(f"overlap must be True or False, got {value!r}")
    return value


def _cache(cache: Any) -> "ProgramCache":
    if cache is None:
        return _CACHE
    if not isinstance(cache, ProgramCache):
        raise InvalidArgumentError(f"cache must be a ProgramCache or None, got "
                                   f"{type(cache).__name__}")
    return cache


def resolve_hardware(hardware: str | Hardware, fidelity: str) -> Hardware:
    """The chip's spec; `host-cpu` without a local calibration falls back to the spec
    its bundled learned model was trained with, when one ships."""
    from ..errors import UnknownHardwareError

    try:
        return get_hardware(hardware)
    except UnknownHardwareError:
        if fidelity == "roofline" or not isinstance(hardware, str):
            raise
        from ..models.learned import bundled_hardware

        hw = bundled_hardware(hardware)
        if hw is None:
            raise
        return hw


def _predict_fidelity(entry: "_Prepared", hw: Hardware, fidelity: str,
                      topology: str | Topology | None, overlap: bool) -> Prediction:
    """Resolve auto / all into concrete fidelities and predict."""
    from ..models.learned import load_models

    has_learned = fidelity in ("auto", "all", "learned") and load_models(hw.name) is not None
    chosen = fidelity
    if fidelity in ("auto", "all"):
        chosen = "learned" if has_learned else "roofline"
    result = _predict(entry, hw, chosen, topology, overlap)
    if fidelity == "all":
        others = ["roofline"] + (["learned"] if has_learned else [])
        for name in others:
            p = result if name == chosen else _predict(entry, hw, name, topology, overlap)
            result.by_fidelity[name] = {
                "step_time_s": p.step_time_s, "compute_s": p.compute_s,
                "communication_s": p.communication_s,
                "exposed_communication_s": p.exposed_communication_s}
        if not has_learned:
            result.notes.append(f"no learned model for {hw.name}: only the roofline is shown")
        elif _is_bundled_spec(hw):
            result.notes.append(
                f"{hw.name} is not calibrated on this machine: the roofline in by_fidelity "
                "uses the spec the bundled model was trained with (`stablecost hardware "
                "calibrate` measures this one)")
    return result


def _is_bundled_spec(hw: Hardware) -> bool:
    """Whether `hw` is a bundle's training spec (resolve_hardware's fallback)."""
    from ..models.learned import bundle_path

    return Path(hw.path) == bundle_path(hw.name) / "kernel_xgb" / "hardware.toml"


def _predict(entry: _Prepared, hw: Hardware, fidelity: str,
             topology_spec: str | Topology | None, overlap: bool) -> Prediction:
    hw_key = _hardware_key(hw)
    topology, topology_note = _topology(entry, hw, topology_spec)
    key = (hw_key, fidelity, topology, topology_note, overlap)
    result = entry.results.get(key)
    if result is None:
        result = _compute(entry, hw, hw_key, fidelity, topology, topology_note, overlap)
        _bounded_set(entry.results, key, result, _Prepared._MEMO_LIMIT)
    rows, collectives, schedule, overhead_s, notes = result
    analysis = entry.analysis
    return Prediction(
        program=analysis.program.source, hardware=hw.name, fidelity=fidelity,
        step_time_s=schedule.step_time_s, compute_s=schedule.compute_s,
        communication_s=schedule.communication_s, overhead_s=overhead_s,
        flops=analysis.flops, bytes_accessed=analysis.fused_bytes_accessed,
        kernels=list(rows), notes=list(notes),
        exposed_communication_s=schedule.exposed_communication_s,
        collectives=list(collectives), critical_path=list(schedule.critical_path),
        mesh=dict(entry.mesh) if entry.mesh else None,
        topology=topology.describe() if topology is not None else "",
        num_devices=entry.devices, overlap=overlap)


def _topology(entry: _Prepared, hw: Hardware, spec: str | Topology | None
              ) -> tuple[Topology | None, str | None]:
    if spec is None and entry.devices <= 1:
        return None, None
    try:
        topology = parse_topology(spec, hw, entry.devices)
    except InvalidArgumentError as exc:
        if spec is not None:
            raise
        if not entry.has_collectives:
            return None, None
        return None, f"communication is not priced: {exc}"
    if spec is not None and not entry.has_collectives:
        return topology, (f"the topology ({topology.describe()}) changes nothing: the "
                          "program has no collectives")
    return topology, None


def _compute(entry: _Prepared, hw: Hardware, hw_key: Any, fidelity: str,
             topology: Topology | None, topology_note: str | None, overlap: bool) -> tuple:
    _, rows, durations, overhead_s, learned_note = entry.hardware_rows(hw, hw_key, fidelity)
    notes = list(entry.analysis.notes) + ([learned_note] if learned_note else [])
    collectives: list[CollectiveRow] = []
    if topology_note:
        notes.append(topology_note)
    if entry.has_collectives:
        collectives, comm_notes = entry.collective_rows(topology)
        notes.extend(comm_notes)
        if collectives:
            rows = list(rows)
            durations = list(durations)
            for c in collectives:
                k = c.kernel
                old = rows[k]
                rows[k] = KernelRow(old.index, old.kind, old.ops, old.location, old.count,
                                    old.flops, old.bytes_accessed, c.time_s,
                                    c.total_time_s, 0.0, 0.0, "communication")
                durations[k] = c.total_time_s
    schedule: Schedule = list_schedule(durations, entry.is_collective, entry.dependencies,
                                       entry.order, overlap)
    return rows, collectives, schedule, overhead_s, notes


@gc_paused
def predict_many(candidates: Iterable[Candidate | Mapping[str, Any] | Sequence[Any]], *,
                 hardware: str | Hardware = "H100-SXM", fidelity: str = "auto",
                 mesh: Any = None, topology: str | Topology | None = None,
                 overlap: bool = True, errors: str = "raise",
                 cache: ProgramCache | None = None) -> list[Any]:
    """Predict many candidates (a tuner's inner loop), reusing parsed programs.

    Each candidate is a `Candidate`, a mapping with its field names, or a tuple
    (program, hardware[, mesh[, topology[, fidelity]]]); a field left out (or None)
    takes the keyword default. errors="raise" stops at the first `StablecostError`;
    errors="return" puts the error in that candidate's place and goes on.
    Returns the predictions in candidate order.
    """
    if errors not in ("raise", "return"):
        raise InvalidArgumentError(f"errors must be 'raise' or 'return', got {errors!r}")
    cache = _cache(cache)
    default_overlap = _overlap(overlap, True)
    if isinstance(candidates, (str, bytes, Candidate)) or not isinstance(candidates, Iterable):
        raise InvalidArgumentError(
            f"candidates must be an iterable of Candidate, mappings or tuples, got "
            f"{type(candidates).__name__}")
    out: list[Any] = []
    for item in candidates:
        try:
            c = _candidate(item)
            fid = c.fidelity or fidelity
            if fid not in FIDELITIES:
                raise InvalidArgumentError(
                    f"unknown fidelity {fid!r}; allowed: {', '.join(FIDELITIES)}")
            hw = resolve_hardware(c.hardware if c.hardware is not None else hardware, fid)
            entry = cache.prepared(c.program, c.mesh if c.mesh is not None else mesh,
                                   c.args, c.kwargs)
            out.append(_predict_fidelity(entry, hw, fid,
                                c.topology if c.topology is not None else topology,
                                _overlap(c.overlap, default_overlap)))
        except StablecostError as exc:
            if errors == "raise":
                raise
            out.append(exc)
    return out


def _checked(c: Candidate) -> Candidate:
    if not isinstance(c.args, (tuple, list)):
        raise InvalidArgumentError(f"Candidate args must be a tuple of example arguments, "
                                   f"got {type(c.args).__name__}")
    if c.kwargs is not None and not isinstance(c.kwargs, Mapping):
        raise InvalidArgumentError(f"Candidate kwargs must be a mapping, got "
                                   f"{type(c.kwargs).__name__}")
    return c


def _candidate(item: Any) -> Candidate:
    if isinstance(item, Candidate):
        return _checked(item)
    if isinstance(item, Mapping):
        unknown = set(item) - set(Candidate.__dataclass_fields__)
        if unknown or "program" not in item:
            raise InvalidArgumentError(
                f"candidate keys {sorted(item)} must include 'program' and only "
                f"{sorted(Candidate.__dataclass_fields__)}")
        return _checked(Candidate(**item))
    if isinstance(item, (tuple, list)) and 1 <= len(item) <= 5:
        names = ("program", "hardware", "mesh", "topology", "fidelity")
        return _checked(Candidate(**dict(zip(names, item))))
    raise InvalidArgumentError(
        f"a candidate is a Candidate, a mapping or a tuple (program, hardware[, mesh[, "
        f"topology[, fidelity]]]), got {type(item).__name__}")
