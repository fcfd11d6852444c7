"""The one program cache: loaded programs, their analyses, and what predictions of
them reuse, keyed by content and mesh. `predict`, `predict_many` and the HTTP service
all go through a `ProgramCache`.

Keys: sha256 of the text or bytes (of the StableHLO text for JAX objects), identity for
`Program` objects, plus the mesh, the featurizer version and, for bytes the HTTP
service names, that name. An `Analysis` the caller passes is kept outside the LRU in a
weak-keyed map: what is prepared from it lives exactly as long as the caller keeps it,
so a tuner's throwaway analyses are neither kept alive nor evicting anything.
Concurrent misses on one key load the program once (single flight, `LRUCache`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ...errors import InvalidArgumentError
from ...featurize.analysis import MULTI_OUTPUT_KINDS, Analysis, analyze, for_chip_kind
from ...featurize.fusion import COLLECTIVE
from ...featurize.options import LoadOptions, load_options, options_kwargs
from ...featurize.partition import Mesh, parse_mesh
from ...featurize.program import FEATURIZER_VERSION, Program
from ...hardware import Hardware
from ...models.comm.groups import devices_used
from ...models.memory import MemoryEstimate, analysis_graph, step_memory
from .lru import LRUCache

PROGRAM_FORMS = ("a .mlir, .mlirbc or .pt2 path, MLIR text, bytes, a Program or Analysis, "
                 "a JAX function, or a torch.nn.Module")
MEMO_LIMIT = 512   # per program: results memoized per (chip, fidelity, topology, ...)


class PreparedProgram:
    """One loaded program and what predictions of it reuse. Immutable once built, except
    the memo dicts (filled idempotently: a race computes a value twice, never wrongly)."""

    def __init__(self, analysis: Analysis, anchor: Any = None, *, weak: bool = False) -> None:
        self.anchor = anchor            # keeps an identity-keyed source alive
        # weak: the entry belongs to the caller's own Analysis and must not keep it alive
        self._analysis = weakref.ref(analysis) if weak else (lambda: analysis)
        program = analysis.program
        self.is_collective = [k.kind == COLLECTIVE for k in analysis.kernels]
        self.has_collectives = any(self.is_collective)
        self.devices = devices_used(program)
        self.mesh = dict(program.mesh) if program.mesh else None
        self.memo: dict[Any, Any] = {}
        self._memory: MemoryEstimate | None = None

    @functools.cached_property
    def _graph(self) -> tuple[list[tuple[int, ...]], list[int]]:
        return analysis_graph(self.analysis)

    @property
    def dependencies(self) -> list[tuple[int, ...]]:
        """For each kernel the kernels whose results it reads (built on first use: a
        GPU's entry prices other kernels than the program's own, `for_chip`)."""
        return self._graph[0]

    @property
    def order(self) -> list[int]:
        return self._graph[1]

    @property
    def memory(self) -> MemoryEstimate:
        """The step's peak memory on one device (computed on first use)."""
        if self._memory is None:
            self._memory = step_memory(self.analysis)
        return self._memory

    @property
    def analysis(self) -> Analysis:
        analysis = self._analysis()
        assert analysis is not None, "a weakly held analysis is only used while alive"
        return analysis

    def for_chip(self, hw: Hardware) -> "PreparedProgram":
        """This entry, or for a chip whose XLA backend does multi-output fusion (GPU,
        TPU) the entry of its analysis with those kernels (`for_chip_kind`)."""
        if hw.kind not in MULTI_OUTPUT_KINDS:
            return self
        return self.memoized(("chip kind", hw.kind), lambda: PreparedProgram(
            for_chip_kind(self.analysis, hw.kind), self.anchor))

    def memoized(self, key: Any, compute: Callable[[], Any]) -> Any:
        """`compute()` once per key (the memo is cleared when it reaches MEMO_LIMIT)."""
        found = self.memo.get(key)
        if found is None:
            found = compute()
            if len(self.memo) >= MEMO_LIMIT:
                self.memo.clear()
            self.memo[key] = found
        return found


