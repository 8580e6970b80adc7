"""What every package benchmark repeats: a median timing, and the row ``scripts/bench.py`` reads.

A benchmark script (``packages/*/benchmarks/bench_*.py``) runs alone, with the package's
environment, and prints a human report plus one ``BENCH {json}`` line per workload, which
``scripts/bench.py`` gathers into one table. The script already imports the testing kit
(its test agent, its team helpers), so the two pieces live here rather than in a module
each script would have to put on ``sys.path``.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

__all__ = ["bench_row", "median_seconds"]


def median_seconds(
    fn: Callable[[], Any],
    repeat: int,
    *,
    before: Callable[[int], Any] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """The median wall time of ``repeat`` calls of ``fn``, in seconds.

    Args:
        fn: The workload, called with no arguments.
        repeat: How many timed calls (1 or more).
        before: Called untimed before each call with its index: to reset state every so
            often, or to collect garbage so that no call pays for the previous ones.
        clock: The clock read around each call (``time.perf_counter``).

    Raises ``ValueError`` when ``repeat`` is below 1.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    samples = []
    for index in range(repeat):
        if before is not None:
            before(index)
        started = clock()
        fn()
        samples.append(clock() - started)
    return statistics.median(samples)


def bench_row(
    workload: str,
    seconds: float,
    *,
    ratio: float,
    baseline: str,
    target: str | None = None,
    ok: bool | None = None,
) -> dict[str, Any]:
    """Print the ``BENCH`` line of one workload for ``scripts/bench.py``, and return its row.

    Args:
        workload: What was measured, as the table shows it.
        seconds: Its median time.
        ratio: That time over the baseline's, measured in the same run.
        baseline: What the baseline is (the physical floor the workload is held to).
        target: What the issue asks for, when it sets a target; ``ok``: whether it was met.
    """
    row = {
        "workload": workload,
        "median_ms": round(seconds * 1e3, 4),
        "target": target,
        "ratio": round(ratio, 3),
        "baseline": baseline,
        "ok": ok,
    }
    print("BENCH " + json.dumps(row))
    return row
