"""Tracked state and snapshot schedule, more: the version counts every mutation, and a
schedule's first snapshot is due after its minimum number of changes whatever its ratio."""

from __future__ import annotations

from pydantic import Field

from akgentic.tool.core.delta_state import DeltaState, StateDelta
from akgentic.tool.core.snapshots import SnapshotSchedule


class CountDelta(StateDelta):
    added: int = 0

    def is_empty(self) -> bool:
        return self.added == 0

    def change_count(self) -> int:
        return 1


class CountState(DeltaState):
    total: int = Field(default=0)

    def size(self) -> int:
        return 1

    def apply(self, delta: CountDelta, seq: int | None = None) -> None:
        self.total += delta.added
        self._touch()

    def serializable_copy(self) -> CountState:
        return type(self).model_construct(total=self.total, seq=self.seq)


def test_the_version_counts_every_mutation() -> None:
    state = CountState()
    for expected in (1, 2, 3):
        state.apply(CountDelta(added=1))
        assert state.version == expected


def test_the_first_snapshot_is_due_after_the_minimum_whatever_the_ratio() -> None:
    schedule = SnapshotSchedule(2, 100.0)
    assert not schedule.record(1)
    assert schedule.record(1)  # nothing published yet: the size counts as 0
    schedule.published(1)
    assert not schedule.record(99)
    assert schedule.record(1)  # then 100 x the published size
