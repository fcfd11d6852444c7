"""A bundled learned model adapted to this machine: correction factors fitted by
`stablecost hardware adapt` (train/adapt.py) on timings taken here, applied on top of
the bundle's estimate whenever predict runs on a machine with the same fingerprint.

    step time (step GNN)    = floor + roofline-priced kernels
                              + (bundle's step time - both) x step_factor
    kernel time (sum)       = bundle's kernel time x kernel_factors[kernel kind]
                              (default_kernel_factor for a kind adapt did not see)

Kernels the learned fidelity priced by the roofline (outside its kernel model's data,
`models.coverage`) are priced through this machine's own calibration already, so no
factor touches them: a factor is fitted to the bundle's errors on this machine, and
scaling those kernels by it moved a decoder's steps, whose loop-nest filter gradients
are priced by the roofline, from 14 % to 53 % off on the Intel machine.

An adaptation is a small JSON file in the user's config dir, one per chip and machine
fingerprint (`adapted/<chip>-<fingerprint id>.json`). On a machine without one whose
fingerprint differs from the bundle's data, the bundle's own factors apply where it
ships them (`<bundle>/other_machines/`, `train/other_machines.py`):

- on a machine the project's data comes from (`data/*/`, the fingerprint id exactly),
  that machine's own factors, fitted on its data as adapt would fit them
  (`machines.json`);
- on any other machine, the default: the same factors fitted on the data of every
  machine other than the bundle's (`adaptation.json`). The default's step factor is
  shipped only where, fitted without each machine, it made that machine's steps closer
  than none (`train.other_machines.checked_step_factor`); with the in-step corrector it
  did not on any, so today's default corrects kernel sums only (step x1).

`stablecost hardware adapt` replaces either with this machine's own; on a machine of the
bundle's data it pools its factors with the bundle's for that machine
(`train.adapt.pooled_with`).

Each adaptation records the bundle it corrects (the kernel model's data digest) and the
featurizer version; a file made for another bundle or featurizer is not used, and the
prediction's notes say why.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..errors import ModelError
from ..featurize.analysis import Analysis
from ..featurize.fusion import COLLECTIVE
from ..featurize.program import FEATURIZER_VERSION
from ..hardware import config_dir

ADAPTATION_VERSION = 1
# the bundle's default for machines other than its own: its folder, file and the
# fingerprint id it carries in place of one machine's
OTHER_MACHINES = "other_machines"
OTHER_MACHINES_FILE = "adaptation.json"
OTHER_MACHINES_ID = "other-machines"
# beside it, the factors of each machine the bundle's data comes from, by fingerprint id
MACHINES_FILE = "machines.json"
# where an adaptation comes from
ORIGINS = ("adapt", "bundle-default", "bundle-machine")
# a factor outside this range is a broken fit, not a machine difference
MIN_FACTOR, MAX_FACTOR = 1 / 20, 20.0


@dataclass(frozen=True)
class Adaptation:
    hardware: str
    fingerprint_id: str
    bundle_digest: str             # the bundle it corrects (`LearnedModels.adaptation_digest`)
    featurizer_version: str
    step_factor: float
    default_kernel_factor: float
    kernel_factors: Mapping[str, float] = field(default_factory=dict)
    samples: Mapping[str, int] = field(default_factory=dict)   # kernel / program rows fitted
    created: str = ""
    path: str = ""
    # the fingerprint ids of the machines whose data it was fitted on (the bundle's)
    machines: tuple[str, ...] = ()
    # "adapt" (this machine's, `stablecost hardware adapt`), "bundle-default" (the
    # bundle's for machines not in its data) or "bundle-machine" (the bundle's for one
    # machine of its data)
    origin: str = "adapt"

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["version"] = ADAPTATION_VERSION
        out.pop("path")
        return out

    @classmethod
    def from_dict(cls, data: Any, path: Path) -> "Adaptation":
        if not isinstance(data, dict) or data.get("version") != ADAPTATION_VERSION:
            raise ModelError(f"{path}: not a stablecost adaptation of version "
                             f"{ADAPTATION_VERSION}; run `stablecost hardware adapt` again")
        try:
            factors = {str(k): float(v) for k, v in dict(data["kernel_factors"]).items()}
            adaptation = cls(
                hardware=str(data["hardware"]), fingerprint_id=str(data["fingerprint_id"]),
                bundle_digest=str(data["bundle_digest"]),
                featurizer_version=str(data["featurizer_version"]),
                step_factor=float(data["step_factor"]),
                default_kernel_factor=float(data["default_kernel_factor"]),
                kernel_factors=factors,
                samples={str(k): int(v) for k, v in dict(data.get("samples", {})).items()},
                created=str(data.get("created", "")), path=str(path),
                machines=tuple(str(m) for m in data.get("machines", ())),
                origin=str(data.get("origin") or (
                    "bundle-default" if data["fingerprint_id"] == OTHER_MACHINES_ID
                    else "adapt")))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{path}: damaged adaptation ({type(exc).__name__}: {exc}); run "
                             "`stablecost hardware adapt` again") from None
        bad = [v for v in (adaptation.step_factor, adaptation.default_kernel_factor,
                           *factors.values())
               if not (math.isfinite(v) and MIN_FACTOR <= v <= MAX_FACTOR)]
        if adaptation.origin not in ORIGINS:
            raise ModelError(f"{path}: unknown origin {adaptation.origin!r}; allowed: "
                             f"{', '.join(ORIGINS)}")
        if bad:
            raise ModelError(f"{path}: correction factor {bad[0]!r} outside "
                             f"[{MIN_FACTOR:g}, {MAX_FACTOR:g}]; run `stablecost hardware "
                             "adapt` again")
        return adaptation

    def describe(self) -> str:
        n = ", ".join(f"{v} {k} rows" for k, v in self.samples.items())
        if self.origin == "bundle-machine":
            return (f"this machine has no adaptation of its own, but the project's data "
                    f"comes from it: the bundle's factors for it apply, fitted on that data "
                    f"({n}): step x{self.step_factor:.2f}, kernels "
                    f"x{self.default_kernel_factor:.2f} by default; `stablecost hardware "
                    "adapt` fits them afresh here")
        if self.origin == "bundle-default":
            return (f"this machine has no adaptation: the bundle's default for machines "
                    f"other than its own applies, fitted on the data of "
                    f"{len(self.machines)} of them ({', '.join(self.machines)}; {n}): step "
                    f"x{self.step_factor:.2f}, kernels x{self.default_kernel_factor:.2f} by "
                    "default; `stablecost hardware adapt` fits this machine's own")
        return (f"adapted to this machine by `stablecost hardware adapt` ({self.created[:10]}"
                f"{'; ' + n if n else ''}): step x{self.step_factor:.2f}, kernels "
                f"x{self.default_kernel_factor:.2f} by default")


def adaptation_path(hardware: str, fingerprint_id: str) -> Path:
    environ = os.environ
    return _adaptation_path(hardware, fingerprint_id, environ.get("STABLECOST_CONFIG_DIR"),
                            environ.get("XDG_CONFIG_HOME"), environ.get("HOME"))


@functools.lru_cache(maxsize=256)
def _adaptation_path(hardware: str, fingerprint_id: str, *environment: str | None) -> Path:
    # cached by what config_dir() reads: predict asks for it on every call
    # (`adaptation_stamp`)
    from .learned import hardware_slug

    return config_dir() / "adapted" / f"{hardware_slug(hardware)}-{fingerprint_id}.json"


@functools.cache
def local_fingerprint_id() -> str:
    """The fingerprint id of this process's JAX backend (what collect keys datasets by)."""
    from ..hardware.fingerprint import fingerprint_id, local_machine

    return fingerprint_id(local_machine().fingerprint)


