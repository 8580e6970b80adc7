"""Growth measurement for a tool's scale benchmark: how each cost grows with the state.

A scale benchmark measures a few costs (a load, a resume, a search's latency, the memory
held) at a ladder of sizes, then fits the slope of log(cost) against log(size): the
*growth exponent* (0 = constant, 1 = linear, 2 = quadratic). The exponent, unlike a single
figure, says whether a cost will still be bearable at ten times the size, and it does not
depend on how fast the machine is.

This module holds what every such benchmark needs, so each one only says what it measures:

* :class:`Stopwatch`: process CPU time (all threads, the actors' included) by default,
  because other processes on a shared machine add wall time at random and would bend the
  exponents; wall time on request;
* :class:`Samples`: sorted call times, their median and 95th percentile;
* :func:`size_ladder` and :func:`growth_exponent`: the sizes and the least-squares slope;
* :class:`Table`, :class:`Target`, :func:`metric_targets` and :func:`growth_report`: the
  printed figures and the verdict against each metric's bound;
* :func:`start` / :func:`bench_options`, :func:`measure_ladder` and :func:`finish`: the
  ``--quick`` / ``--clock`` command line they all share, the run over the sizes, and the
  closing report with its exit code;
* :func:`held_bytes`: the memory a rebuilt state holds;
* :func:`time_resume`: both ways a resumed team rebuilds a :class:`DeltaState`.
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import time
import tracemalloc
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from akgentic.tool.core.delta_state import DeltaState, StateDelta

__all__ = [
    "CLOCKS",
    "NEAR_LINEAR",
    "SUBLINEAR",
    "BenchOptions",
    "Samples",
    "Stopwatch",
    "Table",
    "Target",
    "bench_options",
    "finish",
    "growth_exponent",
    "growth_report",
    "held_bytes",
    "measure_ladder",
    "metric_targets",
    "size_ladder",
    "start",
    "time_resume",
]

CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
_CLOCK_NAMES = {"cpu": "process CPU time", "wall": "wall clock"}


class Stopwatch:
    """Times calls with one of :data:`CLOCKS` (``"cpu"`` unless :meth:`select` says)."""

    def __init__(self, clock: str = "cpu") -> None:
        self.kind = ""
        self.now: Callable[[], float] = time.process_time
        self.select(clock)

    def select(self, clock: str) -> None:
        """Switch to the clock named ``clock`` (a key of :data:`CLOCKS`)."""
        if clock not in CLOCKS:
            raise ValueError(f"clock {clock!r}: use one of {sorted(CLOCKS)}")
        self.kind, self.now = clock, CLOCKS[clock]

    def call[T](self, fn: Callable[[], T]) -> tuple[T, float]:
        """``fn()``'s result and the seconds it took."""
        began = self.now()
        result = fn()
        return result, self.now() - began

    def fastest[T](self, runs: int, fn: Callable[[], T]) -> tuple[T, float]:
        """The last result of ``runs`` calls and the fastest time: other processes on the
        machine only ever add time, so the minimum is the least disturbed figure."""
        if runs < 1:
            raise ValueError(f"runs must be at least 1, got {runs}")
        best = math.inf
        for _ in range(runs):
            result, seconds = self.call(fn)
            best = min(best, seconds)
        return result, best

    def samples(self, calls: Iterable[Callable[[], object]]) -> Samples:
        """The time of each call, as :class:`Samples`."""
        return Samples.of([self.call(fn)[1] for fn in calls])


@dataclass(frozen=True)
class Samples:
    """Call times in seconds, sorted."""

    seconds: tuple[float, ...]

    @classmethod
    def of(cls, seconds: Iterable[float]) -> Samples:
        ordered = tuple(sorted(seconds))
        if not ordered:
            raise ValueError("no samples: time at least one call")
        return cls(ordered)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1e3

    @property
    def p95_ms(self) -> float:
        """The 95th percentile (nearest rank below), in milliseconds."""
        return self.seconds[int(0.95 * len(self.seconds))] * 1e3


