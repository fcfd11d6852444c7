"""The adversarial corpus (benchmarks/adversarial_corpus.py) against the Python API and
the CLI: every case is a typed one-line error or a result, never a death or a
traceback. Each runs in a child process, so a regression fails this test instead of
killing the suite."""

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from adversarial_corpus import corpus, outcome, run_api, run_cli  # noqa: E402

# must be refused; the others (bytecode flips, valid programs with long names) may load
REFUSED = {"non-utf8-names", "deep-nesting", "call-fan-out", "nested-calls",
           "trip-count-product", "huge-input"}


@pytest.fixture(scope="module")
def cases():
    return corpus(flips=12)


def test_the_corpus_covers_every_class(cases):
    assert {c.kind for c in cases} == \
        REFUSED | {"bytecode-flips", "oversized-names", "odd-attributes"}


def test_the_python_api_never_dies(cases, monkeypatch):
    monkeypatch.setenv("STABLECOST_MAX_PARSE_SECONDS", "3")   # the flips that hang
    stdin_cases = [c for c in cases if c.data is not None]
    results = run_api(stdin_cases)
    assert len(results) == len(stdin_cases)
    bad = [(c.kind, c.name, o, m) for c, (o, m) in zip(stdin_cases, results)
           if o not in ("ok", "typed error") or (c.kind in REFUSED and o == "ok")]
    assert not bad, bad
    counts = Counter(o for o, _ in results)
    assert counts["typed error"] >= len(REFUSED)


def test_the_cli_never_dies(cases):
    """The cases that name a path, and the first of every class, through the CLI."""
    chosen, seen = [], set()
    for case in cases:
        if case.data is None or case.kind not in seen:
            chosen.append(case)
            seen.add(case.kind)
    for case in chosen:
        done = run_cli(case)
        got = outcome(done)
        assert got in ("ok", "typed error"), (case.name, got, done.stderr[-2000:])
        if case.kind in REFUSED or case.data is None:
            assert got == "typed error", (case.name, done.stderr[-2000:])
