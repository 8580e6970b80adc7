"""The report of a batched-load benchmark: a tool filled through many batch-update calls.

Planning and the knowledge graph are each benchmarked by loading thousands of items, a
batch per call, and hold the same two promises: the whole load stays under a target time
(set against the same items put into plain dicts, the floor), and a batch late in the load
costs about what an early one did (no cost that grows with the size of the state). This
module measures the second and prints both as ``BENCH`` rows (see
:mod:`~akgentic.tool.core.testing.benchmark`).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from akgentic.tool.core.testing.benchmark import bench_row

__all__ = ["GROWTH_TARGET", "batch_growth", "batched_load_rows"]

GROWTH_TARGET = 2.0
"""The most a late batch may cost, as a multiple of an early one."""


def batch_growth(timings: Sequence[float]) -> float:
    """The median of the last ten batch times over that of batches 3 to 12 (the first two
    warm up). Needs at least twelve batches."""
    if len(timings) < 12:
        raise ValueError(f"batch_growth needs at least 12 batch times, got {len(timings)}")
    return statistics.median(timings[-10:]) / statistics.median(timings[2:12])


def batched_load_rows(
    subject: str,
    load: str,
    *,
    total: float,
    floor: float,
    timings: Sequence[float],
    growth: float,
    target_seconds: float,
) -> bool:
    """Print the two rows of a batched load and say whether both targets were met.

    Args:
        subject: The tool's state, as the workloads name it ("plan", "graph").
        load: What was loaded ("2000 tasks, batches of 50").
        total: The load's time through the tool, in seconds.
        floor: The same items put into plain dicts, in seconds (the baseline).
        timings: Each batch's time, in order; the growth row shows the last ten's median.
        growth: The load's growth figure (:func:`batch_growth` of its batches, or the
            largest of several such figures).
        target_seconds: The most ``total`` may be.
    """
    loaded = total < target_seconds
    steady = growth <= GROWTH_TARGET
    bench_row(
        f"{subject} load {load}",
        total,
        ratio=total / floor,
        baseline="plain dict updates",
        target=f"< {target_seconds:g} s",
        ok=loaded,
    )
    bench_row(
        f"{subject} batch growth (last 10 / batches 3-12)",
        statistics.median(timings[-10:]),
        ratio=growth,
        baseline="the early batches",
        target=f"<= {GROWTH_TARGET:g}",
        ok=steady,
    )
    return loaded and steady
