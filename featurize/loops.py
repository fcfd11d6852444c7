"""Trip counts of `stablehlo.while` loops, from the counter pattern `fori_loop` and
`scan` emit: a block argument started at a constant, stepped by a constant each
iteration and compared against a constant bound. The walk reports the scalar constants
it meets and the counters of the loops it enters, so that a loop nested in another may
run up to the enclosing loop's counter (its count is then a mean over that loop)."""

from __future__ import annotations

import math
from typing import Any

from .attributes import scalar_constant

# Ops through which a loop counter stays a counter (shifted by a constant).
COUNTER_ARITHMETIC = frozenset({"stablehlo.add", "stablehlo.subtract", "stablehlo.convert"})
# An enclosing loop's counter with more values than this is not followed into the
# loops nested in it (their counts are then not derivable).
MAX_COUNTER_VALUES = 100_000
# The comparison direction with its operands swapped.
_MIRROR = {"LT": "GT", "LE": "GE", "GT": "LT", "GE": "LE", "NE": "NE", "EQ": "EQ"}


class LoopCounters:
    """The scalar constants and loop counters of one module walk, and the trip counts
    derived from them."""

    def __init__(self, ir: Any, stablehlo: Any, functions: dict[str, Any]) -> None:
        self.ir = ir
        self.stablehlo = stablehlo
        self.functions = functions
        # value id -> the scalar constant it holds
        self.const_values: dict[int, int | float] = {}
        # value id of a loop counter inside its loop -> the values it takes
        self.counter_values: dict[int, range] = {}

    def note_counters(self, init: list[int], body: Any, body_yield: Any,
                      trip: int | float, invariant: list[bool], env: dict) -> None:
        """Remember the values each induction variable of the body takes (a constant
        start, a constant step per iteration): loops nested in this one may run up to
        them. jax's fori_loop carries the user's `i` beside the loop's own counter.
        Loops run a whole number of times up to MAX_COUNTER_VALUES only."""
        if not (isinstance(trip, int) and 0 < trip <= MAX_COUNTER_VALUES):
            return
        for position, (arg, vid) in enumerate(zip(body.arguments, init)):
            start = self.const_values.get(vid)
            if invariant[position] or not isinstance(start, int):
                continue
            step = self._counter_step(body_yield[position], position, init, body_yield, body)
            if isinstance(step, int) and step:
                self.counter_values[env[arg]] = range(start, start + trip * step, step)

    def trip_count(self, init: list[int], cond: Any, body: Any, body_yield: Any
                   ) -> tuple[int | float | None, str]:
        """(trip count or None when it cannot be derived, explanation).

        A loop whose start or bound is the counter of an enclosing loop runs a different
        number of times in each iteration of the enclosing loop: its count is their
        mean, so that it times the enclosing loop's count is the exact total.
        """
        ir = self.ir
        cond_ops = list(cond.operations)
        predicate = cond_ops[-1].operation.operands[0]
        if isinstance(predicate, ir.BlockArgument):
            return None, "the condition is not a single compare"
        if predicate.owner.name == "stablehlo.and":
            return self._early_exit_bound(predicate, init, body, body_yield)
        if predicate.owner.name != "stablehlo.compare":
            return None, "the condition is not a single compare"
        return self._compare_trip(predicate.owner, init, body, body_yield)

    def exits_early(self, cond: Any) -> bool:
        """Whether the loop's condition is an AND whose other terms depend on its data,
        so that its trip count (`trip_count`) is only the most it can run."""
        predicate = list(cond.operations)[-1].operation.operands[0]
        return not isinstance(predicate, self.ir.BlockArgument) and \
            predicate.owner.name == "stablehlo.and"

    def _early_exit_bound(self, predicate: Any, init: list[int], body: Any,
                          body_yield: Any) -> tuple[int | float | None, str]:
        """A condition that is the AND of compares (`while i < n and not converged`,
        how fixed-point solvers, beam searches and ray marchers stop): the loop runs at
        most as often as its counter compare allows. That bound is the count priced,
        the largest the program can take; the others depend on the data."""
        ir = self.ir
        pending, compares = [predicate], []
        while pending:
            value = pending.pop()
            if isinstance(value, ir.BlockArgument):
                continue
            owner = value.owner
            if owner.name == "stablehlo.and":
                pending.extend(owner.operands)
            elif owner.name == "stablehlo.convert":
                pending.append(owner.operands[0])
            elif owner.name == "stablehlo.compare":
                # jax spells `a & b` of booleans as `(a != false) and b`
                flag = self._compared_with_false(owner)
                if flag is not None:
                    pending.append(flag)
                else:
                    compares.append(owner)
        bounds = [trip for trip, _ in (self._compare_trip(c, init, body, body_yield)
                                       for c in compares) if trip is not None]
        if not bounds:
            return None, "an AND of conditions, none a counter against a constant bound"
        trip = min(bounds)
        return trip, (f"it stops early on a condition of its data, and after at most "
                      f"{trip:g} iterations of its counter: priced at {trip:g}, the most it "
                      "can run")

    def _compared_with_false(self, compare: Any) -> Any:
        """`x != false` of a boolean `x`: `x`; otherwise None."""
        direction = self.stablehlo.ComparisonDirectionAttr(
            compare.attributes["comparison_direction"]).value
        if direction != "NE":
            return None
        for flag, other in (compare.operands, reversed(list(compare.operands))):
            owner = None if isinstance(other, self.ir.BlockArgument) else other.owner
            while owner is not None and owner.name in ("stablehlo.broadcast_in_dim",
                                                       "stablehlo.reshape"):
                source = owner.operands[0]
                owner = None if isinstance(source, self.ir.BlockArgument) else source.owner
            if owner is not None and owner.name == "stablehlo.constant" and \
                    "i1" in str(other.type) and scalar_constant(owner.operation) in (0, False):
                return flag
        return None

    def _compare_trip(self, compare: Any, init: list[int], body: Any, body_yield: Any
                      ) -> tuple[int | float | None, str]:
        """The trip count one compare of a counter against a constant bound allows."""
        ir = self.ir
        direction = self.stablehlo.ComparisonDirectionAttr(
            compare.attributes["comparison_direction"]).value
        lhs, rhs = compare.operands[0], compare.operands[1]
        for counter, limit, dirn in ((lhs, rhs, direction), (rhs, lhs, _MIRROR[direction])):
            if not isinstance(counter, ir.BlockArgument):
                continue
            position = counter.arg_number
            start = self._known(init[position])
            bound = self._loop_constant(limit, init, body_yield)
            step = self._counter_step(body_yield[position], position, init, body_yield, body)
            if start is None or bound is None or step is None:
                continue
            if isinstance(start, range) or isinstance(bound, range):
                trip = _mean_trip(start, bound, int(step), dirn)
                if trip is not None:
                    return trip, (f"its bounds follow an enclosing loop's counter: {trip:g} "
                                  "iterations on average over that loop's iterations")
                continue
            trip = _trip(int(start), int(bound), int(step), dirn)
            if trip is not None:
                return trip, ""
        return None, "no counter compared against a constant bound"

    def _known(self, vid: int) -> int | float | range | None:
        """A value's constant, or the values it takes as an enclosing loop's counter."""
        value = self.const_values.get(vid)
        return value if value is not None else self.counter_values.get(vid)

    def _loop_constant(self, value: Any, init: list[int], body_yield: Any
                       ) -> int | float | range | None:
        """A value's constant: defined by a constant, or a loop-invariant argument
        whose initial value is constant (or an enclosing loop's counter)."""
        ir = self.ir
        if isinstance(value, ir.BlockArgument):
            position = value.arg_number
            passed = body_yield[position]
            if isinstance(passed, ir.BlockArgument) and passed.arg_number == position:
                return self._known(init[position])
            return None
        owner = value.owner
        if owner.name == "stablehlo.constant":
            return scalar_constant(owner.operation)
        return None

    def _counter_step(self, yielded: Any, position: int, init: list[int], body_yield: Any,
                      body: Any) -> int | float | None:
        """c when the body yields (its argument `position`) + c at `position`, c a
        constant; looks through the functions the body calls (fori_loop's body is one)."""
        return self._offset(yielded, body.arguments[position], {}, init, body_yield, 0)

    def _offset(self, value: Any, target: Any, passed: dict, init: list[int],
                body_yield: Any, depth: int) -> int | float | None:
        ir = self.ir
        if isinstance(value, ir.BlockArgument):
            if value == target:
                return 0
            outer = passed.get(value)   # an argument of a called function
            return None if outer is None else self._offset(
                outer, target, passed, init, body_yield, depth)
        owner = value.owner
        name = owner.name
        if name in ("stablehlo.add", "stablehlo.subtract"):
            a, b = owner.operands[0], owner.operands[1]
            pairs = ((a, b, 1), (b, a, 1)) if name == "stablehlo.add" else ((a, b, -1),)
            for term, other, sign in pairs:
                offset = self._offset(term, target, passed, init, body_yield, depth)
                if offset is None:
                    continue
                while isinstance(other, ir.BlockArgument) and other in passed:
                    other = passed[other]
                constant = self._loop_constant(other, init, body_yield)
                if isinstance(constant, (int, float)):
                    return offset + sign * constant
            return None
        if name == "stablehlo.convert":
            return self._offset(owner.operands[0], target, passed, init, body_yield, depth)
        if name == "func.call" and depth < 8:
            callee = self.functions.get(owner.attributes["callee"].value)
            if callee is None:
                return None
            entry = callee.regions[0].blocks[0]
            returned = list(entry.operations)[-1].operation.operands[value.result_number]
            inner = dict(passed)
            inner.update(zip(entry.arguments, owner.operands))
            return self._offset(returned, target, inner, init, body_yield, depth + 1)
        return None

    def follow_counter(self, name: str, inputs: tuple[int, ...], output: int) -> None:
        """A loop counter shifted by a constant (`i + 1`, `n - 1 - i`) or converted is
        a counter too: a nested loop may run up to it."""
        counters, constants = self.counter_values, self.const_values
        first = counters.get(inputs[0])
        if name == "stablehlo.convert":
            if first is not None:
                counters[output] = first
            return
        if len(inputs) != 2:
            return
        second = counters.get(inputs[1])
        if first is not None and isinstance(k := constants.get(inputs[1]), int):
            k = k if name == "stablehlo.add" else -k
            counters[output] = range(first.start + k, first.stop + k, first.step)
        elif second is not None and isinstance(k := constants.get(inputs[0]), int):
            if name == "stablehlo.add":
                counters[output] = range(second.start + k, second.stop + k, second.step)
            else:   # k - i
                counters[output] = range(k - second.start, k - second.stop, -second.step)


