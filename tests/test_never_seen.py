"""The never-seen program sets are committed with their hashes: each may judge a trained
model only while it is unchanged (benchmarks/never_seen/ and never_seen_2/ to
never_seen_34/)."""

import hashlib
import importlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SETS = ("never_seen", "never_seen_2", "never_seen_3", "never_seen_4", "never_seen_5",
        "never_seen_6", "never_seen_7", "never_seen_8", "never_seen_9", "never_seen_10",
        "never_seen_11", "never_seen_12", "never_seen_13", "never_seen_14", "never_seen_15",
        "never_seen_16", "never_seen_17", "never_seen_18", "never_seen_19", "never_seen_20",
        "never_seen_21", "never_seen_22", "never_seen_23", "never_seen_24", "never_seen_25",
        "never_seen_26", "never_seen_27", "never_seen_28", "never_seen_29",
        "never_seen_30", "never_seen_31", "never_seen_32", "never_seen_33",
        "never_seen_34")


@pytest.mark.parametrize("folder", SETS)
def test_each_never_seen_set_matches_its_committed_hash(folder):
    digest = hashlib.sha256((BENCHMARKS / folder / "programs.py").read_bytes()).hexdigest()
    assert digest == (BENCHMARKS / folder / "SHA256").read_text().strip(), (
        f"benchmarks/{folder}/programs.py changed: a set that was edited has been seen; "
        "write a new set with a new hash instead of editing this one")


def spent(folder: str) -> bool:
    """Whether the set has judged a model: its first-run timings are stored for some
    machine (`benchmarks/timings/<machine>/<set>.json`)."""
    name = folder.replace("_", "-")
    return any((BENCHMARKS / "timings").glob(f"*/{name}.json"))


@pytest.mark.slow
@pytest.mark.parametrize("folder", SETS[1:])
def test_every_program_of_the_later_sets_lowers_and_is_priced_whole(folder, monkeypatch):
    """Lowering and static pricing only: nothing is compiled, run or timed, and no model
    predicts, so the set stays unseen. A set that has not judged a model yet is checked
    whole (it must price whole before it judges); a spent one, kept for re-pricing its
    stored timings, by every fifth program (about 45 s a set in whole)."""
    import stablecost

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    programs = importlib.import_module(f"{folder}.programs").PROGRAMS

    assert 12 <= len(programs) <= 16
    checked = list(programs.items())
    if spent(folder):
        checked = checked[::5]
    for name, build in checked:
        analysis = stablecost.analyze(build().as_text(debug_info=True))
        assert analysis.flops > 0, name
        assert not analysis.unpriced, (name, analysis.notes)


def test_a_set_is_spent_once_its_first_run_timings_are_stored():
    assert spent("never_seen_12")         # judged 0db3ad4 on the Intel machine
    assert spent("never_seen_13")         # judged 0921aac on the Intel machine
    assert spent("never_seen_14")         # judged fc434d3 on the Intel machine
    assert spent("never_seen_15")         # judged c8a0bf9 on the Intel machine
    assert spent("never_seen_16")         # judged bf1d4cb on the Intel machine
    assert spent("never_seen_17")         # judged 8d99e0b on the Intel machine
    assert spent("never_seen_18")         # judged 844a015 on the Intel machine
    assert spent("never_seen_19")         # judged 844a015 (shipped at 282ab50) on the Intel machine
    assert spent("never_seen_20")         # judged the featurizer-7 bundle on the Intel machine
    assert spent("never_seen_21")         # judged the held-ops-3 bundle on the Intel machine
    assert spent("never_seen_22")         # judged the held-ops-3 bundle on the Zen 5 machine
    assert spent("never_seen_23")         # judged the corrector without machine inputs, Zen 5
    assert spent("never_seen_24")         # judged the three machines' corrector, Zen 5
    assert spent("never_seen_25")         # judged featurizer 8 (reverted), Zen 5
    assert spent("never_seen_26")         # judged featurizer 8, profiles mapped, Zen 5
    assert spent("never_seen_27")         # judged the machine-held-out interval, Zen 5
    assert spent("never_seen_28")         # judged the bagged corrector, Zen 5
    assert spent("never_seen_29")         # judged the Zen 5 sets corrector, Zen 5
    assert spent("never_seen_30")         # judged a83fa10 (Zen 5 sets corrector), Zen 5
    assert spent("never_seen_31")         # judged 87ce3db (grouped-convolution floor), Zen 5
    assert spent("never_seen_32")         # judged dd31e52 (fresh pages, grouped floor), Zen 5
    assert spent("never_seen_33")         # judged f4ccd27 (fresh pages, dense depthwise in loops), Zen 5
    assert not spent("never_seen_34")     # not yet judged a model
    assert not spent("never_seen_99")


def test_the_stored_sets_dataset_takes_only_sets_that_have_judged_a_model():
    """`benchmarks/set_programs.py` turns stored sets into training data for step models:
    only a set whose first-run timings are stored (it has judged a model) is one."""
    import sys

    sys.path.insert(0, str(BENCHMARKS))
    from set_programs import stored_sets

    taken = stored_sets("7d6e21a6ccfd")
    timed = {p.stem for p in (BENCHMARKS / "timings" / "host-cpu-7d6e21a6").glob("*.json")}
    assert {"fresh", "never-seen", "never-seen-2", "never-seen-6"} <= set(taken)
    assert set(taken) == timed
    assert all(path.is_file() for path in taken.values())
    assert stored_sets("000000000000") == {}    # no set was timed on that machine
