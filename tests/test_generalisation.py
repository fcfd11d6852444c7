"""benchmarks/generalisation.py: the scorecard's reading of the issue's targets, its
resumable parts, and `fresh_programs.py --as-machine` refusing to time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import target_bound  # noqa: E402
from generalisation import (  # noqa: E402
    judge,
    judge_machines_held_out,
    judge_pooled,
    judge_set,
    run_part,
    scorecard,
)


def test_the_bound_is_15_percent_half_the_roofline_or_a_noisy_floor():
    assert target_bound(1.0, None) == pytest.approx(0.15)
    assert target_bound(0.2, None) == pytest.approx(0.10)          # half the roofline binds
    assert target_bound(1.0, 0.10) == pytest.approx(0.15)          # a quiet floor: 15 %
    assert target_bound(1.0, 0.20) == pytest.approx(0.25)          # a noisy one: 1.25x
    assert target_bound(1.0, float("nan")) == pytest.approx(0.15)


def test_families_are_judged_from_ten_programs_and_every_one_against_the_roofline():
    family = np.array(["big"] * 12 + ["small"] * 3)
    measured = np.ones(15)
    learned = np.r_[np.full(12, 1.10), np.full(3, 1.50)]     # 10 % and 50 %
    roofline = np.r_[np.full(12, 1.40), np.full(3, 1.20)]    # 40 % and 20 %
    judged = judge("set", family, measured, learned, roofline,
                   low=np.full(15, 0.9), high=np.r_[np.full(12, 1.1), np.full(3, 0.95)])
    assert judged.families_met == (1, 1)          # "small" is too small to be judged alone
    assert judged.worse == ("small",)             # but it may not be worse than the roofline
    assert not judged.met
    assert judged.inside == pytest.approx(12 / 15)
    assert judged.interval_met
    good = judge("set", family, measured, np.full(15, 1.05), roofline)
    assert good.met and good.worse == () and good.inside is None


def test_each_machine_held_out_is_judged_from_its_fit_on_every_other_machine():
    def rows(learned: float) -> list[dict]:
        return [{"family": "mlp", "measured_s": 1.0, "learned_s": learned, "roofline_s": 2.0,
                 "low_s": learned * 0.5, "high_s": learned * 2.0} for _ in range(10)]

    run = {"runs": [
        {"held_out": "aaa", "fitted_on": ["bbb", "ccc"], "programs": rows(1.1)},
        {"held_out": "aaa", "fitted_on": ["bbb"]},           # a single machine: no rows
        {"held_out": "bbb", "fitted_on": ["aaa", "ccc"], "programs": rows(1.6)}]}
    judged = judge_machines_held_out(run)
    assert [j.label.split()[1] for j in judged] == ["aaa", "bbb"]
    assert "fitted on bbb + ccc" in judged[0].label
    assert judged[0].met and judged[0].families_met == (1, 1)
    assert judged[0].learned == pytest.approx(0.1) and judged[0].inside == 1.0
    assert not judged[1].met and judged[1].learned == pytest.approx(0.6)


def test_a_set_reads_its_floor_from_its_timing_rounds():
    rows = [{"measured_s": 1.0, "rounds": [1.0, 1.25], "learned_s": 1.2, "roofline_s": 2.0,
             "low_s": 0.5, "high_s": 1.5, "fell_back": False, "roofline_kernel_s": 0.1,
             "kernel_s": 1.0}] * 4
    judged = judge_set({"programs": rows}, "a set")
    assert judged.floor == pytest.approx(0.2)      # round 1 as a prediction of round 2
    assert judged.bound == pytest.approx(0.25)     # the floor above 12 % widens the target
    assert judged.learned == pytest.approx(0.2) and judged.met
    assert "10.0% of the learned kernel time" in judged.fallback
    line = scorecard([judged])[2]
    assert "| a set | 4 | 20.0% | 100.0% | 20.0% | 25.0% |" in line and "**yes**" in line


def test_the_stored_sets_pooled_judge_each_set_as_a_family():
    def rows(n, learned, inside):
        return [{"measured_s": 1.0, "rounds": [1.0, 1.1], "learned_s": learned,
                 "roofline_s": 1.5, "low_s": 0.5 if i < inside else 2.0, "high_s": 3.0,
                 "fell_back": False, "roofline_kernel_s": 0.0, "kernel_s": 1.0}
                for i in range(n)]

    pooled = judge_pooled([("a", {"programs": rows(10, 1.1, 10)}),
                           ("b", {"programs": rows(5, 2.0, 0)})])
    assert pooled.n == 15 and pooled.learned == pytest.approx((10 * 0.1 + 5 * 1.0) / 15)
    assert pooled.families_met == (1, 1)      # set b has too few programs to be judged alone
    assert pooled.worse == ("b",)             # but is worse than the roofline
    assert pooled.inside == pytest.approx(10 / 15)
    assert pooled.floor == pytest.approx(1 / 11)   # round 1 as a prediction of round 2
    assert not pooled.met


def test_a_part_already_in_the_output_folder_is_read_not_run(tmp_path):
    (tmp_path / "done.json").write_text(json.dumps({"programs": []}))
    assert run_part(tmp_path, "done", ["no/such/script.py"]) == {"programs": []}
    with pytest.raises(SystemExit, match="no/such/script.py failed"):
        run_part(tmp_path, "missing", ["no/such/script.py"])
    assert not (tmp_path / "missing.json").exists()


def test_as_machine_prices_stored_timings_only(tmp_path):
    timings = tmp_path / "t.json"
    timings.write_text(json.dumps({"performer_favor/2x1024-m64": [0.05]}))
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fresh_programs.py"), "--set",
         "never-seen-6", "--rounds", "2", "--timings", str(timings), "--as-machine",
         "data/cpu-7d6e21a6"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "--as-machine prices stored timings only" in done.stderr
    assert "Traceback" not in done.stderr
    assert json.loads(timings.read_text()) == {"performer_favor/2x1024-m64": [0.05]}
