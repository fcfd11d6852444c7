"""Multi-output fusion: the pass XLA:GPU (`MultiOutputFusion`, gpu/transforms/
multi_output_fusion.cc) runs after producer-consumer fusion, on the kernels `fuse`
formed. Two merges, both sharing one parallel loop ("hero") and writing every result
that is still needed outside:

- siblings: kernels reading one value (not an effective scalar) merge when their
  heroes are compatible and neither depends on the other; the shared value is then
  read once. Batch norm's mean and mean of squares of one activation become one kernel.
- producer into consumer: a loop kernel whose result several kernels (or the step's
  outputs) need fuses into one consumer kernel with a compatible hero, when no other
  input of that consumer depends on it; the consumer no longer reads the result back.

Heroes (`gpu_fusible.cc`, ShapesCompatibleForMultiOutputFusion): a reduction kernel
loops over its reduce's operand, a loop kernel over its root's result. Two reductions
are compatible when they reduce the same contiguous groups of equal size (size-1 dims
dropped: `[8,16,16,32]` over {0,1,2} is (reduced 2048, kept 32)); a reduction and a loop
kernel, or two loop kernels, when their loop shapes have as many elements (a reshape of
a default-layout array is a bitcast). Budgets as XLA's: at most 8 reductions and 96
operands plus outputs per kernel. Not modelled: XLA's performance-model veto of a
producer-consumer merge (taken as always profitable: the merged kernel reads no more
than the two did), transposes' tiled heroes (a kernel with a transpose is left alone),
and slices of a shared operand that do not overlap.

Worked example (batch-norm statistics of x: f32[8,16,16,32], 128 KiB): kernels
R1 = reduce(x) and R2 = reduce(x * x) both read x, reduce {0,1,2}: one kernel that
reads x once (131072 B) and writes two f32[32] (256 B) instead of 2 x 131200 B.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .program import Program

LOOP, REDUCTION = "loop", "reduction"
MAX_REDUCTIONS = 8                  # kMaxUnnestedReductionOutputsPerFusion
MAX_OPERANDS_AND_OUTPUTS = 96       # MaxOperandsAndOutputsPerFusion
_NOT_MULTI_OUTPUT = frozenset({"dynamic_update_slice", "scatter", "transpose"})

class Hero(NamedTuple):
    """A kernel's parallel loop: how many elements it runs over and, for a reduction,
    its (reduced?, size) groups of contiguous dimensions (empty for a loop kernel)."""

    elements: int
    reduce_groups: tuple[tuple[bool, int], ...] = ()


def hero(program: Program, kind: str, member_ops: list[int]) -> Hero | None:
    """What a kernel's parallel loop runs over, or None when it cannot be a root of a
    multi-output kernel."""
    ops = program.ops
    if any(ops[m].opcode in _NOT_MULTI_OUTPUT for m in member_ops):
        return None
    if kind == REDUCTION:
        root = ops[member_ops[0]]
        if root.opcode != "reduce" or len(root.results) != 1:
            return None     # reduce_window, variadic reductions: left alone
        operand = root.operands[0]
        return Hero(operand.num_elements, _reduce_groups(
            operand.shape, set(root.attributes.get("dimensions", ()))))
    if kind == LOOP:
        results = ops[max(member_ops)].results
        return Hero(results[0].num_elements) if results else None
    return None


def _reduce_groups(shape: tuple[int, ...], reduced: set[int]
                   ) -> tuple[tuple[bool, int], ...]:
    runs: list[tuple[bool, int]] = []
    for d, size in enumerate(shape):
        if size == 1:
            continue
        r = d in reduced
        if runs and runs[-1][0] == r:
            runs[-1] = (r, runs[-1][1] * size)
        else:
            runs.append((r, size))
    return tuple(runs)


def compatible(a: Hero, b: Hero) -> bool:
    if a.reduce_groups and b.reduce_groups:
        return a.reduce_groups == b.reduce_groups
    return a.elements == b.elements


def multi_output_fusion(program: Program, classes: list[str], kinds: list[str],
                        members: list[list[int]], blocks: list[int],
                        groups: list[list[int]]) -> list[int]:
    """Merge `fuse`'s kernels (lists indexed by kernel; `groups`: op -> its kernels) in
    place as XLA's multi-output fusion would; returns the kernels still alive. Parents
    are visited defs before uses, siblings first, then the producer into a consumer."""
    return _MultiOutput(program, classes, kinds, members, blocks, groups).run()


class _MultiOutput:
    def __init__(self, program: Program, classes: list[str], kinds: list[str],
                 members: list[list[int]], blocks: list[int],
                 groups: list[list[int]]) -> None:
        self.program, self.kinds, self.members, self.blocks, self.groups = (
            program, kinds, members, blocks, groups)
        ops, producers = program.ops, program.producers
        n = len(kinds)
        self.alive = [True] * n
        self.multi = [False] * n
        self.heroes = [hero(program, kinds[k], members[k]) for k in range(n)]
        self.reductions = [int(kinds[k] == REDUCTION) for k in range(n)]
        self.reads: list[set[int]] = [set() for _ in range(n)]     # outside values
        self.outputs: list[set[int]] = [set() for _ in range(n)]
        self.readers: dict[int, set[int]] = {}                     # value -> kernels
        self.made_by: dict[int, set[int]] = {}                     # value -> kernels
        resolved: dict[int, tuple[int, ...]] = {}

        def resolve(vid: int) -> tuple[int, ...]:
            """The values behind `vid`, through metadata ops in no kernel."""
            found = resolved.get(vid)
            if found is None:
                p = producers[vid]
                if p >= 0 and not groups[p] and classes[p] == "free" and \
                        ops[p].opcode != "constant":
                    found = tuple(w for u in ops[p].inputs for w in resolve(u))  # noqa: F821
                else:
                    found = (vid,)
                resolved[vid] = found
            return found

        for k in range(n):
            mine = set(members[k])
            for m in members[k]:
                for v in ops[m].outputs:
                    self.made_by.setdefault(v, set()).add(k)
                for u in ops[m].inputs:
                    if producers[u] in mine:
                        continue
                    for v in resolve(u):
                        self.reads[k].add(v)
                        self.readers.setdefault(v, set()).add(k)
        del resolve
        for v, readers in self.readers.items():
            for k in self.made_by.get(v, ()):
                if readers - {k} or v in program.escaping:
                    self.outputs[k].add(v)
        for v in program.escaping:
            for k in self.made_by.get(v, ()):
                self.outputs[k].add(v)
        self.preds: list[set[int]] = [
            {p for v in self.reads[k] for p in self.made_by.get(v, ()) if p != k}
            for k in range(n)]
        self.succs: list[set[int]] = [set() for _ in range(n)]
        for k in range(n):
            for p in self.preds[k]:
                self.succs[p].add(k)
        self.order = self._topological()
        # row k, bit d (little-endian bits of bytes): kernel k reaches kernel d
        width = (n + 7) // 8
        self.descendants = np.zeros((n, width), np.uint8)
        if self.order is not None:
            reach = [0] * n
            for k in reversed(self.order):
                bits = 0
                for d in self.succs[k]:
                    bits |= reach[d] | (1 << d)
                reach[k] = bits
            self.descendants = np.frombuffer(
                b"".join(bits.to_bytes(width, "little") for bits in reach),
                np.uint8).reshape(n, width).copy()

    def _topological(self) -> list[int] | None:
        n = len(self.kinds)
        missing = [len(self.preds[k]) for k in range(n)]
        ready = sorted(k for k in range(n) if not missing[k])
        order: list[int] = []
        while ready:
            k = ready.pop()
            order.append(k)
            for s in self.succs[k]:
                missing[s] -= 1
                if not missing[s]:
                    ready.append(s)
        return order if len(order) == n else None   # a cycle: leave the kernels be

    def run(self) -> list[int]:
        if self.order is None:
            return list(range(len(self.kinds)))
        program = self.program
        parameters = sorted(v for v in self.readers if program.producers[v] < 0)
        for v in parameters:
            self._siblings(v)
        for p in self.order:
            if not self.alive[p]:
                continue
            for v in sorted(self.outputs[p]):
                self._siblings(v)
            self._producer_into_consumer(p)
        return [k for k in range(len(self.kinds)) if self.alive[k]]

    def _reaches(self, a: int, b: int) -> bool:
        return bool((self.descendants[a, b >> 3] >> (b & 7)) & 1)

    def _connected(self, a: int, b: int) -> bool:
        return self._reaches(a, b) or self._reaches(b, a)

    def _fits(self, a: int, b: int) -> bool:
        if self.reductions[a] + self.reductions[b] > MAX_REDUCTIONS:
            return False
        # a value one of them reads from the other is neither an operand nor (unless
        # needed elsewhere too) an extra output any more; what one reads that the other
        # makes is among the other's outputs (it leaves that kernel)
        made = self.outputs[a] | self.outputs[b]
        return len((self.reads[a] | self.reads[b]) - made) + len(made) \
            <= MAX_OPERANDS_AND_OUTPUTS

    def _siblings(self, v: int) -> None:
        if self.program.value_types[v].num_elements <= 1:
            return      # an effective scalar is no profitable shared operand
        found = [k for k in self.readers.get(v, ()) if self.heroes[k] is not None]
        # as XLA ranks them: multi-output kernels first, then reductions
        found.sort(key=lambda k: (not self.multi[k], self.kinds[k] != REDUCTION,
                                  min(self.members[k])))
        merged: set[int] = set()
        for x, i in enumerate(found):
            if i in merged:
                continue
            for j in found[x + 1:]:
                if j in merged or self.blocks[i] != self.blocks[j] or \
                        self._connected(i, j):
                    continue
                hi, hj = self.heroes[i], self.heroes[j]
                if hi is None or hj is None or not compatible(hi, hj) or \
                        not self._fits(i, j):
                    continue
                self._merge(i, j)
                merged.add(j)

    def _producer_into_consumer(self, p: int) -> None:
        hp = self.heroes[p]
        if hp is None or self.kinds[p] != LOOP or self.multi[p]:
            return
        # XLA prefers a consumer that is multi-output already, then the first; we
        # prefer a reduction next (where a re-read of the whole result is saved)
        consumers = sorted(self.succs[p], key=lambda k: (
            not self.multi[k], self.kinds[k] != REDUCTION, min(self.members[k])))
        escapes = any(v in self.program.escaping for v in self.outputs[p])
        if len(consumers) + escapes < 2:
            return      # one user: plain fusion already turned it down
        for c in consumers:
            hc = self.heroes[c]
            if hc is None or self.blocks[c] != self.blocks[p] or not compatible(hc, hp):
                continue
            if any(q != p and self._reaches(p, q) for q in self.preds[c]):
                continue    # another input of c depends on p: a cycle
            if not self._fits(c, p):
                continue
            self._merge(c, p)
            return

    def _merge(self, i: int, j: int) -> None:
        """Kernel j joins kernel i (a reduction's reduce stays the root)."""
        members, groups = self.members, self.groups
        have = set(members[i])
        extra = [m for m in members[j] if m not in have]
        if self.kinds[i] != REDUCTION and self.kinds[j] == REDUCTION:
            members[i][:] = [members[j][0]] + members[i] + [m for m in extra
                                                            if m != members[j][0]]
            self.kinds[i] = REDUCTION
        else:
            members[i].extend(extra)
        for m in members[j]:
            groups[m][:] = sorted({i if g == j else g for g in groups[m]})
        mine = self.heroes[i]
        if mine is None or not mine.reduce_groups:
            self.heroes[i] = self.heroes[j] or mine
        self.reductions[i] += self.reductions[j]
        self.multi[i] = True
        self.alive[j] = False
        for v in self.reads[j]:
            self.readers[v].discard(j)
            self.readers[v].add(i)
        for v in self.outputs[j] | {v for m in members[j] for v in self.program.ops[m].outputs}:
            made = self.made_by.get(v)
            if made is not None and j in made:
                made.discard(j)
                made.add(i)
        reads = self.reads[i] | self.reads[j]
        internal = {v for v in reads if i in self.made_by.get(v, ())}
        for v in internal:
            self.readers[v].discard(i)
        self.reads[i] = reads - internal
        outputs = self.outputs[i] | self.outputs[j]
        self.outputs[i] = {v for v in outputs if v in self.program.escaping
                           or self.readers.get(v, set()) - {i}}
        self.preds[i] = (self.preds[i] | self.preds[j]) - {i, j}
        self.succs[i] = (self.succs[i] | self.succs[j]) - {i, j}
        for q in self.preds[i]:
            self.succs[q].discard(j)
            self.succs[q].add(i)
        for s in self.succs[i]:
            self.preds[s].discard(j)
            self.preds[s].add(i)
        self.preds[j], self.succs[j] = set(), set()
        # Ancestors of i or j now reach all of the merged kernel's descendants; an
        # ancestor of both reached them all already, so only the rows above exactly one
        # of them change (few: siblings share their parent's ancestors, and a producer's
        # ancestors are its consumer's)
        desc = self.descendants
        above_i = (desc[:, i >> 3] >> (i & 7)) & 1
        above_j = (desc[:, j >> 3] >> (j & 7)) & 1
        mine = desc[i] | desc[j]
        for k in (i, j):
            mine[k >> 3] &= 0xFF ^ (1 << (k & 7))
        merged_down = mine.copy()
        merged_down[i >> 3] |= 1 << (i & 7)
        one = np.flatnonzero(above_i ^ above_j)
        if one.size:
            desc[one] |= merged_down
        rows = np.flatnonzero(above_j)
        desc[rows, i >> 3] |= 1 << (i & 7)
        desc[rows, j >> 3] &= 0xFF ^ (1 << (j & 7))
        desc[i] = mine
        desc[j] = 0