def _mean_trip(start: int | float | range, bound: int | float | range, step: int,
               direction: str) -> float | None:
    """Mean trip count of a loop whose start and/or bound take the values of an
    enclosing loop's counter (a range), one per iteration of the enclosing loop."""
    if isinstance(start, range) and isinstance(bound, range):
        return None   # two counters: which values go together is not followed
    n = len(start) if isinstance(start, range) else len(bound)  # type: ignore[arg-type]
    if n == 0:
        return 0.0
    total = 0
    for k in range(n):
        s = start[k] if isinstance(start, range) else start
        b = bound[k] if isinstance(bound, range) else bound
        trip = _trip(int(s), int(b), step, direction)
        if trip is None:
            return None
        total += trip
    return total / n


def _trip(start: int, bound: int, step: int, direction: str) -> int | None:
    """Iterations of a counter from `start` by `step` while `counter direction bound`
    holds; None when it never stops (or the direction is not handled)."""
    if step == 0:
        return None
    if direction == "LT" and step > 0:
        return max(0, math.ceil((bound - start) / step))
    if direction == "LE" and step > 0:
        return max(0, (bound - start) // step + 1)
    if direction == "GT" and step < 0:
        return max(0, math.ceil((start - bound) / -step))
    if direction == "GE" and step < 0:
        return max(0, (start - bound) // -step + 1)
    if direction == "NE" and (bound - start) % step == 0 and (bound - start) / step >= 0:
        return (bound - start) // step
    return None
