"""SnapshotSchedule: snapshots due after a share of the last published size."""

from __future__ import annotations

from akgentic.tool.core.snapshots import SnapshotSchedule


def test_snapshot_schedule_waits_for_a_share_of_the_last_size() -> None:
    schedule = SnapshotSchedule(min_changes=64, size_ratio=0.5)
    assert not schedule.record(63)
    assert schedule.record(1)
    schedule.published(1000)
    assert not schedule.record(499)
    assert schedule.record(1)


def test_min_changes_is_the_floor_for_a_small_state() -> None:
    schedule = SnapshotSchedule(min_changes=10, size_ratio=1.0)
    schedule.published(3)  # 3 items: the share (3) is below the floor (10)
    assert not schedule.record(9)
    assert schedule.pending == 9
    assert schedule.record(1)
    schedule.published(3)
    assert schedule.pending == 0  # counting starts again after a publication


def test_snapshot_schedule_is_geometric_while_the_state_grows() -> None:
    schedule = SnapshotSchedule(min_changes=100, size_ratio=1.0)
    size, published, copied = 0, [], 0
    for _ in range(1000):  # 1000 updates of 10 items each
        size += 10
        if schedule.record(10):
            schedule.published(size)
            published.append(size)
            copied += size
    assert published == [100, 200, 400, 800, 1600, 3200, 6400]
    assert copied < 2 * size  # all snapshots together cost less than two final ones
    assert schedule.pending == size - published[-1]  # replay after a crash: bounded
