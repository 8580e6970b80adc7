"""The kit's batched-load report: the growth figure and the two BENCH rows it prints."""

from __future__ import annotations

import json
from typing import Any

import pytest

from akgentic.tool.core.testing.batch_load import batch_growth, batched_load_rows

# Two warm-up batches, ten early ones at 1 ms, ten late ones at 3 ms.
STEADY = [9.0, 9.0] + [0.001] * 10 + [0.001] * 10
GROWING = [9.0, 9.0] + [0.001] * 10 + [0.003] * 10


def _rows(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    lines = capsys.readouterr().out.splitlines()
    return [json.loads(line.removeprefix("BENCH ")) for line in lines if line.startswith("BENCH ")]


def test_growth_compares_the_last_ten_with_batches_three_to_twelve() -> None:
    assert batch_growth(STEADY) == pytest.approx(1.0)  # the warm-up batches do not count
    assert batch_growth(GROWING) == pytest.approx(3.0)
    with pytest.raises(ValueError, match="at least 12 batch times, got 11"):
        batch_growth([0.001] * 11)


def test_a_load_within_both_targets_passes(capsys: pytest.CaptureFixture[str]) -> None:
    met = batched_load_rows(
        "plan",
        "20 tasks",
        total=0.5,
        floor=0.25,
        timings=STEADY,
        growth=batch_growth(STEADY),
        target_seconds=0.7,
    )
    assert met is True
    load, growth = _rows(capsys)
    assert load == {
        "workload": "plan load 20 tasks",
        "median_ms": 500.0,
        "target": "< 0.7 s",
        "ratio": 2.0,
        "baseline": "plain dict updates",
        "ok": True,
    }
    assert growth["workload"] == "plan batch growth (last 10 / batches 3-12)"
    assert growth["median_ms"] == 1.0
    assert (growth["target"], growth["ok"]) == ("<= 2", True)


def test_a_growing_batch_cost_fails(capsys: pytest.CaptureFixture[str]) -> None:
    met = batched_load_rows(
        "graph",
        "20 entities",
        total=1.0,
        floor=0.5,
        timings=GROWING,
        growth=batch_growth(GROWING),
        target_seconds=4.0,
    )
    assert met is False
    load, growth = _rows(capsys)
    assert (load["target"], load["ok"]) == ("< 4 s", True)
    assert (growth["ratio"], growth["ok"]) == (3.0, False)


def test_a_slow_load_fails(capsys: pytest.CaptureFixture[str]) -> None:
    met = batched_load_rows(
        "plan",
        "20 tasks",
        total=0.8,
        floor=0.4,
        timings=STEADY,
        growth=1.0,
        target_seconds=0.7,
    )
    assert met is False
    load, growth = _rows(capsys)
    assert load["ok"] is False
    assert growth["ok"] is True
