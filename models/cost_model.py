"""The one interface every fidelity implements, and the registry that names them.

A cost model prices the compute kernels of an `Analysis` on a chip; communication is
priced by `models.comm` and the step is assembled by `serve.api.step` the same
way whatever the fidelity. Adding a fidelity is writing a class with `name`, `covers`
and `estimate`, and calling `register`:

    class Scaled:
        name = "scaled"
        def covers(self, hw): return True
        def estimate(self, analysis, hw, roofline):
            return KernelEstimate(time_s=[2 * t.time_s for t in roofline])

    register(Scaled())
    predict(program, "host-cpu", fidelity="scaled")

`auto` asks the models of `AUTO_ORDER` in turn and takes the first that covers the chip;
`all` shows every model that covers it, except those that run the program
(`runs_program`, the measured fidelity), which `all+measured` adds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Sequence, runtime_checkable

import numpy as np

from ..errors import InvalidArgumentError
from ..featurize.analysis import Analysis
from ..hardware import Hardware
from .roofline import KernelTime

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class KernelEstimate:
    """A cost model's answer for every kernel of one analysis on one chip.

    time_s / low_s / high_s: per kernel, one execution (collectives: ignored, the
        communication models price them); low/high None when the model has no interval.
    floor_s: a per-call cost charged once per step, not per kernel.
    step_s: the compute part of the step when the model prices the step as a whole
        (a step GNN); the kernel rows are then scaled to add up to it. None: the step is
        the sum of the kernels.
    note: what the prediction's notes should say about this estimate ("" for nothing).
    model: which trained model produced it (a bundle path and digest), "" for analytical.
    analytical: the times are the roofline's (launch overhead included in time_s and
        reported as overhead); a learned model sets it when it falls back.
    step_low_s / step_high_s: the 80 % interval of the whole compute time (floor
        included), when the model has one.
    communication_included: step_s is the whole step, communication included (a
        measured multi-device step): collectives are then not priced on top of it.
    analytical_kernels: per kernel, True where the model fell back to the roofline for
        that kernel alone (time_s holds the roofline's time, launch overhead included,
        reported as overhead); None: as `analytical` says for all of them.
    """

    time_s: Sequence[float] | np.ndarray   # the learned models answer in arrays
    low_s: Sequence[float] | np.ndarray | None = None
    high_s: Sequence[float] | np.ndarray | None = None
    floor_s: float = 0.0
    step_s: float | None = None
    note: str = ""
    model: str = ""
    analytical: bool = False
    step_low_s: float | None = None
    step_high_s: float | None = None
    communication_included: bool = False
    analytical_kernels: Sequence[bool] | np.ndarray | None = None


@runtime_checkable
class CostModel(Protocol):
    """A fidelity: prices the kernels of an analysis on a chip."""

    name: str

    def covers(self, hw: Hardware) -> bool:
        """Whether this model can price `hw` at all."""
        ...

    def estimate(self, analysis: Analysis, hw: Hardware,
                 roofline: Sequence[KernelTime]) -> KernelEstimate:
        """Every kernel's time; `roofline` is the roofline of the same kernels on `hw`."""
        ...


def memo_key(model: CostModel, hw: Hardware) -> Any:
    """What a memoized answer of `model` on `hw` depends on besides the program and the
    chip: the model's name, or its own `memo_key(hw)` where what it prices with can
    change within a process (a learned bundle swapped, an adaptation refitted)."""
    own = getattr(model, "memo_key", None)
    return model.name if own is None else own(hw)


class Roofline:
    """`max(compute, memory) + launch overhead` per kernel (`models.roofline`)."""

    name = "roofline"

    def covers(self, hw: Hardware) -> bool:
        return True

    def estimate(self, analysis: Analysis, hw: Hardware,
                 roofline: Sequence[KernelTime]) -> KernelEstimate:
        from .coverage import missing_loop_rate_note

        return KernelEstimate(time_s=[t.time_s for t in roofline], analytical=True,
                              note=missing_loop_rate_note(analysis.kernels,
                                                          analysis.program, hw))


