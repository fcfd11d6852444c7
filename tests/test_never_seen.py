"""The never-seen program sets are committed with their hashes: each may judge a trained
model only while it is unchanged (benchmarks/never_seen/, benchmarks/never_seen_2/,
benchmarks/never_seen_3/)."""

import hashlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
NEVER_SEEN = BENCHMARKS / "never_seen"
NEVER_SEEN_2 = BENCHMARKS / "never_seen_2"
NEVER_SEEN_3 = BENCHMARKS / "never_seen_3"


def test_the_never_seen_set_matches_its_committed_hash():
    digest = hashlib.sha256((NEVER_SEEN / "programs.py").read_bytes()).hexdigest()
    assert digest == (NEVER_SEEN / "SHA256").read_text().strip(), (
        "benchmarks/never_seen/programs.py changed: a set that was edited has been seen; "
        "write a new set with a new hash instead of editing this one")


def test_the_second_never_seen_set_matches_its_committed_hash():
    digest = hashlib.sha256((NEVER_SEEN_2 / "programs.py").read_bytes()).hexdigest()
    assert digest == (NEVER_SEEN_2 / "SHA256").read_text().strip(), (
        "benchmarks/never_seen_2/programs.py changed: a set that was edited has been seen; "
        "write a new set with a new hash instead of editing this one")


def test_the_third_never_seen_set_matches_its_committed_hash():
    digest = hashlib.sha256((NEVER_SEEN_3 / "programs.py").read_bytes()).hexdigest()
    assert digest == (NEVER_SEEN_3 / "SHA256").read_text().strip(), (
        "benchmarks/never_seen_3/programs.py changed: a set that was edited has been seen; "
        "write a new set with a new hash instead of editing this one")


@pytest.mark.slow
def test_every_program_of_the_second_set_lowers_and_is_priced_whole(monkeypatch):
    """Lowering and static pricing only: nothing is compiled, run or timed, and no model
    predicts, so the set stays unseen."""
    import stablecost

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    from never_seen_2.programs import PROGRAMS

    assert 12 <= len(PROGRAMS) <= 16
    for name, build in PROGRAMS.items():
        analysis = stablecost.analyze(build().as_text(debug_info=True))
        assert analysis.flops > 0, name
        assert not analysis.unpriced, (name, analysis.notes)


@pytest.mark.slow
def test_every_program_of_the_third_set_lowers_and_is_priced_whole(monkeypatch):
    """Lowering and static pricing only: nothing is compiled, run or timed, and no model
    predicts, so the set stays unseen."""
    import stablecost

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    from never_seen_3.programs import PROGRAMS

    assert 12 <= len(PROGRAMS) <= 16
    for name, build in PROGRAMS.items():
        analysis = stablecost.analyze(build().as_text(debug_info=True))
        assert analysis.flops > 0, name
        assert not analysis.unpriced, (name, analysis.notes)
