"""The kit's benchmark pieces: the median timing and the BENCH row scripts/bench.py reads."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from akgentic.tool.core.testing.benchmark import bench_row, median_seconds


class _Clock:
    """A clock that advances only when a timed call says how long it took."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_median_is_of_the_timed_calls_and_before_runs_untimed() -> None:
    clock = _Clock()
    durations: Iterator[float] = iter([5.0, 1.0, 3.0, 9.0, 2.0])
    seen: list[int] = []

    def work() -> None:
        clock.now += next(durations)

    def before(index: int) -> None:
        seen.append(index)
        clock.now += 100.0  # untimed: must not reach any sample

    assert median_seconds(work, 5, before=before, clock=clock) == 3.0
    assert seen == [0, 1, 2, 3, 4]


def test_the_median_of_an_even_count_is_the_middle_mean() -> None:
    clock = _Clock()
    durations = iter([4.0, 1.0, 2.0, 8.0])

    def work() -> None:
        clock.now += next(durations)

    assert median_seconds(work, 4, clock=clock) == 3.0


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