class Learned:
    """The bundled per-kernel XGBoost model and, where bundled, the step calibration and
    the step GNN (`models.learned`)."""

    name = "learned"

    def covers(self, hw: Hardware) -> bool:
        from .learned import models_for

        return models_for(hw) is not None

    def memo_key(self, hw: Hardware) -> Any:
        """The bundle that prices `hw` and this machine's adaptation of it (its file and
        the file's modification time): a prediction memoized under one bundle or
        adaptation is not answered under another."""
        from .adaptation import adaptation_stamp
        from .learned import models_for

        models = models_for(hw)
        if models is None:
            return self.name
        return (self.name, str(models.path), models.adaptation_digest,
                adaptation_stamp(hw.name))

    def estimate(self, analysis: Analysis, hw: Hardware,
                 roofline: Sequence[KernelTime]) -> KernelEstimate:
        from .learned import available, models_for, predict_kernels

        models = models_for(hw)
        if models is None:
            raise InvalidArgumentError(f"no learned model for {hw.name}; learned models exist "
                                       f"for: {', '.join(available()) or 'none'}")
        from .adaptation import (
            apply,
            bundled_adaptation,
            find_adaptation,
        )

        learned = predict_kernels(models, analysis, hw, roofline)
        digest = models.adaptation_digest
        # the loop rule is about the per-call costs of CPU executables; GPU kernel data
        # are CUDA-event times of the kernel alone
        why = "" if models.is_gpu_bundle else out_of_range(analysis, learned)
        if why:
            return KernelEstimate(time_s=[t.time_s for t in roofline], analytical=True,
                                  note=why)
        time_s, low_s, high_s = learned.time_s, learned.low_s, learned.high_s
        # a step model's answer (the GNN's or the calibration's) is not a kernel sum
        step_s = learned.step_s if learned.step_source != "kernel_sum" else None
        notes = [learned.note]
        model = f"{models.path.name} (kernel data {models.kernel_meta.get('data_digest', '')})"
        adaptation, why = find_adaptation(hw.name, digest)
        if adaptation is None and models.machine_differences():
            adaptation, why_default = bundled_adaptation(models.path, digest)
            why = why or why_default
        if adaptation is not None:
            adapted, step_s = apply(adaptation, analysis, time_s, step_s, learned.floor_s,
                                    learned.fallback)
            scale = np.divide(adapted, time_s, out=np.ones_like(adapted), where=time_s > 0)
            time_s, low_s, high_s = adapted, low_s * scale, high_s * scale
            notes.append(adaptation.describe())
            model += {"bundle-default": ", adapted by the bundle's default for other machines",
                      "bundle-machine": ", adapted by the bundle's factors for this machine"
                      }.get(adaptation.origin, f", adapted on machine {adaptation.fingerprint_id}")
        elif why:
            notes.append(why)
        total_s = step_s if step_s is not None else \
            learned.floor_s + float(np.dot([k.count for k in analysis.kernels], time_s))
        fresh_s, fresh_note = (0.0, "") if models.is_gpu_bundle else \
            fresh_temporaries(analysis, hw)
        if fresh_s > 0:
            total_s += fresh_s
            step_s = total_s
            notes.append(fresh_note)
        low, high = step_interval(models, learned, total_s)
        if models.is_gpu_bundle and total_s < GPU_SHORT_STEP_S:
            notes.append(GPU_SHORT_STEP_NOTE.format(ms=total_s * 1e3))
        skippable = early_exit_share(analysis, time_s)
        if skippable > 0:
            # the interval keeps the loops at their cap above and run once below; the
            # answer between is `early_exit_step`'s
            step_s = early_exit_step(total_s, skippable)
            if low is not None:
                low *= 1.0 - skippable
            notes.append(f"loops that stop on their data are priced at {EARLY_EXIT_RULE} "
                         f"({skippable:.0%} of the kernel time at the cap is beyond one "
                         f"iteration): the step takes about "
                         f"{_short_time(total_s * (1.0 - skippable))} if they stop after "
                         f"one iteration and {_short_time(total_s)} at the cap, and where "
                         f"between depends on the data; the 80 % interval reaches from one "
                         f"iteration of them to the cap")
        return KernelEstimate(time_s=time_s, low_s=low_s, high_s=high_s,
                              floor_s=learned.floor_s, step_s=step_s,
                              note="; ".join(n for n in notes if n), model=model,
                              step_low_s=low, step_high_s=high,
                              analytical_kernels=learned.fallback)


