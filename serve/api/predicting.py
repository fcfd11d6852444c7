"""The entry points `predict` / `predict_many`: one step's time on a system (chips,
mesh, topology), with the per-kernel and per-collective breakdown behind it.

A step is the per-device program's kernels scheduled on a compute and a communication
stream (`serve.api.step`): compute kernels are priced by the chosen fidelity (a
`models.cost_model.CostModel`), collectives by the alpha-beta models on the topology, and
async collectives overlap with the compute that does not need their results.

Both functions are pure (same inputs, same prediction) and thread-safe. Programs are
memoized by a `ProgramCache` (content + mesh), together with what repeated predictions
reuse: per chip and fidelity the kernel rows, per topology the collectives, the
schedule. Re-predicting a cached program on another system therefore costs a lookup,
the collectives' alpha-beta prices and one list schedule.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from ...errors import InvalidArgumentError, StablecostError
from ...hardware import Hardware
from ...models.comm.topology import Topology
from .cache import ProgramCache, checked_cache
from .fidelity import check_fidelity, predict_prepared, resolve_hardware
from .results import Candidate, Prediction


def predict(program: Any, hardware: str | Hardware = "H100-SXM",
            fidelity: str = "auto", *, mesh: Any = None,
            topology: str | Topology | None = None, overlap: bool = True,
            cache: ProgramCache | None = None, entry: str | None = None,
            shapes: Mapping[Any, Any] | None = None,
            dims: Mapping[str, int] | None = None) -> Prediction:
    """Predict one step of `program` on `hardware`.

    program: anything `load_program` accepts (a JAX function needs `load_program` or
        `predict_many` for its example arguments), a `Program`, or an `Analysis`.
    hardware: a catalog name or alias, or a `Hardware`.
    fidelity: "auto" (learned where a bundled model exists for the chip, else the
        roofline; the result's `fidelity` says which), "roofline", "learned",
        "measured" (compiled and timed on this machine's backend: seconds, cached per
        program), "all" (the auto prediction plus the totals of every fidelity but
        measured in `by_fidelity`: cheap enough for a tuner's loop), or "all+measured"
        (all, and measured beside them where it can run here, else a note why not).
    mesh: {axis: size} ("data=4,model=2"): partition an annotated program for that mesh,
        or place a shard_map/pmap program on it (see `load_program`).
    topology: None (the chip's default fabric for the program's devices), a kind name
        with optional dims ("torus2d:2x4", see `models.comm.topology_spec.parse_topology`),
        or a `Topology`.
    overlap: False runs communication and compute back to back (no overlap).
    entry, shapes, dims: which public function is the step, and static shapes for a
        program with dynamic dimensions (see `load_program`).
    """
    check_fidelity(fidelity)
    hw = resolve_hardware(hardware, fidelity)
    prepared = checked_cache(cache).prepared(program, mesh, entry=entry, shapes=shapes,
                                             dims=dims)
    return predict_prepared(prepared, hw, fidelity, topology, _overlap(overlap, True))


def _overlap(value: Any, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InvalidArgumentError(f"overlap must be True or False, got {value!r}")
    return value


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
    cache = checked_cache(cache)
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
            check_fidelity(fid)
            hw = resolve_hardware(c.hardware if c.hardware is not None else hardware, fid)
            entry = cache.prepared(c.program, c.mesh if c.mesh is not None else mesh,
                                   c.args, c.kwargs, entry=c.entry, shapes=c.shapes,
                                   dims=c.dims)
            out.append(predict_prepared(entry, hw, fid,
                                c.topology if c.topology is not None else topology,
                                _overlap(c.overlap, default_overlap)))
        except StablecostError as exc:
            if errors == "raise":
                raise
            out.append(exc)
    return out


def rank(predictions: Sequence[Any], key: Callable[[Prediction], float] | None = None, *,
         fits_only: bool = True) -> list[int]:
    """Indices of `predictions` (what `predict_many` returns) best first, by `key`
    (default: step time); with `fits_only` the configurations whose step does not fit in
    the chip's memory (`Prediction.fits`) are dropped before ranking, as are errors.

    >>> order = rank(predict_many(candidates))      # candidates[order[0]] is the best
    """
    if key is None:
        key = _step_time
    kept = [i for i, p in enumerate(predictions)
            if isinstance(p, Prediction) and (p.fits or not fits_only)]
    return sorted(kept, key=lambda i: key(predictions[i]))


def _step_time(p: Prediction) -> float:
    return p.step_time_s


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