def read_adaptation(path: Path) -> Adaptation | None:
    """The adaptation in `path`, or None when there is none."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ModelError(f"{path}: unreadable adaptation ({exc})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ModelError(f"{path}: damaged adaptation (not JSON: {exc}); run `stablecost "
                         "hardware adapt` again") from None
    return Adaptation.from_dict(data, path)


@functools.lru_cache(maxsize=8)
def _read_cached(path: Path, mtime_ns: int) -> Adaptation | None:
    return read_adaptation(path)


def adaptation_stamp(hardware: str) -> tuple[str, int | None]:
    """This machine's adaptation file of `hardware`'s bundle and its modification time
    (None when there is none): what tells a memoized prediction that it changed."""
    path = str(adaptation_path(hardware, local_fingerprint_id()))
    try:
        return path, os.stat(path).st_mtime_ns
    except OSError:
        return path, None


def find_adaptation(hardware: str, bundle_digest: str) -> tuple[Adaptation | None, str]:
    """This machine's adaptation of `hardware`'s bundle, or None and a note saying why
    an existing one is not used ("" when there is none)."""
    path = adaptation_path(hardware, local_fingerprint_id())
    try:
        mtime_ns = path.stat().st_mtime_ns
    except OSError:
        return None, ""
    adaptation = _read_cached(path, mtime_ns)
    if adaptation is None:
        return None, ""
    why = usable(adaptation, bundle_digest)
    return (None, why) if why else (adaptation, "")


def bundled_adaptation(bundle: Path, bundle_digest: str) -> tuple[Adaptation | None, str]:
    """The bundle's adaptation for this machine, if it ships one: this machine's own
    factors where the bundle's data comes from it, else its default for other machines
    (None, "" when neither; None and why when it corrects another bundle)."""
    folder = Path(bundle) / OTHER_MACHINES
    if not folder.is_dir():
        return None, ""
    default, machines = _read_bundled(folder)
    adaptation = machines.get(local_fingerprint_id(), default)
    why = usable(adaptation, bundle_digest)
    return (None, why) if why else (adaptation, "")


def bundled_machine_factors(bundle: Path, bundle_digest: str) -> Adaptation | None:
    """The bundle's own factors for this machine (a machine its data comes from), None
    when it ships none for it or they correct another bundle."""
    folder = Path(bundle) / OTHER_MACHINES
    if not folder.is_dir():
        return None
    own = _read_bundled(folder)[1].get(local_fingerprint_id())
    return own if own is not None and not usable(own, bundle_digest) else None


@functools.lru_cache(maxsize=4)
def _read_bundled(folder: Path) -> tuple[Adaptation, dict[str, Adaptation]]:
    """(the default, {fingerprint id: that machine's factors}) of a bundle's folder."""
    from .manifest import verified_files

    files = verified_files(folder, [OTHER_MACHINES_FILE], [MACHINES_FILE])
    try:
        default = Adaptation.from_dict(json.loads(files[OTHER_MACHINES_FILE]),
                                       folder / OTHER_MACHINES_FILE)
        listed = json.loads(files.get(MACHINES_FILE, b"{}"))
    except ValueError as exc:
        raise ModelError(f"{folder}: damaged adaptation (not JSON: {exc})") from None
    if not isinstance(listed, dict):
        raise ModelError(f"{folder / MACHINES_FILE}: not a mapping of fingerprint ids to "
                         "adaptations")
    machines = {str(fingerprint): Adaptation.from_dict(data, folder / MACHINES_FILE)
                for fingerprint, data in listed.items()}
    return default, machines


def usable(adaptation: Adaptation, bundle_digest: str) -> str:
    """"" when `adaptation` corrects this bundle under this featurizer, else why not."""
    if adaptation.bundle_digest != bundle_digest:
        return (f"the adaptation in {adaptation.path} was fitted for another bundle "
                f"({adaptation.bundle_digest}, this one {bundle_digest}): not used; run "
                "`stablecost hardware adapt` again")
    if adaptation.featurizer_version != FEATURIZER_VERSION:
        return (f"the adaptation in {adaptation.path} was fitted under featurizer "
                f"{adaptation.featurizer_version} (this one {FEATURIZER_VERSION}): not used")
    return ""


def fixed_seconds(analysis: Analysis, time_s: np.ndarray,
                  fallback: np.ndarray | None) -> float:
    """Seconds of the step's kernels priced by the roofline (`fallback`), which no
    adaptation factor scales."""
    if fallback is None or not np.any(fallback):
        return 0.0
    counts = np.array([k.count for k in analysis.kernels], dtype=float)
    return float(np.dot(counts[fallback], np.asarray(time_s, dtype=float)[fallback]))


def apply(adaptation: Adaptation, analysis: Analysis, time_s: np.ndarray,
          step_s: float | None, floor_s: float, fallback: np.ndarray | None = None
          ) -> tuple[np.ndarray, float | None]:
    """The corrected per-kernel times and step time (see the module docstring).
    `fallback`: per kernel, priced by the roofline; those keep their time."""
    factors = np.array([
        0.0 if k.kind == COLLECTIVE else
        adaptation.kernel_factors.get(k.kind, adaptation.default_kernel_factor)
        for k in analysis.kernels])
    if fallback is not None:
        factors = np.where(fallback, 1.0, factors)
    corrected = np.asarray(time_s, dtype=float) * factors
    if step_s is None:
        return corrected, None
    fixed = floor_s + fixed_seconds(analysis, time_s, fallback)
    return corrected, fixed + max(step_s - fixed, 0.0) * adaptation.step_factor