# The share of the calibrated fresh-page cost a step is charged for temporaries of at
# least FRESH_BUFFER_BYTES: of the 23 programs of the stored sets whose XLA:CPU
# temporary allocation was past 32 MiB on the Zen 5 machine, 17 took a page fault on
# every page of it each call, one on two thirds, five on almost none (none of the
# kernel-level causes was found); 0.75 x 1.05 us per page is also about where the stored
# sets' learned MAPE is least (0.75 us), the temporaries estimated as below
# (benchmarks/RESULTS.md).
FAULTING_SHARE = 0.75


def fresh_temporaries(analysis: Analysis, hw: Hardware) -> tuple[float, str]:
    """(seconds, note) a CPU step spends faulting in the pages of its temporaries on a
    spec that measured `fresh_page_s`: glibc maps an allocation of FRESH_BUFFER_BYTES or
    more afresh on every call, and XLA:CPU holds the step's temporaries in one such
    allocation once they pass that size. The temporaries are the liveness estimate of
    `models.memory.step_memory`; (0, "") below the size or without the rate. The kernel
    models learned kernels timed alone, whose buffers stay mapped between calls."""
    from ..hardware.calibrate import FRESH_BUFFER_BYTES, PAGE_BYTES
    from .memory import step_memory

    if hw.kind != "cpu" or not hw.fresh_page_s:
        return 0.0, ""
    temporary = step_memory(analysis).temporary_bytes
    if temporary <= FRESH_BUFFER_BYTES:   # exactly 32 MiB (two such programs) took none
        return 0.0, ""
    seconds = FAULTING_SHARE * hw.fresh_page_s * temporary / PAGE_BYTES
    return seconds, (
        f"{_short_time(seconds)} for page faults: about {temporary / 2**20:.0f} MiB of "
        f"temporaries, which XLA:CPU maps afresh on every call past "
        f"{FRESH_BUFFER_BYTES >> 20} MiB ({FAULTING_SHARE:.0%} of {hw.name}'s calibrated "
        f"{hw.fresh_page_s * 1e6:.2f} µs per 4 KiB page)")


# The step calibration's 80 % interval is read off families held out of its training
# data, and programs of kinds that data lacks fall outside it more often: of the eleven
# never-seen sets judged at first run on the Intel and Zen 5 machines (never-seen-20 to
# -30, 165 programs) about two steps in three were inside, and of never-seen-29 and -30
# priced by the bundle of `97e8ae9`, 16 of 30. Both ends are moved out by this factor in
# log: 22 of those 30 inside, and of the 261 stored programs in no Zen 5 training data
# (whose profiles on the Intel machine the corrector learned) 90 % on Zen 5 and 93 % on
# Intel, from 86 % and 88 %; the median width goes from 3.46x to 4.72x
# (benchmarks/RESULTS.md).
NOVEL_PROGRAM_WIDENING = 1.25


def calibration_interval(calibration: Any) -> tuple[float, float]:
    """The log(measured / predicted) bounds of the 80 % interval of a step the step
    calibration priced: its held-out-family bounds moved out by NOVEL_PROGRAM_WIDENING."""
    low, high = calibration.interval_log_ratio
    return low * NOVEL_PROGRAM_WIDENING, high * NOVEL_PROGRAM_WIDENING


def step_interval(models: Any, learned: Any, total_s: float
                  ) -> tuple[float | None, float | None]:
    """The 80 % interval of a learned step of `total_s` seconds (after any adaptation).

    A step the calibration priced: its own interval, read off held-out families and
    widened for programs unlike its data (`calibration_interval`). A step
    the GNN priced, alone or blended with the calibration: the hull of the GNN's
    interval (from validation programs of its training families) around the GNN's
    answer and the calibration's around the calibration's. Whether a program is of a
    family the GNN knows cannot be told from the program, and on families held out the
    GNN's own interval covered 28 % of measured steps, the hull 81 %
    (benchmarks/RESULTS.md). A kernel-sum step: the bundle's table, if it has one.
    """
    source = learned.step_source
    calibration = getattr(learned, "calibration", None) or models.calibration
    table = models.step_interval or {}
    scale = total_s / learned.step_s if learned.step_s > 0 else 1.0   # the adaptation
    if source == "step_calibration" and calibration is not None:
        lo, hi = calibration_interval(calibration)
        return total_s * math.exp(lo), total_s * math.exp(hi)
    if source in ("step_gnn", "step_blend") and "step_gnn" in table:
        lo, hi = table["step_gnn"]
        gnn_s = (learned.gnn_s if learned.gnn_s is not None else learned.step_s) * scale
        low, high = gnn_s * math.exp(lo), gnn_s * math.exp(hi)
        if calibration is not None and learned.calibrated_s is not None:
            other_s = learned.calibrated_s * scale
            low = min(low, other_s * math.exp(calibration.interval_log_ratio[0]))
            high = max(high, other_s * math.exp(calibration.interval_log_ratio[1]))
        return low, high
    bounds = table.get(source)
    if bounds is None:
        return None, None
    return total_s * math.exp(bounds[0]), total_s * math.exp(bounds[1])


