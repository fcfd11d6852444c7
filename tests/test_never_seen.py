"""The never-seen program set is committed with its hash: it may judge a trained model
only while it is unchanged (benchmarks/never_seen/)."""

import hashlib
from pathlib import Path

NEVER_SEEN = Path(__file__).resolve().parent.parent / "benchmarks" / "never_seen"


def test_the_never_seen_set_matches_its_committed_hash():
    digest = hashlib.sha256((NEVER_SEEN / "programs.py").read_bytes()).hexdigest()
    assert digest == (NEVER_SEEN / "SHA256").read_text().strip(), (
        "benchmarks/never_seen/programs.py changed: a set that was edited has been seen; "
        "write a new set with a new hash instead of editing this one")
