"""When a tool actor publishes a full snapshot of its state (shared by every stateful tool).

Publishing the whole state after every change makes persistence cost grow with the state:
a long session pays for its full history again on each update. Instead the actor publishes
a snapshot once the changes made since the last one reach a share of the size the state
had at that last snapshot (and at least ``min_changes``). While the state grows, snapshots
come at sizes growing geometrically, so their total cost stays proportional to the number
of changes; the delta events emitted in between carry what a restore replays on top of the
last snapshot, and that replay is bounded by the same share of the state.

Planning and the knowledge graph both schedule their snapshots with it; any tool actor that
persists a growing state as snapshots plus delta events can do the same.
"""

from __future__ import annotations

__all__ = ["SnapshotSchedule"]


class SnapshotSchedule:
    """Counts unpublished changes and says when a snapshot is due."""

    def __init__(self, min_changes: int, size_ratio: float) -> None:
        self.min_changes = min_changes
        self.size_ratio = size_ratio
        self.pending = 0
        self._base_size = 0

    def record(self, changes: int) -> bool:
        """Count ``changes``; True when a snapshot is due."""
        self.pending += changes
        return self.pending >= max(self.min_changes, int(self._base_size * self.size_ratio))

    def published(self, size: int) -> None:
        """The state, now of ``size`` items, was just published: start counting again."""
        self.pending = 0
        self._base_size = size