# A GPU step shorter than this is mostly kernel launches and dispatch, which neither
# fidelity prices well: on the H200's 130 zoo steps of 0.1-3 ms (XLA:GPU, 2026-11-27)
# the learned kernel sum was 66.4 % MAPE and the roofline 53.0 %, against a 20.6 %
# repeat floor; a step measured on another GPU and carried (`--measured-on`), 17.2 %
# (benchmarks/RESULTS.md, "A second H200 lease"). The prediction says so.
GPU_SHORT_STEP_S = 3e-3
GPU_SHORT_STEP_NOTE = (
    "a GPU step this short ({ms:.2f} ms) is mostly launches and dispatch: on 130 measured "
    "H200 steps of 0.1-3 ms the learned fidelity was 66 % MAPE and the roofline 53 % "
    "(repeat floor 21 %); a step measured on another GPU and carried by --measured-on "
    "was 17 %")

# A loop that stops on its data (`while i < n and not converged`) can run from one
# iteration to its counter bound, and where it stops cannot be read from the program.
# The learned fidelity prices such a step at the harmonic mean of its two ends (the loops
# run once, and at their cap): the point of least expected absolute percentage error were
# the step log-uniform between them, and under twice the step run once, so that however
# early the loops stop it is less than 100 % over. On the 27 programs with such loops
# among the stored sets timed on the Zen 5 machine (`benchmarks/early_exit.py`, commit
# a83fa10) it came to a MAPE of 81 % (median APE 84 %, the largest 200 %) where the rule
# before it, 60 % of the way from one iteration to the cap, came to 3,726 % (median 59 %):
# such loops either stop within their first iterations (a WalkSAT search, 1,761x below
# its cap, priced 940x over by that rule) or run most of their cap, and no share of the
# cap serves both. Over the 261 stored programs in no Zen 5 training data the pooled MAPE
# fell from 398 % to 36 % and the median APE rose from 28.5 to 29.3 %
# (benchmarks/RESULTS.md). The notes give the step at both ends, and the 80 % interval
# reaches from one to the other.
EARLY_EXIT_RULE = "the harmonic mean of one iteration and the cap"


def early_exit_step(cap_s: float, share: float) -> float:
    """The learned answer for a step of `cap_s` seconds with its early-exit loops run to
    their cap, `share` (below 1) of whose kernel time those loops would not spend if they
    stopped after one iteration: the harmonic mean of the step at the cap and the step
    with them run once (EARLY_EXIT_RULE): 2 x once x cap / (once + cap), with once =
    cap x (1 - share)."""
    return cap_s * 2.0 * (1.0 - share) / (2.0 - share)


def early_exit_cap(step_s: float, share: float) -> float:
    """The step at the loops' cap behind an `early_exit_step` answer of `step_s` seconds
    with that `share` (its inverse)."""
    return step_s * (2.0 - share) / (2.0 * (1.0 - share))


