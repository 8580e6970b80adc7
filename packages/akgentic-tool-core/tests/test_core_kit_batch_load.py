"""The kit's batched-load report: the growth figure and the two BENCH rows it prints."""

from __future__ import annotations

import json
from typing import Any

import pytest

from akgentic.tool.core.testing.batch_load import batch_growth, batched_load_rows

# Two warm-up batches, ten early ones at 1 ms, ten late ones at 3 ms.
STEADY = [9.0, 9.0] + [0.001] * 10 + [0.001] * 10
GROWING = [9.0, 9.0] + [0.001] * 10 + [0.003] * 10


def _report(
    capsys: pytest.CaptureFixture[str], timings: list[float], **load: Any
) -> tuple[bool, dict[str, Any], dict[str, Any]]:
    """Whether ``batched_load_rows`` met both targets, and the two rows it printed. The
    load is a plan of 20 tasks taking 0.5 s (the floor: 0.25 s) against 0.7 s, unless
    ``load`` says otherwise; its growth is that of ``timings``."""
    met = batched_load_rows(
        load.pop("subject", "plan"),
        load.pop("load", "20 tasks"),
        timings=timings,
        **{"total": 0.5, "floor": 0.25, "target_seconds": 0.7, "growth": batch_growth(timings)}
        | load,
    )
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line.removeprefix("BENCH ")) for line in lines if line.startswith("BENCH ")]
    load_row, growth_row = rows
    return met, load_row, growth_row


def test_growth_compares_the_last_ten_with_batches_three_to_twelve() -> None:
    assert batch_growth(STEADY) == pytest.approx(1.0)  # the warm-up batches do not count
    assert batch_growth(GROWING) == pytest.approx(3.0)
    with pytest.raises(ValueError, match="at least 12 batch times, got 11"):
        batch_growth([0.001] * 11)


def test_a_load_within_both_targets_passes(capsys: pytest.CaptureFixture[str]) -> None:
    met, load, growth = _report(capsys, STEADY)
    assert met is True
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
    met, load, growth = _report(
        capsys, GROWING, subject="graph", load="20 entities", total=1.0, target_seconds=4.0
    )
    assert met is False
    assert (load["workload"], load["target"], load["ok"]) == (
        "graph load 20 entities",
        "< 4 s",
        True,
    )
    assert (growth["ratio"], growth["ok"]) == (3.0, False)


def test_a_slow_load_fails(capsys: pytest.CaptureFixture[str]) -> None:
    met, load, growth = _report(capsys, STEADY, total=0.8)
    assert met is False
    assert (load["ratio"], load["ok"]) == (3.2, False)
    assert growth["ok"] is True
