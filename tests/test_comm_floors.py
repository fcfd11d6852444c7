"""The error floors of the collective model with GPU counts held out
(`link_calibration.floors`): one time per (kind, GPU count, size) and per NCCL version,
on the rows the validation held out, worked by hand on a tiny table."""

import pytest

from stablecost.train.link_calibration.floors import (
    by_size_and_version,
    held_out_count_floors,
    spread_errors,
)
from stablecost.train.link_calibration.measurements import CollectiveMeasurement, Measurements
from stablecost.train.link_calibration.validation import Ape, ProtocolReport, SplitRow

CHIP = "H100-SXM"


def _rows() -> list[CollectiveMeasurement]:
    """all_gather and all_reduce on 2, 4 and 8 GPUs at 1 KiB and 1 MiB, measured with two
    NCCL versions, the second twice as slow as the first."""
    return [CollectiveMeasurement(CHIP, kind, n, b, "f16", t * 1e-6 * b / 1024,
                                  library=version)
            for kind in ("all_gather", "all_reduce") for n in (2, 4, 8)
            for b in (1024.0, 2.0 ** 20)
            for version, t in (("NCCL 2.23", 10.0), ("NCCL 2.29", 20.0))]


def test_two_versions_twice_apart():
    rows = _rows()
    # one time per (kind, GPUs, size): the median 15 us of 10 and 20 us, 50 % above the
    # first version's row and 25 % below the second's
    e = spread_errors(rows)
    assert e[0::2] == pytest.approx(0.5) and e[1::2] == pytest.approx(-0.25)
    # one time per version: each group is one row, no spread left
    assert spread_errors(rows, by_size_and_version) == pytest.approx(0.0)


def test_floors_on_the_rows_held_out_by_gpu_count():
    rows = _rows()
    model = Ape.of([0.1])
    # all_reduce on 2 GPUs was not held out (as when too few other counts remain)
    held = [("all_gather", 2), ("all_gather", 4), ("all_gather", 8),
            ("all_reduce", 4), ("all_reduce", 8)]
    splits = [SplitRow(CHIP, kind, f"gpus={n}", model, model) for kind, n in held]
    splits += [SplitRow(CHIP, kind, "gpus", model, model)
               for kind in ("all_gather", "all_reduce", "all")]
    splits += [SplitRow(CHIP, "all", f"gpus={n}", model, model) for n in (2, 4, 8)]
    report = ProtocolReport("", (), tuple(splits), (), {})
    floors = held_out_count_floors(Measurements(tuple(rows), {}), report)

    assert floors.versions == {CHIP: ("NCCL 2.23", "NCCL 2.29")}
    got = {(r.kind, r.split): r for r in floors.rows}
    assert list(got) == [("all", "gpus"), ("all", "gpus=2"), ("all", "gpus=4"),
                         ("all", "gpus=8"), ("all_reduce", "gpus"), ("all_gather", "gpus")]
    # rows: 2 sizes x 2 versions per held-out (kind, GPU count)
    assert got["all", "gpus"].floor.rows == 5 * 4
    assert got["all", "gpus=2"].floor.rows == 4          # all_gather only
    assert got["all_reduce", "gpus"].floor.rows == 2 * 4
    for r in floors.rows:   # half the rows 50 % off, half 25 %; none per version
        assert (r.floor.median, r.floor.p90, r.floor.max) == pytest.approx((0.375, 0.5, 0.5))
        assert r.floor_per_version.p90 == pytest.approx(0.0)
        assert r.model == model
    text = floors.format()
    assert "| all kinds, every GPU count | 20 | 10.0% / 10.0% | 37.5% / 50.0% | 0.0% / 0.0% |" \
        in text
    assert "| all kinds, 2 GPUs | 4 |" in text
    assert floors.to_dict()["rows"][0]["floor"]["p90"] == pytest.approx(0.5)