class ProgramCache:
    """A bounded, thread-safe LRU of prepared programs (see the module docstring).
    `maxsize` 0 keeps nothing (every call loads)."""

    def __init__(self, maxsize: int = 64) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 0:
            raise InvalidArgumentError(f"cache maxsize must be an integer >= 0, got {maxsize!r}")
        self.maxsize = maxsize
        self._lru: LRUCache[PreparedProgram] = LRUCache(maxsize)
        self._lock = threading.Lock()
        self._analysis_hits = 0
        self._analysis_misses = 0
        # id(str / bytes object) -> (object, digest): rehashing the same text object
        # on every prediction would cost more than the prediction itself
        self._digests: OrderedDict[int, tuple[Any, str]] = OrderedDict()
        self._analyses: weakref.WeakKeyDictionary[Analysis, dict[Any, PreparedProgram]] = \
            weakref.WeakKeyDictionary()

    def info(self) -> dict[str, int]:
        lru = self._lru.stats()
        with self._lock:
            return {"hits": lru["hits"] + self._analysis_hits,
                    "misses": lru["misses"] + self._analysis_misses,
                    "size": lru["entries"], "maxsize": self.maxsize,
                    "analyses": len(self._analyses)}

    def stats(self) -> dict[str, int]:
        """The LRU's own counters (entries, max_entries, hits, misses)."""
        return self._lru.stats()

    def clear(self) -> None:
        self._lru.clear()
        with self._lock:
            self._digests.clear()
            self._analyses.clear()
            self._analysis_hits = self._analysis_misses = 0

    def prepared(self, program: Any, mesh: Any = None, args: Sequence[Any] = (),
                 kwargs: Mapping[str, Any] | None = None, *,
                 name: str | None = None, entry: str | None = None, shapes: Any = None,
                 dims: Any = None) -> PreparedProgram:
        """The prepared `program` on `mesh`; `name` labels text or bytes content;
        `entry`, `shapes` and `dims` as in `load_program`."""
        mesh_t = None if mesh is None else parse_mesh(mesh)
        options = load_options(entry, shapes, dims)
        if isinstance(program, Analysis):
            if options != (None, None, None):
                raise InvalidArgumentError("entry, shapes and dims apply to a program being "
                                           "loaded, not to an Analysis")
            return self._prepared_analysis(program, mesh_t)
        key, load, anchor = self._key(program, mesh_t, tuple(args), dict(kwargs or {}), name,
                                      options)
        return self._lru.get_or_compute(key, lambda: PreparedProgram(load(), anchor))

    def _prepared_analysis(self, analysis: Analysis, mesh: Mesh | None) -> PreparedProgram:
        with self._lock:
            entry = self._analyses.get(analysis, {}).get(mesh)
            if entry is not None:
                self._analysis_hits += 1
                return entry
            self._analysis_misses += 1
        base = analysis.program
        if mesh is None or (base.mesh == mesh and base.sharded_module is None):
            entry = PreparedProgram(analysis, weak=True)
        else:   # the program for another mesh: a new analysis, owned by the entry
            from ...featurize.ingest import load_program

            entry = PreparedProgram(analyze(load_program(base, mesh=mesh)))
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
            while len(self._digests) > 4 * max(self.maxsize, 1):
                self._digests.popitem(last=False)
        return digest

    def _key(self, program: Any, mesh: Mesh | None, args: tuple, kwargs: dict,
             name: str | None, options: LoadOptions = (None, None, None)
             ) -> tuple[Any, Callable[[], Analysis], Any]:
        from ...featurize.program_files import read_program_file
        from ...featurize.sources import looks_like_path, reject_empty_text

        reject_empty_text(program, PROGRAM_FORMS)
        # the featurizer version and the load options are part of every key
        version = (FEATURIZER_VERSION, options)
        named: dict[str, Any] = {} if name is None else {"name": name}
        extra = options_kwargs(options)

        def load_program(source: Any, **kw: Any) -> Program:
            from ...featurize.ingest import load_program as load

            return load(source, **kw, **extra)

        if isinstance(program, Program):
            return (("object", id(program), mesh, version),
                    lambda: analyze(load_program(program, mesh=mesh)), program)
        if isinstance(program, (str, os.PathLike)) and name is None \
                and looks_like_path(program):
            data = read_program_file(Path(program), PROGRAM_FORMS)
            label = str(program)
            return (("file", label, hashlib.sha256(data).hexdigest(), mesh, version),
                    lambda: analyze(load_program(data, name=label, mesh=mesh)), None)
        if isinstance(program, (str, bytes)):
            # str and bytes load under different labels ("<string>", "<bytes>")
            return (("content", type(program).__name__, self._digest(program), mesh, version,
                     name),
                    lambda: analyze(load_program(program, mesh=mesh, **named)), None)
        if isinstance(program, (bytearray, memoryview)):
            data = bytes(program)
            return (("content", hashlib.sha256(data).hexdigest(), mesh, version, name),
                    lambda: analyze(load_program(data, mesh=mesh, **named)), None)
        from ...featurize.sources import as_lowered
        from ...featurize.torch_programs import is_torch_program, torch_stablehlo

        if is_torch_program(program):   # PyTorch: key by the StableHLO torch-mlir gives
            text, label, notes = torch_stablehlo(program, args, kwargs, name)

            def load_torch() -> Analysis:
                loaded = load_program(text, name=label, mesh=mesh)
                loaded.notes[:0] = notes
                return analyze(loaded)

            return (("content", hashlib.sha256(text.encode("utf-8")).hexdigest(), mesh,
                     version), load_torch, None)
        # JAX objects: key by their StableHLO text

        lowered = as_lowered(program, args, kwargs, mesh)
        if lowered is None:
            raise InvalidArgumentError(
                f"cannot predict a program from {type(program).__name__}: give a path, MLIR "
                "text, bytes, a Program or Analysis, a jax.stages.Lowered, a JAX function or "
                "torch.nn.Module with example arguments, or a torch.export ExportedProgram")
        text = lowered.as_text(debug_info=True)
        label = name or f"<jax {getattr(program, '__name__', type(program).__name__)}>"
        return (("content", hashlib.sha256(text.encode("utf-8")).hexdigest(), mesh, version),
                lambda: analyze(load_program(text, name=label, mesh=mesh)), None)


_DEFAULT = ProgramCache()


def default_cache() -> ProgramCache:
    """The process-wide cache `predict` and `predict_many` use by default."""
    return _DEFAULT


def checked_cache(cache: Any) -> ProgramCache:
    if cache is None:
        return _DEFAULT
    if not isinstance(cache, ProgramCache):
        raise InvalidArgumentError(f"cache must be a ProgramCache or None, got "
                                   f"{type(cache).__name__}")
    return cache


def cached_analysis(program: Any, mesh: Any = None, *, cache: ProgramCache | None = None,
                    args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None
                    ) -> Analysis:
    """The (memoized) analysis of `program` on `mesh`: the same object for the same
    content while it stays in the cache."""
    return checked_cache(cache).prepared(program, mesh, args, kwargs).analysis


_hw_keys: dict[int, tuple[Hardware, Any]] = {}
_hw_lock = threading.Lock()


def hardware_key(hw: Hardware) -> Any:
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
