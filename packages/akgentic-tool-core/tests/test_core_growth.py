"""The growth helpers scale benchmarks share: the exponent fit, samples, ladder, report."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import Field

from akgentic.tool.core.delta_state import DeltaPayload, DeltaState
from akgentic.tool.core.growth import (
    NEAR_LINEAR,
    SUBLINEAR,
    Samples,
    Stopwatch,
    Table,
    Target,
    finish,
    growth_exponent,
    growth_report,
    held_bytes,
    measure_ladder,
    metric_targets,
    size_ladder,
    start,
    time_resume,
)


def test_the_exponent_of_known_costs_is_their_power() -> None:
    sizes = size_ladder(20_000)
    assert sizes == [2_500, 5_000, 10_000, 20_000]
    assert growth_exponent(sizes, [3e-9 * n * n for n in sizes]) == pytest.approx(2.0)
    assert growth_exponent(sizes, [0.5 * n + 0.0 for n in sizes]) == pytest.approx(1.0)
    assert growth_exponent(sizes, [7.0] * 4) == pytest.approx(0.0)
    # n log n sits between the two, close to linear over one decade.
    nlogn = growth_exponent(sizes, [n * (n.bit_length()) for n in sizes])
    assert 1.0 < nlogn < 1.2


def test_a_fit_needs_two_distinct_sizes() -> None:
    with pytest.raises(ValueError, match="two or more"):
        growth_exponent([10], [1.0])
    with pytest.raises(ValueError, match="all equal"):
        growth_exponent([10, 10], [1.0, 2.0])
    with pytest.raises(ValueError, match="empty size"):
        size_ladder(100, scale=20, fractions=(8, 1))


def test_samples_sort_and_give_median_and_p95() -> None:
    samples = Samples.of([i / 1e3 for i in reversed(range(1, 101))])
    assert samples.seconds[0] == pytest.approx(1e-3)
    assert samples.median_ms == pytest.approx(50.5)
    assert samples.p95_ms == pytest.approx(96.0)
    watch = Stopwatch("wall")
    ticks = iter([0.0, 5.0, 10.0, 12.0, 20.0, 27.0])  # calls lasting 5, 2 and 7 seconds
    watch.now = lambda: next(ticks)
    result, best = watch.fastest(3, lambda: "done")
    assert result == "done"
    assert best == 2.0  # the least disturbed run
    ticks = iter([0.0, 3.0, 3.0, 4.0])
    assert watch.samples([lambda: None] * 2).seconds == (1.0, 3.0)
    with pytest.raises(ValueError, match="clock 'gpu'"):
        watch.select("gpu")


def test_the_report_checks_targets_and_prints_notes() -> None:
    sizes = [1, 2, 4, 8]
    rows = [{"load_s": n * 1.0, "search_ms": n * n * 1.0, "memory_mb": n * 1.0} for n in sizes]
    metrics = metric_targets({NEAR_LINEAR: "load_s", SUBLINEAR: "search_ms", "note": "memory_mb"})
    assert list(metrics) == ["load_s", "search_ms", "memory_mb"]
    lines, ok = growth_report(sizes, rows, metrics)
    assert not ok
    assert lines[1] == "    load_s              1.00  (target <= 1.2)"
    assert lines[2] == "    search_ms           2.00  (target < 1)  MISSED"
    assert lines[3] == "    memory_mb           1.00  (note)"
    assert growth_report(sizes, rows, {"load_s": Target(1.2), "memory_mb": None})[1]


def test_a_benchmark_run_from_command_line_to_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    watch = Stopwatch()
    options = start("bench", watch, ["--quick", "--clock", "wall"])
    assert (options.scale, watch.kind) == (20, "wall")
    sizes = size_ladder(1_000, options.scale)  # 6, 12, 25, 50
    rows = measure_ladder(sizes, lambda n: {"cost_ms": n * n / 12, "hits": 1.0}, "items")
    assert finish(sizes, rows, {"cost_ms": SUBLINEAR}) == 1  # quadratic: missed
    assert finish(sizes, rows, {"hits": SUBLINEAR}) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "times: wall (wall clock)",
        "    items cost_ms    hits",
        "        6   3.000   1.000",
    ]
    assert "FAIL: targets missed" in out
    assert out[-1] == "PASS"
    table = Table("n")
    table.lines(1, {"a": 1.0})
    with pytest.raises(ValueError, match="differ from the table"):
        table.lines(2, {"b": 1.0})


def test_held_bytes_counts_what_the_built_object_keeps() -> None:
    small = held_bytes(lambda: bytearray(1_000))
    large = held_bytes(lambda: bytearray(1_000_000))
    assert 1_000 <= small < 10_000
    assert 1_000_000 <= large < 1_100_000


class _Added(DeltaPayload):
    words: list[str] = Field(default_factory=list)

    def change_count(self) -> int:
        return len(self.words)

    def is_empty(self) -> bool:
        return not self.words


class _Tally(DeltaState):
    words: list[str] = Field(default_factory=list)

    def size(self) -> int:
        return len(self.words)

    def apply(self, delta: Any, seq: int | None = None) -> None:
        self.words = [*self.words, *delta.words]
        self.seq = self.seq if seq is None else seq
        self._touch()

    def serializable_copy(self) -> _Tally:
        return _Tally(words=list(self.words), seq=self.seq)


def test_time_resume_replays_every_delta_and_times_both_ways() -> None:
    deltas = [(seq, _Added(words=[f"w{seq}"]).model_dump_json()) for seq in (1, 2, 3)]
    watch = Stopwatch("wall")
    # Each run reads the clock twice; the replays take 4 then 1 s, the snapshot reads 3 then 5.
    ticks = iter([0.0, 4.0, 10.0, 11.0, 20.0, 23.0, 30.0, 35.0])
    watch.now = lambda: next(ticks)
    state, replayed, restored = time_resume(_Tally, _Added, deltas, watch)
    assert (state.words, state.seq) == (["w1", "w2", "w3"], 3)
    assert (replayed, restored) == (1.0, 3.0)
    assert next(ticks, None) is None  # two runs of each, no more