def size_ladder(full: int, scale: int = 1, fractions: Sequence[int] = (8, 4, 2, 1)) -> list[int]:
    """Sizes ``full // scale // fraction`` for each fraction (``scale`` shrinks a smoke run)."""
    sizes = [full // scale // fraction for fraction in fractions]
    if any(size < 1 for size in sizes):
        raise ValueError(f"full={full} at scale {scale} leaves an empty size in {sizes}")
    return sizes


def growth_exponent(sizes: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of log(value) against log(size).

    A value at or below zero counts as 1e-12 (a cost too small to measure), so a metric
    that is zero everywhere fits a flat line instead of failing.
    """
    if len(sizes) != len(values) or len(sizes) < 2:
        raise ValueError(f"need two or more (size, value) pairs, got {len(sizes)} sizes")
    xs = [math.log(size) for size in sizes]
    ys = [math.log(max(value, 1e-12)) for value in values]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mx) ** 2 for x in xs)
    if spread == 0.0:
        raise ValueError(f"sizes {list(sizes)} are all equal: no slope to fit")
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / spread


@dataclass(frozen=True)
class Target:
    """A bound on a growth exponent: ``<= limit`` (``strict=False``) or ``< limit``."""

    limit: float
    strict: bool = False

    def met(self, slope: float) -> bool:
        return slope < self.limit if self.strict else slope <= self.limit

    def __str__(self) -> str:
        return f"target {'<' if self.strict else '<='} {self.limit:g}"


# The usual bounds: a load or a resume may cost a little more than linear (allocation and
# hashing overheads grow slowly); a search must cost less than a pass over the state.
NEAR_LINEAR = Target(1.2)
SUBLINEAR = Target(1.0, strict=True)


def growth_report(
    sizes: Sequence[float],
    rows: Sequence[Mapping[str, float]],
    metrics: Mapping[str, Target | str | None],
) -> tuple[list[str], bool]:
    """One line per metric with its growth exponent over ``rows`` (one per size), and
    whether every :class:`Target` was met. A string instead of a target is printed as a
    note (a metric whose growth is expected, with the reason); ``None`` prints nothing."""
    lines = ["  growth exponents (slope of log metric vs log size):"]
    ok = True
    for metric, target in metrics.items():
        slope = growth_exponent(sizes, [row[metric] for row in rows])
        verdict = ""
        if isinstance(target, Target):
            met = target.met(slope)
            ok &= met
            verdict = f"  ({target})" + ("" if met else "  MISSED")
        elif target is not None:
            verdict = f"  ({target})"
        lines.append(f"    {metric:18} {slope:5.2f}{verdict}")
    return lines, ok


class Table:
    """Fixed-width lines of figures: the size, then each figure of a row in the row's
    order, under headers that are the figures' names (so a column says what it holds)."""

    def __init__(self, size_header: str, decimals: int = 3) -> None:
        self.size_header, self.decimals = size_header, decimals
        self._keys: list[str] | None = None

    def lines(self, size: int, row: Mapping[str, float]) -> list[str]:
        """The line for ``row``, preceded by the header line the first time."""
        keys = list(row)
        lines: list[str] = []
        if self._keys is None:
            self._keys = keys
            lines.append(self._line([self.size_header, *keys]))
        elif keys != self._keys:
            raise ValueError(f"row figures {keys} differ from the table's {self._keys}")
        cells = [str(size), *(f"{row[key]:.{self.decimals}f}" for key in keys)]
        lines.append(self._line(cells))
        return lines

    def _line(self, cells: Sequence[str]) -> str:
        # Each column as wide as its header (seven characters at least), right-aligned.
        headers = [self.size_header, *(self._keys or [])]
        widths = [max(len(header), 7) for header in headers]
        return "  " + " ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True))


def metric_targets(groups: Mapping[Target | str | None, str]) -> dict[str, Target | str | None]:
    """Metrics by name, from ``{target: "metric metric ..."}``: a :class:`Target` bounds
    the exponent of each named metric, a string is a note printed beside it, ``None``
    neither (the exponent is shown only)."""
    return {metric: target for target, names in groups.items() for metric in names.split()}


@dataclass(frozen=True)
class BenchOptions:
    """What a benchmark's command line asked for."""

    quick: bool
    clock: str

    @property
    def scale(self) -> int:
        """How much to shrink every size: 20 for a ``--quick`` smoke run, else 1."""
        return 20 if self.quick else 1

    def describe_clock(self) -> str:
        return f"times: {self.clock} ({_CLOCK_NAMES[self.clock]})"


def bench_options(description: str, argv: Sequence[str] | None = None) -> BenchOptions:
    """Parse ``--quick`` (1/20 of the sizes) and ``--clock cpu|wall``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="1/20 of the sizes (smoke run)")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="cpu", help="what the times measure"
    )
    args = parser.parse_args(argv)
    return BenchOptions(quick=bool(args.quick), clock=str(args.clock))


def start(description: str, watch: Stopwatch, argv: Sequence[str] | None = None) -> BenchOptions:
    """A benchmark's start: parse its command line, set ``watch`` to the clock asked
    for, and print which clock the figures are in."""
    options = bench_options(description, argv)
    watch.select(options.clock)
    print(options.describe_clock())
    return options


def measure_ladder(
    sizes: Sequence[int], measure: Callable[[int], dict[str, float]], size_header: str
) -> list[dict[str, float]]:
    """``measure(size)`` for each size, smallest first, each row printed as it comes (a
    long run shows its progress)."""
    table = Table(size_header)
    rows: list[dict[str, float]] = []
    for size in sizes:
        rows.append(measure(size))
        print("\n".join(table.lines(size, rows[-1])), flush=True)
    return rows


def finish(
    sizes: Sequence[float],
    rows: Sequence[Mapping[str, float]],
    metrics: Mapping[str, Target | str | None],
    passed: str = "PASS",
) -> int:
    """Print the growth report and the verdict; the process exit code (1: a target
    was missed)."""
    lines, ok = growth_report(sizes, rows, metrics)
    print("\n".join(lines))
    print(passed if ok else "FAIL: targets missed")
    return 0 if ok else 1


def held_bytes(build: Callable[[], object]) -> int:
    """Bytes still allocated once ``build()`` returned, while its result is alive
    (tracemalloc, which numpy reports its buffers to; on a pass of its own, because
    tracing slows everything down)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        built = build()
        held = tracemalloc.get_traced_memory()[0] - before
        del built
    finally:
        tracemalloc.stop()
    return held


def time_resume[S: DeltaState](
    state_class: type[S],
    delta_class: type[StateDelta],
    deltas: Sequence[tuple[int, str]],
    watch: Stopwatch,
    runs: int = 2,
) -> tuple[S, float, float]:
    """Both ways a resumed team gets a tool's state back, each the fastest of ``runs``:
    every ``(seq, delta JSON)`` replayed onto an empty state (a team that never
    snapshotted), and the whole state read back from one JSON snapshot (the one published
    on stop). Returns the replayed state and the two times in seconds."""

    def replay() -> S:
        state = state_class()
        for seq, text in deltas:
            state.apply(delta_class.model_validate_json(text), seq=seq)
        return state

    state, replayed = watch.fastest(runs, replay)
    payload = state.model_dump_json()
    _, restored = watch.fastest(runs, lambda: state_class.model_validate_json(payload))
    return state, replayed, restored