def _short_time(seconds: float) -> str:
    """`seconds` for a note: 3 significant digits in s, ms or µs."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e6:.3g} µs"


def early_exit_share(analysis: Analysis, time_s: Sequence[float] | np.ndarray) -> float:
    """The share of the step's kernel time (executions x `time_s`) that its early-exit
    loops would not spend if each stopped after one iteration.

    Such a loop (`while i < n and not converged`) is priced at the most it can run
    (`featurize.loops`), which is all that can be read from the program; where it stops
    depends on its data. Its time is an upper bound, so the step's interval reaches
    down to the loop run once."""
    program = analysis.program
    early = [loop for loop in program.loops if loop.exits_early and loop.trip_count > 1]
    if not early:
        return 0.0
    total = skipped = 0.0
    for kernel, t in zip(analysis.kernels, time_s):
        seconds = kernel.count * float(t)
        total += seconds
        kept = 1.0
        for loop in early:
            if loop.blocks[0] <= kernel.block <= loop.blocks[1]:
                kept /= loop.trip_count
        skipped += seconds * (1.0 - kept)
    return skipped / total if total > 0 else 0.0


# A program the kernel sum prices (too small for the step GNN, or with opcodes it never
# saw) whose loop kernels carry this share of the learned time is priced by the
# roofline: the kernel model learned standalone executables, whose per-call costs a
# loop body does not pay on every iteration (a 64-step scan RNN: learned 5-18x the
# measured time, roofline 2-5x; benchmarks/RESULTS.md).
LOOP_FALLBACK_SHARE = 0.5


def out_of_range(analysis: Analysis, learned: Any) -> str:
    """Why the learned kernels of `analysis` should not price it ("" when they may)."""
    if learned.step_source != "kernel_sum":
        return ""
    weights = [k.count * float(t) for k, t in zip(analysis.kernels, learned.time_s)]
    total = sum(weights)
    in_loops = sum(w for k, w in zip(analysis.kernels, weights) if k.count > 1)
    if total <= 0 or in_loops / total < LOOP_FALLBACK_SHARE:
        return ""
    return (f"priced by the roofline, not the learned model: kernels that run in loops "
            f"carry {in_loops / total:.0%} of the learned kernel time, and the kernel model "
            "learned standalone executables, whose per-call costs a loop iteration does "
            "not pay (the step GNN did not price it)")


class Measured:
    """Runs the program: compiles it on the local JAX backend and times its step with
    the collector's rule (`models.measured`). Covers only the chip that backend is
    (host-cpu on CPU), and programs of one device.

    Measuring costs seconds (a compile and up to 3 s of timed calls) where the other
    fidelities cost microseconds, so `auto` never picks it and `all`, which tuners call
    in their loops, leaves it out: `all+measured` asks for it side by side with the
    others (`runs_program`).
    """

    name = "measured"
    runs_program = True   # costly: only when asked for by name or by all+measured

    def covers(self, hw: Hardware) -> bool:
        from .measured import local_hardware

        return hw.name == local_hardware()

    def estimate(self, analysis: Analysis, hw: Hardware,
                 roofline: Sequence[KernelTime]) -> KernelEstimate:
        from .measured import estimate

        return estimate(analysis, hw, roofline)


def runs_program(model: CostModel) -> bool:
    """Whether `model` runs the program (costly) instead of pricing it."""
    return bool(getattr(model, "runs_program", False))


_REGISTRY: dict[str, CostModel] = {}
# what `auto` tries, best first
AUTO_ORDER: list[str] = ["learned", "roofline"]


def register(model: CostModel) -> None:
    """Make `model` a fidelity under `model.name` (replacing one of that name)."""
    if not isinstance(model, CostModel):
        raise InvalidArgumentError(
            f"{type(model).__name__} is not a cost model: it needs name, covers() and "
            "estimate()")
    if model.name in ("auto", "all", "all+measured"):
        raise InvalidArgumentError(f"fidelity name {model.name!r} is reserved")
    _REGISTRY[model.name] = model


def names() -> tuple[str, ...]:
    """Every registered fidelity, in registration order."""
    return tuple(_REGISTRY)


def get(name: str) -> CostModel:
    try:
        return _REGISTRY[name]
    except KeyError:
        allowed = ", ".join(("auto", *_REGISTRY, "all"))
        raise InvalidArgumentError(f"unknown fidelity {name!r}; allowed: {allowed}") from None


def covering(hw: Hardware, *, run: bool = False) -> list[CostModel]:
    """The registered models that can price `hw`, in registration order; models that
    run the program only when `run` is true."""
    return [m for m in _REGISTRY.values()
            if (run or not runs_program(m)) and m.covers(hw)]


def auto(hw: Hardware) -> CostModel:
    """The model `auto` uses on `hw`: the first of `AUTO_ORDER` that covers it."""
    for name in AUTO_ORDER:
        model = _REGISTRY.get(name)
        if model is not None and model.covers(hw):
            return model
    return _REGISTRY["roofline"]


register(Roofline())
register(Learned())
register(Measured())
