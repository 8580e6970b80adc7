"""The kit's benchmark pieces: the median timing and the BENCH row scripts/bench.py reads."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from akgentic.tool.core.testing.benchmark import bench_row, median_seconds


def test_the_median_is_of_the_timed_calls_and_before_runs_outside_the_timing() -> None:
    events: list[str] = []
    # Start and stop readings of three calls: 5, 1 and 3 seconds.
    readings: Iterator[float] = iter([0.0, 5.0, 10.0, 11.0, 20.0, 23.0])

    def clock() -> float:
        events.append("clock")
        return next(readings)

    median = median_seconds(
        lambda: events.append("call"),
        3,
        before=lambda index: events.append(f"before {index}"),
        clock=clock,
    )
    assert median == 3.0
    assert events == [
        step for index in range(3) for step in (f"before {index}", "clock", "call", "clock")
    ]


def test_the_median_of_an_even_count_is_the_mean_of_the_middle_two() -> None:
    readings = iter([0.0, 4.0, 4.0, 5.0, 5.0, 7.0, 7.0, 15.0])  # 4, 1, 2 and 8 seconds
    assert median_seconds(lambda: None, 4, clock=lambda: next(readings)) == 3.0


def test_no_repeat_is_refused() -> None:
    with pytest.raises(ValueError, match="repeat must be at least 1, got 0"):
        median_seconds(lambda: None, 0)


def test_a_row_is_printed_as_one_bench_line_in_milliseconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    row = bench_row("scan", 0.0123456789, ratio=2.34567, baseline="bare loop")
    line = capsys.readouterr().out
    assert line.startswith("BENCH ")
    assert line.count("\n") == 1
    assert line.endswith("\n")
    assert json.loads(line.removeprefix("BENCH ")) == row
    assert row == {
        "workload": "scan",
        "median_ms": 12.3457,
        "target": None,
        "ratio": 2.346,
        "baseline": "bare loop",
        "ok": None,
    }
    assert bench_row("x", 1.0, ratio=1.0, baseline="b", target="< 2x", ok=True)["ok"] is True
