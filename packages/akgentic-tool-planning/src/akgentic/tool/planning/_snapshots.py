"""When a tool actor publishes a full snapshot of its state.

Publishing the whole state after every change makes persistence cost grow with the state:
a long session pays for its full history again on each update. Instead the actor publishes
a snapshot once the changes made since the last one reach a fraction of the state's size
(and at least ``min_changes``). The snapshots' total cost then stays proportional to the
number of changes, and the delta events emitted in between carry everything a restore
needs to replay on top of the last snapshot.
"""

from __future__ import annotations


class SnapshotSchedule:
    """Counts unpublished changes and says when a snapshot is due."""

    def __init__(self, min_changes: int, size_ratio: float) -> None:
        self.min_changes = min_changes
        self.size_ratio = size_ratio
        self.pending = 0

    def record(self, changes: int, size: int) -> bool:
        """Count ``changes``; True when a snapshot of a state of ``size`` items is due."""
        self.pending += changes
        return self.pending >= max(self.min_changes, int(size * self.size_ratio))

    def published(self) -> None:
        """The state was just published: start counting again."""
        self.pending = 0
